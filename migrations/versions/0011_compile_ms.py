"""submission.compile_ms: CPU time a submission's compile took (per-learner compile budget)

Revision ID: 0011_compile_ms
Revises: 0007_rate_slot
Create Date: 2026-11-25
"""
import sqlalchemy as sa
from alembic import op

revision = "0011_compile_ms"
down_revision = "0007_rate_slot"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("submission") as batch:
        batch.add_column(sa.Column("compile_ms", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("submission") as batch:
        batch.drop_column("compile_ms")
