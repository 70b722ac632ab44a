#!/usr/bin/env python3
"""Facemouse and the MediaPipe peer side by side on the same recordings, in one run.

    scripts/peer-cost.py PEER_PYTHON PEER_MODEL [--runs N] VIDEO...

PEER_PYTHON is a Python with `mediapipe` installed (pip install mediapipe, in a
venv); PEER_MODEL the FaceLandmarker model with blendshapes
(`face_landmarker_with_blendshapes.task`, Apache-2.0, from google/project-gameface;
not shipped here). Neither is needed by Facemouse itself.

For each video, alternating the two N times (default 3) and keeping each one's
least figure:
  - tick p50: Facemouse's pipeline time per frame (`proc_us`, from `replay`);
    the peer's `detect_for_video` call per frame (VIDEO mode, as Gameface runs it);
  - CPU per frame, decoding included, start-up left out: Facemouse's process CPU
    (every thread) on the video less that on a 2-frame copy of it, over the frames
    between; the peer's process CPU over its read-convert-detect loop, over the frames.
"""
import json, os, re, resource, subprocess, sys, tempfile

PEER = r'''
import sys, time, resource
import cv2
import mediapipe as mp
from mediapipe.tasks.python import vision, BaseOptions
video, model = sys.argv[1], sys.argv[2]
lm = vision.FaceLandmarker.create_from_options(vision.FaceLandmarkerOptions(
    base_options=BaseOptions(model_asset_path=model), running_mode=vision.RunningMode.VIDEO,
    num_faces=1, output_face_blendshapes=True, output_facial_transformation_matrixes=True))
cap = cv2.VideoCapture(video)
fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
ticks, n = [], 0
r0 = resource.getrusage(resource.RUSAGE_SELF)
while True:
    ok, bgr = cap.read()
    if not ok:
        break
    img = mp.Image(image_format=mp.ImageFormat.SRGB, data=cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))
    t = time.perf_counter()
    lm.detect_for_video(img, int(n * 1000 / fps))
    ticks.append((time.perf_counter() - t) * 1e6)
    n += 1
r1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
ticks.sort()
print(f"{n} {ticks[len(ticks) // 2]:.0f} {cpu * 1e6 / n:.0f}")
'''


def child_cpu(cmd):
    """Runs cmd; its output and the CPU seconds (user + sys, every thread) it used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    args = sys.argv[1:]
    runs = 3
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i:i + 2]
    if len(args) < 3:
        sys.exit(__doc__)
    peer_python, model, videos = args[0], args[1], args[2:]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    fm = os.path.join(root, "target", "release", "facemouse")
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "peer.py")
        open(script, "w").write(PEER)
        print("| recording | frames | tick p50 Facemouse / peer (µs) | faster | CPU per frame Facemouse / peer (µs) | lower |")
        print("|---|---|---|---|---|---|")
        for video in videos:
            name = os.path.basename(os.path.dirname(video)) or video
            short = os.path.join(tmp, name + "-2")
            # A copy of a frame or two (every 900th): what starting up costs Facemouse on this video.
            subprocess.run([fm, "resample", os.path.dirname(video), "--every", "900", "--out", short], capture_output=True, check=True)
            ours_tick, ours_cpu, peer_tick, peer_cpu, frames = [], [], [], [], 0
            for _ in range(runs):
                out, full = child_cpu([fm, "replay", video])
                m = re.search(r"(\d+) frames .*proc_us p50 (\d+)", out.stdout + out.stderr)
                frames, tick = int(m.group(1)), int(m.group(2))
                out, start = child_cpu([fm, "replay", os.path.join(short, "video.avi")])
                few = int(re.search(r"(\d+) frames", out.stdout + out.stderr).group(1))
                ours_tick.append(tick)
                ours_cpu.append((full - start) * 1e6 / max(frames - few, 1))
                out, _ = child_cpu([peer_python, script, video, model])
                n, t, c = out.stdout.split()[-3:]
                peer_tick.append(float(t))
                peer_cpu.append(float(c))
            ot, oc, pt, pc = min(ours_tick), min(ours_cpu), min(peer_tick), min(peer_cpu)
            print(f"| {name} | {frames} | {ot:.0f} / {pt:.0f} | {pt / ot:.1f}× | {oc:.0f} / {pc:.0f} | {pc / oc:.1f}× |")


if __name__ == "__main__":
    main()
