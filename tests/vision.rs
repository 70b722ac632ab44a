//! Vision on the project's own generated faces: the detectors against exact
//! ground truth, at different frame rates and resolutions, plus loss and recovery.

use std::time::Instant;

use facemouse::capture::{Frame, SourceSpec};
use facemouse::lab::eval;
use facemouse::events::{Event, TrackState};
use facemouse::lab::labels::Sequence;
use facemouse::pipeline::Pipeline;
use facemouse::profile::Settings;
use facemouse::replay;
use facemouse::lab::synth::{self, Cover, CoverArea, FaceAsset, Generator, SynthConfig};
use opencv::core::{Mat, Scalar};
use opencv::prelude::*;

/// Frame `i` of `generator`, its colour picture already in `frame`: its grey
/// copy, number and time, as the capture thread gives them.
fn stamp(frame: &mut Frame, generator: &Generator, i: usize) {
    frame.update_gray().expect("gray");
    frame.index = i as u64;
    frame.t_ms = generator.t_ms(i);
}

fn asset() -> FaceAsset {
    FaceAsset::load(&synth::default_photo()).expect("the shipped photo")
}

/// Generates `cfg`, replays it, checks the long blinks and scores the rest.
///
/// A closure longer than the profile's minimum is a long blink: one
/// `long_blink` as the eyes reopen, and no `blink`, once a natural blink has
/// shown how far the person's eyes close (before that, a long closure is
/// taken for nothing). The scorer would count it as a blink detection far
/// from the closure's onset, so long blinks are checked here on their own
/// and left out of the blink score.
fn generate_and_score(cfg: &SynthConfig) -> eval::Scores {
    let (mut seq, mut records) = generate_and_replay(cfg);
    assert_eq!(records.len(), seq.rows.len(), "one record per frame");
    let long_ms = Settings::default().vision.long_blink_ms;
    let first_blink = records.iter().position(|r| r.events.contains(&Event::Blink)).unwrap_or(usize::MAX);
    let reopen = |b: usize| (b..records.len()).take_while(|&i| records[i].t_ms - records[b].t_ms <= 400.0).last().unwrap_or(b);
    let mut long_checked = 0;
    for (a, b) in Sequence::runs(seq.rows.iter().map(|r| r.eyes_closed)) {
        let dur = seq.rows[b].t_ms - seq.rows[a].t_ms;
        let span = &records[a..=reopen(b)];
        let longs = span.iter().filter(|r| r.events.contains(&Event::LongBlink)).count();
        if dur >= long_ms + 150.0 && a <= first_blink {
            // Not known yet how far this person's eyes close: left out of the score.
            for row in &mut seq.rows[a..=b] {
                row.eyes_closed = false;
            }
        } else if dur >= long_ms + 150.0 {
            assert_eq!(longs, 1, "closure {a}..{b} ({dur} ms) gives one long_blink as the eyes reopen");
            assert!(!span.iter().any(|r| r.events.contains(&Event::Blink)), "closure {a}..{b}: a long blink is not also a blink");
            for row in &mut seq.rows[a..=b] {
                row.eyes_closed = false;
            }
            long_checked += 1;
        } else if dur < long_ms - 150.0 {
            assert_eq!(longs, 0, "closure {a}..{b} ({dur} ms) is not long");
        }
    }
    eprintln!("{long_checked} long blinks checked");
    for r in &mut records {
        r.events.retain(|e| *e != Event::LongBlink);
    }
    eval::score(&seq, &records, None)
}

fn assert_targets(name: &str, s: &eval::Scores, min_event: f64) {
    eprintln!("{name}: {}", serde_json::to_string(s).unwrap_or_default());
    let ok = |v: Option<f64>| v.unwrap_or(0.0) >= min_event;
    assert!(ok(s.blink.recall) && ok(s.blink.precision), "{name} blinks: {:?}", s.blink);
    if s.brow.gt > 0 {
        assert!(ok(s.brow.recall) && ok(s.brow.precision), "{name} brows: {:?}", s.brow);
    }
    assert_eq!(s.brow.subtle_detected.unwrap_or(0), 0, "{name}: a subtle raise fired");
    assert!(s.eye_error.median.unwrap_or(1.0) <= 0.08, "{name}: {:?}", s.eye_error);
    assert!(s.init_latency.after_first_blink_ms.unwrap_or(f64::INFINITY) <= 2000.0, "{name}: {:?}", s.init_latency);
}

#[test]
fn blinks_brows_and_eyes_at_30_fps() {
    let cfg = SynthConfig::random(11, 40.0, 30.0);
    assert_targets("30 fps", &generate_and_score(&cfg), 0.9);
}

#[test]
fn a_low_frame_rate_still_works() {
    let cfg = SynthConfig::random(12, 40.0, 12.0);
    assert_targets("12 fps", &generate_and_score(&cfg), 0.85);
}

/// A random 40 s sequence at 320×240 (eye distance 34 px).
fn small(seed: u64, fps: f64) -> SynthConfig {
    let mut cfg = SynthConfig::random(seed, 40.0, fps);
    cfg.width = 320;
    cfg.height = 240;
    cfg.iod_px = 34.0;
    cfg.motion_px = (20.0, 12.0);
    cfg
}

#[test]
fn a_small_image_still_works() {
    assert_targets("320x240", &generate_and_score(&small(13, 30.0)), 0.85);
}

/// A slow camera at a small size: 8 fps at 320×240. At 8 fps a blink is one or two frames.
#[test]
fn a_slow_small_camera_still_works() {
    assert_targets("8 fps 320x240", &generate_and_score(&small(14, 8.0)), 0.8);
}

#[test]
fn the_demo_clip_is_tracked_with_every_gesture() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/clip");
    let seq = Sequence::load(&dir).expect("demo labels");
    let (records, _) = replay::collect(seq.source(), &Settings::default()).expect("replay");
    let s = eval::score(&seq, &records, None);
    assert_eq!(s.blink.tp, 5, "every short blink: {:?}", s.blink);
    assert_eq!(s.brow.recall, Some(1.0), "{:?}", s.brow);
    assert_eq!(s.brow.precision, Some(1.0), "{:?}", s.brow);
    // The long blink gives `long_blink` as the eyes reopen, which the scorer counts as a blink far from its onset.
    assert_eq!((s.blink.fp, s.blink.fn_), (1, 1), "{:?}", s.blink);
    assert_eq!(records.iter().filter(|r| r.events.contains(&Event::LongBlink)).count(), 1);
}

/// The face disappears (a hand, a turn away) and comes back: no positions and
/// `lost` while it is gone, tracking again by itself afterwards.
#[test]
fn tracking_is_lost_without_a_face_and_recovers_by_itself() {
    let mut cfg = SynthConfig::demo();
    cfg.duration_s = 12.0;
    let mut generator = Generator::new(asset(), cfg.clone()).expect("generator");
    let mut p = Pipeline::new(&Settings::default(), &facemouse::models::Models::load());
    let mut states = Vec::new();
    let mut frame = Frame::empty();
    let blank = Mat::new_rows_cols_with_default(cfg.height, cfg.width, opencv::core::CV_8UC3, Scalar::all(40.0)).expect("blank");
    let gone = 200..240;
    for i in 0..cfg.frames() {
        generator.render(i, &mut frame.color).expect("render");
        if gone.contains(&i) {
            blank.copy_to(&mut frame.color).expect("copy");
        }
        stamp(&mut frame, &generator, i);
        let (rec, cmds) = p.tick(&frame, Instant::now());
        if rec.state != TrackState::Tracking {
            assert!(cmds.iter().all(|c| matches!(c, facemouse::output::Command::MoveTo { .. })), "frame {i}: no click unless tracking");
        }
        states.push((rec.state, rec.le.is_some(), rec.events.clone()));
    }
    assert_eq!(states[190].0, TrackState::Tracking, "tracking before the face goes");
    let during = &states[gone.start + 8..gone.end];
    assert!(during.iter().all(|(s, has, _)| *s == TrackState::Lost && !has), "lost, without positions, while the face is gone");
    assert!(states[gone.start..gone.start + 8].iter().any(|(_, _, e)| e.contains(&Event::Lost)), "a lost event");
    let back = states[gone.end..].iter().position(|(s, _, _)| *s == TrackState::Tracking).expect("tracking comes back");
    assert!(back as f64 / cfg.fps <= 1.5, "back within 1.5 s, took {back} frames");
}

