"""How uvicorn runs the app, shared by `python -m app serve` and the benchmarks that start it themselves."""
from __future__ import annotations

# asyncio's own event loop, not uvloop (which uvicorn[standard] installs and would pick). Measured with
# `python -m app bench --signed-in` (wrk -c50, 2 cores): both serve a signed-in lesson
# page at the same rate, and the server's own work per request stays under 40 ms either way, but under
# uvloop single connections waited up to ~0.5 s for their response (p99 141-200 ms, max 460-580 ms);
# under asyncio's loop p99 was 25-31 ms and the slowest response 30-46 ms.
EVENT_LOOP = "asyncio"
