"""The audit history saved in the .qgz: read back identical, damaged entries reported and skipped, a save to a full
disk reported with nothing lost, replay (after a reopen too), review, promote."""

import errno
import json
import os
import re
import resource
import signal
import subprocess
import sys
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

import pytest
import yaml
from mapask_qgis_helpers import CONNECTION, READER, ask, bar_messages, dock, flush, pg_connection, wait_idle  # noqa: F401
from qgis.core import Qgis, QgsProject
from qgis.PyQt.QtCore import QTimer


def save_project(path: Path) -> Path:
    assert QgsProject.instance().write(str(path))
    return path


def reopen(path: Path) -> None:
    project = QgsProject.instance()
    project.clear()
    assert project.read(str(path))
    flush()


def qgs_text(qgz: Path) -> str:
    with zipfile.ZipFile(qgz) as z:
        (name,) = [n for n in z.namelist() if n.endswith(".qgs")]
        return z.read(name).decode("utf-8")


def rewrite_qgs(qgz: Path, edit) -> None:
    with zipfile.ZipFile(qgz) as z:
        files = {n: z.read(n) for n in z.namelist()}
    (name,) = [n for n in files if n.endswith(".qgs")]
    files[name] = edit(files[name].decode("utf-8")).encode("utf-8")
    with zipfile.ZipFile(qgz, "w") as z:
        for n, data in files.items():
            z.writestr(n, data)


def test_history_is_saved_in_the_qgz_and_read_back_identical(dock, tmp_path):
    ask(dock, "top 5 towns with the most crashes")
    ask(dock, "crashes in paris")
    dock.session.review(dock.session.audit.store.entries[0]["id"], "approved", "checked against MassDOT")
    before = json.loads(json.dumps(dock.session.audit.store.entries))
    layer_id = before[0]["layer_ids"][0]
    qgz = save_project(tmp_path / "review.qgz")
    text = qgs_text(qgz)
    assert READER[1] not in text.replace('"mapask_reader"', "")  # no password anywhere in the project
    assert "password=" not in text

    reopen(qgz)  # the plugin's readProject handler loads the history into the dock
    after = dock.session.audit.store
    assert after.entries == before and after.problems == []
    layer = QgsProject.instance().mapLayer(layer_id)
    assert layer is not None and layer.isValid() and layer.featureCount() == 5
    panel = dock.audit_panel
    assert panel.list.count() == 2 and panel.problems.isHidden()


def test_damaged_entry_is_reported_and_the_rest_kept(dock, tmp_path):
    for q in ("how many crashes in cambridge", "crashes by neighborhood", "top 5 towns with the most crashes"):
        ask(dock, q)
    ids = [e["id"] for e in dock.session.audit.store.entries]
    qgz = save_project(tmp_path / "damaged.qgz")

    def damage(text: str) -> str:
        # one entry cut short by a careless hand edit, another edited into a wrong shape
        text = re.sub(rf'(<e{ids[1]} type="QString">)\{{', r"\1{{broken", text)
        return re.sub(rf'(<e{ids[2]} type="QString">.*?)"status": "answered"', r'\1"status": 42', text)
    rewrite_qgs(qgz, damage)
    reopen(qgz)
    store = dock.session.audit.store
    assert [e["id"] for e in store.entries] == [ids[0]]
    assert len(store.problems) == 2
    assert any("not valid JSON" in p for p in store.problems) and any("status" in p for p in store.problems)
    panel = dock.audit_panel
    assert not panel.problems.isHidden() and "could not be read" in panel.problems.text()


def test_replay_matches_and_review_then_promote(dock, tmp_path):
    shown = ask(dock, "crashes by neighborhood")
    entry_id = shown.entry["id"]
    panel = dock.audit_panel
    panel.select(entry_id)
    assert not panel.promote_button.isEnabled()  # not approved yet
    panel.replay_button.click()
    wait_idle(dock)
    entry = dock.session.audit.store.get(entry_id)
    (replay,) = entry["replays"]
    assert replay["match"] and replay["result_hash"] == shown.answer.result_hash
    assert "same result" in panel.detail.toPlainText()
    assert len(dock.session.audit.store.entries) == 1  # a replay is kept in its entry, not as a new question

    panel.comment.setText("wrong area split")
    panel.reject_button.click()
    assert entry["review"]["status"] == "rejected" and entry["review"]["comment"] == "wrong area split"
    assert not panel.promote_button.isEnabled()
    panel.comment.setText("checked against the city's map")
    panel.approve_button.click()
    assert entry["review"]["status"] == "approved" and len(entry["review"]["history"]) == 2
    assert panel.promote_button.isEnabled()
    panel.promote_button.click()
    examples = yaml.safe_load((Path(dock.session.settings.user_pack_dir) / "examples.yaml").read_text())
    (example,) = examples["examples"]
    assert example["question"] == "crashes by neighborhood" and example["frame"] == shown.answer.frame
    assert example["source"]["audit_entry"] == entry_id
    assert example["source"]["comment"] == "checked against the city's map"


