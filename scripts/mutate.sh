#!/usr/bin/env bash
# Mutation testing with gremlins on the pure packages, one package at a time,
# each against its own tests, with a floor on the share of covered mutants
# killed (efficacy). Mutants judged equivalent are listed, each with its
# reason, in scripts/mutate-equivalents.txt; they are excluded, nothing else.
#
#   scripts/mutate.sh all              # every mutant of admin replay cluster report (make mutate-full, nightly)
#   scripts/mutate.sh changed          # the mutants on lines changed since the merge base, in the
#                                      # packages that have them (make mutate, CI)
#   scripts/mutate.sh admin report     # every mutant of the named ones
#
# A whole package takes minutes to tens of minutes (one go test per mutant;
# admin's own tests take seconds), too long for every CI run; the changed
# lines take seconds to a few minutes, and the full run is the nightly one.
#
# Environment: MUTATE_FLOOR (90), MUTATE_WORKERS (1: the machine is shared),
# MUTATE_BASE (the ref to diff against for "changed"; default main, else
# origin/main; when HEAD is the merge base itself, the last commit is what
# changed), MUTATE_SCOPE=packages (with "changed": every mutant of the
# changed packages, not only the changed lines), GREMLINS (the binary;
# installed with go install when missing).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

FLOOR="${MUTATE_FLOOR:-90}"
WORKERS="${MUTATE_WORKERS:-1}"
GREMLINS_VERSION=v0.6.0
ALL=(admin replay cluster report)

# The files mutated are the pure ones (parsing, planning, digests,
# rendering); gathering and executing are I/O against a cluster, covered by
# the integration tests in internal/cli, not by their package's tests.
excludes() {
  case "$1" in
    admin) echo 'gather\.go$ reset_exec\.go$ describe848\.go$ timelag\.go$ delete\.go$ lagstream\.go$' ;;
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

merge_base() {
  local ref="${MUTATE_BASE:-}" base
  if [[ -z "$ref" ]]; then
    if git rev-parse -q --verify main >/dev/null; then ref=main
    elif git rev-parse -q --verify origin/main >/dev/null; then ref=origin/main
    else ref=HEAD~1; fi
  fi
  base="$(git merge-base HEAD "$ref")"
  if [[ "$base" == "$(git rev-parse HEAD)" ]]; then
    base="$(git rev-parse HEAD~1)"
  fi
  echo "$base"
}

changed_packages() {
  local base="$1" p
  for p in "${ALL[@]}"; do
    if ! git diff --quiet "$base" -- "$p/"'*.go' || [[ -n "$(git ls-files --others --exclude-standard -- "$p/"'*.go')" ]]; then
      echo "$p"
    fi
  done
}

diff=()
case "${1:-changed}" in
  all) pkgs=("${ALL[@]}") ;;
  changed)
    base="$(merge_base)"
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
  out="$MUTATE_OUT"; mkdir -p "$out"
else
  out="$(mktemp -d)"; trap 'rm -rf "$out"' EXIT
fi
failed=()
for p in "${pkgs[@]}"; do
  args=()
  for e in $(excludes "$p"); do args+=(-E "$e"); done
  echo "=== mutate $p (workers $WORKERS, floor $FLOOR%)"
  start=$(date +%s)
  # LOOPCTRL (continue/break) and LOGICAL (&&/||) are on besides the
  # defaults: issue 17's surviving samples were of both kinds. The timeout
  # coefficient is high because a loaded machine makes a test run slow, not
  # endless; a mutant that loops forever still times out.
  "$bin" unleash --silent --workers "$WORKERS" --timeout-coefficient 20 \
    --invert-loopctrl --invert-logical "${args[@]}" "${diff[@]}" -o "$out/$p.json" "./$p" >/dev/null ||
    { echo "gremlins failed on $p" >&2; failed+=("$p"); continue; }
  go run ./scripts/mutatefloor -pkg "$p" -report "$out/$p.json" \
    -equivalents scripts/mutate-equivalents.txt -floor "$FLOOR" || failed+=("$p")
  echo "($(( $(date +%s) - start ))s)"
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "mutate: below the floor or failed: ${failed[*]}" >&2
  exit 1
fi
