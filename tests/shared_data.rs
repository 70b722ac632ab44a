//! Evaluation on the development videos in `../shared/data` (not shipped: they
//! may not be redistributed). Every test skips with a message when they are absent.

use std::path::{Path, PathBuf};

use facemouse::lab::eval;
use facemouse::lab::labels::Sequence;
use facemouse::profile::Settings;
use facemouse::replay;

fn shared(name: &str) -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data").join(name);
    if d.join("video.avi").exists() {
        Some(d)
    } else {
        eprintln!("skipped: ../shared/data/{name} is absent (the development data is not part of the project)");
        None
    }
}

fn run(dir: &Path) -> (Sequence, Vec<facemouse::trace::TraceRecord>, eval::Scores) {
    let seq = Sequence::load(dir).expect("labels");
    let (records, _) = replay::collect(seq.source(), &Settings::default()).expect("replay");
    let scores = eval::score(&seq, &records, None);
    (seq, records, scores)
}

/// `run` on a copy of `dir` in `tmp/name` that keeps every `every`th frame at `scale` (`facemouse resample`).
fn run_copy(tmp: &Path, dir: &Path, name: &str, every: usize, scale: f64) -> (Sequence, Vec<facemouse::trace::TraceRecord>, eval::Scores) {
    run_moved(tmp, dir, name, every, scale, None)
}

/// `run` on a copy of `dir` in `tmp/name` made by `facemouse resample` with `opts`.
fn run_resampled(tmp: &Path, dir: &Path, name: &str, opts: &facemouse::lab::resample::Options<'_>) -> (Sequence, Vec<facemouse::trace::TraceRecord>, eval::Scores) {
    let out = tmp.join(name);
    facemouse::lab::resample::resample(dir, &out, opts).expect("resample");
    run(&out)
}

/// `run_copy`, each frame moved as a talking head moves with the motion of `seed` (`facemouse resample --move`).
fn run_moved(tmp: &Path, dir: &Path, name: &str, every: usize, scale: f64, seed: Option<u64>) -> (Sequence, Vec<facemouse::trace::TraceRecord>, eval::Scores) {
    let motion = seed.map(facemouse::lab::resample::Motion::new);
    run_resampled(tmp, dir, name, &facemouse::lab::resample::Options { every, scale, motion: motion.as_ref(), ..Default::default() })
}

/// `run` on a copy of `dir` in `tmp/name` with `share` of its frames dropped
/// at random by `seed` (`facemouse resample --drop`), the rest at their own times.
fn run_dropped(tmp: &Path, dir: &Path, name: &str, share: f64, seed: u64) -> (Sequence, Vec<facemouse::trace::TraceRecord>, eval::Scores) {
    let drops = facemouse::lab::resample::Drops { share, seed };
    run_resampled(tmp, dir, name, &facemouse::lab::resample::Options { drops: Some(drops), ..Default::default() })
}

/// `run` on a copy of `dir` in `tmp/name` lit from behind with the light of `seed` (`facemouse resample --backlight`).
fn run_lit(tmp: &Path, dir: &Path, name: &str, seed: u64) -> (Sequence, Vec<facemouse::trace::TraceRecord>, eval::Scores) {
    let light = facemouse::lab::resample::Light::new(seed);
    run_resampled(tmp, dir, name, &facemouse::lab::resample::Options { light: Some(&light), ..Default::default() })
}

