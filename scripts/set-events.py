#!/usr/bin/env python3
"""Every event other than those skipped, per set and clip, from the traces of `facemouse eval --trace-dir`.

    scripts/set-events.py TRACES [--skip blink,init] [SET ...]

TRACES holds one folder of traces (NAME.jsonl) per set; the sets are those
named, or every folder in name order. Prints one line a set:
{event: {clip: count}}. Used by check-sets.sh and talk-set.sh.
"""
import argparse, collections, glob, json, os

ap = argparse.ArgumentParser()
ap.add_argument("traces")
ap.add_argument("--skip", default="blink,init")
ap.add_argument("sets", nargs="*")
a = ap.parse_intermixed_args()
skip = set(a.skip.split(","))
for s in a.sets or sorted(os.listdir(a.traces)):
    per = collections.defaultdict(collections.Counter)
    for f in sorted(glob.glob(f"{a.traces}/{s}/*.jsonl")):
        for line in open(f):
            try:
                r = json.loads(line)
            except ValueError:
                continue
            for e in r.get("events") or []:
                if e not in skip:
                    per[e][os.path.basename(f)[:-6]] += 1
    print(s, {e: dict(c) for e, c in sorted(per.items())})
