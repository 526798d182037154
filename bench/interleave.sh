#!/usr/bin/env bash
# bench/interleave.sh - run commands in interleaved rounds and summarise them.
#
#   bench/interleave.sh RUNS NAME 'COMMAND' NAME 'COMMAND' ...
#
# Each round runs every command once, in the order given (A,B,A,B,...), so
# that load from other processes on a shared machine falls on all of them
# alike. Each run's stdout goes to /dev/null; wall time and peak RSS come
# from /usr/bin/time (GNU: %e, %M = the largest resident set of the command
# or of any of its children, e.g. a JVM started by a script). A command that
# fails stops the benchmark. Prints one Markdown table: runs, min and median
# seconds, min and max peak RSS, and every run's time; then the ratio of
# medians of every pair (later / earlier: above 1, the earlier is faster). RUNS must be at least 5 for a
# figure anyone should quote (the median of fewer is one run).
set -euo pipefail
runs=$1; shift
[ $(( $# % 2 )) -eq 0 ] && [ $# -ge 2 ] || { echo "usage: $0 RUNS NAME CMD [NAME CMD]..." >&2; exit 2; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
names=(); cmds=()
while [ $# -gt 0 ]; do names+=("$1"); cmds+=("$2"); shift 2; done
for r in $(seq "$runs"); do
	for i in "${!names[@]}"; do
		if ! /usr/bin/time -o "$work/t" -f "%e %M" bash -c "${cmds[$i]}" >/dev/null 2>"$work/err"; then
			echo "interleave: ${names[$i]} failed (round $r):" >&2; tail -5 "$work/err" >&2; exit 1
		fi
		read -r s kb <"$work/t"
		echo "${names[$i]} $s $kb" >>"$work/runs"
		echo "round $r: ${names[$i]} ${s}s $((kb / 1024)) MiB" >&2
	done
done
order="${names[*]}"
awk -v order="$order" '
	{ n[$1]++; t[$1, n[$1]] = $2; k[$1, n[$1]] = $3 }
	function median(name,   cnt, i, j, a, x) {
		cnt = n[name]; for (i = 1; i <= cnt; i++) a[i] = t[name, i]
		for (i = 1; i <= cnt; i++) for (j = i + 1; j <= cnt; j++) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
		return cnt % 2 ? a[(cnt + 1) / 2] : (a[cnt / 2] + a[cnt / 2 + 1]) / 2
	}
	END {
		m = split(order, names, " ")
		print "| command | runs | min s | median s | peak RSS MiB (min–max) | every run, s |"
		print "|---|---|---|---|---|---|"
		for (i = 1; i <= m; i++) {
			c = names[i]; lo = 1e18; rlo = 1e18; rhi = 0; all = ""
			for (j = 1; j <= n[c]; j++) {
				if (t[c, j] < lo) lo = t[c, j]
				if (k[c, j] < rlo) rlo = k[c, j]
				if (k[c, j] > rhi) rhi = k[c, j]
				all = all (j > 1 ? ", " : "") t[c, j]
			}
			med[c] = median(c)
			printf "| %s | %d | %.2f | %.2f | %.0f–%.0f | %s |\n", c, n[c], lo, med[c], rlo / 1024, rhi / 1024, all
		}
		print ""
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (med[names[i]] > 0)
			printf "ratio of medians: %s / %s = %.2f\n", names[j], names[i], med[names[j]] / med[names[i]]
	}' "$work/runs"