/// `facemouse eval` must reproduce the reference scorer's numbers.
#[test]
fn eval_matches_the_reference_scorer() {
    let Some(dir) = shared("focus-p1-brows-a") else { return };
    let script = dir.join("../../tools/score.py");
    if std::process::Command::new("python3").arg("--version").output().is_err() || !script.exists() {
        eprintln!("skipped: python3 or ../shared/tools/score.py is absent");
        return;
    }
    let (_, records, scores) = run(&dir);
    let tmp = tempfile::tempdir().expect("tempdir");
    let trace = tmp.path().join("t.jsonl");
    let mut w = facemouse::trace::TraceWriter::create(&trace).expect("trace");
    for r in &records {
        w.write(r).expect("write");
    }
    w.finish().expect("finish");
    let out = std::process::Command::new("python3").arg(&script).arg(&dir).arg(&trace).output().expect("score.py");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reference: serde_json::Value = serde_json::from_slice(&out.stdout).expect("score.py prints JSON");
    let ours = serde_json::to_value(&scores).expect("json");
    let mut compared = 0;
    fn walk(ours: &serde_json::Value, theirs: &serde_json::Value, path: &str, compared: &mut usize) {
        match theirs {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    if k == "note" {
                        continue;
                    }
                    let o = ours.get(k).unwrap_or_else(|| panic!("eval lacks {path}.{k}"));
                    walk(o, v, &format!("{path}.{k}"), compared);
                }
            }
            serde_json::Value::Number(n) => {
                let (a, b) = (ours.as_f64().unwrap_or(f64::NAN), n.as_f64().unwrap_or(f64::NAN));
                assert!((a - b).abs() <= 1e-3 * b.abs().max(1.0), "{path}: eval {a} vs score.py {b}");
                *compared += 1;
            }
            serde_json::Value::Null => assert!(ours.is_null(), "{path}: eval {ours} vs score.py null"),
            other => assert_eq!(ours, other, "{path}"),
        }
    }
    walk(&ours, &reference, "", &mut compared);
    assert!(compared > 50, "compared {compared} numbers");
}

/// Every development clip of `../shared/data`, FOCUS and ZJU.
fn all_clips() -> Option<Vec<PathBuf>> {
    let mut dirs = Vec::new();
    for name in ["focus-p1-a", "focus-p1-b", "focus-p1-brows-a", "focus-p1-c", "focus-p2-a", "focus-p2-brows-b"] {
        dirs.push(shared(name)?);
    }
    dirs.extend(zju_clips()?);
    Some(dirs)
}

/// The ZJU clips of `../shared/data/zju`, in order.
fn zju_clips() -> Option<Vec<PathBuf>> {
    let zju = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/zju");
    let mut z: Vec<PathBuf> = std::fs::read_dir(&zju).ok().into_iter().flatten().filter_map(Result::ok).map(|e| e.path()).filter(|p| p.join("video.avi").exists()).collect();
    z.sort();
    if z.is_empty() {
        eprintln!("skipped: ../shared/data/zju is absent or holds no clips (the development data is not part of the project)");
        return None;
    }
    Some(z)
}

/// Floors per person group on every development clip, below what the vision
/// measures today (`docs/accuracy.md`), so a change that costs one group
/// fails here even if it helps another. They are not the targets,
/// which some groups do not meet yet.
#[test]
fn every_person_group_keeps_its_floor() {
    let Some(dirs) = all_clips() else { return };
    let mut all = Vec::new();
    for dir in &dirs {
        let (_, records, s) = run(dir);
        let name = &s.sequence;
        assert!(s.init_latency.frame.is_some(), "{name}: never tracked");
        assert!(s.init_latency.after_first_blink_ms.unwrap_or(f64::INFINITY) <= 1000.0, "{name}: {:?}", s.init_latency);
        // The target. zju-s03-fnn's narrow left eye was at 0.082
        // until the other side's generic eye, mirrored, placed it (0.027);
        // the worst clip is now zju-s05-unn at 0.069.
        assert!(s.eye_error.median.unwrap_or(1.0) <= 0.08, "{name}: eye error {:?}", s.eye_error);
        assert_eq!(s.brow.subtle_detected.unwrap_or(0), 0, "{name}: a subtle raise fired");
        // No clip has a long closure: a long blink would be a stray right click.
        // Nor does anybody wink: a wink would be a stray command where one is bound.
        assert_eq!(stray_commands(&records), 0, "{name}: a long blink or a wink where none was");
        if s.brow.gt > 0 {
            assert!(s.brow.precision.unwrap_or(0.0) >= 0.95, "{name}: {:?}", s.brow);
        }
        all.push(s);
    }
    let sum = eval::summarize(&all);
    assert!(sum.coverage_mean.unwrap_or(0.0) >= 0.9, "{sum:?}");
    assert!(sum.false_brow_per_min.unwrap_or(1.0) <= 0.5, "{sum:?}");
    assert!(sum.blink_precision.unwrap_or(0.0) >= 0.95, "{sum:?}");
    // 0.96 with the eighteen ZJU people (zju-s09-fbn, found with her eyes
    // shut, gives none of her four blinks: docs/accuracy.md).
    assert!(sum.blink_recall.unwrap_or(0.0) >= 0.95, "{sum:?}");
    assert!(sum.false_blink_per_min.unwrap_or(1.0) <= 0.5, "{sum:?}");
    let floors = [("p1", 0.95, 0.95), ("p2", 0.95, 0.95), ("zju", 0.93, 0.0)];
    let groups = eval::groups(&all);
    for (group, blink_f1, brow_recall) in floors {
        let (_, g) = groups.iter().find(|(n, _)| n == group).unwrap_or_else(|| panic!("no clip of group {group}"));
        assert!(g.blink_f1.unwrap_or(0.0) >= blink_f1, "{group}: blink F1 {:?} < {blink_f1}: {g:?}", g.blink_f1);
        if g.brow_recall.is_some() {
            assert!(g.brow_recall.unwrap_or(0.0) >= brow_recall, "{group}: brow recall < {brow_recall}: {g:?}");
        }
    }
}

