# shellcheck shell=bash
#
# NATS: ensure_nats_server, start_nats, stop_nats (and the pid-file stop MinIO shares).
# Sourced by scripts/lib/infra.sh (which documents the functions); do not source it alone.

_infra_go_bin() {
  if command -v go >/dev/null 2>&1; then
    command -v go
  elif [[ -x /usr/local/go/bin/go ]]; then
    echo /usr/local/go/bin/go
  else
    return 1
  fi
}

ensure_nats_server() {
  local tools bin go
  if [[ -n ${NATS_SERVER_BIN:-} && -x ${NATS_SERVER_BIN} ]]; then
    return 0
  fi
  tools=$(infra_tools_dir)
  if bin=$(command -v nats-server 2>/dev/null); then
    :
  elif [[ -x $tools/bin/nats-server ]]; then
    bin=$tools/bin/nats-server
  elif go=$(_infra_go_bin); then
    infra_log "building nats-server $INFRA_NATS_VERSION (go install, one-off; cached in $tools/bin)"
    GOBIN="$tools/bin" CGO_ENABLED=0 "$go" install \
      "github.com/nats-io/nats-server/v2@$INFRA_NATS_VERSION" >&2 || {
      infra_err "go install nats-server failed"
      return 1
    }
    bin=$tools/bin/nats-server
  else
    infra_log "go not found; installing nats-server via apt"
    infra_apt_install nats-server || return 1
    bin=$(command -v nats-server) || {
      infra_err "nats-server not found after apt install"
      return 1
    }
  fi
  NATS_SERVER_BIN=$bin
  export NATS_SERVER_BIN
  infra_log "nats-server: $NATS_SERVER_BIN ($("$NATS_SERVER_BIN" --version 2>/dev/null || echo '?'))"
}

# True if 127.0.0.1:PORT greets like a NATS server ("INFO {...}").
_infra_is_nats() {
  local line
  # shellcheck disable=SC2016 # $1/$l expand in the child shell
  line=$(timeout 3 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" && IFS= read -r -t 2 l <&3 && printf %s "$l"' _ "$1" 2>/dev/null || true)
  [[ $line == INFO* ]]
}

_infra_export_nats_url() {
  if [[ -z ${NATS_URL:-} ]]; then
    NATS_URL="nats://127.0.0.1:$1"
    export NATS_URL
  fi
}

# start_nats DATA_DIR PORT : the users and permissions come from CATALOG_CREDENTIALS_FILE (made
# next to DATA_DIR when unset); a server already listening on PORT must have been started with it.
start_nats() {
  local data_dir=${1:?usage: start_nats DATA_DIR PORT}
  local port=${2:?usage: start_nats DATA_DIR PORT}
  local logfile pidfile pid conf
  local -a launcher=()
  INFRA_NATS_STARTED=0

  if [[ -z ${NATS_SERVER_BIN:-} || ! -x ${NATS_SERVER_BIN} ]]; then
    ensure_nats_server || return 1
  fi
  ensure_local_credentials "${CATALOG_CREDENTIALS_FILE:-$(dirname "$data_dir")/credentials.json}" || return 1

  local reuse=0
  _infra_reuse_listener NATS "$port" _infra_is_nats _infra_export_nats_url || reuse=$?
  ((reuse == 2)) || return "$reuse"

  data_dir=$(_infra_abspath "$data_dir") || return 1
  mkdir -p "$data_dir/jetstream"
  logfile=$data_dir/nats.log
  pidfile=$data_dir/nats.pid
  if [[ -f $pidfile ]]; then
    pid=$(<"$pidfile")
    if [[ $pid =~ ^[0-9]+$ ]] && _infra_pid_alive "$pid" &&
      [[ $(cat "/proc/$pid/comm" 2>/dev/null) == nats-server ]]; then
      infra_err "nats-server from $data_dir already runs (pid $pid) but not on port $port; stop_nats $data_dir first"
      return 1
    fi
    rm -f "$pidfile"
  fi

  # The services' users and permissions, with this machine's passwords: readable by us only.
  conf=$data_dir/nats.conf
  if ! (umask 077 && _infra_local_servers nats-config "$CATALOG_CREDENTIALS_FILE" >"$conf.tmp"); then
    rm -f "$conf.tmp"
    infra_err "rendering the NATS authorization ($conf) failed"
    return 1
  fi
  mv "$conf.tmp" "$conf"

  # Own session: Ctrl-C in the terminal does not hit it; we stop it ourselves.
  if command -v setsid >/dev/null 2>&1; then launcher=(setsid); fi
  infra_log "starting NATS (JetStream, users of $CATALOG_CREDENTIALS_FILE) on 127.0.0.1:$port (data $data_dir)"
  "${launcher[@]}" "$NATS_SERVER_BIN" -c "$conf" -js -a 127.0.0.1 -p "$port" -m 0 \
    -sd "$data_dir/jetstream" -P "$pidfile" >>"$logfile" 2>&1 </dev/null &
  pid=$!

  _infra_await_start nats-server "$pid" "$logfile" 20 "listen on 127.0.0.1:$port" _infra_tcp_open "$port" || return 1
  # nats-server writes the pid file itself; make sure it exists for stop_nats.
  [[ -s $pidfile ]] || echo "$pid" >"$pidfile"
  INFRA_NATS_STARTED=1
  _infra_export_nats_url "$port"
  infra_log "NATS ready: nats://127.0.0.1:$port"
}

# _infra_stop_pidfile LABEL PIDFILE COMM: SIGTERM the process of PIDFILE (only if its command
# name is COMM, so a reused pid is never killed), SIGKILL after 10 s, remove the pid file.
_infra_stop_pidfile() {
  local label=$1 pidfile=$2 comm=$3 pid deadline
  if [[ ! -f $pidfile ]]; then
    infra_log "$label not running"
    return 0
  fi
  pid=$(<"$pidfile")
  if [[ ! $pid =~ ^[0-9]+$ ]] || ! _infra_pid_alive "$pid" ||
    [[ $(cat "/proc/$pid/comm" 2>/dev/null) != "$comm" ]]; then
    infra_log "$label not running (stale pid file)"
    rm -f "$pidfile"
    return 0
  fi
  infra_log "stopping $label (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$((SECONDS + 10))
  while _infra_pid_alive "$pid"; do
    if ((SECONDS >= deadline)); then
      infra_log "$label did not exit after SIGTERM; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.1
  done
  rm -f "$pidfile"
}

# stop_nats DATA_DIR
stop_nats() {
  local data_dir=${1:?usage: stop_nats DATA_DIR}
  _infra_stop_pidfile "NATS ($data_dir)" "$data_dir/nats.pid" nats-server
}
