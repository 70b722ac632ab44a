//! The session behind the window: a [`Session`] on a thread named
//! "pipeline". It publishes a snapshot after each frame and takes intents
//! from a bounded channel; the UI owns none of its state.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use opencv::core::{Mat, Size};
use opencv::imgproc;
use opencv::prelude::*;

use crate::capture::SourceSpec;
use crate::events::{Event, Point};
use crate::profile::Settings;
use crate::session::{Intent, Observer, Session, SessionError, Tick};
use crate::trace::TraceRecord;

/// Where the window's frames come from.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceChoice {
    pub spec: SourceSpec,
    /// Start again at the end (a recording shown as a demo).
    pub looping: bool,
    /// Move the real pointer (a camera; a recording only when asked to).
    pub drive: bool,
}

impl SourceChoice {
    /// A camera, which drives the pointer.
    #[must_use]
    pub fn camera(sel: crate::capture::CameraSelector) -> Self {
        Self { spec: SourceSpec::Camera(sel), looping: false, drive: true }
    }

    /// A recording (video file or image folder) played at its own pace.
    #[must_use]
    pub fn recording(path: &std::path::Path, looping: bool, drive: bool) -> Self {
        Self { spec: SourceSpec::from_path(path, true), looping, drive }
    }

    /// The intent that switches the session to this source.
    #[must_use]
    pub fn intent(&self) -> Intent {
        Intent::Source { spec: self.spec.clone(), looping: self.looping, drive: self.drive }
    }
}

/// A downscaled RGB copy of the frame for the preview.
#[derive(Debug, Clone, Default)]
pub struct Preview {
    pub width: usize,
    pub height: usize,
    pub rgb: Vec<u8>,
}

/// A desktop dwell counting, as the ring at the pointer shows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DwellRing {
    /// Where the pointer rests (desktop pixels).
    pub at: Point,
    /// How far the count had gone at `seen` (0 to 1).
    pub frac: f64,
    /// The whole count (ms), to carry the ring on between frames.
    pub dwell_ms: f64,
    pub seen: Instant,
}

impl DwellRing {
    /// How far the count has gone at `now`, carried on from the last frame
    /// (a slow camera's frames are far apart; the ring moves smoothly).
    #[must_use]
    pub fn frac_at(&self, now: Instant) -> f64 {
        (self.frac + now.saturating_duration_since(self.seen).as_secs_f64() * 1000.0 / self.dwell_ms.max(1.0)).min(1.0)
    }
}

/// The ring shows from this much of the count on: a pointer on its way
/// somewhere (whose count keeps starting again) shows none.
const RING_FROM: f64 = 0.2;

/// How many numbered events the snapshot keeps for the UI to catch up on.
const EVENTS_KEPT: usize = 64;

/// What the worker publishes after each frame.
#[derive(Debug, Clone, Default)]
#[allow(clippy::struct_excessive_bools)] // independent facts the window shows, not states of one thing
pub struct Snapshot {
    /// Frames published so far: the UI uploads the preview only when it changes.
    pub frame_seq: u64,
    /// The frame's trace record (state, positions, events, time).
    pub record: TraceRecord,
    /// The latest events with their sequence numbers (which never restart).
    pub events: VecDeque<(u64, Event)>,
    pub paused: bool,
    /// Mean eye closure (0 open, 1 where a blink starts) and brow lift (eye distances).
    pub closure: f64,
    pub brow_lift: f64,
    /// Each brow's own lift (the subject's left, then right), for calibration.
    pub brow_sides: [f64; 2],
    pub fps: f64,
    pub source: String,
    pub frame_size: (i32, i32),
    pub preview: Option<Arc<Preview>>,
    /// The latest status or problem, in words (empty while all is well).
    pub message: String,
    /// The head's displacement from rest (calibration records it).
    pub displacement: Option<Point>,
    /// Whether the source drives the pointer; the switch's events act on the
    /// window (scanning selects, the menu opens) only then.
    pub driving: bool,
    /// A desktop dwell counting, far enough on to show its ring.
    pub dwell_ring: Option<DwellRing>,
    /// The camera has sent no picture for `session::PICTURE_GAP` (until the next frame).
    pub picture_gap: bool,
    /// Point scanning under way: its lines (see [`crate::session::Tick::point_scan`]).
    pub point_scan: Option<(f64, Option<f64>)>,
    /// Tracking, with an action bound to the long blink or a wink, before
    /// the eye state has seen one of the person's blinks: those gestures
    /// cannot count yet, and the window says so (no warm-up fails silently).
    pub long_blink_waits: bool,
}

