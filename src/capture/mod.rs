//! Capture: the only stage that owns a device or a file.
//!
//! Every source implements [`FrameSource`]. A source runs on its own named
//! thread ([`spawn`]) and hands frames to the pipeline through a [`Slot`] of
//! one. For live sources (a camera, or a video paced with `--realtime`) a frame
//! that the pipeline has not taken yet is replaced by the newer one and counted
//! as dropped: latency beats completeness. Offline replay uses
//! [`SlotPolicy::Lossless`], which makes the producer wait instead, so a trace
//! has exactly one line per decoded frame; it also reads the next frame only
//! when the pipeline asks for it, so that decoding never competes with the
//! pipeline for a core (as a camera's frames, which come while it is idle).
//!
//! Frames are recycled: the consumer gives a processed frame back with
//! [`Slot::recycle`], and the producer decodes the next image into its buffers.

mod camera;
mod folder;
pub mod raw;
mod slot;
pub mod switch_input;
mod video;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use opencv::core::Mat;
use opencv::prelude::*;

pub use camera::{CameraEntry, CameraSelector, CameraSource, list_cameras, resolve as resolve_camera};
pub use folder::ImageFolderSource;
pub use slot::{Slot, SlotPolicy, SourceStatus, Taken};
pub use video::{VideoFileSource, even_time};

/// One captured image with its place in the input.
pub struct Frame {
    /// 0-based index in the input (decoded frames for files, delivered frames for a camera).
    pub index: u64,
    /// Milliseconds since the first frame of this source. For files this is the
    /// container's timestamp; for cameras the monotonic capture clock.
    pub t_ms: f64,
    /// Monotonic capture instant.
    pub captured: Instant,
    /// 8-bit BGR image; empty when the source gave `gray` straight (a
    /// camera: see `raw`).
    pub color: Mat,
    /// 8-bit single-channel image, what the vision reads.
    pub gray: Mat,
    /// The camera's own bytes, kept when `color` was not made: the window's
    /// preview makes its colour from them ([`Frame::picture`]).
    pub raw: raw::RawImage,
}

impl Frame {
    /// An empty frame whose buffers a source fills.
    #[must_use]
    pub fn empty() -> Self {
        Self { index: 0, t_ms: 0.0, captured: Instant::now(), color: Mat::default(), gray: Mat::default(), raw: raw::RawImage::default() }
    }

    /// The colour picture (8-bit BGR): `color`, or one made in `scratch`
    /// from the camera's bytes, or from the grey.
    ///
    /// # Errors
    /// OpenCV failures.
    pub fn picture<'a>(&'a self, scratch: &'a mut Mat) -> Result<&'a Mat, opencv::Error> {
        if !self.color.empty() {
            return Ok(&self.color);
        }
        if !raw::to_bgr(&self.raw, scratch)? {
            opencv::imgproc::cvt_color_def(&self.gray, scratch, opencv::imgproc::COLOR_GRAY2BGR)?;
        }
        Ok(scratch)
    }

    /// Width and height in pixels (0×0 for an empty frame).
    #[must_use]
    pub fn size(&self) -> (i32, i32) {
        (self.gray.cols(), self.gray.rows())
    }

    /// Refreshes `gray` from `color`, reusing the gray buffer.
    ///
    /// # Errors
    /// When `OpenCV` cannot convert the image (it is not 8-bit BGR).
    pub fn update_gray(&mut self) -> Result<(), opencv::Error> {
        opencv::imgproc::cvt_color_def(&self.color, &mut self.gray, opencv::imgproc::COLOR_BGR2GRAY)
    }
}

/// What went wrong with a source. Every message names the thing and what to do.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error("video file not found: {0} (check the path, or list cameras with `facemouse cameras`)")]
    FileNotFound(PathBuf),
    #[error("cannot open {path} as a video: {reason} (use a video OpenCV/FFmpeg can decode, e.g. .avi or .mp4)")]
    NotAVideo { path: PathBuf, reason: String },
    #[error("no images in folder {0} (put .png/.jpg/.bmp frames there, sorted by name)")]
    EmptyFolder(PathBuf),
    #[error("cannot read image {path}: {reason} (remove or replace the file)")]
    BadImage { path: PathBuf, reason: String },
    #[error("cannot read folder {path}: {reason}")]
    Folder { path: PathBuf, reason: String },
    #[error("camera {0} not found ({1}); run `facemouse cameras` to list cameras, or use `facemouse replay VIDEO` to run on a file")]
    CameraNotFound(String, String),
    #[error("camera {name} failed: {reason}")]
    Camera { name: String, reason: String },
    #[error("cannot start the capture thread: {0}")]
    Thread(String),
    #[error("OpenCV error while reading {what}: {source}")]
    OpenCv {
        what: String,
        #[source]
        source: opencv::Error,
    },
}

