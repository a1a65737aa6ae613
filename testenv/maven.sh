# shellcheck shell=bash
# Jars resolved from Maven Central into a cache dir of their own, for the testenv fetch scripts;
# sourced after their lib.sh (which defines log and die), never run.

# mvn_runtime_jars POM DIR copies the jars POM depends on at runtime into DIR.
mvn_runtime_jars() {
  mvn -q -B -Dstyle.color=never -f "$1" dependency:copy-dependencies \
    -DoutputDirectory="$2" -DincludeScope=runtime >&2 ||
    die "mvn dependency:copy-dependencies on $1 failed"
}

# fill_jar_dir DIR STALE FILL makes DIR once (DIR/.complete marks it done): FILL runs with a fresh
# DIR.tmp.PID as its argument, which then replaces DIR, and the entries beside DIR that match the
# glob STALE (jars of an earlier list or pom) are removed, as nothing uses them any more. Call it
# holding the fetch's lock.
fill_jar_dir() {
  local dir="$1" stale="$2" fill="$3" tmp
  [[ -f "$dir/.complete" ]] && return 0
  command -v mvn >/dev/null || die "mvn not found (apt-get install maven)"
  tmp="$dir.tmp.$$"
  rm -rf "$dir".tmp.*
  mkdir -p "$tmp"
  "$fill" "$tmp"
  rm -rf "$dir"
  mv "$tmp" "$dir"
  touch "$dir/.complete"
  find "$(dirname "$dir")" -maxdepth 1 -name "$stale" -not -path "$dir" -exec rm -rf {} +
  log "jars ready in $dir"
}