/// Whether the long blink or a wink, bound to an action, cannot count yet:
/// the face is tracked but none of the person's blinks has been seen (both
/// need to know how far the person's eyes close).
fn long_blink_waits(record: &TraceRecord, observation: &crate::vision::Observation, settings: &Settings) -> bool {
    let sw = &settings.switch;
    let bound = [&sw.long_blink, &sw.wink_left, &sw.wink_right].iter().any(|a| **a != crate::settings::Action::None);
    record.state == crate::events::TrackState::Tracking && !observation.blinks_known && bound
}

impl Snapshot {
    /// Facemouse drives the pointer but the face does not move it: the face
    /// is lost or not yet found, the camera sends no picture, or the user
    /// paused. The pointer then rests where it was left, not where the user
    /// rests it, and no dwell counts (see `ui::activate`).
    #[must_use]
    pub fn dwell_waits(&self) -> bool {
        self.driving && (self.paused || self.picture_gap || self.record.state != crate::events::TrackState::Tracking)
    }
}

/// The running worker; dropping it stops the thread and releases any held button.
pub struct Worker {
    snapshot: Arc<Mutex<Snapshot>>,
    tx: crossbeam_channel::Sender<Intent>,
    repaint: Arc<Mutex<Option<eframe::egui::Context>>>,
    visible: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

const PREVIEW_WIDTH: i32 = 480;
/// The window is woken for a new preview at most this often: each repaint of
/// the whole window costs far more than a frame of the pipeline (with
/// software rendering, most of a core at 30 a second). Clicks and messages
/// wake it at once.
const VISIBLE_WAKE: Duration = Duration::from_millis(250);
/// How soon after a wake the window repaints (see `Publisher::wake`).
const WAKE_DELAY: Duration = Duration::from_millis(1);
/// While the window is minimized or hidden, it is woken this often at most
/// (clicks wake it at once), and no preview is made.
const HIDDEN_WAKE: Duration = Duration::from_secs(1);

impl Worker {
    /// Starts the worker.
    ///
    /// # Errors
    /// The thread cannot be spawned.
    pub fn start(settings: Settings, source: SourceChoice) -> anyhow::Result<Self> {
        let snapshot = Arc::new(Mutex::new(Snapshot::default()));
        let (tx, rx) = crossbeam_channel::bounded(16);
        let repaint: Arc<Mutex<Option<eframe::egui::Context>>> = Arc::new(Mutex::new(None));
        let stop = Arc::new(AtomicBool::new(false));
        let visible = Arc::new(AtomicBool::new(true));
        let mut publisher = Publisher {
            snapshot: Arc::clone(&snapshot),
            repaint: Arc::clone(&repaint),
            visible: Arc::clone(&visible),
            small: Mat::default(),
            picture: Mat::default(),
            rgb: Mat::default(),
            last: None,
            last_wake: None,
        };
        let st = Arc::clone(&stop);
        let window = Arc::clone(&repaint);
        let thread = std::thread::Builder::new().name("pipeline".into()).spawn(move || {
            // A recording plays from when the window is there (its context
            // given), not while a loaded machine is still opening it: it is
            // seen from its start. A camera starts at once.
            if !matches!(source.spec, SourceSpec::Camera(_)) {
                while !st.load(Ordering::Relaxed) && window.lock().is_ok_and(|w| w.is_none()) {
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
            let mut session = Session::new(settings, source.spec, source.looping, source.drive);
            if let Err(e) = session.run(&rx, &st, &mut publisher) {
                publisher.status(&e.to_string());
            }
        })?;
        Ok(Self { snapshot, tx, repaint, visible, stop, thread: Some(thread) })
    }

    /// The UI's context, woken after each frame.
    pub fn set_repaint(&self, ctx: eframe::egui::Context) {
        if let Ok(mut g) = self.repaint.lock() {
            *g = Some(ctx);
        }
    }

    /// Whether the window is shown: when not, it is woken rarely.
    pub fn set_visible(&self, visible: bool) {
        self.visible.store(visible, Ordering::Relaxed);
    }

    #[must_use]
    pub fn snapshot(&self) -> Arc<Mutex<Snapshot>> {
        Arc::clone(&self.snapshot)
    }

    #[must_use]
    pub fn intents(&self) -> crossbeam_channel::Sender<Intent> {
        self.tx.clone()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.tx.try_send(Intent::Quit);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Publishes each frame to the snapshot and wakes the UI.
struct Publisher {
    snapshot: Arc<Mutex<Snapshot>>,
    repaint: Arc<Mutex<Option<eframe::egui::Context>>>,
    visible: Arc<AtomicBool>,
    small: Mat,
    /// The colour picture of a camera frame that came as grey (see `Frame::picture`).
    picture: Mat,
    rgb: Mat,
    last: Option<Instant>,
    last_wake: Option<Instant>,
}

impl Publisher {
    /// Whether the window is due to be woken now.
    fn due(&self, now: Instant) -> bool {
        let every = if self.visible.load(Ordering::Relaxed) { VISIBLE_WAKE } else { HIDDEN_WAKE };
        self.last_wake.is_none_or(|w| now.saturating_duration_since(w) >= every)
    }

    /// One repaint, as soon as the window can. (egui's `request_repaint`
    /// paints twice, the second a few milliseconds after the first, "to give
    /// some things time to settle": every preview was drawn twice, and with
    /// software rendering each drawing of the window costs about 10 ms of
    /// CPU. A request with a delay is painted once; whatever has not
    /// settled is drawn again at the next wake.)
    fn wake(&mut self) {
        self.last_wake = Some(Instant::now());
        if let Ok(g) = self.repaint.lock()
            && let Some(ctx) = g.as_ref()
        {
            ctx.request_repaint_after(WAKE_DELAY);
        }
    }

    fn preview(&mut self, frame: &crate::capture::Frame) -> Option<Preview> {
        let (w, h) = frame.size();
        let pw = PREVIEW_WIDTH.min(w.max(1));
        let ph = (f64::from(h) * f64::from(pw) / f64::from(w.max(1))).round() as i32;
        let r = (|| -> Result<Preview, opencv::Error> {
            let picture = frame.picture(&mut self.picture)?;
            imgproc::resize(picture, &mut self.small, Size::new(pw, ph), 0.0, 0.0, imgproc::INTER_AREA)?;
            imgproc::cvt_color_def(&self.small, &mut self.rgb, imgproc::COLOR_BGR2RGB)?;
            Ok(Preview { width: pw as usize, height: ph as usize, rgb: self.rgb.data_bytes()?.to_vec() })
        })();
        r.ok()
    }
}

impl Observer for Publisher {
    fn frame(&mut self, tick: &Tick<'_>) -> Result<(), SessionError> {
        let now = Instant::now();
        let fps_now = self.last.map(|l| (now - l).as_secs_f64()).filter(|d| *d > 0.0).map(|d| 1.0 / d);
        self.last = Some(now);
        let ring = tick.dwell_ring.filter(|(_, f)| *f >= RING_FROM).map(|(at, frac)| DwellRing { at, frac, dwell_ms: tick.settings.pointer.dwell_ms, seen: now });
        let ring_changed = self.snapshot.lock().is_ok_and(|s| s.dwell_ring.is_some() != ring.is_some());
        // A click wakes the window at once (its sound, the scanning menu's
        // select), and so do the dwell ring's coming or going and point
        // scanning's (the window starts its lines, even while minimized).
        let wake = tick.events.iter().any(|(_, e)| e.is_click() || matches!(e, Event::OpenMenu | Event::PointScanStart | Event::PointScanEnd)) || ring_changed || self.due(now);
        // A preview only for a repaint that shows it: none for the hidden window.
        let preview = if wake && self.visible.load(Ordering::Relaxed) { self.preview(tick.frame).map(Arc::new) } else { None };
        if let Ok(mut s) = self.snapshot.lock() {
            s.frame_seq += 1;
            s.record.clone_from(tick.record);
            for e in tick.events {
                if s.events.len() == EVENTS_KEPT {
                    s.events.pop_front();
                }
                s.events.push_back(*e);
            }
            s.paused = tick.paused;
            s.driving = tick.driving;
            s.closure = f64::midpoint(tick.observation.closure.0, tick.observation.closure.1);
            s.brow_lift = tick.observation.brow_lift;
            s.brow_sides = tick.observation.brow_side_lifts;
            s.long_blink_waits = long_blink_waits(tick.record, tick.observation, tick.settings);
            if let Some(f) = fps_now {
                s.fps = if s.fps > 0.0 { 0.9 * s.fps + 0.1 * f } else { f };
            }
            if s.source != tick.source {
                s.source = tick.source.to_string();
                s.message.clear();
            }
            s.frame_size = tick.frame.size();
            if preview.is_some() {
                s.preview = preview;
            }
            s.displacement = tick.displacement;
            s.dwell_ring = ring;
            s.point_scan = tick.point_scan;
            s.picture_gap = false;
        }
        if wake {
            self.wake();
        }
        Ok(())
    }

    fn status(&mut self, message: &str) {
        tracing::warn!("{message}");
        if let Ok(mut s) = self.snapshot.lock() {
            s.message = message.to_string();
        }
        self.wake();
    }

    fn picture_gap(&mut self) {
        if let Ok(mut s) = self.snapshot.lock() {
            s.picture_gap = true;
        }
        self.wake();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(w: &Worker) -> u64 {
        w.snapshot().lock().map_or(0, |s| s.frame_seq)
    }

    /// Dwells wait while the face does not move the pointer, and only while
    /// Facemouse drives it (another pointing device's rests count).
    #[test]
    fn dwells_wait_while_the_face_does_not_move_the_pointer() {
        let mut s = Snapshot { driving: true, ..Snapshot::default() };
        s.record.state = crate::events::TrackState::Tracking;
        assert!(!s.dwell_waits());
        for (lost, paused, gap) in [(true, false, false), (false, true, false), (false, false, true)] {
            let mut t = s.clone();
            if lost {
                t.record.state = crate::events::TrackState::Lost;
            }
            (t.paused, t.picture_gap) = (paused, gap);
            assert!(t.dwell_waits(), "lost {lost}, paused {paused}, no picture {gap}");
            t.driving = false;
            assert!(!t.dwell_waits(), "not driving: lost {lost}, paused {paused}, no picture {gap}");
        }
    }

    #[test]
    fn the_long_blink_waits_for_a_first_blink_only_while_tracked_and_bound() {
        let (mut rec, mut obs, mut settings) = (TraceRecord::default(), crate::vision::Observation::default(), Settings::default());
        rec.state = crate::events::TrackState::Tracking;
        assert_ne!(settings.switch.long_blink, crate::settings::Action::None, "bound by default");
        assert!(long_blink_waits(&rec, &obs, &settings));
        obs.blinks_known = true;
        assert!(!long_blink_waits(&rec, &obs, &settings), "a blink was seen");
        obs.blinks_known = false;
        rec.state = crate::events::TrackState::Searching;
        assert!(!long_blink_waits(&rec, &obs, &settings), "not tracked: the state says what to do");
        rec.state = crate::events::TrackState::Tracking;
        settings.switch.long_blink = crate::settings::Action::None;
        assert!(!long_blink_waits(&rec, &obs, &settings), "nothing bound to it");
        settings.switch.wink_left = crate::settings::Action::ClickLeft;
        assert!(long_blink_waits(&rec, &obs, &settings), "a wink bound: it waits too");
    }

    /// A recording waits for the window: nothing of it is played before the
    /// window's context is given, and it plays once it is.
    #[test]
    fn a_recording_plays_from_when_the_window_is_there() {
        let demo = crate::demo_clip();
        let w = Worker::start(Settings::default(), SourceChoice::recording(&demo, false, false)).expect("worker");
        std::thread::sleep(Duration::from_millis(600));
        assert_eq!(frames(&w), 0, "played before the window was there");
        w.set_repaint(eframe::egui::Context::default());
        let deadline = Instant::now() + Duration::from_secs(10);
        while frames(&w) == 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(frames(&w) > 0, "no frame once the window was there");
    }
}
