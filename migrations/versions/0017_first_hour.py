"""One-time password-reset links made by an administrator (password_reset).

Revision ID: 0017_first_hour
Revises: 0016_lti
Create Date: 2026-11-26
"""
import sqlalchemy as sa
from alembic import op

revision = "0017_first_hour"
down_revision = "0016_lti"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "password_reset",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("user.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created_by", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("used_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_password_reset_user_id", "password_reset", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_password_reset_user_id", table_name="password_reset")
    op.drop_table("password_reset")
