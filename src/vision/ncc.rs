//! Normalized-correlation template search (Camera Mouse, BlinkLink): OpenCV
//! `matchTemplate` with `TM_CCOEFF_NORMED` in a window, and a sub-pixel peak.

use opencv::core::{self, Mat, Rect};
use opencv::imgproc;
use opencv::prelude::*;

use crate::events::Point;

/// Up to this many places × template pixels, [`search`] computes the
/// correlation directly ([`ncc_direct`]); beyond, through OpenCV's DFT.
/// Measured on the development machine (`cargo bench --bench pipeline --
/// ncc_`): see `docs/performance.md`.
const DIRECT_MAX_WORK: i64 = 150_000;

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
    match_into(&view, tmpl, result)?;
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

/// `TM_CCOEFF_NORMED` of `tmpl` at every place in `view`, into `result`:
/// directly for 8-bit grey up to `DIRECT_MAX_WORK` (places × template
/// pixels), else through OpenCV.
fn match_into(view: &(impl MatTraitConst + opencv::core::ToInputArray), tmpl: &Mat, result: &mut Mat) -> Result<(), opencv::Error> {
    let places = i64::from(view.cols() - tmpl.cols() + 1) * i64::from(view.rows() - tmpl.rows() + 1);
    if view.typ() == core::CV_8UC1 && tmpl.typ() == core::CV_8UC1 && places * i64::from(tmpl.cols() * tmpl.rows()) <= DIRECT_MAX_WORK {
        ncc_direct(view, tmpl, result)
    } else {
        imgproc::match_template_def(view, tmpl, result, imgproc::TM_CCOEFF_NORMED)
    }
}

/// `TM_CCOEFF_NORMED` of the 8-bit `tmpl` at every place in the 8-bit
/// `view`, computed directly (sums over each place), into `result` (32-bit
/// float, one row per place). OpenCV's `matchTemplate` goes through a DFT,
/// which costs more than the sums for the small windows tracking searches.
/// As OpenCV: a flat place (no spread of grey) scores 0, and a flat
/// template 1 everywhere.
///
/// # Errors
/// OpenCV failures.
pub fn ncc_direct(view: &impl MatTraitConst, tmpl: &Mat, result: &mut Mat) -> Result<(), opencv::Error> {
    let (tw, th) = (tmpl.cols(), tmpl.rows());
    let (rw, rh) = (view.cols() - tw + 1, view.rows() - th + 1);
    if rw <= 0 || rh <= 0 || tw <= 0 || th <= 0 {
        return Err(opencv::Error::new(core::StsBadSize, "the template is larger than the window"));
    }
    if result.rows() != rh || result.cols() != rw || result.typ() != core::CV_32F {
        *result = Mat::new_rows_cols_with_default(rh, rw, core::CV_32F, core::Scalar::all(0.0))?;
    }
    DIRECT_SCRATCH.with_borrow_mut(|scratch| direct_into(view, tmpl, result, scratch))
}

/// The buffers of [`ncc_direct`], kept between calls (one set a thread).
#[derive(Default)]
struct DirectScratch {
    /// The window's and the template's grey, in 16-bit lanes.
    wide: Vec<i16>,
    twide: Vec<i16>,
    /// Integral images of the window's grey and its square, one wider and higher.
    sum: Vec<u64>,
    sq: Vec<u64>,
}

thread_local! {
    static DIRECT_SCRATCH: std::cell::RefCell<DirectScratch> = std::cell::RefCell::new(DirectScratch::default());
}

