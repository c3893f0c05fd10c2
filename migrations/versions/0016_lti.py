"""LTI 1.3 tool: platform registrations, deployments, our key pairs, launch state, LMS identities,
LMS courses and their members, line items and the grade passback outbox.

Revision ID: 0016_lti
Revises: 0015_classes
Create Date: 2026-11-26
"""
import sqlalchemy as sa
from alembic import op

revision = "0016_lti"
down_revision = "0015_classes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lti_platform",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("issuer", sa.String(255), nullable=False),
        sa.Column("client_id", sa.String(255), nullable=False),
        sa.Column("auth_login_url", sa.String(500), nullable=False),
        sa.Column("auth_token_url", sa.String(500), nullable=False),
        sa.Column("key_set_url", sa.String(500), nullable=False),
        sa.Column("auth_audience", sa.String(500), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("issuer", "client_id", name="uq_lti_platform_issuer_client"),
    )
    op.create_table(
        "lti_deployment",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("platform_id", sa.Integer(), sa.ForeignKey("lti_platform.id", ondelete="CASCADE"), nullable=False),
        sa.Column("deployment_id", sa.String(255), nullable=False),
        sa.UniqueConstraint("platform_id", "deployment_id", name="uq_lti_deployment_platform_dep"),
    )
    op.create_index("ix_lti_deployment_platform_id", "lti_deployment", ["platform_id"])
    op.create_table(
        "lti_key",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("kid", sa.String(100), nullable=False, unique=True),
        sa.Column("private_pem", sa.Text(), nullable=False),
        sa.Column("public_pem", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("retired_at", sa.DateTime(), nullable=True),
    )
    op.create_table(
        "lti_launch_value",
        sa.Column("key", sa.String(255), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_lti_launch_value_expires_at", "lti_launch_value", ["expires_at"])
    op.create_table(
        "lti_identity",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("platform_id", sa.Integer(), sa.ForeignKey("lti_platform.id", ondelete="CASCADE"), nullable=False),
        sa.Column("subject", sa.String(255), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("user.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("platform_id", "subject", name="uq_lti_identity_platform_subject"),
    )
    op.create_index("ix_lti_identity_platform_id", "lti_identity", ["platform_id"])
    op.create_index("ix_lti_identity_user_id", "lti_identity", ["user_id"])
    op.create_table(
        "lti_context",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("platform_id", sa.Integer(), sa.ForeignKey("lti_platform.id", ondelete="CASCADE"), nullable=False),
        sa.Column("context_id", sa.String(255), nullable=False),
        sa.Column("title", sa.String(255), nullable=False),
        sa.Column("memberships_url", sa.String(500), nullable=True),
        sa.Column("lineitems_url", sa.String(500), nullable=True),
        sa.Column("ags_scopes", sa.String(500), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("platform_id", "context_id", name="uq_lti_context_platform_context"),
    )
    op.create_index("ix_lti_context_platform_id", "lti_context", ["platform_id"])
    op.create_table(
        "lti_member",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("context_id", sa.Integer(), sa.ForeignKey("lti_context.id", ondelete="CASCADE"), nullable=False),
        sa.Column("subject", sa.String(255), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("user.id", ondelete="CASCADE"), nullable=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("synced_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("context_id", "subject", name="uq_lti_member_context_subject"),
    )
    op.create_index("ix_lti_member_context_id", "lti_member", ["context_id"])
    op.create_index("ix_lti_member_user_id", "lti_member", ["user_id"])
    op.create_table(
        "lti_line_item",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("context_id", sa.Integer(), sa.ForeignKey("lti_context.id", ondelete="CASCADE"), nullable=False),
        sa.Column("assignment_id", sa.Integer(), sa.ForeignKey("assignment.id", ondelete="CASCADE"), nullable=False),
        sa.Column("url", sa.String(500), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("context_id", "assignment_id", name="uq_lti_line_item_context_assignment"),
    )
    op.create_index("ix_lti_line_item_context_id", "lti_line_item", ["context_id"])
    op.create_index("ix_lti_line_item_assignment_id", "lti_line_item", ["assignment_id"])
    op.create_table(
        "lti_score",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("context_id", sa.Integer(), sa.ForeignKey("lti_context.id", ondelete="CASCADE"), nullable=False),
        sa.Column("assignment_id", sa.Integer(), sa.ForeignKey("assignment.id", ondelete="CASCADE"), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("user.id", ondelete="CASCADE"), nullable=False),
        sa.Column("subject", sa.String(255), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("out_of", sa.Float(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("changed_at", sa.DateTime(), nullable=False),
        sa.Column("sent_version", sa.Integer(), nullable=False),
        sa.Column("sent_score", sa.Float(), nullable=True),
        sa.Column("sent_at", sa.DateTime(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.String(200), nullable=False),
        sa.Column("next_try_at", sa.DateTime(), nullable=False),
        sa.Column("lease_owner", sa.String(100), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(), nullable=True),
        sa.UniqueConstraint("context_id", "assignment_id", "user_id", name="uq_lti_score_ctx_asg_user"),
    )
    for column in ("context_id", "assignment_id", "user_id", "next_try_at"):
        op.create_index(f"ix_lti_score_{column}", "lti_score", [column])


def downgrade() -> None:
    for table in ("lti_score", "lti_line_item", "lti_member", "lti_context", "lti_identity", "lti_launch_value",
                  "lti_key", "lti_deployment", "lti_platform"):
        op.drop_table(table)
