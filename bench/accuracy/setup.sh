#!/usr/bin/env bash
# bench/accuracy/setup.sh: installs what the accuracy benchmark needs and prints the Python of
# Essentia's virtual environment on its last line. Debian's packages: fluidsynth, ffmpeg, the five
# General MIDI sound fonts, espeak-ng. Essentia from PyPI in its own virtual environment under the
# tool cache (CATALOG_TOOLS_DIR, default ~/.cache/catalog-tools), with music21 (the composed
# evaluation set's scores) and mir_eval (the key score's reference): benchmark tools, never
# dependencies of the services.
set -euo pipefail

ESSENTIA_VERSION="${ESSENTIA_VERSION:-2.1b6.dev1389}"
# The composed evaluation set's scores (music21's corpus) and the field's key score (mir_eval).
MUSIC21_VERSION="${MUSIC21_VERSION:-9.3.0}"
MIR_EVAL_VERSION="${MIR_EVAL_VERSION:-0.8.2}"
# shellcheck source=scripts/lib/infra.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/infra.sh"
tools="$(infra_tools_dir)"
venv="$tools/essentia-$ESSENTIA_VERSION"

# The analyzer tests' audio tools (ffmpeg, fluidsynth, the sound fonts, sox, espeak-ng for the spoken intros).
ensure_audio_tools

if ! "$venv/bin/python" -c 'import essentia, music21, mir_eval' 2>/dev/null; then
  echo "[accuracy] essentia $ESSENTIA_VERSION, music21 $MUSIC21_VERSION, mir_eval $MIR_EVAL_VERSION into $venv" >&2
  mkdir -p "$tools"
  [[ -x "$venv/bin/python" ]] || python3 -m venv "$venv" >&2
  "$venv/bin/pip" install -q "essentia==$ESSENTIA_VERSION" "music21==$MUSIC21_VERSION" "mir_eval==$MIR_EVAL_VERSION" >&2
fi
echo "$venv/bin/python"
