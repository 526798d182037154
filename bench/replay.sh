#!/usr/bin/env bash
# Replay throughput and memory against a bare franz-go consumer writing the
# same bytes (bench/replayfloor), optionally against an older offsetctl
# (BASE) and kcat, on the same broker in one interleaved run.
#
#   bench/replay.sh                           # in-process kfake broker (offsetctl playground)
#   BROKERS=127.0.0.1:29092 bench/replay.sh   # a real broker (topic created, then deleted)
#   BASE=8b6584b KCAT=0 bench/replay.sh       # before/after a change, without kcat
#
# Settings (env), with their defaults:
#   N=1000000        records
#   SIZE=100         value bytes
#   PARTITIONS=3     partitions
#   RUNS=5           runs per command (>= 5; min and median reported)
#   PORT=28392       kfake port (below the ephemeral range)
#   FORMATS="raw jsonl"  output formats timed
#   FLOOR=1          time the bare franz-go floor (bench/replayfloor, same 2 MiB fetch bound)
#   KCAT=1           time kcat (-C -e, -J for jsonl)
#   BASE=            a git ref: also time the offsetctl built from it ("old-*")
#   BROKERS=         a real broker instead of kfake
# offsetctl runs with its own defaults (digest on, proof on, --fetch-max-bytes 2 MiB,
# read_committed); every tool writes to /dev/null except kcat, whose output goes
# through `wc -l` so its count can be checked.
#
# Every timed run is validated: offsetctl's summary must say RECORDS N and the
# digest the first run printed (old and new must agree), the floor must report
# N records, kcat must write N lines; a run that fails stops the benchmark.
# Before the timing, the floor's output is compared with offsetctl's (sorted:
# partitions interleave in fetch order).
set -euo pipefail
N=${N:-1000000}; SIZE=${SIZE:-100}; PARTITIONS=${PARTITIONS:-3}; RUNS=${RUNS:-5}; PORT=${PORT:-28392}
FORMATS=${FORMATS:-raw jsonl}; FLOOR=${FLOOR:-1}; KCAT=${KCAT:-1}; BASE=${BASE:-}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
pg=""
cleanup() {
	if [ -n "$pg" ]; then kill "$pg" 2>/dev/null || true; wait "$pg" 2>/dev/null || true; fi
	if [ -n "${BROKERS_REAL:-}" ]; then "$work/replaygen" -brokers "$B" -topic "$topic" -delete || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
(cd "$root" && go build -o "$work/offsetctl" . && go build -o "$work/replaygen" ./bench/replaygen && go build -o "$work/floor" ./bench/replayfloor)
if [ -n "$BASE" ]; then
	mkdir "$work/base" && (cd "$root" && git archive "$BASE") | tar -x -C "$work/base"
	(cd "$work/base" && go build -o "$work/offsetctl-old" .)
fi

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

# The digest every run must print, and the floor's output against offsetctl's.
replay() { "$1" -b "$B" --audit-log "$work/audit.jsonl" replay "$topic" --format "$2" -q; }
replay "$work/offsetctl" raw 2>"$work/sum" >/dev/null
digest=$(sed -n 's/^DIGEST \([0-9a-f]*\)$/\1/p' "$work/sum")
[ -n "$digest" ] || { echo "no digest in the summary:" >&2; cat "$work/sum" >&2; exit 1; }
if [ "$FLOOR" = 1 ]; then
	for f in $FORMATS; do
		a=$(replay "$work/offsetctl" "$f" 2>/dev/null | sort | sha256sum)
		b=$("$work/floor" -brokers "$B" -topic "$topic" -format "$f" 2>/dev/null | sort | sha256sum)
		[ "$a" = "$b" ] || { echo "the floor's $f output differs from offsetctl's" >&2; exit 1; }
	done
fi

# check FILE: a replay's summary says N records and the digest.
cat >"$work/check" <<CHECK
#!/usr/bin/env bash
grep -q "RECORDS $N " "\$1" && grep -qx "DIGEST $digest" "\$1" || { echo "bad run:" >&2; cat "\$1" >&2; exit 1; }
CHECK
chmod +x "$work/check"
args=()
for f in $FORMATS; do
	kflag=""; [ "$f" = jsonl ] && kflag="-J"
	[ "$KCAT" = 1 ] && args+=("kcat-$f" "n=\$(kcat -b $B -C -e $kflag -o beginning -t $topic -q | wc -l); [ \$n = $N ] || { echo kcat read \$n >&2; exit 1; }")
	[ "$FLOOR" = 1 ] && args+=("floor-$f" "$work/floor -brokers $B -topic $topic -format $f 2>$work/e-floor && grep -qx 'records $N' $work/e-floor")
	[ -n "$BASE" ] && args+=("old-$f" "$work/offsetctl-old -b $B --audit-log $work/audit.jsonl replay $topic --format $f -q 2>$work/e-old && $work/check $work/e-old")
	args+=("replay-$f" "$work/offsetctl -b $B --audit-log $work/audit.jsonl replay $topic --format $f -q 2>$work/e-new && $work/check $work/e-new")
done
# Rounds interleave the commands (bench/interleave.sh), so that load from
# other processes on a shared machine falls on all of them alike.
"$root/bench/interleave.sh" "$RUNS" "${args[@]}" >"$work/table"
echo
echo "broker: $where; $N records of $SIZE bytes over $PARTITIONS partitions; $RUNS interleaved runs each; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "every run validated: $N records and digest $digest${BASE:+ (old and new alike)}; the floor's output equals offsetctl's (sorted)"
echo
cat "$work/table"
