//! Self-initialization from natural blinks (BlinkLink, Grauman et al.).
//!
//! Consecutive frames are differenced at a working resolution; the difference
//! is thresholded and opened, and its connected components are candidate eye
//! blobs. A pair of blobs of similar size, roughly level and 1.5–16 blob widths
//! apart, whose surroundings are mirror images of each other (eyes are), is an
//! eye pair. Frames where much of the image changed (the head or the camera
//! moved) are skipped: a blink changes only the eyes.

use opencv::core::{self, Mat, Size};
use opencv::imgproc;
use opencv::prelude::*;

use super::ncc;
use super::params::{
    BLINK_WORK_WIDTH as WORK_WIDTH, DIFF_THRESHOLD, IRIS_REACH, IRIS_SIGMA, MAX_AREA_RATIO, MAX_CHANGED_SHARE, MAX_IOD_SHARE, MAX_SLOPE,
    MAX_SPACING_WIDTHS, MIN_IOD_SHARE, MIN_MIRROR_NCC, MIN_SPACING_WIDTHS, WANDER_COST,
};
use crate::events::{Point, dist};

/// A candidate eye pair in full-resolution pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EyePair {
    /// The subject's left eye (image right) and right eye (image left).
    pub le: Point,
    pub re: Point,
    pub score: f64,
}

impl EyePair {
    #[must_use]
    pub fn iod(&self) -> f64 {
        dist(self.le, self.re)
    }
}

/// The blink detector; keeps the previous small frame and its buffers.
#[derive(Default)]
pub struct BlinkLink {
    prev: Mat,
    cur: Mat,
    diff: Mat,
    mask: Mat,
    opened: Mat,
    labels: Mat,
    stats: Mat,
    centroids: Mat,
    kernel: Mat,
    mirror: Mirror,
    /// Blobs of the last processed frame (for tests and diagnostics).
    pub last_blobs: usize,
}

/// How much two eye regions look alike, one mirrored (eyes are nearly
/// symmetric; a glasses rim, a brow or a shadow beside an eye is not), with
/// its buffers.
#[derive(Default)]
pub struct Mirror {
    flip: Mat,
    a: Mat,
    b: Mat,
    corr: Mat,
}

impl Mirror {
    /// Correlation of the region around `re` with the mirrored region
    /// around `le` (0.6 × 0.4 eye distances); −1 off the image.
    ///
    /// # Errors
    /// OpenCV failures.
    pub fn score(&mut self, full: &Mat, re: Point, le: Point) -> Result<f64, opencv::Error> {
        let iod = dist(le, re);
        #[allow(clippy::cast_possible_truncation)]
        let (w, h) = ((0.6 * iod).round().max(6.0) as i32, (0.4 * iod).round().max(4.0) as i32);
        if !ncc::extract(full, re, w, h, &mut self.a)? || !ncc::extract(full, le, w, h, &mut self.b)? {
            return Ok(-1.0);
        }
        core::flip(&self.b, &mut self.flip, 1)?;
        ncc::correlate(&self.a, &self.flip, &mut self.corr)
    }
}

struct Blob {
    c: Point,
    w: f64,
    area: f64,
}

impl BlinkLink {
    /// Forgets the previous frame (after a cut or a loss).
    pub fn reset(&mut self) {
        self.prev = Mat::default();
    }

    /// Feeds one grey frame; returns an eye pair when this frame's change looks like a blink.
    ///
    /// # Errors
    /// OpenCV failures.
    pub fn feed(&mut self, gray: &Mat) -> Result<Option<EyePair>, opencv::Error> {
        let scale = if gray.cols() > WORK_WIDTH { f64::from(WORK_WIDTH) / f64::from(gray.cols()) } else { 1.0 };
        #[allow(clippy::cast_possible_truncation)]
        let size = Size::new((f64::from(gray.cols()) * scale).round() as i32, (f64::from(gray.rows()) * scale).round() as i32);
        if (scale - 1.0).abs() > f64::EPSILON {
            imgproc::resize(gray, &mut self.cur, size, 0.0, 0.0, imgproc::INTER_AREA)?;
        } else {
            gray.copy_to(&mut self.cur)?;
        }
        let found = if self.prev.size()? == self.cur.size()? { self.pair_from_difference(gray, scale)? } else { None };
        std::mem::swap(&mut self.prev, &mut self.cur);
        Ok(found)
    }

