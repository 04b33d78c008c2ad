# shellcheck shell=bash
#
# MinIO (S3 blob backend tests): ensure_minio, start_minio, stop_minio.
# Sourced by scripts/lib/infra.sh (which documents the functions); do not source it alone.

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
  local reuse=0
  _infra_reuse_listener MinIO "$port" _infra_is_minio _infra_export_s3 || reuse=$?
  ((reuse == 2)) || return "$reuse"

  data_dir=$(_infra_abspath "$data_dir") || return 1
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
