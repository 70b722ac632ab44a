//! One session: a source, the pipeline, the output and the *current*
//! settings, run until the source ends or the user stops it. The window's
//! worker thread, `--headless` and `facemouse replay` all run a [`Session`],
//! so they behave the same: settings changed during a run survive a source
//! restart (a camera change, the demo clip looping), events are numbered by
//! one counter that never restarts, and every status or error reaches the
//! caller in words.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::models::Models;
use crate::capture::{self, CaptureError, CaptureHandle, Frame, SourceSpec, SourceStatus, Taken};
use crate::events::{Event, Point, TrackState};
use crate::output::{Command, NullSink, OutputError, PointerSink};
use crate::pipeline::Pipeline;
use crate::profile::Settings;
use crate::trace::{TraceError, TraceRecord};
use crate::vision::Observation;

/// How long the loop waits for a frame before it looks at the intents again.
const TAKE_TIMEOUT: Duration = Duration::from_millis(100);
/// A camera that sends no picture for this long (a hung driver, a cable
/// half out: no error, just no frames) lets go of anything held, and says so.
pub const PICTURE_GAP: Duration = Duration::from_secs(2);
/// How long a source that cannot be opened waits before it is tried again.
const RETRY: Duration = Duration::from_secs(1);

/// Session failures that end a run.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Capture(#[from] CaptureError),
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("{source_name} stopped: {reason}")]
    SourceFailed { source_name: String, reason: String },
    /// The observer cannot go on (its output is closed).
    #[error("{0}")]
    Observer(String),
}

/// What the user (the window) asks of a running session.
#[derive(Debug, Clone, PartialEq)]
pub enum Intent {
    SetPaused(bool),
    Recenter,
    /// Move the pointer on to the next monitor (the menu's "Next monitor").
    NextMonitor,
    Type(String),
    Keys(crate::command::Chord),
    /// Another source; `drive` says whether it may move the real pointer.
    Source { spec: SourceSpec, looping: bool, drive: bool },
    /// New settings (calibration, profile switch, edits) apply from the next frame.
    Settings(Box<Settings>),
    /// The window's scanning menu is showing and takes the switch: its
    /// clicks select there and press nothing on the desktop.
    SwitchToScanner(bool),
    /// Where Facemouse's own windows are (desktop pixels): the desktop
    /// dwell does nothing there, where the windows' own dwell acts.
    OwnAreas(Vec<crate::settings::ScreenArea>),
    /// The external switch (a key, a switch mouse button) was pressed.
    ExternalSwitch,
    /// Start point scanning (or end the one under way): the window's "Point scan".
    PointScan,
    /// No action for this many milliseconds from the next frame on (a
    /// start at login: the user settles in front of the camera).
    QuietFor(f64),
    Quit,
}

/// What a run did.
#[derive(Debug, Clone, Default)]
pub struct RunSummary {
    pub source: String,
    pub frames: u64,
    pub dropped: u64,
    pub proc_us_p50: u64,
    pub proc_us_p99: u64,
    /// From a frame's arrival to its commands handed to the output.
    pub latency_us_p50: u64,
    pub latency_us_p99: u64,
    pub tracking_frames: u64,
}

/// One processed frame, as the session's observer sees it.
pub struct Tick<'a> {
    pub frame: &'a Frame,
    pub record: &'a TraceRecord,
    /// This frame's events, each with its sequence number (1, 2, … over the whole session).
    pub events: &'a [(u64, Event)],
    pub observation: &'a Observation,
    pub paused: bool,
    /// The head's displacement from rest (calibration records it).
    pub displacement: Option<Point>,
    /// The settings in force for this frame.
    pub settings: &'a Settings,
    pub source: &'a str,
    /// Whether this source drives the pointer (a camera, or a recording
    /// with `--drive`): a demo that does not never acts on the window either.
    pub driving: bool,
    /// A desktop dwell counting: where the pointer is and how far the
    /// count has gone (0 to 1), for the ring round the pointer.
    pub dwell_ring: Option<(Point, f64)>,
    /// Point scanning under way: the vertical line's x, and the horizontal
    /// line's y once the first has stopped (desktop pixels).
    pub point_scan: Option<(f64, Option<f64>)>,
}

