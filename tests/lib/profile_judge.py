#!/usr/bin/env python3
"""Reads exported profiles back through independent decoders, for tests/cli_export*.sh.

  pprof-folded TEXT VALUE     protoc's text decoding of a pprof file (protoc --decode
                              perftools.profiles.Profile, Google's profile.proto) as folded
                              stacks: "root;...;leaf COUNT", COUNT the sample value VALUE
  pprof-leaves TEXT VALUE     per leaf location "ID ADDRESS COUNT" (hex address)
  pprof-check TEXT            the invariants readers rely on; prints what breaks them
  pprof-functions TEXT        each function as "SYSTEM_NAME<TAB>NAME", sorted
  speedscope-folded JSON I    profile I of a speedscope file as folded stacks
  speedscope-validate JSON SCHEMA   jsonschema validation against speedscope's schema

Folded output is sorted and equal stacks are summed, as pesbench and perf's stackcollapse do."""
import codecs
import collections
import json
import sys


def parse_text(path):
    """protoc's text format as nested dicts of lists."""
    root = collections.defaultdict(list)
    stack = [root]
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for raw in f:
            line = raw.strip()
            if not line:
                continue
            if line.endswith("{"):
                node = collections.defaultdict(list)
                stack[-1][line[:-1].strip()].append(node)
                stack.append(node)
            elif line == "}":
                stack.pop()
            else:
                key, _, value = line.partition(":")
                value = value.strip()
                if value.startswith('"'):
                    value = codecs.escape_decode(value[1:-1].encode("latin-1", "surrogateescape"))[0]
                    value = value.decode("utf-8", "replace")
                elif value in ("true", "false"):
                    value = value == "true"
                else:
                    value = int(value)
                stack[-1][key.strip()].append(value)
    return root


def first(node, key, default=0):
    v = node.get(key)
    return v[0] if v else default


def pprof(path):
    p = parse_text(path)
    strings = p.get("string_table", [])
    functions = {first(f, "id"): strings[first(f, "name")] for f in p.get("function", [])}
    locations = {}
    for loc in p.get("location", []):
        lines = loc.get("line", [])
        names = [functions.get(first(l, "function_id"), "?") for l in lines]
        locations[first(loc, "id")] = (first(loc, "address"), names)
    return p, strings, locations


def emit_folded(counts):
    for stack in sorted(counts):
        if counts[stack]:
            print(f"{stack} {counts[stack]}")


def pprof_folded(path, value):
    p, _, locations = pprof(path)
    counts = collections.Counter()
    for s in p.get("sample", []):
        names = []
        for loc in s.get("location_id", []):
            # a location's lines are innermost first, as its samples' locations are leaf first
            names.extend(locations[loc][1])
        counts[";".join(n.replace(";", ":") for n in reversed(names))] += s["value"][value]
    emit_folded(counts)


def pprof_leaves(path, value):
    p, _, locations = pprof(path)
    counts = collections.Counter()
    for s in p.get("sample", []):
        if s.get("location_id"):
            counts[s["location_id"][0]] += s["value"][value]
    for loc in sorted(counts):
        print(f"{loc} {locations[loc][0]:x} {counts[loc]}")


def pprof_check(path):
    p, strings, locations = pprof(path)
    bad = []
    if not strings or strings[0] != "":
        bad.append('string_table[0] is not ""')
    ntypes = len(p.get("sample_type", []))
    if not ntypes:
        bad.append("no sample_type")
    for i, s in enumerate(p.get("sample", [])):
        if len(s.get("value", [])) != ntypes:
            bad.append(f"sample {i} has {len(s.get('value', []))} values for {ntypes} types")
            break
    for kind in ("location", "function", "mapping"):
        ids = [first(x, "id") for x in p.get(kind, [])]
        if 0 in ids or len(ids) != len(set(ids)):
            bad.append(f"{kind} ids are not unique and non-zero")
    for loc in p.get("location", []):
        if not loc.get("line"):
            bad.append(f"location {first(loc, 'id')} has no line (no function)")
            break
    if "default_sample_type" in p:
        bad.append("default_sample_type is set")
    for b in bad:
        print(b)
    return 1 if bad else 0


def speedscope_folded(path, index):
    doc = json.load(open(path))
    frames = doc["shared"]["frames"]
    prof = doc["profiles"][index]
    counts = collections.Counter()
    for stack, weight in zip(prof["samples"], prof["weights"]):
        counts[";".join(frames[f]["name"].replace(";", ":") for f in stack)] += weight
    emit_folded(counts)


def pprof_functions(path):
    """Each function as "system_name<TAB>name", sorted."""
    p = parse_text(path)
    strings = p.get("string_table", [])
    rows = {strings[first(f, "system_name")] + "\t" + strings[first(f, "name")]
            for f in p.get("function", [])}
    for row in sorted(rows):
        print(row)


def speedscope_validate(path, schema_path):
    import jsonschema
    jsonschema.validate(json.load(open(path)), json.load(open(schema_path)))
    return 0


def main(argv):
    cmd = argv[1]
    if cmd == "pprof-folded":
        pprof_folded(argv[2], int(argv[3]))
    elif cmd == "pprof-leaves":
        pprof_leaves(argv[2], int(argv[3]))
    elif cmd == "pprof-functions":
        pprof_functions(argv[2])
    elif cmd == "pprof-check":
        return pprof_check(argv[2])
    elif cmd == "speedscope-folded":
        speedscope_folded(argv[2], int(argv[3]))
    elif cmd == "speedscope-validate":
        return speedscope_validate(argv[2], argv[3])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
