"""The starter code in the page's language. Korean pages get the same code as starter.cu with each
comment translated: kernels/<id>/starter.ko.yaml maps a comment's English text (what follows
``//``, stripped) to its Korean. Keeping one copy of the code means a fix to the starter reaches
both languages; a comment with no translation stays in English."""
from __future__ import annotations

import re
from pathlib import Path

import yaml

KOREAN_COMMENTS = "starter.ko.yaml"
_COMMENT = re.compile(r"//([ \t]*)([^\n]*)")


def comment_texts(source: str) -> list[str]:
    """The text of every ``//`` comment in ``source``, stripped, in order."""
    return [m.group(2).strip() for m in _COMMENT.finditer(source)]


def load_translations(path: Path) -> dict[str, str]:
    """{English comment text: Korean} from a starter.ko.yaml; {} when it is absent or not a mapping."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def translate_comments(source: str, translations: dict[str, str]) -> str:
    """``source`` with each comment's text replaced by its translation; code and spacing unchanged."""
    def swap(match: re.Match[str]) -> str:
        text = match.group(2)
        korean = translations.get(text.strip())
        return f"//{match.group(1)}{korean}" if korean else match.group(0)

    return _COMMENT.sub(swap, source)
