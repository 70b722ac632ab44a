//! A feature that stops moving while the scene around it changes.
//!
//! The trackers follow whatever matches their templates best near where the
//! face was. If the person moves away and something that looks like their
//! face stays (a picture, a reflection, or the trackers left on a patch of
//! the background), the feature stops dead while the image around it
//! changes. The face detector's regular check looks only near the tracked
//! eyes, and it finds a face there too: on a still copy of the eyes, brows and
//! nose left behind by a generated head, it agreed for 10 s, the pointer
//! stood still, and the person's raises elsewhere were not seen
//! (`tests/vision.rs`, `a_still_copy_of_the_face_left_behind_is_let_go`).
//!
//! So while the feature has held still for `STILL_MS` and the scene outside
//! the face has changed since it stopped, the check looks at the whole frame
//! (`Vision::track`, step 7). A face there as large as the tracked one and
//! elsewhere disagrees, as a face found elsewhere near the eyes does, and
//! two such answers start the trackers again on it. A person who holds still
//! while someone moves behind them is the largest face on the whole frame,
//! and the check agrees. A blink is a living face: it starts the wait again.
//! Without the face detector, BlinkLink watches the frames instead, and a
//! clear blink of eyes as far apart, elsewhere, starts the trackers there.

use opencv::core::{CV_8UC1, Mat, Rect, Scalar};
use opencv::prelude::*;

use super::VisionError;
use super::params::{SCENE_CELL_CHANGE, SCENE_CHANGED_SHARE, SCENE_FACE_BOX, STILL_MS, STILL_REACH, THUMB_MS, THUMB_WIDTH};
use crate::events::{Point, dist};

/// Follows how long the feature has held still, and the scene as it was
/// just before it stopped (a thumbnail of the grey frame).
#[derive(Debug, Clone, Default)]
pub(super) struct StillWatch {
    /// Since when the feature has stayed within `STILL_REACH` eye distances of `at`.
    since: Option<f64>,
    at: Point,
    /// The scene when the feature stopped (the latest thumbnail then).
    scene: Mat,
    has_scene: bool,
    /// A thumbnail taken every `THUMB_MS`, and when.
    latest: Mat,
    latest_t: Option<f64>,
    /// This frame's thumbnail, when one is compared, and the cells' changes.
    now: Mat,
    diffs: Vec<f64>,
    sorted: Vec<f64>,
    /// A whole-frame check found a face as large elsewhere while the feature
    /// held still: the checks look at the whole frame until it moves.
    pub elsewhere: bool,
    /// The face detector's check asked last looks at the whole frame.
    pub asked_whole: bool,
}

impl StillWatch {
    /// Follows the feature at `feature` on this frame. `blinked`: the eyes
    /// closed on it (a living face, not a picture).
    ///
    /// # Errors
    /// OpenCV failures.
    pub fn follow(&mut self, gray: &Mat, feature: Point, iod: f64, t: f64, blinked: bool) -> Result<(), VisionError> {
        let moved = self.since.is_none() || dist(self.at, feature) > STILL_REACH * iod;
        if moved || blinked {
            self.since = Some(t);
            self.at = feature;
            self.elsewhere = false;
            self.has_scene = self.latest_t.is_some();
            if self.has_scene {
                self.latest.copy_to(&mut self.scene)?;
            }
        }
        if self.latest_t.is_none_or(|l| t - l >= THUMB_MS) {
            thumb(gray, &mut self.latest)?;
            self.latest_t = Some(t);
            // Still since the trackers started: the scene as first seen.
            if !self.has_scene {
                self.latest.copy_to(&mut self.scene)?;
                self.has_scene = true;
            }
        }
        Ok(())
    }

    /// How long the feature has held still at `t` (ms).
    #[must_use]
    pub fn held_ms(&self, t: f64) -> f64 {
        self.since.map_or(0.0, |s| t - s)
    }

