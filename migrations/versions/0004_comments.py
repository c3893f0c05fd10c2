"""comments (comment_thread, comment, comment_follow, comment_report), notifications
(notification, notification_preference) and problem reports (problem_report)

Revision ID: 0004_comments
Revises: 0003_submissions
Create Date: 2026-11-22
"""
import sqlalchemy as sa
from alembic import op

revision = "0004_comments"
down_revision = "0003_submissions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "comment_thread",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("lesson_slug", sa.String(length=100), nullable=False),
        sa.Column("locked_at", sa.DateTime(), nullable=True),
        sa.Column("locked_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["locked_by"], ["user.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("lesson_slug"),
    )
    op.create_table(
        "comment",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("thread_id", sa.Integer(), nullable=False),
        sa.Column("parent_id", sa.Integer(), nullable=True),
        sa.Column("root_id", sa.Integer(), nullable=True),
        sa.Column("depth", sa.Integer(), nullable=False),
        sa.Column("author_id", sa.Integer(), nullable=True),
        sa.Column("lang", sa.String(length=5), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("body_html", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("edited_at", sa.DateTime(), nullable=True),
        sa.Column("deleted_at", sa.DateTime(), nullable=True),
        sa.Column("hidden_at", sa.DateTime(), nullable=True),
        sa.Column("hidden_by", sa.Integer(), nullable=True),
        sa.Column("helpful_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["thread_id"], ["comment_thread.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["parent_id"], ["comment.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["author_id"], ["user.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["hidden_by"], ["user.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("comment") as batch_op:
        batch_op.create_index("ix_comment_thread_parent", ["thread_id", "parent_id"], unique=False)
        batch_op.create_index("ix_comment_author_created", ["author_id", "created_at"], unique=False)
        batch_op.create_index("ix_comment_root_id", ["root_id"], unique=False)
    op.create_table(
        "comment_follow",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("thread_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["thread_id"], ["comment_thread.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_id", "thread_id", name="uq_comment_follow"),
    )
    with op.batch_alter_table("comment_follow") as batch_op:
        batch_op.create_index("ix_comment_follow_thread_id", ["thread_id"], unique=False)
    op.create_table(
        "comment_report",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("comment_id", sa.Integer(), nullable=False),
        sa.Column("reporter_id", sa.Integer(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("resolved_at", sa.DateTime(), nullable=True),
        sa.Column("resolved_by", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["comment_id"], ["comment.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["reporter_id"], ["user.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["resolved_by"], ["user.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("comment_id", "reporter_id", name="uq_comment_report"),
    )
    with op.batch_alter_table("comment_report") as batch_op:
        batch_op.create_index("ix_comment_report_comment_id", ["comment_id"], unique=False)
    op.create_table(
        "notification",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("comment_id", sa.Integer(), nullable=False),
        sa.Column("actor_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("read_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["comment_id"], ["comment.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["actor_id"], ["user.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_id", "comment_id", name="uq_notification_user_comment"),
    )
    with op.batch_alter_table("notification") as batch_op:
        batch_op.create_index("ix_notification_user_read", ["user_id", "read_at"], unique=False)
    op.create_table(
        "notification_preference",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("mode", sa.String(length=16), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_id"),
    )
    op.create_table(
        "problem_report",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("lesson_slug", sa.String(length=100), nullable=False),
        sa.Column("lang", sa.String(length=5), nullable=False),
        sa.Column("what", sa.Text(), nullable=False),
        sa.Column("quote", sa.Text(), nullable=False),
        sa.Column("reporter_id", sa.Integer(), nullable=True),
        sa.Column("ip_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("resolved_at", sa.DateTime(), nullable=True),
        sa.Column("resolved_by", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["reporter_id"], ["user.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["resolved_by"], ["user.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("problem_report") as batch_op:
        batch_op.create_index("ix_problem_report_lesson_slug", ["lesson_slug"], unique=False)
        batch_op.create_index("ix_problem_report_ip_created", ["ip_hash", "created_at"], unique=False)


def downgrade() -> None:
    for table in ("problem_report", "notification_preference", "notification", "comment_report",
                  "comment_follow", "comment", "comment_thread"):
        op.drop_table(table)
