//! Confirmation of a blink's eye pair with OpenCV's Haar eye cascade
//! (`haarcascade_eye.xml` from the opencv-data package).
//!
//! The blink cue finds the pair; the cascade only confirms that each blob is
//! an eye and not, say, an eyebrow that moved. Without the cascade file the
//! blink cue works alone, and the user is told once where it was looked for.

use std::path::PathBuf;

use opencv::core::{Mat, Rect, Size, Vector};
use opencv::imgproc;
use opencv::objdetect::CascadeClassifier;
use opencv::prelude::*;

use super::ncc;
use super::params::HAAR_NORMALIZED_IOD as NORMALIZED_IOD;
use crate::events::Point;

/// The cascade's file name.
pub const EYE_CASCADE: &str = "haarcascade_eye.xml";
/// The environment variable that adds a folder to the search path.
pub const HAAR_DIR_ENV: &str = "FACEMOUSE_HAAR_DIR";

/// Where the cascade is looked for, in order.
#[must_use]
pub fn search_path() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = std::env::var_os(HAAR_DIR_ENV) {
        dirs.push(PathBuf::from(d));
    }
    dirs.push(crate::data_dir().join("models"));
    for d in ["/usr/share/opencv4/haarcascades", "/usr/share/opencv/haarcascades", "/usr/local/share/opencv4/haarcascades"] {
        dirs.push(PathBuf::from(d));
    }
    dirs
}

/// The eye confirmer.
pub struct EyeConfirmer {
    cascade: Option<CascadeClassifier>,
    roi: Mat,
    scaled: Mat,
    found: Vector<Rect>,
}

impl Default for EyeConfirmer {
    fn default() -> Self {
        Self::load()
    }
}

impl EyeConfirmer {
    /// Loads the cascade from the search path; logs one warning if it is missing.
    #[must_use]
    pub fn load() -> Self {
        Self::find().map_or_else(Self::unavailable, |p| Self::from_path(&p))
    }

    /// The cascade file on the search path, checked to load; logs one
    /// warning when it is missing or damaged.
    #[must_use]
    pub fn find() -> Option<PathBuf> {
        let dirs = search_path();
        let path = dirs.iter().map(|d| d.join(EYE_CASCADE)).find(|p| p.is_file());
        match &path {
            Some(p) if Self::from_path(p).active() => {}
            Some(p) => {
                tracing::warn!("cannot load the Haar eye cascade {}: the file is damaged (reinstall opencv-data)", p.display());
                return None;
            }
            None => {
                let looked: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
                tracing::warn!(
                    "{EYE_CASCADE} not found (looked in {}); blinks alone will initialize tracking. Install opencv-data or set {HAAR_DIR_ENV}.",
                    looked.join(", ")
                );
            }
        }
        path
    }

    /// The cascade at `path` (inactive if it cannot be loaded).
    #[must_use]
    pub fn from_path(path: &std::path::Path) -> Self {
        let cascade = CascadeClassifier::new(path.as_os_str()).ok().filter(|c| !c.empty().unwrap_or(true));
        Self { cascade, ..Self::unavailable() }
    }

    /// A confirmer without a cascade: confirms everything.
    #[must_use]
    pub fn unavailable() -> Self {
        Self { cascade: None, roi: Mat::default(), scaled: Mat::default(), found: Vector::new() }
    }

    /// Whether a cascade is loaded.
    #[must_use]
    pub fn active(&self) -> bool {
        self.cascade.is_some()
    }

    /// Whether the cascade finds an eye centred near `p` (within 0.25 `iod`).
    /// Always true without a cascade.
    ///
    /// # Errors
    /// OpenCV failures.
    pub fn is_eye(&mut self, gray: &Mat, p: Point, iod: f64) -> Result<bool, opencv::Error> {
        Ok(self.find_eye(gray, p, iod)?.is_some())
    }

    /// The centre of the eye the cascade finds nearest `p` (within 0.25 `iod`).
    /// `p` itself without a cascade.
    ///
    /// # Errors
    /// OpenCV failures.
    pub fn find_eye(&mut self, gray: &Mat, p: Point, iod: f64) -> Result<Option<Point>, opencv::Error> {
        let Some(cascade) = self.cascade.as_mut() else {
            return Ok(Some(p));
        };
        #[allow(clippy::cast_possible_truncation)]
        let (w, h) = ((1.2 * iod).round() as i32, (1.0 * iod).round() as i32);
        let mut r = ncc::patch_rect(p, w, h);
        // Clip to the image: an eye near the border can still be confirmed.
        let x1 = (r.x + r.width).min(gray.cols());
        let y1 = (r.y + r.height).min(gray.rows());
        r.x = r.x.max(0);
        r.y = r.y.max(0);
        r.width = x1 - r.x;
        r.height = y1 - r.y;
        if r.width < 8 || r.height < 8 {
            return Ok(None);
        }
        Mat::roi(gray, r)?.copy_to(&mut self.roi)?;
        let s = NORMALIZED_IOD / iod;
        #[allow(clippy::cast_possible_truncation)]
        let size = Size::new((f64::from(r.width) * s).round() as i32, (f64::from(r.height) * s).round() as i32);
        imgproc::resize(&self.roi, &mut self.scaled, size, 0.0, 0.0, imgproc::INTER_LINEAR)?;
        #[allow(clippy::cast_possible_truncation)]
        let (min, max) = ((0.42 * NORMALIZED_IOD) as i32, (0.62 * NORMALIZED_IOD) as i32);
        cascade.detect_multi_scale(&self.scaled, &mut self.found, 1.1, 3, 0, Size::new(min, min), Size::new(max, max))?;
        let (cx, cy) = ((p[0] - f64::from(r.x)) * s, (p[1] - f64::from(r.y)) * s);
        let reach = 0.25 * NORMALIZED_IOD;
        let best = self
            .found
            .iter()
            .map(|b| (f64::from(b.x) + f64::from(b.width) / 2.0, f64::from(b.y) + f64::from(b.height) / 2.0))
            .filter(|(bx, by)| (bx - cx).abs() <= reach && (by - cy).abs() <= reach)
            .min_by(|a, b| ((a.0 - cx).hypot(a.1 - cy)).total_cmp(&(b.0 - cx).hypot(b.1 - cy)));
        Ok(best.map(|(bx, by)| [f64::from(r.x) + bx / s, f64::from(r.y) + by / s]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::synth::{FaceAsset, Generator, SynthConfig, default_photo, gray_frame};

    #[test]
    fn the_cascade_confirms_eyes_and_rejects_brows() {
        let mut c = EyeConfirmer::load();
        if !c.active() {
            eprintln!("skipped: {EYE_CASCADE} is not installed (opencv-data)");
            return;
        }
        let mut g = Generator::new(FaceAsset::load(&default_photo()).expect("photo"), SynthConfig::demo()).expect("generator");
        let (gray, row) = gray_frame(&mut g, 0);
        let (le, re) = (row.le.expect("le"), row.re.expect("re"));
        let iod = crate::events::dist(le, re);
        assert!(c.is_eye(&gray, le, iod).expect("haar") && c.is_eye(&gray, re, iod).expect("haar"));
        let found = c.find_eye(&gray, [le[0] + 0.1 * iod, le[1] - 0.08 * iod], iod).expect("haar").expect("an eye");
        assert!(crate::events::dist(found, le) < 0.15 * iod, "{found:?} vs {le:?}");
        let nose = row.nose.expect("nose");
        assert!(!c.is_eye(&gray, nose, iod).expect("haar"), "the nose is not an eye");
    }
}
