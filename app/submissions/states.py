"""Submission states. The row's ``state`` column only ever holds one of these."""
from __future__ import annotations

QUEUED = "queued"  # stored, waiting for a dispatcher
COMPILING = "compiling"  # claimed; validating + sandboxed NVRTC compile
CHECKING = "checking"  # on the GPU: correctness at every size
TIMING = "timing"  # on the GPU: learner vs references
AWAITING_GPU = "awaiting_gpu"  # compiled fine on a server without a GPU; a GPU lane grades it later
DONE = "done"  # final: the Result is in the row
CANCELLED = "cancelled"  # final: its author took it back while it waited; nothing ran, no verdict

RUNNING = (COMPILING, CHECKING, TIMING)  # a lease is held while in one of these
IN_FLIGHT = (QUEUED, *RUNNING)  # counts against the per-user "in flight" limit
WAITING = (QUEUED, AWAITING_GPU)  # what its author may still cancel
ALL = (QUEUED, COMPILING, CHECKING, TIMING, AWAITING_GPU, DONE, CANCELLED)

# Engine phases that become states (validating is part of compiling for the learner).
PHASE_TO_STATE = {"validating": COMPILING, "compiling": COMPILING, "checking": CHECKING, "timing": TIMING}