/// Long blinks and winks in a trace (none of the clips has either).
fn stray_commands(records: &[facemouse::trace::TraceRecord]) -> usize {
    use facemouse::events::Event;
    records.iter().flat_map(|r| &r.events).filter(|e| matches!(e, Event::LongBlink | Event::WinkLeft | Event::WinkRight)).count()
}

/// Long blinks, winks and brow raises in a trace, with their frames (on a
/// clip without raises, each is a command nobody meant).
fn stray_gestures(records: &[facemouse::trace::TraceRecord]) -> Vec<(u64, facemouse::events::Event)> {
    use facemouse::events::Event;
    records.iter().flat_map(|r| r.events.iter().map(move |e| (r.frame, *e))).filter(|(_, e)| matches!(e, Event::LongBlink | Event::WinkLeft | Event::WinkRight | Event::BrowRaise)).collect()
}

/// A webcam that drops a quarter of its frames at random (low light, a busy
/// machine; `facemouse resample --drop 0.25`, the seeds of the `drop` check
/// set): the frames left come one, two or more source frames apart, each
/// at its own time. Measured (twenty-fourth session): blinks 27 of 29 with 3 false
/// (p1-brows-a, p2-brows-b, p1-c), raises 16 of 18, one of them given late;
/// no raise outside a meant one, no long blink and no wink.
#[test]
fn a_camera_that_drops_frames_keeps_the_blinks_and_clicks_only_when_meant() {
    use facemouse::events::Event;
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut all = Vec::new();
    for (name, seed) in [("focus-p1-brows-a", 503), ("focus-p2-brows-b", 506), ("focus-p1-c", 504)] {
        let Some(dir) = shared(name) else { return };
        let (seq, records, s) = run_dropped(tmp.path(), &dir, name, 0.25, seed);
        assert_eq!(stray_commands(&records), 0, "{name}: a long blink or a wink where none was");
        // Each raise within a labelled one (or half a second of it).
        let near = (0.5 * s.fps).round() as usize;
        let meant = Sequence::runs(seq.rows.iter().map(|r| r.brows_raised));
        let stray: Vec<u64> = records
            .iter()
            .filter(|r| r.events.contains(&Event::BrowRaise))
            .map(|r| r.frame)
            .filter(|&f| !meant.iter().any(|&(a, b)| (a.saturating_sub(near)..=b + near).contains(&(f as usize))))
            .collect();
        assert!(stray.is_empty(), "{name}: raises nobody meant at frames {stray:?}");
        all.push(s);
    }
    let sum = eval::summarize(&all);
    assert!(sum.blink_recall.unwrap_or(0.0) >= 0.85 && sum.blink_precision.unwrap_or(0.0) >= 0.85, "{sum:?}");
    assert!(sum.brow_recall.unwrap_or(0.0) >= 0.8, "{sum:?}");
}

/// p2 looks up above the screen with her lids half lowered, for seconds: on a
/// small camera too, that is neither a long blink (a right click) nor a wink.
#[test]
fn a_small_camera_takes_no_look_for_a_long_blink() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let Some(dir) = shared("focus-p2-brows-b") else { return };
    let (_, records, _) = run_copy(tmp.path(), &dir, "p2-small", 1, 0.5);
    assert_eq!(stray_commands(&records), 0);
}

