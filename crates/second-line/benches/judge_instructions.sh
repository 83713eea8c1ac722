#!/bin/bash
# Instructions per judgement in process, by function (inclusive), for one build:
#
#   bash crates/second-line/benches/judge_instructions.sh JUDGE_COST INDEX N
#
# JUDGE_COST: a build of `cargo build --release -p second-line --example judge_cost`;
# TOP=N prints the N largest (default 40).
# INDEX: the judgement (0 stash, 1 commit, 2 push feature, 3 checkout -b, 4 gh pr create,
# 5 push main, 6 alias push); N: iterations. Runs callgrind at N and at 0 iterations and
# prints (total at N - total at 0) / N per function, largest first ("PROGRAM TOTALS" is the
# judgement's whole count): deterministic where wall clocks on a shared VM are not.
set -euo pipefail
bin=$1 index=$2 n=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for k in 0 "$n"; do
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$k" "$bin" "$k" "$index" >/dev/null 2>&1
    callgrind_annotate --inclusive=yes --threshold=100 "$tmp/cg.$k" 2>/dev/null |
        grep -E '^ *[0-9,]+ ' | sed 's/(.*%)//' | awk '{gsub(",","",$1); $1=$1; print}' >"$tmp/cg.$k.txt"
done
python3 - "$n" "$tmp/cg.0.txt" "$tmp/cg.$n.txt" <<'PY'
import re, sys
n = int(sys.argv[1])
def load(p):
    d = {}
    for line in open(p):
        parts = line.split(None, 1)
        if len(parts) < 2 or not parts[0].isdigit():
            continue
        name = re.sub(r' \[.*$', '', parts[1].strip())
        d[name] = d.get(name, 0) + int(parts[0])
    return d
a, b = load(sys.argv[2]), load(sys.argv[3])
for v, k in sorted(((b[k] - a.get(k, 0)) / n, k) for k in b)[::-1][:int(__import__("os").environ.get("TOP","40"))]:
    if v >= 300:
        print(f"{v:10.0f}  {k[:150]}")
PY
