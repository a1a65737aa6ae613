#!/usr/bin/env bash
# Resolve the SeaTunnel Zeta node's jars from Maven Central (once per pom.xml) into
# testenv/.cache/seatunnel/lib-<version>-<pomhash>/. Nothing is built.
#
# Usage: testenv/seatunnel/fetch.sh        (idempotent; prints the lib dir on stdout)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

with_lock "$SEATUNNEL_CACHE_DIR/.fetch.lock"
lib="$(lib_dir)"
if [[ ! -f "$lib/.complete" ]]; then
  command -v mvn >/dev/null || die "mvn not found (apt-get install maven)"
  log "resolving SeaTunnel $SEATUNNEL_VERSION jars with Maven (~130 MB, once)"
  tmp="$lib.tmp.$$"
  rm -rf "$lib".tmp.*
  mvn -q -B -Dstyle.color=never -f "$SEATUNNEL_POM" dependency:copy-dependencies \
    -DoutputDirectory="$tmp" -DincludeScope=runtime >&2 ||
    die "mvn dependency:copy-dependencies on $SEATUNNEL_POM failed"
  ls "$tmp"/seatunnel-engine-server-"$SEATUNNEL_VERSION".jar >/dev/null 2>&1 ||
    die "Maven gave no seatunnel-engine-server-$SEATUNNEL_VERSION.jar in $tmp"
  rm -rf "$lib"
  mv "$tmp" "$lib"
  touch "$lib/.complete"
  # Older lib dirs (another pom) are not used any more.
  find "$SEATUNNEL_CACHE_DIR" -maxdepth 1 -name 'lib-*' -not -path "$lib" -exec rm -rf {} +
  log "jars ready in $lib"
fi
echo "$lib"
