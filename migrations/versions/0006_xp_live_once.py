"""XP: at most one live ledger row per deed, whatever the epoch (a partial unique index)

Before this, the same deed could be live twice: a lesson completion that read the old epoch and
wrote after a concurrent progress reset left one live row in the old epoch and one in the new.
Existing duplicates are voided (the oldest row stays live) before the index is built.

Revision ID: 0006_xp_live_once
Revises: 0005_submission_review
Create Date: 2026-11-25
"""
import sqlalchemy as sa
from alembic import op

revision = "0006_xp_live_once"
down_revision = "0005_submission_review"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(sa.text(
        "UPDATE xp_entry SET voided = :yes WHERE voided = :no AND id NOT IN ("
        " SELECT MIN(id) FROM xp_entry WHERE voided = :no GROUP BY user_id, source, source_id)"
    ).bindparams(yes=True, no=False))
    op.create_index("uq_xp_entry_live_deed", "xp_entry", ["user_id", "source", "source_id"], unique=True,
                    sqlite_where=sa.text("voided = 0"), postgresql_where=sa.text("NOT voided"))


def downgrade() -> None:
    op.drop_index("uq_xp_entry_live_deed", table_name="xp_entry")
