"""Rate limits as database slots (app/accounts/ratelimit.py): atomic under parallel requests

Revision ID: 0007_rate_slot
Revises: 0010_procrastinate
Create Date: 2026-11-25
"""
import sqlalchemy as sa
from alembic import op

revision = "0007_rate_slot"
down_revision = "0010_procrastinate"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rate_slot",
        sa.Column("bucket", sa.String(length=64), nullable=False),
        sa.Column("slot", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("free_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("bucket", "slot"),
    )


def downgrade() -> None:
    op.drop_table("rate_slot")
