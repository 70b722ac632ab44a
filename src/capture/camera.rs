//! A webcam through `nokhwa`, chosen by index or by (part of) its name.

use std::fmt;

use nokhwa::pixel_format::RgbFormat;
use nokhwa::utils::{ApiBackend, CameraFormat, CameraIndex, FrameFormat, RequestedFormat, RequestedFormatType, Resolution};
use nokhwa::Camera;
use opencv::core::Mat;
use opencv::prelude::*;
use std::time::Instant;

use super::{CaptureError, Frame, FrameSource, ReadOutcome};

/// The format every camera is asked for; [`CameraSource::actual`] says what it gave.
pub const REQUESTED_WIDTH: u32 = 640;
pub const REQUESTED_HEIGHT: u32 = 480;
pub const REQUESTED_FPS: u32 = 30;

/// How the user picked a camera.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CameraSelector {
    Index(u32),
    /// A case-insensitive substring of the camera's name.
    Name(String),
}

impl CameraSelector {
    /// Digits select by index, anything else by name.
    #[must_use]
    pub fn parse(s: &str) -> Self {
        s.trim().parse::<u32>().map_or_else(|_| Self::Name(s.trim().to_string()), Self::Index)
    }
}

impl fmt::Display for CameraSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Index(i) => write!(f, "{i}"),
            Self::Name(n) => write!(f, "\"{n}\""),
        }
    }
}

/// A camera the system reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CameraEntry {
    pub index: u32,
    pub name: String,
    pub description: String,
}

/// Lists the cameras. An empty list (no camera, or no video subsystem) is not an error.
#[must_use]
pub fn list_cameras() -> Vec<CameraEntry> {
    let Ok(infos) = nokhwa::query(ApiBackend::Auto) else {
        return Vec::new();
    };
    infos
        .into_iter()
        .filter_map(|info| match info.index() {
            CameraIndex::Index(i) => Some(CameraEntry { index: *i, name: info.human_name(), description: info.description().to_string() }),
            CameraIndex::String(_) => None,
        })
        .collect()
}

/// Finds the camera the user named.
///
/// # Errors
/// [`CaptureError::CameraNotFound`], listing the cameras there are.
pub fn resolve(sel: &CameraSelector) -> Result<CameraEntry, CaptureError> {
    let cams = list_cameras();
    let listed = if cams.is_empty() {
        "no camera is connected".to_string()
    } else {
        format!("found: {}", cams.iter().map(|c| format!("{} {}", c.index, c.name)).collect::<Vec<_>>().join(", "))
    };
    let found = match sel {
        CameraSelector::Index(i) => cams.iter().find(|c| c.index == *i),
        CameraSelector::Name(n) => {
            let n = n.to_lowercase();
            cams.iter().find(|c| c.name.to_lowercase().contains(&n))
        }
    };
    found.cloned().ok_or_else(|| CaptureError::CameraNotFound(sel.to_string(), listed))
}

/// A live camera. It reports a lost device and reopens it by name.
pub struct CameraSource {
    entry: CameraEntry,
    camera: Option<Camera>,
    actual: Option<CameraFormat>,
    /// Whether the last frame was dropped (only the first of a run is logged).
    dropping: bool,
    next_index: u64,
    start: Instant,
}

impl CameraSource {
    /// Finds the camera and starts its stream.
    ///
    /// # Errors
    /// [`CaptureError::CameraNotFound`] or [`CaptureError::Camera`].
    pub fn open(sel: &CameraSelector) -> Result<Self, CaptureError> {
        let entry = resolve(sel)?;
        let mut me = Self { entry, camera: None, actual: None, dropping: false, next_index: 0, start: Instant::now() };
        me.start_stream().map_err(|reason| CaptureError::Camera { name: me.entry.name.clone(), reason })?;
        Ok(me)
    }

    /// The format the camera actually delivers.
    #[must_use]
    pub fn actual(&self) -> Option<CameraFormat> {
        self.actual
    }