/// Slower and smaller cameras (`facemouse resample`): 15 fps at 320×240,
/// 7.5 fps at 320×240, and 10 fps. Floors of what the vision measures today
/// (`docs/accuracy.md`, "Slower and smaller cameras"). Every copy gives
/// 1.00/1.00 since the copies are labelled from the first frame that can
/// show a blink (twenty-third session); with the labels a frame early they
/// looked worse than they were (focus-p1-b at 7.5 fps: 0.83/0.91), and the
/// floors were 0.55/0.45 below 15 fps. Tracking must start at once, blinks or not.
#[test]
fn slower_and_smaller_cameras_still_see_the_blinks() {
    use facemouse::events::Event;
    let tmp = tempfile::tempdir().expect("tempdir");
    for (name, every, scale) in [("focus-p1-b", 2, 0.5), ("focus-p1-brows-a", 2, 0.5), ("focus-p1-b", 4, 0.5), ("focus-p1-a", 3, 1.0)] {
        let Some(dir) = shared(name) else { return };
        let (_, records, s) = run_copy(tmp.path(), &dir, &format!("{name}-{every}-{scale}"), every, scale);
        let label = format!("{name} every {every}, scale {scale}");
        // Known: at 7.5 fps and 320×240, one glance down on focus-p1-b still
        // gives a long blink (docs/accuracy.md); winks must not come.
        let winks = records.iter().flat_map(|r| &r.events).filter(|e| matches!(e, Event::WinkLeft | Event::WinkRight)).count();
        assert_eq!(winks, 0, "{label}: a wink where none was");
        // At 7.5 fps and 320×240 focus-p1-b gives 9 of its 11 blinks with
        // each frame at its recorded time (11 at even intervals, twenty-fourth
        // session): two blinks that run into a look down.
        assert!(s.blink.recall.unwrap_or(0.0) >= 0.8 && s.blink.precision.unwrap_or(0.0) >= 0.85, "{label}: {:?}", s.blink);
        assert!(s.init_latency.after_first_blink_ms.unwrap_or(f64::INFINITY) <= 0.0, "{label}: {:?}", s.init_latency);
        if s.brow.gt > 0 {
            assert!(s.brow.precision.unwrap_or(0.0) >= 0.9 && s.brow.recall.unwrap_or(0.0) >= 0.9, "{label}: {:?}", s.brow);
        }
    }
}

/// Six frames a second (every third frame of p1-c and p2's two clips): a
/// blink is given as the eyes reopen, within the one frame the scorer
/// allows there of the first frame that can show it, and the first frame
/// of p2's looks down is no blink. Pooled over the three copies, precision and recall
/// 0.39/0.43 in the twentieth session; 0.52/0.73 with the twenty-first's
/// blink given on its first closed frame, against copies labelled a frame
/// early; 0.64/0.90 with that rule on copies labelled from the first frame
/// that can show each blink, and 0.82/0.90 without it (docs/accuracy.md,
/// twenty-third session).
#[test]
fn a_six_frames_a_second_camera_gives_its_blinks_on_time() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (mut tp, mut detected, mut gt) = (0, 0, 0);
    for name in ["focus-p1-c", "focus-p2-a", "focus-p2-brows-b"] {
        let Some(dir) = shared(name) else { return };
        let (_, _, s) = run_copy(tmp.path(), &dir, &format!("{name}-e3"), 3, 1.0);
        assert!(s.fps < 6.5, "{name}: {} fps", s.fps);
        (tp, detected, gt) = (tp + s.blink.tp, detected + s.blink.detected, gt + s.blink.gt);
    }
    let (precision, recall) = (tp as f64 / detected.max(1) as f64, tp as f64 / gt.max(1) as f64);
    assert!(recall >= 0.85 && precision >= 0.75, "6 fps, pooled: precision {precision:.2}, recall {recall:.2} ({tp} of {gt}, {detected} given)");
}