/// Receives what a session does.
pub trait Observer {
    /// One frame was processed. An error ends the run (a trace that cannot be written).
    ///
    /// # Errors
    /// Whatever the observer cannot do.
    fn frame(&mut self, tick: &Tick<'_>) -> Result<(), SessionError>;
    /// A status change or a problem, in words (a camera lost or back, a source that cannot be opened).
    fn status(&mut self, message: &str);
    /// A camera has sent no picture for `PICTURE_GAP`: the pointer stands
    /// still for no reason of the user's, and the window's dwell waits (see
    /// `ui::activate`) until the next frame.
    fn picture_gap(&mut self) {}
}

/// Hands `commands` to the output in order; one it refuses is told in words.
fn apply_all(sink: &mut dyn PointerSink, commands: &[Command], observer: &mut dyn Observer) {
    for c in commands {
        if let Err(e) = sink.apply(c) {
            observer.status(&e.to_string());
        }
    }
}

/// Opens a source: the real capture, or a stand-in in tests.
pub type Opener = Box<dyn FnMut(&SourceSpec) -> Result<CaptureHandle, CaptureError>>;

/// The session: see the module documentation.
pub struct Session {
    settings: Settings,
    source: SourceSpec,
    looping: bool,
    drive: bool,
    seq: u64,
    open: Opener,
    sink: Option<Box<dyn PointerSink>>,
    /// The models, found when the session first runs unless given.
    models: Option<Models>,
    /// The window's scanning menu takes the switch (kept across sources).
    to_scanner: bool,
    own_areas: Vec<crate::settings::ScreenArea>,
}

impl Session {
    /// A session on `source`. A looping source starts again when it ends (a
    /// recording shown as a demo); `drive` lets it move the real pointer.
    #[must_use]
    pub fn new(settings: Settings, source: SourceSpec, looping: bool, drive: bool) -> Self {
        Self { settings, source, looping, drive, seq: 0, open: Box::new(|s| capture::spawn(s.clone())), sink: None, models: None, to_scanner: false, own_areas: Vec::new() }
    }

    /// Runs `models` (found once for many sessions: an evaluation over many
    /// recordings) instead of finding them when the session starts.
    #[must_use]
    pub fn with_models(mut self, models: Models) -> Self {
        self.models = Some(models);
        self
    }

    /// Opens sources with `open` instead of the real capture (tests).
    #[must_use]
    pub fn with_opener(mut self, open: Opener) -> Self {
        self.open = open;
        self
    }

    /// Sends the output to `sink` instead of the desktop (tests, or a replay that drives).
    #[must_use]
    pub fn with_sink(mut self, sink: Box<dyn PointerSink>) -> Self {
        self.sink = Some(sink);
        self
    }

