"""Settings under one QgsSettings prefix, saved connections with passwords from QGIS's auth system only."""

import psycopg2
from mapask_qgis_helpers import CONNECTION, READER, dock, module, pg_connection  # noqa: F401 (fixtures)
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
    s = dialog.result_settings()
    assert (s.row_cap, s.timeout_s, s.model_kind, s.model_path) == (77, 9, "gguf", "/models/qwen.gguf")
    dialog.deleteLater()


def test_pack_examples_give_the_placeholder_once_shown(dock, qgis_iface):
    assert "e.g." not in dock.question_edit.placeholderText()  # no pack read while the dock is hidden
    window = qgis_iface.mainWindow()
    window.show()  # a child is only really shown inside a shown window
    try:
        dock.show()
        assert "e.g." in dock.question_edit.placeholderText()
    finally:
        dock.hide()
        window.hide()
