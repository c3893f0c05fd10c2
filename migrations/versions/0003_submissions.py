"""submissions queue (submission) and one-dispatcher-per-GPU leases (dispatcher_lane)

Revision ID: 0003_submissions
Revises: 0002
Create Date: 2026-11-22
"""
import sqlalchemy as sa
from alembic import op

revision = "0003_submissions"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "submission",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("exercise_id", sa.String(length=64), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("launch", sa.Text(), nullable=False),
        sa.Column("source_bytes", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("verdict", sa.String(length=16), nullable=True),
        sa.Column("result", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.Column("claimed_at", sa.DateTime(), nullable=True),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("lane", sa.String(length=100), nullable=True),
        sa.Column("lease_owner", sa.String(length=100), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("recorded", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("submission") as batch_op:
        batch_op.create_index("ix_submission_state_created", ["state", "created_at"], unique=False)
        batch_op.create_index("ix_submission_user_created", ["user_id", "created_at"], unique=False)
        batch_op.create_index("ix_submission_user_claimed", ["user_id", "claimed_at"], unique=False)
    op.create_table(
        "dispatcher_lane",
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("owner", sa.String(length=100), nullable=True),
        sa.Column("expires_at", sa.DateTime(), nullable=True),
        sa.Column("heartbeat_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("dispatcher_lane")
    with op.batch_alter_table("submission") as batch_op:
        batch_op.drop_index("ix_submission_user_claimed")
        batch_op.drop_index("ix_submission_user_created")
        batch_op.drop_index("ix_submission_state_created")
    op.drop_table("submission")
