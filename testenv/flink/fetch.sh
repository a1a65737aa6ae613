#!/usr/bin/env bash
# Fetch the Flink distribution (once) and build the test jars (when their sources change).
#
# The distribution comes from PyPI's apache-flink-libraries package (a wheel for 2.1+, an sdist
# for 1.x and 2.0), which carries Flink's lib/, plugins/ and bin/bash-java-utils.jar but no launch
# scripts and no conf/: start.sh runs the entrypoints itself. Everything lands in
# testenv/.cache/flink/ (flink-<version>/, plugins-<version>/, knob-job-<version>-*.jar) and is
# reused; versions live side by side.
#
# Usage: [FLINK_VERSION=1.20.5] testenv/flink/fetch.sh   (idempotent; prints nothing to stdout)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

with_lock "$FLINK_CACHE_DIR/.fetch.lock"
mkdir -p "$FLINK_CACHE_DIR"

fetch_dist() {
  if [[ -f "$FLINK_DIST/.complete" ]]; then
    return
  fi
  local dl="$FLINK_CACHE_DIR/download" pkg tmp top
  mkdir -p "$dl"
  pkg="$(find_package "$dl")"
  if [[ -z "$pkg" ]]; then
    log "downloading apache-flink-libraries==$FLINK_VERSION from PyPI (~230-330 MB, once)"
    python3 -m pip download --no-deps --progress-bar off --dest "$dl" "apache-flink-libraries==$FLINK_VERSION" >&2 ||
      die "pip download apache-flink-libraries==$FLINK_VERSION failed"
    pkg="$(find_package "$dl")"
    [[ -n "$pkg" ]] || die "pip download produced no apache_flink_libraries-$FLINK_VERSION wheel or sdist in $dl (got: $(ls "$dl"))"
  fi
  log "unpacking $(basename "$pkg")"
  tmp="$FLINK_CACHE_DIR/unpack.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  # opt/ (python, sql-client) is not needed to run DataStream jobs.
  case "$pkg" in
    *.whl)
      # 2.x: a wheel with pyflink/{lib,plugins,bin}.
      unzip -q "$pkg" 'pyflink/lib/*' 'pyflink/plugins/*' 'pyflink/bin/*' -d "$tmp" ||
        die "unzip $pkg failed"
      top="$tmp/pyflink"
      ;;
    *.tar.gz)
      # 1.x and 2.0: only an sdist, with the same three directories under <sdist name>/deps/
      # (apache_flink_libraries-V, or apache-flink-libraries-V for 1.19 and older).
      top="$(basename "$pkg" .tar.gz)/deps"
      tar -xzf "$pkg" -C "$tmp" "$top/lib" "$top/plugins" "$top/bin" ||
        die "untar $pkg failed"
      top="$tmp/$top"
      ;;
  esac
  [[ -f "$top/lib/flink-dist-$FLINK_VERSION.jar" ]] || die "$(basename "$pkg") has no lib/flink-dist-$FLINK_VERSION.jar"
  [[ -f "$top/bin/bash-java-utils.jar" ]] || die "$(basename "$pkg") has no bin/bash-java-utils.jar"
  mkdir -p "$top/conf"
  # The distribution's default config.yaml (1.19+) carries env.java.opts.all (JVM flags for Java 17).
  unzip -q -p "$top/lib/flink-dist-$FLINK_VERSION.jar" config.yaml >"$top/conf/config.yaml" ||
    die "flink-dist jar has no default config.yaml (Flink before 1.19 is not supported)"
  grep -q '^ *all: *-' "$top/conf/config.yaml" ||
    die "the default config.yaml of flink-dist $FLINK_VERSION has no env.java.opts.all"
  rm -rf "$FLINK_DIST"
  mv "$top" "$FLINK_DIST"
  rm -rf "$tmp"
  touch "$FLINK_DIST/.complete"
  # The unpacked tree is what we keep; the download would double the disk use.
  rm -f "$pkg"
  log "distribution ready in $FLINK_DIST"
}

