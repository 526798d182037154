#!/usr/bin/env bash
# What a backfill (`replay SRC --produce-to DST`) costs against a bare
# franz-go copy (bench/replayfloor -copy-to), and what --checkpoint and
# --transactional-id add on top, in interleaved rounds on the same broker
# (bench/interleave.sh); with BASE, the same variants of an older build too.
#
#   bench/backfill_ckpt.sh                          # in-process kfake broker (offsetctl playground)
#   BROKERS=127.0.0.1:29092 bench/backfill_ckpt.sh  # a real broker (topics created, then deleted)
#   BASE=8b6584b BROKERS=... bench/backfill_ckpt.sh # before/after a change
#
# Settings (env), with their defaults:
#   N=1000000      records
#   SIZE=100       value bytes
#   PARTITIONS=3   partitions
#   RUNS=5         runs per variant (>= 5)
#   PORT=28394     kfake port
#   VARIANTS="floor none ckpt txn"   which variants are timed:
#       floor     bench/replayfloor -copy-to (acks=all, idempotent, 5 ms linger, same partition)
#       none      offsetctl replay SRC --produce-to DST (no checkpoint, no transaction)
#       ckpt      ... --checkpoint F (written after each acknowledged batch: the default)
#       ckpt1s    ... --checkpoint F --checkpoint-interval 1s
#       txn       ... --transactional-id ID (default --txn-interval 1s, a fresh id per run)
#   BASE=          a git ref: also time its build's offsetctl variants ("old-*")
#   CKPT_DIR=      where the checkpoint files go (default a temporary directory: put
#                  it on the disk a real backfill would use, since a write is two fsyncs)
#   BROKERS=       a real broker instead of kfake
# offsetctl runs with --format none -q --no-verify and its defaults otherwise
# (--partitioner same, acks=all, digests on).
#
# Every run copies to a target topic of its own, created empty beforehand,
# so each one copies all N records from the start. Every timed run is
# validated: offsetctl's JSON result must say "produced": N and "complete":
# true, the floor must report N acknowledged; at the end every target is read
# back and must hold exactly N records.
set -euo pipefail
N=${N:-1000000}; SIZE=${SIZE:-100}; PARTITIONS=${PARTITIONS:-3}; RUNS=${RUNS:-5}; PORT=${PORT:-28394}
VARIANTS=${VARIANTS:-floor none ckpt txn}; BASE=${BASE:-}
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
base="bfck-$$-$RANDOM"
src="$base-src"; topics+=("$src")
"$work/replaygen" -brokers "$B" -topic "$src" -n "$N" -size "$SIZE" -partitions "$PARTITIONS"

# The variants, each with a name and the flags (or the floor); old-* with BASE.
names=(); bins=(); flags=()
for v in $VARIANTS; do
	case $v in
	floor) f="" ;;
	none) f="" ;;
	ckpt) f="--checkpoint $ckdir/bfck-@.ckpt" ;;
	ckpt1s) f="--checkpoint $ckdir/bfck-@.ckpt --checkpoint-interval 1s" ;;
	txn) f="--transactional-id $base-@" ;;
	*) echo "unknown variant $v" >&2; exit 2 ;;
	esac
	if [ "$v" = floor ]; then names+=(floor); bins+=(floor); flags+=(""); continue; fi
	if [ -n "$BASE" ]; then names+=("old-$v"); bins+=("$work/offsetctl-old"); flags+=("$f"); fi
	names+=("$v"); bins+=("$work/offsetctl"); flags+=("$f")
done
for n in "${names[@]}"; do
	echo 0 >"$work/n-$n"
	for i in $(seq 0 $((RUNS - 1))); do
		topics+=("$base-$n-$i")
		"$work/replaygen" -brokers "$B" -topic "$base-$n-$i" -n 0 -partitions "$PARTITIONS" 2>/dev/null
	done
done

# One command per variant: the next target topic of the variant (a counter
# file), a fresh checkpoint or transactional id, the copy, the check. The
# bookkeeping is a few milliseconds of shell.
args=()
for k in "${!names[@]}"; do
	n=${names[$k]}; f=${flags[$k]//@/$n-\$i}
	pre="i=\$(cat $work/n-$n); echo \$((i + 1)) >$work/n-$n; rm -f $ckdir/bfck-$n-*.ckpt;"
	if [ "$n" = floor ]; then
		args+=("$n" "$pre $work/floor -brokers $B -topic $src -copy-to $base-$n-\$i 2>$work/e-$n && grep -qx 'acknowledged $N' $work/e-$n")
	else
		args+=("$n" "$pre ${bins[$k]} -b $B --audit-log $work/audit.jsonl -o json replay $src --produce-to $base-$n-\$i --format none -q --no-verify $f >$work/o-$n && grep -q '\"produced\": $N,' $work/o-$n && grep -q '\"complete\": true' $work/o-$n")
	fi
done
"$root/bench/interleave.sh" "$RUNS" "${args[@]}" >"$work/table"

# Every target holds exactly N records.
for n in "${names[@]}"; do
	for i in $(seq 0 $((RUNS - 1))); do
		got=$("$work/offsetctl" -b "$B" --audit-log "$work/audit.jsonl" -o json replay "$base-$n-$i" --format none -q --no-verify |
			sed -n 's/^ *"records": \([0-9]*\),*$/\1/p' | head -1)
		[ "$got" = "$N" ] || { echo "target $base-$n-$i holds $got records, want $N" >&2; exit 1; }
	done
done
echo
echo "broker: $where; $N records of $SIZE bytes over $PARTITIONS partitions; checkpoints in $ckdir ($(df -P "$ckdir" | awk 'NR==2 {print $1}')); $RUNS interleaved runs each; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "every run validated (produced $N, complete) and every target read back: $N records each"
echo
cat "$work/table"
