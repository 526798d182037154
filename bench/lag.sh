#!/usr/bin/env bash
# lag --all-groups against Apache's kafka-consumer-groups --describe --all-groups,
# interleaved on the same broker in one run, and offsetctl's peak RSS per format.
#
#   BROKERS=127.0.0.1:24092 bench/lag.sh        # a real broker (Apache's tool needs one)
#   bench/lag.sh                                # kfake (offsetctl playground): offsetctl only
#
#   BY=topic GROUPS_N=500 bench/lag.sh         # the --by topic roll-up against the plain report
#
# Env: GROUPS_N (default 100), PARTITIONS (1000), RUNS (>= 5, default 5), LOAD=0 to reuse groups
# loaded before (prefix lag-bench), APACHE=0 to leave Apache's tool out (it takes minutes over
# 500,000 rows), PORT (kfake port, 28492), KAFKA_SH (scripts/kafka.sh).
# The broker should hold no other groups: --all-groups covers every group on it.
set -euo pipefail
GROUPS_N=${GROUPS_N:-100}; PARTITIONS=${PARTITIONS:-1000}; RUNS=${RUNS:-5}; PORT=${PORT:-28492}
root=$(cd "$(dirname "$0")/.." && pwd)
KAFKA_SH=${KAFKA_SH:-$root/scripts/kafka.sh}
work=$(mktemp -d); pg=""
cleanup() {
	if [ -n "$pg" ]; then kill "$pg" 2>/dev/null || true; wait "$pg" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
(cd "$root" && go build -o "$work/offsetctl" . && go build -o "$work/laggen" ./bench/laggen)
if [ -n "${BROKERS:-}" ]; then
	B=$BROKERS; where="Apache Kafka at $B"
else
	"$work/offsetctl" playground --listen "127.0.0.1:$PORT" --empty >"$work/pg.log" 2>&1 &
	pg=$!; B="127.0.0.1:$PORT"; where="kfake (offsetctl playground) at $B"
	for _ in $(seq 300); do grep -q brokers "$work/pg.log" 2>/dev/null && break; sleep 0.1; done
fi
if [ "${LOAD:-1}" != 0 ]; then
	"$work/laggen" -brokers "$B" -topic "lag-bench-$GROUPS_N" -prefix lag-bench -partitions "$PARTITIONS" -groups "$GROUPS_N"
fi
rows=$("$work/offsetctl" -b "$B" lag --all-groups -o csv | tail -n +2 | wc -l)
echo "broker: $where; $rows rows (groups x partitions) in lag --all-groups; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
if [ -n "${BY:-}" ]; then
	# The roll-up and the plain report in one interleaved run: same gathering,
	# so the difference is building and writing the report.
	"$root/bench/interleave.sh" "$RUNS" \
		plain-json "$work/offsetctl -b $B lag --all-groups -o json --timeout 300s" \
		"by-$BY-json" "$work/offsetctl -b $B lag --all-groups --by $BY -o json --timeout 300s" \
		plain-table "$work/offsetctl -b $B lag --all-groups --timeout 300s" \
		"by-$BY-table" "$work/offsetctl -b $B lag --all-groups --by $BY --timeout 300s"
	exit 0
fi
set -- offsetctl-json "$work/offsetctl -b $B lag --all-groups -o json --timeout 120s"
if [ -n "${BROKERS:-}" ] && [ "${APACHE:-1}" != 0 ]; then
	set -- "$@" apache-describe "bash $KAFKA_SH consumer-groups --bootstrap-server $B --describe --all-groups"
fi
"$root/bench/interleave.sh" "$RUNS" "$@"
echo
echo "offsetctl peak RSS per format:"
"$root/bench/interleave.sh" "$RUNS" \
	json "$work/offsetctl -b $B lag --all-groups -o json --timeout 120s" \
	csv "$work/offsetctl -b $B lag --all-groups -o csv --timeout 120s" \
	table "$work/offsetctl -b $B lag --all-groups --timeout 120s"
