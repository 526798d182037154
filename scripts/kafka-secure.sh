#!/usr/bin/env bash
# scripts/kafka-secure.sh - a SECOND single-node Apache Kafka 4.x (KRaft) for
# offsetctl's security and fault tests. It reuses scripts/kafka.sh for the jars
# (fetch + classpath) and runs with its own workdir and ports, so it never
# touches the plain test broker.
#
#   scripts/kafka-secure.sh start        fresh certs, SCRAM user, broker; prints the test env (VAR=value lines)
#   scripts/kafka-secure.sh env          print the test env of the current workdir
#   scripts/kafka-secure.sh stop         stop it (SIGTERM, idempotent)
#   scripts/kafka-secure.sh kill9        kill -9 the broker process (fault tests)
#   scripts/kafka-secure.sh freeze       SIGSTOP the broker (it keeps its sockets but answers nothing)
#   scripts/kafka-secure.sh thaw         SIGCONT it
#   scripts/kafka-secure.sh start-again  start the broker on its existing data and certs, wait until it answers
#   scripts/kafka-secure.sh restart      stop + start-again
#   scripts/kafka-secure.sh status       exit 0 iff the broker answers on its PLAINTEXT listener
#   scripts/kafka-secure.sh pid          print the broker's pid (a test that must freeze it within
#                                        microseconds of an event signals it itself)
#
# Listeners (all on 127.0.0.1):
#   PLAINTEXT  $KAFKA_SECURE_PORT_BASE+0  (default 19192) setup, and "plaintext client vs TLS port" tests
#   SASL_SSL   +1 (19193) SCRAM-SHA-512, SCRAM-SHA-256 and OAUTHBEARER (Kafka's default validator of
#                         unsecured alg=none JWTs: the tests mint tokens), server TLS only
#   SSL        +2 (19194) mutual TLS: a client certificate signed by the test CA is required
#   CONTROLLER +3 (19195)
#
# Certificates are generated at start with openssl (a CA; a server cert with
# SAN IP:127.0.0.1 and DNS:localhost; a client cert; a client cert from a
# second, untrusted CA) as PEM. The broker reads PEM key/trust stores
# (ssl.keystore.type=PEM). The SCRAM user (default alice) is created at format
# time with a random password written to a 0600 file; the password itself is
# never printed.
#
# Environment:
#   KAFKA_SECURE_WORKDIR    (default /tmp/offsetctl-kafka-secure)
#   KAFKA_SECURE_PORT_BASE  (default 19192; keep the four ports below the kernel's ephemeral
#                           range, 32768+, or a client socket may hold one when the broker binds)
#   KAFKA_SECURE_USER       (default alice)
#   KAFKA_SECURE_DENIED_USER (default mallory) a SCRAM user denied WRITE on TransactionalId offsetctl-reset-*
#                           and DESCRIBE and READ on the topic __consumer_offsets (lag --status samples)
#
# Authorization: StandardAuthorizer with allow.everyone.if.no.acl.found=true (every principal may do
# what no ACL mentions, so the other tests are unaffected) and User:ANONYMOUS (PLAINTEXT, the
# controller) as super user. Two ACLs on the transactional ids prefixed offsetctl-reset-: ALLOW User:*
# and DENY User:$KAFKA_SECURE_DENIED_USER (DENY wins); the same two on the topic __consumer_offsets
# for DESCRIBE and READ.
#   KAFKA_LOG_LEVEL, KAFKA_START_TIMEOUT, JAVA, OFFSETCTL_CACHE, KAFKA_VERSION as for scripts/kafka.sh
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
KAFKA_SH="$HERE/kafka.sh"
SELF="$HERE/$(basename "${BASH_SOURCE[0]}")"

WORKDIR="${KAFKA_SECURE_WORKDIR:-/tmp/offsetctl-kafka-secure}"
BASE="${KAFKA_SECURE_PORT_BASE:-19192}"
USER_NAME="${KAFKA_SECURE_USER:-alice}"
LOG_LEVEL="${KAFKA_LOG_LEVEL:-WARN}"
START_TIMEOUT="${KAFKA_START_TIMEOUT:-90}"
PLAIN_PORT="$BASE"
SASL_PORT="$((BASE + 1))"
MTLS_PORT="$((BASE + 2))"
CONTROLLER_PORT="$((BASE + 3))"

