"""Operations: the cluster's named workers (grading_worker), and why a queued submission waits
(submission.waiting_reason, submission.waiting_until: a compile budget or cool-down, shown to the learner).

Revision ID: 0013_ops
Revises: 0012_verdict_override_flow
Create Date: 2026-11-26
"""
import sqlalchemy as sa
from alembic import op

revision = "0013_ops"
down_revision = "0012_verdict_override_flow"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "grading_worker",
        sa.Column("name", sa.String(100), primary_key=True),
        sa.Column("gpu", sa.Integer(), nullable=True),
        sa.Column("host", sa.String(100), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("compile_slots", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("last_seen", sa.DateTime(), nullable=False),
    )
    with op.batch_alter_table("submission") as batch:
        batch.add_column(sa.Column("waiting_reason", sa.String(32), nullable=True))
        batch.add_column(sa.Column("waiting_until", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("submission") as batch:
        batch.drop_column("waiting_until")
        batch.drop_column("waiting_reason")
    op.drop_table("grading_worker")
