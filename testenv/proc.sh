# shellcheck shell=bash
# Process, port and env-file helpers shared by the testenv/*/lib.sh scripts; sourced, never run.
# Each service's lib.sh defines log() and die() before sourcing this.

# free_port prints a free TCP port on 127.0.0.1.
free_port() {
  # Below the kernel's ephemeral range: a port from it (bind to :0) can be taken meanwhile by any
  # outgoing connection's local end, and a busy run makes thousands (a JobManager failed to bind
  # its reporter port that way); random, so concurrent starts rarely pick the same.
  python3 - <<'PY'
import random, socket
try:
    low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
except (OSError, ValueError, IndexError):
    low = 32768
lo, hi = 10000, max(10001, low - 1)
for _ in range(200):
    p = random.randint(lo, hi)
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", p))
    except OSError:
        continue
    finally:
        s.close()
    print(p)
    break
else:
    s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()
PY
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

# hold_lock FILE SECONDS takes an exclusive lock on FILE for the rest of the script, waiting up to
# SECONDS. Child scripts inherit the lock (and the descriptor) and do not take it again, so one
# script can run another under the same lock (restart-jm.sh runs start.sh). CE_LOCK_FDS lists the
# descriptors taken here.
hold_lock() {
  local file="$1" secs="$2" var="_CE_LOCK_$(basename "$1" | tr -c 'A-Za-z0-9\n' '_')"
  if [[ -n "${!var:-}" ]]; then return 0; fi
  mkdir -p "$(dirname "$file")"
  exec {lockfd}>"$file"
  if ! flock -w "$secs" "$lockfd"; then
    die "timed out waiting for lock $file (another start/stop still running?)"
  fi
  export "$var=1"
  CE_LOCK_FDS="${CE_LOCK_FDS:-} $lockfd"
}

# choose_port VAR RECORDED [USED...] prints the port to start on: $VAR when VAR is a variable's
# name and it is set (that port must be free), else RECORDED when it is free and not in USED, else
# a free one not in USED.
choose_port() {
  local var="$1" rec="$2" p=""
  shift 2
  [[ -n "$var" ]] && p="${!var:-}"
  if [[ -n "$p" ]]; then
    [[ "$p" =~ ^[0-9]+$ ]] || die "$var=$p is not a port number"
    port_free "$p" || die "port $p ($var) is in use on 127.0.0.1"
    echo "$p"
    return
  fi
  if [[ -n "$rec" ]] && port_free "$rec" && [[ " $* " != *" $rec "* ]]; then
    echo "$rec"
    return
  fi
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    p="$(free_port)"
    [[ " $* " != *" $p "* ]] && { echo "$p"; return; }
  done
  die "could not find a free port"
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

# env_url VAR ENV_FILE WHAT DIR prints a service's URL: $VAR when set (without a trailing slash),
# else the VAR= line of ENV_FILE, which the running WHAT wrote (testenv/DIR/start.sh starts it).
env_url() {
  local var="$1" file="$2" what="$3" dir="$4" url="${!1:-}"
  if [[ -n "$url" ]]; then
    echo "${url%/}"
    return
  fi
  [[ -f "$file" ]] || die "no $what: $file missing; run testenv/$dir/start.sh (or set $var)"
  url="$(sed -n "s/^$var=//p" "$file")"
  [[ -n "$url" ]] || die "$var missing in $file"
  echo "$url"
}

# tail_logs_in DIR N prints the last N lines of every *.log and *.out file in DIR (tail_file).
tail_logs_in() {
  local f
  for f in "$1"/*.log "$1"/*.out; do tail_file "$f" "$2"; done
}

# tail_file FILE N prints the last N lines of FILE, under a header, to stderr (nothing when FILE
# is missing or empty).
tail_file() {
  [[ -s "$1" ]] || return 0
  echo "----- tail -n $2 $1" >&2
  tail -n "$2" "$1" >&2
}
