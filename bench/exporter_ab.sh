#!/usr/bin/env bash
# Two exporters (A and B: e.g. offsetctl before and after a change, or
# offsetctl and kafka_exporter) in interleaved rounds on the same broker:
# time from start to the first scrape holding lag series (one gather), then
# SCRAPES scrape latencies, the series served and the process' peak RSS
# (VmHWM) after them.
#
#   bench/exporter_ab.sh BROKERS RUNS BINARY_A BINARY_B
#
# Needs curl. Environment:
#   PORT      where each exporter listens in turn (default 19950)
#   INTERVAL  offsetctl's --interval (default 60s: the scrapes see one gather)
#   SETTLE    seconds each exporter keeps running after its first page
#             before the scrapes (default 0; with INTERVAL=5s and SETTLE=30
#             the scrapes and the peak include gathers back to back)
#   SCRAPES   scrapes per round after the first page (default 3; 0: the
#             first page only, e.g. for an exporter that takes minutes)
#   KEEP      a directory to keep each side's last scraped page in (A.prom, B.prom)
#   OC_ARGS   extra arguments for offsetctl's exporter (e.g. --regex 'x-0[0-4].')
#   KE_FLAGS  extra flags for kafka_exporter
# A binary whose file name starts with kafka_exporter is run with that
# exporter's flags (--kafka.server, --web.listen-address, KE_FLAGS); it reads
# Kafka at each scrape, so INTERVAL and SETTLE do not apply to it.
# The broker's groups are the load (e.g. exporter/bench_test.go's 500 groups
# x 1,000 partitions, left by BenchmarkExporterGather).
set -euo pipefail
B=$1; runs=${2:-5}; bins=("$3" "$4")
[ "$runs" -ge 5 ] || { echo "RUNS must be at least 5" >&2; exit 2; }
port=${PORT:-19950}; interval=${INTERVAL:-60s}; settle=${SETTLE:-0}; scrapes=${SCRAPES:-3}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
for r in $(seq "$runs"); do
  for v in A B; do
    bin=${bins[0]}; [ "$v" = B ] && bin=${bins[1]}
    wait_s=$settle
    # shellcheck disable=SC2086 # OC_ARGS and KE_FLAGS are split into arguments
    case $(basename "$bin") in
      kafka_exporter*)
        wait_s=0
        "$bin" --kafka.server="$B" --web.listen-address=127.0.0.1:$port ${KE_FLAGS:-} >/dev/null 2>&1 & ;;
      *)
        "$bin" -b "$B" exporter --listen 127.0.0.1:$port --interval "$interval" --time-lag=false --timeout 120s ${OC_ARGS:-} 2>/dev/null & ;;
    esac
    pid=$!
    start=$(date +%s.%N)
    until curl -sf -o "$work/probe" http://127.0.0.1:$port/metrics 2>/dev/null && grep -q '^kafka_consumergroup_lag{' "$work/probe"; do sleep 0.5; done
    ready=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
    sleep "$wait_s"
    lat=""
    for i in $(seq "$scrapes"); do
      t=$(curl -s -o "$work/body" -w '%{time_total}' http://127.0.0.1:$port/metrics); lat="$lat $t"
    done
    [ "$scrapes" -gt 0 ] || cp "$work/probe" "$work/body" # SCRAPES=0: the first page only
    lines=$(grep -vc '^#' "$work/body")
    hwm=$(awk '/VmHWM/ {print int($2/1024)}' /proc/$pid/status)
    kill $pid; wait $pid 2>/dev/null || true
    if [ -n "${KEEP:-}" ]; then cp "$work/body" "$KEEP/$v.prom"; fi
    echo "$v round=$r ready_s=$ready scrapes_s=$lat series=$lines hwm_MiB=$hwm"
  done
done
