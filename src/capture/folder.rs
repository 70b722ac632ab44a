//! A folder of still images, read in name order.

use std::path::{Path, PathBuf};

use opencv::imgcodecs;
use opencv::prelude::*;

use super::{CaptureError, Frame, FrameSource, ReadOutcome};

/// The frame rate assumed for a folder of images.
pub const DEFAULT_FOLDER_FPS: f64 = 30.0;

const IMAGE_EXTENSIONS: [&str; 7] = ["png", "jpg", "jpeg", "bmp", "pgm", "ppm", "tif"];

pub struct ImageFolderSource {
    dir: PathBuf,
    files: Vec<PathBuf>,
    fps: f64,
    next: usize,
}

impl ImageFolderSource {
    /// Lists the images in `dir`.
    ///
    /// # Errors
    /// A missing or unreadable folder, or one without images.
    pub fn open(dir: &Path, fps: f64) -> Result<Self, CaptureError> {
        if !dir.exists() {
            return Err(CaptureError::FileNotFound(dir.to_path_buf()));
        }
        let entries = std::fs::read_dir(dir)
            .map_err(|e| CaptureError::Folder { path: dir.to_path_buf(), reason: e.to_string() })?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.is_file()
                    && p.extension()
                        .and_then(|e| e.to_str())
                        .is_some_and(|e| IMAGE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
            })
            .collect();
        if files.is_empty() {
            return Err(CaptureError::EmptyFolder(dir.to_path_buf()));
        }
        files.sort();
        let fps = if fps.is_finite() && fps > 0.0 { fps } else { DEFAULT_FOLDER_FPS };
        Ok(Self { dir: dir.to_path_buf(), files, fps, next: 0 })
    }

    /// How many images the folder holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether the folder holds no images (never true after a successful open).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

impl FrameSource for ImageFolderSource {
    fn name(&self) -> String {
        format!("image folder {}", self.dir.display())
    }

    fn fps(&self) -> Option<f64> {
        Some(self.fps)
    }

    fn is_live(&self) -> bool {
        false
    }

    fn read(&mut self, frame: &mut Frame) -> Result<ReadOutcome, CaptureError> {
        let Some(path) = self.files.get(self.next) else {
            return Ok(ReadOutcome::End);
        };
        let bad = |reason: String| CaptureError::BadImage { path: path.clone(), reason };
        let name = path.to_str().ok_or_else(|| bad("the path is not valid UTF-8".into()))?;
        let img = imgcodecs::imread(name, imgcodecs::IMREAD_COLOR).map_err(|e| bad(e.message))?;
        if img.empty() {
            return Err(bad("not a decodable image".into()));
        }
        frame.color = img;
        frame.update_gray().map_err(|e| bad(e.message))?;
        frame.index = self.next as u64;
        #[allow(clippy::cast_precision_loss)]
        let t = self.next as f64 * 1000.0 / self.fps;
        frame.t_ms = t;
        self.next += 1;
        Ok(ReadOutcome::Frame)
    }
}
