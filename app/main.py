"""ASGI entry point: ``uvicorn app.main:app``. Settings come from MKC_* variables / .env."""
from app.factory import create_app

app = create_app()