    fn pair_from_difference(&mut self, full: &Mat, scale: f64) -> Result<Option<EyePair>, opencv::Error> {
        core::absdiff(&self.cur, &self.prev, &mut self.diff)?;
        imgproc::threshold(&self.diff, &mut self.mask, DIFF_THRESHOLD, 255.0, imgproc::THRESH_BINARY)?;
        let total = f64::from(self.mask.rows() * self.mask.cols());
        let changed = f64::from(core::count_non_zero(&self.mask)?);
        if changed > MAX_CHANGED_SHARE * total || changed < 4.0 {
            self.last_blobs = 0;
            return Ok(None);
        }
        if self.kernel.empty() {
            self.kernel = imgproc::get_structuring_element_def(imgproc::MORPH_ELLIPSE, Size::new(3, 3))?;
        }
        imgproc::morphology_ex_def(&self.mask, &mut self.opened, imgproc::MORPH_OPEN, &self.kernel)?;
        let n = imgproc::connected_components_with_stats(&self.opened, &mut self.labels, &mut self.stats, &mut self.centroids, 8, core::CV_32S)?;
        let width = f64::from(self.cur.cols());
        let mut blobs = Vec::new();
        for i in 1..n {
            let area = f64::from(*self.stats.at_2d::<i32>(i, imgproc::CC_STAT_AREA)?);
            let w = f64::from(*self.stats.at_2d::<i32>(i, imgproc::CC_STAT_WIDTH)?);
            let h = f64::from(*self.stats.at_2d::<i32>(i, imgproc::CC_STAT_HEIGHT)?);
            // An eye blob is a few pixels to a fifth of the largest plausible eye spacing.
            if area < 3.0 || w > 0.5 * MAX_IOD_SHARE * width || h > w * 1.5 + 2.0 {
                continue;
            }
            let c = [*self.centroids.at_2d::<f64>(i, 0)?, *self.centroids.at_2d::<f64>(i, 1)?];
            blobs.push(Blob { c, w, area });
        }
        self.last_blobs = blobs.len();
        if blobs.len() < 2 || blobs.len() > 40 {
            return Ok(None);
        }
        let mut best: Option<EyePair> = None;
        for i in 0..blobs.len() {
            for j in (i + 1)..blobs.len() {
                let (a, b) = (&blobs[i], &blobs[j]);
                let (l, r) = if a.c[0] < b.c[0] { (a, b) } else { (b, a) };
                let dx = r.c[0] - l.c[0];
                let dy = r.c[1] - l.c[1];
                let bw = l.w.max(r.w);
                if dx <= 0.0 || dy.abs() > MAX_SLOPE * dx {
                    continue;
                }
                let ratio = l.area.max(r.area) / l.area.min(r.area);
                let spacing = dx / bw;
                if ratio > MAX_AREA_RATIO || !(MIN_SPACING_WIDTHS..=MAX_SPACING_WIDTHS).contains(&spacing) {
                    continue;
                }
                let iod_share = dx / width;
                if !(MIN_IOD_SHARE..=MAX_IOD_SHARE).contains(&iod_share) {
                    continue;
                }
                // Full-resolution centres: image-left is the subject's right eye.
                let re = [l.c[0] / scale, l.c[1] / scale];
                let le = [r.c[0] / scale, r.c[1] / scale];
                let mirror = self.mirror.score(full, re, le)?;
                if mirror < MIN_MIRROR_NCC {
                    continue;
                }
                let score = mirror + (l.area + r.area).sqrt() / width - 0.3 * (ratio - 1.0) - dy.abs() / dx;
                if best.is_none_or(|p| score > p.score) {
                    best = Some(EyePair { le, re, score });
                }
            }
        }
        Ok(best)
    }
}