    /// The current settings (as last set; without the screen fitted in).
    #[must_use]
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Runs until the source ends (and does not loop), `stop` is set, or a
    /// `Quit` intent arrives. Nothing is left pressed when it returns.
    ///
    /// # Errors
    /// A file that cannot be opened or fails, or an observer that fails. A
    /// camera that cannot be opened or goes away is reported and tried again.
    pub fn run(&mut self, intents: &crossbeam_channel::Receiver<Intent>, stop: &AtomicBool, observer: &mut dyn Observer) -> Result<RunSummary, SessionError> {
        let mut summary = RunSummary::default();
        let mut proc: Vec<f64> = Vec::with_capacity(4096);
        let mut latency: Vec<f64> = Vec::with_capacity(4096);
        let mut events: Vec<(u64, Event)> = Vec::with_capacity(8);
        // Made once, so its models (face detector, eye cascade, pose) are
        // loaded once; each new source restarts it.
        let mut made: Option<Pipeline> = None;
        let result = loop {
            if stop.load(Ordering::Relaxed) {
                break Ok(());
            }
            let live = matches!(self.source, SourceSpec::Camera(_));
            let handle = match (self.open)(&self.source) {
                Ok(h) => h,
                Err(e) if live => {
                    observer.status(&format!("{e} — connect a camera or choose another; trying again every second"));
                    match self.wait(intents, RETRY, stop) {
                        Waited::Quit => break Ok(()),
                        Waited::Again => continue,
                    }
                }
                Err(e) => break Err(e.into()),
            };
            summary.source = handle.name().to_string();
            let (mut sink, screen, callers) = self.make_sink(observer);
            let mut fitted = self.fitted(screen.as_ref());
            let pipeline = match made.as_mut() {
                Some(p) => {
                    // The last source's buttons were released when it ended.
                    let _ = p.restart();
                    p.set_settings(&fitted);
                    p
                }
                None => made.insert(Pipeline::new(&fitted, self.models.get_or_insert_with(Models::load))),
            };
            pipeline.set_switch_to_scanner(self.to_scanner);
            pipeline.set_own_areas(&self.own_areas);
            pipeline.set_live(handle.live());
            let mut pending: Vec<Command> = Vec::new();
            let mut quiet: Option<f64> = None;
            let mut seen_status = 0;
            let mut first_frame = true;
            // When the last picture came, and whether its absence was told.
            let mut last_picture = Instant::now();
            let mut gap = false;
            let outcome = loop {
                if stop.load(Ordering::Relaxed) {
                    break Next::Stop;
                }
                let mut next = None;
                while let Ok(i) = intents.try_recv() {
                    match i {
                        Intent::SetPaused(p) => pending.extend(pipeline.set_paused(p)),
                        Intent::Recenter => pipeline.recenter(),
                        Intent::NextMonitor => pipeline.next_monitor(),
                        Intent::Settings(new) => {
                            self.settings = *new;
                            fitted = self.fitted(screen.as_ref());
                            pipeline.set_settings(&fitted);
                        }
                        Intent::QuietFor(ms) => quiet = Some(ms),
                        Intent::ExternalSwitch => pipeline.press_external_switch(),
                        Intent::PointScan => pipeline.point_scan(),
                        Intent::SwitchToScanner(on) => {
                            self.to_scanner = on;
                            pipeline.set_switch_to_scanner(on);
                        }
                        Intent::OwnAreas(areas) => {
                            pipeline.set_own_areas(&areas);
                            self.own_areas = areas;
                        }
                        Intent::Type(t) => pending.push(Command::Type(t)),
                        Intent::Keys(k) => pending.push(Command::Key(k)),
                        Intent::Source { spec, looping, drive } => {
                            (self.source, self.looping, self.drive) = (spec, looping, drive);
                            next = Some(Next::Restart);
                        }
                        Intent::Quit => next = Some(Next::Stop),
                    }
                    if next.is_some() {
                        break;
                    }
                }
                if let Some(n) = next {
                    break n;
                }
                apply_all(sink.as_mut(), &pending, observer);
                pending.clear();
                match handle.slot().take(TAKE_TIMEOUT) {
                    Taken::Frame(frame) => {
                        last_picture = Instant::now();
                        if std::mem::take(&mut gap) {
                            observer.status(&format!("{} sends pictures again", handle.name()));
                        }
                        if first_frame {
                            // When a source's frames begin to come (a recording's time 0; the hands-free tests wait for it).
                            tracing::debug!("{}: first frame", handle.name());
                            first_frame = false;
                        }
                        if let Some(ms) = quiet.take() {
                            pipeline.set_quiet_until(frame.t_ms + ms);
                        }
                        let (_, cmds) = pipeline.tick(&frame, Instant::now());
                        apply_all(sink.as_mut(), cmds, observer);
                        pipeline.set_latency_us(u64::try_from(frame.captured.elapsed().as_micros()).unwrap_or(u64::MAX));
                        let rec = pipeline.record();
                        events.clear();
                        for e in &rec.events {
                            self.seq += 1;
                            events.push((self.seq, *e));
                        }
                        proc.push(rec.proc_us as f64);
                        latency.push(rec.latency_us as f64);
                        summary.frames += 1;
                        if rec.state == TrackState::Tracking {
                            summary.tracking_frames += 1;
                        }
                        let tick = Tick {
                            frame: &frame,
                            record: rec,
                            events: &events,
                            observation: pipeline.observation(),
                            paused: pipeline.paused(),
                            displacement: pipeline.displacement(),
                            settings: pipeline.settings(),
                            source: handle.name(),
                            driving: self.drive,
                            dwell_ring: pipeline.dwell_ring(),
                            point_scan: pipeline.point_scan_lines(),
                        };
                        let done = observer.frame(&tick);
                        handle.slot().recycle(frame);
                        if let Err(e) = done {
                            break Next::Fail(e);
                        }
                    }
                    Taken::Timeout if live && !gap && last_picture.elapsed() >= PICTURE_GAP => {
                        // No frame, so no tick would ever release a held button (a drag).
                        gap = true;
                        apply_all(sink.as_mut(), &pipeline.shutdown(), observer);
                        observer.picture_gap();
                        observer.status(&format!(
                            "{} has sent no picture for {} s: anything held is let go, and the menu's dwell waits — check the camera and its cable",
                            handle.name(),
                            PICTURE_GAP.as_secs()
                        ));
                    }
                    Taken::Timeout => {}
                    Taken::Finished(SourceStatus::Failed(reason)) if !live => {
                        break Next::Fail(SessionError::SourceFailed { source_name: handle.name().to_string(), reason });
                    }
                    Taken::Finished(SourceStatus::Failed(reason)) => {
                        observer.status(&format!("{} stopped: {reason}; trying again every second", handle.name()));
                        break Next::Retry;
                    }
                    Taken::Finished(_) if self.looping => break Next::Restart,
                    Taken::Finished(_) if live => {
                        observer.status(&format!("{} ended; trying again every second", handle.name()));
                        break Next::Retry;
                    }
                    Taken::Finished(_) => break Next::Stop,
                }
                let (n, status) = handle.slot().status();
                if n != seen_status {
                    seen_status = n;
                    match status {
                        SourceStatus::Lost(why) => observer.status(&format!("{} lost ({why}); retrying every second — check the cable", handle.name())),
                        SourceStatus::Running => observer.status(&format!("{} is back", handle.name())),
                        SourceStatus::Ended | SourceStatus::Failed(_) => {}
                    }
                }
            };
            // Whatever ends this source, leave nothing pressed.
            apply_all(sink.as_mut(), &pipeline.shutdown(), observer);
            summary.dropped += handle.slot().dropped();
            drop(handle);
            // A caller's sink serves the next source too; the desktop is opened anew.
            if callers {
                self.sink = Some(sink);
            }
            match outcome {
                Next::Stop => break Ok(()),
                Next::Fail(e) => break Err(e),
                Next::Restart => {}
                Next::Retry => {
                    if let Waited::Quit = self.wait(intents, RETRY, stop) {
                        break Ok(());
                    }
                }
            }
        };
        summary.proc_us_p50 = crate::stats::pct(&mut proc, 50.0).unwrap_or(0.0).round() as u64;
        summary.proc_us_p99 = crate::stats::pct(&mut proc, 99.0).unwrap_or(0.0).round() as u64;
        summary.latency_us_p50 = crate::stats::pct(&mut latency, 50.0).unwrap_or(0.0).round() as u64;
        summary.latency_us_p99 = crate::stats::pct(&mut latency, 99.0).unwrap_or(0.0).round() as u64;
        result.map(|()| summary)
    }

