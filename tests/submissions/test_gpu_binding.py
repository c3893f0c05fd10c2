"""Which GPU a grader's sandboxed workers use: ``--gpu N`` / ``--gpu-index N`` always bind the
process to card N; the ``MKC_DISPATCHER_GPU_INDEX`` setting binds it unless the process was started
bound already (an operator's CUDA_VISIBLE_DEVICES wins); the embedded dispatcher of a web process binds
like a standalone one. No GPU is needed: the binding is the environment the engine hands its workers."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.factory import create_app
from app.submissions.lanes import bind_gpu
from kernels.engine.gpu import sandbox
from tests.conftest import make_settings


def test_the_setting_binds_an_unbound_process_and_its_workers(monkeypatch):
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    bind_gpu(2, explicit=False)
    assert sandbox.worker_env(sandboxed=True)["CUDA_VISIBLE_DEVICES"] == "2"


def test_an_operators_binding_wins_over_the_setting_and_a_flag_wins_over_both(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3")
    bind_gpu(0, explicit=False)
    assert sandbox.worker_env(sandboxed=True)["CUDA_VISIBLE_DEVICES"] == "3"
    bind_gpu(1, explicit=True)
    assert sandbox.worker_env(sandboxed=True)["CUDA_VISIBLE_DEVICES"] == "1"


@pytest.mark.parametrize(("index", "bound"), [(0, "0"), (1, "1")])
def test_a_web_process_with_its_dispatcher_binds_the_configured_gpu(tmp_path, monkeypatch, index, bound):
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    settings = make_settings(tmp_path, dispatcher_gpu="off", dispatcher_gpu_index=index)
    with TestClient(create_app(settings)) as client:
        assert client.get("/healthz").status_code == 200
        assert sandbox.worker_env(sandboxed=True)["CUDA_VISIBLE_DEVICES"] == bound


def test_a_web_process_without_a_dispatcher_binds_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    settings = make_settings(tmp_path, dispatcher_enabled=False, dispatcher_gpu_index=1)
    with TestClient(create_app(settings)):
        assert "CUDA_VISIBLE_DEVICES" not in sandbox.worker_env(sandboxed=True)


def test_a_negative_gpu_index_is_refused_at_start(tmp_path):
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="dispatcher_gpu_index"):
        make_settings(tmp_path, dispatcher_gpu_index=-1)
