"""The compile sandbox's bubblewrap options and the NVRTC options, as literal lists: what the compile
worker is started with (compiler/sandbox.py, sandboxing.py) and what every compile passes to NVRTC
(compiler/nvrtc_compile.py). A planted bug that dropped ``--cap-drop ALL`` or added fast math passed
every compile test, because neither changes whether a kernel compiles."""

from __future__ import annotations

from pathlib import Path

from kernels.engine.compiler import sandbox
from kernels.engine.compiler.nvrtc_compile import nvrtc_options


def _toolchain(tmp_path: Path) -> sandbox.Toolchain:
    for name in ("prefix", "bin", "pkg", "nvrtc", "include"):
        (tmp_path / name).mkdir()
    return sandbox.Toolchain(python=str(tmp_path / "bin" / "python3"), python_prefix=str(tmp_path / "prefix"),
                             nvrtc_lib=str(tmp_path / "nvrtc" / "libnvrtc.so.13"),
                             include_dir=str(tmp_path / "include"), package_dirs=(str(tmp_path / "pkg"),))


def _pairs(args: list[str], flag: str) -> list[tuple[str, str]]:
    return [(args[i + 1], args[i + 2]) for i, a in enumerate(args) if a == flag]


def test_the_compile_worker_runs_as_nobody_without_capabilities_or_environment(tmp_path):
    args = sandbox.bwrap_args(_toolchain(tmp_path))
    joined = " ".join(args)
    assert args[0] == "--unshare-all"
    assert "--unshare-user --uid 65534 --gid 65534" in joined
    assert "--cap-drop ALL" in joined
    for flag in ("--die-with-parent", "--clearenv", "--new-session"):
        assert flag in args
    assert "--setenv" not in args  # an empty environment
    assert "--proc" not in args and "--bind" not in args and "--dev-bind" not in args
    assert "--tmpfs /tmp" in joined and "--chdir /tmp" in joined


def test_the_compile_worker_sees_its_toolchain_read_only_and_its_script_under_sandbox(tmp_path):
    tc = _toolchain(tmp_path)
    binds = _pairs(sandbox.bwrap_args(tc), "--ro-bind")
    for name in ("prefix", "bin", "pkg", "nvrtc", "include"):
        assert (str(tmp_path / name), str(tmp_path / name)) in binds
    mapped = {dst: src for src, dst in binds}
    assert mapped["/sandbox/worker.py"].endswith("kernels/engine/compiler/worker.py")
    assert mapped["/sandbox/nvrtc_compile.py"].endswith("kernels/engine/compiler/nvrtc_compile.py")
    repo = str(Path(__file__).resolve().parents[2])
    assert not any(src in ("/", "/home", "/root", "/etc", repo) for src, _ in binds)


def test_the_worker_command_starts_isolated_python_inside_bubblewrap(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox, "bwrap_binary", lambda: "/usr/bin/bwrap")
    argv = sandbox.worker_argv(_toolchain(tmp_path), sandboxed=True, cpu_s=7.0, data_bytes=123)
    cmd = argv[argv.index("--") + 1:]
    assert argv[0] == "/usr/bin/bwrap"
    assert cmd[:5] == [str(tmp_path / "bin" / "python3"), "-I", "-S", "-B", "/sandbox/worker.py"]
    assert '"cpu_s": 7.0' in cmd[5] and '"data_bytes": 123' in cmd[5]


def test_nvrtc_options_are_exactly_the_documented_ones():
    assert nvrtc_options("sm_90") == ["-arch=sm_90", "--std=c++17", "-default-device", "-Xptxas=-v"]
    assert nvrtc_options("sm_100a", ptxas_verbose=False, lineinfo=True, extra=["-DX=1"], include_dirs=["/inc"]) == [
        "-arch=sm_100a", "--std=c++17", "-default-device", "-lineinfo", "-DX=1", "-I/inc"]


def test_no_option_trades_ieee_rounding_for_speed():
    # the tolerances of every checker assume IEEE float32 rounding with FMA, not fast math
    options = nvrtc_options("sm_90", lineinfo=True)
    assert not any("fast" in o or "ftz" in o or "prec" in o for o in options)
