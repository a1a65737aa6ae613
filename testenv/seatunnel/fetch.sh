#!/usr/bin/env bash
# Resolve the SeaTunnel Zeta node's jars from Maven Central (once per jar list) into
# testenv/.cache/seatunnel/lib-<version>-<hash>/. Nothing is built.
#
#   2.3.13: each jar of jars-2.3.13.txt alone (`mvn dependency:get -Dtransitive=false`, then copied
#           from the local repository), the connectors into connectors/, and shim-2.3.8.jar made
#           of the few 2.3.8 classes the connectors need (SHIM_CLASSES).
#   2.3.8:  `mvn dependency:copy-dependencies` on pom-2.3.8.xml.
#
# Usage: SEATUNNEL_VERSION=2.3.13 testenv/seatunnel/fetch.sh   (idempotent; prints the lib dir)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=../maven.sh
source "$TESTENV_DIR/maven.sh"

# fetch_list DIR: every jar of the list, without dependencies.
fetch_list() {
  local dir="$1" repo line dest coord g a v p c path
  repo="${MAVEN_REPO:-$HOME/.m2/repository}"
  while read -r line; do
    [[ -z "$line" || "$line" == \#* ]] && continue
    read -r dest coord <<<"$line"
    IFS=: read -r g a v p c <<<"$coord"
    mvn -q -B -Dstyle.color=never dependency:get -Dtransitive=false -Dartifact="$coord" \
      -Dmaven.repo.local="$repo" >&2 || die "Maven Central did not give $coord"
    path="$repo/${g//.//}/$a/$v/$a-$v${c:+-$c}.${p:-jar}"
    [[ -f "$path" ]] || die "mvn fetched $coord but $path is missing"
    mkdir -p "$dir/$dest"
    cp "$path" "$dir/$dest/"
  done <"$SEATUNNEL_JARS"
  # The shim: only the named classes of the 2.3.8 jars, so nothing else of 2.3.8 shadows 2.3.13.
  local shim="$dir/shim.d" j
  mkdir -p "$shim"
  for j in "$dir"/shim-src/*.jar; do
    (cd "$shim" && unzip -q -o "$j" "${SHIM_CLASSES[@]}" 2>/dev/null) || true
  done
  [[ -n "$(find "$shim" -name 'TableSchemaOptions*.class' -print -quit)" ]] ||
    die "the 2.3.8 jars lack TableSchemaOptions: the shim cannot be made"
  # A jar is a zip; python3's zipfile needs no JDK tools.
  python3 -c 'import os, sys, zipfile
root, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for d, _, files in os.walk(root):
        for f in sorted(files):
            p = os.path.join(d, f)
            z.write(p, os.path.relpath(p, root))' "$shim" "$dir/shim-2.3.8.jar" || die "packing shim-2.3.8.jar failed"
  rm -rf "$shim" "$dir/shim-src"
  # Where the node finds the connectors by plugin name.
  cat >"$dir/connectors/plugin-mapping.properties" <<'EOT'
seatunnel.source.FakeSource = connector-fake
seatunnel.sink.Console = connector-console
EOT
  ls "$dir"/seatunnel-starter-*.jar >/dev/null 2>&1 || die "no seatunnel-starter jar in $dir"
}

# seatunnel_jars DIR: the node's jars, from the pom (2.3.8) or the list (2.3.13).
seatunnel_jars() {
  log "resolving SeaTunnel $SEATUNNEL_VERSION jars with Maven (once)"
  if [[ "$SEATUNNEL_JARS" == *.xml ]]; then
    mvn_runtime_jars "$SEATUNNEL_JARS" "$1"
    ls "$1"/seatunnel-engine-server-"$SEATUNNEL_VERSION".jar >/dev/null 2>&1 ||
      die "Maven gave no seatunnel-engine-server-$SEATUNNEL_VERSION.jar in $1"
  else
    fetch_list "$1"
  fi
}

with_lock "$SEATUNNEL_CACHE_DIR/.fetch-$SEATUNNEL_VERSION.lock"
lib="$(lib_dir)"
fill_jar_dir "$lib" "lib-$SEATUNNEL_VERSION-*" seatunnel_jars
echo "$lib"
