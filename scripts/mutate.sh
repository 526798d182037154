#!/usr/bin/env bash
# Mutation testing with gremlins on the pure packages, one package at a time,
# each against its own tests, with a floor on the share of covered mutants
# killed (efficacy). Mutants judged equivalent are listed, each with its
# reason, in scripts/mutate-equivalents.txt; they are excluded, nothing else.
#
#   scripts/mutate.sh all              # every mutant of admin lag replay cluster report (make mutate-full, nightly)
#   scripts/mutate.sh changed          # the mutants on lines changed since the baseline, in the
#                                      # packages that have them (make mutate, CI)
#   scripts/mutate.sh admin report     # every mutant of the named ones
#
# The baseline (scripts/mutate-baseline) names, for each package, the commit
# of its last full run that passed the floor, with the scores. CI mutates
# every line of a package changed since that commit, so a fresh clone of
# main checks the real diff since the last full run, not an empty one (a
# merge base with main is main itself there). It needs the history back to
# those commits: a shallow clone fails, and so does a diff with more
# mutants than CI's budget (MUTATE_MAX): then the full run is due, and
# `MUTATE_RECORD=1 make mutate-full` on a clean tree writes a new baseline
# to commit.
#
# A whole package takes minutes to tens of minutes (one go test per
# mutant), too long for every CI run; see docs/testing.md for the measured
# times.
#
# Environment: MUTATE_FLOOR (90), MUTATE_WORKERS (2), MUTATE_BASE (a ref to
# diff against instead of the baseline), MUTATE_MAX (150: the most mutants
# "changed" will run; about 8 minutes on a loaded 2-core machine),
# MUTATE_SCOPE=packages (with "changed": every mutant of the changed
# packages, not only the changed lines), MUTATE_RECORD=1 (with "all" or named packages: write
# their lines of scripts/mutate-baseline when every floor passes on a clean tree),
# GREMLINS (the binary; installed with go install when missing).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

FLOOR="${MUTATE_FLOOR:-90}"
WORKERS="${MUTATE_WORKERS:-2}"
MAX="${MUTATE_MAX:-150}"
BASELINE=scripts/mutate-baseline
GREMLINS_VERSION=v0.6.0
ALL=(internal/admin internal/lag replay internal/cluster report)

# The files mutated are the pure ones (parsing, planning, digests,
# rendering); gathering and executing are I/O against a cluster, covered by
# the integration tests in internal/cli, not by their package's tests.
excludes() {
  case "$1" in
    internal/admin) echo 'reset_exec\.go$ reset_txn\.go$ delete\.go$' ;;
    internal/lag) echo 'gather\.go$ describe848\.go$ timelag\.go$ lagstream\.go$' ;;
    replay) echo 'run\.go$ consume\.go$ snapshot\.go$ backfill[^/]*\.go$ pool\.go$' ;;
    internal/cluster) echo 'security[^/]*\.go$ profile\.go$ embedded\.go$ commit\.go$' ;;
    *) echo '' ;;
  esac
}

# skips names, per package, the tests left out of every mutant's run:
# admin's transactional-reset tests and lag's two coordinator-retry tests
# took 15 of the packages' 15.5 s (kfake faults held for seconds) and test
# files that are not mutated (reset_txn.go, gather.go). A mutant only they would kill
# survives, so skipping them can only lower a score.
skips() {
  case "$1" in
    internal/admin) echo '^(TestExecuteResetTxn.*)$' ;;
    internal/lag) echo '^(TestFetchOffsetsRetriesCoordinator|TestDescribeGroupsRetriesCoordinator)$' ;;
    *) echo '' ;;
  esac
}

gremlins_bin() {
  if [[ -n "${GREMLINS:-}" ]]; then echo "$GREMLINS"; return; fi
  local bin
  bin="$(go env GOPATH)/bin/gremlins"
  if [[ ! -x "$bin" ]]; then
    echo "installing gremlins $GREMLINS_VERSION" >&2
    go install "github.com/go-gremlins/gremlins/cmd/gremlins@$GREMLINS_VERSION" >&2
  fi
  echo "$bin"
}