def test_replay_notices_a_changed_result(dock):
    shown = ask(dock, "crashes by neighborhood")
    dock.session.audit.store.update(shown.entry["id"], result_hash="0000000000000000")
    dock.session.replay(shown.entry["id"])
    wait_idle(dock)
    (replay,) = dock.session.audit.store.get(shown.entry["id"])["replays"]
    assert not replay["match"]
    assert "different result" in dock.audit_panel.detail.toPlainText()


def test_reopened_history_is_identical_and_replays_to_the_same_result(dock, tmp_path):
    """Answered questions saved in a .qgz and opened in a fresh project: the same history, and Replay matches."""
    for q in ("top 5 towns with the most crashes", "crashes by neighborhood"):
        assert ask(dock, q).answer.status == "answered"
    before = json.loads(json.dumps(dock.session.audit.store.entries))
    qgz = save_project(tmp_path / "replay.qgz")

    reopen(qgz)
    store, panel = dock.session.audit.store, dock.audit_panel
    assert store.entries == before and store.problems == [] and dock.session.last is None
    for old in before:
        panel.select(old["id"])
        assert panel.replay_button.isEnabled()
        panel.replay_button.click()
        wait_idle(dock)
        (replay,) = store.get(old["id"])["replays"]
        assert replay["match"] and replay["result_hash"] == old["result_hash"] and replay["row_count"] == old["row_count"]
        assert replay["rerun"] == "frame" and replay["notes"] == [] and replay["pack"]["hash"] == old["pack"]["hash"]
        assert "same result" in panel.detail.toPlainText()
    assert [e["id"] for e in store.entries] == [e["id"] for e in before]  # a replay is not a new question
    assert any("Replay: same result" in m for m in bar_messages(dock, Qgis.Info))

    save_project(qgz)  # the replays are kept with their entries, in a shape the next opening accepts
    reopen(qgz)
    again = dock.session.audit.store
    assert again.problems == [] and [len(e["replays"]) for e in again.entries] == [1, 1]


HAND_EDITS = [("pack", "p"), ("row_count", "12"), ("row_count", None), ("replays", ["x"]),
              ("review", {"status": "approved", "comment": "", "history": ["a", "b"]}), ("promoted", "yes"),
              ("layer_ids", [1])]


def test_entries_edited_into_a_wrong_shape_are_set_aside_with_a_warning(dock, tmp_path, monkeypatch):
    """The auditor's hand edits: each damaged entry is named with its reason, the panel shows the rest, and the
    message bar says how many were set aside (the History tab may not be open)."""
    ask(dock, "top 5 towns with the most crashes")
    (good,) = json.loads(json.dumps(dock.session.audit.store.entries))
    qgz = save_project(tmp_path / "edited.qgz")
    edited = {f"edit{i:04d}": {**good, "id": f"edit{i:04d}", "seq": i + 2, "question": f"edit {i}", key: value}
              for i, (key, value) in enumerate(HAND_EDITS)}

    def add_edited_copies(text: str) -> str:
        end = text.index(f"</e{good['id']}>") + len(f"</e{good['id']}>")
        copies = "".join(f'<e{k} type="QString">{escape(json.dumps(e))}</e{k}>' for k, e in edited.items())
        return text[:end] + copies + text[end:]
    rewrite_qgs(qgz, add_edited_copies)
    raised = []  # an exception in a Qt slot (the panel's refresh) goes to sys.excepthook, not to the test
    monkeypatch.setattr(sys, "excepthook", lambda *exc: raised.append(exc))
    dock.messages.clear()

    reopen(qgz)
    store, panel = dock.session.audit.store, dock.audit_panel
    assert raised == []
    assert store.entries == [good] and store.skipped == len(HAND_EDITS) == len(store.problems)
    for entry_id, (key, _value) in zip(edited, HAND_EDITS):
        (problem,) = [p for p in store.problems if p.startswith(f"entry {entry_id} ")]
        assert f"{key}" in problem.split(":", 1)[1], problem
    assert panel.list.count() == 1 and not panel.problems.isHidden()
    shown = panel.detail.toPlainText()
    assert "top 5 towns with the most crashes" in shown and "No questions recorded" not in shown
    warnings = bar_messages(dock, Qgis.Warning)
    assert any(f"set aside {len(HAND_EDITS)} damaged audit entries" in m and "kept 1" in m for m in warnings), warnings


