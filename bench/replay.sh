#!/usr/bin/env bash
# Replay throughput and memory against kcat, on the same broker in one run.
#
#   bench/replay.sh                       # in-process kfake broker (offsetctl playground)
#   BROKERS=127.0.0.1:29092 bench/replay.sh   # a real broker (topic created, then deleted)
#
# Env: N (records, default 1000000), SIZE (value bytes, 100), PARTITIONS (3),
# RUNS (runs per tool, median reported, 3), PORT (kfake port, 28392: below the ephemeral range).
set -euo pipefail
N=${N:-1000000}; SIZE=${SIZE:-100}; PARTITIONS=${PARTITIONS:-3}; RUNS=${RUNS:-3}; PORT=${PORT:-28392}
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

# One timed run: "NAME seconds max_rss_kb", stdout to /dev/null.
once() {
	local name=$1; shift
	/usr/bin/time -o "$work/t" -f "%e %M" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
	echo "$name $(cat "$work/t")"
}
# Rounds interleave the tools, so that load from other processes on a
# shared machine falls on all of them alike; the median of each is kept.
for r in $(seq "$RUNS"); do
	once kcat-J       kcat -b "$B" -C -e -J -o beginning -t "$topic" -q
	once replay-jsonl "$work/offsetctl" -b "$B" replay "$topic" --format jsonl -q
	once kcat-raw     kcat -b "$B" -C -e -o beginning -t "$topic" -q
	once replay-raw   "$work/offsetctl" -b "$B" replay "$topic" --format raw -q
done | tee "$work/runs"
awk '{ n[$1]++; t[$1, n[$1]] = $2; if ($3 > m[$1]) m[$1] = $3 }
	END { for (k in n) { cnt = n[k]; s = ""
		for (i = 1; i <= cnt; i++) a[i] = t[k, i]
		for (i = 1; i <= cnt; i++) for (j = i + 1; j <= cnt; j++) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
		for (i = 1; i <= cnt; i++) s = s (i > 1 ? "," : "") t[k, i]
		print k, a[int((cnt + 1) / 2)], m[k], s } }' "$work/runs" >"$work/res"
# Sanity: both read every record.
lines=$("$work/offsetctl" -b "$B" replay "$topic" --format raw -q 2>/dev/null | wc -l)
klines=$(kcat -b "$B" -C -e -o beginning -t "$topic" -q | wc -l)
echo
echo "broker: $where; $N records of $SIZE bytes over $PARTITIONS partitions; $RUNS runs each (median); $(nproc) cores"
echo "lines read: offsetctl $lines, kcat $klines"
awk '
	{ t[$1]=$2; m[$1]=$3; runs[$1]=$4 }
	END {
		printf "| tool | median s | runs s | max RSS MiB | records/s |\n|---|---|---|---|---|\n"
		n = split("kcat-J replay-jsonl kcat-raw replay-raw", order, " ")
		for (i = 1; i <= n; i++) { k = order[i]; printf "| %s | %.2f | %s | %.0f | %.0f |\n", k, t[k], runs[k], m[k]/1024, '"$N"'/t[k] }
		printf "\nratio jsonl: replay is %.1fx kcat -J (target >= 3x)\n", t["kcat-J"]/t["replay-jsonl"]
		printf "ratio raw:   replay is %.1fx kcat raw (target >= 1x)\n", t["kcat-raw"]/t["replay-raw"]
	}' "$work/res"