# base PKG prints the commit "changed" diffs PKG against: MUTATE_BASE, else
# the commit of PKG's last full run in the baseline, which must be in this
# clone's history and an ancestor of HEAD.
base() {
  local p="$1" ref="${MUTATE_BASE:-}"
  if [[ -z "$ref" ]]; then
    ref="$(awk -v p="$p" '$1 == p { print $2 }' "$BASELINE")"
    [[ -n "$ref" ]] || { echo "mutate: no line for $p in $BASELINE" >&2; return 1; }
  fi
  if ! git cat-file -e "$ref^{commit}" 2>/dev/null; then
    echo "mutate: $ref ($p's last full run) is not in this clone: fetch the history (git fetch --unshallow) or run make mutate-full" >&2
    return 1
  fi
  if ! git merge-base --is-ancestor "$ref" HEAD; then
    echo "mutate: $ref is not an ancestor of HEAD: its full run says nothing about this tree" >&2
    return 1
  fi
  git rev-parse "$ref"
}

# scripts/mutatediff says which lines changed since a baseline, following
# moves (git blame -M -C -C): a file moved into a package (admin/ to
# internal/admin/, internal/admin/ to internal/lag/) is not new, only its
# edited lines are. It stands in for git on gremlins' PATH (see unleash).
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
go build -o "$work/bin/git" ./scripts/mutatediff
MUTATEDIFF_GIT="$(command -v git)"
export MUTATEDIFF_GIT

# changed PKG BASE: whether lines of PKG's non-test Go files changed since
# BASE (committed, staged or not, or untracked), moves not counted: a
# change to tests alone, or a move alone, makes no mutant.
changed() {
  local n
  n="$("$work/bin/git" -count "$2" "$1")"
  [[ "$n" -gt 0 ]]
}

mode="${1:-changed}"
declare -A bases=()
case "$mode" in
  all) pkgs=("${ALL[@]}") ;;
  changed)
    pkgs=()
    for p in "${ALL[@]}"; do
      b="$(base "$p")"
      if changed "$p" "$b"; then
        pkgs+=("$p")
        if [[ "${MUTATE_SCOPE:-lines}" != packages ]]; then bases[$p]="$b"; fi
      fi
      echo "mutate: $p: last full run at $(git rev-parse --short "$b"), $(changed "$p" "$b" && echo changed since || echo no change)"
    done ;;
  *) pkgs=("$@") ;;