    /// The output for the current source: a sink given by the caller, the
    /// desktop when driving, or nothing. Returns the sink, the desktop's
    /// screen when it is the desktop (to fit the pointer settings to), and
    /// whether the sink is the caller's.
    fn make_sink(&mut self, observer: &mut dyn Observer) -> (Box<dyn PointerSink>, Option<crate::output::Desktop>, bool) {
        if let Some(s) = self.sink.take() {
            return (s, None, true);
        }
        if !self.drive {
            return (Box::new(NullSink), None, false);
        }
        let fallback = (self.settings.pointer.screen_width, self.settings.pointer.screen_height);
        match crate::output::open_desktop(self.settings.pointer.output, fallback) {
            Ok((sink, screen)) => (sink, Some(screen), false),
            Err(e) => {
                observer.status(&format!("{e}; tracking without moving the pointer"));
                (Box::new(NullSink), None, false)
            }
        }
    }

    /// The current settings with the screen fitted in (when driving the desktop).
    fn fitted(&self, screen: Option<&crate::output::Desktop>) -> Settings {
        let mut s = self.settings.clone();
        if let Some(d) = screen {
            d.fit(&mut s.pointer);
        }
        s
    }

    /// Waits up to `d` for an intent that changes the source or quits;
    /// settings that arrive meanwhile are kept.
    fn wait(&mut self, intents: &crossbeam_channel::Receiver<Intent>, d: Duration, stop: &AtomicBool) -> Waited {
        let until = Instant::now() + d;
        while !stop.load(Ordering::Relaxed) {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Waited::Again;
            }
            match intents.recv_timeout(left.min(Duration::from_millis(100))) {
                Ok(Intent::Quit) => return Waited::Quit,
                Ok(Intent::Source { spec, looping, drive }) => {
                    (self.source, self.looping, self.drive) = (spec, looping, drive);
                    return Waited::Again;
                }
                Ok(Intent::Settings(s)) => self.settings = *s,
                // Kept for the next source's pipeline.
                Ok(Intent::SwitchToScanner(on)) => self.to_scanner = on,
                Ok(Intent::OwnAreas(areas)) => self.own_areas = areas,
                Ok(_) | Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => std::thread::sleep(left.min(Duration::from_millis(100))),
            }
        }
        Waited::Quit
    }
}