/// The models are found once and handed to the pipeline: with them, the
/// generated face is tracked and gets a head pose; with none at all (every
/// file missing), it is still tracked, by the older search, without a pose.
#[test]
fn the_pipeline_runs_the_models_it_is_given_and_works_without_them() {
    let mut cfg = SynthConfig::demo();
    cfg.duration_s = 6.0;
    let models = facemouse::models::Models::load();
    assert!(models.face.is_some() && models.pose.is_some(), "the shipped models are found: {models:?}");
    for (given, expect_pose) in [(models, true), (facemouse::models::Models::none(), false)] {
        let mut generator = Generator::new(asset(), cfg.clone()).expect("generator");
        let mut p = Pipeline::new(&Settings::default(), &given);
        let mut frame = Frame::empty();
        let (mut tracked, mut posed) = (0, 0);
        for i in 0..cfg.frames() {
            generator.render(i, &mut frame.color).expect("render");
            stamp(&mut frame, &generator, i);
            let (rec, _) = p.tick(&frame, Instant::now());
            tracked += usize::from(rec.state == TrackState::Tracking);
            posed += usize::from(rec.pose.is_some());
        }
        assert!(tracked > cfg.frames() / 2, "tracked {tracked} of {} frames (pose model given: {expect_pose})", cfg.frames());
        assert_eq!(posed > 0, expect_pose, "{posed} frames with a pose");
    }
}

/// Several monitors: a gesture bound to `next_monitor` (the demo clip's three
/// eyebrow raises) moves the pointer to the next monitor's centre each time,
/// from the left and round again, and clicks nothing.
#[test]
fn a_gesture_moves_the_pointer_from_monitor_to_monitor() {
    use facemouse::pointer::ScreenArea;
    use facemouse::settings::Action;
    let mut settings = Settings::default();
    settings.switch.brow_raise = Action::NextMonitor;
    settings.switch.long_blink = Action::None; // the clip's long blink would right-click
    let monitors = [ScreenArea { x: 0, y: 0, width: 1920, height: 1080 }, ScreenArea { x: 1920, y: 0, width: 1280, height: 1024 }];
    (settings.pointer.screen_width, settings.pointer.screen_height) = (3200, 1080);
    settings.pointer.monitors = monitors.to_vec();
    let clip = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/clip/video.avi");
    let (records, _) = replay::collect(SourceSpec::Video { path: clip, realtime: false }, &settings).expect("replay");
    let moves: Vec<usize> = records.iter().enumerate().filter(|(_, r)| r.events.contains(&Event::NextMonitor)).map(|(i, _)| i).collect();
    assert_eq!(moves.len(), 3, "one move per raise: {moves:?}");
    for (k, &i) in moves.iter().enumerate() {
        let want = monitors[k % 2].center();
        let p = records[i].pointer.expect("a pointer");
        assert!((p[0] - want[0]).abs() < 100.0 && (p[1] - want[1]).abs() < 100.0, "move {k} at frame {i}: {p:?}, not near {want:?}");
    }
    let clicks = records.iter().flat_map(|r| &r.events).filter(|e| e.is_click()).count();
    assert_eq!(clicks, 0, "the raises moved the pointer and clicked nothing");
}

/// Frames of another size (a folder of mixed images, a camera that changed
/// its mode) start tracking again: it used to stay "tracking" on places
/// that meant nothing in the new frames while the pointer jumped.
#[test]
fn frames_of_another_size_start_tracking_again() {
    let mut cfg = SynthConfig::demo();
    cfg.duration_s = 8.0;
    let mut generator = Generator::new(asset(), cfg.clone()).expect("generator");
    let mut p = Pipeline::new(&Settings::default(), &facemouse::models::Models::load());
    let mut frame = Frame::empty();
    let mut full = Mat::default();
    let change = 120;
    let small = opencv::core::Size::new(cfg.width * 3 / 4, cfg.height * 3 / 4);
    let mut states = Vec::new();
    for i in 0..cfg.frames() {
        generator.render(i, &mut full).expect("render");
        if i >= change {
            opencv::imgproc::resize(&full, &mut frame.color, small, 0.0, 0.0, opencv::imgproc::INTER_AREA).expect("resize");
        } else {
            full.copy_to(&mut frame.color).expect("copy");
        }
        stamp(&mut frame, &generator, i);
        let (rec, cmds) = p.tick(&frame, Instant::now());
        if i == change {
            assert!(cmds.iter().all(|c| !matches!(c, facemouse::output::Command::Press(_) | facemouse::output::Command::Click(_))), "{cmds:?}");
        }
        states.push((rec.state, rec.le));
    }
    assert_eq!(states[change - 1].0, TrackState::Tracking, "tracking before the change");
    assert_ne!(states[change].0, TrackState::Tracking, "the frame of another size starts tracking again");
    let back = states[change..].iter().position(|(s, _)| *s == TrackState::Tracking).expect("tracking comes back");
    assert!(back as f64 / cfg.fps <= 1.5, "back within 1.5 s, took {back} frames");
    let (_, le) = states[change + back];
    let le = le.expect("an eye");
    assert!(le[0] < f64::from(small.width) && le[1] < f64::from(small.height), "places in the new frame: {le:?}");
}

/// Per frame of a run: its time, the tracking state, the events and whether anything acted.
type Run = Vec<(f64, TrackState, Vec<Event>, bool)>;

/// `cfg` generated and run through the pipeline: each frame's time, state,
/// events and whether it acted (anything but moving the pointer or letting go).
fn run_generated(cfg: &SynthConfig) -> Run {
    // (The true eyes are not asked for; a covered frame has none.)
    run_changed(cfg, &facemouse::models::Models::load(), |_, _, _| [[f64::NAN; 2]; 2]).into_iter().map(|(rec, _, acted)| (rec.t_ms, rec.state, rec.events, acted)).collect()
}

/// A block (flat, or with a `texture` pattern) over part of the face from
/// `from` to `to` (ms).
fn cover(area: CoverArea, grey: f64, texture: f64, from: f64, to: f64) -> Cover {
    Cover { from_ms: from, to_ms: to, area, grey, texture }
}