/// The ZJU people laid over with head motion, each clip with its own seed
/// from `first_seed` on (as the moving sets of `docs/accuracy.md`), every
/// `every`th frame at `scale`: each run's seed, trace and scores. `None`
/// when `../shared` is absent.
fn zju_moved(first_seed: u64, every: usize, scale: f64) -> Option<Vec<(u64, Vec<facemouse::trace::TraceRecord>, eval::Scores)>> {
    let dirs = zju_clips()?;
    let tmp = tempfile::tempdir().expect("tempdir");
    let runs = dirs
        .iter()
        .zip(first_seed..)
        .map(|(dir, seed)| {
            let (_, records, s) = run_moved(tmp.path(), dir, &format!("moving-{seed}"), every, scale, Some(seed));
            (seed, records, s)
        })
        .collect();
    Some(runs)
}

/// The eighteen ZJU people's runs pooled: every clip there, blink recall at
/// least `recall` and precision at least 0.9.
fn assert_zju_floor(all: &[eval::Scores], recall: f64) {
    assert!(all.len() >= 18, "the eighteen ZJU clips: {}", all.len());
    let sum = eval::summarize(all);
    assert!(sum.blink_recall.unwrap_or(0.0) >= recall && sum.blink_precision.unwrap_or(0.0) >= 0.9, "{sum:?}");
}

/// The ZJU people at 7.5 fps (every 4th frame): a blink there shows on
/// one or two frames, often part way. Pooled floors below what the vision
/// measures today (0.96/0.95 for all eighteen since the copies are labelled
/// from the first frame that can show a blink; with the labels a frame
/// early, `docs/accuracy.md`: 0.94/0.88, and 0.83
/// while a blink under way as tracking started was lost, 0.78 while a start
/// in a blink widened the span for the next second, 0.69 before a part-way
/// blink could span two frames from 0.45 of the threshold). No long blink
/// and no wink: those would be stray commands.
#[test]
fn the_zju_people_at_7_5_fps_keep_their_floor() {
    let Some(dirs) = zju_clips() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut all = Vec::new();
    for dir in &dirs {
        let (_, records, s) = run_copy(tmp.path(), dir, &dir.file_name().expect("name").to_string_lossy(), 4, 1.0);
        assert_eq!(stray_commands(&records), 0, "{}: a long blink or a wink where none was", s.sequence);
        assert!(s.init_latency.frame.is_some(), "{}: never tracked", s.sequence);
        all.push(s);
    }
    assert_zju_floor(&all, 0.9);
}

/// The ZJU people never raise their brows on purpose, but zju-s16's rise with
/// her blinks and settle over half a second. At 10 and 6 fps a camera sees
/// such a blink only part way, or not at all: still no brow raise (a left
/// click by default) on any of them.
#[test]
fn no_zju_person_raises_their_brows_at_6_or_10_fps() {
    use facemouse::events::Event;
    let Some(dirs) = zju_clips() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut runs = 0;
    for dir in &dirs {
        for every in [3, 5] {
            let name = format!("{}-e{every}", dir.file_name().expect("name").to_string_lossy());
            let (_, records, _) = run_copy(tmp.path(), dir, &name, every, 1.0);
            let raised: Vec<u64> = records.iter().filter(|r| r.events.contains(&Event::BrowRaise)).map(|r| r.frame).collect();
            assert!(raised.is_empty(), "{} keeping 1 frame in {every}: a brow raise at frames {raised:?}", dir.display());
            runs += 1;
        }
    }
    assert_eq!(runs, 2 * dirs.len(), "every ZJU clip at two rates");
    assert!(dirs.len() >= 18, "the eighteen ZJU clips: {}", dirs.len());
}

