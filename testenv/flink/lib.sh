# shellcheck shell=bash
# Shared by the testenv/flink scripts; sourced, never run.
#
# Layout (all git-ignored):
#   testenv/.cache/flink/            downloads, the unpacked distributions (flink-<version>/), built
#                                    jars (kept across runs); versions side by side
#   testenv/.run/flink/              one cluster: conf/, log/, *.pid, ports, version, env,
#                                    checkpoints/, tmp/ (the default version's shared cluster)
#   testenv/.run/flink-<version>/    the shared cluster of another FLINK_VERSION
#   testenv/.run/flink-<name>/       a dedicated cluster (flinkenv.Dedicated)

set -euo pipefail

# FLINK_DEFAULT_VERSION is the one the shared cluster runs; others (FLINK_VERSION=1.20.5) live
# side by side: their own distribution and jars in the cache, their own default run dir.
FLINK_DEFAULT_VERSION=2.3.0
FLINK_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TESTENV_DIR="$(cd "$FLINK_SCRIPTS_DIR/.." && pwd)"
FLINK_CACHE_DIR="${FLINK_CACHE_DIR:-$TESTENV_DIR/.cache/flink}"
# A run dir records the version its cluster was started with, so the scripts that only get
# FLINK_RUN_DIR (submit.sh, cancel.sh, restart-jm.sh) pick the matching job jar.
if [[ -z "${FLINK_VERSION:-}" && -n "${FLINK_RUN_DIR:-}" && -f "$FLINK_RUN_DIR/version" ]]; then
  FLINK_VERSION="$(cat "$FLINK_RUN_DIR/version")"