/// The demo clip, `seconds` long, under each of `covers` in turn: one run
/// each, as `run_generated` runs it. The runs go side by side, a frame at a
/// time, and a frame that no cover is over is rendered once for all of them
/// (a generated frame does not depend on the frames before it, nor on a
/// cover elsewhere in the clip: `synth`'s
/// `a_frame_is_the_same_in_any_order_and_a_cover_changes_only_its_own`).
/// Rendering was most of the time of these tests.
fn covered_demos(covers: &[Cover], seconds: f64) -> Vec<Run> {
    let plain = SynthConfig { duration_s: seconds, ..SynthConfig::demo() };
    let models = facemouse::models::Models::load();
    let mut shared = Generator::new(asset(), plain.clone()).expect("generator");
    let mut runs: Vec<_> = covers
        .iter()
        .map(|c| {
            let generator = Generator::new(asset(), SynthConfig { covered: vec![*c], ..plain.clone() }).expect("generator");
            (*c, generator, Pipeline::new(&Settings::default(), &models), Vec::new())
        })
        .collect();
    let (mut frame, mut own) = (Frame::empty(), Frame::empty());
    for i in 0..plain.frames() {
        let t = shared.t_ms(i);
        if covers.iter().any(|c| !c.over(t)) {
            shared.render(i, &mut frame.color).expect("render");
            stamp(&mut frame, &shared, i);
        }
        for (c, generator, p, out) in &mut runs {
            let f = if c.over(t) {
                generator.render(i, &mut own.color).expect("render");
                stamp(&mut own, generator, i);
                &own
            } else {
                &frame
            };
            let (rec, cmds) = p.tick(f, Instant::now());
            out.push((rec.t_ms, rec.state, rec.events.clone(), acted(cmds)));
        }
    }
    runs.into_iter().map(|(_, _, _, out)| out).collect()
}

/// Whether anything but pointer motion (or letting go of a button) was sent.
fn acted(cmds: &[facemouse::output::Command]) -> bool {
    cmds.iter().any(|c| !matches!(c, facemouse::output::Command::MoveTo { .. } | facemouse::output::Command::Release(_) | facemouse::output::Command::ReleaseHeld))
}

/// A hand passing over the face for a moment: tracking never starts on the
/// covered face (it did, on the cover's edges or the brows, and the pointer
/// jumped to the screen's edge), and nothing acts until the face shows again.
#[test]
fn a_hand_passing_over_the_face_starts_no_tracking_and_never_clicks() {
    let covers: Vec<Cover> = [(CoverArea::EyesAndNose, 200.0), (CoverArea::EyesAndNose, 90.0), (CoverArea::Face, 120.0)]
        .into_iter()
        .flat_map(|(area, grey)| [250.0, 700.0, 1200.0, 2000.0].map(|dur| cover(area, grey, 0.0, 6000.0, 6000.0 + dur)))
        .collect();
    for (c, frames) in covers.iter().zip(covered_demos(&covers, 9.5)) {
        let (from, to) = (c.from_ms, c.to_ms);
        let what = format!("{:?} at grey {} for {} ms", c.area, c.grey, to - from);
        let inits: Vec<f64> = frames.iter().filter(|(t, _, e, _)| (from + 100.0..to).contains(t) && e.contains(&Event::Init)).map(|f| f.0).collect();
        assert!(inits.is_empty(), "{what}: tracking started on the covered face at {inits:?}");
        let acts: Vec<f64> = frames.iter().filter(|(t, _, _, a)| (from..to + 300.0).contains(t) && *a).map(|f| f.0).collect();
        assert!(acts.is_empty(), "{what}: acted at {acts:?}");
    }
}

/// A flat block over the face (a hand, a card) for 8 s while the hair,
/// ears and scene stay in view: the eye state took covered eyes for closed
/// ones and kept the track alive, and a face detector still finds a face
/// around covered eyes. No action comes while it is covered; a hand over the
/// face or its upper half is a loss, and tracking comes back by itself once
/// the face shows. A flat band over the eyes alone (a visor) may still be
/// followed by its edges, which move with the head, but never clicks.
#[test]
fn a_covered_face_is_a_loss_and_never_clicks() {
    let (from, to) = (5200.0, 13000.0);
    let cases = [
        (CoverArea::Face, 150.0, true),
        (CoverArea::Face, 20.0, true),
        (CoverArea::EyesAndNose, 150.0, true),
        (CoverArea::EyesAndNose, 230.0, false),
        (CoverArea::Eyes, 150.0, false),
        (CoverArea::Eyes, 60.0, false),
    ];
    // The demo clip, covered over its long blink and two raises.
    let covers: Vec<Cover> = cases.iter().map(|&(area, grey, _)| cover(area, grey, 0.0, from, to)).collect();
    for (&(area, grey, lost), frames) in cases.iter().zip(covered_demos(&covers, 17.0)) {
        let what = format!("{area:?} at grey {grey}");
        let acts: Vec<f64> = frames.iter().filter(|(t, _, _, a)| (from..to).contains(t) && *a).map(|f| f.0).collect();
        assert!(acts.is_empty(), "{what}: no action while the face is covered: {acts:?}");
        assert!(frames.iter().any(|(t, _, _, a)| *t < from && *a), "{what}: the demo clicks before the cover");
        if lost {
            let during: Vec<_> = frames.iter().filter(|(t, _, _, _)| (from + 300.0..to).contains(t)).collect();
            let tracked = during.iter().filter(|f| f.1 == TrackState::Tracking).count();
            assert!(tracked * 20 <= during.len(), "{what}: covered, it must not be tracking: {tracked} of {} frames", during.len());
            let back = frames.iter().find(|(t, s, _, _)| *t > to && *s == TrackState::Tracking).map(|f| f.0 - to);
            assert!(back.is_some_and(|ms| ms <= 3000.0), "{what}: tracking comes back within 3 s once the face shows: {back:?} ms");
        }
    }
}

/// Five minutes of generated talking (five people's worth of seeds, at 30
/// down to 7.5 frames a second): the jaw moves with syllables, the brows lift
/// with stressed words (up to a subtle raise), the head nods, looks down and
/// turns up to 30°, and the person blinks. Nothing in it is meant: no brow
/// raise, long blink, wink or pause may come, and so no click. Head turns
/// narrowed the eye distance the brows were measured in and gave 2.2 false
/// raises a minute. The blinks are still found.
#[test]
fn generated_talking_with_no_raise_gives_no_action() {
    let mut all = Vec::new();
    let mut minutes = 0.0;
    for (k, fps) in [30.0, 24.0, 15.0, 10.0, 7.5].into_iter().enumerate() {
        let cfg = SynthConfig::talking(101 + k as u64, 60.0, fps);
        let (seq, records) = generate_and_replay(&cfg);
        assert_eq!(seq.meta.extra.get("person").and_then(|p| p.as_str()), Some("generated talking"), "its own group in eval");
        let acted = actions(&records);
        assert!(acted.is_empty(), "talking at {fps} fps: {acted:?}");
        minutes += cfg.duration_s / 60.0;
        all.push(eval::score(&seq, &records, None));
    }
    assert!(minutes >= 5.0);
    let sum = eval::summarize(&all);
    let (p, r) = (sum.blink_precision.unwrap_or(0.0), sum.blink_recall.unwrap_or(0.0));
    assert!(p >= 0.9 && r >= 0.9, "blinks while talking: P {p:.2} R {r:.2}");
}

/// Another person's worth of generated talking, kept out of the work on the
/// brow switch (seed 401, 24 fps, 90 s): the brows lift with speech by up to
/// 0.03 eye distances (a subtle raise) while the head turns to 30°, and the
/// turn's foreshortening and the brow tracker's error add about 0.01. With
/// the old default threshold (0.032) two raises fired here, each in a turn;
/// with 0.04, none.
#[test]
fn speech_lifts_in_head_turns_are_no_raise() {
    let _ = no_action_and_blinks_found(&SynthConfig::talking(401, 90.0, 24.0), "talking and turning");
}

