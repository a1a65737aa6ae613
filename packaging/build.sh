#!/usr/bin/env bash
# Makes the Debian package and the tarball from the two built binaries (make package):
#   packaging/build.sh BINARY WINDOW_BINARY GIT_VERSION OUTDIR
# BINARY is the command line and serve (no tags: no window libraries), installed as
# /usr/bin/checkpoint-explorer; WINDOW_BINARY the desktop build (tags
# desktop,production,webkit2_41), which BINARY runs to open the window, installed as
# /usr/lib/checkpoint-explorer/checkpoint-explorer-window (app/cli/windowexec.go looks there).
# GIT_VERSION is what `git describe --tags --always --dirty` said. Writes into OUTDIR
#   checkpoint-explorer_<deb version>_<arch>.deb
#   checkpoint-explorer-<deb version>-linux-<arch>.tar.gz   (the same files, under bin/, lib/
#                                                            and share/)
# and prints both paths. Uses only Debian's tools: dpkg-deb, dpkg-shlibdeps (dpkg-dev),
# rsvg-convert (librsvg2-bin).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: build.sh BINARY WINDOW_BINARY GIT_VERSION OUTDIR"
bin=${1:?$usage}
winbin=${2:?$usage}
gitver=${3:?$usage}
out=${4:?$usage}
APP_ID=${APP_ID:-io.github.checkpoint_explorer.CheckpointExplorer}
HOMEPAGE=${HOMEPAGE:-https://github.com/checkpoint-explorer/checkpoint-explorer}
MAINTAINER_EMAIL=${MAINTAINER_EMAIL:-checkpoint-explorer@users.noreply.github.com}
die() { echo "package: $*" >&2; exit 1; }
for c in dpkg-deb dpkg-shlibdeps rsvg-convert; do
  command -v "$c" >/dev/null || die "$c not found; run testenv/install-deps.sh package"
done
[ -x "$bin" ] || die "no binary at $bin (make package builds it)"
[ -x "$winbin" ] || die "no window binary at $winbin (make package builds it)"

# A Debian version from git describe: v1.2.3 → 1.2.3, v1.2.3-4-gabc → 1.2.3+4.gabc,
# no tag → 0~<commits>.g<hash> (always below a first tagged release), -dirty → +dirty.
debver=$gitver
dirty=""
case "$debver" in *-dirty) dirty=1; debver=${debver%-dirty} ;; esac
if ! git -C "$here" describe --tags --abbrev=0 >/dev/null 2>&1 && [[ $debver =~ ^[0-9a-f]+$ ]]; then
  debver="0~$(git -C "$here" rev-list --count HEAD).g$debver"
elif [[ $debver =~ ^v?([0-9][0-9A-Za-z.~]*)-([0-9]+)-g([0-9a-f]+)$ ]]; then
  debver="${BASH_REMATCH[1]}+${BASH_REMATCH[2]}.g${BASH_REMATCH[3]}"
elif [[ $debver =~ ^v?([0-9][0-9A-Za-z.~]*)$ ]]; then
  debver="${BASH_REMATCH[1]}"
else
  die "cannot make a Debian version of '$gitver'"
fi
[ -n "$dirty" ] && debver="$debver+dirty"
date=$(git -C "$here" log -1 --format=%cs 2>/dev/null || date -u +%F)
arch=$(dpkg --print-architecture)

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/root"
install -D -m 0755 "$bin" "$root/usr/bin/checkpoint-explorer"
install -D -m 0755 "$winbin" "$root/usr/lib/checkpoint-explorer/checkpoint-explorer-window"
# The headless collector's unit, installed disabled (no postinst enables it).
install -D -m 0644 "$here/checkpoint-explorer-collect.service" "$root/usr/lib/systemd/system/checkpoint-explorer-collect.service"
subst() {
  sed -e "s|@APP_ID@|$APP_ID|g" -e "s|@VERSION@|$debver|g" -e "s|@DATE@|$date|g" \
      -e "s|@HOMEPAGE@|$HOMEPAGE|g" \
      -e "s|@MAINTAINER_EMAIL@|$MAINTAINER_EMAIL|g" "$@"
}
install -d "$root/usr/share/applications" "$root/usr/share/metainfo"
subst "$here/checkpoint-explorer.desktop.in" >"$root/usr/share/applications/$APP_ID.desktop"
subst "$here/metainfo.xml.in" >"$root/usr/share/metainfo/$APP_ID.metainfo.xml"
for s in 16 32 48 64 128 256 512; do
  d="$root/usr/share/icons/hicolor/${s}x${s}/apps"
  install -d "$d"
  rsvg-convert -w "$s" -h "$s" "$here/icon.svg" -o "$d/$APP_ID.png"
