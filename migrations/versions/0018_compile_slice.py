"""Compile time-slicing: a submission whose first compile ran past its short CPU slice is a long compile
(submission.long_compile_ms: the milliseconds that first slice spent, counted in the learner's hourly
compile budget); it comes back for one compile with the full limit, in the slots cooling learners share.

Revision ID: 0018_compile_slice
Revises: 0013_ops
Create Date: 2026-11-27
"""
import sqlalchemy as sa
from alembic import op

revision = "0018_compile_slice"
down_revision = "0013_ops"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("submission") as batch:
        batch.add_column(sa.Column("long_compile_ms", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("submission") as batch:
        batch.drop_column("long_compile_ms")
