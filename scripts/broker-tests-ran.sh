#!/usr/bin/env bash
# Checks `go test -v` logs of make test-kafka: every test that needs a real
# broker (it skips in make test) passed, and no test skipped for want of a
# broker. Usage: scripts/broker-tests-ran.sh LOG...
set -euo pipefail

# The broker-gated tests: Apache's tool as the oracle (plain broker), and the
# kill -9 / SIGSTOP / SASL_SSL / mTLS tests (scripts/kafka-secure.sh).
BROKER_TESTS=(
  TestLagMatchesApache
  TestResetMatchesApache
  TestTranslateMirrorMaker2Apache
  TestStreamsGroups
  TestShareGroupLagMatchesApache
  TestShareGroupResetMatchesApache
  TestCoordinatorFreshBroker
  TestFaultLagAcrossBrokerKill
  TestFaultReplayAcrossBrokerRestart
  TestFaultBackfillAcrossBrokerRestart
  TestFaultReplayFrozenBroker
  TestFaultBackfillSecondInterruptQuits
  TestFaultExporterFreezeLongerThanSession
  TestSecureBrokerOAuthBearer
  TestSecureBrokerLag
  TestSecureBrokerResetAndReplay
  TestSecureBrokerFailures
  TestSecureBrokerCommandConfig
  TestSecureResetTxnACLDenied
  TestLagStatusOffsetsTopicApache
  TestExporterOffsetsTopicStatusApache
  TestExporterOffsetsTopicAgreesApache
  TestLagWatchStatusOffsetsTopicApache
  TestTailApache
  TestExporterTimeLagTopicRecreated/offsets-topic
  TestResetTxnKillNine/delete-group
  TestSecureLagStatusSampled
  TestSecureLagWatchStatusRevoked
)
# What a test says when it skips because its broker is missing.
MISSING='needs (a real broker|KAFKA_BROKERS|the secure broker)|OFFSETCTL_SECURE_SCRIPT not set'

# The plain run sees the secure-broker tests too and skips them (no secure
# broker there): a test counts as run when it passed in one of the logs.
bad=0
for t in "${BROKER_TESTS[@]}"; do
  if ! grep -qE "^ *--- PASS: $t " "$@"; then
    if grep -qE "^ *--- SKIP: $t " "$@"; then
      echo "broker test $t was SKIPPED" >&2
    else
      echo "broker test $t did not run (or did not pass)" >&2
    fi
    bad=1
  fi
done
# Any other test that skipped for want of a broker (the indented line after
# --- SKIP is its reason) and passed in no log.
for t in $(awk -v re="$MISSING" '/--- SKIP:/ {name=$3; next} name != "" && $0 ~ re {print name} {name=""}' "$@" | sort -u); do
  if ! grep -qE "^ *--- PASS: $t " "$@"; then
    echo "$t skipped for want of a broker" >&2; bad=1
  fi
done
if [[ $bad = 0 ]]; then
  echo "all ${#BROKER_TESTS[@]} broker tests ran and passed; none skipped for want of a broker"
fi
exit $bad