/// Generated talking with black-framed glasses (seed 502, 15 fps): both
/// eyes were placed on the rims (eye error 0.124 of the eye distance), and
/// a long blink (a right click) fired. One eye off the face detector's, on
/// answer after answer, is now looked for again beside the other: 0.108,
/// and no long blink. (Its last raise, at 9.4 s, the brow found in the
/// fringe, went with the talk guard: the mouth was moving.)
#[test]
fn an_eye_the_detector_keeps_disagreeing_with_is_placed_again() {
    let mut cfg = SynthConfig::talking(502, 60.0, 15.0);
    cfg.glasses = Some(facemouse::lab::synth::Glasses::black());
    let (seq, records) = generate_and_replay(&cfg);
    let long: Vec<(f64, Vec<Event>)> = actions(&records).into_iter().filter(|(_, e)| e.iter().any(|e| matches!(e, Event::LongBlink | Event::ClickRight))).collect();
    assert!(long.is_empty(), "{long:?}");
    let s = eval::score(&seq, &records, None);
    assert!(s.eye_error.median.unwrap_or(1.0) < 0.115, "eye error {:?}", s.eye_error);
}

/// Smiles while talking (the cheeks push the lower lids up and narrow the
/// eyes, for 1–4 s): no action, and the blinks are still found.
#[test]
fn smiles_while_talking_are_no_action() {
    let mut cfg = SynthConfig::talking(603, 40.0, 15.0);
    cfg.talk = Some(facemouse::lab::synth::Talk::smiling());
    let seq = no_action_and_blinks_found(&cfg, "talking and smiling");
    let smiles = seq.meta.extra.get("smiles").and_then(serde_json::Value::as_u64).unwrap_or(0);
    assert!(smiles >= 3, "the clip smiles: {smiles} smiles");
}

/// A speaker who lifts the brows as far as a meant raise with the first
/// word after each pause of a second or more (generated, 40 s at 10 fps):
/// the talk guard has lapsed in the pause, and the mouth has only just
/// begun to move as the brows rise. No action; the blinks are found. Before
/// the mouth's every moving frame held the brows, two raises clicked here.
#[test]
fn brows_lifted_with_the_first_word_after_a_pause_are_no_raise() {
    let mut cfg = SynthConfig::talking(702, 40.0, 10.0);
    cfg.talk = Some(facemouse::lab::synth::Talk::resuming());
    let _ = no_action_and_blinks_found(&cfg, "lifting the brows as speech resumes");
}

/// An expressive speaker (generated: the brows lift with speech by up to
/// 0.12 eye distances for up to a second, as far and as long as a meant
/// raise; public interview clips show 0.04 to 0.18), who means a raise in
/// every third pause, a second or so after the mouth stops. Every raise
/// meant fires, and nothing else acts. The same clip without the talk guard
/// clicks with speech: the guard is what holds those lifts.
#[test]
fn brows_that_lift_with_speech_do_not_click_and_a_raise_in_a_pause_does() {
    for (seed, fps) in [(701, 24.0), (704, 10.0)] {
        let (_tmp, seq) = generate(&SynthConfig::talking_expressive(seed, 60.0, fps));
        let records = replayed(&seq, &Settings::default());
        assert_eq!(seq.meta.extra.get("person").and_then(|p| p.as_str()), Some("generated expressive talking"), "its own group in eval");
        let meant = seq.meta.synthetic_brow_raises.len();
        assert!(meant >= 3, "{fps} fps: {meant} meant raises");
        let s = eval::score(&seq, &records, None);
        assert_eq!((s.brow.tp, s.brow.fp), (meant, 0), "{fps} fps: every meant raise, nothing else: {:?}", s.brow);
        let other: Vec<(f64, Vec<Event>)> = actions(&records).into_iter().filter(|(_, e)| e.iter().any(|e| !matches!(e, Event::BrowRaise | Event::ClickLeft))).collect();
        assert!(other.is_empty(), "{fps} fps: {other:?}");
        assert!(records.iter().filter(|r| r.talking).count() * 3 > records.len(), "{fps} fps: talking is seen");
        let mut off = Settings::default();
        off.vision.talk_guard = false;
        let raises = replayed(&seq, &off).iter().filter(|r| r.events.contains(&Event::BrowRaise)).count();
        assert!(raises > meant, "{fps} fps: without the guard, speech lifts click too ({raises} raises)");
    }
}

/// One brow raised alone (a cocked brow, 0.2 eye distances, as far as a
/// face-maker's on the real talking set: an expression, generated on a
/// moving face at 30 and 15 fps) is no click, though the two brows' mean
/// lift is over the threshold; a raise of both brows on the same face is.
/// A person who can raise one brow only turns `vision.brows_together` off
/// (the window's "Raise with": "either brow"), and then the one brow
/// clicks too.
#[test]
fn one_brow_raised_alone_clicks_only_where_the_profile_lets_one_brow_do() {
    use facemouse::lab::synth::{Action, ScriptEvent};
    let blink = |start_ms| ScriptEvent { start_ms, action: Action::Blink { closed_ms: 80.0 } };
    let one = |start_ms, left| ScriptEvent { start_ms, action: Action::OneBrow { left, amp: 0.2, hold_ms: 700.0 } };
    for fps in [30.0, 15.0] {
        let cfg = SynthConfig {
            fps,
            duration_s: 14.0,
            script: vec![
                blink(1000.0),
                blink(2200.0),
                one(3500.0, true),
                blink(5000.0),
                one(6200.0, false),
                ScriptEvent { start_ms: 8400.0, action: Action::Raise { amp: 0.12, hold_ms: 700.0 } },
                blink(10_000.0),
                one(11_500.0, true),
            ],
            ..SynthConfig::demo()
        };
        let (_tmp, seq) = generate(&cfg);
        let raises = |records: &[facemouse::trace::TraceRecord]| records.iter().filter(|r| r.events.contains(&Event::BrowRaise)).map(|r| r.t_ms).collect::<Vec<f64>>();
        let records = replayed(&seq, &Settings::default());
        let both = raises(&records);
        assert!(both.len() == 1 && (8400.0..9300.0).contains(&both[0]), "{fps} fps: the raise of both brows, and only it: {both:?}");
        let acted: Vec<(f64, Vec<Event>)> = actions(&records).into_iter().filter(|(t, _)| !(8400.0..10_000.0).contains(t)).collect();
        assert!(acted.is_empty(), "{fps} fps: nothing else acts: {acted:?}");
        let mut one_brow = Settings::default();
        one_brow.vision.brows_together = false;
        let all = raises(&replayed(&seq, &one_brow));
        assert_eq!(all.len(), 4, "{fps} fps: with one brow enough, each raise clicks: {all:?}");
    }
}

/// Generates `cfg` and replays it: nothing acts, and at least 90 % of its
/// blinks are found (`what` names the case in a failure). Its labels.
fn no_action_and_blinks_found(cfg: &SynthConfig, what: &str) -> Sequence {
    let (seq, records) = generate_and_replay(cfg);
    let acted = actions(&records);
    assert!(acted.is_empty(), "{what}: {acted:?}");
    let sum = eval::summarize(&[eval::score(&seq, &records, None)]);
    assert!(sum.blink_recall.unwrap_or(0.0) >= 0.9, "{what}: the blinks are still found: {:?}", sum.blink_recall);
    seq
}

/// A generated sequence, written and replayed as the app would: its labels and the trace.
fn generate_and_replay(cfg: &SynthConfig) -> (Sequence, Vec<facemouse::trace::TraceRecord>) {
    let (_tmp, seq) = generate(cfg);
    let records = replayed(&seq, &Settings::default());
    (seq, records)
}

