#!/usr/bin/env bash
# Mutation testing with gremlins on the pure packages, one package at a time,
# each against its own tests, with a floor on the share of covered mutants
# killed (efficacy). Mutants judged equivalent are listed, each with its
# reason, in scripts/mutate-equivalents.txt; they are excluded, nothing else.
#
#   scripts/mutate.sh all              # every mutant of admin replay cluster report (make mutate-full, nightly)
#   scripts/mutate.sh changed          # the mutants on lines changed since the baseline, in the
#                                      # packages that have them (make mutate, CI)
#   scripts/mutate.sh admin report     # every mutant of the named ones
#
# The baseline (scripts/mutate-baseline) is the commit of the last full run
# that passed every floor, with its scores. CI mutates every line changed
# since it, so a fresh clone of main checks the real diff since the last
# full run, not an empty one (a merge base with main is main itself there).
# It needs the history back to that commit: a shallow clone fails, and so
# does a diff with more mutants than CI's budget (MUTATE_MAX): then the
# full run is due, and `MUTATE_RECORD=1 make mutate-full` on a clean tree
# writes a new baseline to commit.
#
# A whole package takes minutes to tens of minutes (one go test per
# mutant), too long for every CI run; see docs/testing.md for the measured
# times.
#
# Environment: MUTATE_FLOOR (90), MUTATE_WORKERS (2), MUTATE_BASE (a ref to
# diff against instead of the baseline), MUTATE_MAX (150: the most mutants
# "changed" will run; about 8 minutes on a loaded 2-core machine),
# MUTATE_SCOPE=packages (with "changed": every mutant of the changed
# packages, not only the changed lines), MUTATE_RECORD=1 (with "all": write
# scripts/mutate-baseline when every floor passes on a clean tree),
# GREMLINS (the binary; installed with go install when missing).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

FLOOR="${MUTATE_FLOOR:-90}"
WORKERS="${MUTATE_WORKERS:-2}"
MAX="${MUTATE_MAX:-150}"
BASELINE=scripts/mutate-baseline
GREMLINS_VERSION=v0.6.0
ALL=(admin replay cluster report)

# The files mutated are the pure ones (parsing, planning, digests,
# rendering); gathering and executing are I/O against a cluster, covered by
# the integration tests in internal/cli, not by their package's tests.
excludes() {
  case "$1" in
    admin) echo 'gather\.go$ reset_exec\.go$ reset_txn\.go$ describe848\.go$ timelag\.go$ delete\.go$ lagstream\.go$' ;;
    replay) echo 'run\.go$ consume\.go$ snapshot\.go$ backfill[^/]*\.go$ pool\.go$' ;;
    cluster) echo 'security[^/]*\.go$ profile\.go$ embedded\.go$ commit\.go$' ;;
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

# base prints the commit "changed" diffs against: MUTATE_BASE, else the
# baseline's commit, which must be in this clone's history.
base() {
  local ref="${MUTATE_BASE:-}"
  if [[ -z "$ref" ]]; then
    ref="$(awk '$1 == "commit" { print $2 }' "$BASELINE")"
    [[ -n "$ref" ]] || { echo "mutate: no commit line in $BASELINE" >&2; return 1; }
  fi
  if ! git cat-file -e "$ref^{commit}" 2>/dev/null; then
    echo "mutate: $ref (the last full run) is not in this clone: fetch the history (git fetch --unshallow) or run make mutate-full" >&2
    return 1
  fi
  if ! git merge-base --is-ancestor "$ref" HEAD; then
    echo "mutate: $ref is not an ancestor of HEAD: its full run says nothing about this tree" >&2
    return 1
  fi
  git rev-parse "$ref"
}

# changed_packages lists the packages whose non-test Go files differ from
# base (committed, staged or not, or untracked): a change to tests alone
# makes no mutant.
changed_packages() {
  local base="$1" p
  for p in "${ALL[@]}"; do
    if ! git diff --quiet "$base" -- "$p/"'*.go' ":(exclude)$p/"'*_test.go' ||
      [[ -n "$(git ls-files --others --exclude-standard -- "$p/"'*.go' ":(exclude)$p/"'*_test.go')" ]]; then
      echo "$p"
    fi
  done
}

diff=()
case "${1:-changed}" in
  all) pkgs=("${ALL[@]}") ;;
  changed)
    base="$(base)"
    mapfile -t pkgs < <(changed_packages "$base")
    if [[ "${MUTATE_SCOPE:-lines}" != packages ]]; then diff=(-D "$base"); fi
    echo "mutate: changed since $(git rev-parse --short "$base"): ${pkgs[*]:-none}${diff:+ (changed lines only)}" ;;
  *) pkgs=("$@") ;;
