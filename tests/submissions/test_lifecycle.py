"""The whole lifecycle through HTTP: store -> queued -> compiling -> (GPU stub) checking ->
timing -> done, with the real sandboxed NVRTC compile; and the awaiting_gpu path without a GPU."""
from __future__ import annotations

import json

from app.core.services import app_services
from app.submissions.dispatcher import Dispatcher, DispatcherConfig
from kernels.engine.result import Result

from .conftest import BROKEN_GEMM, gemm_source


def test_no_gpu_compiles_then_awaits_a_gpu(sub_settings, make_client, api_for):
    client = make_client(sub_settings(dispatcher_enabled=True, dispatcher_gpu="off"))
    kim = api_for(client, "kim")
    created = kim.submit(gemm_source("await"))
    assert created.status_code == 202, created.text
    body = created.json()
    assert body["state"] == "queued" and body["position"] == 1 and body["links"]["self"] == f"/api/submissions/{body['id']}"
    view = kim.wait(body["id"])
    assert view["state"] == "awaiting_gpu" and not view["final"]
    result = view["result"]
    Result.from_dict(result)  # the engine's schema, unchanged
    assert result["verdict"] == "UNAVAILABLE" and result["message"]["code"] == "UNAVAILABLE_NO_GPU"
    assert result["resources"]["registers"] > 0  # it really compiled
    assert view["source"] == gemm_source("await")  # the author sees their code


def test_compile_error_is_final_even_without_gpu(sub_settings, make_client, api_for):
    client = make_client(sub_settings(dispatcher_enabled=True, dispatcher_gpu="off"))
    kim = api_for(client, "kim")
    view = kim.wait(kim.submit(BROKEN_GEMM).json()["id"])
    assert view["state"] == "done" and view["final"] and view["verdict"] == "COMPILE_ERROR"
    assert view["result"]["message"]["code"] == "COMPILE_FAILED"
    assert "kernel.cu(3): error" in view["result"]["compile_log"]


def test_awaiting_job_is_graded_when_a_gpu_lane_appears(sub_settings, make_client, api_for, request):
    settings = sub_settings()
    client = make_client(settings)
    kim = api_for(client, "kim")
    sub_id = kim.submit(gemm_source("later")).json()["id"]
    factory = app_services(client.app).session_factory
    cpu = Dispatcher(factory, DispatcherConfig(gpu=False, lane="box:cpu", poll_seconds=0.05))
    assert cpu.step() and kim.get(sub_id).json()["state"] == "awaiting_gpu"
    assert not cpu.step()  # a CPU lane never takes awaiting_gpu jobs
    fake_gpu = request.getfixturevalue("fake_gpu")  # now the server has a GPU
    gpu = Dispatcher(factory, DispatcherConfig(gpu=True, lane="box:gpu0", poll_seconds=0.05))
    assert gpu.step()
    view = kim.get(sub_id).json()
    assert view["state"] == "done" and view["verdict"] == "PASSED"
    assert fake_gpu and fake_gpu[0][:2] == ("gemm", "gemm")
    me = client.get("/api/me", headers=kim.headers).json()
    assert me["strip"]["xp"] >= 40  # pass XP paid through record_grading_result


def test_phases_reach_the_event_stream(sub_settings, make_client, api_for, fake_gpu):
    client = make_client(sub_settings(dispatcher_enabled=True, dispatcher_gpu="on"))
    kim = api_for(client, "kim")
    states = []
    sub_id = kim.submit(gemm_source("sse")).json()["id"]
    with client.stream("GET", f"/api/submissions/{sub_id}/events", headers=kim.headers) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("data: "):
                states.append(json.loads(line[6:])["state"])
    assert states[-1] == "done"
    # The pipeline: compiled in a CPU slot, queued again for the GPU, then checked and timed there.
    # Each step shows once, in that order (the stream may skip a short one); never compiling twice.
    shown = [state for n, state in enumerate(states) if n == 0 or state != states[n - 1]]
    steps = iter(["queued", "compiling", "queued", "checking", "timing", "done"])
    assert all(state in steps for state in shown), states
    view = kim.get(sub_id).json()
    assert view["verdict"] == "PASSED" and view["dequeue_to_engine_ms"] is not None


def test_grading_runs_off_the_event_loop_and_keeps_its_lease(sub_settings, make_client, api_for, fake_gpu, monkeypatch):
    """While a (slow) GPU run is in progress the server still answers at once, the row shows
    the phase, and the keeper renews the short lease so no other dispatcher can steal the job."""
    import threading
    import time

    import kernels.engine.gpu as gpu

    release = threading.Event()
    inside = threading.Event()
    fast_run = gpu.run_job

    def slow_run(exercise, compiled, plan, on_phase=None, **kw):
        on_phase("checking")
        inside.set()
        release.wait(20)
        return fast_run(exercise, compiled, plan, on_phase, **kw)

    monkeypatch.setattr(gpu, "run_job", slow_run)
    client = make_client(sub_settings(dispatcher_enabled=True, dispatcher_gpu="on", submission_lease_seconds=0.6))
    kim = api_for(client, "kim")
    sub_id = kim.submit(gemm_source("slow")).json()["id"]
    assert inside.wait(30)
    # answered while the job is still blocked inside the GPU run: were grading on the event loop, these
    # would wait for the run (20 s) and then see it done, not "checking"
    assert client.get("/healthz").status_code == 200 and kim.get(sub_id).json()["state"] == "checking"
    time.sleep(1.5)  # well past the 0.6 s lease: only renewal keeps it
    rival = Dispatcher(app_services(client.app).session_factory, DispatcherConfig(gpu=True, lane="elsewhere:gpu0"))
    assert not rival.step()  # the job's lease is alive: nothing to claim
    release.set()
    view = kim.wait(sub_id)
    assert view["state"] == "done" and view["verdict"] == "PASSED" and view["attempts"] == 1
