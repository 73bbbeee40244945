"""Map layers of the bench's answers: how many, of which role, refused by the guard, failing, and how long their SQL runs.

    .venv/bin/python scripts/map_layers.py [--questions bench/questions.yaml]

Asks every bench question (rules interpreter), builds each answer's map-layer SQL (plugin.core.layer_sql) and runs it
through the read-only executor, as a PostGIS query layer would; prints one summary.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a script: make the plugin package importable
    sys.path.insert(0, str(REPO))

from plugin.core.layer_sql import plan_layers  # noqa: E402
from plugin.core.pack import load_pack  # noqa: E402
from plugin.core.pipeline import Pipeline  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", default=str(REPO / "bench" / "questions.yaml"))
    parser.add_argument("--pack", default=str(REPO / "knowledge" / "massachusetts"))
    args = parser.parse_args()
    port = os.environ.get("PGPORT", "55432")
    dsn = os.environ.get("MAPASK_DSN", f"host=127.0.0.1 port={port} dbname=mapask user=mapask_reader "
                                       "password=mapask_reader")
    pack = load_pack(args.pack)
    pipeline = Pipeline(pack, dsn)
    answered = no_map = 0
    roles: dict = {}
    refused, failed, times = [], [], []
    items = yaml.safe_load(Path(args.questions).read_text())
    for item in items["questions"] if isinstance(items, dict) else items:  # a split file holds them under a key
        answer = pipeline.ask(item["question"])
        if answer.status != "answered":
            continue
        answered += 1
        plan = plan_layers(answer, pack)
        no_map += plan.no_map
        refused += [(item["id"], s) for s in plan.skipped]
        for spec in plan.specs:
            roles[spec.role] = roles.get(spec.role, 0) + 1
            start = time.perf_counter()
            try:
                pipeline.executor.run(spec.sql)
            except Exception as e:  # a layer that would not open in QGIS
                failed.append((item["id"], spec.role, str(e)[:120]))
            times.append((time.perf_counter() - start) * 1000)
    pipeline.executor.close()
    times.sort()
    print(f"{answered} answers: {no_map} with no map, {len(times)} map layers {roles}")
    print(f"not made (refused by the guard, or unreadable): {len(refused)}; failed to run: {len(failed)}")
    for line in (refused + failed)[:10]:
        print("   ", *line)
    if times:
        print(f"layer SQL: median {statistics.median(times):.0f} ms, p95 {times[int(0.95 * (len(times) - 1))]:.0f} ms, "
              f"max {times[-1]:.0f} ms")
    return 1 if refused or failed else 0


if __name__ == "__main__":
    sys.exit(main())
