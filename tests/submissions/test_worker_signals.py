"""The one-box grader (``python -m app worker --gpu N`` / ``python -m app dispatcher``) drains on
SIGTERM whichever of its threads the kernel hands the signal to. No GPU needed (stand-in grader)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent("""
    import signal, sys, threading, time
    from app.bench.fake_gpu import compile_first, grade
    from app.core.config import Settings
    from app.submissions.cli import serve

    def take_sigterm_in_this_thread():
        # once serve() has installed its handler and is waiting, this thread (not the main one) takes
        # SIGTERM, as the kernel may choose any thread of the process that does not block it
        while signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            time.sleep(0.05)
        time.sleep(0.5)
        signal.pthread_kill(threading.get_ident(), signal.SIGTERM)

    threading.Thread(target=take_sigterm_in_this_thread, daemon=True).start()
    sys.exit(serve(Settings(), gpu_index=None, slots=1, grade=grade, compile_first=compile_first))
""")


def test_sigterm_taken_by_another_thread_still_drains_the_grader(tmp_path):
    env = dict(os.environ, MKC_DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite'}", MKC_DATA_DIR=str(tmp_path),
               MKC_GPU="0", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "draining: finishing the job in hand, taking no other" in proc.stderr
    assert "stopped (drained)" in proc.stderr