/// What a source says after trying to read.
#[derive(Debug)]
pub enum ReadOutcome {
    /// A frame was written into the buffer.
    Frame,
    /// The input ended normally (the last frame of a file).
    End,
    /// The device went away; the source will try to reopen it on the next call.
    Lost(String),
    /// The device gave a frame that cannot be read (cut or corrupt): it is
    /// dropped and the next one read. [`DROPS_BEFORE_LOST`] in a row are a loss.
    Dropped(String),
}

/// One interface for cameras, video files and image folders.
pub trait FrameSource {
    /// A human-readable name ("camera 0: HD Webcam", "video demo.avi").
    fn name(&self) -> String;
    /// Nominal frames per second, if known.
    fn fps(&self) -> Option<f64>;
    /// Whether frames come at their own pace (a camera) rather than on demand.
    fn is_live(&self) -> bool;
    /// Reads the next frame into `frame`, reusing its buffers.
    ///
    /// # Errors
    /// Only for failures that reopening cannot fix (a corrupt file mid-way).
    fn read(&mut self, frame: &mut Frame) -> Result<ReadOutcome, CaptureError>;
    /// Tries to reopen a lost device. Returns `Ok(true)` once it is back.
    ///
    /// # Errors
    /// When the source cannot be reopened at all (files).
    fn reopen(&mut self) -> Result<bool, CaptureError> {
        Ok(false)
    }
}

/// Where frames come from, as the user named it.
#[derive(Debug, Clone, PartialEq)]
pub enum SourceSpec {
    Camera(CameraSelector),
    Video { path: PathBuf, realtime: bool },
    Folder { path: PathBuf, fps: f64, realtime: bool },
    /// A recorded sequence's video, each frame at the time it was recorded
    /// (`times_ms`, one a frame, from the labels), as a camera gave it: a
    /// webcam's frames come at uneven intervals, and the container's rate
    /// is only their average. Frames past the list come at that rate.
    /// Never paced in real time.
    Recorded { path: PathBuf, times_ms: Vec<f64> },
}

impl SourceSpec {
    /// A file or folder path: a folder is read as images, anything else as a video.
    #[must_use]
    pub fn from_path(path: &Path, realtime: bool) -> Self {
        if path.is_dir() {
            Self::Folder { path: path.to_path_buf(), fps: folder::DEFAULT_FOLDER_FPS, realtime }
        } else {
            Self::Video { path: path.to_path_buf(), realtime }
        }
    }

    /// Opens the source (on the calling thread, so that errors come back at once).
    ///
    /// # Errors
    /// A missing or undecodable file, an empty folder, or a camera that does not exist.
    pub fn open(&self) -> Result<(Box<dyn FrameSource>, bool), CaptureError> {
        Ok(match self {
            Self::Camera(sel) => (Box::new(CameraSource::open(sel)?), true),
            Self::Video { path, realtime } => (Box::new(VideoFileSource::open(path)?), *realtime),
            Self::Folder { path, fps, realtime } => (Box::new(ImageFolderSource::open(path, *fps)?), *realtime),
            Self::Recorded { path, times_ms } => (Box::new(VideoFileSource::open(path)?.with_times(times_ms)), false),
        })
    }
}

/// A running capture thread. Dropping it stops the thread.
pub struct CaptureHandle {
    slot: Arc<Slot>,
    thread: Option<JoinHandle<()>>,
    name: String,
    fps: Option<f64>,
    /// Frames come at their own pace (a camera, or a recording played in
    /// real time) and a late one is dropped: nothing downstream may wait.
    live: bool,
}

impl CaptureHandle {
    /// The slot the pipeline takes frames from.
    #[must_use]
    pub fn slot(&self) -> &Arc<Slot> {
        &self.slot
    }
    /// The source's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The source's nominal frame rate.
    #[must_use]
    pub fn fps(&self) -> Option<f64> {
        self.fps
    }
    /// Whether frames come at their own pace (see the field).
    #[must_use]
    pub fn live(&self) -> bool {
        self.live
    }
}

impl Drop for CaptureHandle {
    fn drop(&mut self) {
        self.slot.close();
        if let Some(t) = self.thread.take() {
            // A panicking capture thread has already reported through the slot.
            let _ = t.join();
        }
    }
}

/// How long a live source waits between attempts to reopen a lost device.
pub const REOPEN_INTERVAL: Duration = Duration::from_secs(1);

