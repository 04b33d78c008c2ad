#!/usr/bin/env bash
# `npm test`: the formatter's check, then build + typecheck + lint + test every workspace through turbo
# (the size limits are eslint rules: eslint.config.js, test/dev/sizes.test.ts).
#
# Needs PostgreSQL, NATS and MinIO: when DATABASE_URL / NATS_URL / S3_ENDPOINT are not set, starts
# throwaway servers in ${TMPDIR:-/tmp}/catalog-test-$UID-<pg port> on 127.0.0.1:55432
# (Postgres, fsync off), 127.0.0.1:54222 (NATS JetStream) and 127.0.0.1:54900 (MinIO), reusing ones that
# already listen there, and stops the ones it started on exit. TEST_PG_PORT, TEST_NATS_PORT and
# TEST_MINIO_PORT choose other ports (several checkouts testing side by side). helm (chart tests) and
# schemathesis (the OpenAPI fuzz test) come from the tool cache (ensure_helm, ensure_schemathesis in
# scripts/lib/infra.sh); ffmpeg, fluidsynth, its sound fonts, sox and espeak-ng (analyzer tests) from apt when
# missing (ensure_audio_tools); Debian's chromium for the browser tests (ensure_chromium).
# The servers' credentials come from CATALOG_CREDENTIALS_FILE (default $state_dir/credentials.json,
# made when missing): NATS runs with one user per service (decision 0055), and the database roles
# of decision 0057 are created on DATABASE_URL's server (an administrator) before the tests run.
# A failing task does not cancel unrelated ones (--continue=dependencies-successful),
# so every test that can run does. Extra arguments go to turbo, e.g. `npm test -- --filter=@catalog/catalog`.
#
# `--fast` (`npm run test:fast`, the edit loop's tier, decision 0157): only the jest suites of
# packages/* and services/* (no formatter, build, typecheck or lint, no test/ system suites), without
# the files FAST_LEAVES_OUT names (each takes a minute or more of CPU); `npm test` runs them all.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib/infra.sh
source scripts/lib/infra.sh

fast=0
if [[ ${1:-} == --fast ]]; then
  fast=1
  shift
fi
# Paths under the repository (jest regular expressions) the fast tier leaves out.
FAST_LEAVES_OUT=(
  'services/analysis/test/analyzers/(key|tempo|loudness|generated-music|fingerprint)\.test\.ts' # render and analyse minutes of audio
  'services/asset/test/(upload-flow|upload-targets|release)\.test\.ts' # 200 MiB uploads, URLs waited out to expiry
  'services/catalog/test/import-jobs\.test\.ts' # imports of thousands of rows
  'services/events/test/(crash|ordering|api)\.test\.ts' # processes killed mid-stream, 10 s of writers; two gateway processes with the catalog (cross-service)
  'packages/platform/test/run-service\.test\.ts' # service processes started from source
)

pg_port=${TEST_PG_PORT:-55432}
nats_port=${TEST_NATS_PORT:-54222}
minio_port=${TEST_MINIO_PORT:-54900}
state_dir="${TMPDIR:-/tmp}/catalog-test-$UID-$pg_port"
turbo_log=""

