# shellcheck shell=bash
#
# PostgreSQL: ensure_postgres, start_postgres, stop_postgres.
# Sourced by scripts/lib/infra.sh (which documents the functions); do not source it alone.

_infra_pg_bin_ok() {
  [[ -x $1/initdb && -x $1/pg_ctl && -x $1/postgres ]]
}

# Prints the directory holding initdb/pg_ctl/postgres, or fails.
_infra_find_pg_bin() {
  local p d
  local -a found=()
  if [[ -n ${PG_BIN:-} ]] && _infra_pg_bin_ok "$PG_BIN"; then
    printf '%s\n' "$PG_BIN"
    return 0
  fi
  if p=$(command -v initdb 2>/dev/null); then
    d=$(dirname "$(readlink -f "$p")")
    if _infra_pg_bin_ok "$d"; then
      printf '%s\n' "$d"
      return 0
    fi
  fi
  for d in /usr/lib/postgresql/*/bin; do
    if _infra_pg_bin_ok "$d"; then
      found+=("$d")
    fi
  done
  if ((${#found[@]} > 0)); then
    printf '%s\n' "${found[@]}" | sort -V | tail -n 1
    return 0
  fi
  return 1
}

ensure_postgres() {
  local dir
  if ! dir=$(_infra_find_pg_bin); then
    infra_log "PostgreSQL server binaries not found; installing via apt"
    infra_apt_install postgresql || return 1
    dir=$(_infra_find_pg_bin) || {
      infra_err "PostgreSQL installed but initdb/pg_ctl/postgres still not found"
      return 1
    }
  fi
  PG_BIN=$dir
  export PG_BIN
  infra_log "PostgreSQL binaries: $PG_BIN ($("$PG_BIN/postgres" --version 2>/dev/null || echo '?'))"
}

# User that owns/runs the cluster: ourselves, or (as root) a system user,
# because postgres refuses to run as root.
_infra_pg_user() {
  if [[ ${EUID:-$(id -u)} -ne 0 ]]; then
    id -un
  elif id -u postgres >/dev/null 2>&1; then
    echo postgres
  else
    if ! id -u catalogpg >/dev/null 2>&1; then
      infra_log "creating system user catalogpg to run PostgreSQL"
      useradd -r -M -d /nonexistent -s /usr/sbin/nologin catalogpg >&2 || {
        infra_err "useradd catalogpg failed"
        return 1
      }
    fi
    echo catalogpg
  fi
}

# _infra_run_as USER CMD... : run CMD as USER (only switches when root).
_infra_run_as() {
  local user=$1
  shift
  if [[ ${EUID:-$(id -u)} -ne 0 ]]; then
    "$@"
  elif command -v runuser >/dev/null 2>&1; then
    (cd / && runuser -u "$user" -- "$@")
  else
    (cd / && su -s /bin/bash "$user" -c "$(printf '%q ' "$@")")
  fi
}

_infra_pg_isready_bin() {
  if [[ -n ${PG_BIN:-} && -x $PG_BIN/pg_isready ]]; then
    printf '%s\n' "$PG_BIN/pg_isready"
  else
    command -v pg_isready 2>/dev/null
  fi
}

# _infra_await_start NAME PID LOGFILE SECONDS WHAT PROBE [ARGS...] : wait until PROBE ARGS
# succeeds for a server just started as PID. Fails (with the log's tail) if the process exits
# first, or kills it and fails after SECONDS ("NAME did not WHAT within SECONDSs").
_infra_await_start() {
  local name=$1 pid=$2 logfile=$3 timeout=$4 what=$5 deadline
  shift 5
  deadline=$((SECONDS + timeout))
  until "$@"; do
    if ! _infra_pid_alive "$pid"; then
      _infra_log_tail "$logfile"
      infra_err "$name exited during startup (log: $logfile)"
      return 1
    fi
    if ((SECONDS >= deadline)); then
      kill "$pid" 2>/dev/null || true
      _infra_log_tail "$logfile"
      infra_err "$name did not $what within ${timeout}s (log: $logfile)"
      return 1
    fi
    sleep 0.1
  done
}

# _infra_pg_wait PORT SECONDS : wait until postgres accepts connections.
# Returns 0 ready, 1 timeout, 2 port answers but is not postgres.
_infra_pg_wait() {
  local port=$1 timeout=$2 isready rc deadline
  deadline=$((SECONDS + timeout))
  isready=$(_infra_pg_isready_bin || true)
  while :; do
    if [[ -n $isready ]]; then
      rc=0
      "$isready" -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -t 2 >/dev/null 2>&1 || rc=$?
      case $rc in
        0) return 0 ;;
        # 1 = rejecting connections (starting up); 2 = no response
        2) if _infra_tcp_open "$port"; then return 2; fi ;;
      esac
    elif _infra_tcp_open "$port"; then
      return 0
    fi
    if ((SECONDS >= deadline)); then
      return 1
    fi
    sleep 0.2
  done
}

_infra_export_database_url() {
  if [[ -z ${DATABASE_URL:-} ]]; then
    DATABASE_URL="postgres://postgres@127.0.0.1:$1/postgres"
    export DATABASE_URL
  fi
}

# start_postgres DATA_DIR PORT
start_postgres() {
  local data_dir=${1:?usage: start_postgres DATA_DIR PORT}
  local port=${2:?usage: start_postgres DATA_DIR PORT}
  local user sockdir logfile opts out rc bin_major data_major
  INFRA_PG_STARTED=0

  if [[ -z ${PG_BIN:-} ]] || ! _infra_pg_bin_ok "$PG_BIN"; then
    ensure_postgres || return 1
  fi

  # Reuse a server that already listens on the port.
  if _infra_tcp_open "$port"; then
    rc=0
    _infra_pg_wait "$port" 30 || rc=$?
    if ((rc == 0)); then
      infra_log "reusing PostgreSQL already listening on 127.0.0.1:$port"
      _infra_export_database_url "$port"
      return 0
    fi
    infra_err "127.0.0.1:$port is in use but PostgreSQL there does not accept connections"
    return 1
  fi

  user=$(_infra_pg_user) || return 1
  data_dir=$(_infra_abspath "$data_dir") || return 1
  if [[ ${EUID:-$(id -u)} -eq 0 ]]; then
    if [[ $(stat -c %U "$data_dir") != "$user" ]]; then
      chown -R "$user:" "$data_dir"
    fi
    if ! _infra_run_as "$user" test -w "$data_dir" -a -x "$data_dir"; then
      infra_err "PostgreSQL runs as user '$user' (it refuses root), and '$user' cannot access $data_dir; make its parent directories world-searchable (chmod o+x) or use a data dir elsewhere"
      return 1
    fi
  fi
  chmod 700 "$data_dir"

  if [[ ! -f $data_dir/PG_VERSION ]]; then
    if [[ -n $(ls -A "$data_dir") ]]; then
      infra_err "$data_dir is not empty but not a PostgreSQL data dir; remove it"
      return 1
    fi
    infra_log "initdb $data_dir (user $user)"
    if ! out=$(_infra_run_as "$user" "$PG_BIN/initdb" -D "$data_dir" --auth=trust \
      --username=postgres -E UTF8 --locale=C.UTF-8 2>&1); then
      infra_log "initdb with locale C.UTF-8 failed; retrying with locale C"
      if ! out=$(_infra_run_as "$user" "$PG_BIN/initdb" -D "$data_dir" --auth=trust \
        --username=postgres -E UTF8 --locale=C 2>&1); then
        printf '%s\n' "$out" | tail -n 20 | sed 's/^/[infra]   /' >&2
        infra_err "initdb failed"
        return 1
      fi
    fi
  else
    bin_major=$("$PG_BIN/postgres" --version | awk '{print $3}')
    bin_major=${bin_major%%.*}
    data_major=$(<"$data_dir/PG_VERSION")
    if [[ $bin_major != "$data_major" ]]; then
      infra_err "$data_dir was initialised by PostgreSQL $data_major but binaries are $bin_major ($PG_BIN); delete $data_dir"
      return 1
    fi
  fi

  # Unix socket in the data dir, unless the path is too long (sun_path limit)
  # or contains characters that would need quoting in pg_ctl -o.
  sockdir=$data_dir
  if ((${#sockdir} > 90)) || [[ $sockdir =~ [^A-Za-z0-9_./+-] ]]; then
    sockdir="/tmp/catalog-pg-sock-$(id -u)-$port"
    mkdir -p "$sockdir"
    if [[ ${EUID:-$(id -u)} -eq 0 ]]; then chown "$user:" "$sockdir"; fi
    chmod 700 "$sockdir"
  fi

  # A postmaster killed with SIGKILL leaves postmaster.pid and the socket lock
  # file behind; if their PID is gone (or a zombie not yet reaped) the server
  # would refuse to start.
  local lockfile old_pid
  for lockfile in "$data_dir/postmaster.pid" "$sockdir/.s.PGSQL.$port.lock"; do
    [[ -f $lockfile ]] || continue
    old_pid=$(head -n 1 "$lockfile")
    if [[ $old_pid =~ ^[0-9]+$ ]] && ! _infra_pid_alive "$old_pid"; then
      infra_log "removing stale $lockfile (pid $old_pid is gone)"
      rm -f "$lockfile"
    fi
  done

  opts="-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$sockdir"
  opts+=" -c max_connections=300 -c shared_buffers=256MB"
  if [[ ${PG_FAST:-0} == 1 ]]; then
    opts+=" -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  fi
  logfile=$data_dir/postgres.log

  infra_log "starting PostgreSQL on 127.0.0.1:$port (data $data_dir${PG_FAST:+, PG_FAST=$PG_FAST})"
  if ! out=$(_infra_run_as "$user" "$PG_BIN/pg_ctl" start -D "$data_dir" -l "$logfile" \
    -w -t 30 -s -o "$opts" 2>&1); then
    [[ -z $out ]] || printf '%s\n' "$out" | sed 's/^/[infra]   /' >&2
    _infra_log_tail "$logfile"
    infra_err "PostgreSQL failed to start on port $port (log: $logfile)"
    return 1
  fi
  rc=0
  _infra_pg_wait "$port" 30 || rc=$?
  if ((rc != 0)); then
    _infra_log_tail "$logfile"
    infra_err "PostgreSQL did not accept connections on 127.0.0.1:$port within 30s (log: $logfile)"
    return 1
  fi
  INFRA_PG_STARTED=1
  _infra_export_database_url "$port"
  infra_log "PostgreSQL ready: postgres://postgres@127.0.0.1:$port/postgres"
}

# stop_postgres DATA_DIR
stop_postgres() {
  local data_dir=${1:?usage: stop_postgres DATA_DIR}
  local user bin out rc=0
  if [[ ! -f $data_dir/postmaster.pid ]]; then
    infra_log "PostgreSQL ($data_dir) not running"
    return 0
  fi
  bin=$(_infra_find_pg_bin) || {
    infra_err "pg_ctl not found; cannot stop PostgreSQL in $data_dir"
    return 1
  }
  user=$(id -un)
  if [[ ${EUID:-$(id -u)} -eq 0 ]]; then
    user=$(stat -c %U "$data_dir")
  fi
  _infra_run_as "$user" "$bin/pg_ctl" status -D "$data_dir" >/dev/null 2>&1 || rc=$?
  if ((rc == 3)); then
    infra_log "PostgreSQL ($data_dir) not running (stale pid file)"
    return 0
  fi
  infra_log "stopping PostgreSQL ($data_dir)"
  if ! out=$(_infra_run_as "$user" "$bin/pg_ctl" stop -D "$data_dir" -m fast -w -t 60 -s 2>&1); then
    [[ -z $out ]] || printf '%s\n' "$out" | sed 's/^/[infra]   /' >&2
    infra_err "pg_ctl stop failed for $data_dir"
    return 1
  fi
}