/// Up to `k` iris candidates near `p`: local maxima of the Laplacian of the
/// Gaussian-smoothed image at iris scale (dark round blobs), strongest first,
/// each with its response.
///
/// # Errors
/// OpenCV failures.
pub fn iris_candidates(gray: &Mat, p: Point, iod: f64, k: usize) -> Result<Vec<(Point, f64)>, opencv::Error> {
    let (rx, ry) = (IRIS_REACH.0 * iod, IRIS_REACH.1 * iod);
    let sigma = IRIS_SIGMA * iod;
    let margin = 3.0 * sigma + 2.0;
    #[allow(clippy::cast_possible_truncation)]
    let (w, h) = ((2.0 * (rx + margin)).round() as i32, (2.0 * (ry + margin)).round() as i32);
    let r = ncc::patch_rect(p, w, h);
    if !ncc::inside(r, gray.cols(), gray.rows()) {
        return Ok(Vec::new());
    }
    let mut f = Mat::default();
    Mat::roi(gray, r)?.convert_to(&mut f, core::CV_32F, 1.0, 0.0)?;
    let mut blurred = Mat::default();
    imgproc::gaussian_blur(&f, &mut blurred, Size::new(0, 0), sigma, sigma, core::BORDER_REPLICATE)?;
    let mut lap = Mat::default();
    imgproc::laplacian(&blurred, &mut lap, core::CV_32F, 3, 1.0, 0.0, core::BORDER_REPLICATE)?;
    let (cx, cy) = (p[0] - f64::from(r.x), p[1] - f64::from(r.y));
    let at = |x: i32, y: i32| -> f32 { lap.at_2d::<f32>(y, x).map_or(f32::NEG_INFINITY, |v| *v) };
    let mut peaks = Vec::new();
    for y in 1..lap.rows() - 1 {
        if (f64::from(y) + 0.5 - cy).abs() > ry {
            continue;
        }
        for x in 1..lap.cols() - 1 {
            if (f64::from(x) + 0.5 - cx).abs() > rx {
                continue;
            }
            let v = at(x, y);
            if v <= 0.0 {
                continue;
            }
            let is_max = (-1..=1).all(|dy| (-1..=1).all(|dx| (dx == 0 && dy == 0) || at(x + dx, y + dy) <= v));
            if is_max {
                let sub = |a: f32, b: f32, c: f32| ncc::parabola(f64::from(a), f64::from(b), f64::from(c));
                let ox = sub(at(x - 1, y), v, at(x + 1, y));
                let oy = sub(at(x, y - 1), v, at(x, y + 1));
                peaks.push(([f64::from(r.x) + f64::from(x) + 0.5 + ox, f64::from(r.y) + f64::from(y) + 0.5 + oy], f64::from(v)));
            }
        }
    }
    peaks.sort_by(|a, b| b.1.total_cmp(&a.1));
    // Keep peaks at least a third of an iris apart.
    let mut kept: Vec<(Point, f64)> = Vec::with_capacity(k);
    for (q, v) in peaks {
        if kept.iter().all(|(o, _)| dist(*o, q) > 0.06 * iod) {
            kept.push((q, v));
            if kept.len() == k {
                break;
            }
        }
    }
    Ok(kept)
}

/// The iris candidate nearest `p` (an eye cascade's box centre), or `p` if none.
///
/// # Errors
/// OpenCV failures.
pub fn nearest_iris(gray: &Mat, p: Point, iod: f64) -> Result<Point, opencv::Error> {
    let d = |q: &Point| (q[0] - p[0]).powi(2) + (q[1] - p[1]).powi(2);
    Ok(iris_candidates(gray, p, iod, 5)?.into_iter().map(|(q, _)| q).min_by(|a, b| d(a).total_cmp(&d(b))).unwrap_or(p))
}

