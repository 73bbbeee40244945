"""Reading mapask:askfile's questions: CSV with a 'question' column or one column, text one question a line."""

import pytest

from plugin.qgis.algorithms.questions_file import QuestionsFileError, read_questions


def write(tmp_path, name: str, text: str, encoding: str = "utf-8"):
    path = tmp_path / name
    path.write_text(text, encoding=encoding)
    return path


def test_csv_question_column_is_read_with_quoted_commas_and_newlines(tmp_path):
    path = write(tmp_path, "q.csv", 'id,Question,owner\n1,"crashes in cambridge, by year",ann\n'
                                    '2,"fatal crashes\nin boston",bo\n3,,cy\n')
    assert read_questions(path) == ["crashes in cambridge, by year", "fatal crashes in boston"]


def test_semicolon_csv_from_a_european_spreadsheet_with_a_bom(tmp_path):
    path = write(tmp_path, "q.csv", "question;note\ncrashes by town;x\nshow the schools;y\n", encoding="utf-8-sig")
    assert read_questions(path) == ["crashes by town", "show the schools"]


def test_single_column_csv_without_header_is_all_questions(tmp_path):
    path = write(tmp_path, "q.csv", "crashes by town\nshow the schools\n")
    assert read_questions(path) == ["crashes by town", "show the schools"]


def test_text_file_skips_blank_and_comment_lines_and_tidies_spaces(tmp_path):
    path = write(tmp_path, "q.txt", "# my questions\n  crashes   by town \n\n\tshow the schools\n")
    assert read_questions(path) == ["crashes by town", "show the schools"]


@pytest.mark.parametrize("name, text, message", [
    ("q.csv", "id,text\n1,crashes by town\n", "none is named 'question'"),
    ("q.txt", "\n  \n# nothing\n", "holds no question"),
    ("q.csv", "question\n\n", "holds no question"),
])
def test_unusable_files_say_what_to_change(tmp_path, name, text, message):
    with pytest.raises(QuestionsFileError, match=message):
        read_questions(write(tmp_path, name, text))


def test_missing_folder_and_non_utf8_files_are_clear_errors(tmp_path):
    with pytest.raises(QuestionsFileError, match="there is no file"):
        read_questions(tmp_path / "nope.csv")
    with pytest.raises(QuestionsFileError, match="is a folder"):
        read_questions(tmp_path)
    path = tmp_path / "latin1.txt"
    path.write_bytes("crashes in Quincy caf\xe9\n".encode("latin-1"))
    with pytest.raises(QuestionsFileError, match="not UTF-8"):
        read_questions(path)
