#!/usr/bin/env bash
# `npm run bench [-- NAME...]`: builds the services and runs the benchmarks under bench/ (all but
# the hour-long soak, or the named ones), each writing JSON to bench/results/. Uses DATABASE_URL / NATS_URL when set,
# otherwise starts its own Postgres (127.0.0.1:55532) and NATS (127.0.0.1:54322) and stops them.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib/infra.sh
source scripts/lib/infra.sh

state_dir="${TMPDIR:-/tmp}/catalog-bench-$UID"
# shellcheck disable=SC2317 # invoked from the trap
cleanup() { stop_started_servers "$state_dir"; }
trap cleanup EXIT

# The services and the load run on the Node the chart's image runs (decision 0122), not the
# machine's older one: a soak once ran its hour on Node 20 for want of this line.
ensure_node
ensure_node_modules
start_unset_servers "$state_dir" 55532 54322
export DATABASE_URL NATS_URL CATALOG_CREDENTIALS_FILE NATS_SERVER_BIN="${NATS_SERVER_BIN:-}"

npx --no-install turbo run build --output-logs=errors-only

benches=("$@")
if ((${#benches[@]} == 0)); then
  for dir in bench/*/; do
    name=$(basename "$dir")
    # The soak runs for an hour: only when named (`npm run bench -- soak`).
    [[ $name == soak ]] && continue
    [[ -f "bench/$name/run.ts" ]] && benches+=("$name")
  done
fi
for name in "${benches[@]}"; do
  echo "[bench] $name" >&2
  # The load generator shares the cores with the services: without parallel GC threads of its own
  # it disturbs them less (docs/benchmarks.md).
  node --single-threaded-gc --conditions=source --import tsx "bench/$name/run.ts"
done