/// The real clips laid over with the head motion of someone who talks
/// (`facemouse resample --move`: shifts, rolls, leaning in and out, turns).
/// Each case failed before its fix (`docs/accuracy.md`, eighth session):
/// - p1 at 15 fps and 384×288, moving: one eye was placed on the glasses'
///   upper rim, 0.32 eye distances off, for the whole clip (0 of 8 blinks);
///   p1-c so at 9 fps (0 of 12), with an eye line that leaned less;
/// - zju-s06, moving: the track was lost and taken again in a blink, and the
///   open eyes then looked shut against looks of closing eyes: a long blink,
///   a right click;
/// - zju-s11, moving: the eyes' steady place lagged the turning head and the
///   brows seemed to rise 0.055 eye distances: a brow raise, a left click.
#[test]
fn heads_that_move_as_people_talk_keep_their_eyes_and_click_nothing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let Some(p1) = shared("focus-p1-a") else { return };
    let (_, records, s) = run_moved(tmp.path(), &p1, "p1-moving-small", 2, 0.6, Some(201));
    assert_eq!(stray_commands(&records), 0, "p1, moving: a long blink or a wink");
    assert!(s.eye_error.median.unwrap_or(1.0) < 0.08, "p1, moving: the eyes are off: {:?}", s.eye_error);
    assert!(s.blink.recall.unwrap_or(0.0) >= 0.75, "p1, moving: {:?}", s.blink);
    // p1-c moving at 9 fps and 384×288: one eye on the rim for the whole
    // clip, 0.29 eye distances from the face detector's on every check.
    let Some(p1c) = shared("focus-p1-c") else { return };
    let (_, records, s) = run_moved(tmp.path(), &p1c, "p1c-moving-small", 2, 0.6, Some(204));
    assert_eq!(stray_commands(&records), 0, "p1-c, moving: a long blink or a wink");
    // With each frame at its recorded time (twenty-fourth session) the eye
    // on the rim was placed again only 20 s in (0.100, 7 of 12 blinks): each
    // search that found nothing like an eye there cost four more checks.
    // Searched again at the next check instead: 6 s in, 0.089, 10 of 12.
    assert!(s.eye_error.median.unwrap_or(1.0) < 0.1, "p1-c, moving: the eyes are off: {:?}", s.eye_error);
    assert!(s.blink.recall.unwrap_or(0.0) >= 0.75, "p1-c, moving: {:?}", s.blink);
    for (name, seed) in [("zju/zju-s06-ftn", 11), ("zju/zju-s11-fnn", 16)] {
        let Some(dir) = shared(name) else { return };
        let (_, records, _) = run_moved(tmp.path(), &dir, &format!("moving-{seed}"), 1, 1.0, Some(seed));
        let stray = stray_gestures(&records);
        assert!(stray.is_empty(), "{name}, moving: {stray:?}");
    }
}

/// The eighteen ZJU people laid over with head motion (seeds 107 to 124, as
/// in `docs/accuracy.md`): a rolled or nearer face matches the feature's
/// template less, and its frames were not judged at all (a third to a half
/// of them: 0.75 of the blinks found). Judged with the roll and size undone,
/// 0.88. No stray command and no brow raise. (Each frame at its recorded
/// time, 33.3 or 33.4 ms apart instead of 33.31: 0.88 again, where it was
/// 0.93, since a hold or a template's score a hair over a limit on one frame
/// ends up under it on the next; floor 0.85.)
#[test]
fn the_zju_people_moving_keep_their_blinks() {
    let Some(runs) = zju_moved(107, 1, 1.0) else { return };
    let mut all = Vec::new();
    for (_, records, s) in runs {
        let stray = stray_gestures(&records);
        assert!(stray.is_empty(), "{} moving: {stray:?}", s.sequence);
        all.push(s);
    }
    assert_zju_floor(&all, 0.85);
}

/// The eighteen ZJU people lit from behind (seeds 407 to 424, the `lit` set
/// of `docs/accuracy.md`): a dark, flat face under the sensor's noise, whose
/// eye patches depart 0.1 to 0.2 from any one frame with no change of the
/// eyes. The blink of a start in a blink took that noise for the eyes
/// opening: 7 false blinks on 18 starts (precision 0.88); over the first
/// look's own noise, 0.94. Recall 0.81 (0.76 without that blink at all).
/// No stray command, and no brow raise: zju-s16 (seed 421) gave a left
/// click after a blink the noise hid (its closure 0.78 of the threshold),
/// her brows rising with it, until lids seen to fall were taken as a blink
/// for the brow switch (`Brows::lids_fell`).
#[test]
fn the_zju_people_lit_from_behind_keep_their_blinks() {
    let Some(dirs) = zju_clips() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut all = Vec::new();
    for (seed, dir) in (407..).zip(&dirs) {
        let (_, records, s) = run_lit(tmp.path(), dir, &format!("lit-{seed}"), seed);
        let stray = stray_gestures(&records);
        assert!(stray.is_empty(), "{}: a raise, a long blink or a wink where none was: {stray:?}", s.sequence);
        all.push(s);
    }
    assert_zju_floor(&all, 0.75);
}