esac
if [[ ${#pkgs[@]} -eq 0 ]]; then
  echo "mutate: no change in ${ALL[*]} since their last full run: nothing to mutate"
  exit 0
fi

bin="$(gremlins_bin)"
# MUTATE_OUT keeps the gremlins JSON reports (PKG.json, internal/admin as
# internal-admin.json) for a later look.
if [[ -n "${MUTATE_OUT:-}" ]]; then
  mkdir -p "$MUTATE_OUT"; out="$(cd "$MUTATE_OUT" && pwd)"
else
  out="$work/out"; mkdir -p "$out"
fi

# unleash PKG REPORT [FLAG...] runs gremlins on one package. LOOPCTRL
# (continue/break) and LOGICAL (&&/||) are on besides the defaults: issue
# 17's surviving samples were of both kinds. The timeout coefficient is
# high because a loaded machine makes a test run slow, not endless; a
# mutant that loops forever still times out.
#
# For -D, gremlins v0.6.0 reads `git diff --merge-base REF` and matches its
# paths against the file names it walks, which are relative to the package
# (lag.go), and takes a hunk's added lines as one run from the first added
# line. It runs in the package directory with scripts/mutatediff first on
# its PATH as git: that answers the diff with exactly the changed lines,
# paths relative to the package, one hunk per run, moves followed (a
# plain diff.relative diff saw a moved file as new throughout). An empty
# diff would make gremlins mutate everything: a package is only run when
# changed() found a changed line.
# Its per-mutant timeout is 20 times its coverage run: -count=1 keeps that
# run out of go test's cache (a cached run of 0.2 s made every mutant of
# a later run time out, which counts for neither side).
unleash() {
  local p="$1" rep="$2" args=() e
  shift 2
  for e in $(excludes "$p"); do args+=(-E "$e"); done
  if [[ -n "${bases[$p]:-}" ]]; then args+=(-D "${bases[$p]}"); fi
  local flags="${GOFLAGS:+$GOFLAGS }-count=1" skip
  skip="$(skips "$p")"
  if [[ -n "$skip" ]]; then flags="$flags -skip=$skip"; fi
  (cd "$p" && GOFLAGS="$flags" PATH="$work/bin:$PATH" \
    "$bin" unleash --silent --workers "$WORKERS" --timeout-coefficient 20 \
    --invert-loopctrl --invert-logical "${args[@]}" "$@" -o "$rep" "$PWD" >/dev/null)
}

# CI's budget: count the changed lines' mutants first (a dry run costs one
# covered test run per package) and refuse a diff too big to test in time,
# rather than pass without testing it.
if [[ ${#bases[@]} -gt 0 ]]; then
  total=0
  for p in "${!bases[@]}"; do
    unleash "$p" "$out/${p//\//-}.dry.json" --dry-run || { echo "gremlins failed on $p" >&2; exit 1; }
    n="$(grep -o '"status":"RUNNABLE"' "$out/${p//\//-}.dry.json" | wc -l || true)"
    echo "mutate: $p: $n covered mutants on changed lines"
    total=$((total + n))
  done
  if [[ $total -gt $MAX ]]; then
    echo "mutate: $total mutants changed since the last full run, more than CI's budget of $MAX: run MUTATE_RECORD=1 make mutate-full and commit $BASELINE" >&2
    exit 1
  fi
fi

failed=()
summary=()
for p in "${pkgs[@]}"; do
  echo "=== mutate $p (workers $WORKERS, floor $FLOOR%)"
  start=$(date +%s)
  unleash "$p" "$out/${p//\//-}.json" || { echo "gremlins failed on $p" >&2; failed+=("$p"); continue; }
  line="$(go run ./scripts/mutatefloor -pkg "$p" -report "$out/${p//\//-}.json" \
    -equivalents scripts/mutate-equivalents.txt -floor "$FLOOR")" || failed+=("$p")
  echo "$line"
  secs=$(( $(date +%s) - start ))
  echo "($secs s)"
  # "admin: killed 1, lived 2, equivalent (excluded) 3, not covered/... 4: efficacy 5.0% ..."
  summary+=("$(sed -n 's/^\([a-z/]*\): killed \([0-9]*\), lived \([0-9]*\), equivalent (excluded) \([0-9]*\), [^0-9]* \([0-9]*\): efficacy \([0-9.]*%\).*/\1 \2 \3 \4 \5 \6/p' <<<"$line") $secs $WORKERS")
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "mutate: below the floor or failed: ${failed[*]}" >&2
  exit 1
fi
if [[ "$mode" != changed && -n "${MUTATE_RECORD:-}" ]]; then
  if [[ -n "$(git status --porcelain -- "${ALL[@]}" scripts/mutate-equivalents.txt)" ]]; then
    echo "mutate: the tree has changes: a baseline must name the commit that was measured; not recorded" >&2
    exit 1
  fi
  head="$(git rev-parse HEAD)"
  # A full run of some packages (scripts/mutate.sh replay report) replaces
  # their lines and keeps the others' (each line is its own package's run).
  declare -A measured=()
  for line in "${summary[@]}"; do
    set -- $line
    measured[$1]="$1 $head ${*:2}"
  done
  {
    echo "# The last full mutation run of each package that passed its floor"
    echo "# (MUTATE_RECORD=1 make mutate-full, or scripts/mutate.sh PKG... for some;"
    echo "# last written $(date -u +%FT%TZ)). make mutate (CI)"
    echo "# mutates the lines of each package changed since its commit here."
    echo "# package commit killed lived equivalent not-covered/timed-out/not-viable efficacy seconds workers"
    for p in "${ALL[@]}"; do
      if [[ -n "${measured[$p]:-}" ]]; then
        echo "${measured[$p]}"
      else
        awk -v p="$p" '$1 == p' "$BASELINE"
      fi
    done
  } >"$BASELINE.new"
  mv "$BASELINE.new" "$BASELINE"
  echo "mutate: wrote $BASELINE: commit it"
fi
