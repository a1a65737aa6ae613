#!/usr/bin/env bash
# Start a standalone Flink session cluster (one JobManager, one TaskManager, separate JVMs) on
# 127.0.0.1 and print its env (also written to testenv/.run/flink/env).
#
# Idempotent: a healthy running cluster is left alone; a missing JobManager or TaskManager is
# started again on the ports recorded in testenv/.run/flink/ports (so URLs stay stable).
#
# FLINK_VERSION (default 2.3.0) picks the distribution; a version other than the default gets its
# own run dir, testenv/.run/flink-<version>, so both can run at once.
#
# Ports come from FLINK_REST_PORT, FLINK_JM_RPC_PORT, FLINK_JM_PROM_PORT, FLINK_TM_PROM_PORT when
# set, else the recorded ones when free, else free ones. FLINK_START_TIMEOUT (s, default 120).
#
# FLINK_TRACES_OTLP_ENDPOINT (e.g. http://127.0.0.1:4317, loopback only) turns on Flink's
# OpenTelemetry trace reporter (plugins/metrics-otel; for 1.19/1.20, which ship none,
# flink-metrics-otel 2.0.0 and its SDK fetched with mvn) sending checkpoint spans over OTLP/gRPC
# at traces.checkpoint.span-detail-level CHILDREN_SPANS_PER_SUBTASK (a key 1.x ignores); service name
# FLINK_TRACES_SERVICE_NAME (default flink-testenv). Unset (the default), the cluster has no trace
# reporter. Give a traced cluster its own FLINK_RUN_DIR (flinkenv.DedicatedTraced does).
#
# FLINK_SCHEDULER (adaptive or default) writes jobmanager.scheduler: a job on an adaptive cluster
# can be rescaled through PUT /jobs/:jobid/resource-requirements (adaptive also keeps the last 10
# rescales in 2.3's /jobs/:jobid/rescales/history). Unset (the default), the config names no
# scheduler (Flink's default one). Give such a cluster its own FLINK_RUN_DIR
# (flinkenv.DedicatedAdaptive does).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

t0=$(date +%s.%N)
"$FLINK_SCRIPTS_DIR/fetch.sh"
with_lock "$FLINK_RUN_DIR/.lock"
mkdir -p "$FLINK_RUN_DIR" "$FLINK_LOG" "$FLINK_RUN_DIR/tmp" "$FLINK_RUN_DIR/checkpoints" \
  "$FLINK_RUN_DIR/savepoints" "$FLINK_RUN_DIR/web-upload"

REST_PORT="" JM_RPC_PORT="" JM_PROM_PORT="" TM_PROM_PORT=""
if [[ -f "$FLINK_PORTS_FILE" ]]; then
  # shellcheck disable=SC1090
  source "$FLINK_PORTS_FILE"
fi

healthy() {
  local n
  n="$(curl -sf --max-time 2 "http://127.0.0.1:$REST_PORT/overview" 2>/dev/null | jq -r '.taskmanagers // 0' 2>/dev/null)" || return 1
  [[ "${n:-0}" -ge 1 ]] || return 1
  curl -sf --max-time 2 -o /dev/null "http://127.0.0.1:$JM_PROM_PORT/metrics" || return 1
  curl -sf --max-time 2 -o /dev/null "http://127.0.0.1:$TM_PROM_PORT/metrics" || return 1
}

write_env() {
  local version
  version="$(curl -sf --max-time 2 "http://127.0.0.1:$REST_PORT/config" | jq -r '."flink-version" // empty')" || true
  cat >"$FLINK_ENV_FILE.tmp" <<EOF
FLINK_REST_URL=http://127.0.0.1:$REST_PORT
FLINK_JM_PROM_PORT=$JM_PROM_PORT
FLINK_TM_PROM_PORT=$TM_PROM_PORT
FLINK_JM_PROM_URL=http://127.0.0.1:$JM_PROM_PORT/metrics
FLINK_TM_PROM_URL=http://127.0.0.1:$TM_PROM_PORT/metrics
FLINK_VERSION=${version:-$FLINK_VERSION}
FLINK_RUN_DIR=$FLINK_RUN_DIR
FLINK_LOG_DIR=$FLINK_LOG
FLINK_CHECKPOINT_DIR=$FLINK_RUN_DIR/checkpoints
FLINK_JM_PID=$(running_pid jobmanager || true)
FLINK_TM_PID=$(running_pid taskmanager || true)
FLINK_TRACES_OTLP_ENDPOINT=$TRACES_ENDPOINT
FLINK_TRACES_SERVICE_NAME=$([[ -n "$TRACES_ENDPOINT" ]] && echo "$TRACES_SERVICE" || true)
EOF
  mv "$FLINK_ENV_FILE.tmp" "$FLINK_ENV_FILE"
  cat "$FLINK_ENV_FILE"
}

