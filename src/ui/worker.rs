//! The pipeline worker behind the window: capture, pipeline and desktop output
//! on a thread named "pipeline". It publishes a snapshot after each frame and
//! takes intents from a bounded channel; the UI owns none of its state.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use opencv::core::{Mat, Size};
use opencv::imgproc;
use opencv::prelude::*;

use crate::capture::{self, CameraSelector, SourceSpec, Taken};
use crate::events::{Event, Point};
use crate::trace::TraceRecord;
use crate::output::{Command, DesktopSink, NullSink, PointerSink};
use crate::pipeline::Pipeline;
use crate::profile::Settings;

/// Where frames come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceChoice {
    Camera(CameraSelector),
    CameraNamed(String),
    /// A recording played at its own pace; it never drives the pointer.
    Demo(PathBuf),
}

/// What the UI asks of the worker.
#[derive(Debug, Clone, PartialEq)]
pub enum Intent {
    SetPaused(bool),
    Recenter,
    Type(String),
    Keys(String),
    Source(SourceChoice),
    /// New settings (calibration, profile edits) apply at once.
    Settings(Box<Settings>),
    Quit,
}

/// A downscaled RGB copy of the frame for the preview.
#[derive(Debug, Clone, Default)]
pub struct Preview {
    pub width: usize,
    pub height: usize,
    pub rgb: Vec<u8>,
}

/// What the worker publishes after each frame.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// The frame's trace record (state, positions, events, time).
    pub record: TraceRecord,
    pub paused: bool,
    /// Mean eye closure (0 open, 1 where a blink starts) and brow lift (eye distances).
    pub closure: f64,
    pub brow_lift: f64,
    pub fps: f64,
    pub source: String,
    pub frame_size: (i32, i32),
    pub preview: Option<Arc<Preview>>,
    /// Clicks so far (the scanning menu uses them as its switch).
    pub clicks: u64,
    pub message: String,
    /// The head's displacement from rest (calibration records it).
    pub displacement: Option<Point>,
}

