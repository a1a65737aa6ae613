# shellcheck shell=bash
# Shared by the testenv/iceberg scripts; sourced, never run.
#
# The Iceberg sink job runs on Flink 1.20 only (iceberg-flink-runtime-1.20). It reuses
# testenv/flink/lib.sh for the cluster side (FLINK_VERSION, FLINK_RUN_DIR, rest_url, classpath,
# with_lock), with FLINK_VERSION defaulting to 1.20.5 instead of the shared default.
#
# Layout (git-ignored):
#   testenv/.cache/iceberg/lib-<iceberg>-<pomhash>/   the jars pom.xml resolves (Maven Central)
#   testenv/.cache/iceberg/iceberg-job-<flink>-<hash>.jar   the job jar (classes + lib/*.jar)
#   testenv/.cache/iceberg/iceberg-job-<flink>.jar   link to the current one

# A run dir records its version (flink/lib.sh reads it); otherwise this job's Flink is 1.20.5.
if [[ -z "${FLINK_VERSION:-}" ]] && ! [[ -n "${FLINK_RUN_DIR:-}" && -f "$FLINK_RUN_DIR/version" ]]; then
  FLINK_VERSION=1.20.5
fi
# shellcheck source=../flink/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../flink/lib.sh"

ICEBERG_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ICEBERG_POM="$ICEBERG_SCRIPTS_DIR/pom.xml"
ICEBERG_VERSION="$(sed -n 's:.*<iceberg.version>\(.*\)</iceberg.version>.*:\1:p' "$ICEBERG_POM")"
ICEBERG_CACHE_DIR="${ICEBERG_CACHE_DIR:-$TESTENV_DIR/.cache/iceberg}"
ICEBERG_JOB_JAR_LINK="$ICEBERG_CACHE_DIR/iceberg-job-$FLINK_VERSION.jar"

log() { printf '[iceberg %s %s] %s\n' "$FLINK_VERSION" "$(date +%H:%M:%S)" "$*" >&2; }

[[ "$FLINK_VERSION" == 1.20.* ]] ||
  die "the Iceberg job needs Flink 1.20 (iceberg-flink-runtime-1.20), not $FLINK_VERSION: set FLINK_VERSION=1.20.5 or FLINK_RUN_DIR of a 1.20 cluster"

# iceberg_lib_dir prints the directory holding the jars for the current pom.xml (its hash in the
# name, so editing the pom fetches again instead of mixing versions).
iceberg_lib_dir() {
  echo "$ICEBERG_CACHE_DIR/lib-$ICEBERG_VERSION-$(sha256sum "$ICEBERG_POM" | cut -c1-12)"
}
