# Shared by scripts/kafka.sh, scripts/kafka-secure.sh and scripts/mm2.sh (sourced, not run):
# the broker process bookkeeping both need. The caller defines log(),
# PIDFILE, LOGDIR and BROKER_OUT.

# The JVM: $JAVA, else $JAVA_HOME/bin/java, else java on the PATH.
if [[ -n "${JAVA:-}" ]]; then :
elif [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then JAVA="$JAVA_HOME/bin/java"
else JAVA="java"; fi

# mvn, quiet, its output to stderr minus the stray colour codes Debian's mvn
# emits even with -B; mvn's exit status.
mvn_q() {
  mvn -q -B -ntp -Dstyle.color=never "$@" 2>&1 </dev/null | sed -e 's/\x1b\[[0-9;]*m//g' -e '/^$/d' >&2
  return "${PIPESTATUS[0]}"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

running_pid() { # prints pid of our broker if it's alive
  [[ -f "$PIDFILE" ]] || return 1
  local pid
  pid="$(cat "$PIDFILE" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  # guard against a recycled pid: must be our kafka.Kafka
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'kafka\.Kafka' || return 1
  echo "$pid"
}

broker_log_tail() {
  local f
  for f in "$LOGDIR/server.log" "$BROKER_OUT"; do
    if [[ -s "$f" ]]; then
      echo "----- tail -n 60 $f -----" >&2
      tail -n 60 "$f" >&2
    fi
  done
}

stop_broker() { # TERM, then KILL after 15 s; idempotent
  local pid
  if ! pid="$(running_pid)"; then
    rm -f "$PIDFILE"
    log "broker not running"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  kill -CONT "$pid" 2>/dev/null || true # a frozen (SIGSTOPped) broker handles SIGTERM only once resumed
  local i
  for ((i = 0; i < 150; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "broker $pid ignored SIGTERM for 15s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$PIDFILE"
  log "broker $pid stopped"
}
