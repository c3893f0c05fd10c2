"""The course web application (FastAPI). Build it with ``app.factory.create_app``."""
