#!/usr/bin/env bash
# bench/exporter_tail_idle.sh, inside /work/bin/broker-slot: CPU of the offsets-topic tail alone: one exporter with --interval 10m (one gather at start, none
# after), under the same fleet and commit load; CPU over 45 s after its first complete gather.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd); w=$(mktemp -d); gen=""
trap '[ -n "$gen" ] && kill $gen; "$root/scripts/kafka.sh" stop; rm -rf $w' EXIT
cd "$root"; go build -o $w/oc . && go build -o $w/laggen ./bench/laggen && go build -o $w/cg ./bench/commitgen
scripts/kafka.sh start >/dev/null; B=127.0.0.1:$KAFKA_PORT
"$w/laggen" -brokers $B -topic tail-bench -prefix tail-bench -partitions 1000 -groups 500
$w/cg -brokers $B -topic tail-bench -prefix tail-bench -report 30s >$w/g.out 2>$w/g.err & gen=$!
sleep 30
for src in offsets-topic poll offsets-topic poll; do
  $w/oc -b $B exporter --listen 127.0.0.1:19964 --interval 10m --time-lag=false --commit-source $src 2>/dev/null & p=$!
  until curl -s 127.0.0.1:19964/metrics 2>/dev/null | grep '^offsetctl_last_gather_timestamp_seconds' >/dev/null; do sleep 0.5; done
  sleep 10
  a=$(awk '{sub(/^.*\) /,""); print $12+$13}' /proc/$p/stat); sleep 45; b=$(awk '{sub(/^.*\) /,""); print $12+$13}' /proc/$p/stat)
  echo "$src idle: $(awk -v a=$a -v b=$b 'BEGIN{printf "%.3f", (b-a)/100/45}') CPU s per s; $(awk -v a=$a -v b=$b 'BEGIN{printf "%.2f", (b-a)/100/3}') per 15 s; load $(cut -d' ' -f1 /proc/loadavg); VmHWM $(awk '/VmHWM/{print int($2/1024)}' /proc/$p/status) MiB"
  kill $p; wait $p 2>/dev/null || true
done
cat $w/g.err | tail -2