CERTS="$WORKDIR/certs"
DATADIR="$WORKDIR/data"
LOGDIR="$WORKDIR/logs"
PROPS="$WORKDIR/server.properties"
PIDFILE="$WORKDIR/broker.pid"
BROKER_OUT="$WORKDIR/broker.out"
PASSFILE="$WORKDIR/$USER_NAME.password"
# A second SCRAM user whom an ACL denies WRITE on offsetctl's default reset
# transactional ids (prefix offsetctl-reset-): the "transactions not
# allowed" tests run as it.
DENIED_USER="${KAFKA_SECURE_DENIED_USER:-mallory}"
DENIED_PASSFILE="$WORKDIR/$DENIED_USER.password"

log() { printf 'kafka-secure.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# shellcheck source=broker-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/broker-lib.sh"

TOOL_JVM_OPTS=(-Xshare:auto -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx256m -Djava.awt.headless=true)

classpath() { # sets CP and LOG4J (jars fetched by scripts/kafka.sh)
  bash "$KAFKA_SH" fetch >&2
  CP="$(bash "$KAFKA_SH" classpath)"
  local kdir
  kdir="$(dirname "$(dirname "$CP")")"
  LOG4J="$kdir/log4j2.xml"
  [[ -f "$LOG4J" ]] || die "no log4j2.xml next to $CP"
}

broker_answers() {
  port_open "$PLAIN_PORT" && port_open "$SASL_PORT" && port_open "$MTLS_PORT" || return 1
  if command -v kcat >/dev/null 2>&1; then
    timeout 10 kcat -L -b "127.0.0.1:$PLAIN_PORT" -m 5 2>/dev/null | grep -q "^ *1 brokers:"
  else
    timeout 30 "$JAVA" "${TOOL_JVM_OPTS[@]}" -Dlog4j2.configurationFile="$LOG4J" \
      -Doffsetctl.log.file="$LOGDIR/tools.log" -cp "$CP" org.apache.kafka.tools.TopicCommand \
      --bootstrap-server "127.0.0.1:$PLAIN_PORT" --list >/dev/null 2>&1
  fi
}

# ------------------------------------------------------------- certs -------

gen_certs() {
  command -v openssl >/dev/null || die "openssl not found (apt-get install -y openssl)"
  rm -rf "$CERTS"
  mkdir -p "$CERTS"
  (
    cd "$CERTS"
    umask 077
    # CA
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=offsetctl test CA" \
      -keyout ca.key -out ca.pem -addext "basicConstraints=critical,CA:TRUE" \
      -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
    # server: SAN 127.0.0.1 + localhost
    openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key.tmp -out server.csr 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n' >server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
      -extfile server.ext -out server.pem 2>/dev/null
    openssl pkcs8 -topk8 -nocrypt -in server.key.tmp -out server.key
    cat server.key server.pem >server.keystore.pem
    # client (mTLS)
    openssl req -newkey rsa:2048 -nodes -subj "/CN=offsetctl-client" -keyout client.key.tmp -out client.csr 2>/dev/null
    printf 'extendedKeyUsage=clientAuth\n' >client.ext
    openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
      -extfile client.ext -out client.pem 2>/dev/null
    openssl pkcs8 -topk8 -nocrypt -in client.key.tmp -out client.key
    # a client cert from a CA the broker does not trust
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=rogue CA" \
      -keyout rogue-ca.key -out rogue-ca.pem 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=rogue-client" -keyout rogue.key.tmp -out rogue.csr 2>/dev/null
    openssl x509 -req -in rogue.csr -CA rogue-ca.pem -CAkey rogue-ca.key -CAcreateserial -days 2 \
      -extfile client.ext -out rogue.pem 2>/dev/null
    openssl pkcs8 -topk8 -nocrypt -in rogue.key.tmp -out rogue.key
    rm -f ./*.tmp ./*.csr ./*.ext ./*.srl
    chmod 0644 ./*.pem
  )
}

write_server_properties() {
  cat >"$PROPS" <<EOF
# generated by offsetctl scripts/kafka-secure.sh: single-node KRaft broker+controller with TLS and SCRAM
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:${CONTROLLER_PORT}
listeners=PLAINTEXT://127.0.0.1:${PLAIN_PORT},SASL_SSL://127.0.0.1:${SASL_PORT},SSL://127.0.0.1:${MTLS_PORT},CONTROLLER://127.0.0.1:${CONTROLLER_PORT}
advertised.listeners=PLAINTEXT://127.0.0.1:${PLAIN_PORT},SASL_SSL://127.0.0.1:${SASL_PORT},SSL://127.0.0.1:${MTLS_PORT}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL
sasl.enabled.mechanisms=SCRAM-SHA-512,SCRAM-SHA-256,OAUTHBEARER
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
# OAUTHBEARER with Kafka's default (unsecured-JWS) validator: tests mint their own alg=none tokens.
listener.name.sasl_ssl.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="broker";
ssl.keystore.type=PEM
ssl.keystore.location=${CERTS}/server.keystore.pem
ssl.truststore.type=PEM
ssl.truststore.location=${CERTS}/ca.pem
listener.name.ssl.ssl.client.auth=required
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
allow.everyone.if.no.acl.found=true
super.users=User:ANONYMOUS
log.dirs=${DATADIR}
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=3
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=3
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
group.consumer.min.heartbeat.interval.ms=500
group.consumer.heartbeat.interval.ms=1000
group.consumer.min.session.timeout.ms=6000
group.consumer.session.timeout.ms=10000
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
EOF
}

# ------------------------------------------------------------- broker ------

launch() { # start the JVM on the existing data dir and wait for all listeners
  classpath
  command -v "$JAVA" >/dev/null || die "java not found"
  [[ -f "$PROPS" && -d "$DATADIR" ]] || die "no formatted broker in $WORKDIR: run start first"
  if running_pid >/dev/null; then
    log "broker already running (pid $(running_pid))"
    return 0
  fi
  local p
  for p in "$PLAIN_PORT" "$SASL_PORT" "$MTLS_PORT" "$CONTROLLER_PORT"; do
    port_open "$p" && die "port $p is already in use by another process (set KAFKA_SECURE_PORT_BASE)"
  done
  mkdir -p "$LOGDIR"
  nohup setsid "$JAVA" -Xms256m -Xmx1g -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
    -Djava.awt.headless=true -Xshare:auto \
    -Dlog4j2.configurationFile="$LOG4J" -Dkafka.logs.dir="$LOGDIR" \
    -Doffsetctl.log.file="$LOGDIR/server.log" -Doffsetctl.log.level="$LOG_LEVEL" \
    -cp "$CP" kafka.Kafka "$PROPS" >>"$BROKER_OUT" 2>&1 </dev/null &
  local pid=$! t0
  t0=$(date +%s)
  echo "$pid" >"$PIDFILE"
  local deadline=$(( t0 + START_TIMEOUT ))
  while :; do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "broker process $pid exited during startup"
      broker_log_tail
      rm -f "$PIDFILE"
      exit 1
    fi
    if broker_answers; then break; fi
    if (( $(date +%s) >= deadline )); then
      log "broker did not answer within ${START_TIMEOUT}s"
      broker_log_tail
      cmd_stop >/dev/null 2>&1 || true
      exit 1
    fi
    sleep 0.5
  done
  log "secure Kafka up (pid $pid, $(( $(date +%s) - t0 ))s, workdir $WORKDIR)"
}

cmd_start() {
  classpath
  cmd_stop >/dev/null 2>&1 || true
  mkdir -p "$WORKDIR"
  rm -rf "$DATADIR" "$LOGDIR"
  rm -f "$BROKER_OUT" "$PIDFILE"
  mkdir -p "$DATADIR" "$LOGDIR"
  gen_certs
  write_server_properties
  (umask 077; openssl rand -hex 16 >"$PASSFILE"; openssl rand -hex 16 >"$DENIED_PASSFILE")
  local pass dpass cluster_id
  pass="$(cat "$PASSFILE")"
  dpass="$(cat "$DENIED_PASSFILE")"
  cluster_id="$("$JAVA" "${TOOL_JVM_OPTS[@]}" -Dlog4j2.configurationFile="$LOG4J" \
    -Doffsetctl.log.file="$LOGDIR/storage.log" -cp "$CP" kafka.tools.StorageTool random-uuid)"
  [[ -n "$cluster_id" ]] || die "StorageTool random-uuid printed nothing"
  # The password goes through argv of this short-lived local JVM only: the
  # throwaway test broker has no other way to seed SCRAM users before start.
  if ! "$JAVA" "${TOOL_JVM_OPTS[@]}" -Dlog4j2.configurationFile="$LOG4J" \
      -Doffsetctl.log.file="$LOGDIR/storage.log" -cp "$CP" kafka.tools.StorageTool format \
      -t "$cluster_id" -c "$PROPS" \
      --add-scram "SCRAM-SHA-512=[name=$USER_NAME,password=$pass]" \
      --add-scram "SCRAM-SHA-256=[name=$USER_NAME,password=$pass]" \
      --add-scram "SCRAM-SHA-512=[name=$DENIED_USER,password=$dpass]" >"$WORKDIR/format.out" 2>&1; then
    sed -e "s/$pass/<redacted>/g" -e "s/$dpass/<redacted>/g" "$WORKDIR/format.out" >&2
    die "storage format failed"
  fi
  launch
  add_acls
  cmd_env
}

add_acls() { # the ACLs need a running broker (StandardAuthorizer keeps them in the metadata log)
  acl --allow-principal 'User:*'
  acl --deny-principal "User:$DENIED_USER"
  acl_offsets_topic --allow-principal 'User:*'
  acl_offsets_topic --deny-principal "User:$DENIED_USER"
}

acl_offsets_topic() { # acl_offsets_topic --allow-principal|--deny-principal P: DESCRIBE and READ on __consumer_offsets
  "$JAVA" "${TOOL_JVM_OPTS[@]}" -Dlog4j2.configurationFile="$LOG4J" \
    -Doffsetctl.log.file="$LOGDIR/tools.log" -cp "$CP" org.apache.kafka.tools.AclCommand \
    --bootstrap-server "127.0.0.1:$PLAIN_PORT" --add "$1" "$2" --operation Describe --operation Read \
    --topic __consumer_offsets >>"$WORKDIR/acls.out" 2>&1 \
    || { cat "$WORKDIR/acls.out" >&2; die "adding ACLs failed"; }
}

acl() { # acl --allow-principal|--deny-principal P: WRITE on TransactionalId offsetctl-reset-*
  "$JAVA" "${TOOL_JVM_OPTS[@]}" -Dlog4j2.configurationFile="$LOG4J" \
    -Doffsetctl.log.file="$LOGDIR/tools.log" -cp "$CP" org.apache.kafka.tools.AclCommand \
    --bootstrap-server "127.0.0.1:$PLAIN_PORT" --add "$1" "$2" --operation Write \
    --transactional-id offsetctl-reset- --resource-pattern-type prefixed >>"$WORKDIR/acls.out" 2>&1 \
    || { cat "$WORKDIR/acls.out" >&2; die "adding ACLs failed"; }
}

cmd_env() {
  cat <<EOF
OFFSETCTL_SECURE_PLAINTEXT=127.0.0.1:$PLAIN_PORT
OFFSETCTL_SECURE_SASL_SSL=127.0.0.1:$SASL_PORT
OFFSETCTL_SECURE_MTLS=127.0.0.1:$MTLS_PORT
OFFSETCTL_SECURE_CA=$CERTS/ca.pem
OFFSETCTL_SECURE_CLIENT_CERT=$CERTS/client.pem
OFFSETCTL_SECURE_CLIENT_KEY=$CERTS/client.key
OFFSETCTL_SECURE_ROGUE_CERT=$CERTS/rogue.pem
OFFSETCTL_SECURE_ROGUE_KEY=$CERTS/rogue.key
OFFSETCTL_SECURE_USER=$USER_NAME
OFFSETCTL_SECURE_PASSWORD_FILE=$PASSFILE
OFFSETCTL_SECURE_DENIED_USER=$DENIED_USER
OFFSETCTL_SECURE_DENIED_PASSWORD_FILE=$DENIED_PASSFILE
OFFSETCTL_SECURE_SCRIPT=$SELF
EOF
}

cmd_stop() { stop_broker; }

cmd_kill9() {
  local pid i
  pid="$(running_pid)" || die "broker not running"
  kill -KILL "$pid"
  for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && die "broker $pid survived SIGKILL"
  rm -f "$PIDFILE"
  # the listening sockets go with the process; wait until the ports are free
  for ((i = 0; i < 100; i++)); do
    port_open "$PLAIN_PORT" || port_open "$SASL_PORT" || port_open "$CONTROLLER_PORT" || break
    sleep 0.1
  done
  log "broker $pid killed with SIGKILL"
}

cmd_status() {
  classpath >/dev/null 2>&1 || true
  if broker_answers; then
    log "secure broker answers on 127.0.0.1:$PLAIN_PORT (pid $(running_pid || echo "?"))"
    return 0
  fi
  log "secure broker not answering on 127.0.0.1:$PLAIN_PORT"
  return 1
}

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
  exit "${1:-2}"
}

case "${1:-}" in
  start) cmd_start ;;
  env) cmd_env ;;
  stop) cmd_stop ;;
  kill9) cmd_kill9 ;;
  freeze) pid="$(running_pid)" || die "broker not running"; kill -STOP "$pid"; log "broker $pid frozen (SIGSTOP)" ;;
  thaw) pid="$(running_pid)" || die "broker not running"; kill -CONT "$pid"; log "broker $pid thawed (SIGCONT)" ;;
  start-again) launch ;;
  restart) cmd_stop; launch ;;
  status) cmd_status ;;
  pid) running_pid || die "broker not running" ;;
  -h|--help|help) usage 0 ;;
  *) log "unknown subcommand: ${1:-}"; usage ;;
esac
