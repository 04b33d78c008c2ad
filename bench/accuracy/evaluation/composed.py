"""The composed evaluation pieces' scores, from the corpus that PyPI's music21 ships (Bach's
four-part chorales), for bench/accuracy/evaluation/composed.ts. Writes one JSON object a line: the
corpus path, the key (from the key signature and the final bass note: the major key of the
signature when the last bass note is its tonic, the relative minor when it is that one's; any other
ending, a modal chorale, is left out), the beats of a bar, where each bar starts and every note
(quarter notes from the start, MIDI pitch, part). Only pieces in 2/4, 3/4 or 4/4 (the quarter is
the beat). Labels come from how the piece is written, never from a key algorithm.
  python composed.py COUNT"""
import json
import sys

from music21 import corpus, key, meter, note, chord

PITCH_NAMES = ("C", "C#", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B")


def labelled(score):
    signatures = list(score.recurse().getElementsByClass(key.KeySignature))
    meters = list(score.recurse().getElementsByClass(meter.TimeSignature))
    if not signatures or not meters or len(score.parts) < 2:
        return None
    sharps = signatures[0].sharps
    if any(s.sharps != sharps for s in signatures) or any(m.ratioString != meters[0].ratioString for m in meters):
        return None
    if meters[0].denominator != 4 or meters[0].numerator not in (2, 3, 4):
        return None
    bass = [n for n in score.parts[-1].flatten().notes]
    if not bass:
        return None
    last = bass[-1]
    final = (min(last.pitches).pitchClass) if isinstance(last, chord.Chord) else last.pitch.pitchClass
    major = (7 * sharps) % 12
    if final == major:
        tonic, mode = major, "major"
    elif final == (major + 9) % 12:
        tonic, mode = final, "minor"
    else:
        return None
    notes = []
    for p, part in enumerate(score.parts):
        for n in part.flatten().notes:
            pitches = n.pitches if isinstance(n, chord.Chord) else [n.pitch]
            if n.duration.quarterLength <= 0:
                continue
            for pitch in pitches:
                notes.append([float(n.offset), float(n.duration.quarterLength), pitch.midi, p])
    bars = sorted({float(m.offset) for m in score.parts[0].getElementsByClass("Measure")})
    return {
        "tonic": tonic,
        "mode": mode,
        "tonicName": PITCH_NAMES[tonic],
        "beatsPerBar": meters[0].numerator,
        "bars": bars,
        "end": float(score.highestTime),
        "notes": notes,
    }


def main():
    count = int(sys.argv[1])
    found = 0
    for path in sorted(str(p) for p in corpus.getComposer("bach")):
        if found >= count:
            break
        if not path.endswith((".mxl", ".xml", ".krn")) or "chorale" not in path.lower() and "/bwv" not in path:
            continue
        try:
            score = corpus.parse(path)
        except Exception:  # a score music21 cannot read is left out
            continue
        piece = labelled(score)
        if piece is None:
            continue
        piece["source"] = path.split("/corpus/", 1)[-1]
        print(json.dumps(piece), flush=True)
        found += 1


if __name__ == "__main__":
    main()
