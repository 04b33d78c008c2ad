#!/usr/bin/env bash
# bench/accuracy/setup.sh: installs what the accuracy benchmark needs and prints the Python of
# Essentia's virtual environment on its last line. Debian's packages: fluidsynth, ffmpeg, the five
# General MIDI sound fonts, espeak-ng. Essentia from PyPI in its own virtual environment under the
# tool cache (CATALOG_TOOLS_DIR, default ~/.cache/catalog-tools): a benchmark tool, never a
# dependency of the services.
set -euo pipefail

ESSENTIA_VERSION="${ESSENTIA_VERSION:-2.1b6.dev1389}"
tools="${CATALOG_TOOLS_DIR:-$HOME/.cache/catalog-tools}"
venv="$tools/essentia-$ESSENTIA_VERSION"

need=()
command -v fluidsynth >/dev/null || need+=(fluidsynth)
command -v ffmpeg >/dev/null || need+=(ffmpeg)
command -v espeak-ng >/dev/null || need+=(espeak-ng)
[[ -f /usr/share/sounds/sf2/FluidR3_GM.sf2 ]] || need+=(fluid-soundfont-gm)
[[ -f /usr/share/sounds/sf3/MuseScore_General.sf3 ]] || need+=(musescore-general-soundfont)
[[ -f /usr/share/sounds/sf2/TimGM6mb.sf2 ]] || need+=(timgm6mb-soundfont)
[[ -f /usr/share/sounds/sf2/sf_GMbank.sf2 ]] || need+=(csound-soundfont)
[[ -f /usr/share/sounds/sf2/OPL-3_FM_128M.sf2 ]] || need+=(opl3-soundfont)
if ((${#need[@]} > 0)); then
  echo "[accuracy] apt-get install ${need[*]}" >&2
  sudo_cmd=()
  ((EUID == 0)) || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${need[@]}" >&2
fi

if ! "$venv/bin/python" -c 'import essentia' 2>/dev/null; then
  echo "[accuracy] essentia $ESSENTIA_VERSION into $venv" >&2
  mkdir -p "$tools"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install -q "essentia==$ESSENTIA_VERSION" >&2
fi
echo "$venv/bin/python"
