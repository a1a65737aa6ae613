#!/usr/bin/env bash
# The package as a user gets it (make test-package): unpacks the .deb made by `make package`
# into a fresh root with dpkg -x, checks its files, its Depends (apt resolves them on this
# Debian) and the binaries in it (the product builds, no test support; the command line's
# without the window's libraries), runs the installed `checkpoint-explorer version`, opens the
# window from the installed path (the command line runs the window's binary) under Xvfb for a
# user with an old cache in ~/.cache (it must move to ~/.local/share), validates the desktop
# entry and the AppStream metainfo, and checks the tarball holds the same files.
#   testenv/package-test.sh DIR    (DIR holds the .deb and the .tar.gz)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:?usage: package-test.sh DIR}
fail() { echo "package-test: FAIL: $*" >&2; exit 1; }
shopt -s nullglob
debs=("$dir"/checkpoint-explorer_*.deb)
tgzs=("$dir"/checkpoint-explorer-*-linux-*.tar.gz)
[ ${#debs[@]} -eq 1 ] || fail "want one .deb in $dir, found ${#debs[@]} (make package)"
[ ${#tgzs[@]} -eq 1 ] || fail "want one tarball in $dir, found ${#tgzs[@]} (make package)"
deb=$(realpath "${debs[0]}") tgz=$(realpath "${tgzs[0]}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/root"
passed=0
ok() { echo "package-test: ok: $*"; passed=$((passed + 1)); }

# The files, as dpkg lays them out.
dpkg -x "$deb" "$root"
id=$(basename "$root"/usr/share/applications/*.desktop .desktop)
want=(usr/bin/checkpoint-explorer usr/lib/checkpoint-explorer/checkpoint-explorer-window "usr/share/applications/$id.desktop" "usr/share/metainfo/$id.metainfo.xml"
      "usr/share/icons/hicolor/scalable/apps/$id.svg"
      usr/share/doc/checkpoint-explorer/docs/getting-started.md usr/share/doc/checkpoint-explorer/docs-zh/getting-started.md
      usr/lib/systemd/system/checkpoint-explorer-collect.service)
for s in 16 32 48 64 128 256 512; do want+=("usr/share/icons/hicolor/${s}x${s}/apps/$id.png"); done
for f in "${want[@]}"; do [ -s "$root/$f" ] || fail "the package lacks /$f"; done
for s in 16 32 48 64 128 256 512; do
  got=$(identify -format '%wx%h' "$root/usr/share/icons/hicolor/${s}x${s}/apps/$id.png")
  [ "$got" = "${s}x${s}" ] || fail "the ${s}x${s} icon is $got"
done
ok "files: ${#want[@]} in place, icons at their sizes"

# The collector's unit runs the installed binary's collect command and is not enabled: no
# maintainer script, no link under /etc.
unit="$root/usr/lib/systemd/system/checkpoint-explorer-collect.service"
grep -q '^ExecStart=/usr/bin/checkpoint-explorer collect ' "$unit" || fail "the collector unit does not run 'checkpoint-explorer collect'"
[ ! -e "$root/etc/systemd" ] || fail "the package enables a unit under /etc/systemd"
dpkg-deb -I "$deb" | grep -qE ' (postinst|preinst)$' && fail "the package has a maintainer script (the collector must stay disabled)"
if command -v systemd-analyze >/dev/null 2>&1; then
  # Against the package's tree; a container without systemd's own units only lacks the targets.
  systemd-analyze verify --man=no --root="$root" /usr/lib/systemd/system/checkpoint-explorer-collect.service >"$work/unit.out" 2>&1 || true
  if grep -qiE 'unknown key|bad unit file|refusing|invalid|failed to parse|not executable' "$work/unit.out"; then
    cat "$work/unit.out" >&2
    fail "systemd-analyze verify of the collector unit"
  fi
fi
ok "the collector's systemd unit, installed disabled"

# Depends: the WebKitGTK 4.1 and GTK 3 runtimes, names apt knows on this Debian.
depends=$(dpkg-deb -f "$deb" Depends)
for p in libwebkit2gtk-4.1-0 libgtk-3-0; do
  grep -qE "(^|, )$p( |,|$)" <<<"$depends" || fail "Depends lacks $p: $depends"
done
apt-get install -s -qq "$deb" >"$work/apt.out" 2>&1 || { cat "$work/apt.out" >&2; fail "apt cannot resolve the package's Depends"; }
ok "Depends: $depends"

# The installed binaries: the window's is the desktop build (its tags), the command line's
# links none of the window's libraries; no test support linked in either; the version.
bin="$root/usr/bin/checkpoint-explorer"
winbin="$root/usr/lib/checkpoint-explorer/checkpoint-explorer-window"
go version -m "$winbin" | grep -q -- '-tags=desktop,production,webkit2_41' || fail "the packaged window binary is not the desktop build"
if go version -m "$bin" | grep -q -- '-tags='; then fail "the packaged command line was built with tags"; fi
if objdump -p "$bin" | grep -E 'NEEDED +lib(webkit2gtk|gtk-3|gdk-3|javascriptcoregtk)'; then
  fail "the packaged command line links the window's libraries (above)"
fi
for b in "$bin" "$winbin"; do
  if strings "$b" | grep -E 'checkpoint-explorer/(backend/model/modeltest|testenv/)' | head -3 | grep .; then
    fail "$b contains test support (above)"
  fi
done
ver=$("$bin" version) || fail "checkpoint-explorer version failed"
debver=$(dpkg-deb -f "$deb" Version)
gitver=$(git -C "$here" describe --tags --always --dirty)
[[ $ver == "checkpoint-explorer $gitver "* ]] || fail "version says '$ver', git says $gitver"
ok "installed binaries: $ver (package $debver); the command line needs $(objdump -p "$bin" | grep -c NEEDED) libraries, the window $(objdump -p "$winbin" | grep -c NEEDED)"

# The validators.
desktop-file-validate "$root/usr/share/applications/$id.desktop" || fail "desktop-file-validate"
appstreamcli validate --no-net "$root/usr/share/metainfo/$id.metainfo.xml" || fail "appstreamcli validate"
grep -q "<release version=\"$debver\"" "$root/usr/share/metainfo/$id.metainfo.xml" || fail "the metainfo's release is not $debver"
grep -q "^Icon=$id$" "$root/usr/share/applications/$id.desktop" || fail "the desktop entry's icon is not $id"
ok "desktop-file-validate and appstreamcli validate pass"

# The window from the installed path, for a user with a cache in the old place.
home="$work/home"
old="$home/.cache/checkpoint-explorer"
"$bin" --data-dir "$old" import "$here/../app/sample/flink-knobs.ckpt.gz" >"$work/import.out" 2>&1 \
  || { cat "$work/import.out" >&2; fail "seeding the old cache"; }
CE_SMOKE_BIN="$bin" CE_SMOKE_HOME="$home" CE_SMOKE_NAME=package-window "$here/desktop-smoke.sh" >"$work/smoke.out" 2>&1 \
  || { cat "$work/smoke.out" >&2; fail "the installed binary's window"; }
grep "window .* drawn" "$work/smoke.out"
new="$home/.local/share/checkpoint-explorer/cache.db"
[ -s "$new" ] || fail "no cache at $new after the first start"
[ ! -e "$old/cache.db" ] || fail "the old cache $old/cache.db is still there"
log="$home/.local/state/checkpoint-explorer/checkpoint-explorer.log"
grep -q "from=$old/cache.db to=$new" "$log" || fail "the log $log does not tell the move"
listed=$(env -u XDG_DATA_HOME -u XDG_CONFIG_HOME -u XDG_STATE_HOME -u XDG_CACHE_HOME HOME="$home" "$bin" clusters list 2>&1) \
  || fail "clusters list after the move: $listed"
grep -q "capture" <<<"$listed" || fail "the moved cache lacks the imported capture: $listed"
ok "window opened from the installed path; the old cache moved to $new and is read there"

# The tarball: the deb's files under a prefix-relative tree.
mkdir -p "$work/tar"
tar -xzf "$tgz" -C "$work/tar"
(cd "$root/usr" && find . -type f | sort) >"$work/deb.list"
(cd "$work/tar"/checkpoint-explorer-* && find . -type f ! -name README | sort) >"$work/tar.list"
diff -u "$work/deb.list" "$work/tar.list" || fail "the tarball's files differ from the package's"
cmp -s "$root/usr/bin/checkpoint-explorer" "$work/tar"/checkpoint-explorer-*/bin/checkpoint-explorer || fail "the tarball's binary differs"
cmp -s "$winbin" "$work/tar"/checkpoint-explorer-*/lib/checkpoint-explorer/checkpoint-explorer-window || fail "the tarball's window binary differs"
# From the tarball, unpacked anywhere, the command line finds the window beside it.
tarbin=$(echo "$work/tar"/checkpoint-explorer-*/bin/checkpoint-explorer)
CE_SMOKE_BIN="$tarbin" CE_SMOKE_NAME=tarball-window "$here/desktop-smoke.sh" >"$work/smoke-tar.out" 2>&1 \
  || { cat "$work/smoke-tar.out" >&2; fail "the tarball's window"; }
ok "tarball: the same $(wc -l <"$work/deb.list") files; its window opens in place"
echo "$passed passed, 0 failed"