    /// Whether the next check should look at the whole frame: the feature
    /// has held still for `STILL_MS`, and either a whole-frame check already
    /// found a face elsewhere, or the scene outside the face (a box of
    /// `SCENE_FACE_BOX` about the eyes' midpoint `centre`) changed since it stopped.
    ///
    /// # Errors
    /// OpenCV failures.
    pub fn wants_whole_frame(&mut self, gray: &Mat, centre: Point, iod: f64, t: f64) -> Result<bool, VisionError> {
        if self.held_ms(t) < STILL_MS {
            return Ok(false);
        }
        if self.elsewhere {
            return Ok(true);
        }
        if !self.has_scene {
            return Ok(false);
        }
        thumb(gray, &mut self.now)?;
        let s = f64::from(self.now.cols()) / f64::from(gray.cols().max(1));
        let (l, r, up, down) = SCENE_FACE_BOX;
        let face = Rect::new(
            ((centre[0] - l * iod) * s).floor() as i32,
            ((centre[1] - up * iod) * s).floor() as i32,
            (((l + r) * iod) * s).ceil() as i32 + 1,
            (((up + down) * iod) * s).ceil() as i32 + 1,
        );
        Ok(changed_share(&self.scene, &self.now, face, &mut self.diffs, &mut self.sorted)? >= SCENE_CHANGED_SHARE)
    }
}

const THUMB_STEP: usize = 4;

/// The grey frame shrunk to `THUMB_WIDTH` pixels across, each pixel the
/// mean of its area sampled every `THUMB_STEP`th pixel and row (a 20×20
/// cell of a 640×480 frame: 25 samples, the sensor's noise a fifth as
/// large). OpenCV's area resize of every pixel raised the frame time's
/// 99th percentile.
fn thumb(gray: &Mat, out: &mut Mat) -> Result<(), VisionError> {
    let (w, h) = (gray.cols(), gray.rows());
    if w < 1 || h < 1 || gray.typ() != CV_8UC1 {
        return Ok(());
    }
    let tw = THUMB_WIDTH.min(w);
    let th = ((f64::from(h) * f64::from(tw) / f64::from(w)).round() as i32).clamp(1, h);
    if out.rows() != th || out.cols() != tw || out.typ() != CV_8UC1 {
        *out = Mat::new_rows_cols_with_default(th, tw, CV_8UC1, Scalar::all(0.0))?;
    }
    let (w, h, tw, th) = (w as usize, h as usize, tw as usize, th as usize);
    for r in 0..th {
        let (y0, y1) = (r * h / th, ((r + 1) * h / th).max(r * h / th + 1));
        let mut sums = [0u32; THUMB_WIDTH as usize];
        let mut n = [0u32; THUMB_WIDTH as usize];
        for y in (y0..y1).step_by(THUMB_STEP) {
            let row = gray.at_row::<u8>(i32::try_from(y).unwrap_or(i32::MAX))?;
            for (c, (sum, count)) in sums.iter_mut().zip(n.iter_mut()).enumerate().take(tw) {
                let (x0, x1) = (c * w / tw, ((c + 1) * w / tw).max(c * w / tw + 1));
                for &v in row[x0..x1].iter().step_by(THUMB_STEP) {
                    *sum += u32::from(v);
                    *count += 1;
                }
            }
        }
        let dst = out.at_row_mut::<u8>(i32::try_from(r).unwrap_or(i32::MAX))?;
        for ((d, sum), count) in dst.iter_mut().zip(sums).zip(n) {
            *d = u8::try_from((sum + count / 2) / count.max(1)).unwrap_or(u8::MAX);
        }
    }
    Ok(())
}

