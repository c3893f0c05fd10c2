"""A stand-in for kernels/engine/gpu/worker.py that speaks the same protocol but misbehaves on
purpose, so the parent's deadline, crash and output handling can be tested without a GPU.

    python fake_worker.py <fd> <mode>
modes: hang_in_launch | hang_in_timing | crash_mid_job | die_before_ack | flood_stdout | slow | too_slow | gated
| gate | stuck | ok; stuck (deferred only): never says "ready" after "warm"; gate: sends "checked" and
notes in $FAKE_LOG when "time" came (deferred: when its slow context was made); gated: waits for
the file $FAKE_GATE.1 before it says "timed", for $FAKE_GATE.2 before its result;
deferred_<mode>:
say "loaded" first and wait for "warm" (a preloaded spare). A "prime" line before the job is read
(and noted in the file $FAKE_PRIMED, if set).
"""

import json
import os
import sys
import time


def main():
    fd, mode = int(sys.argv[1]), sys.argv[2]
    proto = os.fdopen(fd, "w", buffering=1)

    def send(obj):
        proto.write(json.dumps(obj) + "\n")
        proto.flush()

    if mode.startswith("deferred_"):  # the two-stage start of a preloaded worker
        mode = mode.removeprefix("deferred_")
        send({"ev": "loaded"})
        if sys.stdin.readline().strip() != "warm":
            return
        if mode == "stuck":  # a context that never comes (a broken device or driver)
            time.sleep(60)
        if mode == "gate":  # a slow context: note when it was asked for and when it is made
            open(os.environ["FAKE_LOG"], "a").write(f"warm {time.time()} {os.getpid()}\n")
            time.sleep(0.5)
            open(os.environ["FAKE_LOG"], "a").write(f"ready {time.time()} {os.getpid()}\n")
    send({"ev": "ready", "gpu": {"name": "Fake GPU"}, "versions": {}})
    line = sys.stdin.readline()
    if line.strip() == "prime":  # the first launches, told once no job is being timed
        marker = os.environ.get("FAKE_PRIMED")
        if marker:  # whole or not at all: a reader polling for the file never sees it empty
            with open(f"{marker}.{os.getpid()}", "w") as fh:
                fh.write(f"{os.getpid()}\n")
            os.replace(f"{marker}.{os.getpid()}", marker)
        line = sys.stdin.readline()
    if not line:
        return
    if mode == "die_before_ack":
        marker = os.environ.get("FAKE_MARKER")
        if marker and not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(9)   # the first worker dies before acknowledging; the retry behaves
        mode = "ok"
    send({"ev": "phase", "name": "checking"})
    if mode == "gate" and json.loads(line).get("gate"):  # wait for "time" before timing, note when
        send({"ev": "phase", "name": "timing"})  # as the real worker: the phase first, then "checked"
        send({"ev": "checked"})
        answer = sys.stdin.readline().strip()
        open(os.environ["FAKE_LOG"], "a").write(f"{answer} {time.time()} {os.getpid()}\n")
        send({"ev": "timed"})
    if mode == "hang_in_launch":
        send({"ev": "watch", "limit": 0.5, "what": "correctness"})
        time.sleep(60)
    if mode == "hang_in_timing":  # no watch: only the job's own limit (its GPU-time budget) ends it
        send({"ev": "phase", "name": "timing"})
        time.sleep(60)
    if mode == "too_slow":
        send({"ev": "phase", "name": "timing"})
        send({"ev": "result", "result": {
            "verdict": "TOO_SLOW", "message": {"code": "TOO_SLOW", "params": {"ratio": 3000.0, "limit": 20.0,
                                                                              "size": {"M": 1024}}},
            "correctness": [{"size": {"M": 1}, "ok": True}], "gpu": {"name": "Fake GPU"}, "versions": {}}})
        return
    if mode == "gated":
        for step in ("1", "2"):
            while not os.path.exists(os.environ["FAKE_GATE"] + "." + step):
                time.sleep(0.01)
            if step == "1":
                send({"ev": "timed"})
    if mode == "crash_mid_job":
        os._exit(1)
    if mode == "slow":
        time.sleep(1.0)
    if mode == "flood_stdout":
        chunk = ("x" * 1023 + "\n") * 64
        for _ in range(16):          # 1 MiB
            sys.stdout.write(chunk)
        sys.stdout.flush()
    send({"ev": "result", "result": {"verdict": "PASSED", "message": {"code": "PASSED", "params": {}},
                                      "correctness": [{"size": {"M": 1}, "ok": True}],
                                      "gpu": {"name": "Fake GPU"}, "versions": {"fake": "1"}}})


if __name__ == "__main__":
    main()
