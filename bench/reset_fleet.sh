#!/usr/bin/env bash
# bench/reset_fleet.sh - `offsetctl reset -r PATTERN --all-topics --execute` over many groups (one
# transaction per group), interleaved with the same command built from another commit (BASE, default
# main) and with Apache's `kafka-consumer-groups --reset-offsets --group G1 --group G2 ... --execute`:
# this build, BASE, Apache, this build, BASE, Apache, ... RUNS rounds. Every run is checked: exit
# code, Apache's output (it exits 0 when its commit fails, printing "Error: ..."), and a read-back of
# every group's offsets with `offsetctl lag -o json` (every partition of every group at the run's
# target). Whole commands, JVM start included, timed with /usr/bin/time (wall seconds, peak RSS).
#
#   BROKERS=127.0.0.1:22092 NGROUPS=20 PARTITIONS=100 RUNS=5 bench/reset_fleet.sh
#   BROKERS=127.0.0.1:22092 NGROUPS=500 PARTITIONS=100 RUNS=5 bench/reset_fleet.sh
#
# Env: NGROUPS (20; not GROUPS, which bash reserves), PARTITIONS (100, one topic; 2 records each), RUNS (>= 5, default 5), BASE (a git
# ref to compare with, default main; BASE= to skip), APACHE (1; 0 to skip), PARALLEL (unset: the
# default --parallel-groups, 16), PARALLEL_B (a second --parallel-groups for this build, run as one
# more interleaved contender), KAFKA_SH (scripts/kafka.sh). The targets alternate run by run
# (latest, earliest, ...) so every run moves every offset. offsetctl's defaults otherwise: the
# transactional path (no --non-atomic), --timeout 30s raised to 120s for the slowest runs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
: "${BROKERS:?set BROKERS=host:port of a private broker}"
B=$BROKERS
NG=${NGROUPS:-20}; NP=${PARTITIONS:-100}; RUNS=${RUNS:-5}; BASE=${BASE-main}; APACHE=${APACHE:-1}
KAFKA_SH=${KAFKA_SH:-$root/scripts/kafka.sh}
P=rfl$NG
T=$P-t
work=$(mktemp -d)
(cd "$root" && go build -o "$work/offsetctl" . && go build -o "$work/laggen" ./bench/laggen)
if [ -n "$BASE" ]; then
	mkdir "$work/base"
	git -C "$root" archive "$BASE" | tar -x -C "$work/base"
	(cd "$work/base" && go build -o "$work/offsetctl-base" .)
