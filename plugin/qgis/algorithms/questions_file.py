"""Read the questions of mapask:askfile from a CSV (a 'question' column) or a text file (one question a line)."""

import csv
import io
from pathlib import Path
from typing import List

QUESTION_COLUMN = "question"
CSV_SUFFIXES = (".csv", ".tsv")
SNIFF_CHARS = 64 * 1024


class QuestionsFileError(ValueError):
    """The file cannot be read as questions; the message says what to change."""


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")  # Excel writes a BOM before UTF-8 CSV
    except FileNotFoundError:
        raise QuestionsFileError(f"there is no file {path}")
    except IsADirectoryError:
        raise QuestionsFileError(f"{path} is a folder, not a file of questions")
    except UnicodeDecodeError as e:
        raise QuestionsFileError(f"{path} is not UTF-8 text (byte {e.start}): save it as UTF-8")
    except OSError as e:
        raise QuestionsFileError(f"{path} cannot be read: {e.strerror or e}")


def _csv_rows(text: str) -> List[List[str]]:
    try:
        dialect = csv.Sniffer().sniff(text[:SNIFF_CHARS], delimiters=",;\t")
    except csv.Error:  # one column, or too little to tell: plain commas
        dialect = csv.excel
    try:
        return [row for row in csv.reader(io.StringIO(text), dialect) if any(c.strip() for c in row)]
    except csv.Error as e:
        raise QuestionsFileError(f"the CSV cannot be read: {e}")


def _from_csv(path: Path, text: str) -> List[str]:
    rows = _csv_rows(text)
    if not rows:
        return []
    header = [c.strip().casefold() for c in rows[0]]
    if QUESTION_COLUMN in header:
        col, body = header.index(QUESTION_COLUMN), rows[1:]
    elif all(len(r) == 1 for r in rows):  # one column and no header: every row is a question
        col, body = 0, rows
    else:
        # guessing which of several columns holds the questions could ask the wrong thing of the database
        found = ", ".join(repr(c) for c in rows[0][:6])
        raise QuestionsFileError(f"{path.name} has several columns ({found}) and none is named "
                                 f"'{QUESTION_COLUMN}': add that header, or give a .txt file with one question a line")
    return [r[col] for r in body if len(r) > col]


def read_questions(path: "str | Path") -> List[str]:
    """The file's questions in order, whitespace tidied; blank lines (and '#' lines in text files) skipped."""
    path = Path(path)
    text = _text(path)
    if path.suffix.lower() in CSV_SUFFIXES:
        raw = _from_csv(path, text)
    else:
        raw = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    questions = [" ".join(q.split()) for q in raw]
    questions = [q for q in questions if q]
    if not questions:
        raise QuestionsFileError(f"{path.name} holds no question")
    return questions
