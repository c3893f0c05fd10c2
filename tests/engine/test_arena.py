"""The worker's device arena hands out aligned, non-overlapping ranges, from several threads at once,
and says when a block does not fit (the block then comes from cudaMalloc). The device side is in
tests/gpu/test_gpu_grading.py."""

from __future__ import annotations

import threading

import pytest

from kernels.engine.gpu.arena import BumpRange, use_arena


def test_ranges_are_consecutive_and_start_on_512_byte_boundaries():
    r = BumpRange(4096)
    assert [r.take(1), r.take(512), r.take(513), r.take(0)] == [0, 512, 1024, 2048]
    assert r.used == 2048 and r.misses == 0


def test_a_block_that_does_not_fit_is_refused_and_counted_and_later_ones_may_still_fit():
    r = BumpRange(2048)
    assert r.take(1536) == 0
    assert r.take(1024) is None
    assert r.take(512) == 1536  # exactly the rest
    assert r.take(1) is None
    assert (r.used, r.misses) == (2048, 2)


def test_sizes_below_zero_are_refused():
    with pytest.raises(ValueError):
        BumpRange(-1)
    with pytest.raises(ValueError):
        BumpRange(1024).take(-1)


def test_threads_taking_at_once_never_get_overlapping_ranges():
    r = BumpRange(8 * 200 * 1024)
    got: list[tuple[int, int]] = []
    lock = threading.Lock()

    def grab(size: int) -> None:
        for _ in range(200):
            offset = r.take(size)
            assert offset is not None
            with lock:
                got.append((offset, offset + size))

    threads = [threading.Thread(target=grab, args=(1000 + 3 * i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got.sort()
    assert len(got) == 1600
    assert all(end <= start for (_, end), (start, _) in zip(got, got[1:], strict=False))
    assert all(start % 512 == 0 for start, _ in got)
    assert r.used == 1600 * 1024 and r.misses == 0


def test_no_arena_is_made_for_size_zero_without_touching_cuda():
    assert use_arena(0) is None
