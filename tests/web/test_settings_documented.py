"""Every setting is documented where an operator looks (as Datasette does for its settings).

- every field of the web app's model (app/core/config.py) is a row of README.md's settings table, and
  every field of the engine's model (kernels/engine/settings.py) a row of kernels/README.md's, each with
  its default and meaning; no row names a setting that does not exist; the defaults written there are
  the code's;
- no module of app/ or kernels/ reads an ``MKC_`` (or the old ``KERNELS_``) variable itself: only the two
  settings models read the environment for the project's own variables.
"""
from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import pytest
from pydantic import SecretStr

from app.core.config import PROJECT_ROOT, Settings
from kernels.engine.settings import EngineSettings, engine_settings, env_name

ROW = re.compile(r"^\|\s*`(MKC_[A-Z0-9_]+)`\s*\|([^|]*)\|(.*)\|\s*$")
SETTINGS_MODULES = {PROJECT_ROOT / "app/core/config.py", PROJECT_ROOT / "kernels/engine/settings.py"}
# A benchmark's stand-in GPU (not the site's settings): its knobs are set by the benchmark for its child processes.
NOT_SETTINGS = {PROJECT_ROOT / "app/bench/fake_gpu.py"}
# Variables of other programs the code may read itself.
FOREIGN = {"CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH"}


def table(readme: Path) -> dict[str, tuple[str, str]]:
    """name -> (default, meaning) of every settings row in a markdown file."""
    rows = {}
    for line in readme.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            name, default, meaning = match.group(1), match.group(2).strip(), match.group(3).strip()
            assert name not in rows, f"{readme.name}: {name} has two rows"
            rows[name] = (default, meaning)
    return rows


WEB = {"MKC_" + name.upper(): field.default for name, field in Settings.model_fields.items()}
ENGINE = {env_name(f.name): f.default for f in dataclasses.fields(EngineSettings)}
MODELS = [("README.md", WEB), ("kernels/README.md", ENGINE)]


def written(value: object) -> list[str]:
    """The ways a table may write a default that the code spells ``value``."""
    if isinstance(value, bool):
        words = ["true", "on"] if value else ["false", "off"]
        return words + [f"`{w}`" for w in words]
    if isinstance(value, float) and value.is_integer():
        return [f"`{value:g}`", f"`{value}`"]
    return [f"`{value}`"]


def test_no_name_is_in_both_models():
    assert not set(WEB) & set(ENGINE)


@pytest.mark.parametrize(("readme", "fields"), MODELS, ids=["web", "engine"])
def test_every_field_has_a_row_with_default_and_meaning(readme, fields):
    rows = table(PROJECT_ROOT / readme)
    missing = sorted(set(fields) - set(rows))
    assert not missing, f"settings missing from {readme}'s table: {missing}"
    for name in fields:
        default, meaning = rows[name]
        assert default and len(meaning) >= 10, f"{readme}: {name} needs a default and a meaning"


@pytest.mark.parametrize(("readme", "fields"), MODELS, ids=["web", "engine"])
def test_every_row_names_a_field(readme, fields):
    unknown = sorted(set(table(PROJECT_ROOT / readme)) - set(fields))
    assert not unknown, f"{readme}'s table names settings that do not exist: {unknown}"


@pytest.mark.parametrize(("readme", "fields"), MODELS, ids=["web", "engine"])
def test_documented_defaults_are_the_codes(readme, fields):
    rows = table(PROJECT_ROOT / readme)
    for name, value in fields.items():
        if isinstance(value, SecretStr):
            value = value.get_secret_value()
        if value in ("", None) or isinstance(value, Path):
            continue  # "empty (...)" and folders of the checkout are described in words
        default = rows[name][0]
        assert any(default.startswith(w) for w in written(value)), f"{readme}: {name} default {default!r} is not {value!r}"


def test_engine_settings_read_the_environment_each_time(monkeypatch):
    monkeypatch.setenv("MKC_TIMING_RSE", "0.01")
    monkeypatch.setenv("MKC_GPU", "0")
    monkeypatch.setenv("MKC_UNSAFE_UNSANDBOXED_COMPILE", "yes")  # only exactly "1" switches it on
    monkeypatch.setenv("MKC_INSIGHT", "Off")
    s = engine_settings()
    assert (s.timing_rse, s.gpu, s.unsafe_unsandboxed_compile, s.insight) == (0.01, False, False, False)
    monkeypatch.setenv("MKC_GPU", "1")
    monkeypatch.delenv("MKC_INSIGHT")
    assert (engine_settings().gpu, engine_settings().insight) == (True, True)
    assert engine_settings({}) == EngineSettings()
    monkeypatch.setenv("MKC_TIMING_RSE", "fast")
    with pytest.raises(ValueError, match="MKC_TIMING_RSE"):
        engine_settings()


def _environment_reads(tree: ast.AST):
    """(line, name or None) of each read of os.environ / os.getenv; None when the name is not a literal."""

    def is_environ(node: ast.AST) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name) \
            and node.value.id == "os"

    def literal(node: ast.AST | None) -> str | None:
        return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            f = node.func
            if (f.attr == "get" and is_environ(f.value)) or \
                    (f.attr == "getenv" and isinstance(f.value, ast.Name) and f.value.id == "os"):
                yield node.lineno, literal(node.args[0] if node.args else None)
        elif isinstance(node, ast.Subscript) and is_environ(node.value) and isinstance(node.ctx, ast.Load):
            yield node.lineno, literal(node.slice)
        elif isinstance(node, ast.Compare) and any(is_environ(c) for c in node.comparators):
            yield node.lineno, literal(node.left)


def test_only_the_settings_models_read_the_projects_variables():
    offenders = []
    for folder in ("app", "kernels"):
        for path in sorted((PROJECT_ROOT / folder).rglob("*.py")):
            if path in SETTINGS_MODULES or path in NOT_SETTINGS:
                continue
            for line, name in _environment_reads(ast.parse(path.read_text(encoding="utf-8"))):
                if name not in FOREIGN:
                    offenders.append(f"{path.relative_to(PROJECT_ROOT)}:{line} reads {name or 'a computed name'}")
    assert not offenders, "read settings through app/core/config.py or kernels/engine/settings.py:\n" + "\n".join(offenders)


def test_the_check_sees_a_direct_read():
    sample = ast.parse('import os\nx = os.environ.get("MKC_X")\ny = os.environ["KERNELS_Y"]\nz = "MKC_Z" in os.environ\n'
                       'w = os.getenv(NAME)\nos.environ["MKC_W"] = "1"\n')
    assert list(_environment_reads(sample)) == [(2, "MKC_X"), (3, "KERNELS_Y"), (4, "MKC_Z"), (5, None)]
