//! Normalized-correlation template search (Camera Mouse, BlinkLink): OpenCV
//! `matchTemplate` with `TM_CCOEFF_NORMED` in a window, and a sub-pixel peak.

use opencv::core::{self, Mat, Rect};
use opencv::imgproc;
use opencv::prelude::*;

use crate::events::Point;

/// The best match of a template in a window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Match {
    /// The template's centre at the best match, in image pixels (sub-pixel).
    pub pos: Point,
    /// Its normalized correlation coefficient, −1..1.
    pub score: f64,
}

/// The rectangle of a `w`×`h` patch centred on `c` (rounded to pixels).
#[must_use]
pub fn patch_rect(c: Point, w: i32, h: i32) -> Rect {
    #[allow(clippy::cast_possible_truncation)]
    let (x, y) = ((c[0] - f64::from(w) / 2.0).round() as i32, (c[1] - f64::from(h) / 2.0).round() as i32);
    Rect::new(x, y, w, h)
}

/// The centre of a patch rectangle, the inverse of [`patch_rect`].
#[must_use]
pub fn rect_centre(r: Rect) -> Point {
    [f64::from(r.x) + f64::from(r.width) / 2.0, f64::from(r.y) + f64::from(r.height) / 2.0]
}

/// Whether `r` lies inside an image of `cols`×`rows`.
#[must_use]
pub fn inside(r: Rect, cols: i32, rows: i32) -> bool {
    r.x >= 0 && r.y >= 0 && r.width > 0 && r.height > 0 && r.x + r.width <= cols && r.y + r.height <= rows
}

/// Copies the `w`×`h` patch centred on `c` into `out`. `Ok(false)` when it is not inside the image.
///
/// # Errors
/// OpenCV failures.
pub fn extract(img: &Mat, c: Point, w: i32, h: i32, out: &mut Mat) -> Result<bool, opencv::Error> {
    let r = patch_rect(c, w, h);
    if !inside(r, img.cols(), img.rows()) {
        return Ok(false);
    }
    Mat::roi(img, r)?.copy_to(out)?;
    Ok(true)
}

/// The standard deviation of the grey levels in the `w`×`h` patch centred
/// on `c` (how much there is to see there), or `None` off the image.
///
/// # Errors
/// OpenCV failures.
pub fn spread(img: &Mat, c: Point, w: i32, h: i32) -> Result<Option<f64>, opencv::Error> {
    let r = patch_rect(c, w, h);
    if !inside(r, img.cols(), img.rows()) || w <= 0 || h <= 0 {
        return Ok(None);
    }
    patch_spread(&Mat::roi(img, r)?).map(Some)
}

/// The standard deviation of the grey levels of `patch`.
///
/// # Errors
/// OpenCV failures.
pub fn patch_spread(patch: &impl core::ToInputArray) -> Result<f64, opencv::Error> {
    let (mut mean, mut sd) = (core::Scalar::default(), core::Scalar::default());
    core::mean_std_dev(patch, &mut mean, &mut sd, &core::no_array())?;
    Ok(sd[0])
}

/// Offset of a parabola's vertex through three samples, in −0.5..0.5.
pub(crate) fn parabola(a: f64, b: f64, c: f64) -> f64 {
    let d = a - 2.0 * b + c;
    if d.abs() < 1e-12 { 0.0 } else { (0.5 * (a - c) / d).clamp(-0.5, 0.5) }
}