def test_replay_of_questions_that_were_not_answered_compares_their_status(dock):
    store, panel = dock.session.audit.store, dock.audit_panel
    clarify = ask(dock, "crashes in paris")
    refused = ask(dock, "delete all crashes")
    assert (clarify.answer.status, refused.answer.status) == ("clarify", "refused")
    for shown, summary in ((clarify, "still asks back"), (refused, "still refuses")):
        panel.select(shown.entry["id"])
        assert panel.replay_button.isEnabled()
        panel.replay_button.click()
        wait_idle(dock)
        (replay,) = store.get(shown.entry["id"])["replays"]
        assert replay["match"] and replay["summary"] == summary and replay["rerun"] == "question"
        text = panel.detail.toPlainText()
        assert summary in text and "different result" not in text
    # one replay message at a time: the newer replaces the older
    assert [m for m in bar_messages(dock, Qgis.Info) if m.startswith("Replay:")] == ["Replay: still refuses"]

    # an entry recorded as asking back, whose question the pack answers now
    now = ask(dock, "crashes in springfield")
    store.update(now.entry["id"], status="clarify", result_hash="", row_count=0)
    dock.session.replay(now.entry["id"])
    wait_idle(dock)
    (replay,) = store.get(now.entry["id"])["replays"]
    assert replay["status"] == "answered" and not replay["match"]
    assert replay["summary"] == (f"now answers (it asked back when asked): {len(now.answer.rows)} rows, "
                                 f"hash {now.answer.result_hash}")
    assert len(store.entries) == 3


def test_replay_names_a_changed_pack_and_connection_and_needs_no_model(dock):
    shown = ask(dock, "crashes by neighborhood")
    entry_id, store = shown.entry["id"], dock.session.audit.store
    store.update(entry_id, pack={**shown.entry["pack"], "hash": "0000000000000000"}, connection="Old office db")
    # a model and its judge configured at an address where nothing answers: a replay must not use them
    settings = dock.session.settings
    settings.model_kind, settings.model_url, settings.model_judge = "server", "http://127.0.0.1:9/v1", True
    stages, answers = [], []
    dock.session.stage.connect(stages.append)
    dock.session.replayed.connect(lambda _record, answer: answers.append(answer))

    task = dock.session.replay(entry_id)
    assert task.pipeline.model is None and task.pipeline.judge_model is None
    wait_idle(dock)
    (replay,) = store.get(entry_id)["replays"]
    (answer,) = answers
    assert answer.judge is None and answer.model is None and "execute" in stages
    assert "judge" not in stages and "model" not in stages
    assert replay["match"] and replay["result_hash"] == shown.answer.result_hash
    pack = dock.session.pack()
    assert replay["notes"] == [
        f"the knowledge pack changed since: {pack.id} {pack.version} (hash 0000000000000000) -> "
        f"{pack.id} {pack.version} (hash {pack.content_hash})",
        f"replayed on the connection '{CONNECTION}'; the question was asked on 'Old office db'"]
    text = dock.audit_panel.detail.toPlainText()
    assert "the knowledge pack changed since" in text and "'Old office db'" in text
    assert any("knowledge pack changed since" in m for m in bar_messages(dock, Qgis.Warning))


def test_history_exports_as_jsonl_without_secrets(dock, tmp_path):
    ask(dock, "how many crashes in cambridge")
    ask(dock, "asdf qwer zxcv")
    path = dock.audit_panel.export_jsonl(str(tmp_path / "audit.jsonl"))
    lines = Path(path).read_text().splitlines()
    assert [json.loads(line)["question"] for line in lines] == ["how many crashes in cambridge", "asdf qwer zxcv"]
    assert READER[1] not in Path(path).read_text().replace('"mapask_reader"', "")


