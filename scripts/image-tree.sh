#!/usr/bin/env bash
# `bash scripts/image-tree.sh DEST`: builds the production tree of the container image into DEST
# (deploy/Dockerfile runs it; so does the image smoke test): the packages and services built, with
# only their runtime dependencies installed (`npm ci --omit=dev` for those workspaces), no
# sources' dev tooling, no tests, no benchmarks. Run it from a checkout whose node_modules may be
# missing (it installs what the build needs in a scratch copy).
set -euo pipefail

src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
dest=${1:?usage: image-tree.sh DEST}
work=$(mktemp -d "${TMPDIR:-/tmp}/catalog-image.XXXXXX")
trap 'rm -rf "$work"' EXIT

log() { printf '[image-tree] %s\n' "$*" >&2; }

# npm_install DIR ARGS...: `npm ci ARGS` in DIR; where a registry mirror lacks other platforms'
# optional packages (npm ci then says the lock file is out of sync), `npm install ARGS`.
npm_install() {
  local dir=$1
  shift
  if ! (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error "$@" >&2 2>"$work/npm.err"); then
    log "npm ci failed ($(grep -m1 -E '^npm error' "$work/npm.err" || echo '?')); falling back to npm install"
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error "$@" >&2)
  fi
}

# Workspaces that never run in the image: tests, benchmarks and their fixtures (packages/testing).
dev_only=(test bench packages/testing)
workspaces=()
for dir in "$src"/packages/* "$src"/services/*; do
  [[ -f $dir/package.json && $dir != "$src/packages/testing" ]] && workspaces+=("${dir#"$src"/}")
done

# 1. Build in a scratch copy: sources and manifests only (no node_modules, dist, results).
log "copying sources to $work/build"
mkdir -p "$work/build"
(cd "$src" && tar -cf - --exclude=node_modules --exclude=dist --exclude='*.tsbuildinfo' \
  package.json package-lock.json turbo.json tsconfig.base.json packages services \
  test/package.json bench/package.json) | tar -xf - -C "$work/build"
log "installing the build's dependencies"
npm_install "$work/build"
log "building ${#workspaces[@]} workspaces"
filters=()
for ws in "${workspaces[@]}"; do filters+=("--filter=./$ws"); done
(cd "$work/build" && TURBO_TELEMETRY_DISABLED=1 npx --no-install turbo run build "${filters[@]}" --output-logs=errors-only >&2)

# 2. The runtime tree: manifests and built output, runtime dependencies only.
log "assembling $dest"
rm -rf "$dest"
mkdir -p "$dest"
cp "$work/build/package.json" "$work/build/package-lock.json" "$dest/"
for ws in "${dev_only[@]}"; do
  mkdir -p "$dest/$ws" && cp "$work/build/$ws/package.json" "$dest/$ws/" # named by the workspaces list
done
for ws in "${workspaces[@]}"; do
  mkdir -p "$dest/$ws"
  cp "$work/build/$ws/package.json" "$dest/$ws/"
  cp -R "$work/build/$ws/dist" "$dest/$ws/dist"
  # Files a service serves as they are (the gateway's pages /docs and /app, decision 0139).
  if [[ -d $work/build/$ws/static ]]; then cp -R "$work/build/$ws/static" "$dest/$ws/static"; fi
  find "$dest/$ws/dist" \( -name '*.d.ts' -o -name '*.d.ts.map' -o -name '*.tsbuildinfo' \) -delete
done
ws_flags=()
for ws in "${workspaces[@]}"; do ws_flags+=("--workspace=$ws"); done
log "installing the runtime dependencies of the packages and services (--omit=dev)"
npm_install "$dest" --omit=dev --ignore-scripts "${ws_flags[@]}"
for ws in "${dev_only[@]}"; do rm -rf "${dest:?}/$ws"; done
# The migration entry point of the chart's hook Jobs and the Compose file (node deploy/migrate.mjs SCHEMA).
mkdir -p "$dest/deploy" && cp "$src/deploy/migrate.mjs" "$dest/deploy/"
log "done: $(du -sh "$dest" | cut -f1) in $dest"