/// The share of the cells outside `face` that changed from `before` to
/// `now` by more than `SCENE_CELL_CHANGE` grey levels, after the median
/// change of all of them (the camera's exposure, a lamp) is taken away.
/// 0 when the two are not alike in size or nothing lies outside `face`.
/// `diffs` and `sorted` are scratch space.
fn changed_share(before: &Mat, now: &Mat, face: Rect, diffs: &mut Vec<f64>, sorted: &mut Vec<f64>) -> Result<f64, VisionError> {
    if before.size()? != now.size()? || before.empty() {
        return Ok(0.0);
    }
    let (w, h) = (now.cols(), now.rows());
    diffs.clear();
    for y in 0..h {
        let (a, b) = (before.at_row::<u8>(y)?, now.at_row::<u8>(y)?);
        for x in 0..w {
            if !face.contains(opencv::core::Point::new(x, y)) {
                diffs.push(f64::from(b[x as usize]) - f64::from(a[x as usize]));
            }
        }
    }
    if diffs.is_empty() {
        return Ok(0.0);
    }
    sorted.clear();
    sorted.extend_from_slice(diffs);
    let mid = sorted.len() / 2;
    let median = *sorted.select_nth_unstable_by(mid, f64::total_cmp).1;
    let changed = diffs.iter().filter(|d| (*d - median).abs() > SCENE_CELL_CHANGE).count();
    Ok(changed as f64 / diffs.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(w: i32, h: i32, grey: f64) -> Mat {
        Mat::new_rows_cols_with_default(h, w, CV_8UC1, Scalar::all(grey)).expect("mat")
    }

    fn paint(m: &mut Mat, r: Rect, grey: f64) {
        Mat::roi_mut(m, r).expect("roi").set_to_def(&Scalar::all(grey)).expect("paint");
    }

    #[test]
    fn a_change_outside_the_face_counts_and_one_inside_or_of_exposure_does_not() {
        let before = flat(32, 24, 100.0);
        let face = Rect::new(10, 6, 12, 12);
        // Something moved beside the face: a quarter of the frame.
        let mut now = before.clone();
        paint(&mut now, Rect::new(0, 0, 8, 24), 160.0);
        let share = changed_share(&before, &now, face, &mut Vec::new(), &mut Vec::new()).expect("share");
        assert!(share > 0.3, "{share}");
        // The face itself changed (a blink, a smile, talking): nothing outside.
        let mut now = before.clone();
        paint(&mut now, face, 30.0);
        assert!(changed_share(&before, &now, face, &mut Vec::new(), &mut Vec::new()).expect("share") < 1e-9);
        // The camera's exposure rose everywhere by 30 levels.
        let now = flat(32, 24, 130.0);
        assert!(changed_share(&before, &now, face, &mut Vec::new(), &mut Vec::new()).expect("share") < 1e-9);
    }

    #[test]
    fn the_whole_frame_is_wanted_only_after_the_feature_held_still_while_the_scene_changed() {
        let mut w = StillWatch::default();
        let mut gray = flat(320, 240, 90.0);
        let centre = [160.0, 120.0];
        let iod = 40.0;
        // The feature holds still from t = 0; the scene does not change.
        let mut t = 0.0;
        while t <= 2000.0 {
            w.follow(&gray, centre, iod, t, false).expect("follow");
            t += 100.0;
        }
        assert!(w.held_ms(t) >= STILL_MS);
        assert!(!w.wants_whole_frame(&gray, centre, iod, t).expect("wide"), "nothing changed");
        // Something moves beside the face: now it is wanted.
        paint(&mut gray, Rect::new(0, 0, 80, 240), 200.0);
        assert!(w.wants_whole_frame(&gray, centre, iod, t).expect("wide"));
        // A blink starts the wait again: a living face.
        w.follow(&gray, centre, iod, t, true).expect("follow");
        assert!(!w.wants_whole_frame(&gray, centre, iod, t + 100.0).expect("wide"));
        // So does a feature that moves, by more than `STILL_REACH` eye distances.
        let mut w = StillWatch::default();
        w.follow(&gray, centre, iod, 0.0, false).expect("follow");
        w.follow(&gray, [centre[0] + STILL_REACH * iod * 1.5, centre[1]], iod, 1000.0, false).expect("follow");
        assert!((w.held_ms(2000.0) - 1000.0).abs() < 1e-9);
        // Once a whole-frame check found a face elsewhere, the checks stay whole-frame while it holds still.
        let mut w = StillWatch::default();
        let gray = flat(320, 240, 90.0);
        w.follow(&gray, centre, iod, 0.0, false).expect("follow");
        w.elsewhere = true;
        assert!(!w.wants_whole_frame(&gray, centre, iod, 500.0).expect("wide"), "not still long enough");
        assert!(w.wants_whole_frame(&gray, centre, iod, STILL_MS).expect("wide"));
    }
}