/// Unreadable frames in a row (a second's worth at 30 fps) after which the
/// device is taken as lost and reopened; fewer are dropped one by one.
pub const DROPS_BEFORE_LOST: u32 = 30;

/// Opens the source described by `spec` on a thread named `capture` and starts it.
///
/// The source is opened on that thread (camera handles may not move between
/// threads), and an error in opening comes back from this call.
/// A paced file source waits for each frame's timestamp (`--realtime`) and the
/// slot then drops stale frames; otherwise the slot is lossless and the file is
/// read as fast as the pipeline takes frames.
///
/// # Errors
/// Whatever [`SourceSpec::open`] reports, or a thread that cannot be spawned.
pub fn spawn(spec: SourceSpec) -> Result<CaptureHandle, CaptureError> {
    spawn_with(move || spec.open())
}

/// Like [`spawn`], for any source: `open` runs on the capture thread and returns
/// the source and whether to pace it.
///
/// # Errors
/// Whatever `open` reports, or a thread that cannot be spawned.
pub fn spawn_with<F>(open: F) -> Result<CaptureHandle, CaptureError>
where
    F: FnOnce() -> Result<(Box<dyn FrameSource>, bool), CaptureError> + Send + 'static,
{
    let (ready_tx, ready_rx) = crossbeam_channel::bounded::<Result<(String, Option<f64>, bool), CaptureError>>(1);
    let (slot_tx, slot_rx) = crossbeam_channel::bounded::<Arc<Slot>>(1);
    let thread = std::thread::Builder::new()
        .name("capture".into())
        .spawn(move || {
            let (mut source, paced) = match open() {
                Ok(s) => s,
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            let live = source.is_live();
            if ready_tx.send(Ok((source.name(), source.fps(), live || paced))).is_err() {
                return;
            }
            if let Ok(slot) = slot_rx.recv() {
                run_source(source.as_mut(), &slot, paced && !live);
            }
        })
        .map_err(|e| CaptureError::Thread(e.to_string()))?;
    let (name, fps, drop_stale) = match ready_rx.recv() {
        Ok(Ok(info)) => info,
        Ok(Err(e)) => {
            let _ = thread.join();
            return Err(e);
        }
        Err(_) => {
            let _ = thread.join();
            return Err(CaptureError::Thread("the capture thread stopped while opening the source".into()));
        }
    };
    let policy = if drop_stale { SlotPolicy::DropStale } else { SlotPolicy::Lossless };
    let slot = Arc::new(Slot::new(policy));
    // The thread is waiting for exactly this message.
    let _ = slot_tx.send(Arc::clone(&slot));
    Ok(CaptureHandle { slot, thread: Some(thread), name, fps, live: drop_stale })
}

fn run_source(source: &mut dyn FrameSource, slot: &Slot, pace: bool) {
    let start = Instant::now();
    let mut first_t: Option<f64> = None;
    let mut dropped = 0_u32;
    loop {
        if !slot.await_turn() {
            return;
        }
        let mut frame = slot.spare().unwrap_or_else(Frame::empty);
        let lost = match source.read(&mut frame) {
            Ok(ReadOutcome::Frame) => {
                dropped = 0;
                if pace {
                    let t0 = *first_t.get_or_insert(frame.t_ms);
                    let due = Duration::from_secs_f64(((frame.t_ms - t0) / 1000.0).max(0.0));
                    if let Some(wait) = due.checked_sub(start.elapsed()) {
                        std::thread::sleep(wait);
                    }
                }
                frame.captured = Instant::now();
                if !slot.put(frame) {
                    return;
                }
                continue;
            }
            Ok(ReadOutcome::End) => {
                slot.finish(SourceStatus::Ended);
                return;
            }
            Ok(ReadOutcome::Dropped(reason)) => {
                dropped += 1;
                if dropped < DROPS_BEFORE_LOST {
                    continue;
                }
                format!("{dropped} frames in a row could not be read ({reason})")
            }
            Ok(ReadOutcome::Lost(reason)) => reason,
            Err(e) => {
                slot.finish(SourceStatus::Failed(e.to_string()));
                return;
            }
        };
        dropped = 0;
        slot.set_status(SourceStatus::Lost(lost));
        loop {
            if slot.wait_closed(REOPEN_INTERVAL) {
                return;
            }
            match source.reopen() {
                Ok(true) => {
                    slot.set_status(SourceStatus::Running);
                    break;
                }
                Ok(false) => {}
                Err(e) => {
                    slot.finish(SourceStatus::Failed(e.to_string()));
                    return;
                }
            }
        }
    }
}