# find_package prints the downloaded wheel (2.1+) or sdist (1.x, 2.0) of FLINK_VERSION in DIR, if
# any. The sdists of 1.19 and older are named apache-flink-libraries-V.tar.gz (hyphens).
find_package() {
  ls "$1"/apache_flink_libraries-"$FLINK_VERSION"-*.whl "$1"/apache_flink_libraries-"$FLINK_VERSION".tar.gz \
    "$1"/apache-flink-libraries-"$FLINK_VERSION".tar.gz 2>/dev/null | head -n1 || true
}

# build_reporter compiles the loopback Prometheus reporter and lays out a plugins dir holding only
# the metrics-prometheus plugin (stock jar + ours), so start-up does not scan unused plugins.
build_reporter() {
  local src="$FLINK_SCRIPTS_DIR/reporter/src/org/apache/flink/metrics/prometheus/LoopbackPrometheusReporterFactory.java"
  local stock="$FLINK_DIST/plugins/metrics-prometheus/flink-metrics-prometheus-$FLINK_VERSION.jar"
  local h out dir cls
  [[ -f "$stock" ]] || die "missing $stock"
  h="$(echo "$FLINK_VERSION" | cat - "$src" | sha256sum | cut -c1-12)"
  dir="$FLINK_PLUGINS/metrics-prometheus"
  out="$dir/ce-loopback-prometheus-reporter-$h.jar"
  [[ -f "$out" ]] && return
  log "building loopback Prometheus reporter"
  rm -rf "$FLINK_PLUGINS"
  mkdir -p "$dir"
  cls="$FLINK_CACHE_DIR/build/reporter.$$"
  rm -rf "$FLINK_CACHE_DIR"/build/reporter.*
  mkdir -p "$cls/META-INF/services"
  javac -nowarn -source 11 -target 11 -d "$cls" -cp "$stock:$(classpath)" "$src" 2>&1 | grep -vE 'bootstrap class path|^Note: ' >&2 || true
  [[ -f "$cls/org/apache/flink/metrics/prometheus/LoopbackPrometheusReporterFactory.class" ]] ||
    die "javac of the loopback reporter failed"
  echo org.apache.flink.metrics.prometheus.LoopbackPrometheusReporterFactory \
    >"$cls/META-INF/services/org.apache.flink.metrics.reporter.MetricReporterFactory"
  cp "$stock" "$dir/"
  jar cf "$out.tmp" -C "$cls" .
  mv "$out.tmp" "$out"
  rm -rf "$cls"
}

# build_job compiles the knob job against the distribution's lib/ (no network) into a jar named
# by its content hash; knob-job-<version>.jar points at the current one.
build_job() {
  local srcs h out cls
  mapfile -t srcs < <(find "$FLINK_SCRIPTS_DIR/job/src" -name '*.java' | sort)
  [[ ${#srcs[@]} -gt 0 ]] || die "no job sources under $FLINK_SCRIPTS_DIR/job/src"
  h="$(echo "$FLINK_VERSION" | cat - "${srcs[@]}" | sha256sum | cut -c1-12)"
  out="$FLINK_CACHE_DIR/knob-job-$FLINK_VERSION-$h.jar"
  if [[ ! -f "$out" ]]; then
    log "building knob job"
    cls="$FLINK_CACHE_DIR/build/job.$$"
    rm -rf "$FLINK_CACHE_DIR"/build/job.* # leftovers of a failed build (we hold the lock)
    mkdir -p "$cls"
    javac -nowarn -source 11 -target 11 -d "$cls" -cp "$(classpath)" "${srcs[@]}" 2>&1 | grep -vE 'bootstrap class path|^Note: ' >&2 || true
    [[ -f "$cls/checkpointexplorer/testjob/KnobJob.class" ]] || die "javac of the knob job failed"
    printf 'Main-Class: checkpointexplorer.testjob.KnobJob\n' >"$cls.manifest"
    jar cfm "$out.tmp" "$cls.manifest" -C "$cls" .
    mv "$out.tmp" "$out"
    rm -rf "$cls" "$cls.manifest"
  fi
  ln -sfn "$(basename "$out")" "$FLINK_JOB_JAR_LINK"
}

command -v "$JAVA" >/dev/null || die "java not found (set JAVA_HOME)"
command -v javac >/dev/null || die "javac not found (install a JDK 11+)"
fetch_dist
build_reporter
build_job
