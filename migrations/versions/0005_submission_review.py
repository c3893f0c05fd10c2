"""graders' audit trail (submission_review)

Revision ID: 0005_submission_review
Revises: 0004_comments
Create Date: 2026-11-22
"""
import sqlalchemy as sa
from alembic import op

revision = "0005_submission_review"
down_revision = "0004_comments"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "submission_review",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("grader_id", sa.Integer(), nullable=True),
        sa.Column("grader_name", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("verdict_before", sa.String(length=16), nullable=True),
        sa.Column("verdict_after", sa.String(length=16), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("xp_delta", sa.Integer(), nullable=False),
        sa.Column("result_before", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["submission_id"], ["submission.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["grader_id"], ["user.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_submission_review_submission", "submission_review", ["submission_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_submission_review_submission", table_name="submission_review")
    op.drop_table("submission_review")
