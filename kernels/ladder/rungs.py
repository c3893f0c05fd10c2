"""Discover the ladder's rungs and read their machine-readable header lines (CPU only, no CuPy).

Each rung kernels/ladder/NN_name.cu starts with comment lines such as
    // launch: block=256,1,1 tile=128,128 smem=0
    // dtype: f32            (f32: float A, B, C;  f16: half A, B (bit patterns), float C)
    // arch: sm_90           (sm_90a for rungs that use Hopper-only instructions)
The grid follows the exercise contract: (ceil(N / tile[0]), ceil(M / tile[1]), 1).
Two optional lines, for the Hopper rungs (14 on):
    // tma: A=64x128 B=64x64 (the kernel takes two more parameters, CUtensorMaps passed by value as
                             __grid_constant__, for A and B, built by the host with these boxes:
                             elements along the contiguous dimension × rows, 128-byte swizzle)
    // grid: persistent      (one block per SM, at most one per tile; the kernel loops over tiles)
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

LADDER_DIR = Path(__file__).resolve().parent
KERNEL_NAME = "gemm"

_LAUNCH = re.compile(r"^//\s*launch:\s*block=(\d+),(\d+),(\d+)\s+tile=(\d+),(\d+)\s+smem=(\d+)\s*$", re.M)
_DTYPE = re.compile(r"^//\s*dtype:\s*(f32|f16)\s*$", re.M)
_ARCH = re.compile(r"^//\s*arch:\s*(sm_90a?)\s*$", re.M)
_TMA = re.compile(r"^//\s*tma:\s*A=(\d+)x(\d+)\s+B=(\d+)x(\d+)\s*$", re.M)
_PERSISTENT = re.compile(r"^//\s*grid:\s*persistent\s*$", re.M)
_TITLE = re.compile(r"^//\s*\d\d_\w+\s+—\s+(.+)$", re.M)
_SETTINGS = (_LAUNCH, _DTYPE, _ARCH, _TMA, _PERSISTENT)


def is_setting_line(line: str) -> bool:
    """True for a header line this module reads (launch, dtype, arch, tma, grid): a translated
    header keeps these verbatim."""
    return any(pattern.match(line) for pattern in _SETTINGS)


@dataclass(frozen=True)
class Rung:
    stem: str                      # file stem, e.g. "05_2d_register_tiling"
    path: Path
    block: tuple[int, int, int]
    tile: tuple[int, int]          # (columns of C per block, rows of C per block)
    smem: int                      # dynamic shared memory bytes (0: static only)
    dtype: str                     # "f32" | "f16"
    arch: str                      # "sm_90" | "sm_90a"
    title: str                     # the header's one-line summary
    tma: tuple[tuple[int, int], tuple[int, int]] | None = None   # TMA boxes of A and B (see above)
    persistent: bool = False


    @property
    def number(self) -> int:
        return int(self.stem[:2])

    @property
    def source(self) -> str:
        return self.path.read_text(encoding="utf-8")

    def grid(self, M: int, N: int, sm_count: int | None = None) -> tuple[int, int, int]:
        gx, gy = (N + self.tile[0] - 1) // self.tile[0], (M + self.tile[1] - 1) // self.tile[1]
        if self.persistent:
            if sm_count is None:
                raise ValueError(f"{self.stem} is persistent: its grid needs the GPU's SM count")
            return (min(gx * gy, sm_count), 1, 1)
        return (gx, gy, 1)


class HeaderError(ValueError):
    pass


def parse_rung(path: Path) -> Rung:
    text = path.read_text(encoding="utf-8")
    launch, dtype, arch, title = _LAUNCH.search(text), _DTYPE.search(text), _ARCH.search(text), _TITLE.search(text)
    missing = [n for n, m in (("launch", launch), ("dtype", dtype), ("arch", arch), ("title", title)) if m is None]
    if missing or launch is None or dtype is None or arch is None or title is None:
        raise HeaderError(f"{path.name}: header line(s) missing or malformed: {', '.join(missing)}")
    b = (int(launch.group(1)), int(launch.group(2)), int(launch.group(3)))
    tma_m = _TMA.search(text)
    tma = (((int(tma_m.group(1)), int(tma_m.group(2))), (int(tma_m.group(3)), int(tma_m.group(4))))
           if tma_m else None)
    return Rung(stem=path.stem, path=path, block=b,
                tile=(int(launch.group(4)), int(launch.group(5))), smem=int(launch.group(6)),
                dtype=dtype.group(1), arch=arch.group(1), title=title.group(1).strip(),
                tma=tma, persistent=_PERSISTENT.search(text) is not None)


def discover(directory: Path = LADDER_DIR) -> list[Rung]:
    """All rungs, in ladder order."""
    return [parse_rung(p) for p in sorted(directory.glob("[0-9][0-9]_*.cu"))]
