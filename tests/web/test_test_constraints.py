"""The test gates run at versions recorded in the repository, installed by the README's test command."""
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "tests" / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"constraints.txt pins exact versions, not {line!r}"
            pins[name.lower().replace("_", "-")] = version
    return pins


def test_every_test_tool_is_pinned():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    missing = sorted({_name(r) for r in extra} - set(_pins()))
    assert missing == [], f"pin these in tests/constraints.txt: {missing}"


def test_the_gates_are_pinned_by_exact_version():
    pins = _pins()
    for gate in ("pytest", "ruff", "mypy", "schemathesis", "hypothesis", "playwright", "import-linter"):
        assert re.fullmatch(r"\d+(\.\d+)+", pins[gate]), gate


def test_the_runtime_dependencies_stay_ranges():
    # The first README command installs the app for a user: it must take bug fixes of its libraries.
    runtime = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert [r for r in runtime if "==" in r] == []
    assert not {_name(r) for r in runtime} & set(_pins()) - {"httpx"}


def test_the_readme_test_command_installs_with_the_constraints():
    script = (ROOT / "tests" / "run.sh").read_text()
    assert re.search(r"pip install -q -e '\.\[test\]' -c tests/constraints\.txt", script)
    assert (ROOT / ".ci" / "run").read_text().count("tests/run.sh") == 1
