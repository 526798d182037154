#!/usr/bin/env bash
# What the checkpoint of an at-least-once backfill costs: `replay SRC
# --produce-to DST --checkpoint F` written after each acknowledged batch (the
# default) against `--checkpoint-interval 1s` and against no checkpoint, in
# interleaved rounds on the same broker (bench/interleave.sh).
#
#   bench/backfill_ckpt.sh                          # in-process kfake broker (offsetctl playground)
#   BROKERS=127.0.0.1:29092 bench/backfill_ckpt.sh  # a real broker (topics created, then deleted)
#
# Env: N (records, default 1000000), SIZE (value bytes, 100), PARTITIONS (3),
# RUNS (runs per variant, >= 5, default 5), PORT (kfake port, 28394), CKPT_DIR
# (where the checkpoint files go, default a temporary directory: put it on
# the disk a real backfill would use, since a write is two fsyncs).
#
# Every run copies to a target topic of its own, created empty beforehand, so
# each one copies all N records from the start; at the end each target is
# read back and must hold exactly N records.
set -euo pipefail
N=${N:-1000000}; SIZE=${SIZE:-100}; PARTITIONS=${PARTITIONS:-3}; RUNS=${RUNS:-5}; PORT=${PORT:-28394}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
ckdir=${CKPT_DIR:-$work}
pg=""
topics=()
cleanup() {
	if [ -n "${BROKERS_REAL:-}" ]; then
		for t in "${topics[@]}"; do "$work/replaygen" -brokers "$B" -topic "$t" -delete || true; done
	fi
	if [ -n "$pg" ]; then kill "$pg" 2>/dev/null || true; wait "$pg" 2>/dev/null || true; fi
	rm -f "$ckdir"/bfck-*.ckpt "$ckdir"/bfck-*.ckpt.lock
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
base="bfck-$$-$RANDOM"
src="$base-src"; topics+=("$src")
"$work/replaygen" -brokers "$B" -topic "$src" -n "$N" -size "$SIZE" -partitions "$PARTITIONS"
for v in ack 1s none; do
	echo 0 >"$work/n-$v"
	for i in $(seq 0 $((RUNS - 1))); do
		topics+=("$base-$v-$i")
		"$work/replaygen" -brokers "$B" -topic "$base-$v-$i" -n 0 -partitions "$PARTITIONS" 2>/dev/null
	done
done

# One command per variant: the next target topic of the variant (a counter
# file), a fresh checkpoint, the backfill. The bookkeeping is a few
# microseconds of shell.
cmd() { # variant, extra flags
	echo "i=\$(cat $work/n-$1); echo \$((i + 1)) >$work/n-$1; rm -f $ckdir/bfck-$1.ckpt;" \
		"$work/offsetctl -b $B --audit-log $work/audit.jsonl replay $src --produce-to $base-$1-\$i --format none -q --no-verify $2"
}
"$root/bench/interleave.sh" "$RUNS" \
	ckpt-each-batch "$(cmd ack "--checkpoint $ckdir/bfck-ack.ckpt")" \
	ckpt-interval-1s "$(cmd 1s "--checkpoint $ckdir/bfck-1s.ckpt --checkpoint-interval 1s")" \
	no-checkpoint "$(cmd none "")" >"$work/table"

# Sanity: every target holds exactly N records.
for v in ack 1s none; do
	for i in $(seq 0 $((RUNS - 1))); do
		got=$("$work/offsetctl" -b "$B" --audit-log "$work/audit.jsonl" -o json replay "$base-$v-$i" --isolation uncommitted --format none -q --no-verify |
			sed -n 's/^ *"records": \([0-9]*\),*$/\1/p' | head -1)
		[ "$got" = "$N" ] || { echo "target $base-$v-$i holds $got records, want $N" >&2; exit 1; }
	done
done
echo
echo "broker: $where; $N records of $SIZE bytes over $PARTITIONS partitions; checkpoints in $ckdir ($(df -P "$ckdir" | awk 'NR==2 {print $1}')); $RUNS interleaved runs each; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "every target read back: $N records each"
echo
cat "$work/table"
