"""submission.gpu_ms: GPU time a submission's checking and timing took (per-learner GPU budget), and
an index on (user_id, finished_at) for summing one learner's last hour.

Revision ID: 0014_gpu_budget
Revises: 0013_ops
Create Date: 2026-11-26
"""
import sqlalchemy as sa
from alembic import op

revision = "0014_gpu_budget"
down_revision = "0013_ops"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("submission") as batch:
        batch.add_column(sa.Column("gpu_ms", sa.Integer(), nullable=True))
        batch.create_index("ix_submission_user_finished", ["user_id", "finished_at"])


def downgrade() -> None:
    with op.batch_alter_table("submission") as batch:
        batch.drop_index("ix_submission_user_finished")
        batch.drop_column("gpu_ms")