cleanup() {
  stop_started_servers "$state_dir"
  if [[ -n $turbo_log ]]; then rm -f "$turbo_log"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ensure_node # Node 24 (decision 0122) first on PATH, fetched when the machine's node is another major
ensure_node_modules

# MinIO exports S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY, S3_BUCKET; PG_FAST: throwaway data.
PG_FAST=1 start_unset_servers "$state_dir" "$pg_port" "$nats_port" "$minio_port"
ensure_helm # exports HELM_BIN for the chart tests
ensure_schemathesis # exports SCHEMATHESIS_BIN for the OpenAPI fuzz test (test/fuzz)
ensure_audio_tools # ffmpeg, fluidsynth + General MIDI sound fonts, sox, espeak-ng (analyzer tests)
ensure_chromium # exports CHROMIUM_BIN: Debian's chromium for the browser tests (test/web)
ensure_liquidsoap # Debian's liquidsoap for the Liquidsoap connector's real-engine test (test/contract/liquidsoap-connector.test.ts)
echo "[test] DATABASE_URL=$DATABASE_URL NATS_URL=$NATS_URL S3_ENDPOINT=$S3_ENDPOINT" >&2

# The formatter's check (Prettier, .prettierrc.json; `npm run format` fixes): a finding fails the run.
format_rc=0
if ((!fast)); then npx --no-install prettier --check . >&2 || format_rc=$?; fi
tasks=(build typecheck lint test)
scope=()
jest_args=()
if ((fast)); then
  tasks=(test)
  scope=(--filter='./packages/*' --filter='./services/*')
  jest_args=(-- "--testPathIgnorePatterns=($(
    IFS='|'
    echo "${FAST_LEAVES_OUT[*]}"
  ))")
fi

export TURBO_TELEMETRY_DISABLED=1
turbo_log=$(mktemp "${TMPDIR:-/tmp}/catalog-turbo.XXXXXX")
t0=$SECONDS
set +e
npx --no-install turbo run "${tasks[@]}" --concurrency=2 \
  --continue=dependencies-successful "${scope[@]}" "$@" "${jest_args[@]}" 2>&1 | tee -i "$turbo_log"
rc=${PIPESTATUS[0]}
set -e
elapsed=$((SECONDS - t0))

# Sum jest summaries ("Tests:  1 failed, 2 skipped, 3 todo, 7 passed, 13 total") and
# node:test summaries ("# pass 7" / "# fail 1" / "# skipped 2" / "# todo 3") over all
# workspaces, so the last line states how many tests ran. Skipped and todo tests count as
# skipped, and any fails the run: every test runs (eslint refuses .only/.skip/.todo too).
read -r passed failed skipped found < <(
  sed -E 's/\x1b\[[0-9;]*[A-Za-z]//g' "$turbo_log" | awk '
    /Tests:[[:space:]]+.*total/ {
      found = 1
      n = split($0, parts, ",")
      for (i = 1; i <= n; i++) {
        if (match(parts[i], /[0-9]+ passed/))  p += substr(parts[i], RSTART, RLENGTH) + 0
        if (match(parts[i], /[0-9]+ failed/))  f += substr(parts[i], RSTART, RLENGTH) + 0
        if (match(parts[i], /[0-9]+ skipped/)) s += substr(parts[i], RSTART, RLENGTH) + 0
        if (match(parts[i], /[0-9]+ todo/))    s += substr(parts[i], RSTART, RLENGTH) + 0
      }
    }
    /^(.*: )?# pass [0-9]+$/    { found = 1; p += $NF }
    /^(.*: )?# fail [0-9]+$/    { found = 1; f += $NF }
    /^(.*: )?# skipped [0-9]+$/ { found = 1; s += $NF }
    /^(.*: )?# todo [0-9]+$/    { found = 1; s += $NF }
    END { printf "%d %d %d %d\n", p, f, s, found }'
)

# Stop the servers now so that the summary below is the last thing printed.
cleanup
trap - EXIT

if ((format_rc != 0)); then
  echo "[test] prettier --check: FAILED (run npm run format)"
  ((rc != 0)) || rc=$format_rc
fi
if ((skipped != 0)); then
  echo "[test] $skipped skipped or todo test(s): FAILED (every test must run)"
  ((rc != 0)) || rc=1
fi
if ((rc == 0)); then
  echo "[test] turbo build/typecheck/test: PASSED in ${elapsed}s"
else
  echo "[test] turbo build/typecheck/test: FAILED (exit $rc) in ${elapsed}s"
fi
if ((found)); then
  echo "tests: $passed passed, $failed failed, $skipped skipped"
else
  echo "[test] no test summary found in the turbo output"
fi
exit "$rc"