done
install -D -m 0644 "$here/icon.svg" "$root/usr/share/icons/hicolor/scalable/apps/$APP_ID.svg"
# The documentation, which Help → Documentation opens (English and Chinese).
doc="$root/usr/share/doc/checkpoint-explorer"
install -d "$doc"
cp -r "$here/../docs" "$here/../docs-zh" "$doc/"
install -m 0644 "$here/../README.md" "$doc/README.md"
find "$root" -type d -exec chmod 0755 {} +
find "$root/usr/share" -type f -exec chmod 0644 {} +

# Depends from the libraries the binary links (dpkg-shlibdeps reads Debian's shlibs files).
mkdir -p "$stage/shlibs/debian"
printf 'Source: checkpoint-explorer\n\nPackage: checkpoint-explorer\nArchitecture: any\n' >"$stage/shlibs/debian/control"
depends=$(cd "$stage/shlibs" && dpkg-shlibdeps -O "$root/usr/bin/checkpoint-explorer" \
  "$root/usr/lib/checkpoint-explorer/checkpoint-explorer-window" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || die "dpkg-shlibdeps found no dependencies of $bin and $winbin"
for need in libwebkit2gtk-4.1-0 libgtk-3-0; do
  grep -q "\b$need\b" <<<"$depends" || die "the window binary does not link $need (Depends: $depends): not the desktop build?"
done
if objdump -p "$bin" 2>/dev/null | grep -E 'NEEDED +lib(webkit2gtk|gtk-3)' >/dev/null; then
  die "$bin links the window's libraries: it should be the build without tags"
fi

install -d "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
subst "$here/control.in" | sed -e "s|@ARCH@|$arch|" -e "s|@SIZE_KB@|$size|" -e "s|@DEPENDS@|$depends|" >"$root/DEBIAN/control"

mkdir -p "$out"
deb="$out/checkpoint-explorer_${debver}_${arch}.deb"
tgz="$out/checkpoint-explorer-${debver}-linux-${arch}.tar.gz"
rm -f "$out"/checkpoint-explorer_*.deb "$out"/checkpoint-explorer-*-linux-*.tar.gz
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null

# The tarball: the same files relative to a prefix (/usr/local, ~/.local, ...).
top="checkpoint-explorer-$debver"
mkdir -p "$stage/tar/$top"
cp -a "$root/usr/." "$stage/tar/$top/"
cat >"$stage/tar/$top/README" <<EOF
Checkpoint Explorer $debver ($gitver) for Linux ($arch).
Needs WebKitGTK 4.1 and GTK 3 (Debian/Ubuntu: libwebkit2gtk-4.1-0; Fedora: webkit2gtk4.1;
Arch: webkit2gtk-4.1). Install into a prefix, e.g. for yourself:
  tar -xzf $(basename "$tgz") --strip-components=1 -C ~/.local --exclude=README
or for everyone: the same with -C /usr/local (as root). bin/checkpoint-explorer is the app;
it opens the window with lib/checkpoint-explorer/checkpoint-explorer-window. share/ holds
its desktop entry, icons and AppStream metainfo.
EOF
tar --owner=0 --group=0 --numeric-owner -C "$stage/tar" -czf "$tgz" "$top"
echo "$deb"
echo "$tgz"
