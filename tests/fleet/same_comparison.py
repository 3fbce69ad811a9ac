"""Whether two `pesbench compare --json` documents are the same comparison: equal but for where
each run was read from (a folder or a JSONL file), with at least one table. Usage:
same_comparison.py A.json B.json [RUNS]: RUNS, when given, is the number of runs both must
have. Exit 0 when they are the same, 1 (saying how they differ) otherwise."""
import json
import sys

docs = [json.load(open(p)) for p in sys.argv[1:3]]
for d in docs:
    for r in d["runs"]:
        r.pop("source", None)
want = int(sys.argv[3]) if len(sys.argv) > 3 else None
problems = []
if docs[0] != docs[1]:
    problems.append("the two comparisons differ")
    if docs[0]["runs"] != docs[1]["runs"]:
        problems.append("in their runs")
if not docs[0]["tables"]:
    problems.append("no table")
if want is not None and len(docs[0]["runs"]) != want:
    problems.append(f"{len(docs[0]['runs'])} runs, expected {want}")
for p in problems:
    print("same_comparison:", p)
sys.exit(1 if problems else 0)