fn direct_into(view: &impl MatTraitConst, tmpl: &Mat, result: &mut Mat, scratch: &mut DirectScratch) -> Result<(), opencv::Error> {
    let (tw, th) = (tmpl.cols() as usize, tmpl.rows() as usize);
    let (cols, rows) = (view.cols() as usize, view.rows() as usize);
    let DirectScratch { wide, twide, sum, sq } = scratch;
    twide.clear();
    for y in 0..tmpl.rows() {
        twide.extend(tmpl.at_row::<u8>(y)?[..tw].iter().map(|&v| i16::from(v)));
    }
    let n = (tw * th) as f64;
    let st: f64 = twide.iter().map(|&v| f64::from(v)).sum();
    let stt: f64 = twide.iter().map(|&v| f64::from(v) * f64::from(v)).sum();
    let var_t = stt - st * st / n;
    if var_t < f64::EPSILON {
        // A flat template matches everywhere alike: OpenCV gives 1.
        result.set_to_def(&core::Scalar::all(1.0))?;
        return Ok(());
    }
    wide.clear();
    for y in 0..view.rows() {
        wide.extend(view.at_row::<u8>(y)?[..cols].iter().map(|&v| i16::from(v)));
    }
    // Sums of the window's grey and its square over every place.
    let vw = cols + 1;
    sum.clear();
    sum.resize(vw * (rows + 1), 0);
    sq.clear();
    sq.resize(vw * (rows + 1), 0);
    for y in 0..rows {
        let (mut s1, mut s2) = (0u64, 0u64);
        for x in 0..cols {
            let v = wide[y * cols + x].unsigned_abs();
            s1 += u64::from(v);
            s2 += u64::from(v) * u64::from(v);
            sum[(y + 1) * vw + x + 1] = sum[y * vw + x + 1] + s1;
            sq[(y + 1) * vw + x + 1] = sq[y * vw + x + 1] + s2;
        }
    }
    let rect = |a: &[u64], x: usize, y: usize| a[(y + th) * vw + x + tw] + a[y * vw + x] - a[y * vw + x + tw] - a[(y + th) * vw + x];
    for (ry, y) in (0..result.rows()).enumerate() {
        let out = result.at_row_mut::<f32>(y)?;
        for (rx, o) in out.iter_mut().enumerate() {
            // The products in 16-bit lanes, each row's sum in 32 bits (SSE2's
            // pmaddwd, which every x86-64 has), the whole in 64.
            let mut sit = 0i64;
            for (ty, trow) in twide.chunks_exact(tw).enumerate() {
                let start = (ry + ty) * cols + rx;
                let irow = &wide[start..start + tw];
                sit += i64::from(irow.iter().zip(trow).map(|(&i, &t)| i32::from(i) * i32::from(t)).sum::<i32>());
            }
            let (si, sii) = (rect(sum, rx, ry) as f64, rect(sq, rx, ry) as f64);
            // As OpenCV does: a place with next to no spread scores 0, and
            // rounding past ±1 is ±1.
            let var_i = (sii - si * si / n).max(0.0);
            let cov = sit as f64 - si * st / n;
            let den = if var_i <= (10.0 * f64::from(f32::EPSILON) * sii).min(0.5) { 0.0 } else { (var_i * var_t).sqrt() };
            *o = if cov.abs() < den {
                (cov / den) as f32
            } else if cov.abs() < den * 1.125 {
                cov.signum() as f32
            } else {
                0.0
            };
        }
    }
    Ok(())
}

/// Normalized correlation of two patches of the same size.
///
/// # Errors
/// OpenCV failures.
pub fn correlate(a: &Mat, b: &Mat, result: &mut Mat) -> Result<f64, opencv::Error> {
    if a.cols() != b.cols() || a.rows() != b.rows() || a.empty() {
        return Ok(0.0);
    }
    match_into(a, b, result)?;
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

    /// The direct correlation gives OpenCV's numbers, on a face-like blob,
    /// on noise, and where the window or the template is flat.
    #[test]
    fn direct_and_opencv_agree() {
        let blob = blob_image(80.0, 60.0);
        let mut noise = Mat::new_rows_cols_with_default(120, 160, opencv::core::CV_8UC1, opencv::core::Scalar::all(0.0)).expect("mat");
        let mut rng = crate::lab::synth::Rng::new(7);
        for y in 0..120 {
            for x in 0..160 {
                // Flat on the left quarter, noise elsewhere.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let v = if x < 40 { 90 } else { rng.uniform(0.0, 255.0) as u8 };
                *noise.at_2d_mut::<u8>(y, x).expect("px") = v;
            }
        }
        for img in [&blob, &noise] {
            for (c, (tw, th, r)) in [([80.0, 60.0], (22, 12, 3)), ([80.0, 60.0], (48, 24, 5)), ([30.0, 40.0], (24, 16, 4)), ([20.0, 60.0], (12, 8, 6)), ([80.0, 60.0], (35, 23, 10))] {
                let mut t = Mat::default();
                assert!(extract(img, c, tw, th, &mut t).expect("extract"));
                let (x, y) = (c[0] as i32 - tw / 2 - r, c[1] as i32 - th / 2 - r);
                let view = Mat::roi(img, Rect::new(x, y, tw + 2 * r, th + 2 * r)).expect("roi");
                let (mut a, mut b) = (Mat::default(), Mat::default());
                imgproc::match_template_def(&view, &t, &mut a, imgproc::TM_CCOEFF_NORMED).expect("opencv");
                ncc_direct(&view, &t, &mut b).expect("direct");
                assert_eq!((a.rows(), a.cols()), (b.rows(), b.cols()));
                for yy in 0..a.rows() {
                    for xx in 0..a.cols() {
                        let (p, q) = (*a.at_2d::<f32>(yy, xx).expect("a"), *b.at_2d::<f32>(yy, xx).expect("b"));
                        assert!((p - q).abs() < 1e-4, "{tw}x{th} at {c:?}, place ({xx}, {yy}): OpenCV {p}, direct {q}");
                    }
                }
            }
        }
    }
}
