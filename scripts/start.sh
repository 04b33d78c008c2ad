#!/usr/bin/env bash
# `npm start`: local PostgreSQL + NATS (and ffmpeg, installed when missing), then scripts/dev.ts
# (the six services, restarted when one crashes).
#
#   DATABASE_URL unset -> PostgreSQL in .local/pg on 127.0.0.1:${PG_PORT:-54329}
#   NATS_URL unset     -> NATS (JetStream) in .local/nats on 127.0.0.1:${NATS_PORT:-4222}, with one
#                         user per service and its permissions (decision 0055)
#   BLOB_DIR           -> defaults to .local/blobs
# The passwords of the local servers and the call context secret are derived from
# .local/credentials.json (CATALOG_CREDENTIALS_FILE; mode 600, made on the first run). The database
# roles (schema owner, one login role per service: decision 0057) are created on DATABASE_URL's
# server (an administrator), and every service gets its own role and NATS user.
# Servers already listening on those ports are reused. On exit (Ctrl-C,
# SIGTERM, or dev.ts ending) the servers this script started are stopped;
# data in .local/ is kept. PORT, ADMIN_TOKEN etc. pass through untouched.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib/infra.sh
source scripts/lib/infra.sh

local_dir="$PWD/.local"
child=""

# Send a signal to dev.ts and everything it spawned (its own process group).
# shellcheck disable=SC2317 # invoked from traps
forward() {
  local sig=$1
  if [[ -n $child ]]; then
    kill -s "$sig" -- "-$child" 2>/dev/null || kill -s "$sig" "$child" 2>/dev/null || true
  fi
}

# shellcheck disable=SC2317 # invoked from traps
cleanup() {
  local i
  if [[ -n $child ]] && kill -0 "$child" 2>/dev/null; then
    forward TERM
    for ((i = 0; i < 100; i++)); do
      kill -0 "$child" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$child" 2>/dev/null; then forward KILL; fi
  fi
  stop_started_servers "$local_dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

ensure_node # the services run on the Node the tests run on (decision 0122), not the machine's older one
ensure_node_modules
ensure_ffmpeg || infra_log "WARNING: ffmpeg could not be installed; audio uploads cannot be probed until it is"

start_unset_servers "$local_dir" "${PG_PORT:-54329}" "${NATS_PORT:-4222}"
BLOB_DIR="${BLOB_DIR:-$local_dir/blobs}"
export BLOB_DIR
mkdir -p "$BLOB_DIR"
echo "[start] DATABASE_URL=$DATABASE_URL NATS_URL=$NATS_URL BLOB_DIR=$BLOB_DIR credentials: $CATALOG_CREDENTIALS_FILE" >&2
# Each service's own database role and NATS user (<SERVICE>_DATABASE_URL, <SERVICE>_NATS_PASSWORD),
# MIGRATION_DATABASE_URL (the schema owner), CALL_CONTEXT_SECRET and BLOB_SIGNING_SECRET, for dev.ts's children.
eval "$(local_service_environment)"

# From here on, signals go to dev.ts; we wait for it and then clean up.
trap 'forward INT' INT
trap 'forward TERM' TERM
trap 'forward TERM' HUP

# Job control puts dev.ts in its own process group: a terminal Ctrl-C reaches
# only this script, which forwards it once to the whole dev.ts tree.
set -m
node --conditions=source --import tsx scripts/dev.ts &
child=$!
set +m

set +e
while :; do
  wait "$child"
  rc=$?
  # wait returns >128 when one of our traps ran; keep waiting while dev.ts lives.
  if ((rc > 128)) && kill -0 "$child" 2>/dev/null; then
    continue
  fi
  break
done
set -e
child=""
echo "[start] dev.ts exited with status $rc" >&2
exit "$rc"
