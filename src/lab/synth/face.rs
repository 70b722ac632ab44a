//! The face photo and its landmarks, and the eyelid drawing.

use std::path::Path;

use opencv::core::{Mat, Rect, Vec3b};
use opencv::imgcodecs;
use opencv::prelude::*;

use super::SynthError;
use crate::face_model::{ASTRONAUT_LANDMARKS, PhotoLandmarks};
use crate::events::Point;

/// A photo with its landmarks.
pub struct FaceAsset {
    pub photo: Mat,
    pub landmarks: PhotoLandmarks,
}

/// The mean colour of `rect` in the BGR `img`.
pub(crate) fn mean_bgr(img: &Mat, rect: Rect) -> Result<[f64; 3], opencv::Error> {
    let m = opencv::core::mean_def(&Mat::roi(img, rect)?)?;
    Ok([m[0], m[1], m[2]])
}

impl FaceAsset {
    /// Loads the astronaut photo from `path`.
    ///
    /// # Errors
    /// A missing or undecodable photo.
    pub fn load(path: &Path) -> Result<Self, SynthError> {
        let bad = |reason: String| SynthError::Photo { path: path.to_path_buf(), reason };
        let name = path.to_str().ok_or_else(|| bad("path is not UTF-8".into()))?;
        if !path.exists() {
            return Err(bad("file not found".into()));
        }
        let photo = imgcodecs::imread(name, imgcodecs::IMREAD_COLOR).map_err(|e| bad(e.message))?;
        if photo.empty() {
            return Err(bad("not a decodable image".into()));
        }
        Self::new(photo, ASTRONAUT_LANDMARKS).map_err(|e| bad(e.to_string()))
    }

    /// Wraps a photo and samples the lid skin colour above each eye.
    ///
    /// # Errors
    /// Landmarks too close to the photo's border.
    pub fn new(photo: Mat, mut landmarks: PhotoLandmarks) -> Result<Self, opencv::Error> {
        #[allow(clippy::cast_possible_truncation)]
        let patch = |e: Point| Rect::new(e[0] as i32 - 3, (e[1] - landmarks.eye_half_h) as i32 - 4, 7, 2);
        landmarks.lid_skin_left = mean_bgr(&photo, patch(landmarks.le))?;
        landmarks.lid_skin_right = mean_bgr(&photo, patch(landmarks.re))?;
        Ok(Self { photo, landmarks })
    }
}

/// Draws the upper eyelid of the eye at `eye` closed by `closure` (0 open .. 1 shut).
///
/// # Errors
/// `OpenCV` access failures.
pub fn draw_lid(img: &mut Mat, eye: Point, half_w: f64, half_h: f64, closure: f64, skin: [f64; 3]) -> Result<(), opencv::Error> {
    const LASH: [f64; 3] = [45.0, 40.0, 50.0];
    if closure <= 0.01 {
        return Ok(());
    }
    paint_eye(img, eye, half_w, half_h, |fy, h| {
        let top = eye[1] - h - 1.0;
        let bottom = eye[1] + h;
        let lid = top + closure * (bottom - top);
        let skin_a = (lid - fy + 0.5).clamp(0.0, 1.0) * (fy - top + 1.5).clamp(0.0, 1.0);
        let lash_a = if closure > 0.15 { (1.0 - (fy - lid).abs() / 1.3).clamp(0.0, 1.0) * (closure * 1.5).min(1.0) } else { 0.0 };
        let shade = 0.95 - 0.13 * ((fy - top) / (bottom - top + 1e-6)).clamp(0.0, 1.0);
        [(skin.map(|c| c * shade), skin_a), (LASH, lash_a)]
    })
}

/// The lower lid of the eye at `eye` raised by `raise` (0 .. 1, a share of
/// the eye's height), as the cheeks push it up in a smile: skin from the
/// eye's lower edge up to that height, with a soft crease along its top.
///
/// # Errors
/// OpenCV failures.
pub fn draw_lower_lid(img: &mut Mat, eye: Point, half_w: f64, half_h: f64, raise: f64, skin: [f64; 3]) -> Result<(), opencv::Error> {
    const CREASE: [f64; 3] = [90.0, 80.0, 85.0];
    if raise <= 0.01 {
        return Ok(());
    }
    paint_eye(img, eye, half_w, half_h, |fy, h| {
        let (top, bottom) = (eye[1] - h - 1.0, eye[1] + h + 1.0);
        let lid = bottom - raise * (bottom - top);
        let skin_a = (fy - lid + 0.5).clamp(0.0, 1.0) * (bottom - fy + 1.5).clamp(0.0, 1.0);
        let crease_a = 0.5 * (1.0 - (fy - lid).abs() / 1.2).clamp(0.0, 1.0) * (raise * 2.0).min(1.0);
        [(skin.map(|c| c * 0.97), skin_a), (CREASE, crease_a)]
    })
}

/// Paints two layers over the almond of the eye at `eye` (half its width
/// and height): for each pixel row `fy` at a column where the almond is
/// `h` high either side of its centre line, `layers(fy, h)` gives each
/// layer's colour and opacity, the second over the first.
fn paint_eye(img: &mut Mat, eye: Point, half_w: f64, half_h: f64, layers: impl Fn(f64, f64) -> [([f64; 3], f64); 2]) -> Result<(), opencv::Error> {
    let (cols, rows) = (img.cols(), img.rows());
    #[allow(clippy::cast_possible_truncation)]
    let (x0, x1, y0, y1) = (
        (eye[0] - half_w - 1.0).floor() as i32,
        (eye[0] + half_w + 1.0).ceil() as i32,
        (eye[1] - half_h - 3.0).floor() as i32,
        (eye[1] + half_h + 3.0).ceil() as i32,
    );
    for y in y0.max(0)..=y1.min(rows - 1) {
        for x in x0.max(0)..=x1.min(cols - 1) {
            let dx = (f64::from(x) - eye[0]) / half_w;
            if dx.abs() >= 1.0 {
                continue;
            }
            let h = half_h * (1.0 - dx * dx).sqrt();
            let [(under, under_a), (over, over_a)] = layers(f64::from(y), h);
            if under_a <= 0.0 && over_a <= 0.0 {
                continue;
            }
            let px = img.at_2d_mut::<Vec3b>(y, x)?;
            for c in 0..3 {
                let mut v = f64::from(px[c]);
                v = v * (1.0 - under_a) + under[c] * under_a;
                v = v * (1.0 - over_a) + over[c] * over_a;
                px[c] = super::grey_u8(v);
            }
        }
    }
    Ok(())
}
