"""Which GPU a grader's sandboxed workers use: ``--gpu N`` / ``--gpu-index N`` always bind the
process to card N; the ``MKC_DISPATCHER_GPU_INDEX`` setting binds it unless the process was started
bound already (an operator's CUDA_VISIBLE_DEVICES wins); the embedded dispatcher of a web process binds
like a standalone one, and its lane is named after the card it got. No GPU is needed: the binding is
the environment the engine hands its workers."""

from __future__ import annotations

import os

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
    assert bind_gpu(0, explicit=False) == "3"
    assert sandbox.worker_env(sandboxed=True)["CUDA_VISIBLE_DEVICES"] == "3"
    assert bind_gpu(1, explicit=True) == "1"
    assert sandbox.worker_env(sandboxed=True)["CUDA_VISIBLE_DEVICES"] == "1"


def test_an_operators_empty_binding_means_no_gpu_and_stays(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert bind_gpu(0, explicit=False) == ""
    assert os.environ["CUDA_VISIBLE_DEVICES"] == ""


def test_a_binding_made_here_is_not_taken_for_an_operators(monkeypatch):
    """Two apps in one process (or one test after another): the second binds its own card."""
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    assert bind_gpu(1, explicit=False) == "1"
    assert bind_gpu(2, explicit=False) == "2"
    assert sandbox.worker_env(sandboxed=True)["CUDA_VISIBLE_DEVICES"] == "2"


def test_the_lane_is_named_after_the_card_the_dispatcher_got(tmp_path, monkeypatch):
    from app.submissions.runtime import bound_dispatcher_config

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")  # the operator's, over the setting's 0
    config = bound_dispatcher_config(make_settings(tmp_path, dispatcher_gpu="on"))
    assert config.gpu_index == 1
    assert bound_dispatcher_config(make_settings(tmp_path, dispatcher_gpu="on"), 3).gpu_index == 3
    assert os.environ["CUDA_VISIBLE_DEVICES"] == "3"  # --gpu-index 3 binds whatever was there


@pytest.mark.parametrize(("index", "bound"), [(0, "0"), (1, "1")])
def test_a_web_process_with_its_dispatcher_binds_the_configured_gpu(tmp_path, monkeypatch, index, bound):
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    settings = make_settings(tmp_path, dispatcher_gpu="on", dispatcher_gpu_index=index)
    with TestClient(create_app(settings)) as client:
        assert client.get("/healthz").status_code == 200
        assert sandbox.worker_env(sandboxed=True)["CUDA_VISIBLE_DEVICES"] == bound


@pytest.mark.parametrize("off", [{"dispatcher_enabled": False}, {"dispatcher_gpu": "off"}])
def test_a_web_process_that_grades_on_no_gpu_binds_nothing(tmp_path, monkeypatch, off):
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    settings = make_settings(tmp_path, dispatcher_gpu_index=1, **off)
    with TestClient(create_app(settings)):
        assert "CUDA_VISIBLE_DEVICES" not in sandbox.worker_env(sandboxed=True)


def test_a_negative_gpu_index_is_refused_at_start(tmp_path):
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="dispatcher_gpu_index"):
        make_settings(tmp_path, dispatcher_gpu_index=-1)