/// The running worker; dropping it stops the thread and releases any held button.
pub struct Worker {
    snapshot: Arc<Mutex<Snapshot>>,
    tx: crossbeam_channel::Sender<Intent>,
    repaint: Arc<Mutex<Option<eframe::egui::Context>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

const PREVIEW_WIDTH: i32 = 480;

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
        let (s, r, st) = (Arc::clone(&snapshot), Arc::clone(&repaint), Arc::clone(&stop));
        let thread = std::thread::Builder::new().name("pipeline".into()).spawn(move || run(&settings, source, &rx, &s, &r, &st))?;
        Ok(Self { snapshot, tx, repaint, stop, thread: Some(thread) })
    }

    /// The UI's context, woken after each frame.
    pub fn set_repaint(&self, ctx: eframe::egui::Context) {
        if let Ok(mut g) = self.repaint.lock() {
            *g = Some(ctx);
        }
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

fn spec(choice: &SourceChoice) -> SourceSpec {
    match choice {
        SourceChoice::Camera(sel) => SourceSpec::Camera(sel.clone()),
        SourceChoice::CameraNamed(n) => SourceSpec::Camera(CameraSelector::Name(n.clone())),
        SourceChoice::Demo(p) => SourceSpec::Video { path: p.clone(), realtime: true },
    }
}

fn publish(snapshot: &Mutex<Snapshot>, repaint: &Mutex<Option<eframe::egui::Context>>, f: impl FnOnce(&mut Snapshot)) {
    if let Ok(mut s) = snapshot.lock() {
        f(&mut s);
    }
    if let Ok(g) = repaint.lock() {
        if let Some(ctx) = g.as_ref() {
            ctx.request_repaint();
        }
    }
}

#[allow(clippy::too_many_lines)]
fn run(
    settings: &Settings,
    mut source: SourceChoice,
    rx: &crossbeam_channel::Receiver<Intent>,
    snapshot: &Mutex<Snapshot>,
    repaint: &Mutex<Option<eframe::egui::Context>>,
    stop: &AtomicBool,
) {
    let (mut small, mut rgb) = (Mat::default(), Mat::default());
    'sources: while !stop.load(Ordering::Relaxed) {
        let handle = match capture::spawn(spec(&source)) {
            Ok(h) => h,
            Err(e) => {
                publish(snapshot, repaint, |s| s.message = e.to_string());
                // Wait for another choice, or retry the same camera in a second.
                match rx.recv_timeout(Duration::from_secs(1)) {
                    Ok(Intent::Source(c)) => source = c,
                    Ok(Intent::Quit) => return,
                    _ => {}
                }
                continue;
            }
        };
        let demo = matches!(source, SourceChoice::Demo(_));
        let mut s = settings.clone();
        let mut desktop = if demo { None } else { DesktopSink::new().ok() };
        if let Some(d) = &desktop {
            d.desktop().fit(&mut s.pointer);
        }
        let mut null = NullSink;
        let sink: &mut dyn PointerSink = match desktop.as_mut() {
            Some(d) => d,
            None => &mut null,
        };
        let mut pipeline = Pipeline::new(&s);
        let name = handle.name().to_string();
        let mut clicks = 0u64;
        let mut last = Instant::now();
        let mut fps = 0.0;
        let mut pending: Vec<Command> = Vec::new();
        loop {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            while let Ok(i) = rx.try_recv() {
                match i {
                    Intent::SetPaused(p) => pending.extend(pipeline.set_paused(p)),
                    Intent::Recenter => pipeline.recenter(),
                    Intent::Settings(new) => {
                        let mut p = new.pointer.clone();
                        (p.screen_x, p.screen_y, p.screen_width, p.screen_height) =
                            (s.pointer.screen_x, s.pointer.screen_y, s.pointer.screen_width, s.pointer.screen_height);
                        pipeline.set_pointer_settings(&p);
                        pipeline.set_vision_settings(&new.vision);
                    }
                    Intent::Type(t) => pending.push(Command::Type(t)),
                    Intent::Keys(k) => pending.push(Command::Key(k)),
                    Intent::Source(c) => {
                        for c in pipeline.shutdown() {
                            let _ = sink.apply(&c);
                        }
                        source = c;
                        continue 'sources;
                    }
                    Intent::Quit => {
                        for c in pipeline.shutdown() {
                            let _ = sink.apply(&c);
                        }
                        return;
                    }
                }
            }
            for c in pending.drain(..) {
                if let Err(e) = sink.apply(&c) {
                    publish(snapshot, repaint, |s| s.message = e.to_string());
                }
            }
            let frame = match handle.slot().take(Duration::from_millis(100)) {
                Taken::Frame(f) => f,
                Taken::Timeout => continue,
                Taken::Finished(_) => {
                    if demo {
                        // The demo clip loops.
                        continue 'sources;
                    }
                    break;
                }
            };
            let (rec, cmds) = pipeline.tick(&frame, Instant::now());
            for c in cmds {
                if let Err(e) = sink.apply(c) {
                    publish(snapshot, repaint, |s| s.message = e.to_string());
                }
            }
            clicks += rec.events.iter().filter(|e| matches!(e, Event::ClickLeft | Event::ClickRight | Event::ClickDouble)).count() as u64;
            let dt = last.elapsed().as_secs_f64();
            last = Instant::now();
            if dt > 0.0 {
                fps = 0.9 * fps + 0.1 / dt;
            }
            let rec = rec.clone();
            let obs = pipeline.observation().clone();
            let paused = pipeline.paused();
            let displacement = pipeline.displacement();
            // The preview: downscaled RGB.
            let (w, h) = frame.size();
            let pw = PREVIEW_WIDTH.min(w.max(1));
            let ph = (f64::from(h) * f64::from(pw) / f64::from(w.max(1))).round() as i32;
            let preview = (|| -> Result<Preview, opencv::Error> {
                imgproc::resize(&frame.color, &mut small, Size::new(pw, ph), 0.0, 0.0, imgproc::INTER_AREA)?;
                imgproc::cvt_color_def(&small, &mut rgb, imgproc::COLOR_BGR2RGB)?;
                Ok(Preview { width: pw as usize, height: ph as usize, rgb: rgb.data_bytes()?.to_vec() })
            })()
            .ok();
            handle.slot().recycle(frame);
            publish(snapshot, repaint, |s| {
                s.record = rec;
                s.paused = paused;
                s.closure = f64::midpoint(obs.closure.0, obs.closure.1);
                s.brow_lift = obs.brow_lift;
                s.fps = fps;
                s.source.clone_from(&name);
                s.frame_size = (w, h);
                s.preview = preview.map(Arc::new);
                s.clicks = clicks;
                s.displacement = displacement;
            });
        }
        for c in pipeline.shutdown() {
            let _ = sink.apply(&c);
        }
        if stop.load(Ordering::Relaxed) {
            return;
        }
        // The camera went away for good: try it again shortly.
        std::thread::sleep(Duration::from_secs(1));
    }
}
