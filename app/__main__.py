"""``python -m app`` — the command-line entry point (see app/cli.py)."""
from app.cli import main

raise SystemExit(main())
