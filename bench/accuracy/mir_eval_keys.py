"""The key scores of mir_eval.key.weighted_score for every pair of the 24 keys (reference,
estimate), for bench/accuracy/metrics.ts to be checked against (mir-eval-key-scores.json; run once
in the benchmark's virtual environment, setup.sh, and committed):
  "$(bash bench/accuracy/setup.sh | tail -1)" bench/accuracy/mir_eval_keys.py > bench/accuracy/mir-eval-key-scores.json"""
import json

import mir_eval

TONICS = ("C", "C#", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B")
KEYS = [f"{tonic} {mode}" for mode in ("major", "minor") for tonic in TONICS]

rows = [[reference, estimate, mir_eval.key.weighted_score(reference, estimate)] for reference in KEYS for estimate in KEYS]
print(json.dumps({"mir_eval": mir_eval.__version__, "scores": rows}))
