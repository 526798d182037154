#!/usr/bin/env bash
# Exporter configurations (A and B by default: e.g. --commit-source poll and
# --commit-source offsets-topic) in interleaved runs A, B, A, B, ... on one
# Apache Kafka broker holding a fleet of GROUPS_N groups x PARTITIONS
# partitions (bench/laggen) while bench/commitgen commits on a tenth of the
# group-partitions every second and appends records so log ends move.
#
#   /work/bin/broker-slot bench/exporter_tail.sh [RUNS]     # starts and stops the slot's broker
#   BROKERS=127.0.0.1:PORT bench/exporter_tail.sh [RUNS]    # a broker already up (not stopped)
#
# Per run: warm-up (start to the first complete gather), then WARM rounds
# skipped, then ROUNDS rounds measured: each round's gather duration
# (offsetctl_gather_duration_seconds, read by a partial scrape just before
# the next round starts), CPU seconds per round (utime+stime of the
# exporter from /proc/PID/stat over the ROUNDS intervals, / ROUNDS), peak
# RSS (VmHWM after the rounds, before the validation scrape), then one full
# scrape validated against the generator: kafka_consumergroup_lag series =
# GROUPS_N x PARTITIONS, no negative lag, committed offsets and lag of the
# committing group-partitions recent, of the idle ones exactly what laggen
# committed, log ends recent. Prints one line per run and a summary.
#
# Environment (defaults in brackets):
#   SIDES             the configurations, run in this order each round [A B]
#   BIN_<S>, <S>_ARGS offsetctl binary and extra exporter arguments of side S
#                     [this worktree's offsetctl, built; none]
#   INTERVAL          --interval [15s, the exporter's default]
#   TIME_LAG          on (the default) or off (--time-lag=false) [on]
#   WARM, ROUNDS      rounds skipped after warm-up, rounds measured [2, 6]
#   GROUPS_N, PARTITIONS, MODE, STRIDE, RECORDS   the fleet and commitgen's load [500, 1000, groups, 10, 1]
#   NICE              niceness of commitgen [0]
#   LOAD              0: reuse the fleet of an earlier run on BROKERS [1]
#   PORT              the exporters' listen port [19960]
#   KEEP              directory to keep each run's page, lines and logs in
set -euo pipefail
RUNS=${1:-5}
# FEWER=1: fewer than 5 runs, only to complete an interrupted session (say so).
[ "$RUNS" -ge 5 ] || [ "${FEWER:-0}" = 1 ] || { echo "RUNS must be at least 5" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
INTERVAL=${INTERVAL:-15s}; TIME_LAG=${TIME_LAG:-on}; WARM=${WARM:-2}; ROUNDS=${ROUNDS:-6}
GROUPS_N=${GROUPS_N:-500}; PARTITIONS=${PARTITIONS:-1000}; MODE=${MODE:-groups}; STRIDE=${STRIDE:-10}; RECORDS=${RECORDS:-1}
PORT=${PORT:-19960}; NICE=${NICE:-0}
topic=tail-bench; prefix=tail-bench
ival=$(awk -v s="$INTERVAL" 'BEGIN { if (s ~ /ms$/) print s / 1000; else if (s ~ /m$/) print s * 60; else print s + 0 }')
eps=$(awk -v i="$ival" 'BEGIN { e = i / 10; if (e > 0.5) e = 0.5; print e }')
tck=$(getconf CLK_TCK)
work=$(mktemp -d); gen=""; exp=""; started=""
cleanup() {
	if [ -n "$exp" ]; then kill "$exp" 2>/dev/null || true; wait "$exp" 2>/dev/null || true; fi
	if [ -n "$gen" ]; then kill "$gen" 2>/dev/null || true; wait "$gen" 2>/dev/null || true; fi
	if [ -n "${KEEP:-}" ]; then cp "$work/gen.out" "$work/gen.err" "$KEEP/" 2>/dev/null || true; fi
	if [ -n "$started" ]; then "$root/scripts/kafka.sh" stop || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
log() { echo "exporter_tail: $*" >&2; }

(cd "$root" && go build -o "$work/offsetctl" . && go build -o "$work/laggen" ./bench/laggen && go build -o "$work/commitgen" ./bench/commitgen)
SIDES=${SIDES:-A B}
for v in $SIDES; do
	[[ $v =~ ^[A-Za-z][A-Za-z0-9]*$ ]] || { echo "SIDES: names of letters and digits" >&2; exit 2; }
	b=BIN_$v; [ -n "${!b:-}" ] || printf -v "$b" %s "$work/offsetctl"
done
if [ -z "${BROKERS:-}" ]; then
	[ -n "${KAFKA_PORT:-}" ] || { echo "run inside /work/bin/broker-slot, or set BROKERS" >&2; exit 2; }
	"$root/scripts/kafka.sh" start >/dev/null; started=1
	BROKERS=127.0.0.1:$KAFKA_PORT
fi
B=$BROKERS
if [ "${LOAD:-1}" != 0 ]; then
	t0=$(date +%s)
	"$work/laggen" -brokers "$B" -topic "$topic" -prefix "$prefix" -partitions "$PARTITIONS" -groups "$GROUPS_N"
	log "fleet of $GROUPS_N groups x $PARTITIONS partitions committed in $(( $(date +%s) - t0 )) s"
fi
nice -n "$NICE" "$work/commitgen" -brokers "$B" -topic "$topic" -prefix "$prefix" -groups "$GROUPS_N" \
	-partitions "$PARTITIONS" -mode "$MODE" -stride "$STRIDE" -records "$RECORDS" -report 60s \
	-status "$work/status" >"$work/gen.out" 2>"$work/gen.err" &
gen=$!
sleep 10
[ -s "$work/status" ] || { log "commitgen wrote no status"; cat "$work/gen.err" >&2; exit 1; }
tl=(); [ "$TIME_LAG" = off ] && tl=(--time-lag=false)
log "broker $B ($("$root/scripts/kafka.sh" version 2>/dev/null || echo ?)); $(nproc) cores; exporter --interval $INTERVAL, time lag $TIME_LAG, every other setting its default; $WARM rounds skipped after warm-up, $ROUNDS measured; commitgen -mode $MODE -stride $STRIDE -records $RECORDS, nice $NICE"

now() { date +%s.%N; }
sleep_until() { local d; d=$(awk -v t="$1" -v n="$(now)" 'BEGIN { d = t - n; print (d > 0 ? d : 0) }'); sleep "$d"; }
# probe: the gather's health from the head of a scrape (curl stops once awk
# has the offsetctl_* lines): last complete gather's time, its duration,
# failed gathers, time-lag reads missed. Empty fields until the first gather.
probe() {
	curl -s -m 10 "http://127.0.0.1:$PORT/metrics" 2>/dev/null | awk '
		/^offsetctl_last_gather_timestamp_seconds / { t = $2 + 0 }
		/^offsetctl_gather_duration_seconds / { d = $2 + 0 }
		/^offsetctl_gather_errors_total / { e = $2 + 0 }
		/^offsetctl_gather_time_lag_missed / { m = $2 + 0 }
		/^kafka_/ { exit }
		END { printf "%.3f %.3f %d %d\n", t, d, e, m }' || true
}
cpu() { awk -v tck="$tck" '{ sub(/^.*\) /, ""); printf "%.2f\n", ($12 + $13) / tck }' "/proc/$1/stat"; }

# validate PAGE STATUS_BEFORE STATUS_AFTER: prints "lag_series=N bad=N" and
# the first few violations to stderr.
validate() {
	read -r _ e0 _ c0 <"$2"; read -r _ _ e1 _ <"$3"
	awk -F'"' -v n_exp=$((GROUPS_N * PARTITIONS)) -v prefix="$prefix-" -v topic="$topic" -v mode="$MODE" \
		-v stride="$STRIDE" -v e0="$e0" -v e1="$e1" -v c0="$c0" -v rec="$RECORDS" -v slack=$(awk -v i="$ival" -v r="$RECORDS" 'BEGIN { print int(r * (i + 10)) }') '
		function val() { v = $NF; sub(/^[^ ]* /, "", v); return v + 0 }
		function bad(why) { nbad++; if (nbad <= 5) print "  invalid: " why ": " $0 > "/dev/stderr" }
		function active(g, p) { return mode == "groups" ? g % stride == 0 : p % stride == g % stride }
		/^kafka_topic_partition_current_offset\{/ && $0 ~ "topic=\"" topic "\"" {
			p = $2 + 0; x = val(); ends++
			# + rec: the broker may have appended the records of a tick that commitgen
			# has not yet had acknowledged (and written to its status).
			if (x < e0 - slack || x > e1 + rec) bad("log end not within " slack " records of commitgen end " e0 "-" e1)
		}
		/^kafka_consumergroup_(lag|current_offset)\{/ {
			if (index($2, prefix) != 1) next
			g = substr($2, length(prefix) + 1) + 0; p = $4 + 0; x = val()
			if ($0 ~ /^kafka_consumergroup_lag\{/) { lag[g, p] = x; nlag++ } else off[g, p] = x
		}
		END {
			for (k in lag) {
				split(k, gp, SUBSEP); g = gp[1]; p = gp[2]; l = lag[k]; o = off[k]
				$0 = "group " g " partition " p " committed " o " lag " l
				if (!(k in off)) bad("lag without committed offset")
				else if (l < 0) bad("negative lag")
				else if (active(g, p)) {
					if (o < c0 - slack - 3 || o > e1) bad("committing group-partition: offset not within " slack " of commitgen " c0)
					else if (l > 3 + slack) bad("committing group-partition: lag above " 3 + slack)
				} else {
					if (o != (g + p) % 4) bad("idle group-partition: offset not laggen'"'"'s " (g + p) % 4)
					else if (o + l < e0 - slack || o + l > e1 + rec) bad("idle group-partition: offset + lag not a recent log end")
				}
			}
			printf "lag_series=%d ends=%d bad=%d\n", nlag, ends, nbad + (nlag != n_exp)
		}' "$1"
}

runs_file=$work/runs
for r in $(seq "$RUNS"); do
	for v in $SIDES; do
		b=BIN_$v; a=${v}_ARGS; bin=${!b}; args=${!a:-}
		load0=$(cut -d' ' -f1 /proc/loadavg)
		offs=$(du -sm "${KAFKA_WORKDIR:-/nonexistent}/data/" 2>/dev/null | cut -f1 || true)
		# shellcheck disable=SC2086 # the side's arguments are split
		"$bin" -b "$B" exporter --listen "127.0.0.1:$PORT" --interval "$INTERVAL" "${tl[@]}" $args 2>"$work/exp.err" &
		exp=$!
		start=$(now)
		first=""; deadline=$(awk -v s="$start" 'BEGIN { printf "%.3f", s + 900 }') # print would round to 6 digits
		while :; do
			read -r ts dur errs missed <<<"$(probe)"
			if [ -n "${ts:-}" ] && [ "$ts" != 0.000 ]; then first="$ts $dur"; break; fi
			kill -0 "$exp" 2>/dev/null || { log "$v exporter exited:"; tail -3 "$work/exp.err" >&2; exit 1; }
			awk -v d="$deadline" -v n="$(now)" 'BEGIN { exit !(n > d) }' && { log "$v: no complete gather in 900 s"; exit 1; }
			sleep 0.2
		done
		read -r ts dur <<<"$first"
		warm=$(awk -v s="$start" -v t="$ts" 'BEGIN { printf "%.2f", t - s }')
		tick0=$(awk -v t="$ts" -v d="$dur" 'BEGIN { printf "%.3f", t - d }')
		# Window boundaries just before round starts: rounds WARM+1 ..
		# WARM+ROUNDS after the first complete one.
		t1=$(awk -v t="$tick0" -v i="$ival" -v w="$WARM" -v e="$eps" 'BEGIN { printf "%.3f", t + (w + 1) * i - e }')
		sleep_until "$t1"
		read -r _ _ errs0 _ <<<"$(probe)"
		c1=$(cpu "$exp"); at1=$(now)
		durs=""; prev=""; missed_max=0; incomplete=0
		for k in $(seq "$ROUNDS"); do
			sleep_until "$(awk -v t="$t1" -v i="$ival" -v k="$k" 'BEGIN { printf "%.3f", t + k * i }')"
			if [ "$k" = "$ROUNDS" ]; then c2=$(cpu "$exp"); at2=$(now); fi
			read -r ts dur errs missed <<<"$(probe)"
			if [ "$ts" = "$prev" ] || awk -v t="$ts" -v a="$t1" 'BEGIN { exit !(t < a) }'; then
				incomplete=$((incomplete + 1))
			else
				durs="$durs $dur"
			fi
			prev=$ts; missed_max=$(( missed > missed_max ? missed : missed_max ))
		done
		hwm=$(awk '/VmHWM/ { print int($2 / 1024) }' "/proc/$exp/status")
		cp "$work/status" "$work/st0"
		curl -s -m 60 -o "$work/page" "http://127.0.0.1:$PORT/metrics"
		cp "$work/status" "$work/st1"
		kill "$exp"; wait "$exp" 2>/dev/null || true; exp=""
		failed=$((errs - errs0))
		val=$(validate "$work/page" "$work/st0" "$work/st1")
		if [ -n "${KEEP:-}" ]; then cp "$work/page" "$KEEP/$v-$r.prom"; cp "$work/exp.err" "$KEEP/$v-$r.err"; fi
		stats=$(echo "$durs" | tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END {
			if (NR == 0) { print "- - -"; exit }
			printf "%.3f %.3f %.3f", a[1], (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2), a[NR] }')
		read -r dmin dmed dmax <<<"$stats"
		cpr=$(awk -v a="$c1" -v b="$c2" -v n="$ROUNDS" 'BEGIN { printf "%.3f", (b - a) / n }')
		span=$(awk -v a="$at1" -v b="$at2" 'BEGIN { printf "%.1f", b - a }')
		line="$v run=$r warmup_s=$warm round_s_min=$dmin round_s_median=$dmed round_s_max=$dmax cpu_s_per_round=$cpr hwm_MiB=$hwm rounds_seen=$(echo "$durs" | wc -w) rounds_incomplete=$incomplete failed_gathers=$failed time_lag_missed_max=$missed_max window_s=$span $val load=$load0-$(cut -d' ' -f1 /proc/loadavg) data_MiB=${offs:-?} rounds_s=[${durs# }]"
		echo "$line"; echo "$line" >>"$runs_file"
		if [ -n "${KEEP:-}" ]; then echo "$line" >>"$KEEP/runs.txt"; fi
	done
done
kill -INT "$gen"; wait "$gen" 2>/dev/null || true; gen=""
log "$(cat "$work/gen.out")"
grep -v '^$' "$work/gen.err" | tail -3 >&2 || true
echo
# Summary: per side, min and median over runs of each run's median round,
# CPU per round and warm-up; peak RSS; ratios of medians of every pair.
awk -v order="$SIDES" '
	{ v = $1; n[v]++; for (i = 2; i <= NF; i++) { split($i, kv, "="); f[v, kv[1], n[v]] = kv[2] } }
	function sorted(v, key,   i, j, x) { for (i = 1; i <= n[v]; i++) s[i] = f[v, key, i] + 0
		for (i = 1; i <= n[v]; i++) for (j = i + 1; j <= n[v]; j++) if (s[j] < s[i]) { x = s[i]; s[i] = s[j]; s[j] = x } }
	function med(v, key) { sorted(v, key); c = n[v]; return c % 2 ? s[(c + 1) / 2] : (s[c / 2] + s[c / 2 + 1]) / 2 }
	function lo(v, key) { sorted(v, key); return s[1] }
	function hi(v, key) { sorted(v, key); return s[n[v]] }
	function ratio(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
	END {
		print "| side | runs | round s (each run'"'"'s median), min / median | CPU s per round, min / median | warm-up s, min / median | peak RSS MiB, min / max | valid runs |"
		print "|---|---|---|---|---|---|---|"
		m = split(order, side, " ")
		for (k = 1; k <= m; k++) {
			v = side[k]; if (!n[v]) continue
			ok = 0; for (i = 1; i <= n[v]; i++) if (f[v, "bad", i] == 0 && f[v, "rounds_incomplete", i] == 0) ok++
			printf "| %s | %d | %.3f / %.3f | %.3f / %.3f | %.2f / %.2f | %d / %d | %d |\n", v, n[v],
				lo(v, "round_s_median"), med(v, "round_s_median"), lo(v, "cpu_s_per_round"), med(v, "cpu_s_per_round"),
				lo(v, "warmup_s"), med(v, "warmup_s"), lo(v, "hwm_MiB"), hi(v, "hwm_MiB"), ok
		}
		print ""
		for (k = 1; k <= m; k++) for (l = k + 1; l <= m; l++) {
			a = side[k]; b = side[l]; if (!n[a] || !n[b]) continue
			printf "ratio of medians %s / %s: round %s, CPU per round %s, peak RSS (max) %s\n", a, b,
				ratio(med(a, "round_s_median"), med(b, "round_s_median")), ratio(med(a, "cpu_s_per_round"), med(b, "cpu_s_per_round")),
				ratio(hi(a, "hwm_MiB"), hi(b, "hwm_MiB"))
		}
	}' "$runs_file"