/// `cfg` written to a temporary folder (kept as long as the folder is), and its labels.
fn generate(cfg: &SynthConfig) -> (tempfile::TempDir, Sequence) {
    let tmp = tempfile::tempdir().expect("tempdir");
    synth::write_sequence(asset(), cfg, tmp.path()).expect("generate");
    let seq = Sequence::load(tmp.path()).expect("labels");
    (tmp, seq)
}

/// `seq`'s video replayed as the app would with `settings`: the trace.
fn replayed(seq: &Sequence, settings: &Settings) -> Vec<facemouse::trace::TraceRecord> {
    replay::collect(seq.source(), settings).expect("replay").0
}

/// The frames on which anything acted (a click, a gesture a profile can
/// bind, a pause, a drag), with their time and events.
fn actions(records: &[facemouse::trace::TraceRecord]) -> Vec<(f64, Vec<Event>)> {
    records.iter().filter(|r| r.events.iter().any(|e| e.is_click() || gesture(*e) || matches!(e, Event::Pause | Event::DragStart))).map(|r| (r.t_ms, r.events.clone())).collect()
}

/// Any gesture that a profile can bind to a command (a blink alone is none).
fn gesture(e: Event) -> bool {
    matches!(e, Event::LongBlink | Event::WinkLeft | Event::WinkRight | Event::BrowRaise)
}

/// A hand with creases (or a book) held over the face, its pattern still in
/// the image while the head moves on behind it: no gesture and no action
/// while it is there. Over the face or its upper half it is a loss, and
/// tracking is back within a second of the face showing again. Before, a
/// track started on the pattern 0.4 s into the cover (the detector still
/// finds a face there, and the pattern has the spread of an eye) and stayed
/// on it for the rest of the cover, with the pointer moved by the restart.
#[test]
fn a_patterned_hand_over_the_face_is_a_loss_and_never_acts() {
    let (from, to) = (5200.0, 13000.0);
    let covers: Vec<Cover> = [CoverArea::Face, CoverArea::EyesAndNose]
        .into_iter()
        .flat_map(|area| [(150.0, 12.0), (150.0, 25.0), (90.0, 40.0)].map(|(grey, texture)| cover(area, grey, texture, from, to)))
        .collect();
    for (c, frames) in covers.iter().zip(covered_demos(&covers, 15.0)) {
        let what = format!("{:?} at grey {}, pattern {}", c.area, c.grey, c.texture);
        let acts: Vec<String> = frames.iter().filter(|f| (from..to).contains(&f.0) && (f.3 || f.2.iter().copied().any(gesture))).map(|f| format!("{:.0}: {:?}", f.0, f.2)).collect();
        assert!(acts.is_empty(), "{what}: no gesture or action while the face is covered: {acts:?}");
        let during: Vec<_> = frames.iter().filter(|f| (from + 300.0..to).contains(&f.0)).collect();
        let tracked = during.iter().filter(|f| f.1 == TrackState::Tracking).count();
        assert!(tracked * 20 <= during.len(), "{what}: covered, it must not be tracking: {tracked} of {} frames", during.len());
        let back = frames.iter().find(|f| f.0 > to && f.1 == TrackState::Tracking).map(|f| f.0 - to);
        assert!(back.is_some_and(|ms| ms <= 1000.0), "{what}: tracking comes back within 1 s once the face shows: {back:?} ms");
    }
}

/// A patterned band over the eyes alone, which moves with the head while
/// its pattern stays still in the image (a visor, a hand held across the
/// eyes): the detector still finds the face around it, so tracking may
/// start on it, but the detector's checks then disagree with the trackers
/// (no face there, or one elsewhere), and nothing is decided until they
/// agree. Before, the trackers stayed on the pattern for 6 s while the head
/// moved on, and the band's edges crossing an eye gave three winks.
#[test]
fn a_patterned_band_over_the_eyes_gives_no_gesture() {
    let (from, to) = (5200.0, 13000.0);
    let covers = [(150.0, 12.0), (150.0, 25.0), (90.0, 40.0)].map(|(grey, texture)| cover(CoverArea::Eyes, grey, texture, from, to));
    for (c, frames) in covers.iter().zip(covered_demos(&covers, 15.0)) {
        let what = format!("a band at grey {}, pattern {}", c.grey, c.texture);
        let acts: Vec<String> = frames.iter().filter(|f| (from..to).contains(&f.0) && (f.3 || f.2.iter().copied().any(gesture))).map(|f| format!("{:.0}: {:?}", f.0, f.2)).collect();
        assert!(acts.is_empty(), "{what}: no gesture or action while the eyes are covered: {acts:?}");
        assert!(frames.iter().any(|f| f.0 < from && f.3), "{what}: the demo clicks before the cover");
        let back = frames.iter().find(|f| f.0 > to && f.1 == TrackState::Tracking).map(|f| f.0 - to);
        assert!(back.is_some_and(|ms| ms <= 1000.0), "{what}: tracking comes back within 1 s once the eyes show: {back:?} ms");
    }
}

/// Until one of the person's blinks has been seen, a long blink cannot
/// count (the eye state does not yet know how far their eyes close), and
/// the observation says so, for the window to tell the user; after the
/// first natural blink it is known.
#[test]
fn the_observation_says_when_the_first_blink_has_been_seen() {
    use facemouse::lab::synth::{Action, ScriptEvent};
    let mut cfg = SynthConfig::demo();
    cfg.duration_s = 5.0;
    cfg.script = vec![ScriptEvent { start_ms: 2500.0, action: Action::Blink { closed_ms: 90.0 } }];
    let mut generator = Generator::new(asset(), cfg.clone()).expect("generator");
    let mut p = Pipeline::new(&Settings::default(), &facemouse::models::Models::load());
    let mut frame = Frame::empty();
    let (mut tracked_before, mut known_before, mut known_at) = (0, 0, None);
    for i in 0..cfg.frames() {
        generator.render(i, &mut frame.color).expect("render");
        stamp(&mut frame, &generator, i);
        let tracking = p.tick(&frame, Instant::now()).0.state == TrackState::Tracking;
        let known = p.observation().blinks_known;
        if frame.t_ms < 2500.0 && tracking {
            tracked_before += 1;
            known_before += usize::from(known);
        }
        if known && known_at.is_none() {
            known_at = Some(frame.t_ms);
        }
    }
    assert!(tracked_before > 10 && known_before == 0, "tracked {tracked_before} frames before the blink, {known_before} of them known");
    assert!(known_at.is_some_and(|t| (2500.0..3500.0).contains(&t)), "known from {known_at:?}");
}

/// A wink the user means: the demo face with a wink of each eye (held 0.6
/// and 1.5 s, from eyes open for seconds), at 30, 15 and 8 fps. A wink must
/// start from its eye open, half a second after a blink, and shut at once
/// (so that one eye left shut after a blink, or slowly narrowing, is none);
/// a meant one does, and comes once for each eye, however long it is held,
/// and no other wink.
#[test]
fn a_meant_wink_of_either_eye_still_comes() {
    use facemouse::lab::synth::{Action, ScriptEvent};
    for fps in [30.0, 15.0, 8.0] {
        let mut cfg = SynthConfig::demo();
        cfg.fps = fps;
        cfg.duration_s = 11.0;
        cfg.script = vec![
            ScriptEvent { start_ms: 1200.0, action: Action::Blink { closed_ms: 90.0 } },
            ScriptEvent { start_ms: 2600.0, action: Action::Blink { closed_ms: 60.0 } },
            ScriptEvent { start_ms: 5000.0, action: Action::Wink { left: true, closed_ms: 600.0 } },
            ScriptEvent { start_ms: 8000.0, action: Action::Wink { left: false, closed_ms: 1500.0 } },
        ];
        let winks: Vec<(f64, Event)> = run_generated(&cfg)
            .into_iter()
            .flat_map(|(t, _, events, _)| events.into_iter().filter(|e| matches!(e, Event::WinkLeft | Event::WinkRight)).map(move |e| (t, e)))
            .collect();
        let left: Vec<f64> = winks.iter().filter(|w| w.1 == Event::WinkLeft).map(|w| w.0).collect();
        let right: Vec<f64> = winks.iter().filter(|w| w.1 == Event::WinkRight).map(|w| w.0).collect();
        assert!(left.len() == 1 && (5000.0..5800.0).contains(&left[0]), "{fps} fps: left winks {winks:?}");
        assert!(right.len() == 1 && (8000.0..8800.0).contains(&right[0]), "{fps} fps: right winks {winks:?}");
    }
}

