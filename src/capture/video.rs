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
    /// Each frame's time from the first (ms), when known; empty: at `fps`.
    times: Vec<f64>,
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
        Ok(Self { path: path.to_path_buf(), cap, fps, next_index: 0, frame_count, first: Some(first), times: Vec::new() })
    }

    /// Gives each frame the time it was recorded at: `times_ms[i]` less the
    /// first (see [`recorded_times`]). Frames past the list follow the last
    /// at the container's rate.
    #[must_use]
    pub fn with_times(mut self, times_ms: &[f64]) -> Self {
        self.times = recorded_times(times_ms);
        self
    }
}

/// Recorded frame times made usable: from the first frame, and never
/// earlier than the one before (a time that is not a number, or that goes
/// back, becomes the one before).
fn recorded_times(times_ms: &[f64]) -> Vec<f64> {
    let t0 = times_ms.first().copied().filter(|t| t.is_finite()).unwrap_or(0.0);
    let mut last = 0.0_f64;
    times_ms
        .iter()
        .map(|&t| {
            let t = t - t0;
            last = if t.is_finite() { t.max(last) } else { last };
            last
        })
        .collect()
}

/// The time of frame `index` (ms from the first) at an even `fps`:
/// `index · 1000 / fps`, in that order (the times of every recording
/// measured so far, to the last bit).
#[must_use]
#[allow(clippy::cast_precision_loss)]
pub fn even_time(index: u64, fps: f64) -> f64 {
    index as f64 * 1000.0 / fps
}

/// The time of frame `index` (ms from the first): its recorded time, or
/// after the last recorded one at `fps`.
fn frame_time(times: &[f64], fps: f64, index: u64) -> f64 {
    match (usize::try_from(index).ok().and_then(|i| times.get(i)), times.last()) {
        (Some(&t), _) => t,
        (None, Some(&last)) => last + even_time(index + 1 - times.len() as u64, fps),
        (None, None) => even_time(index, fps),
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
        frame.t_ms = frame_time(&self.times, self.fps, self.next_index);
        self.next_index += 1;
        Ok(ReadOutcome::Frame)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_frame_comes_at_its_own_time() {
        // A webcam's uneven intervals (ms since an arbitrary start), one going back, one not a number.
        let times = recorded_times(&[1000.0, 1019.6, 1078.8, 1070.0, f64::NAN, 1140.2]);
        let want = [0.0, 19.6, 78.8, 78.8, 78.8, 140.2];
        assert_eq!(times.len(), want.len());
        assert!(times.iter().zip(want).all(|(t, w)| (t - w).abs() < 1e-9), "{times:?}");
        assert!((frame_time(&times, 20.0, 1) - 19.6).abs() < 1e-9);
        assert!((frame_time(&times, 20.0, 5) - 140.2).abs() < 1e-9);
        // Past the list: on from the last at the container's rate (20 fps, 50 ms).
        assert!((frame_time(&times, 20.0, 6) - 190.2).abs() < 1e-9);
        assert!((frame_time(&times, 20.0, 8) - 290.2).abs() < 1e-9);
        // No times: at the container's rate.
        assert!((frame_time(&[], 25.0, 10) - 400.0).abs() < 1e-9);
    }
}
