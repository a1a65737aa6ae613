#!/usr/bin/env bash
# Installs the Debian packages one kind of work needs, only those missing.
#   install-deps.sh build     building: a C toolchain, pkg-config, the GTK 3 and WebKitGTK 4.1 headers
#                             (Go and Node/npm must be present: Debian 12's are too old)
#   install-deps.sh package   building plus what `make package` uses: dpkg-deb (part of dpkg),
#                             rsvg-convert for the icons, desktop-file-validate, appstreamcli
#   install-deps.sh test      packaging plus the test stack: Xvfb, xdotool, xprop, ImageMagick, Chromium,
#                             CJK fonts, Prometheus, curl, jq, unzip, Java 17 and Maven (the Flink and
#                             SeaTunnel test clusters), Tesseract OCR and Python GTK (the window drop test),
#                             dbus-daemon and dunst (the alerts' notification daemon, testenv/notifyenv)
# Idempotent; needs root (or sudo) only when something is missing.
set -euo pipefail
set_name=${1:-build}
build=(build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev)
package=(librsvg2-bin desktop-file-utils appstream)
test=(xvfb xauth x11-utils imagemagick xdotool chromium fonts-noto-cjk prometheus curl jq unzip iproute2
      openjdk-17-jre-headless maven gnome-keyring zsh fish bash-completion
      tesseract-ocr tesseract-ocr-eng python3-gi gir1.2-gtk-3.0 dbus-daemon dunst)
case "$set_name" in
  build)   pkgs=("${build[@]}") ;;
  package) pkgs=("${build[@]}" "${package[@]}") ;;
  test)    pkgs=("${build[@]}" "${package[@]}" "${test[@]}") ;;
  *) echo "install-deps: unknown set '$set_name' (build, package or test)" >&2; exit 2 ;;
esac
need_cmd() { command -v "$1" >/dev/null 2>&1 || { echo "install-deps: $1 is required ($2)" >&2; exit 1; }; }
need_cmd go "Go 1.26 from https://go.dev/dl/ (Debian 12's golang is too old)"
need_cmd node "Node 20 or newer (Debian 12's nodejs 18 is too old for the frontend's Vite)"
need_cmd npm "npm, with Node 20 or newer"
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# A Java or Maven installed outside Debian's packages serves the tests as well.
if [ "$set_name" = test ]; then
  keep=()
  for p in "${missing[@]}"; do
    case "$p" in
      openjdk-17-jre-headless) command -v java >/dev/null 2>&1 || keep+=("$p") ;;
      maven) command -v mvn >/dev/null 2>&1 || keep+=("$p") ;;
      *) keep+=("$p") ;;
    esac
  done
  missing=("${keep[@]}")
fi
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps ($set_name): installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Debian's prometheus package may start a system service; the tests run their own.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet prometheus 2>/dev/null; then
  $SUDO systemctl disable --now prometheus >/dev/null 2>&1 || true
fi
echo "install-deps ($set_name): done"
