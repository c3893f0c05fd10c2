"""A stand-in for kernels/engine/gpu/worker.py that breaks the protocol on purpose (forged, malformed
or endless events, floods), so the parent's side (runner.py, worker_process.py, jobs.py) can be
tested without a GPU. fake_worker.py covers the honest failures (hangs, crashes, slow kernels).

    python hostile_worker.py <fd> <mode>

Every mode says "ready", reads one job line, says it is checking (the job is acknowledged), then:
crash_after_ack: notes its pid in $HOSTILE_LOG and exits 1 | broken_mid_job: says "broken" and hangs |
endless_watch: asks for a one-hour watch and hangs | garbage_line: writes a line that is not JSON |
list_line: writes a JSON line that is not an object | bad_watch_limit: a watch whose limit is text |
bad_verdict, result_not_object, schema_not_text: a result that is no Result | forged: a PASSED result
that names another exercise and claims a sandbox | flood: 1 MiB on stdout and on stderr, then PASSED.
"""

import json
import os
import sys
import time

PASSED = {"verdict": "PASSED", "message": {"code": "PASSED", "params": {}},
          "correctness": [{"size": {"M": 1}, "ok": True}], "gpu": {"name": "Fake GPU"}, "versions": {}}


def main():
    fd, mode = int(sys.argv[1]), sys.argv[2]
    proto = os.fdopen(fd, "w", buffering=1)

    def line(text):
        proto.write(text + "\n")
        proto.flush()

    def send(obj):
        line(json.dumps(obj))

    send({"ev": "ready", "gpu": {"name": "Fake GPU"}, "versions": {}})
    if not sys.stdin.readline():
        return
    send({"ev": "phase", "name": "checking"})
    if mode == "crash_after_ack":
        with open(os.environ["HOSTILE_LOG"], "a") as log:
            log.write(f"{os.getpid()}\n")
        os._exit(1)
    if mode == "broken_mid_job":
        send({"ev": "broken", "stage": "checking", "error": "lost the device"})
    elif mode == "endless_watch":
        send({"ev": "watch", "limit": 3600.0, "what": "correctness"})
    elif mode == "garbage_line":
        line("this is not JSON")
    elif mode == "list_line":
        line("[1, 2, 3]")
    elif mode == "bad_watch_limit":
        send({"ev": "watch", "limit": "soon", "what": "correctness"})
    elif mode == "bad_verdict":
        send({"ev": "result", "result": {**PASSED, "verdict": "SUPERB"}})
    elif mode == "result_not_object":
        send({"ev": "result", "result": "PASSED"})
    elif mode == "schema_not_text":
        send({"ev": "result", "result": {**PASSED, "schema": 1}})
    elif mode == "forged":
        send({"ev": "result", "result": {**PASSED, "exercise": "someone_elses",
                                          "versions": {"gpu_worker": "sandboxed"}}})
    elif mode == "flood":
        chunk = "x" * 65536
        for _ in range(16):  # 1 MiB each
            sys.stdout.write(chunk)
            sys.stderr.write(chunk)
        sys.stdout.flush()
        sys.stderr.flush()
        send({"ev": "result", "result": PASSED})
    time.sleep(30)  # a worker that goes on after its last word: the parent must not wait for it


if __name__ == "__main__":
    main()
