#!/usr/bin/env bash
# bench/reset_txn.sh - `offsetctl reset --execute` of one group over 10,000
# partitions (the transactional path: one transaction of TxnOffsetCommits),
# interleaved with Apache's `kafka-consumer-groups --reset-offsets --execute`
# on the same group: offsetctl, Apache, offsetctl, Apache, ... RUNS each,
# alternating --to earliest / latest so every run moves every offset. Each
# run is the whole command (JVM start included for Apache: what an operator
# pays), timed with /usr/bin/time (wall seconds and peak RSS).
#
#   KAFKA_PORT=22092 KAFKA_CONTROLLER_PORT=22093 KAFKA_WORKDIR=/tmp/kafka-bench scripts/kafka.sh start
#   BROKERS=127.0.0.1:22092 RUNS=5 bench/reset_txn.sh
#
# Names are short (rbt-a, rbt-0000) so Apache's single OffsetCommit of
# 10,000 partitions fits the coordinator's 1 MiB batch and succeeds (with
# ~40-character names it fails every run: see reset.md).
set -euo pipefail
cd "$(dirname "$0")/.."
BROKERS="${BROKERS:?set BROKERS=host:port of a private broker}"
RUNS="${RUNS:-5}"
KAFKA_SH="${KAFKA_SH:-$PWD/scripts/kafka.sh}"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/offsetctl" .
go build -o "$tmp/laggen" ./bench/laggen
G=rbt-0000
# Two topics of 5,000 partitions (KRaft refuses 10,000 in one request).
"$tmp/laggen" -brokers "$BROKERS" -topic rbt-a -prefix rbt -partitions 5000 -groups 1 -records 2 >/dev/null
"$tmp/laggen" -brokers "$BROKERS" -topic rbt-b -prefix rbt -partitions 5000 -groups 1 -records 2 >/dev/null
cleanup() {
  "$tmp/laggen" -brokers "$BROKERS" -topic rbt-a -prefix rbt -groups 1 -delete >/dev/null 2>&1 || true
  "$tmp/laggen" -brokers "$BROKERS" -topic rbt-b -prefix rbt -groups 1 -delete >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# committed_at TARGET: how many of the group's partitions are at TARGET's
# offset (0 for earliest, 2 for latest), read with offsetctl lag -o json.
committed_at() {
  "$tmp/offsetctl" -b "$BROKERS" lag "$G" -o json | python3 -c '
import json,sys
want=int(sys.argv[1]); d=json.load(sys.stdin); gs=d["groups"] if isinstance(d,dict) and "groups" in d else d
n=0
for g in (gs if isinstance(gs,list) else [gs]):
    for p in g.get("partitions",[]):
        if p.get("committed")==want: n+=1
print(n)' "$1"
}

: >"$tmp/o.txt"; : >"$tmp/a.txt"
# One untimed warm-up of each tool: on a fresh broker the first transaction
# creates __transaction_state and waits for its coordinator (~0.2 s), and the
# JVM's class-data archive is written by its first run.
"$tmp/offsetctl" -b "$BROKERS" reset "$G" --all-topics --to earliest --execute --backup "$tmp/w.csv" >/dev/null 2>&1
bash "$KAFKA_SH" consumer-groups --bootstrap-server "$BROKERS" --reset-offsets --group "$G" --all-topics --to-earliest --execute >/dev/null 2>&1
run_o() { # run_o I: offsetctl's run of round I
  local i=$1 to=latest off=2 n
  if (( i % 2 == 0 )); then to=earliest; off=0; fi
  /usr/bin/time -f '%e %M' -o "$tmp/t" "$tmp/offsetctl" -b "$BROKERS" reset "$G" --all-topics --to "$to" --execute --backup "$tmp/b$i.csv" >/dev/null 2>"$tmp/err" \
    || { cat "$tmp/err" >&2; exit 1; }
  cat "$tmp/t" >>"$tmp/o.txt"
  n="$(committed_at "$off")"; [[ "$n" == 10000 ]] || { echo "offsetctl run $i: $n of 10000 partitions at $to" >&2; exit 1; }
}
run_a() { # run_a I: Apache's run of round I, the other way, so it moves every offset too
  local i=$1 ato=earliest aoff=0 n
  if (( i % 2 == 0 )); then ato=latest; aoff=2; fi
  /usr/bin/time -f '%e %M' -o "$tmp/t" bash "$KAFKA_SH" consumer-groups --bootstrap-server "$BROKERS" --reset-offsets --group "$G" --all-topics --to-"$ato" --execute >/dev/null 2>&1
  cat "$tmp/t" >>"$tmp/a.txt"
  n="$(committed_at "$aoff")"; [[ "$n" == 10000 ]] || { echo "Apache run $i: $n of 10000 partitions at $ato" >&2; exit 1; }
}
# The order alternates round by round (offsetctl first, then Apache first), so neither always runs
# right after the other's run; each round still moves every offset twice (offsetctl and Apache go
# opposite ways: with Apache first, offsetctl's target is the one Apache just left).
for i in $(seq 1 "$RUNS"); do
  if (( i % 2 == 1 )); then run_o "$i"; run_a "$i"; else run_a "$i"; run_o "$i"; fi
done

python3 - "$tmp/o.txt" "$tmp/a.txt" <<'PY'
import statistics, sys
def load(p):
    rows=[l.split() for l in open(p) if l.strip()]
    return [float(r[0]) for r in rows], [int(r[1]) for r in rows]
o, orss = load(sys.argv[1]); a, arss = load(sys.argv[2])
print(f"runs: {len(o)} each, interleaved")
print(f"offsetctl reset --execute (transactional): min {min(o):.2f}s  median {statistics.median(o):.2f}s  peak RSS {max(orss)/1024:.0f} MiB  all: {' '.join(f'{x:.2f}' for x in o)}")
print(f"kafka-consumer-groups --reset-offsets:     min {min(a):.2f}s  median {statistics.median(a):.2f}s  peak RSS {max(arss)/1024:.0f} MiB  all: {' '.join(f'{x:.2f}' for x in a)}")
print(f"ratio of medians (Apache / offsetctl): {statistics.median(a)/statistics.median(o):.1f}x")
PY
