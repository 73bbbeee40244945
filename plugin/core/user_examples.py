"""Approved question -> frame examples from a user pack: added to the pack they were approved on, and reused
when the same question is asked again (so reviewed answers teach MapAsk; unapproved ones never get here)."""
from __future__ import annotations

import dataclasses
import hashlib
import re
from pathlib import Path

from .audit import EXAMPLES_FILE, read_examples
from .pack import Pack


def with_user_examples(pack: Pack, user_dir: str | Path | None) -> Pack:
    """`pack` plus the examples promoted for it in `user_dir`; its content hash then covers them too, so an
    audit entry records which reviewed examples were in force."""
    path = Path(user_dir) / EXAMPLES_FILE if user_dir else None
    if path is None or not path.is_file():
        return pack
    data = read_examples(path)
    if data.get("pack") and data["pack"] != pack.id:
        return pack  # examples approved on another database's pack
    mine = [dict(x, user=True) for x in data["examples"] if isinstance(x, dict) and x.get("frame")]
    if not mine:
        return pack
    digest = hashlib.sha256((pack.content_hash + "\n").encode() + path.read_bytes()).hexdigest()[:16]
    return dataclasses.replace(pack, examples=pack.examples + mine, content_hash=digest)


def approved_example(pack: Pack, question: str) -> dict | None:
    """The user-approved example asked with the same words (case, spacing and punctuation aside), else None."""
    key = _words(question)
    return next((x for x in reversed(pack.examples) if x.get("user") and _words(str(x.get("question", ""))) == key),
                None)


def _words(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())
