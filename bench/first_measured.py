"""Keep a split's answers as they were first measured, for the verifier to be fitted on.

    .venv/bin/python -m bench.first_measured fresh21 a8aa5e2

A split's read part is fixed once its failures are read, so the verifier fitted on it learns from answers that are
almost all right; the questions it must judge are unseen ones, which MapAsk gets wrong far more often. This runs the
code of the commit that first measured the split (a git worktree of it) over the split's read part and stores each
answered question's verifier features, with whether it was right, in bench/verifier_history.json. The unread parts
are never stored.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.run import ROOT, UNREAD

HISTORY = ROOT / "bench" / "verifier_history.json"

# run inside the worktree: its own pipeline and verifier answer the questions read from stdin
_COLLECT = """
import json, sys
from bench.fit_verifier import collect
rows = collect(json.load(sys.stdin))
json.dump([{k: r[k] for k in ("id", "status", "ok", "expect", "x")} for r in rows], sys.stdout)
"""


def measure(split: str, commit: str) -> list[dict]:
    """The read part of `split` asked of the code at `commit`: each question's status, rightness and features."""
    if split in UNREAD:
        raise SystemExit(f"{split} is unread: its answers are never fitted on")
    import yaml
    questions = [q for q in yaml.safe_load((ROOT / "bench" / f"{split}_questions.yaml").read_text())["questions"]
                 if q["split"] == split]
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), commit], check=True,
                       capture_output=True)
        try:
            out = subprocess.run([sys.executable, "-c", _COLLECT], cwd=tree, input=json.dumps(questions), text=True,
                                 capture_output=True, check=True).stdout
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], capture_output=True)
    return [dict(r, split=split, commit=commit) for r in json.loads(out)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("split")
    ap.add_argument("commit", help="the commit whose code first measured the split")
    args = ap.parse_args(argv)
    rows = measure(args.split, args.commit)
    kept = [r for r in json.loads(HISTORY.read_text())] if HISTORY.exists() else []
    kept = [r for r in kept if r["split"] != args.split] + rows
    HISTORY.write_text(json.dumps(kept, indent=0) + "\n")
    answered = [r for r in rows if r["status"] == "answered"]
    print(f"{args.split} at {args.commit}: {len(rows)} questions, {len(answered)} answered, "
          f"{sum(r['ok'] for r in answered)} right; stored in {HISTORY.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