/// The eye centres near a blink's blobs. Each eye's iris candidates are tried
/// in pairs, and the pair whose two eye regions are the best mirror images of
/// each other wins: a glasses rim or a shadow beside one eye is not mirrored
/// at the same place beside the other.
///
/// # Errors
/// OpenCV failures.
pub fn refine_eye_pair(gray: &Mat, le: Point, re: Point, iod: f64) -> Result<(Point, Point), opencv::Error> {
    let mut lc: Vec<Point> = iris_candidates(gray, le, iod, 5)?.into_iter().map(|(p, _)| p).collect();
    let mut rc: Vec<Point> = iris_candidates(gray, re, iod, 5)?.into_iter().map(|(p, _)| p).collect();
    // The blobs themselves sit on the lids: only a fallback when no iris shows.
    if lc.is_empty() {
        lc.push(le);
    }
    if rc.is_empty() {
        rc.push(re);
    }
    #[allow(clippy::cast_possible_truncation)]
    let (w, h) = ((0.5 * iod).round().max(6.0) as i32, (0.3 * iod).round().max(4.0) as i32);
    let (mut a, mut b, mut flipped, mut corr) = (Mat::default(), Mat::default(), Mat::default(), Mat::default());
    let mut best = (f64::NEG_INFINITY, le, re);
    for l in &lc {
        if !ncc::extract(gray, *l, w, h, &mut a)? {
            continue;
        }
        core::flip(&a, &mut flipped, 1)?;
        for r in &rc {
            let d = dist(*l, *r);
            if !(0.8 * iod..=1.25 * iod).contains(&d) || !ncc::extract(gray, *r, w, h, &mut b)? {
                continue;
            }
            // Mirror likeness, less a little for wandering from where the motion said.
            let wander = (dist(*l, le) + dist(*r, re)) / iod;
            let score = ncc::correlate(&b, &flipped, &mut corr)? - WANDER_COST * wander;
            if score > best.0 {
                best = (score, *l, *r);
            }
        }
    }
    Ok((best.1, best.2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::synth::{Action, FaceAsset, Generator, ScriptEvent, SynthConfig, default_photo, gray_frame};

    fn still_face_with_blink() -> (Generator, SynthConfig) {
        let mut cfg = SynthConfig::demo();
        cfg.still_until_s = 100.0;
        cfg.script = vec![ScriptEvent { start_ms: 300.0, action: Action::Blink { closed_ms: 100.0 } }];
        (Generator::new(FaceAsset::load(&default_photo()).expect("photo"), cfg.clone()).expect("generator"), cfg)
    }

    #[test]
    fn a_blink_between_two_frames_gives_the_eye_pair() {
        let (mut g, _) = still_face_with_blink();
        let mut b = BlinkLink::default();
        let (open, row) = gray_frame(&mut g, 8);
        let (closed, _) = gray_frame(&mut g, 11);
        assert!(b.feed(&open).expect("feed").is_none(), "one frame is no difference");
        let pair = b.feed(&closed).expect("feed").expect("the blink gives a pair");
        let (le, re) = (row.le.expect("le"), row.re.expect("re"));
        let iod = pair.iod();
        assert!(dist(pair.le, le) < 0.25 * iod, "{pair:?} vs {le:?}");
        assert!(dist(pair.re, re) < 0.25 * iod, "{pair:?} vs {re:?}");
    }

    #[test]
    fn sensor_noise_alone_gives_no_pair() {
        let (mut g, _) = still_face_with_blink();
        let mut b = BlinkLink::default();
        for i in 0..6 {
            let (f, _) = gray_frame(&mut g, i);
            assert!(b.feed(&f).expect("feed").is_none(), "frame {i}");
        }
    }

    #[test]
    fn the_iris_is_found_near_a_rough_guess() {
        let (mut g, _) = still_face_with_blink();
        let (f, row) = gray_frame(&mut g, 0);
        let (le, re) = (row.le.expect("le"), row.re.expect("re"));
        let iod = dist(le, re);
        let (l, r) = refine_eye_pair(&f, [le[0] + 5.0, le[1] - 4.0], [re[0] - 4.0, re[1] + 3.0], iod).expect("refine");
        for (got, want) in [(l, le), (r, re)] {
            assert!(dist(got, want) < 0.08 * iod, "{got:?} vs {want:?}");
        }
    }
}