enum Waited {
    Again,
    Quit,
}

enum Next {
    Stop,
    Restart,
    Retry,
    Fail(SessionError),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::{CameraSelector, FrameSource, ReadOutcome};
    use crate::output::RecordingSink;
    use opencv::core::{Mat, Scalar, CV_8UC3};
    use std::sync::Arc;

    /// A source of `frames` grey frames; it can vanish after `lose_at` and
    /// come back on the second reopen attempt.
    struct Stub {
        frames: u64,
        n: u64,
        lose_at: Option<u64>,
        attempts: u32,
        name: String,
        /// Unreadable frames the device gives before the frame `.0`: `.1` of them.
        corrupt: Option<(u64, u32)>,
    }

    impl Stub {
        fn new(name: &str, frames: u64) -> Self {
            Self { frames, n: 0, lose_at: None, attempts: 0, name: name.into(), corrupt: None }
        }
    }

    impl FrameSource for Stub {
        fn name(&self) -> String {
            self.name.clone()
        }
        fn fps(&self) -> Option<f64> {
            Some(30.0)
        }
        fn is_live(&self) -> bool {
            // Lossless, so the test sees every frame; the lost/back logic is the same.
            false
        }
        fn read(&mut self, frame: &mut Frame) -> Result<ReadOutcome, CaptureError> {
            if self.lose_at == Some(self.n) && self.attempts == 0 {
                return Ok(ReadOutcome::Lost("device unplugged".into()));
            }
            if self.n >= self.frames {
                return Ok(ReadOutcome::End);
            }
            let n = self.n;
            if let Some((_, left)) = self.corrupt.as_mut().filter(|(at, left)| *at == n && *left > 0) {
                *left -= 1;
                return Ok(ReadOutcome::Dropped("undecodable Mjpeg frame".into()));
            }
            frame.color = Mat::new_rows_cols_with_default(48, 64, CV_8UC3, Scalar::all(90.0)).expect("mat");
            frame.update_gray().expect("gray");
            frame.index = self.n;
            frame.t_ms = self.n as f64 * 33.3;
            self.n += 1;
            Ok(ReadOutcome::Frame)
        }
        fn reopen(&mut self) -> Result<bool, CaptureError> {
            self.attempts += 1;
            Ok(self.attempts >= 2)
        }
    }

    /// Opens a stub of `frames` frames named after the source it stands for.
    fn stubs(frames: u64) -> Opener {
        Box::new(move |spec: &SourceSpec| {
            let name = format!("{spec:?}");
            capture::spawn_with(move || Ok((Box::new(Stub::new(&name, frames)) as Box<dyn FrameSource>, false)))
        })
    }

