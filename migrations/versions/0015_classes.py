"""Classes: rosters, assignments, leaderboard profiles and strikes; a notification may name a strike.

Revision ID: 0015_classes
Revises: 0012_verdict_override_flow
Create Date: 2026-11-26
"""
import sqlalchemy as sa
from alembic import op

revision = "0015_classes"
down_revision = "0012_verdict_override_flow"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "course_class",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("term", sa.String(length=64), nullable=False),
        sa.Column("notice_lang", sa.String(length=2), nullable=False),
        sa.Column("tz", sa.String(length=64), nullable=False),
        sa.Column("invite_code", sa.String(length=32), nullable=True),
        sa.Column("external_id", sa.String(length=255), nullable=True),
        sa.Column("board_enabled", sa.Boolean(), nullable=False),
        sa.Column("board_hide_until_due", sa.Boolean(), nullable=False),
        sa.Column("board_gpu", sa.String(length=64), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["created_by"], ["user.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("invite_code"),
        sa.UniqueConstraint("external_id"),
    )
    op.create_table(
        "class_member",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("class_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("joined_at", sa.DateTime(), nullable=False),
        sa.CheckConstraint("role IN ('learner', 'grader', 'instructor')", name="ck_class_member_role"),
        sa.ForeignKeyConstraint(["class_id"], ["course_class.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("class_id", "user_id", name="uq_class_member_class_user"),
    )
    op.create_index("ix_class_member_user", "class_member", ["user_id"])
    op.create_table(
        "assignment",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("class_id", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(length=120), nullable=False),
        sa.Column("opens_at", sa.DateTime(), nullable=False),
        sa.Column("due_at", sa.DateTime(), nullable=False),
        sa.Column("complete_tier", sa.String(length=32), nullable=False),
        sa.Column("late_policy", sa.String(length=8), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.CheckConstraint("late_policy IN ('mark', 'close')", name="ck_assignment_late_policy"),
        sa.CheckConstraint("opens_at <= due_at", name="ck_assignment_opens_before_due"),
        sa.ForeignKeyConstraint(["class_id"], ["course_class.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_assignment_class_due", "assignment", ["class_id", "due_at"])
    op.create_table(
        "assignment_item",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("ref", sa.String(length=64), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.CheckConstraint("kind IN ('lesson', 'exercise')", name="ck_assignment_item_kind"),
        sa.ForeignKeyConstraint(["assignment_id"], ["assignment.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("assignment_id", "kind", "ref", name="uq_assignment_item"),
    )
    op.create_table(
        "board_profile",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("alias", sa.String(length=32), nullable=False),
        sa.Column("use_alias", sa.Boolean(), nullable=False),
        sa.Column("site_board", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_id"),
    )
    op.create_table(
        "board_strike",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("class_id", sa.Integer(), nullable=True),
        sa.Column("grader_id", sa.Integer(), nullable=True),
        sa.Column("grader_name", sa.String(length=32), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["submission_id"], ["submission.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["class_id"], ["course_class.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["grader_id"], ["user.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("submission_id"),
    )
    with op.batch_alter_table("notification") as batch:
        batch.add_column(sa.Column("strike_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_notification_strike_id_board_strike", "board_strike",
                                 ["strike_id"], ["id"], ondelete="CASCADE")
        batch.create_unique_constraint("uq_notification_user_strike", ["user_id", "strike_id"])


def downgrade() -> None:
    op.execute("DELETE FROM notification WHERE strike_id IS NOT NULL")
    with op.batch_alter_table("notification") as batch:
        batch.drop_constraint("uq_notification_user_strike", type_="unique")
        batch.drop_constraint("fk_notification_strike_id_board_strike", type_="foreignkey")
        batch.drop_column("strike_id")
    op.drop_table("board_strike")
    op.drop_table("board_profile")
    op.drop_table("assignment_item")
    op.drop_index("ix_assignment_class_due", table_name="assignment")
    op.drop_table("assignment")
    op.drop_index("ix_class_member_user", table_name="class_member")
    op.drop_table("class_member")
    op.drop_table("course_class")
