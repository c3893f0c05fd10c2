"""A stand-in for kernels/engine/gpu/worker.py that speaks the same protocol but misbehaves on
purpose, so the parent's deadline, crash and output handling can be tested without a GPU.

    python fake_worker.py <fd> <mode> [<jobs>]
<jobs> (default 1): jobs it grades, as the real worker's "jobs" option: after each job's result but the
last it says "loaded" and waits for "warm" (a worker back among the spares); mode "fault" grades its
first job and then exits instead (a job that faulted ends its worker). Every job's device output
(FAKE_OUTPUT: "job <n> of <pid>" printed in mode ok) ends with the job's output_mark.
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
    jobs = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    proto = os.fdopen(fd, "w", buffering=1)

    def send(obj):
        proto.write(json.dumps(obj) + "\n")
        proto.flush()

    for served in range(jobs):
        if served:
            send({"ev": "loaded"})
            if sys.stdin.readline().strip() != "warm":
                return
        if not serve(send, mode, served) or mode.endswith("fault"):
            return


def serve(send, mode, served):
    """One job; False: the worker ends here."""
    if mode.startswith("deferred_"):  # the two-stage start of a preloaded worker
        mode = mode.removeprefix("deferred_")
        if not served:  # a worker back from a job said "loaded" and got "warm" already
            send({"ev": "loaded"})
            if sys.stdin.readline().strip() != "warm":
                return False
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
        if marker:
            open(marker, "a").write(f"{os.getpid()}\n")
        line = sys.stdin.readline()
    if not line:
        return False
    job = json.loads(line)
    if mode == "die_before_ack":
        marker = os.environ.get("FAKE_MARKER")
        if marker and not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(9)   # the first worker dies before acknowledging; the retry behaves
        mode = "ok"
    send({"ev": "phase", "name": "checking"})
    if mode == "gate" and job.get("gate"):  # wait for "time" before timing, note when
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
        end_output(job)
        send({"ev": "result", "result": {
            "verdict": "TOO_SLOW", "message": {"code": "TOO_SLOW", "params": {"ratio": 3000.0, "limit": 20.0,
                                                                              "size": {"M": 1024}}},
            "correctness": [{"size": {"M": 1}, "ok": True}], "gpu": {"name": "Fake GPU"}, "versions": {}}})
        return True
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
    if mode in ("ok", "fault") and os.environ.get("FAKE_OUTPUT"):
        sys.stdout.write(f"job {served + 1} of {os.getpid()}\n")
    end_output(job)
    send({"ev": "result", "result": {"verdict": "PASSED", "message": {"code": "PASSED", "params": {}},
                                      "correctness": [{"size": {"M": 1}, "ok": True}],
                                      "gpu": {"name": "Fake GPU"}, "versions": {"fake": "1"}}})
    return True


def end_output(job):
    if job.get("output_mark"):  # after all the job printed, as the real worker does
        sys.stdout.write(f"\n@@mkc-device-output-end {job['output_mark']}@@\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
