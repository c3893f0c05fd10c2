"""Markdown → HTML for lessons (markdown-it-py, mdit-py-plugins, Pygments)."""
from app.rendering.markdown import RenderedBody, render_markdown

__all__ = ["RenderedBody", "render_markdown"]
