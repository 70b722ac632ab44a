#!/usr/bin/env python3
"""Labels a video in the format of ../shared/data/README.md with the MediaPipe peer.

    scripts/peer-label.py PEER_PYTHON PEER_MODEL VIDEO OUT_DIR [--person NAME] [--blink T]
                          [--closed FRAMES] [--source TEXT] [--license TEXT]

For recordings that have no labels (public talking-head clips, a user's own
recording sent for support): writes OUT_DIR/labels.csv and OUT_DIR/meta.json
beside a copy of VIDEO (OUT_DIR/video.avi, written by ffmpeg as MPEG-4 part 2,
XVID fourcc, -q:v 3, the format of the development data).

PEER_PYTHON is a Python with `mediapipe` installed; PEER_MODEL is
`face_landmarker_with_blendshapes.task` (Apache-2.0, google/project-gameface).
Neither is needed by Facemouse itself, and nothing made here is shipped.

Columns, as the development data has them: eye centres (the midpoint of
landmarks 263/362 and 33/133), brow centres (the mean of the ten brow
landmarks a side), nose tip (1), the point between the eyes (168), the peer's
blink score (the mean of eyeBlinkLeft and eyeBlinkRight) and brow score.
Pose columns are left empty. `t_ms` is frame / fps (a file has no wall clock).

`eyes_closed` is the peer's blink score over T (default 0.5) unless --closed
gives the frames by hand: a comma-separated list of inclusive ranges, "12-15,80-83",
checked by looking at the frames (the peer is pseudo ground truth, not a person);
"-" is none.
`brows_raised` is 0 on every frame: these clips are of people who do not mean
to raise their brows, so every raise found in them is a false one.
"""
import argparse, json, os, subprocess, sys

PEER = r'''
import sys, json
import cv2
import mediapipe as mp
from mediapipe.tasks.python import vision, BaseOptions
video, model = sys.argv[1], sys.argv[2]
lm = vision.FaceLandmarker.create_from_options(vision.FaceLandmarkerOptions(
    base_options=BaseOptions(model_asset_path=model), running_mode=vision.RunningMode.IMAGE,
    num_faces=1, output_face_blendshapes=True))
cap = cv2.VideoCapture(video)
LB = [276, 283, 282, 295, 285, 300, 293, 334, 296, 336]
RB = [46, 53, 52, 65, 55, 70, 63, 105, 66, 107]
while True:
    ok, bgr = cap.read()
    if not ok:
        break
    h, w = bgr.shape[:2]
    res = lm.detect(mp.Image(image_format=mp.ImageFormat.SRGB, data=cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)))
    if not res.face_landmarks:
        print(json.dumps(None))
        continue
    p = res.face_landmarks[0]
    xy = lambda i: (p[i].x * w, p[i].y * h)
    mean = lambda ids: (sum(p[i].x for i in ids) * w / len(ids), sum(p[i].y for i in ids) * h / len(ids))
    mid2 = lambda a, b: ((p[a].x + p[b].x) * w / 2, (p[a].y + p[b].y) * h / 2)
    bs = {c.category_name: c.score for c in res.face_blendshapes[0]}
    print(json.dumps({
        "le": mid2(263, 362), "re": mid2(33, 133), "lb": mean(LB), "rb": mean(RB),
        "nose": xy(1), "mid": xy(168),
        "blink": (bs["eyeBlinkLeft"] + bs["eyeBlinkRight"]) / 2,
        "brow": max(bs["browInnerUp"], (bs["browOuterUpLeft"] + bs["browOuterUpRight"]) / 2),
    }))
'''

HEADER = "frame,t_ms,eyes_closed,brows_raised,le_x,le_y,re_x,re_y,lb_x,lb_y,rb_x,rb_y,nose_x,nose_y,mid_x,mid_y,yaw,pitch,roll,peer_blink,peer_brow"


def ranges(text):
    """Frames from "12-15,80-83" ("-" or nothing: none)."""
    out = set()
    if text.strip() == "-":
        return out
    for part in filter(None, (text or "").split(",")):
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("python")
    ap.add_argument("model")
    ap.add_argument("video")
    ap.add_argument("out")
    ap.add_argument("--person", default="unknown")
    ap.add_argument("--blink", type=float, default=0.5)
    ap.add_argument("--closed")
    ap.add_argument("--source", default="")
    ap.add_argument("--license", default="")
    ap.add_argument("--vf", default="", help="an ffmpeg filter for the copy (scale, pad)")
    a = ap.parse_args()
    import shutil
    for tool in ("ffmpeg", "ffprobe"):
        if shutil.which(tool) is None:
            sys.exit(f"peer-label: {tool} is not installed: it copies the video into the development data's format "
                     "(apt-get install ffmpeg)")
    os.makedirs(a.out, exist_ok=True)
    dst = os.path.join(a.out, "video.avi")
    vf = ["-vf", a.vf] if a.vf else []
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", a.video, *vf, "-an", "-c:v", "mpeg4",
                    "-vtag", "XVID", "-q:v", "3", dst], check=True)
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                            "stream=width,height,r_frame_rate", "-of", "json", dst],
                           capture_output=True, text=True, check=True)
    st = json.loads(probe.stdout)["streams"][0]
    num, den = st["r_frame_rate"].split("/")
    fps = float(num) / float(den)
    out = subprocess.run([a.python, "-c", PEER, dst, a.model], capture_output=True, text=True, check=True)
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    closed = ranges(a.closed) if a.closed is not None else None
    lines = [HEADER]
    blinks, prev = 0, False
    for i, r in enumerate(rows):
        shut = (i in closed) if closed is not None else bool(r and r["blink"] > a.blink)
        blinks += shut and not prev
        prev = shut
        cells = [str(i), f"{i * 1000.0 / fps:.1f}", str(int(shut)), "0"]
        for k in ("le", "re", "lb", "rb", "nose", "mid"):
            cells += [f"{r[k][0]:.2f}", f"{r[k][1]:.2f}"] if r else ["", ""]
        cells += ["", "", ""]
        cells += [f"{r['blink']:.4f}", f"{r['brow']:.4f}"] if r else ["", ""]
        lines.append(",".join(cells))
    with open(os.path.join(a.out, "labels.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    meta = {"source": a.source, "license": a.license, "person": a.person, "fps": fps,
            "frames": len(rows), "width": st["width"], "height": st["height"],
            "synthetic_brow_raises": [], "subtle_raises": [], "blinks": blinks,
            "notes": "labelled by scripts/peer-label.py: positions and scores from the MediaPipe peer; "
                     + ("eyes_closed by hand" if closed is not None else f"eyes_closed = peer blink score > {a.blink}")}
    with open(os.path.join(a.out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(f"{a.out}: {len(rows)} frames at {fps:.2f} fps, {st['width']}x{st['height']}, {blinks} blinks, "
          f"{sum(r is None for r in rows)} frames without a face")


if __name__ == "__main__":
    main()
