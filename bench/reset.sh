#!/usr/bin/env bash
# reset --execute over one group x 10,000 partitions against Apache's
# kafka-consumer-groups --reset-offsets --execute, interleaved on the same broker in one run.
#
#   BROKERS=127.0.0.1:24092 bench/reset.sh
#
# Each tool resets its own group (same commits, same names' length), alternating --to earliest and
# --to latest so that every run moves every offset. Env: TOPICS (10), PARTITIONS (1000 per topic:
# KRaft refuses 10,000 in one CreateTopics), RUNS (>= 5, default 5), LOAD=0 to reuse a loaded
# broker, KAFKA_SH (scripts/kafka.sh).
set -euo pipefail
TOPICS=${TOPICS:-10}; PARTITIONS=${PARTITIONS:-1000}; RUNS=${RUNS:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
KAFKA_SH=${KAFKA_SH:-$root/scripts/kafka.sh}
: "${BROKERS:?set BROKERS to a real broker, the Apache tool needs one}"
B=$BROKERS
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/offsetctl" . && go build -o "$work/laggen" ./bench/laggen)
if [ "${LOAD:-1}" != 0 ]; then
	for t in $(seq "$TOPICS"); do
		# Group rst-o-0000 for offsetctl, rst-a-0000 for Apache: one record per partition.
		"$work/laggen" -brokers "$B" -topic "rst-$t" -prefix rst-o -partitions "$PARTITIONS" -groups 1 -records 1
		"$work/laggen" -brokers "$B" -topic "rst-$t" -prefix rst-a -partitions "$PARTITIONS" -groups 1 -records 1 -create=false
	done
fi
# Each command flips its own target, so every run moves every offset.
cat >"$work/ours" <<SH
if [ -e "$work/o.earliest" ]; then rm "$work/o.earliest"; to=latest; else touch "$work/o.earliest"; to=earliest; fi
exec "$work/offsetctl" -b "$B" reset rst-o-0000 --all-topics --to "\$to" --execute --backup "$work/o-\$RANDOM\$RANDOM.csv" --timeout 60s
SH
cat >"$work/apache" <<SH
if [ -e "$work/a.earliest" ]; then rm "$work/a.earliest"; to=--to-latest; else touch "$work/a.earliest"; to=--to-earliest; fi
exec bash "$KAFKA_SH" consumer-groups --bootstrap-server "$B" --reset-offsets --group rst-a-0000 --all-topics "\$to" --execute
SH
load=$(cut -d ' ' -f 1-3 /proc/loadavg)
echo "broker: Apache Kafka at $B; one group x $((TOPICS * PARTITIONS)) partitions; $(nproc) cores; load $load"
echo
"$root/bench/interleave.sh" "$RUNS" offsetctl-reset "bash $work/ours" apache-reset "bash $work/apache"
