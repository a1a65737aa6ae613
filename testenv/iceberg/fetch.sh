#!/usr/bin/env bash
# Resolve the Iceberg Flink runtime and the Hadoop jars it needs from Maven Central (once per
# pom.xml) and build the Iceberg sink job against Flink 1.20's lib/ (when its sources change).
#
# The job jar holds the job's classes and those of the jars Maven resolved (a fat jar, uploaded
# with the job): nothing is installed into the cluster, other jobs on it are unaffected, and the
# job's class loader (child-first) is dropped when the job ends (see ClassLoaderCleanup.java).
#
# Usage: [FLINK_VERSION=1.20.5] testenv/iceberg/fetch.sh   (idempotent; prints the job jar path)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=../maven.sh
source "$TESTENV_DIR/maven.sh"

# Flink 1.20's distribution (its lib/ is the compile class path); takes its own lock.
FLINK_VERSION="$FLINK_VERSION" "$FLINK_SCRIPTS_DIR/fetch.sh"

with_lock "$ICEBERG_CACHE_DIR/.iceberg-fetch.lock"
mkdir -p "$ICEBERG_CACHE_DIR"

# iceberg_jars DIR: the Iceberg runtime and the Hadoop jars it needs, from pom.xml.
iceberg_jars() {
  log "resolving iceberg-flink-runtime-1.20 $ICEBERG_VERSION and Hadoop jars with Maven (~48 MB, once)"
  mvn_runtime_jars "$ICEBERG_POM" "$1"
  [[ -f "$1/iceberg-flink-runtime-1.20-$ICEBERG_VERSION.jar" ]] ||
    die "Maven gave no iceberg-flink-runtime-1.20-$ICEBERG_VERSION.jar in $1"
}

fetch_jars() {
  local lib
  lib="$(iceberg_lib_dir)"
  fill_jar_dir "$lib" 'lib-*' iceberg_jars
  echo "$lib"
}

# build_job compiles the job and merges it with the jars Maven resolved into one jar, named by the
# hash of its sources, the pom and the Flink version; iceberg-job-<version>.jar points at the
# current one. One flat jar, not jars nested under lib/: Flink would extract nested ones into the
# JobManager's java.io.tmpdir on every submission (~48 MB) and leave them there until it exits.
build_job() {
  local lib="$1" srcs h out cls cp j s
  mapfile -t srcs < <(find "$ICEBERG_SCRIPTS_DIR/job/src" -name '*.java' | sort)
  [[ ${#srcs[@]} -gt 0 ]] || die "no job sources under $ICEBERG_SCRIPTS_DIR/job/src"
  h="$(echo "$FLINK_VERSION" | cat - "$ICEBERG_POM" "${srcs[@]}" "${BASH_SOURCE[0]}" | sha256sum | cut -c1-12)"
  out="$ICEBERG_CACHE_DIR/iceberg-job-$FLINK_VERSION-$h.jar"
  if [[ ! -f "$out" ]]; then
    log "building the Iceberg sink job"
    cls="$ICEBERG_CACHE_DIR/build.$$"
    rm -rf "$ICEBERG_CACHE_DIR"/build.* # leftovers of a failed build (we hold the lock)
    mkdir -p "$cls/classes" "$cls/fat" "$cls/services"
    cp="$(classpath):$(find "$lib" -name '*.jar' | sort | tr '\n' ':')"
    javac -nowarn -source 11 -target 11 -d "$cls/classes" -cp "$cp" "${srcs[@]}" 2>&1 |
      grep -vE 'bootstrap class path|^Note: ' >&2 || true
    [[ -f "$cls/classes/checkpointexplorer/icebergjob/IcebergJob.class" ]] || die "javac of the Iceberg job failed"
    # The dependencies' classes and resources; their service files concatenated; no signatures,
    # manifests or module descriptors. (Iceberg's runtime shades what it bundles: no overlaps.)
    for j in "$lib"/*.jar; do
      unzip -q -o "$j" -d "$cls/fat" -x 'META-INF/MANIFEST.MF' 'META-INF/*.SF' 'META-INF/*.DSA' \
        'META-INF/*.RSA' 'META-INF/*.EC' 'module-info.class' 'META-INF/versions/*' 'META-INF/services/*' \
        2>"$cls/unzip.err" || { cat "$cls/unzip.err" >&2; die "unzip $j failed"; }
      while read -r s; do
        [[ -n "$s" && "$s" != */ ]] || continue
        { unzip -p "$j" "$s"; echo; } >>"$cls/services/${s#META-INF/services/}"
      done < <(unzip -Z1 "$j" 'META-INF/services/*' 2>/dev/null || true)
    done
    mkdir -p "$cls/fat/META-INF/services"
    cp "$cls"/services/* "$cls/fat/META-INF/services/" 2>/dev/null || true
    cp -r "$cls/classes/." "$cls/fat/"
    printf 'Main-Class: checkpointexplorer.icebergjob.IcebergJob\n' >"$cls/manifest"
    jar -c -f "$out.tmp" -m "$cls/manifest" -C "$cls/fat" .
    mv "$out.tmp" "$out"
    rm -rf "$cls"
    find "$ICEBERG_CACHE_DIR" -maxdepth 1 -name "iceberg-job-$FLINK_VERSION-*.jar" -not -path "$out" -delete
  fi
  ln -sfn "$(basename "$out")" "$ICEBERG_JOB_JAR_LINK"
  echo "$out"
}

command -v javac >/dev/null || die "javac not found (install a JDK 11+)"
lib="$(fetch_jars)"
build_job "$lib"