/// p1-b lit from behind (seed 402): its eyes were placed, and tracked for
/// the whole minute, on the brows and the glasses' top rim, 0.27 eye
/// distances above them, both the same way: none of its 11 blinks seen, and
/// a brow "raise" that clicked. The face detector's eyes, the same way off
/// answer after answer, now put them back: at least 8 blinks, no raise, and
/// both eyes on their labels' height.
#[test]
fn eyes_placed_on_the_brows_of_a_dark_face_are_put_back() {
    let Some(dir) = shared("focus-p1-b") else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let (seq, records, s) = run_lit(tmp.path(), &dir, "lit-402", 402);
    let raises = records.iter().filter(|r| r.events.contains(&facemouse::events::Event::BrowRaise)).count();
    assert_eq!(raises, 0, "a brow raise on a face that never raised them");
    assert!(s.blink.recall.unwrap_or(0.0) >= 8.0 / 11.0 - 1e-9, "blinks: {:?}", s.blink);
    // From 10 s on, each eye within 0.1 eye distances of its label's height.
    let mut high = 0;
    let mut n = 0;
    for (r, l) in records.iter().zip(&seq.rows).filter(|(r, _)| r.t_ms >= 10_000.0) {
        let (Some(le), Some(re), Some(lle), Some(lre)) = (r.le, r.re, l.le, l.re) else { continue };
        let iod = facemouse::events::dist(lle, lre);
        n += 1;
        high += usize::from((le[1] - lle[1]).abs().max((re[1] - lre[1]).abs()) > 0.1 * iod);
    }
    assert!(n > 1000 && high * 20 < n, "{high} of {n} frames with an eye off its height");
}

/// The same people moving, at half their frame rate (15 fps) and 0.6 of
/// their size (192×144, about 30 pixels between the eyes; seeds 207 to 224,
/// the ZJU part of the `mvC` set in `docs/accuracy.md`). The shaking of the
/// head widened the eye state's span past the depth of these people's own
/// blinks: 0.64 of them counted. The span is now held to a share of that
/// depth once a blink has shown it: 0.78; and a start in a blink no longer
/// widens it for the next second: 0.83. No long blink, no wink and no
/// brow raise: s16 (seed 221) gave one, a left click, where her brows rose
/// 0.1 eye distances with a blink caught on one frame part of the way
/// (closure 0.79 of the threshold), until lids seen to fall were taken as a
/// blink for the brow switch (`Brows::lids_fell`).
#[test]
fn the_zju_people_moving_small_and_slow_keep_their_blinks() {
    let Some(runs) = zju_moved(207, 2, 0.6) else { return };
    let mut all = Vec::new();
    for (_, records, s) in runs {
        let stray = stray_gestures(&records);
        assert!(stray.is_empty(), "{} moving, small and slow: {stray:?}", s.sequence);
        all.push(s);
    }
    assert_zju_floor(&all, 0.8);
}

/// p2 at 0.4 of the size: she looks down to read, her lowered lids read as
/// closed, and she blinks inside those looks. Such a blink used to be given
/// only once her lids were back at the look, a frame or more after the
/// scorer's tolerance: a miss and a false blink at once. It is given as the
/// lids turn back, as a blink from open eyes is. Both p2 clips pooled: at
/// least 14 of her 18 blinks, precision at least 0.9 (it was 14, 0.82). With
/// each frame at its recorded time (twenty-fourth session) 14, not 16: the
/// look down she blinks inside at 21.6 s is taken as her open eyes one frame
/// before that blink (the same blink in both clips).
#[test]
fn blinks_inside_a_look_down_count_on_time() {
    let (Some(a), Some(b)) = (shared("focus-p2-a"), shared("focus-p2-brows-b")) else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let all: Vec<eval::Scores> = [(a, "p2-a-small"), (b, "p2-b-small")].iter().map(|(dir, name)| run_moved(tmp.path(), dir, name, 1, 0.4, None).2).collect();
    let sum = eval::summarize(&all);
    let (p, r) = (sum.blink_precision.unwrap_or(0.0), sum.blink_recall.unwrap_or(0.0));
    assert!(r >= 14.0 / 18.0 - 1e-9 && p >= 0.9, "p2 at 0.4 of the size: blink precision {p:.2}, recall {r:.2}");
}

