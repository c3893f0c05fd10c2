"""A grader's override flows like a grading: notifications may name a grader's
audit entry (notification.review_id, comment_id now nullable), and every override made before
this revision gets its ``verdict_overridden`` event in the learner's current epoch, so XP and
achievements computed from the event log keep honouring it.

Revision ID: 0012_verdict_override_flow
Revises: 0011_compile_ms
Create Date: 2026-11-25
"""
import json

import sqlalchemy as sa
from alembic import op

revision = "0012_verdict_override_flow"
down_revision = "0011_compile_ms"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("notification") as batch:
        batch.alter_column("comment_id", existing_type=sa.Integer(), nullable=True)
        batch.add_column(sa.Column("review_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_notification_review_id_submission_review", "submission_review",
                                 ["review_id"], ["id"], ondelete="CASCADE")
        batch.create_unique_constraint("uq_notification_user_review", ["user_id", "review_id"])

    bind = op.get_bind()
    rows = bind.execute(sa.text(
        "SELECT r.id, r.submission_id, r.verdict_before, r.verdict_after, r.created_at, s.user_id, s.exercise_id,"
        " u.progress_epoch FROM submission_review r JOIN submission s ON s.id = r.submission_id"
        ' JOIN "user" u ON u.id = s.user_id WHERE r.kind = \'override\' ORDER BY r.created_at, r.id')).fetchall()
    event = sa.table("event", sa.column("user_id"), sa.column("epoch"), sa.column("kind"), sa.column("subject"),
                     sa.column("lang"), sa.column("value"), sa.column("data"), sa.column("source"),
                     sa.column("dedupe"), sa.column("occurred_at"), sa.column("recorded_at"))
    for review_id, sub_id, before, after, at, user_id, exercise_id, epoch in rows:
        bind.execute(event.insert().values(
            user_id=user_id, epoch=epoch, kind="verdict_overridden", subject=exercise_id, lang=None, value=None,
            data=json.dumps({"submission": str(sub_id), "verdict": after, "before": before, "review": review_id}),
            source="grader", dedupe=f"submission:{sub_id}:override:{review_id}", occurred_at=at, recorded_at=at))


def downgrade() -> None:
    op.execute("DELETE FROM event WHERE kind IN ('verdict_overridden', 'achievement_revoked')")
    op.execute("DELETE FROM notification WHERE review_id IS NOT NULL")
    with op.batch_alter_table("notification") as batch:
        batch.drop_constraint("uq_notification_user_review", type_="unique")
        batch.drop_constraint("fk_notification_review_id_submission_review", type_="foreignkey")
        batch.drop_column("review_id")
        batch.alter_column("comment_id", existing_type=sa.Integer(), nullable=False)