esac
if [[ ${#pkgs[@]} -eq 0 ]]; then
  echo "mutate: no change in ${ALL[*]}: nothing to mutate"
  exit 0
fi

bin="$(gremlins_bin)"
# MUTATE_OUT keeps the gremlins JSON reports (PKG.json) for a later look.
if [[ -n "${MUTATE_OUT:-}" ]]; then
  mkdir -p "$MUTATE_OUT"; out="$(cd "$MUTATE_OUT" && pwd)"
else
  out="$(mktemp -d)"; trap 'rm -rf "$out"' EXIT
fi

# unleash PKG REPORT [FLAG...] runs gremlins on one package. LOOPCTRL
# (continue/break) and LOGICAL (&&/||) are on besides the defaults: issue
# 17's surviving samples were of both kinds. The timeout coefficient is
# high because a loaded machine makes a test run slow, not endless; a
# mutant that loops forever still times out.
#
# For -D, gremlins v0.6.0 reads `git diff --merge-base REF` and matches its
# paths (report/lag.go) against the file names it walks, which are relative
# to the package (lag.go): run from the module root, nothing ever matched
# and every mutant was skipped. So it runs in the package directory with
# diff.relative (paths relative to there). And it takes a hunk's added lines
# as one run from the first added line, so an added line after a context
# line inside a hunk was missed; with diff.context=0 a hunk is one run.
# Its per-mutant timeout is 20 times its coverage run: -count=1 keeps that
# run out of go test's cache (a cached run of 0.2 s made every mutant of
# a later run time out, which counts for neither side).
unleash() {
  local p="$1" rep="$2" args=() e
  shift 2
  for e in $(excludes "$p"); do args+=(-E "$e"); done
  (cd "$p" && GOFLAGS="${GOFLAGS:+$GOFLAGS }-count=1" GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=diff.context GIT_CONFIG_VALUE_0=0 \
    GIT_CONFIG_KEY_1=diff.relative GIT_CONFIG_VALUE_1=true \
    "$bin" unleash --silent --workers "$WORKERS" --timeout-coefficient 20 \
    --invert-loopctrl --invert-logical "${args[@]}" "${diff[@]}" "$@" -o "$rep" "$PWD" >/dev/null)
}

# CI's budget: count the changed lines' mutants first (a dry run costs one
# covered test run per package) and refuse a diff too big to test in time,
# rather than pass without testing it.
if [[ ${#diff[@]} -gt 0 ]]; then
  total=0
  for p in "${pkgs[@]}"; do
    unleash "$p" "$out/$p.dry.json" --dry-run || { echo "gremlins failed on $p" >&2; exit 1; }
    n="$(grep -o '"status":"RUNNABLE"' "$out/$p.dry.json" | wc -l || true)"
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
  unleash "$p" "$out/$p.json" || { echo "gremlins failed on $p" >&2; failed+=("$p"); continue; }
  line="$(go run ./scripts/mutatefloor -pkg "$p" -report "$out/$p.json" \
    -equivalents scripts/mutate-equivalents.txt -floor "$FLOOR")" || failed+=("$p")
  echo "$line"
  secs=$(( $(date +%s) - start ))
  echo "($secs s)"
  # "admin: killed 1, lived 2, equivalent (excluded) 3, not covered/... 4: efficacy 5.0% ..."
  summary+=("$(sed -n 's/^\([a-z]*\): killed \([0-9]*\), lived \([0-9]*\), equivalent (excluded) \([0-9]*\), [^0-9]* \([0-9]*\): efficacy \([0-9.]*%\).*/\1 \2 \3 \4 \5 \6/p' <<<"$line") $secs $WORKERS")
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "mutate: below the floor or failed: ${failed[*]}" >&2
  exit 1
fi
if [[ "${1:-}" == all && -n "${MUTATE_RECORD:-}" ]]; then
  if [[ -n "$(git status --porcelain -- "${ALL[@]}" scripts/mutate-equivalents.txt)" ]]; then
    echo "mutate: the tree has changes: a baseline must name the commit that was measured; not recorded" >&2
    exit 1
  fi
  {
    echo "# The last full mutation run that passed every floor (MUTATE_RECORD=1 make mutate-full)."
    echo "# make mutate (CI) mutates the lines changed since this commit. Written $(date -u +%FT%TZ)."
    echo "commit $(git rev-parse HEAD)"
    echo "# package killed lived equivalent not-covered/timed-out/not-viable efficacy seconds workers"
    printf '%s\n' "${summary[@]}"
  } >"$BASELINE"
  echo "mutate: wrote $BASELINE: commit it"
fi