fi
FLINK_VERSION="${FLINK_VERSION:-$FLINK_DEFAULT_VERSION}"
[[ "$FLINK_VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || {
  echo "[flink] ERROR: FLINK_VERSION=$FLINK_VERSION is not a version like 2.3.0 or 1.20.5" >&2
  exit 1
}
if [[ "$FLINK_VERSION" == "$FLINK_DEFAULT_VERSION" ]]; then
  FLINK_RUN_DIR="${FLINK_RUN_DIR:-$TESTENV_DIR/.run/flink}"
else
  FLINK_RUN_DIR="${FLINK_RUN_DIR:-$TESTENV_DIR/.run/flink-$FLINK_VERSION}"
fi
FLINK_DIST="$FLINK_CACHE_DIR/flink-$FLINK_VERSION"
FLINK_PLUGINS="$FLINK_CACHE_DIR/plugins-$FLINK_VERSION"
FLINK_JOB_JAR_LINK="$FLINK_CACHE_DIR/knob-job-$FLINK_VERSION.jar"
FLINK_CONF="$FLINK_RUN_DIR/conf"
FLINK_LOG="$FLINK_RUN_DIR/log"
FLINK_ENV_FILE="$FLINK_RUN_DIR/env"
FLINK_PORTS_FILE="$FLINK_RUN_DIR/ports"
FLINK_VERSION_FILE="$FLINK_RUN_DIR/version"

if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
  JAVA="$JAVA_HOME/bin/java"
else
  JAVA="${JAVA:-java}"
fi

JM_CLASS=org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint
TM_CLASS=org.apache.flink.runtime.taskexecutor.TaskManagerRunner

log() { printf '[flink %s %s] %s\n' "$FLINK_VERSION" "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
# shellcheck source=../proc.sh
source "$(dirname "${BASH_SOURCE[0]}")/../proc.sh"

# with_lock FILE takes an exclusive lock on FILE for the rest of the script (hold_lock: child
# scripts inherit it, so restart-jm.sh can call start.sh without deadlocking).
with_lock() { hold_lock "$1" "${FLINK_LOCK_TIMEOUT:-600}"; }

# close_lock_fds closes the lock descriptors in a child that must not hold them (daemons).
# It looks the descriptors up in /proc rather than trusting a variable, which would not survive an
# exec from restart-jm.sh into start.sh.
close_lock_fds() {
  local f fd target
  for f in /proc/"$BASHPID"/fd/*; do
    fd="${f##*/}"
    target="$(readlink "$f" 2>/dev/null || true)"
    case "$target" in
      "$FLINK_RUN_DIR"/*.lock | "$FLINK_CACHE_DIR"/*.lock) eval "exec $fd>&-" ;;
    esac
  done
}

# classpath lists lib/*.jar sorted with flink-dist last, as Flink's config.sh does.
classpath() {
  local cp="" dist="" jar
  for jar in "$FLINK_DIST"/lib/*.jar; do
    case "$(basename "$jar")" in
      flink-dist*) dist="$jar" ;;
      *) cp="${cp:+$cp:}$jar" ;;
    esac
  done
  [[ -n "$dist" ]] || die "no flink-dist jar in $FLINK_DIST/lib; run testenv/flink/fetch.sh"
  echo "$cp:$dist"
}

# default_java_opts prints env.java.opts.all from the distribution's own default config.yaml
# (the --add-opens/--add-exports Flink 1.20 and 2.x need on Java 17).
default_java_opts() {
  sed -n 's/^ *all: *//p' "$FLINK_DIST/conf/config.yaml" | head -n1
}

pid_file() { echo "$FLINK_RUN_DIR/$1.pid"; }

# running_pid prints the pid of COMPONENT (jobmanager|taskmanager) if the recorded process is
# alive and really is ours (entrypoint class and our conf dir on its command line): a recycled
# pid is never reported, so stop.sh can never kill a stranger.
running_pid() {
  local class=$JM_CLASS
  [[ "$1" == taskmanager ]] && class=$TM_CLASS
  recorded_pid "$(pid_file "$1")" "" "$class" "$FLINK_CONF"
}

# stop_component sends TERM to COMPONENT, waits up to FLINK_STOP_TIMEOUT seconds, then KILLs.
stop_component() {
  local comp="$1" pid
  if ! pid="$(running_pid "$comp")"; then
    rm -f "$(pid_file "$comp")"
    return 0
  fi
  stop_pid "$pid" "${FLINK_STOP_TIMEOUT:-30}" "$comp"
  rm -f "$(pid_file "$comp")"
}

# rest_url prints the REST URL: $FLINK_REST_URL if set, else the one the running cluster wrote.
rest_url() { env_url FLINK_REST_URL "$FLINK_ENV_FILE" "Flink cluster" flink; }

# tail_logs [N] prints the end of every log, for errors.
tail_logs() { tail_logs_in "$FLINK_LOG" "${1:-40}"; }

# hash_files prints a short content hash of the given files (cache keys for built jars).
hash_files() {
  cat "$@" | sha256sum | cut -c1-12
}

# otel_reporter_1x prints a directory holding flink-metrics-otel 2.0.0 and the OpenTelemetry jars
# it needs (testenv/flink/otel-reporter-1.x/pom.xml), for a Flink 1.x cluster's trace reporter.
# Fetched once with mvn into testenv/.cache/otel-reporter-1.x/<pom hash>/.
otel_reporter_1x() {
  local pom="$FLINK_SCRIPTS_DIR/otel-reporter-1.x/pom.xml" key dir tmp
  key="$(sha256sum "$pom" | cut -c1-12)"
  dir="$TESTENV_DIR/.cache/otel-reporter-1.x/$key"
  if [[ ! -f "$dir/.done" ]]; then
    command -v mvn >/dev/null || die "mvn not found (needed for Flink 1.x's trace reporter); run testenv/install-deps.sh"
    tmp="$dir.tmp.$$"
    rm -rf "$tmp"
    log "fetching flink-metrics-otel 2.0.0 and the OpenTelemetry SDK for Flink $FLINK_VERSION (mvn)"
    mvn -B -q -f "$pom" dependency:copy-dependencies -DoutputDirectory="$tmp" -DincludeScope=runtime >&2 ||
      { rm -rf "$tmp"; die "mvn could not fetch $pom's dependencies"; }
    touch "$tmp/.done"
    rm -rf "$dir"
    mkdir -p "$(dirname "$dir")"
    mv "$tmp" "$dir"
  fi
  echo "$dir"
}