/// The clicks in a trace (left, right, middle, double), with their times (ms).
fn clicks(records: &[facemouse::trace::TraceRecord]) -> Vec<f64> {
    use facemouse::events::Event;
    records.iter().filter(|r| r.events.iter().any(|e| matches!(e, Event::ClickLeft | Event::ClickRight | Event::ClickMiddle | Event::ClickDouble))).map(|r| r.t_ms).collect()
}

/// A hand comes over p2's face at once, textured, half way through a
/// raise she holds (focus-p2-brows-b, 20.0 s): the covered frame says
/// nothing of the brows. Taken as a new look of the eyes, it let the raise
/// go, and the raise clicked on the covered frame; now the loss that
/// follows cancels it. Without the hand the raise clicks.
#[test]
fn a_hand_over_the_face_mid_raise_cancels_the_raise() {
    use facemouse::lab::resample::{Hand, Options};
    let Some(dir) = shared("focus-p2-brows-b") else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let (_, plain, _) = run_resampled(tmp.path(), &dir, "plain", &Options::default());
    let during = |c: &[f64]| c.iter().copied().filter(|t| (19_900.0..23_000.0).contains(t)).collect::<Vec<_>>();
    assert_eq!(during(&clicks(&plain)).len(), 1, "the raise clicks without the hand: {:?}", clicks(&plain));
    let hand = Hand { from_ms: 20_000.0, to_ms: 22_400.0, slide_ms: 1.0, rest_ms: 2400.0, period_ms: 10_000.0, seed: 5 };
    let (_, covered, _) = run_resampled(tmp.path(), &dir, "hand", &Options { hand: Some(&hand), ..Options::default() });
    assert!(during(&clicks(&covered)).is_empty(), "a click under the hand: {:?}", during(&clicks(&covered)));
}

/// A hand slides over the upper face, rests there 1.5 s and slides away,
/// every 4 s from 10 s on (`facemouse resample --hand 1`), on every FOCUS
/// clip. It dragged the trackers with it, the trackers started again on
/// the half-covered face as it left, and a start placed the feature or an
/// eye a tenth of an eye distance off: the pointer crossed the screen at
/// full speed, and travelled 4.4 times as far as without the hand (32 000
/// against 7 200 px over the six clips). Now no click comes that does not
/// come without the hand, and the pointer goes at most half as far again
/// (and 300 px) as without it.
#[test]
fn a_hand_passing_over_the_face_clicks_nothing_and_leaves_the_pointer_alone() {
    use facemouse::lab::resample::{Hand, Options};
    let tmp = tempfile::tempdir().expect("tempdir");
    let hand = Hand::every_four_seconds(1);
    let mut failures = Vec::new();
    for name in ["focus-p1-a", "focus-p1-b", "focus-p1-brows-a", "focus-p1-c", "focus-p2-a", "focus-p2-brows-b"] {
        let Some(dir) = shared(name) else { return };
        let (_, plain, _) = run_resampled(tmp.path(), &dir, &format!("{name}-plain"), &Options::default());
        let (_, covered, _) = run_resampled(tmp.path(), &dir, &format!("{name}-hand"), &Options { hand: Some(&hand), ..Options::default() });
        let meant = clicks(&plain);
        let stray: Vec<f64> = clicks(&covered).into_iter().filter(|t| !meant.iter().any(|m| (m - t).abs() <= 500.0)).collect();
        let path = |run: &[facemouse::trace::TraceRecord]| crate::common::pointer_path(run.iter().filter_map(|r| r.pointer));
        let (without, with) = (path(&plain), path(&covered));
        eprintln!("{name}: pointer path {without:.0} px without the hand, {with:.0} px with it; clicks not meant {stray:?}");
        if !stray.is_empty() || with > 1.5 * without + 300.0 {
            failures.push(format!("{name}: clicks not meant {stray:?}, pointer path {with:.0} px against {without:.0} px"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