def test_filter_by_status_and_text(dock):
    ask(dock, "how many crashes in cambridge")
    ask(dock, "crashes in paris")
    panel = dock.audit_panel
    panel.status_filter.setCurrentIndex(1)  # answered
    assert panel.list.count() == 1
    panel.status_filter.setCurrentIndex(0)
    panel.text_filter.setText("paris")
    assert panel.list.count() == 1 and "paris" in panel.list.item(0).text()


class FullDisk:
    """A folder on a disk that can be filled for real: a 1 MB tmpfs filled to the last block (ENOSPC), where
    this process may mount one (root in the test container); otherwise an ordinary folder and the process's
    file-size limit lowered to 1 KB with SIGXFSZ ignored, so that writes fail with EFBIG."""

    def __init__(self, root: Path) -> None:
        self.dir = root / "disk"
        self.dir.mkdir()
        self.mounted = os.geteuid() == 0 and subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=1m,mode=0777", "mapask-full", str(self.dir)],
            capture_output=True).returncode == 0
        self._limit = None
        self._sigxfsz = None

    def fill(self) -> None:
        if self.mounted:
            with open(self.dir / "filler", "wb", buffering=0) as f:
                try:
                    while True:
                        f.write(b"\0" * 4096)
                except OSError as e:
                    assert e.errno == errno.ENOSPC
        else:
            self._sigxfsz = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            self._limit = resource.getrlimit(resource.RLIMIT_FSIZE)
            resource.setrlimit(resource.RLIMIT_FSIZE, (1024, self._limit[1]))

    def free(self) -> None:
        if self.mounted:
            (self.dir / "filler").unlink(missing_ok=True)
        elif self._limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, self._limit)
            signal.signal(signal.SIGXFSZ, self._sigxfsz)
            self._limit = None

    def close(self) -> None:
        self.free()
        if self.mounted:
            subprocess.run(["umount", "-l", str(self.dir)], capture_output=True)


@pytest.fixture
def full_disk(tmp_path):
    disk = FullDisk(tmp_path)
    yield disk
    disk.close()


@pytest.mark.parametrize("suffix", ["qgz", "qgs"])
def test_disk_full_when_saving_loses_no_audit_entry(dock, full_disk, suffix):
    """Issue 6 §4: saving to a full disk gives a plain message in the dock (QGIS 3.22 itself reports a .qgz save
    to a full disk as done and leaves an empty file), keeps the project unsaved, keeps the dock working, and
    after freeing space the saved project reopens with every entry written before (and after) the fault."""
    path = full_disk.dir / f"history.{suffix}"
    project = QgsProject.instance()
    for q in ("how many crashes in cambridge", "crashes in paris"):
        ask(dock, q)
    save_project(path)                                   # a good save first: the fault overwrites a real file
    flush()
    assert dock.save_warning.isHidden()
    ask(dock, "top 5 towns with the most crashes")
    before = [e["id"] for e in dock.session.audit.store.entries]
    assert len(before) == 3 and project.isDirty()

    full_disk.fill()
    try:
        reported = project.write(str(path))             # what QGIS's Save does
    finally:
        if not full_disk.mounted:
            full_disk.free()  # the file-size limit is process-wide: keep it to the write itself
    flush()                                              # the dock reads the file back from the event loop
    warning = dock.save_warning.text()
    assert not dock.save_warning.isHidden(), f"no message (QGIS reported the save as {reported})"
    assert warning.startswith("The project was not saved") and str(path) in warning
    assert "3 questions" in warning and "save again" in warning and "Traceback" not in warning
    assert project.isDirty()                             # QGIS will still ask to save before closing
    assert any("not saved" in m for m in bar_messages(dock, Qgis.Warning))

    # the UI stays responsive while the disk is full: events run, the panel lists every entry, Ask works
    fired = []
    QTimer.singleShot(0, lambda: fired.append(True))
    flush()
    assert fired and dock.ask_button.isEnabled() and dock.audit_panel.list.count() == 3
    assert [e["id"] for e in dock.session.audit.store.entries] == before

    full_disk.free()
    shown = ask(dock, "crashes by neighborhood")          # the next question works once the fault is gone
    assert shown.answer.status == "answered" and len(dock.session.audit.store.entries) == 4
    save_project(path)
    flush()
    assert dock.save_warning.isHidden() and not project.isDirty()
    ids = [e["id"] for e in dock.session.audit.store.entries]

    reopen(path)
    store = dock.session.audit.store
    assert [e["id"] for e in store.entries] == ids and ids[:3] == before and store.problems == []