/// A generated 3D head turns 90° to each side and back, then nods 45° up
/// and down (#28). Tracking starts again on the way back, sometimes on a
/// face still turned and with the eyes misplaced; the face detector then
/// disagrees, and the eye state can read the misplaced trackers as shut
/// eyes, which kept them from being started again for 27 s. They are
/// started again on the face after four disagreeing checks whatever the
/// eyes look like, and not looked for again after a loss: on the last
/// frontal stretch both eyes are tracked to 0.1 eye distances, and no click
/// came while the head was turned past 30°.
#[test]
fn trackers_misplaced_on_the_way_back_from_a_far_turn_are_put_back_on_the_eyes() {
    let cfg = SynthConfig::turning(1, 30.0);
    let mut generator = Generator::new(asset(), cfg.clone()).expect("generator");
    let mut p = Pipeline::new(&Settings::default(), &facemouse::models::Models::load());
    let mut frame = Frame::empty();
    let (mut on, mut last, mut far_clicks) = (0usize, 0usize, 0usize);
    let near = |a: Option<[f64; 2]>, b: Option<[f64; 2]>| a.zip(b).is_some_and(|(a, b)| facemouse::events::dist(a, b) < 0.1 * cfg.iod_px);
    for i in 0..cfg.frames() {
        let row = generator.render(i, &mut frame.color).expect("render");
        stamp(&mut frame, &generator, i);
        let (rec, cmds) = p.tick(&frame, Instant::now());
        let clicked = cmds.iter().any(|c| matches!(c, facemouse::output::Command::Click(_) | facemouse::output::Command::Press(_)));
        if (row.yaw.is_some_and(|y| y.abs() > 30.0) || row.pitch.is_some_and(|p| p.abs() > 30.0)) && clicked {
            far_clicks += 1;
        }
        // Frontal from 35.7 s to the end.
        if frame.t_ms >= 36_000.0 {
            last += 1;
            on += usize::from(rec.state == TrackState::Tracking && near(rec.le, row.le) && near(rec.re, row.re));
        }
    }
    assert!(last > 50, "{last} frames after 36 s");
    assert!(on as f64 >= 0.9 * last as f64, "both eyes on theirs on {on} of {last} frontal frames");
    assert_eq!(far_clicks, 0, "no click while the head was turned past 30°");
}

/// `cfg` generated and run through the pipeline, each rendered frame first
/// changed by `change` (its time, the colour picture and its labels; it
/// gives where the eyes are now). Each frame: the pipeline's record, the
/// true eyes and whether it acted.
fn run_changed(cfg: &SynthConfig, models: &facemouse::models::Models, change: impl FnMut(f64, &mut Mat, &facemouse::lab::labels::LabelRow) -> [facemouse::events::Point; 2]) -> Vec<(facemouse::trace::TraceRecord, [facemouse::events::Point; 2], bool)> {
    run_with(cfg, &Settings::default(), models, change)
}

/// `run_changed` with the profile's `settings`.
fn run_with(cfg: &SynthConfig, settings: &Settings, models: &facemouse::models::Models, change: impl FnMut(f64, &mut Mat, &facemouse::lab::labels::LabelRow) -> [facemouse::events::Point; 2]) -> Vec<(facemouse::trace::TraceRecord, [facemouse::events::Point; 2], bool)> {
    run_with_each(cfg, std::slice::from_ref(settings), models, change).remove(0)
}

/// `run_with` once for each of `settings`, side by side: each frame is
/// rendered and changed once, and every pipeline gets it.
fn run_with_each(cfg: &SynthConfig, settings: &[Settings], models: &facemouse::models::Models, mut change: impl FnMut(f64, &mut Mat, &facemouse::lab::labels::LabelRow) -> [facemouse::events::Point; 2]) -> Vec<Vec<(facemouse::trace::TraceRecord, [facemouse::events::Point; 2], bool)>> {
    let mut generator = Generator::new(asset(), cfg.clone()).expect("generator");
    let mut runs: Vec<_> = settings.iter().map(|s| (Pipeline::new(s, models), Vec::new())).collect();
    let mut frame = Frame::empty();
    for i in 0..cfg.frames() {
        let row = generator.render(i, &mut frame.color).expect("render");
        let eyes = change(generator.t_ms(i), &mut frame.color, &row);
        stamp(&mut frame, &generator, i);
        for (p, out) in &mut runs {
            let (rec, cmds) = p.tick(&frame, Instant::now());
            out.push((rec.clone(), eyes, acted(cmds)));
        }
    }
    runs.into_iter().map(|(_, out)| out).collect()
}

fn eyes_of(row: &facemouse::lab::labels::LabelRow) -> [facemouse::events::Point; 2] {
    [row.le.expect("left eye"), row.re.expect("right eye")]
}

/// `at` copied from `from` onto `to` (same size), at the same place.
fn paste(from: &Mat, at: opencv::core::Rect, to: &mut Mat) {
    let part = Mat::roi(from, at).expect("roi").try_clone().expect("copy");
    part.copy_to(&mut Mat::roi_mut(to, at).expect("roi")).expect("paste");
}

/// The person moves aside and a still copy of their eyes, brows and nose
/// stays where they were (a picture; trackers left on the background): the
/// face detector's check near the eyes found a face there too, and the
/// trackers stayed on the copy for 10 s, the pointer still and the person's
/// raises unseen. The feature held still while the scene changed: the
/// whole frame is checked, the face found elsewhere, and the trackers start
/// again on it. Nothing acts while they are on the copy; the person's
/// gestures act again once they are back on the face.
#[test]
fn a_still_copy_of_the_face_left_behind_is_let_go() {
    let models = facemouse::models::Models::load();
    let no_face = facemouse::models::Models { face: None, ..facemouse::models::Models::load() };
    // Without the face detector it is the person's next blink that BlinkLink
    // sees (the head still enough for the frame's difference to show it).
    for (fps, models, what, within) in [(30.0, &models, "the face detector", 4000.0), (10.0, &models, "the face detector", 4000.0), (30.0, &no_face, "no face detector", 8000.0)] {
        let mut cfg = SynthConfig::demo();
        cfg.duration_s = 15.0;
        cfg.fps = fps;
        left_behind_let_go(&cfg, models, what, within);
    }
}

