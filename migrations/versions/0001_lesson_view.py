"""lesson_view: per-lesson, per-language, per-day read counter

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""
import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lesson_view",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("slug", sa.String(length=100), nullable=False),
        sa.Column("lang", sa.String(length=5), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("views", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("slug", "lang", "day", name="uq_lesson_view_slug_lang_day"),
    )
    with op.batch_alter_table("lesson_view") as batch_op:
        batch_op.create_index("ix_lesson_view_slug", ["slug"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("lesson_view") as batch_op:
        batch_op.drop_index("ix_lesson_view_slug")
    op.drop_table("lesson_view")
