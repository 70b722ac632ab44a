//! A video file read with `OpenCV`'s `VideoCapture` (`FFmpeg` backend on Linux).

use std::path::{Path, PathBuf};

use opencv::core::Mat;
use opencv::prelude::*;
use opencv::videoio::{self, VideoCapture};

use super::{CaptureError, Frame, FrameSource, ReadOutcome};

/// Frames per second assumed when a container does not say.
pub const FALLBACK_FPS: f64 = 30.0;

pub struct VideoFileSource {
    path: PathBuf,
    cap: VideoCapture,
    fps: f64,
    next_index: u64,
    /// The container's frame count (0 when unknown).
    frame_count: u64,
    /// The first frame, read at open time to prove the file decodes.
    first: Option<Mat>,
}

impl VideoFileSource {
    /// Opens `path` and decodes its first frame.
    ///
    /// # Errors
    /// [`CaptureError::FileNotFound`] or [`CaptureError::NotAVideo`].
    pub fn open(path: &Path) -> Result<Self, CaptureError> {
        if !path.exists() {
            return Err(CaptureError::FileNotFound(path.to_path_buf()));
        }
        if path.is_dir() {
            return Err(CaptureError::NotAVideo { path: path.to_path_buf(), reason: "it is a folder".into() });
        }
        // A named pipe or a device would block the decoder, signals and all.
        if !path.metadata().is_ok_and(|m| m.is_file()) {
            return Err(CaptureError::NotAVideo { path: path.to_path_buf(), reason: "it is not a regular file (a pipe or a device)".into() });
        }
        let not_video = |reason: String| CaptureError::NotAVideo { path: path.to_path_buf(), reason };
        let name = path.to_str().ok_or_else(|| not_video("the path is not valid UTF-8".into()))?;
        let mut cap = VideoCapture::from_file(name, videoio::CAP_FFMPEG).map_err(|e| not_video(e.message))?;
        if !cap.is_opened().unwrap_or(false) {
            return Err(not_video("no decoder accepted it".into()));
        }
        let mut first = Mat::default();
        let ok = cap.read(&mut first).map_err(|e| not_video(e.message))?;
        if !ok || first.empty() {
            return Err(not_video("not a single frame could be decoded".into()));
        }
        let fps = cap.get(videoio::CAP_PROP_FPS).unwrap_or(0.0);
        let fps = if fps.is_finite() && fps > 0.5 && fps < 1000.0 { fps } else { FALLBACK_FPS };
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let frame_count = cap.get(videoio::CAP_PROP_FRAME_COUNT).unwrap_or(0.0).max(0.0) as u64;
        Ok(Self { path: path.to_path_buf(), cap, fps, next_index: 0, frame_count, first: Some(first) })
    }
}

impl FrameSource for VideoFileSource {
    fn name(&self) -> String {
        format!("video {}", self.path.display())
    }

    fn fps(&self) -> Option<f64> {
        Some(self.fps)
    }

    fn is_live(&self) -> bool {
        false
    }

    fn read(&mut self, frame: &mut Frame) -> Result<ReadOutcome, CaptureError> {
        if let Some(first) = self.first.take() {
            frame.color = first;
        } else {
            let ok = self
                .cap
                .read(&mut frame.color)
                .map_err(|source| CaptureError::OpenCv { what: self.path.display().to_string(), source })?;
            if !ok || frame.color.empty() {
                if self.frame_count > 0 && self.next_index + 1 < self.frame_count {
                    tracing::warn!(
                        "{} stopped decoding after {} of {} frames: the file is truncated or damaged",
                        self.path.display(),
                        self.next_index,
                        self.frame_count
                    );
                }
                return Ok(ReadOutcome::End);
            }
        }
        frame
            .update_gray()
            .map_err(|source| CaptureError::OpenCv { what: self.path.display().to_string(), source })?;
        frame.index = self.next_index;
        #[allow(clippy::cast_precision_loss)]
        let t = self.next_index as f64 * 1000.0 / self.fps;
        frame.t_ms = t;
        self.next_index += 1;
        Ok(ReadOutcome::Frame)
    }
}
