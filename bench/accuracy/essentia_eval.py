"""Essentia's key and tempo on audio files, for bench/accuracy (run in the benchmark's own virtual
environment, never by the services). Reads file paths, one a line, on stdin; writes one JSON object
a line on stdout: KeyExtractor with the edma, temperley and krumhansl profiles, RhythmExtractor2013
(multifeature), and the seconds each took (the decode counted once, apart)."""
import json
import sys
import time

import essentia
import essentia.standard as es

essentia.log.warningActive = False
PROFILES = ("edma", "temperley", "krumhansl")


def analyse(path):
    started = time.perf_counter()
    audio = es.MonoLoader(filename=path, sampleRate=44100)()
    result = {"file": path, "decodeSeconds": time.perf_counter() - started, "key": {}}
    for profile in PROFILES:
        started = time.perf_counter()
        key, scale, strength = es.KeyExtractor(profileType=profile, sampleRate=44100)(audio)
        result["key"][profile] = {"key": f"{key} {scale}", "strength": float(strength), "seconds": time.perf_counter() - started}
    started = time.perf_counter()
    bpm, _beats, confidence, _estimates, _intervals = es.RhythmExtractor2013(method="multifeature")(audio)
    result["tempo"] = {"bpm": float(bpm), "confidence": float(confidence), "seconds": time.perf_counter() - started}
    return result


def main():
    for line in sys.stdin:
        path = line.strip()
        if path:
            print(json.dumps(analyse(path)), flush=True)


if __name__ == "__main__":
    main()