fi
cleanup() { "$work/laggen" -brokers "$B" -topic "$T" -prefix "$P" -groups "$NG" -delete >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
"$work/laggen" -brokers "$B" -topic "$T" -prefix "$P" -partitions "$NP" -groups "$NG" -records 2 >/dev/null
groups=(); for g in $(seq 0 $((NG - 1))); do groups+=("$(printf '%s-%04d' "$P" "$g")"); done
apache_groups=""; for g in "${groups[@]}"; do apache_groups+=" --group $g"; done
par=""; [ -n "${PARALLEL:-}" ] && par="--parallel-groups $PARALLEL"

# check TO: every partition of every group committed at TO's offset (0 earliest, 2 latest), read
# back with offsetctl lag -o json. Not timed.
check() {
	"$work/offsetctl" -b "$B" lag -r "$P-.*" -o json --timeout 120s | python3 -c '
import json,sys
want=int(sys.argv[1]); n=int(sys.argv[2]); d=json.load(sys.stdin)
gs=d["groups"] if isinstance(d,dict) else d
ok=sum(1 for g in gs for p in g.get("partitions",[]) if p.get("committed")==want)
if ok!=n: sys.exit(f"read-back: {ok} of {n} partitions at {want}")' "$1" $((NG * NP))
}
# run NAME TO: one timed run, then its checks; the target alternates run by run, so every run
# (whoever runs it) moves every offset.
run() {
	local name=$1 to=$2 off=0 rc=0
	[ "$to" = latest ] && off=2
	case $name in
	offsetctl) /usr/bin/time -f '%e %M' -o "$work/t" "$work/offsetctl" -b "$B" reset -r "$P-.*" --all-topics --to "$to" --execute $par --backup "$work/b-$RANDOM$RANDOM.csv" --timeout 120s >/dev/null 2>"$work/err" || rc=$? ;;
	par) /usr/bin/time -f '%e %M' -o "$work/t" "$work/offsetctl" -b "$B" reset -r "$P-.*" --all-topics --to "$to" --execute --parallel-groups "$PARALLEL_B" --backup "$work/b-$RANDOM$RANDOM.csv" --timeout 120s >/dev/null 2>"$work/err" || rc=$? ;;
	base) /usr/bin/time -f '%e %M' -o "$work/t" "$work/offsetctl-base" -b "$B" reset -r "$P-.*" --all-topics --to "$to" --execute --backup "$work/b-$RANDOM$RANDOM.csv" --timeout 120s >/dev/null 2>"$work/err" || rc=$? ;;
	apache) # shellcheck disable=SC2086
		/usr/bin/time -f '%e %M' -o "$work/t" bash "$KAFKA_SH" consumer-groups --bootstrap-server "$B" --reset-offsets $apache_groups --all-topics --to-"$to" --execute >"$work/err" 2>&1 || rc=$?
		if grep -q "Error" "$work/err"; then rc=1; fi ;;
	esac
	if [ "$rc" != 0 ]; then echo "$name run failed (exit $rc):" >&2; tail -5 "$work/err" >&2; exit 1; fi
	check "$off" || { echo "$name run to $to not verified" >&2; exit 1; }
	echo "$name $(cat "$work/t")" >>"$work/runs"
	echo "$name to $to: $(cut -d ' ' -f 1 "$work/t")s, verified" >&2
}
names=(offsetctl)
[ -n "${PARALLEL_B:-}" ] && names+=(par)
[ -n "$BASE" ] && names+=(base)
[ "$APACHE" = 1 ] && names+=(apache)
echo "broker: Apache Kafka at $B; $NG groups x $NP partitions; $(nproc) cores; load $(cut -d ' ' -f 1-3 /proc/loadavg); --parallel-groups ${PARALLEL:-default (16)}; base: ${BASE:-none}"
# One untimed warm-up run: the first transaction on a fresh broker creates __transaction_state
# (about 1.3 s once per cluster, not per run).
run offsetctl latest && : >"$work/runs"
# The order rotates round by round (A B C, B C A, C A B, ...): in a fixed order one command always
# ran right after Apache's 10 s JVM run, while the broker was still busy with its aftermath, and was
# measured 3.45 s against 2.26 s without Apache in the rounds (500 groups, 2026-12-03).
k=1
for r in $(seq "$RUNS"); do
	for i in "${!names[@]}"; do
		n=${names[$(((i + r - 1) % ${#names[@]}))]}
		to=latest; [ $((k % 2)) = 1 ] && to=earliest; k=$((k + 1))
		run "$n" "$to"
	done
done
python3 - "$work/runs" "$BASE" "${PARALLEL_B:-}" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    n, s, kb = line.split(); runs.setdefault(n, []).append((float(s), int(kb)))
label = {"par": f"offsetctl (this build) --parallel-groups {sys.argv[3]}", "offsetctl": "offsetctl (this build)", "base": f"offsetctl ({sys.argv[2]})", "apache": "kafka-consumer-groups"}
print("| command | runs | min s | median s | peak RSS MiB | every run, s |")
print("|---|---|---|---|---|---|")
for n, rs in runs.items():
    ts = [s for s, _ in rs]
    print(f"| {label[n]} | {len(ts)} | {min(ts):.2f} | {statistics.median(ts):.2f} | {max(k for _, k in rs)/1024:.0f} | {', '.join(f'{t:.2f}' for t in ts)} |")
me = statistics.median(s for s, _ in runs["offsetctl"])
for n in runs:
    if n != "offsetctl":
        print(f"\nratio of medians, {label[n]} / this build: {statistics.median(s for s, _ in runs[n]) / me:.1f}x")
PY
