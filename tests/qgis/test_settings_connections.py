"""Settings under one QgsSettings prefix, saved connections with passwords from QGIS's auth system only."""

import psycopg2
from mapask_qgis_helpers import CONNECTION, READER, ask, dock, module, pg_connection  # noqa: F401 (fixtures)
from qgis.core import QgsSettings


def test_settings_round_trip_under_one_prefix():
    settings = module("plugin.qgis.settings")
    s = settings.load()
    s.row_cap, s.timeout_s, s.model_kind, s.model_url = 123, 7, "server", "http://127.0.0.1:8000/v1"
    settings.save(s)
    back = settings.load()
    assert (back.row_cap, back.timeout_s, back.model_kind, back.model_url) == (123, 7, "server", s.model_url)
    keys = [k for k in QgsSettings().allKeys() if k.lower().startswith("mapask")]
    assert keys and all(k.startswith("MapAsk/") for k in keys)
    assert not any("password" in k.lower() for k in keys)
    QgsSettings().setValue("MapAsk/row_cap", "lots")  # a hand-edited ini file falls back to the default
    assert settings.load().row_cap == settings.Settings().row_cap
    settings.save(settings.Settings())


def test_cost_gate_and_judge_settings_round_trip_and_are_off_or_on_by_default():
    settings = module("plugin.qgis.settings")
    default = settings.Settings()
    assert default.cost_gate is False and default.model_judge is True  # the judge only runs with a model
    s = settings.load()
    s.cost_gate, s.cost_limit, s.model_judge = True, 12345, False
    settings.save(s)
    back = settings.load()
    assert (back.cost_gate, back.cost_limit, back.model_judge) == (True, 12345, False)
    QgsSettings().setValue("MapAsk/cost_gate", "false")  # as an ini file holds it
    QgsSettings().setValue("MapAsk/model_judge", "maybe")  # hand-edited nonsense keeps the default
    back = settings.load()
    assert back.cost_gate is False and back.model_judge is True
    settings.save(settings.Settings())


def test_question_history_is_most_recent_first_without_duplicates():
    settings = module("plugin.qgis.settings")
    s = settings.Settings()
    for q in ["a", "b", "a ", "c"] + [f"q{i}" for i in range(60)]:
        settings.remember_question(s, q)
    assert s.history[:3] == ["q59", "q58", "q57"] and len(s.history) == settings.HISTORY_MAX
    assert settings.load().history == s.history
    QgsSettings().remove("MapAsk/history")


def test_dsn_comes_from_the_auth_config_and_is_never_saved(pg_connection):
    conns = module("plugin.qgis.connections")
    assert CONNECTION in conns.connection_names()
    uri = conns.connection_uri(CONNECTION)
    assert uri.authConfigId() and not uri.password()
    dsn = conns.dsn_for(CONNECTION)
    assert f"password='{READER[1]}'" in dsn and "authcfg" not in dsn
    with psycopg2.connect(dsn) as conn, conn.cursor() as cur:
        cur.execute("SELECT current_user")
        assert cur.fetchone()[0] == READER[0]
    saved = {k: QgsSettings().value(k) for k in QgsSettings().allKeys() if CONNECTION in k}
    assert saved and READER[1] not in [str(v) for v in saved.values()]
    layer_uri = conns.layer_uri(CONNECTION, "SELECT 1", "gid", 26986).uri(False)
    assert READER[1] not in layer_uri and "authcfg=" in layer_uri


def test_unknown_connection_is_a_clear_message(dock, qgis_iface):
    dock.session.settings.connection = "no such connection"
    assert dock.ask("how many crashes in cambridge") is None
    assert "no saved PostGIS connection" in dock.answer_view.text.toPlainText()
    assert dock.session.task is None and dock.ask_button.isEnabled()


def test_settings_dialog_edits_a_copy(dock):
    dialog = module("ui.settings_dialog").SettingsDialog(dock.session.settings, dock)
    dialog.row_cap.setValue(77)
    dialog.timeout.setValue(9)
    dialog.model_gguf.setChecked(True)
    dialog.model_path.setFilePath("/models/qwen.gguf")
    assert not dialog.cost_gate.isChecked() and not dialog.cost_limit.isEnabled()
    dialog.cost_gate.setChecked(True)
    assert dialog.cost_limit.isEnabled()
    dialog.cost_limit.setValue(5000)
    dialog.model_judge.setChecked(False)
    s = dialog.result_settings()
    assert (s.row_cap, s.timeout_s, s.model_kind, s.model_path) == (77, 9, "gguf", "/models/qwen.gguf")
    assert (s.cost_gate, s.cost_limit, s.model_judge) == (True, 5000, False)
    dialog.deleteLater()


def test_settings_dialog_says_whether_the_guard_has_its_second_opinion(dock, monkeypatch):
    dialog = module("ui.settings_dialog").SettingsDialog(dock.session.settings, dock)
    assert "pglast" in dialog.opinion.text() and "PostgreSQL 15" in dialog.opinion.text()
    dialog.deleteLater()
    opinion = module("plugin.core.pg_opinion")
    monkeypatch.setattr(opinion, "pglast", None)  # a desktop QGIS without the compiled package
    dialog = module("ui.settings_dialog").SettingsDialog(dock.session.settings, dock)
    assert dialog.opinion.text().startswith("Without a second opinion")
    dialog.deleteLater()


def test_cost_gate_in_the_dock_refuses_a_heavy_question_and_audits_it(dock):
    """Off by default the heavy question is answered; on with a low limit it is refused with its reason code and
    the planner's estimate, shown in the dock and kept in the audit history; a light question still answers."""
    heavy, light = "how many crashes within 500 m of mbta stops", "how many crashes in cambridge"
    s = dock.session.settings
    assert s.cost_gate is False and dock.session.pipeline().max_cost is None
    assert ask(dock, heavy).answer.status == "answered"
    try:
        # the estimates follow the data and the compiler: read them through the gate, then set the limit between
        s.cost_gate, s.cost_limit = True, 2_000_000_000
        estimate = {q: ask(dock, q).answer.cost["estimate"] for q in (heavy, light)}
        assert estimate[heavy] > 10 * estimate[light]
        s.cost_limit = round((estimate[heavy] * estimate[light]) ** 0.5)
        shown = ask(dock, heavy)
        a = shown.answer
        assert dock.session.pipeline().max_cost == s.cost_limit
        assert a.status == "refused" and a.error.startswith("too_costly") and a.cost["estimate"] > s.cost_limit
        text = dock.answer_view.text.toPlainText()
        assert "too_costly" in text and f"{s.cost_limit:,}" in text
        entry = dock.session.audit.store.get(shown.entry["id"])
        assert entry["status"] == "refused" and entry["cost"]["limit"] == s.cost_limit and "too_costly" in entry["error"]
        assert ask(dock, light).answer.status == "answered"
    finally:
        s.cost_gate, s.cost_limit = False, settings_default_limit()


def settings_default_limit() -> int:
    return module("plugin.qgis.settings").Settings().cost_limit
