//! Eye centres near the face detector's coarse eye points.
//!
//! The detector's eye points are about a tenth of the eye distance off, and
//! each person and camera is off another way. The eyes themselves are found
//! by normalized correlation with a generic pair of eyes: those of the
//! public-domain portrait the project ships (`assets/demo/astronaut.png`),
//! scaled to the face. Correlation ignores brightness and contrast, so one
//! face's eyes find another's, through glasses and at 30 px eye distances,
//! where the darkest blob (a glasses rim, a shadow) often is not the eye.

use opencv::core::{Mat, Size};
use opencv::imgcodecs;
use opencv::imgproc;
use opencv::prelude::*;

use super::params::{EYE_FIND_REACH, GENERIC_EYE};
use super::{VisionError, ncc, px};
use crate::events::{Point, dist};
use crate::face_model::ASTRONAUT_LANDMARKS;

/// The generic eyes, cut from the portrait with a margin so they can be scaled.
pub struct GenericEyes {
    /// The subject's left and right eye regions at the portrait's resolution,
    /// each `GENERIC_EYE` eye distances (plus a margin) around the eye centre.
    eyes: Option<[Mat; 2]>,
    tmpl: Mat,
    result: Mat,
    /// How well each eye of the last `find` correlated with the generic eye (1 without the portrait).
    pub last_scores: [f64; 2],
}

impl Default for GenericEyes {
    fn default() -> Self {
        Self::load()
    }
}

/// The portrait's eye regions are cut this much larger than a template, so a resized one keeps its edges.
const CUT_MARGIN: f64 = 1.25;

impl GenericEyes {
    /// Cuts the eyes from the shipped portrait; logs one warning when it is missing.
    #[must_use]
    pub fn load() -> Self {
        let path = crate::face_model::default_photo();
        let eyes = (|| -> Result<Option<[Mat; 2]>, opencv::Error> {
            let Some(name) = path.to_str() else { return Ok(None) };
            let photo = imgcodecs::imread(name, imgcodecs::IMREAD_GRAYSCALE)?;
            if photo.empty() {
                return Ok(None);
            }
            let lm = ASTRONAUT_LANDMARKS;
            let iod = lm.iod();
            let (w, h) = (px(CUT_MARGIN * GENERIC_EYE.0 * iod), px(CUT_MARGIN * GENERIC_EYE.1 * iod));
            let (mut l, mut r) = (Mat::default(), Mat::default());
            if !ncc::extract(&photo, lm.le, w, h, &mut l)? || !ncc::extract(&photo, lm.re, w, h, &mut r)? {
                return Ok(None);
            }
            Ok(Some([l, r]))
        })()
        .unwrap_or(None);
        if eyes.is_none() {
            tracing::warn!("cannot read the generic eyes in {} (reinstall Facemouse); eyes are placed at the darkest blobs instead", path.display());
        }
        Self { eyes, tmpl: Mat::default(), result: Mat::default(), last_scores: [1.0; 2] }
    }

    /// Whether the generic eyes are loaded.
    #[must_use]
    pub fn active(&self) -> bool {
        self.eyes.is_some()
    }

    /// The eye centres near the coarse points `le` and `re` (the subject's
    /// left eye on the image's right): each eye where the generic eye,
    /// scaled to the face, correlates best within `EYE_FIND_REACH` eye
    /// distances. Without the portrait, the irises whose surroundings best
    /// mirror each other.
    ///
    /// # Errors
    /// OpenCV failures.
    pub fn find(&mut self, gray: &Mat, le: Point, re: Point) -> Result<(Point, Point), VisionError> {
        let iod = dist(le, re);
        let Some(eyes) = &self.eyes else {
            return Ok(super::blinklink::refine_eye_pair(gray, le, re, iod)?);
        };
        let photo_iod = ASTRONAUT_LANDMARKS.iod();
        let reach = px(EYE_FIND_REACH * iod);
        // Each eye where its generic eye, scaled to this face, correlates best
        // (where it does not fit in the image, the detector's point).
        let s = iod / photo_iod;
        let (w, h) = (px(GENERIC_EYE.0 * iod), px(GENERIC_EYE.1 * iod));
        let mut found = [le, re];
        self.last_scores = [-1.0; 2];
        for ((cut, at), score) in eyes.iter().zip(&mut found).zip(&mut self.last_scores) {
            let size = Size::new((f64::from(cut.cols()) * s).round() as i32, (f64::from(cut.rows()) * s).round() as i32);
            let mut scaled = Mat::default();
            imgproc::resize(cut, &mut scaled, size, 0.0, 0.0, imgproc::INTER_AREA)?;
            let centre = [f64::from(size.width) / 2.0, f64::from(size.height) / 2.0];
            if ncc::extract(&scaled, centre, w, h, &mut self.tmpl)?
                && let Some(m) = ncc::search(gray, &self.tmpl, *at, reach, reach, &mut self.result)?
            {
                *at = m.pos;
                *score = m.score;
            }
        }
        Ok((found[0], found[1]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::synth::{FaceAsset, Generator, SynthConfig, default_photo, gray_frame};

    #[test]
    fn the_eyes_are_found_from_points_a_tenth_of_the_eye_distance_off() {
        let mut finder = GenericEyes::load();
        assert!(finder.active(), "the portrait ships with the project");
        for (w, h, iod) in [(640, 480, 70.0), (320, 240, 30.0)] {
            let mut cfg = SynthConfig::demo();
            (cfg.width, cfg.height, cfg.iod_px) = (w, h, iod);
            let mut g = Generator::new(FaceAsset::load(&default_photo()).expect("photo"), cfg).expect("generator");
            let (gray, row) = gray_frame(&mut g, 5);
            let (le, re) = (row.le.expect("le"), row.re.expect("re"));
            let d = dist(le, re);
            let (l, r) = finder.find(&gray, [le[0] + 0.08 * d, le[1] - 0.07 * d], [re[0] - 0.09 * d, re[1] + 0.06 * d]).expect("find");
            // The points given were 0.11 eye distances off; at 30 px, 0.05 is 1.5 px.
            assert!(dist(l, le) < 0.05 * d && dist(r, re) < 0.05 * d, "{w}x{h}: {l:?} {r:?} vs {le:?} {re:?}");
        }
    }
}
