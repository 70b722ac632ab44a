#!/usr/bin/env python3
"""How well AHM's own error estimate ranks its real error, in the pipeline.
    scripts/ahm-estimate.py BIN SEQ...
Replays each labelled sequence (made with `facemouse synth --turning`, whose
labels hold the point between the eyes) with FACEMOUSE_LOG=trace, reads
AHM's lines ("AHM: t T follows|carries: ... expected E residual R at (X, Y)")
and prints, per sequence and pooled, Spearman's correlation of the real
error of AHM's point between the eyes (in frontal eye distances) with its
expected error, and with the other things it could be told by: the
residual, |yaw|, |pitch| and the angle off frontal AHM reads. The last
columns take the real error up to a constant: less the sequence's median
offset of AHM's point from the labelled one (AHM's point is its own
definition of "between the eyes", and the pipeline carries the offset of
the templates' feature from it, so a constant offset never reaches the
pointer).
"""
import csv, math, os, re, subprocess, sys

LINE = re.compile(r"AHM: t (\d+) (follows|carries): yaw (\S+) pitch (\S+) expected (\S+) residual (\S+) at \((\S+), (\S+)\)")


def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    r = [0.0] * len(v)
    i = 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2
        i = j + 1
    return r


def spearman(a, b):
    if len(a) < 3:
        return float("nan")
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    c = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    d = math.sqrt(sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb))
    return c / d if d > 0 else float("nan")


def frames(binary, seq):
    rows = list(csv.DictReader(open(os.path.join(seq, "labels.csv"))))
    by_t = {int(round(float(r["t_ms"]))): r for r in rows}
    r0 = rows[0]
    iod = math.hypot(float(r0["le_x"]) - float(r0["re_x"]), float(r0["le_y"]) - float(r0["re_y"]))
    env = dict(os.environ, FACEMOUSE_LOG="trace")
    log = subprocess.run([binary, "replay", os.path.join(seq, "video.avi")], env=env, capture_output=True, text=True, check=True).stderr
    out = []
    for line in log.splitlines():
        m = LINE.search(line)
        if not m:
            continue
        t = int(m.group(1))
        r = by_t.get(t) or by_t.get(t + 1) or by_t.get(t - 1)
        if r is None or not r.get("mid_x"):
            continue
        yaw, pitch = float(m.group(3)), float(m.group(4))
        dx, dy = (float(m.group(7)) - float(r["mid_x"])) / iod, (float(m.group(8)) - float(r["mid_y"])) / iod
        out.append({"real": math.hypot(dx, dy), "dx": dx, "dy": dy, "expected": float(m.group(5)), "residual": float(m.group(6)), "|yaw|": abs(yaw), "|pitch|": abs(pitch), "angle": math.hypot(yaw, pitch), "carried": m.group(2) == "carries"})
    if out:
        mx = sorted(r["dx"] for r in out)[len(out) // 2]
        my = sorted(r["dy"] for r in out)[len(out) // 2]
        for r in out:
            r["moved"] = math.hypot(r["dx"] - mx, r["dy"] - my)
    return out


def report(name, rows):
    real = [r["real"] for r in rows]
    cols = ["expected", "residual", "|yaw|", "|pitch|", "angle"]
    moved = [r["moved"] for r in rows]
    med = sorted(real)[len(real) // 2] if real else float("nan")
    med_moved = sorted(moved)[len(moved) // 2] if moved else float("nan")
    print(
        f"| {name} | {len(rows)} | {med:.3f} | "
        + " | ".join(f"{spearman([r[c] for r in rows], real):.2f}" for c in cols)
        + f" | {med_moved:.3f} | {spearman([r['expected'] for r in rows], moved):.2f} | {spearman([r['angle'] for r in rows], moved):.2f} |"
    )


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, seqs = sys.argv[1], sys.argv[2:]
    print("| sequence | AHM frames | real error median | Spearman with: expected | residual | abs(yaw) | abs(pitch) | angle | up to the offset: error median | Spearman with expected | with angle |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    pooled = []
    for s in seqs:
        rows = frames(binary, s)
        report(os.path.basename(os.path.normpath(s)), rows)
        pooled += rows
    report("pooled", pooled)
    report("pooled, carried frames", [r for r in pooled if r["carried"]])


main()
