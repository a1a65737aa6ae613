#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need, only those missing.
# Idempotent; needs root (or sudo) only when something is missing.
set -euo pipefail
pkgs=(build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev
      xvfb xauth imagemagick xdotool chromium fonts-noto-cjk prometheus curl jq unzip gnome-keyring
      zsh fish bash-completion)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
need_cmd() { command -v "$1" >/dev/null 2>&1 || { echo "install-deps: $1 is required ($2)" >&2; exit 1; }; }
need_cmd go "Go 1.26"
need_cmd node "Node 20"
need_cmd npm "npm 11"
need_cmd java "Java 17, for the Flink and SeaTunnel test clusters"
need_cmd mvn "Maven, to fetch the SeaTunnel test node"
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Debian's prometheus package may start a system service; the tests run their own.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet prometheus 2>/dev/null; then
  $SUDO systemctl disable --now prometheus >/dev/null 2>&1 || true
fi
echo "install-deps: done"