jm_pid="$(running_pid jobmanager || true)"
tm_pid="$(running_pid taskmanager || true)"
if [[ -n "$jm_pid$tm_pid" && -f "$FLINK_VERSION_FILE" && "$(cat "$FLINK_VERSION_FILE")" != "$FLINK_VERSION" ]]; then
  die "$FLINK_RUN_DIR runs Flink $(cat "$FLINK_VERSION_FILE"), not $FLINK_VERSION; stop it first or use another FLINK_RUN_DIR"
fi
echo "$FLINK_VERSION" >"$FLINK_VERSION_FILE"

# started_with VAR FILE: $VAR when set, else (restart-jm.sh starting one half again) what FILE
# says the running half was started with, else empty.
started_with() {
  if [[ -z "${!1+set}" && -n "$jm_pid$tm_pid" && -f "$2" ]]; then
    cat "$2"
  else
    echo "${!1:-}"
  fi
}

# record_setting FILE WHAT VALUE: a running half must have been started with VALUE (FILE's);
# FILE records it for the next start.
record_setting() {
  local had
  had="$(cat "$1" 2>/dev/null || true)"
  [[ -z "$jm_pid$tm_pid" || "$had" == "$3" ]] ||
    die "$FLINK_RUN_DIR runs with $2 '$had', not '$3'; stop it first or use another FLINK_RUN_DIR"
  echo "$3" >"$1"
}

