"""procrastinate's schema (cluster mode job queue), PostgreSQL only

Revision ID: 0010_procrastinate
Revises: 0006_xp_live_once
Create Date: 2026-11-25

Cluster mode (``MKC_QUEUE=procrastinate``) keeps its jobs in procrastinate's tables beside ours.
This applies the schema of the installed procrastinate (pinned ``>=3.10,<4`` in pyproject); a later
procrastinate upgrade adds a migration that runs its shipped ``sql/migrations/*.sql`` files.
On SQLite (one box) there is no job-queue engine and this revision does nothing.
"""
from alembic import op

revision = "0010_procrastinate"
down_revision = "0006_xp_live_once"
branch_labels = None
depends_on = None


def _raw(sql: str) -> None:
    # procrastinate's SQL holds functions with '%' and ':' in their bodies: send it to psycopg
    # as is (no parameters, so nothing is read as a placeholder), inside the migration's transaction.
    op.get_bind().connection.driver_connection.execute(sql)


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    from procrastinate.schema import SchemaManager

    _raw(SchemaManager.get_schema())


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    _raw("""
DO $$
DECLARE r record;
BEGIN
    FOR r IN SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname LIKE 'procrastinate\\_%' LOOP
        EXECUTE format('DROP TABLE IF EXISTS %I CASCADE', r.relname);
    END LOOP;
    FOR r IN SELECT p.oid::regprocedure AS sig FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE n.nspname = current_schema() AND p.proname LIKE 'procrastinate\\_%' LOOP
        EXECUTE format('DROP FUNCTION IF EXISTS %s CASCADE', r.sig);
    END LOOP;
    FOR r IN SELECT t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
             WHERE n.nspname = current_schema() AND t.typtype IN ('e', 'c') AND t.typname LIKE 'procrastinate\\_%' LOOP
        EXECUTE format('DROP TYPE IF EXISTS %I CASCADE', r.typname);
    END LOOP;
END $$;
""")
