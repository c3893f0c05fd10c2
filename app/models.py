"""The whole schema: importing this module registers every feature's ORM models on ``Base.metadata``.

``Base`` itself lives in app/core/db.py and each feature keeps its tables beside its services; only
Alembic (migrations/env.py), the models-vs-migrations test and code that needs every table import this.
Feature code imports its own ``models`` modules, never this one.
"""
from __future__ import annotations

from app.accounts import models as _account_models  # noqa: F401
from app.classes import models as _class_models  # noqa: F401
from app.cluster import models as _cluster_models  # noqa: F401
from app.comments import models as _comment_models  # noqa: F401
from app.core.db import Base
from app.lessons import models as _lesson_models  # noqa: F401
from app.notifications import models as _notification_models  # noqa: F401
from app.progress import models as _progress_models  # noqa: F401
from app.reports import models as _report_models  # noqa: F401
from app.submissions import models as _submission_models  # noqa: F401

__all__ = ["Base"]
