#!/usr/bin/env bash
# bench/tailprof/ab.sh OLD_TAILPROF [RUNS], inside /work/bin/broker-slot: the tail alone (tailprof) of
# OLD_TAILPROF and of this worktree's build, alternately old, new, RUNS times each (default 5), on
# Apache Kafka under bench/exporter_tail.md's fleet (500 groups x 1,000 partitions) and commitgen load
# (the 50 busy groups commit all 1,000 partitions every second). Each run: warm-up, SETTLE (5s), then
# FOR (30s) measured; one tailprof line per run, prefixed by its side and the load average. PROF=DIR
# writes each run's CPU profile there (old-1.prof, new-1.prof, ...).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd); w=$(mktemp -d); gen=""
trap '[ -n "$gen" ] && kill $gen; "$root/scripts/kafka.sh" stop; rm -rf $w' EXIT
cd "$root"; cp "$1" $w/tp.old; go build -o $w/tp.new ./bench/tailprof
go build -o $w/laggen ./bench/laggen && go build -o $w/cg ./bench/commitgen
scripts/kafka.sh start >/dev/null; B=127.0.0.1:$KAFKA_PORT
"$w/laggen" -brokers $B -topic tail-bench -prefix tail-bench -partitions 1000 -groups 500
$w/cg -brokers $B -topic tail-bench -prefix tail-bench -report 30s >$w/g.out 2>$w/g.err & gen=$!
sleep 30
for i in $(seq "${2:-5}"); do
  for side in old new; do
    l0=$(cut -d' ' -f1 /proc/loadavg)
    prof=(); [ -n "${PROF:-}" ] && prof=(-cpuprofile "$PROF/$side-$i.prof")
    out=$(nice $w/tp.$side -brokers $B -settle "${SETTLE:-5s}" -for "${FOR:-30s}" "${prof[@]}")
    echo "$side load $l0-$(cut -d' ' -f1 /proc/loadavg) $out"
  done
done
tail -3 $w/g.err
