"""The GPU worker's side of its protocol: JSON lines on the file descriptor the parent passed as
argv[1] (stdout is left to the learner's device printf, which the parent captures and caps).

Lines the parent writes to the worker's stdin, in this order: "warm" (a deferred worker only:
create the context now), "prime" (optional: the first launches, sent once no job on this GPU is
being timed), the job (one JSON object), and, for a job with "gate": true, "time" in answer to
"checked" (the worker may start its timed rounds).

Events (the parent, worker_process.py, reads them):
  {"ev": "loaded"}                                   deferred start only: imported, no GPU yet
  {"ev": "ready", "gpu": {...}, "versions": {...}}   context and cuBLAS handle made, nothing launched
  {"ev": "broken", "stage": "start", "error": str}   no usable GPU in here
  {"ev": "phase", "name": "checking"|"timing"}
  {"ev": "checked"}                                  gate only: correct, inputs on the GPU; waits for "time"
  {"ev": "watch", "limit": seconds, "what": ...}     the parent kills us if this takes too long
  {"ev": "unwatch"}
  {"ev": "timed"}                                    the last timed round ran: only host checks and the
                                                     Result follow (the parent primes the next worker)
  {"ev": "result", "result": {...}}                  ``Result.to_dict()``

The parent treats what it cannot read as a broken worker: a line that is not a JSON object, a watch whose
limit is not a number, or a result that is not a Result ends the job as UNAVAILABLE_WORKER_CRASHED
(the server's fault, never the learner's) and the worker is killed.

Standard library only.
"""

from __future__ import annotations

import json
import os
from typing import Any, TextIO

from ..result import safe_number

_stream: TextIO | None = None


def open_stream(fd: int) -> None:
    global _stream
    _stream = os.fdopen(fd, "w", buffering=1, encoding="utf-8")


def send(event: dict[str, Any]) -> None:
    if _stream is None:
        raise RuntimeError("the protocol stream is not open (open_stream first)")
    _stream.write(json.dumps(_json_safe(event), allow_nan=False) + "\n")
    _stream.flush()


def _json_safe(obj: Any) -> Any:
    """Non-finite floats become the Result format's marker strings (NaN never breaks JSON);
    numpy scalars become Python numbers."""
    if isinstance(obj, float):
        return safe_number(obj)
    if isinstance(obj, dict):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if hasattr(obj, "item") and not isinstance(obj, (str, bytes)):
        return _json_safe(obj.item())
    return obj