    /// What a test does at a frame (the frame's number from 1, and the frame).
    type Act = Box<dyn FnMut(usize, &Tick<'_>)>;

    /// Records what the session shows, and acts at given frames.
    #[derive(Default)]
    struct Watch {
        ticks: Vec<(String, u64, Settings)>,
        /// Each event with the index of its tick.
        events: Vec<(usize, u64, Event)>,
        paused: Vec<bool>,
        statuses: Vec<String>,
        act: Option<Act>,
    }

    impl Observer for Watch {
        fn frame(&mut self, tick: &Tick<'_>) -> Result<(), SessionError> {
            self.ticks.push((tick.source.to_string(), tick.frame.index, tick.settings.clone()));
            let at = self.ticks.len() - 1;
            self.paused.push(tick.paused);
            self.events.extend(tick.events.iter().map(|(n, e)| (at, *n, *e)));
            let n = self.ticks.len();
            if let Some(a) = self.act.as_mut() {
                a(n, tick);
            }
            Ok(())
        }
        fn status(&mut self, message: &str) {
            self.statuses.push(message.to_string());
        }
    }

    fn camera(i: u32) -> SourceSpec {
        SourceSpec::Camera(CameraSelector::Index(i))
    }

    /// A session on camera 0, played by the stub `make` gives, run to its
    /// tenth frame: what it showed, and how many frames it processed.
    fn run_on_stub(make: impl Fn() -> Stub + 'static) -> (Watch, u64) {
        let open: Opener = Box::new(move |_: &SourceSpec| {
            let stub = make();
            capture::spawn_with(move || Ok((Box::new(stub) as Box<dyn FrameSource>, false)))
        });
        let stop = Arc::new(AtomicBool::new(false));
        let st = Arc::clone(&stop);
        let mut w = Watch { act: Some(Box::new(move |n, _| st.store(n >= 10, Ordering::Relaxed))), ..Watch::default() };
        let (_tx, rx) = crossbeam_channel::bounded(1);
        let mut session = Session::new(Settings::default(), camera(0), false, false).with_opener(open).with_sink(Box::new(RecordingSink::default()));
        let frames = session.run(&rx, &stop, &mut w).expect("run").frames;
        (w, frames)
    }

    #[test]
    fn a_lost_camera_is_reported_and_reopened_without_exiting() {
        let (w, frames) = run_on_stub(|| {
            let mut s = Stub::new("camera 0: flaky", 10);
            s.lose_at = Some(5);
            s
        });
        assert_eq!(frames, 10, "frames before and after the loss are processed");
        assert!(w.statuses.iter().any(|m| m.contains("lost") && m.contains("device unplugged")), "{:?}", w.statuses);
        assert!(w.statuses.iter().any(|m| m.contains("is back")), "{:?}", w.statuses);
    }

    /// A few cut or corrupt frames from a camera are dropped one by one: no
    /// loss is reported and the camera is not reopened (which costs a second
    /// of frames); a second's worth in a row is a loss, and it is reopened.
    #[test]
    fn unreadable_camera_frames_are_dropped_and_only_a_run_of_them_is_a_loss() {
        for (bad, lost) in [(capture::DROPS_BEFORE_LOST - 1, false), (capture::DROPS_BEFORE_LOST, true)] {
            let (w, frames) = run_on_stub(move || {
                let mut s = Stub::new("camera 0: noisy", 10);
                s.corrupt = Some((4, bad));
                s
            });
            assert_eq!(frames, 10, "{bad} bad: every readable frame is processed");
            let indices: Vec<u64> = w.ticks.iter().map(|t| t.1).collect();
            assert_eq!(indices, (0..10).collect::<Vec<_>>(), "{bad} bad: in order, none twice");
            let said_lost = w.statuses.iter().any(|m| m.contains("lost") && m.contains("could not be read"));
            assert_eq!(said_lost, lost, "{bad} bad in a row: {:?}", w.statuses);
        }
    }

    #[test]
    fn settings_made_during_a_run_survive_a_restart_and_a_camera_change() {
        let (tx, rx) = crossbeam_channel::bounded(4);
        let stop = Arc::new(AtomicBool::new(false));
        let st = Arc::clone(&stop);
        let mut w = Watch {
            act: Some(Box::new(move |n, _| {
                if n == 3 {
                    let mut s = Settings::default();
                    s.pointer.dwell_ms = 1234.0;
                    s.switch.brow_raise = crate::switch::Action::ClickRight;
                    tx.try_send(Intent::Settings(Box::new(s))).expect("send");
                }
                // Past one loop of the 8-frame recording: another camera.
                if n == 12 {
                    tx.try_send(Intent::Source { spec: camera(1), looping: false, drive: false }).expect("send");
                }
                st.store(n >= 16, Ordering::Relaxed);
            })),
            ..Watch::default()
        };
        let mut session = Session::new(Settings::default(), SourceSpec::Video { path: "demo.avi".into(), realtime: false }, true, false).with_opener(stubs(8));
        session.run(&rx, &stop, &mut w).expect("run");
        let dwell: Vec<f64> = w.ticks.iter().map(|t| t.2.pointer.dwell_ms).collect();
        let default = Settings::default().pointer.dwell_ms;
        assert_eq!(&dwell[..3], &[default; 3], "before the change");
        assert!(dwell[3..].iter().all(|d| (*d - 1234.0).abs() < 1e-9), "from the next frame on, through the loop and the new camera: {dwell:?}");
        assert!(w.ticks[8..].iter().any(|t| t.1 == 0 && t.0.contains("Video")), "the recording looped");
        assert!(w.ticks.last().is_some_and(|t| t.0.contains("Index(1)")), "the camera changed");
        assert!(w.ticks[3..].iter().all(|t| t.2.switch.brow_raise == crate::switch::Action::ClickRight), "switch settings too");
        assert!((session.settings().pointer.dwell_ms - 1234.0).abs() < 1e-9);
    }

    #[test]
    fn a_pause_stays_through_a_camera_change() {
        let (tx, rx) = crossbeam_channel::bounded(4);
        let stop = Arc::new(AtomicBool::new(false));
        let st = Arc::clone(&stop);
        let mut w = Watch {
            act: Some(Box::new(move |n, _| {
                if n == 2 {
                    tx.try_send(Intent::SetPaused(true)).expect("send");
                }
                if n == 4 {
                    tx.try_send(Intent::Source { spec: camera(1), looping: false, drive: false }).expect("send");
                }
                st.store(n >= 8, Ordering::Relaxed);
            })),
            ..Watch::default()
        };
        let mut session = Session::new(Settings::default(), camera(0), false, false).with_opener(stubs(100));
        session.run(&rx, &stop, &mut w).expect("run");
        assert_eq!(w.paused, [false, false, true, true, true, true, true, true], "{:?}", w.ticks.iter().map(|t| &t.0).collect::<Vec<_>>());
        assert!(w.ticks[4].0.contains("Index(1)"), "the camera changed at the fifth frame");
    }

    #[test]
    fn a_camera_that_cannot_be_opened_says_so_and_is_tried_again() {
        let attempts = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let a = Arc::clone(&attempts);
        let open: Opener = Box::new(move |_: &SourceSpec| {
            a.fetch_add(1, Ordering::Relaxed);
            Err(CaptureError::CameraNotFound("0".into(), "no video devices".into()))
        });
        let stop = AtomicBool::new(false);
        let (tx, rx) = crossbeam_channel::bounded(1);
        let mut w = Watch::default();
        let mut session = Session::new(Settings::default(), camera(0), false, true).with_opener(open);
        let quit = std::thread::Builder::new()
            .name("test-quit".into())
            .spawn(move || {
                std::thread::sleep(Duration::from_millis(1500));
                let _ = tx.send(Intent::Quit);
            })
            .expect("thread");
        session.run(&rx, &stop, &mut w).expect("a camera failure is not the end");
        quit.join().expect("join");
        assert!(attempts.load(Ordering::Relaxed) >= 2, "tried again");
        assert!(w.statuses.iter().all(|m| m.contains("camera 0 not found") && m.contains("trying again")), "{:?}", w.statuses);
        assert!(!w.statuses.is_empty());
    }

    #[test]
    fn a_recording_that_cannot_be_opened_ends_the_run_with_its_error() {
        let stop = AtomicBool::new(false);
        let (_tx, rx) = crossbeam_channel::bounded(1);
        let mut session = Session::new(Settings::default(), SourceSpec::Video { path: "/no/such/clip.avi".into(), realtime: false }, true, false);
        let e = session.run(&rx, &stop, &mut Watch::default()).expect_err("missing file");
        assert!(e.to_string().contains("/no/such/clip.avi"), "{e}");
    }

    /// The demo clip as a camera that hangs once, for `hang`, after frame `at`.
    struct Hanging {
        clip: crate::capture::VideoFileSource,
        at: u64,
        hang: Duration,
        hung: bool,
    }

    impl FrameSource for Hanging {
        fn name(&self) -> String {
            "camera 0: hangs".into()
        }
        fn fps(&self) -> Option<f64> {
            Some(30.0)
        }
        fn is_live(&self) -> bool {
            false
        }
        fn read(&mut self, frame: &mut Frame) -> Result<ReadOutcome, CaptureError> {
            if frame.index + 1 == self.at && !self.hung {
                // A driver that neither errs nor delivers.
                self.hung = true;
                std::thread::sleep(self.hang);
            }
            self.clip.read(frame)
        }
        fn reopen(&mut self) -> Result<bool, CaptureError> {
            Ok(false)
        }
    }

    /// Every command, in a list the test keeps.
    struct Shared(Arc<std::sync::Mutex<Vec<(Instant, Command)>>>);

    impl crate::output::PointerSink for Shared {
        fn apply(&mut self, cmd: &Command) -> Result<(), crate::output::OutputError> {
            self.0.lock().expect("lock").push((Instant::now(), cmd.clone()));
            Ok(())
        }
    }

    /// A camera that stops sending pictures (no error: a hung driver) while
    /// the switch holds the button down for a drag: no frame means no tick,
    /// and nothing let it go. After `PICTURE_GAP` it is let go and the
    /// window is told; when pictures come again, that is said too.
    #[test]
    fn a_camera_that_sends_no_picture_lets_go_of_a_held_button_and_says_so() {
        let open: Opener = Box::new(|_: &SourceSpec| {
            capture::spawn_with(|| {
                let clip = crate::capture::VideoFileSource::open(&crate::demo_clip()).map_err(|e| CaptureError::Thread(e.to_string()))?;
                Ok((Box::new(Hanging { clip, at: 60, hang: Duration::from_secs(3), hung: false }) as Box<dyn FrameSource>, false))
            })
        });
        let mut settings = Settings::default();
        settings.switch.external = crate::switch::Action::DragToggle;
        settings.switch.startup_grace_ms = 0.0;
        let (tx, rx) = crossbeam_channel::bounded(4);
        let stop = Arc::new(AtomicBool::new(false));
        let st = Arc::clone(&stop);
        let ticks = Arc::new(std::sync::Mutex::new(Vec::new()));
        let tk = Arc::clone(&ticks);
        let mut w = Watch {
            act: Some(Box::new(move |n, tick| {
                tk.lock().expect("lock").push((Instant::now(), tick.record.state));
                if n == 40 {
                    tx.try_send(Intent::ExternalSwitch).expect("send");
                }
                st.store(n >= 80, Ordering::Relaxed);
            })),
            ..Watch::default()
        };
        let commands = Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut session = Session::new(settings, camera(0), false, true).with_opener(open).with_sink(Box::new(Shared(Arc::clone(&commands))));
        session.run(&rx, &stop, &mut w).expect("run");
        let commands = commands.lock().expect("lock").clone();
        let ticks = ticks.lock().expect("lock").clone();
        let press = commands.iter().find(|(_, c)| *c == Command::Press(crate::command::Button::Left)).map(|c| c.0).expect("the switch started a drag");
        let release = commands.iter().find(|(_, c)| *c == Command::Release(crate::command::Button::Left)).map(|c| c.0).expect("the drag was let go");
        assert!(release > press);
        // Let go during the gap: after the last frame before it, before the first after it.
        let before = ticks.iter().filter(|t| t.0 < release).map(|t| t.0).max().expect("frames before");
        let after = ticks.iter().filter(|t| t.0 > release).map(|t| t.0).min().expect("frames after");
        assert!(after - before >= Duration::from_millis(2500), "released between frames {:?} apart: not in the gap", after - before);
        // (The gap is counted from when the frame was taken, `before` is when its tick ended.)
        let into = release - before;
        assert!(into + Duration::from_millis(100) >= PICTURE_GAP && into < PICTURE_GAP + Duration::from_millis(500), "released {into:?} into the gap");
        assert!(ticks.iter().rfind(|t| t.0 < release).is_some_and(|t| t.1 == TrackState::Tracking), "the face was tracked as the pictures stopped");
        assert!(w.statuses.iter().any(|m| m.contains("no picture for 2 s") && m.contains("let go")), "{:?}", w.statuses);
        assert!(w.statuses.iter().any(|m| m.contains("sends pictures again")), "{:?}", w.statuses);
    }

    /// The demo clip's raises click; after it loops they go on clicking,
    /// numbered by one counter (the window's click sound and scanning follow it).
    #[test]
    fn events_keep_coming_and_keep_counting_after_the_demo_clip_loops() {
        let stop = Arc::new(AtomicBool::new(false));
        let st = Arc::clone(&stop);
        let loops = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let l = Arc::clone(&loops);
        let mut last_index = 0;
        let mut w = Watch {
            act: Some(Box::new(move |_, tick| {
                if tick.frame.index < last_index {
                    l.fetch_add(1, Ordering::Relaxed);
                }
                last_index = tick.frame.index;
                st.store(l.load(Ordering::Relaxed) >= 2, Ordering::Relaxed);
            })),
            ..Watch::default()
        };
        let (_tx, rx) = crossbeam_channel::bounded(1);
        let spec = SourceSpec::Video { path: crate::demo_clip(), realtime: false };
        let mut session = Session::new(Settings::default(), spec, true, false);
        session.run(&rx, &stop, &mut w).expect("run");
        assert_eq!(loops.load(Ordering::Relaxed), 2);
        let seqs: Vec<u64> = w.events.iter().map(|e| e.1).collect();
        assert!(seqs.windows(2).all(|p| p[1] == p[0] + 1), "one counter, never restarting: {seqs:?}");
        // Which pass of the clip each frame was in.
        let mut pass = vec![0usize; w.ticks.len()];
        for i in 1..w.ticks.len() {
            pass[i] = pass[i - 1] + usize::from(w.ticks[i].1 < w.ticks[i - 1].1);
        }
        let clicks = |p: usize| w.events.iter().filter(|(at, _, e)| pass[*at] == p && e.is_click()).count();
        assert!(clicks(0) >= 1, "the demo clip's raises click: {:?}", w.events);
        assert_eq!(clicks(1), clicks(0), "and click as much the second time: {:?}", w.events);
    }
}
