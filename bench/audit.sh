#!/usr/bin/env bash
# history and undo over 1 GiB of audit log, interleaved (no broker needed).
#
#   bench/audit.sh                  # RUNS=5 SIZE=1073741824 CHANGES=10000
#   BASE_BIN=/path/to/old/offsetctl bench/audit.sh   # also run an older binary once on the legacy log
#
# bench/auditgen writes three logs of SIZE bytes of reset entries of CHANGES partition changes each
# (about 1.1 MB a line at 10,000): "legacy", one file with no rotation (a version 1 log as QA's
# 1.1 GB one); "rotated", through offsetctl's writer with the default rotation (64 MiB files and
# their index); "gzip", the same with --audit-gzip. Each run is validated: history must list every
# entry (one row each, plus the header), and undo must find the id (it then stops, exit 1, at the
# entry's backup, which does not exist: the time is the log's part of an undo). undo is timed for the
# first, middle and last id of the gzip'd log. Wall time and peak RSS from /usr/bin/time
# (bench/interleave.sh). Env: RUNS (>= 5), SIZE, CHANGES, KEEP=DIR to keep (and reuse) the logs.
set -euo pipefail
RUNS=${RUNS:-5}; SIZE=${SIZE:-1073741824}; CHANGES=${CHANGES:-10000}
root=$(cd "$(dirname "$0")/.." && pwd)
work=${KEEP:-$(mktemp -d)}
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
(cd "$root" && go build -o "$work/offsetctl" . && go build -o "$work/auditgen" ./bench/auditgen)
gen() { # name, flags...: writes the log once, keeps "first middle last count"
	local d=$work/$1; shift
	[ -s "$d.ids" ] || { rm -rf "$d"; "$work/auditgen" -log "$d/audit.jsonl" -size "$SIZE" -changes "$CHANGES" "$@" >"$d.ids"; }
}
gen legacy -legacy
gen rotated
gen gzip -gzip
read -r _ _ _ n <"$work/legacy.ids"
read -r first middle last m <"$work/gzip.ids"
history() { # log, entries: the command, validated
	echo "[ \"\$($1 --audit-log $2/audit.jsonl history | wc -l)\" -eq $(($3 + 1)) ]"
}
undo() { # log, id
	echo "$work/offsetctl --audit-log $1/audit.jsonl undo $2 2>&1 | grep -q 'backup of entry $2'"
}
echo "logs: $(du -sh "$work/legacy" | cut -f1) legacy ($n entries), $(du -sh "$work/rotated" | cut -f1) rotated, $(du -sh "$work/gzip" | cut -f1) gzip'd ($m entries, $(ls "$work/gzip" | grep -c '\.gz$') files); $(nproc) cores; load $(cut -d ' ' -f 1-3 /proc/loadavg)"
echo
args=(history-legacy "$(history "$work/offsetctl" "$work/legacy" "$n")"
	history-rotated "$(history "$work/offsetctl" "$work/rotated" "$m")"
	history-gzip "$(history "$work/offsetctl" "$work/gzip" "$m")")
if [ -n "${BASE_BIN:-}" ]; then # once: an older binary may fail on this log
	set +e; /usr/bin/time -f "%e s %M KiB" -o "$work/base.t" "$BASE_BIN" --audit-log "$work/legacy/audit.jsonl" history >/dev/null 2>"$work/base.err"; rc=$?; set -e
	echo "BASE_BIN history of the legacy log: exit $rc, $(cat "$work/base.t" | tail -1), stderr: $(tail -1 "$work/base.err")"
	echo
fi
"$root/bench/interleave.sh" "$RUNS" "${args[@]}"
echo
"$root/bench/interleave.sh" "$RUNS" undo-first "$(undo "$work/gzip" "$first")" undo-middle "$(undo "$work/gzip" "$middle")" \
	undo-last "$(undo "$work/gzip" "$last")" undo-legacy-middle "$(undo "$work/legacy" "$(cut -d ' ' -f 2 "$work/legacy.ids")")"
