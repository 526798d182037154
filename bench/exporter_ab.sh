#!/usr/bin/env bash
# Two offsetctl binaries' exporters (A and B: e.g. before and after a change)
# in interleaved rounds on the same broker: time from start to the first
# scrape holding lag series (one gather), three scrape latencies, the series
# served and the process' peak RSS (VmHWM) after them.
#
#   bench/exporter_ab.sh BROKERS RUNS BINARY_A BINARY_B
#
# Needs curl; PORT (default 19950) is where each exporter listens in turn. The broker's groups are the load (e.g. exporter/bench_test.go's
# 500 groups x 1,000 partitions, left by BenchmarkExporterGather).
set -euo pipefail
B=$1; runs=${2:-5}; bins=("$3" "$4")
[ "$runs" -ge 5 ] || { echo "RUNS must be at least 5" >&2; exit 2; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
for r in $(seq "$runs"); do
  for v in A B; do
    bin=${bins[0]}; [ "$v" = B ] && bin=${bins[1]}
    port=${PORT:-19950}
    "$bin" -b "$B" exporter --listen 127.0.0.1:$port --interval 60s --time-lag=false --timeout 120s 2>/dev/null &
    pid=$!
    start=$(date +%s.%N)
    until curl -sf -o "$work/probe" http://127.0.0.1:$port/metrics 2>/dev/null && grep -q '^kafka_consumergroup_lag{' "$work/probe"; do sleep 0.5; done
    ready=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
    lat=""
    for i in 1 2 3; do
      t=$(curl -s -o "$work/body" -w '%{time_total}' http://127.0.0.1:$port/metrics); lat="$lat $t"
    done
    lines=$(grep -vc '^#' "$work/body")
    hwm=$(awk '/VmHWM/ {print int($2/1024)}' /proc/$pid/status)
    kill $pid; wait $pid 2>/dev/null || true
    echo "$v round=$r ready_s=$ready scrapes_s=$lat series=$lines hwm_MiB=$hwm"
  done
done