    fn start_stream(&mut self) -> Result<(), String> {
        let want = CameraFormat::new(Resolution::new(REQUESTED_WIDTH, REQUESTED_HEIGHT), FrameFormat::MJPEG, REQUESTED_FPS);
        let requested = RequestedFormat::new::<RgbFormat>(RequestedFormatType::Closest(want));
        let mut cam = Camera::new(CameraIndex::Index(self.entry.index), requested).map_err(|e| e.to_string())?;
        cam.open_stream().map_err(|e| e.to_string())?;
        let got = cam.camera_format();
        tracing::info!(
            "camera {} \"{}\": asked for {}x{} at {} fps, got {}x{} at {} fps ({})",
            self.entry.index,
            self.entry.name,
            REQUESTED_WIDTH,
            REQUESTED_HEIGHT,
            REQUESTED_FPS,
            got.width(),
            got.height(),
            got.frame_rate(),
            got.format()
        );
        self.actual = Some(got);
        self.camera = Some(cam);
        Ok(())
    }
}

/// The layout of a camera's frames, as [`super::raw`] reads them.
fn raw_format(f: FrameFormat) -> super::raw::RawFormat {
    use super::raw::RawFormat;
    match f {
        FrameFormat::MJPEG => RawFormat::Mjpeg,
        FrameFormat::YUYV => RawFormat::Yuyv,
        FrameFormat::NV12 => RawFormat::Nv12,
        FrameFormat::GRAY => RawFormat::Gray,
        FrameFormat::RAWRGB => RawFormat::Rgb,
        FrameFormat::RAWBGR => RawFormat::Bgr,
    }
}

impl FrameSource for CameraSource {
    fn name(&self) -> String {
        format!("camera {}: {}", self.entry.index, self.entry.name)
    }

    fn fps(&self) -> Option<f64> {
        self.actual.map(|f| f64::from(f.frame_rate()))
    }

    fn is_live(&self) -> bool {
        true
    }

    fn read(&mut self, frame: &mut Frame) -> Result<ReadOutcome, CaptureError> {
        let Some(cam) = self.camera.as_mut() else {
            return Ok(ReadOutcome::Lost("the camera is not open".into()));
        };
        let buf = match cam.frame() {
            Ok(b) => b,
            Err(e) => {
                self.camera = None;
                return Ok(ReadOutcome::Lost(e.to_string()));
            }
        };
        let res = buf.resolution();
        let (w, h) = (i32::try_from(res.width()).unwrap_or(0), i32::try_from(res.height()).unwrap_or(0));
        let cv = |source: opencv::Error| CaptureError::OpenCv { what: self.entry.name.clone(), source };
        let t_ms = self.start.elapsed().as_secs_f64() * 1000.0;
        // The grey straight from the camera's bytes; the colour only when the preview asks.
        let format = raw_format(buf.source_frame_format());
        if !super::raw::to_gray(format, buf.buffer(), w, h, &mut frame.gray).map_err(cv)? {
            // A cut or corrupt frame from the device (libjpeg would fill a cut
            // one with grey): dropped, the next one is usually whole.
            if !std::mem::replace(&mut self.dropping, true) {
                tracing::warn!("camera {}: dropped an undecodable {format:?} frame of {} bytes", self.entry.name, buf.buffer().len());
            }
            return Ok(ReadOutcome::Dropped(format!("undecodable {format:?} frame")));
        }
        self.dropping = false;
        if !frame.color.empty() {
            frame.color = Mat::default();
        }
        frame.raw.set(format, buf.buffer(), w, h);
        (frame.index, frame.t_ms) = (self.next_index, t_ms);
        self.next_index += 1;
        Ok(ReadOutcome::Frame)
    }

    fn reopen(&mut self) -> Result<bool, CaptureError> {
        // The camera may come back under another index: find it by name.
        let Ok(entry) = resolve(&CameraSelector::Name(self.entry.name.clone())) else {
            return Ok(false);
        };
        self.entry = entry;
        Ok(self.start_stream().is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selector_parses_index_or_name() {
        assert_eq!(CameraSelector::parse("2"), CameraSelector::Index(2));
        assert_eq!(CameraSelector::parse(" HD Webcam "), CameraSelector::Name("HD Webcam".into()));
    }

    #[test]
    fn a_camera_that_does_not_exist_is_a_clear_error() {
        let err = CameraSource::open(&CameraSelector::Index(97)).err().expect("no camera 97 on a test machine");
        let msg = err.to_string();
        assert!(msg.contains("camera 97 not found"), "{msg}");
        assert!(msg.contains("facemouse cameras"), "{msg}");
    }
}