fn left_behind_let_go(cfg: &SynthConfig, models: &facemouse::models::Models, what: &str, within: f64) {
    use opencv::core::{BORDER_REPLICATE, Rect};
    let (from, slide_ms, shift) = (3000.0, 800.0, 220.0);
    let mut copy: Option<(Mat, Rect)> = None;
    let mut moved = Mat::default();
    let frames = run_changed(cfg, models, |t, color, row| {
        let [le, re] = eyes_of(row);
        if t < from {
            return [le, re];
        }
        let iod = facemouse::events::dist(le, re);
        let c = facemouse::events::midpoint(le, re);
        let (_, at) = copy.get_or_insert_with(|| {
            let at = Rect::new((c[0] - 1.2 * iod) as i32, (c[1] - 0.9 * iod) as i32, (2.4 * iod) as i32, (1.6 * iod) as i32);
            (color.clone(), at)
        });
        let at = *at;
        let dx = shift * ((t - from) / slide_ms).min(1.0);
        let m = Mat::from_slice_2d(&[[1.0f64, 0.0, dx], [0.0, 1.0, 0.0]]).expect("shift");
        let size = color.size().expect("size");
        opencv::imgproc::warp_affine(color, &mut moved, &m, size, opencv::imgproc::INTER_LINEAR, BORDER_REPLICATE, Scalar::default()).expect("shift");
        if let Some((still, _)) = &copy {
            paste(still, at, &mut moved);
        }
        moved.copy_to(color).expect("back");
        [[le[0] + dx, le[1]], [re[0] + dx, re[1]]]
    });
    let off = |(rec, eyes, _): &(facemouse::trace::TraceRecord, [facemouse::events::Point; 2], bool)| {
        let iod = facemouse::events::dist(eyes[0], eyes[1]);
        rec.le.zip(rec.re).map_or(f64::INFINITY, |(l, r)| facemouse::events::dist(l, eyes[0]).max(facemouse::events::dist(r, eyes[1])) / iod)
    };
    let on_copy_acts: Vec<f64> = frames.iter().filter(|f| f.0.t_ms >= from && f.2 && off(f) > 0.35).map(|f| f.0.t_ms).collect();
    assert!(on_copy_acts.is_empty(), "{} fps, {what}: acted while the trackers were off the face: {on_copy_acts:?}", cfg.fps);
    let back = frames.iter().find(|f| f.0.t_ms > from + slide_ms && off(f) <= 0.25).map(|f| f.0.t_ms - from);
    eprintln!("{} fps, {what}: back on the face {back:?} ms after the copy was left", cfg.fps);
    assert!(back.is_some_and(|ms| ms <= within), "{} fps, {what}: back on the face within {within} ms of the copy being left: {back:?} ms", cfg.fps);
    let after: Vec<_> = frames.iter().filter(|f| f.0.t_ms >= from + within).collect();
    let on = after.iter().filter(|f| off(f) <= 0.25).count();
    assert!(on * 10 >= after.len() * 9, "{} fps, {what}: on the face after that: {on} of {} frames", cfg.fps, after.len());
    assert!(after.iter().any(|f| f.2), "{} fps, {what}: the person's gestures act again once the trackers are back on the face", cfg.fps);
}

/// The other side of the rule above: a person who holds still while
/// something moves behind them (a block sliding beside their face, and a
/// smaller picture of a face on the wall) keeps the track and every
/// gesture. The whole frame is checked, and the largest face on it is
/// theirs; without the face detector, the blinks BlinkLink sees are theirs,
/// where the trackers are.
#[test]
fn a_still_person_with_motion_and_a_picture_behind_keeps_the_track() {
    use opencv::core::{Rect, Size};
    let mut cfg = SynthConfig::demo();
    cfg.duration_s = 15.0;
    cfg.motion_px = (0.0, 0.0);
    cfg.roll_deg = 0.0;
    cfg.scale_var = 0.0;
    let no_face = facemouse::models::Models { face: None, ..facemouse::models::Models::load() };
    for (models, what) in [(&facemouse::models::Models::load(), "the face detector"), (&no_face, "no face detector")] {
        let plain: Vec<(f64, Vec<Event>)> = run_changed(&cfg, models, |_, _, row| eyes_of(row)).into_iter().filter(|f| f.2).map(|f| (f.0.t_ms, f.0.events)).collect();
        assert!(plain.len() >= 3, "{what}: the still demo acts: {plain:?}");
        let mut picture: Option<Mat> = None;
        let frames = run_changed(&cfg, models, |t, color, row| {
            let [le, re] = eyes_of(row);
            let iod = facemouse::events::dist(le, re);
            let c = facemouse::events::midpoint(le, re);
            let pic = picture.get_or_insert_with(|| {
                let face = Rect::new((c[0] - 1.5 * iod) as i32, (c[1] - 1.5 * iod) as i32, (3.0 * iod) as i32, (3.6 * iod) as i32);
                let mut small = Mat::default();
                let size = Size::new(face.width / 2, face.height / 2);
                opencv::imgproc::resize(&Mat::roi(color, face).expect("roi"), &mut small, size, 0.0, 0.0, opencv::imgproc::INTER_AREA).expect("small");
                small
            });
            let at = Rect::new(8, 8, pic.cols(), pic.rows());
            pic.copy_to(&mut Mat::roi_mut(color, at).expect("roi")).expect("picture");
            // A block going to and fro beside the face, once every 3 s.
            let x = (60.0 * (1.0 - (t / 3000.0 * std::f64::consts::TAU).cos())) as i32;
            Mat::roi_mut(color, Rect::new(x, 200, 60, 200)).expect("roi").set_to_def(&Scalar::new(230.0, 200.0, 180.0, 0.0)).expect("block");
            [le, re]
        });
        let first = frames.iter().position(|f| f.0.events.contains(&Event::Init)).expect("tracking starts");
        let again: Vec<(f64, Vec<Event>)> = frames[first + 1..].iter().filter(|f| f.0.events.iter().any(|e| matches!(e, Event::Lost | Event::Init))).map(|f| (f.0.t_ms, f.0.events.clone())).collect();
        assert!(again.is_empty(), "{what}: the track is kept: {again:?}");
        let acts: Vec<(f64, Vec<Event>)> = frames.into_iter().filter(|f| f.2).map(|f| (f.0.t_ms, f.0.events)).collect();
        assert_eq!(acts.len(), plain.len(), "{what}: every gesture still acts: {acts:?} against {plain:?}");
    }
}

/// One generated head turning to 90° of yaw each way and 45° of pitch, at
/// 15 fps, after 6 s frontal (AHM learns the face in its first 2–3 s),
/// through the pipeline with `carry_turns` on, and off: per frame, the
/// record, whether anything but pointer motion was sent, and the labels.
fn turning_head() -> [Vec<(facemouse::trace::TraceRecord, bool, facemouse::lab::labels::LabelRow)>; 2] {
    let cfg = SynthConfig::turning_after(3, 15.0, 6.0);
    let settings = [true, false].map(|carry_turns| {
        let mut s = Settings::default();
        s.vision.carry_turns = carry_turns;
        s
    });
    let mut rows = Vec::new();
    let runs = run_with_each(&cfg, &settings, &facemouse::models::Models::load(), |_, _, row| {
        rows.push(row.clone());
        [[f64::NAN; 2]; 2]
    });
    let mut runs = runs.into_iter().map(|frames| frames.into_iter().zip(rows.iter().cloned()).map(|((rec, _, acted), row)| (rec, acted, row)).collect());
    [runs.next().expect("carried"), runs.next().expect("not carried")]
}

