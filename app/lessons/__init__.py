"""The lesson catalog: lessons/NN-slug/ folders, validated and rendered (see catalog.py)."""
from app.lessons.catalog import Catalog, Lesson, LessonText, Problem

__all__ = ["Catalog", "Lesson", "LessonText", "Problem"]