/// Searches `tmpl` around `c`, up to `rx`, `ry` pixels away. `result` is a reused buffer.
/// `Ok(None)` when the window does not fit in the image.
///
/// # Errors
/// OpenCV failures.
pub fn search(img: &Mat, tmpl: &Mat, c: Point, rx: i32, ry: i32, result: &mut Mat) -> Result<Option<Match>, opencv::Error> {
    let (tw, th) = (tmpl.cols(), tmpl.rows());
    if tw == 0 || th == 0 {
        return Ok(None);
    }
    let centre = patch_rect(c, tw, th);
    let x0 = (centre.x - rx).max(0);
    let y0 = (centre.y - ry).max(0);
    let x1 = (centre.x + tw + rx).min(img.cols());
    let y1 = (centre.y + th + ry).min(img.rows());
    if x1 - x0 < tw || y1 - y0 < th {
        return Ok(None);
    }
    let win = Rect::new(x0, y0, x1 - x0, y1 - y0);
    let view = Mat::roi(img, win)?;
    imgproc::match_template_def(&view, tmpl, result, imgproc::TM_CCOEFF_NORMED)?;
    let mut best = 0.0;
    let mut loc = core::Point::default();
    core::min_max_loc(result, None, Some(&mut best), None, Some(&mut loc), &core::no_array())?;
    if !best.is_finite() {
        return Ok(None);
    }
    let at = |x: i32, y: i32| -> f64 {
        if x < 0 || y < 0 || x >= result.cols() || y >= result.rows() {
            return best;
        }
        result.at_2d::<f32>(y, x).map_or(best, |v| f64::from(*v))
    };
    let dx = parabola(at(loc.x - 1, loc.y), best, at(loc.x + 1, loc.y));
    let dy = parabola(at(loc.x, loc.y - 1), best, at(loc.x, loc.y + 1));
    let top_left = [f64::from(x0 + loc.x) + dx, f64::from(y0 + loc.y) + dy];
    Ok(Some(Match { pos: [top_left[0] + f64::from(tw) / 2.0, top_left[1] + f64::from(th) / 2.0], score: best }))
}

/// Normalized correlation of two patches of the same size.
///
/// # Errors
/// OpenCV failures.
pub fn correlate(a: &Mat, b: &Mat, result: &mut Mat) -> Result<f64, opencv::Error> {
    if a.cols() != b.cols() || a.rows() != b.rows() || a.empty() {
        return Ok(0.0);
    }
    imgproc::match_template_def(a, b, result, imgproc::TM_CCOEFF_NORMED)?;
    let v = f64::from(*result.at_2d::<f32>(0, 0)?);
    Ok(if v.is_finite() { v } else { 0.0 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{Scalar, CV_8UC1};

    fn blob_image(cx: f64, cy: f64) -> Mat {
        let mut m = Mat::new_rows_cols_with_default(120, 160, CV_8UC1, Scalar::all(0.0)).expect("mat");
        for y in 0..120 {
            for x in 0..160 {
                let d2 = (f64::from(x) - cx).powi(2) / 40.0 + (f64::from(y) - cy).powi(2) / 18.0;
                let v = 40.0 + 180.0 * (-d2).exp() + 10.0 * (f64::from(x) * 0.7).sin();
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                {
                    *m.at_2d_mut::<u8>(y, x).expect("px") = v as u8;
                }
            }
        }
        m
    }

    #[test]
    fn finds_a_shifted_patch_to_a_fraction_of_a_pixel() {
        let a = blob_image(70.0, 60.0);
        let mut t = Mat::default();
        assert!(extract(&a, [70.0, 60.0], 24, 16, &mut t).expect("extract"));
        let b = blob_image(76.4, 57.3);
        let mut buf = Mat::default();
        let m = search(&b, &t, [70.0, 60.0], 10, 8, &mut buf).expect("search").expect("a match");
        assert!(m.score > 0.95, "{}", m.score);
        assert!((m.pos[0] - 76.4).abs() < 0.35, "{:?}", m.pos);
        assert!((m.pos[1] - 57.3).abs() < 0.35, "{:?}", m.pos);
    }

    #[test]
    fn a_window_outside_the_image_is_none() {
        let a = blob_image(70.0, 60.0);
        let mut t = Mat::default();
        assert!(extract(&a, [70.0, 60.0], 24, 16, &mut t).expect("extract"));
        assert!(!extract(&a, [2.0, 2.0], 24, 16, &mut Mat::default()).expect("extract"));
        let mut buf = Mat::default();
        assert!(search(&a, &t, [-100.0, -100.0], 5, 5, &mut buf).expect("search").is_none());
    }
}
