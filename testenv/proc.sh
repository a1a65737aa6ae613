# shellcheck shell=bash
# Process and port helpers shared by the testenv/*/lib.sh scripts; sourced, never run.
# Each service's lib.sh defines log() before sourcing this.

# free_port prints a free TCP port on 127.0.0.1.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# port_free reports whether PORT can be bound on 127.0.0.1 now. SO_REUSEADDR as Netty and the
# JDK set it on Linux: connections in TIME_WAIT after a killed process do not block the port.
port_free() {
  python3 - "$1" <<'PY'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)
finally:
    s.close()
PY
}

# stop_pid PID SECONDS WHAT sends TERM to PID (which the caller has checked is ours), waits up
# to SECONDS for it to exit, then KILLs it and waits.
stop_pid() {
  local pid="$1" secs="$2" what="$3" i
  log "stopping $what (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < secs * 10; i++)); do
    [[ -d "/proc/$pid" ]] || return 0
    sleep 0.1
  done
  log "$what (pid $pid) ignored TERM; sending KILL"
  kill -KILL "$pid" 2>/dev/null || true
  while [[ -d "/proc/$pid" ]]; do sleep 0.1; done
}

# recorded_pid PIDFILE EXE PATTERN... prints the pid PIDFILE records if that process is alive
# and ours: unless EXE is "", its executable is EXE (or EXE.tmp.*, a build in progress; or EXE
# replaced while it runs), and its command line contains every PATTERN. A recycled pid or anyone
# else's process is never reported, so a stop script never kills a stranger.
recorded_pid() {
  local file="$1" want="$2" pid cmd exe p
  shift 2
  [[ -f "$file" ]] || return 1
  pid="$(cat "$file")"
  [[ "$pid" =~ ^[0-9]+$ && -r "/proc/$pid/cmdline" ]] || return 1
  if [[ -n "$want" ]]; then
    exe="$(readlink "/proc/$pid/exe" 2>/dev/null || true)"
    exe="${exe% (deleted)}"
    [[ "$exe" == "$want" || "$exe" == "$want".tmp.* ]] || return 1
  fi
  cmd="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)"
  for p in "$@"; do
    [[ "$cmd" == *"$p"* ]] || return 1
  done
  echo "$pid"
}

# listens reports whether PID holds the listening socket of 127.0.0.1:PORT.
listens() {
  local pid="$1" port="$2" hexport inode
  hexport="$(printf '%04X' "$port")"
  inode="$(awk -v a="0100007F:$hexport" '$2 == a && $4 == "0A" {print $10; exit}' /proc/net/tcp)"
  [[ -n "$inode" ]] || return 1
  ls -l "/proc/$pid/fd" 2>/dev/null | grep -q "socket:\[$inode\]"
}

# tail_file FILE N prints the last N lines of FILE, under a header, to stderr (nothing when FILE
# is missing or empty).
tail_file() {
  [[ -s "$1" ]] || return 0
  echo "----- tail -n $2 $1" >&2
  tail -n "$2" "$1" >&2
}