/// #28: past 45° of yaw the face's templates lose a turning head (coverage
/// 0.49 at 45–60°, 0.11 at 60–90° on four generated heads). AHM, trained on
/// the face's own frontal frame, carries the point between the eyes there,
/// near where it is, and nothing acts while it does, nor while it reads the
/// head nodded past 25° (a nod down and back clicked at 30°); back near
/// frontal, the templates take over at once. With `carry_turns` off the far
/// turn is a loss.
#[test]
fn a_head_turned_to_90_degrees_is_carried_and_the_templates_take_over_again() {
    let far = |row: &facemouse::lab::labels::LabelRow| row.yaw.unwrap_or(0.0).abs() >= 45.0;
    let covered = |frames: &[(facemouse::trace::TraceRecord, bool, facemouse::lab::labels::LabelRow)]| {
        let far: Vec<_> = frames.iter().filter(|(_, _, row)| far(row)).collect();
        far.iter().filter(|(rec, _, _)| rec.feature.is_some()).count() as f64 / far.len() as f64
    };
    let [frames, not_carried] = turning_head();
    let share = covered(&frames);
    assert!(share >= 0.95, "a feature on {share:.2} of the frames turned 45–90°");
    let mut errors: Vec<f64> = frames
        .iter()
        .filter(|(_, _, row)| far(row) && row.yaw.unwrap_or(0.0).abs() < 60.0)
        .filter_map(|(rec, _, row)| Some(facemouse::events::dist(rec.feature?, row.mid?) / 64.0))
        .collect();
    errors.sort_by(f64::total_cmp);
    let median = errors[errors.len() / 2];
    assert!(median <= 0.15, "the point between the eyes at 45–60°: median error {median:.3} eye distances ({} frames)", errors.len());
    let carried: Vec<_> = frames.iter().filter(|(rec, _, _)| rec.state == TrackState::Carried).collect();
    assert!(carried.len() >= 40, "carried on {} frames", carried.len());
    for (rec, acted, _) in &carried {
        assert!(!acted, "frame {}: something was sent while carried", rec.frame);
        assert!(!rec.events.iter().any(|e| matches!(e, Event::Blink | Event::LongBlink | Event::WinkLeft | Event::WinkRight | Event::BrowRaise | Event::ClickLeft | Event::ClickRight)), "frame {}: {:?} while carried", rec.frame, rec.events);
    }
    // Nothing clicks on a head turned or nodded past 30° (a nod down and back lifted the brows against the eyes as a raise does).
    let posed: Vec<u64> = frames.iter().filter(|(_, acted, row)| *acted && (row.yaw.unwrap_or(0.0).abs() > 30.0 || row.pitch.unwrap_or(0.0).abs() > 30.0)).map(|(rec, _, _)| rec.frame).collect();
    assert!(posed.is_empty(), "clicked on a head turned past 30° at frames {posed:?}");
    // Each time the head comes back from a far yaw, the templates track it,
    // on the point between the eyes (within 0.1 eye distances), within 0.5 s
    // of it being within 15° of frontal, and stay there 0.5 s.
    let on_point = |k: usize| {
        let (rec, _, row) = &frames[k];
        rec.state == TrackState::Tracking && rec.feature.zip(row.mid).is_some_and(|(f, m)| facemouse::events::dist(f, m) / 64.0 < 0.1)
    };
    let mut i = 0;
    let mut returns = 0;
    while i < frames.len() {
        if frames[i].2.yaw.unwrap_or(0.0).abs() >= 60.0 {
            let back = (i..frames.len()).find(|&k| frames[k].2.yaw.unwrap_or(0.0).abs() < 15.0).expect("the head comes back");
            let tracked = (back..frames.len()).find(|&k| on_point(k)).expect("tracked again");
            let late = frames[tracked].0.t_ms - frames[back].0.t_ms;
            assert!(late <= 500.0, "the templates were on the point again {late:.0} ms after the head came back from frame {i}");
            let held = (tracked..frames.len()).take_while(|&k| frames[k].0.t_ms - frames[tracked].0.t_ms <= 500.0).filter(|&k| !on_point(k)).count();
            assert_eq!(held, 0, "off the point on {held} frames of the 0.5 s after the return from frame {i}");
            returns += 1;
            i = back;
        }
        i += 1;
    }
    assert_eq!(returns, 2, "two far turns of yaw");
    let off = covered(&not_carried);
    assert!(off < 0.6, "without carrying, a feature on {off:.2} of the frames turned 45–90° (it is a loss)");
}

/// A model of the face does not carry the pointer over a hand: once AHM has
/// learned the face (by about 3 s) and follows it, the face covered (a flat
/// or patterned block over it, a blank frame) is not like any view of the
/// face, so it is a loss, as it was without AHM, and nothing acts.
#[test]
fn a_covered_face_is_not_carried() {
    let (from, to) = (9000.0, 12000.0);
    let covers = [(CoverArea::Face, 150.0, 0.0), (CoverArea::Face, 120.0, 30.0), (CoverArea::EyesAndNose, 90.0, 20.0), (CoverArea::Face, 40.0, 0.0)].map(|(area, grey, texture)| cover(area, grey, texture, from, to));
    for (c, frames) in covers.iter().zip(covered_demos(&covers, 14.0)) {
        let what = format!("{:?} at grey {}, texture {}", c.area, c.grey, c.texture);
        assert!(frames.iter().any(|(t, s, _, _)| *t < from && *s == TrackState::Tracking), "{what}: tracked before the cover");
        let during: Vec<_> = frames.iter().filter(|(t, _, _, _)| (from + 300.0..to).contains(t)).collect();
        let carried = during.iter().filter(|(_, s, _, _)| *s == TrackState::Carried).count();
        assert_eq!(carried, 0, "{what}: carried on {carried} of {} covered frames", during.len());
        assert!(during.iter().all(|(_, _, _, acted)| !acted), "{what}: acted while covered");
    }
}

/// A hand slides over the generated face, rests there 1.5 s and slides
/// away, every 4 s from 4 s on (`resample`'s hand, drawn on each frame),
/// at 15 frames a second. It took the trackers with it, they started again
/// on the half-covered face as it left, and the pointer went with them.
/// Nothing acts that does not act without the hand, and the pointer goes
/// at most half as far again (and 300 px) as without it.
#[test]
fn a_hand_passing_over_a_generated_face_acts_on_nothing_and_leaves_the_pointer_alone() {
    use facemouse::lab::resample::Hand;
    let cfg = SynthConfig { duration_s: 24.0, fps: 15.0, ..SynthConfig::demo() };
    let models = facemouse::models::Models::load();
    let hand = Hand { from_ms: 4000.0, to_ms: f64::INFINITY, slide_ms: 500.0, rest_ms: 1500.0, period_ms: 4000.0, seed: 1 };
    let plain = run_changed(&cfg, &models, |_, _, row| eyes_of(row));
    let covered = run_changed(&cfg, &models, |t, img, row| {
        hand.draw(img, row.le, row.re, t).expect("the hand");
        eyes_of(row)
    });
    let path = |run: &[(facemouse::trace::TraceRecord, [facemouse::events::Point; 2], bool)]| crate::common::pointer_path(run.iter().filter_map(|f| f.0.pointer));
    let acts = |run: &[(facemouse::trace::TraceRecord, [facemouse::events::Point; 2], bool)]| -> Vec<f64> { run.iter().filter(|f| f.2).map(|f| f.0.t_ms).collect() };
    let meant = acts(&plain);
    let stray: Vec<f64> = acts(&covered).into_iter().filter(|t| !meant.iter().any(|m| (m - t).abs() <= 500.0)).collect();
    assert!(stray.is_empty(), "acted under the hand at {stray:?} (without it: {meant:?})");
    let (without, with) = (path(&plain), path(&covered));
    eprintln!("pointer path {without:.0} px without the hand, {with:.0} px with it");
    assert!(with <= 1.5 * without + 300.0, "the pointer travelled {with:.0} px with the hand, {without:.0} px without");
}
