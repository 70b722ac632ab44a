#!/usr/bin/env python3
"""Blinks missed early in a track and later, from the traces of `facemouse eval --trace-dir`.

    scripts/blink-misses-by-age.py TRACES SEQUENCES... [--early S] [--list]

TRACES holds the traces (NAME.jsonl); each NAME's labels are looked for as
NAME/labels.csv under the SEQUENCES folders. A labelled blink (the onset of a
run of closed frames) is matched to a `blink` event within the scorer's
tolerance (0.25 s, 0.5 s for ZJU clips; at least a frame), closest first, each
used once, as `../shared/tools/score.py` matches them. Prints how many blinks
began in the first S seconds (default 2) after the trace's first tracked frame
and how many of those were missed, and the same for the rest; with --list,
every miss and every unmatched detection with its time since tracking began.
"""
import argparse, csv, glob, json, os


def runs(flags):
    out = []
    for i, v in enumerate(flags):
        if v and out and out[-1][1] == i - 1:
            out[-1][1] = i
        elif v:
            out.append([i, i])
    return out


ap = argparse.ArgumentParser()
ap.add_argument("traces")
ap.add_argument("sequences", nargs="+")
ap.add_argument("--early", type=float, default=2.0)
ap.add_argument("--list", action="store_true")
a = ap.parse_args()
count = {"early": [0, 0], "later": [0, 0]}  # [blinks, missed]
false = {"early": 0, "later": 0}
for tf in sorted(glob.glob(os.path.join(a.traces, "*.jsonl"))):
    name = os.path.basename(tf)[:-len(".jsonl")]
    dirs = [os.path.join(r, name) for r in a.sequences if os.path.isfile(os.path.join(r, name, "labels.csv"))]
    if not dirs:
        continue
    with open(os.path.join(dirs[0], "labels.csv")) as f:
        labels = list(csv.DictReader(f))
    with open(tf) as f:
        trace = [json.loads(line) for line in f]
    t = [float(r["t_ms"]) for r in labels]
    fps = (len(t) - 1) / ((t[-1] - t[0]) / 1000.0) if len(t) > 1 and t[-1] > t[0] else 30.0
    tol = max(1, round((0.5 if "zju" in name else 0.25) * fps))
    onsets = [s for s, _ in runs([r["eyes_closed"] == "1" for r in labels])]
    found = [r["frame"] for r in trace if "blink" in r["events"]]
    start = next((r["t_ms"] for r in trace if r["state"] == "tracking"), 0.0)
    used, hit = set(), set()
    for _, g, d in sorted((abs(g - d), g, d) for g in onsets for d in found if abs(g - d) <= tol):
        if g not in hit and d not in used:
            hit.add(g)
            used.add(d)
    age = lambda ms: (ms - start) / 1000.0
    for g in onsets:
        k = "early" if age(t[g]) < a.early else "later"
        count[k][0] += 1
        if g not in hit:
            count[k][1] += 1
            if a.list:
                print(f"missed {name} frame {g}, {age(t[g]):.1f} s into tracking")
    for d in found:
        if d not in used:
            k = "early" if age(trace[d]["t_ms"]) < a.early else "later"
            false[k] += 1
            if a.list:
                print(f"false  {name} frame {d}, {age(trace[d]['t_ms']):.1f} s into tracking")
(eb, em), (lb, lm) = count["early"], count["later"]
print(f"first {a.early:g} s: {em} of {eb} blinks missed, {false['early']} false; later: {lm} of {lb} missed, {false['later']} false")
