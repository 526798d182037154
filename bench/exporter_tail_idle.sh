#!/usr/bin/env bash
# bench/exporter_tail_idle.sh, inside /work/bin/broker-slot: CPU of the offsets-topic tail alone: one exporter with --interval 10m (one gather at start, none
# after), under the same fleet and commit load; CPU over 45 s after its first complete gather.
#
# Default: offsets-topic, poll, offsets-topic, poll with offsetctl built from this worktree.
# OLD=/path/to/offsetctl: an A/B of the tail instead, offsets-topic with this worktree's build ("new")
# then with OLD ("old"), RUNS times (default 3), alternately.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd); w=$(mktemp -d); gen=""
trap '[ -n "$gen" ] && kill $gen; "$root/scripts/kafka.sh" stop; rm -rf $w' EXIT
cd "$root"; go build -o $w/oc . && go build -o $w/laggen ./bench/laggen && go build -o $w/cg ./bench/commitgen
scripts/kafka.sh start >/dev/null; B=127.0.0.1:$KAFKA_PORT
listen=127.0.0.1:$((KAFKA_PORT + 64))
"$w/laggen" -brokers $B -topic tail-bench -prefix tail-bench -partitions 1000 -groups 500
$w/cg -brokers $B -topic tail-bench -prefix tail-bench -report 30s >$w/g.out 2>$w/g.err & gen=$!
sleep 30
sides="new:offsets-topic new:poll new:offsets-topic new:poll"
if [ -n "${OLD:-}" ]; then
  cp "$OLD" $w/oc.old; sides=""
  for _ in $(seq "${RUNS:-3}"); do sides="$sides new:offsets-topic old:offsets-topic"; done
fi
for side in $sides; do
  bin=$w/oc; [ "${side%%:*}" = old ] && bin=$w/oc.old; src=${side#*:}
  $bin -b $B exporter --listen $listen --interval 10m --time-lag=false --commit-source $src 2>/dev/null & p=$!
  until curl -s $listen/metrics 2>/dev/null | grep '^offsetctl_last_gather_timestamp_seconds' >/dev/null; do sleep 0.5; done
  sleep 10
  l0=$(cut -d' ' -f1 /proc/loadavg)
  a=$(awk '{sub(/^.*\) /,""); print $12+$13}' /proc/$p/stat); sleep 45; b=$(awk '{sub(/^.*\) /,""); print $12+$13}' /proc/$p/stat)
  echo "${side%%:*} $src idle: $(awk -v a=$a -v b=$b 'BEGIN{printf "%.3f", (b-a)/100/45}') CPU s per s; $(awk -v a=$a -v b=$b 'BEGIN{printf "%.2f", (b-a)/100/3}') per 15 s; load $l0-$(cut -d' ' -f1 /proc/loadavg); VmHWM $(awk '/VmHWM/{print int($2/1024)}' /proc/$p/status) MiB"
  kill $p; wait $p 2>/dev/null || true
done
cat $w/g.err | tail -2
