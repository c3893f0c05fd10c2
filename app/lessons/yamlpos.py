"""Parse YAML keeping line numbers, so validation errors can point at file:line."""
from __future__ import annotations

from typing import Any

import yaml


class YamlError(Exception):
    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line
        self.message = message


def load_with_nodes(text: str) -> tuple[Any, yaml.Node | None]:
    """Return (data, root node). Raises YamlError with a 1-based line on bad YAML."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        raise YamlError(line, f"invalid YAML: {exc.problem or exc}") from None
    except yaml.YAMLError as exc:
        raise YamlError(1, f"invalid YAML: {exc}") from None
    return data, node


def line_of(node: yaml.Node | None, loc: tuple[Any, ...]) -> int:
    """1-based line of the node at a pydantic error location; the nearest parent if absent."""
    if node is None:
        return 1
    line: int = node.start_mark.line + 1
    for key in loc:
        child = None
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if key_node.value == key:
                    child = value_node
                    line = key_node.start_mark.line + 1
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            child = node.value[key]
            line = child.start_mark.line + 1
        if child is None:
            break
        node = child
    return line