TRACES_FILE="$FLINK_RUN_DIR/traces"
TRACES_ENDPOINT="$(started_with FLINK_TRACES_OTLP_ENDPOINT "$TRACES_FILE")"
TRACES_SERVICE="${FLINK_TRACES_SERVICE_NAME:-flink-testenv}"
if [[ -n "$TRACES_ENDPOINT" ]]; then
  [[ "$TRACES_ENDPOINT" =~ ^http://(127\.[0-9]+\.[0-9]+\.[0-9]+|localhost|\[::1\]):[0-9]+/?$ ]] ||
    die "FLINK_TRACES_OTLP_ENDPOINT=$TRACES_ENDPOINT: want http://127.0.0.1:PORT (a loopback OTLP/gRPC receiver)"
  if [[ "$FLINK_VERSION" == 1.* ]]; then
    # 1.x ships no OpenTelemetry reporter: 2.0.0's, with its SDK (otel_reporter_1x).
    [[ "$FLINK_VERSION" =~ ^1\.(19|20)\. ]] ||
      die "FLINK_TRACES_OTLP_ENDPOINT: Flink $FLINK_VERSION has no trace reporter API (1.19+)"
    OTEL_PLUGIN_SRC="$(otel_reporter_1x)"
  else
    OTEL_PLUGIN_SRC="$FLINK_DIST/plugins/metrics-otel"
    [[ -f "$OTEL_PLUGIN_SRC/flink-metrics-otel-$FLINK_VERSION.jar" ]] ||
      die "no $OTEL_PLUGIN_SRC/flink-metrics-otel-$FLINK_VERSION.jar"
  fi
fi
record_setting "$TRACES_FILE" "trace endpoint" "$TRACES_ENDPOINT"
SCHEDULER="$(started_with FLINK_SCHEDULER "$FLINK_RUN_DIR/scheduler")"
[[ "$SCHEDULER" =~ ^(|adaptive|default)$ ]] || die "FLINK_SCHEDULER=$SCHEDULER: want adaptive or default"
record_setting "$FLINK_RUN_DIR/scheduler" scheduler "$SCHEDULER"
if [[ -n "$TRACES_ENDPOINT" ]]; then
  # A plugins dir of this cluster's own: the shared one (metrics-prometheus) plus metrics-otel,
  # copied (Flink's plugin finder does not follow a symlinked plugin dir).
  plugins="$FLINK_RUN_DIR/plugins"
  if [[ -z "$jm_pid$tm_pid" ]]; then
    rm -rf "$plugins"
    mkdir -p "$plugins"
    cp -a "$FLINK_PLUGINS/metrics-prometheus" "$plugins/"
    mkdir -p "$plugins/metrics-otel"
    cp -a "$OTEL_PLUGIN_SRC/." "$plugins/metrics-otel/"
    rm -f "$plugins/metrics-otel/.done"
  fi
  FLINK_PLUGINS="$plugins"
fi
if [[ -n "$jm_pid" && -n "$tm_pid" ]] && healthy; then
  log "already running (jobmanager pid $jm_pid, taskmanager pid $tm_pid)"
  write_env
  exit 0
fi

# wait_port_free PORT: a JobManager that just died may hold its ports for a moment.
wait_port_free() {
  local i
  for ((i = 0; i < 100; i++)); do
    port_free "$1" && return 0
    sleep 0.3
  done
  die "port $1 on 127.0.0.1 still in use after 30 s; the TaskManager knows the JobManager only there (stop.sh, then start.sh)"
}

if [[ -z "$jm_pid" && -n "$tm_pid" ]]; then
  # A TaskManager only re-registers with a JobManager at the address it knows, and clients keep
  # their URLs: the JobManager comes back on exactly its recorded ports.
  [[ -n "$JM_RPC_PORT" && -n "$REST_PORT" && -n "$JM_PROM_PORT" ]] ||
    die "taskmanager running but no recorded JobManager ports; run stop.sh first"
  for p in "$REST_PORT" "$JM_RPC_PORT" "$JM_PROM_PORT"; do wait_port_free "$p"; done
elif [[ -z "$jm_pid" ]]; then
  REST_PORT="$(choose_port FLINK_REST_PORT "$REST_PORT")"
  JM_RPC_PORT="$(choose_port FLINK_JM_RPC_PORT "$JM_RPC_PORT" "$REST_PORT")"
  JM_PROM_PORT="$(choose_port FLINK_JM_PROM_PORT "$JM_PROM_PORT" "$REST_PORT" "$JM_RPC_PORT")"
fi
if [[ -z "$tm_pid" ]]; then
  TM_PROM_PORT="$(choose_port FLINK_TM_PROM_PORT "$TM_PROM_PORT" "$REST_PORT" "$JM_RPC_PORT" "$JM_PROM_PORT")"
fi
cat >"$FLINK_PORTS_FILE" <<EOF
REST_PORT=$REST_PORT
JM_RPC_PORT=$JM_RPC_PORT
JM_PROM_PORT=$JM_PROM_PORT
TM_PROM_PORT=$TM_PROM_PORT
EOF

reporter_factory=org.apache.flink.metrics.prometheus.LoopbackPrometheusReporterFactory
if [[ "${FLINK_PROM_REPORTER:-loopback}" == stock ]]; then
  # The stock reporter has no host option and listens on all interfaces.
  reporter_factory=org.apache.flink.metrics.prometheus.PrometheusReporterFactory
fi

write_conf() {
  mkdir -p "$FLINK_CONF"
  cat >"$FLINK_CONF/config.yaml" <<EOF
# Generated by testenv/flink/start.sh; edits are overwritten.
jobmanager.rpc.address: 127.0.0.1
jobmanager.rpc.port: $JM_RPC_PORT
jobmanager.bind-host: 127.0.0.1
jobmanager.memory.process.size: ${FLINK_JM_MEMORY:-768m}
jobmanager.execution.failover-strategy: region
taskmanager.host: 127.0.0.1
taskmanager.bind-host: 127.0.0.1
taskmanager.numberOfTaskSlots: ${FLINK_TM_SLOTS:-8}
taskmanager.memory.process.size: ${FLINK_TM_MEMORY:-1536m}
# The default 0.4 would leave the heap small; hashmap state lives on the heap.
taskmanager.memory.managed.fraction: 0.1
parallelism.default: 1
rest.address: 127.0.0.1
rest.bind-address: 127.0.0.1
rest.port: $REST_PORT
rest.bind-port: "$REST_PORT"
blob.server.port: "0"
metrics.reporter.prom.factory.class: $reporter_factory
metrics.reporter.prom.host: 127.0.0.1
# Per process, overridden on each command line: JobManager and TaskManager get their own port.
metrics.reporter.prom.port: "$JM_PROM_PORT"
execution.checkpointing.dir: "file://$FLINK_RUN_DIR/checkpoints"
execution.checkpointing.savepoint-dir: "file://$FLINK_RUN_DIR/savepoints"
# Kept when the JobManager goes away (suspended), so a job can be resubmitted from it after
# restart-jm.sh; cancel.sh deletes a cancelled job's directory.
execution.checkpointing.externalized-checkpoint-retention: RETAIN_ON_CANCELLATION
restart-strategy.type: fixed-delay
restart-strategy.fixed-delay.attempts: 1000000
restart-strategy.fixed-delay.delay: 1 s
# Faster detection of a restarted JobManager than the 50 s default.
heartbeat.interval: 2000
heartbeat.timeout: 15000
# A TaskManager retries reaching a restarted JobManager after 1 s, not 10 s.
cluster.registration.error-delay: 1000
cluster.registration.refused-registration-delay: 1000
io.tmp.dirs: "$FLINK_RUN_DIR/tmp"
web.tmpdir: "$FLINK_RUN_DIR/tmp/web"
web.upload.dir: "$FLINK_RUN_DIR/web-upload"
env.java.opts.all: $(default_java_opts)
EOF
  if [[ "$FLINK_VERSION" == 1.19.* ]]; then
    # execution.checkpointing.dir and .savepoint-dir are 1.20's names: 1.19 ignores them and keeps
    # checkpoints in the JobManager's memory (external_path "<checkpoint-not-externally-addressable>").
    cat >>"$FLINK_CONF/config.yaml" <<EOF
state.checkpoints.dir: "file://$FLINK_RUN_DIR/checkpoints"
state.savepoints.dir: "file://$FLINK_RUN_DIR/savepoints"
EOF
  fi
  if [[ -n "$SCHEDULER" ]]; then
    cat >>"$FLINK_CONF/config.yaml" <<EOF
# FLINK_SCHEDULER: adaptive rescales a running job to the resource requirements it is given.
jobmanager.scheduler: $SCHEDULER
EOF
    if [[ "$SCHEDULER" == adaptive ]]; then
      cat >>"$FLINK_CONF/config.yaml" <<EOF
# Flink 2.3's /jobs/:jobid/rescales/history (off by default; earlier versions ignore the key).
web.adaptive-scheduler.rescale-history.size: 10
EOF
    fi
  fi
  if [[ -n "$TRACES_ENDPOINT" ]]; then
    cat >>"$FLINK_CONF/config.yaml" <<EOF
# Checkpoint spans to an OTLP/gRPC receiver (FLINK_TRACES_OTLP_ENDPOINT): one span per checkpoint
# with a child per task and a grandchild per subtask.
traces.reporter.otel.factory.class: org.apache.flink.traces.otel.OpenTelemetryTraceReporterFactory
traces.reporter.otel.exporter.endpoint: $TRACES_ENDPOINT
traces.reporter.otel.exporter.protocol: gRPC
traces.reporter.otel.service.name: $TRACES_SERVICE
traces.checkpoint.span-detail-level: CHILDREN_SPANS_PER_SUBTASK
EOF
  fi
  cat >"$FLINK_CONF/log4j.properties" <<'EOF'
# Generated by testenv/flink/start.sh. Flink's own layout, rolled at 20 MB and at each start
# (as Flink's own configuration does): a test reads this run's log, not every earlier one's.
monitorInterval = 30
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = MainAppender
logger.pekko.name = org.apache.pekko
logger.pekko.level = INFO
logger.kafka.name = org.apache.kafka
logger.kafka.level = INFO
logger.hadoop.name = org.apache.hadoop
logger.hadoop.level = WARN
logger.zookeeper.name = org.apache.zookeeper
logger.zookeeper.level = INFO
logger.shaded_zookeeper.name = org.apache.flink.shaded.zookeeper3
logger.shaded_zookeeper.level = INFO
logger.netty.name = org.jboss.netty.channel.DefaultChannelPipeline
logger.netty.level = OFF
appender.main.name = MainAppender
appender.main.type = RollingFile
appender.main.append = true
appender.main.fileName = ${sys:log.file}
appender.main.filePattern = ${sys:log.file}.%i
appender.main.layout.type = PatternLayout
appender.main.layout.pattern = %d{yyyy-MM-dd HH:mm:ss,SSS} %-5p %-60c %x - %m%n
appender.main.policies.type = Policies
appender.main.policies.size.type = SizeBasedTriggeringPolicy
appender.main.policies.size.size = 20MB
appender.main.policies.startup.type = OnStartupTriggeringPolicy
appender.main.strategy.type = DefaultRolloverStrategy
appender.main.strategy.max = 5
EOF
}

# bash_java_utils runs Flink's own memory calculation (what jobmanager.sh/taskmanager.sh do) and
# prints its two result lines: JVM memory flags, then -D dynamic memory settings.
bash_java_utils() {
  "$JAVA" -classpath "$FLINK_DIST/bin/bash-java-utils.jar:$(classpath)" \
    -Dlog4j.configurationFile=log4j-bash-utils.properties \
    org.apache.flink.runtime.util.bash.BashJavaUtils "$1" --configDir "$FLINK_CONF" \
    2>>"$FLINK_LOG/bash-java-utils.log" | sed -n 's/^BASH_JAVA_UTILS_EXEC_RESULT://p' ||
    true
}

# launch COMPONENT CLASS RESOURCE_QUERY PROM_PORT starts one detached JVM (own session, stdio to
# log files, so it outlives this script and never holds a caller's pipe open).
launch() {
  local comp="$1" class="$2" query="$3" prom="$4" res jvm dyn
  res="$(bash_java_utils "$query")"
  jvm="$(sed -n 1p <<<"$res")"
  dyn="$(sed -n 2p <<<"$res")"
  [[ -n "$jvm" ]] || {
    tail -n 30 "$FLINK_LOG/bash-java-utils.log" >&2 || true
    die "$comp: Flink's memory calculation (BashJavaUtils $query) gave no result"
  }
  : >"$FLINK_LOG/$comp.out"
  # shellcheck disable=SC2086 # jvm, dyn and java opts are lists of flags
  local java_opts cp
  java_opts="$(default_java_opts)"
  cp="$(classpath)"
  (
    # The daemon must not inherit our lock, or the next start.sh waits for it forever.
    close_lock_fds
    export FLINK_CONF_DIR="$FLINK_CONF" FLINK_PLUGINS_DIR="$FLINK_PLUGINS" \
      FLINK_LIB_DIR="$FLINK_DIST/lib" FLINK_OPT_DIR="$FLINK_DIST/opt" FLINK_HOME="$FLINK_DIST"
    exec setsid nohup "$JAVA" $jvm $java_opts \
      "-Dlog.file=$FLINK_LOG/$comp.log" \
      "-Dlog4j.configuration=file:$FLINK_CONF/log4j.properties" \
      "-Dlog4j.configurationFile=file:$FLINK_CONF/log4j.properties" \
      -classpath "$cp" "$class" --configDir "$FLINK_CONF" $dyn \
      -D "metrics.reporter.prom.port=$prom" \
      >>"$FLINK_LOG/$comp.out" 2>&1 </dev/null
  ) &
  local pid=$!
  echo "$pid" >"$(pid_file "$comp")"
  # Until the forked shell has exec'd java, its command line is not yet the JVM's.
  local i
  for ((i = 0; i < 100; i++)); do
    running_pid "$comp" >/dev/null && break
    [[ -d "/proc/$pid" ]] || break
    sleep 0.1
  done
  log "started $comp (pid $pid)"
}

started=()
fail() {
  log "ERROR: $*"
  tail_logs 40
  local c
  for c in "${started[@]}"; do stop_component "$c"; done
  rm -f "$FLINK_ENV_FILE"
  exit 1
}

rm -f "$FLINK_ENV_FILE"
if [[ -z "$jm_pid" ]]; then
  write_conf
  launch jobmanager "$JM_CLASS" GET_JM_RESOURCE_PARAMS "$JM_PROM_PORT"
  started+=(jobmanager)
fi
if [[ -z "$tm_pid" ]]; then
  [[ -f "$FLINK_CONF/config.yaml" ]] || write_conf
  launch taskmanager "$TM_CLASS" GET_TM_RESOURCE_PARAMS "$TM_PROM_PORT"
  started+=(taskmanager)
fi

deadline=$(($(date +%s) + ${FLINK_START_TIMEOUT:-120}))
until healthy; do
  for c in jobmanager taskmanager; do
    running_pid "$c" >/dev/null || fail "$c exited during start-up"
  done
  (($(date +%s) < deadline)) || fail "not healthy after ${FLINK_START_TIMEOUT:-120}s (REST http://127.0.0.1:$REST_PORT/overview with >= 1 taskmanager, reporters on $JM_PROM_PORT and $TM_PROM_PORT)"
  sleep 0.5
done
log "healthy after $(python3 -c "print(round($(date +%s.%N) - $t0, 1))")s"
write_env
