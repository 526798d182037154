#!/usr/bin/env bash
# Replay throughput and memory against kcat, on the same broker in one run.
#
#   bench/replay.sh                       # in-process kfake broker (offsetctl playground)
#   BROKERS=127.0.0.1:29092 bench/replay.sh   # a real broker (topic created, then deleted)
#
# Env: N (records, default 1000000), SIZE (value bytes, 100), PARTITIONS (3),
# RUNS (runs per tool, >= 5, default 5; min and median reported), PORT (kfake port, 28392: below
# the ephemeral range).
set -euo pipefail
N=${N:-1000000}; SIZE=${SIZE:-100}; PARTITIONS=${PARTITIONS:-3}; RUNS=${RUNS:-5}; PORT=${PORT:-28392}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
pg=""
cleanup() {
	if [ -n "$pg" ]; then kill "$pg" 2>/dev/null || true; wait "$pg" 2>/dev/null || true; fi
	if [ -n "${BROKERS_REAL:-}" ]; then "$work/replaygen" -brokers "$B" -topic "$topic" -delete || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
(cd "$root" && go build -o "$work/offsetctl" . && go build -o "$work/replaygen" ./bench/replaygen)

if [ -n "${BROKERS:-}" ]; then
	B=$BROKERS; BROKERS_REAL=1; where="real broker $B"
else
	"$work/offsetctl" playground --listen "127.0.0.1:$PORT" --empty >"$work/pg.log" 2>&1 &
	pg=$!
	B="127.0.0.1:$PORT"; where="kfake (offsetctl playground) at $B"
	for _ in $(seq 300); do grep -q brokers "$work/pg.log" 2>/dev/null && break; sleep 0.1; done
	grep -q brokers "$work/pg.log" || { echo "playground did not start:" >&2; cat "$work/pg.log" >&2; exit 1; }
fi
topic="replay-bench-$$-$RANDOM"
"$work/replaygen" -brokers "$B" -topic "$topic" -n "$N" -size "$SIZE" -partitions "$PARTITIONS"

# Rounds interleave the tools (bench/interleave.sh), so that load from other
# processes on a shared machine falls on all of them alike.
"$root/bench/interleave.sh" "$RUNS" \
	kcat-J       "kcat -b $B -C -e -J -o beginning -t $topic -q" \
	replay-jsonl "$work/offsetctl -b $B replay $topic --format jsonl -q" \
	kcat-raw     "kcat -b $B -C -e -o beginning -t $topic -q" \
	replay-raw   "$work/offsetctl -b $B replay $topic --format raw -q" >"$work/table"
# Sanity: both read every record.
lines=$("$work/offsetctl" -b "$B" replay "$topic" --format raw -q 2>/dev/null | wc -l)
klines=$(kcat -b "$B" -C -e -o beginning -t "$topic" -q | wc -l)
echo
echo "broker: $where; $N records of $SIZE bytes over $PARTITIONS partitions; $RUNS interleaved runs each; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "lines read: offsetctl $lines, kcat $klines"
echo
cat "$work/table"
