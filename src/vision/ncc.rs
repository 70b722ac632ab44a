//! Normalized-correlation template search (Camera Mouse, BlinkLink): OpenCV
//! `matchTemplate`'s `TM_CCOEFF_NORMED` in a window (computed directly, in
//! integers, for 8-bit grey; a search finishes only the places that can
//! still be the best), and a sub-pixel peak.

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

/// Searches `tmpl` around `c`, up to `rx`, `ry` pixels away. `result` is a
/// reused buffer; it is left holding the correlation only where it could be
/// the best (and at the best's neighbours), [`BELOW_BEST`] elsewhere.
/// `Ok(None)` when the window does not fit in the image.
///
/// # Errors
/// OpenCV failures.
pub fn search(img: &Mat, tmpl: &Mat, c: Point, rx: i32, ry: i32, result: &mut Mat) -> Result<Option<Match>, opencv::Error> {
    search_in(img, tmpl, c, [rx, ry], result, false)
}

/// [`search`], leaving the correlation at every place in `result` (for
/// other peaks than the best).
///
/// # Errors
/// OpenCV failures.
pub fn search_map(img: &Mat, tmpl: &Mat, c: Point, rx: i32, ry: i32, result: &mut Mat) -> Result<Option<Match>, opencv::Error> {
    search_in(img, tmpl, c, [rx, ry], result, true)
}

fn search_in(img: &Mat, tmpl: &Mat, c: Point, [rx, ry]: [i32; 2], result: &mut Mat, every_place: bool) -> Result<Option<Match>, opencv::Error> {
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
    if direct_fits(img, tmpl) {
        direct(&GreyRows::of_window(img, win)?, tmpl, result, every_place)?;
    } else {
        imgproc::match_template_def(&Mat::roi(img, win)?, tmpl, result, imgproc::TM_CCOEFF_NORMED)?;
    }
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

/// Up to this many template pixels the cross term of a place fits in 32
/// bits (255² × 33 000 < 2³¹); [`match_into`] takes OpenCV beyond.
const DIRECT_MAX_PIXELS: i64 = 33_000;

/// `TM_CCOEFF_NORMED` of `tmpl` at every place in `view`, into `result`:
/// directly for 8-bit grey templates up to `DIRECT_MAX_PIXELS`, else
/// through OpenCV. Measured (`cargo bench -p facemouse-bench --bench pipeline -- ncc_`, see
/// `docs/performance.md`), the direct sums cost less than OpenCV's DFT at
/// every size tracking searches.
fn match_into(view: &Mat, tmpl: &Mat, result: &mut Mat) -> Result<(), opencv::Error> {
    if direct_fits(view, tmpl) {
        ncc_direct(view, tmpl, result)
    } else {
        imgproc::match_template_def(view, tmpl, result, imgproc::TM_CCOEFF_NORMED)
    }
}

/// Whether the direct correlation takes `tmpl` in `img`: both 8-bit grey,
/// the template up to `DIRECT_MAX_PIXELS`.
fn direct_fits(img: &impl MatTraitConst, tmpl: &Mat) -> bool {
    img.typ() == core::CV_8UC1 && tmpl.typ() == core::CV_8UC1 && i64::from(tmpl.cols()) * i64::from(tmpl.rows()) <= DIRECT_MAX_PIXELS
}

/// The rows of an 8-bit grey image, or of a window of it: one slice of the
/// whole when it is continuous (one call into OpenCV, not one a row, which
/// cost more than the correlation itself for small windows), else row by row.
enum GreyRows<'a> {
    Whole { data: &'a [u8], step: usize, x: usize, y: usize, cols: usize, rows: usize },
    Each(Vec<&'a [u8]>),
}

impl<'a> GreyRows<'a> {
    fn of(m: &'a impl MatTraitConst) -> Result<Self, opencv::Error> {
        Self::of_window(m, Rect::new(0, 0, m.cols(), m.rows()))
    }

    /// The rows of `win` (inside `m`).
    fn of_window(m: &'a impl MatTraitConst, win: Rect) -> Result<Self, opencv::Error> {
        let (x, y, cols, rows) = (win.x as usize, win.y as usize, win.width as usize, win.height as usize);
        if m.is_continuous() {
            Ok(Self::Whole { data: m.data_bytes()?, step: m.cols() as usize, x, y, cols, rows })
        } else {
            (win.y..win.y + win.height).map(|r| m.at_row::<u8>(r).map(|row| &row[x..x + cols])).collect::<Result<_, _>>().map(Self::Each)
        }
    }

    fn cols(&self) -> usize {
        match self {
            Self::Whole { cols, .. } => *cols,
            Self::Each(rows) => rows.first().map_or(0, |r| r.len()),
        }
    }

    fn rows(&self) -> usize {
        match self {
            Self::Whole { rows, .. } => *rows,
            Self::Each(rows) => rows.len(),
        }
    }

    fn row(&self, r: usize) -> &'a [u8] {
        match self {
            Self::Whole { data, step, x, y, cols, .. } => &data[(y + r) * step + x..][..*cols],
            Self::Each(rows) => rows[r],
        }
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
    direct(&GreyRows::of(view)?, tmpl, result, true)
}

fn direct(view: &GreyRows<'_>, tmpl: &Mat, result: &mut Mat, every_place: bool) -> Result<(), opencv::Error> {
    let (tw, th) = (tmpl.cols(), tmpl.rows());
    // (The window's size came from OpenCV's, in i32.)
    let (cols, rows) = (i32::try_from(view.cols()).unwrap_or(i32::MAX), i32::try_from(view.rows()).unwrap_or(i32::MAX));
    let (rw, rh) = (cols - tw + 1, rows - th + 1);
    if rw <= 0 || rh <= 0 || tw <= 0 || th <= 0 {
        return Err(opencv::Error::new(core::StsBadSize, "the template is larger than the window"));
    }
    if result.rows() != rh || result.cols() != rw || result.typ() != core::CV_32F || !result.is_continuous() {
        *result = Mat::new_rows_cols_with_default(rh, rw, core::CV_32F, core::Scalar::all(0.0))?;
    }
    // Pruning pays only over enough places (`cargo bench -p facemouse-bench --bench pipeline -- ncc_`).
    let every_place = every_place || rw * rh < PRUNE_MIN_PLACES;
    DIRECT_SCRATCH.with_borrow_mut(|scratch| if every_place { direct_into(view, tmpl, result, scratch) } else { direct_peak_into(view, tmpl, result, scratch) })
}

/// The buffers of [`ncc_direct`], kept between calls (one set a thread).
#[derive(Default)]
struct DirectScratch {
    /// The window's grey as pairs of neighbours: `(g[x], g[x + 1])` in the
    /// two 16-bit halves of one 32-bit word (the low half first), a row of
    /// `cols + PAIR_PAD` words (zeros past the row) after another.
    pairs: Vec<i32>,
    /// The template's grey as pairs `(t[2k], t[2k + 1])` the same way (an odd
    /// row's last pair ends in 0), a row after another.
    tpairs: Vec<i32>,
    /// Each template row's sum of grey and of its square.
    trows: Vec<(u64, u64)>,
    /// The cross term of every place.
    cross: Vec<i32>,
    /// Integral images of the window's grey and its square, one wider and higher.
    sum: Vec<f64>,
    sq: Vec<f64>,
    /// A window row's running sums of its grey and its square.
    prefix: Vec<i32>,
    prefix_sq: Vec<i32>,
}

/// Up to this many columns a row's running sum of squares fits in 32 bits
/// (255² × 33 000 < 2³¹).
const PREFIX_MAX_COLS: usize = 33_000;

thread_local! {
    static DIRECT_SCRATCH: std::cell::RefCell<DirectScratch> = std::cell::RefCell::new(DirectScratch::default());
}

/// Words past each window row of [`DirectScratch::pairs`]: the kernel reads
/// whole groups of places, up to 32 past the last one.
const PAIR_PAD: usize = 40;

/// Two 8-bit grey levels in the 16-bit halves of a word, `a` in the low one.
fn pair(a: u8, b: u8) -> i32 {
    i32::from(a) | (i32::from(b) << 16)
}

/// The correlation's inner loop (the cross term Σ template × window at
/// every place), in a module of its own: the CPU dispatch of
/// `multiversion` names `core`, which `opencv::core` shadows above.
///
/// Places are taken a group at a time, side by side in the lanes of SIMD
/// registers: for each pair of template taps, the pair broadcast to every
/// lane is multiplied with the window's pairs under the places and summed
/// in 32 bits in one instruction (`pmaddwd`, SSE2's and AVX2's). Exact in
/// integers, so every build and CPU gives the same numbers. With AVX2 (chosen
/// at run time) 8 places a register, 4 registers a group; without it
/// (SSE2, which every x86-64 has, or another CPU through `wide`), 4 places
/// a register, 8 registers a group.
mod kernel {
    /// The cross terms of the `rw` × `rh` places into `cross`. `pairs` holds
    /// the window's pairs, `pcols` words a row (at least the row and
    /// [`super::PAIR_PAD`]); `tpairs` the template's, `tp` a row, `th` rows.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn cross_terms(pairs: &[i32], pcols: usize, tpairs: &[i32], tp: usize, th: usize, rw: usize, rh: usize, cross: &mut [i32]) {
        for (ry, row) in cross.chunks_exact_mut(rw).take(rh).enumerate() {
            row.fill(0);
            for x0 in (0..rw).step_by(32) {
                partial(pairs, pcols, tpairs, tp, (0, th), ry, x0, &mut row[x0..(x0 + 32).min(rw)]);
            }
        }
    }

    /// Adds the cross terms of template rows `ty0..ty1` at the places
    /// `x0..x0 + acc.len()` (up to 32) of place row `ry` into `acc`; the
    /// arguments as [`cross_terms`]'s.
    #[multiversion::multiversion(targets("x86_64+avx2"))]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn partial(pairs: &[i32], pcols: usize, tpairs: &[i32], tp: usize, rows: (usize, usize), ry: usize, x0: usize, acc: &mut [i32]) {
        #[multiversion::target::target_cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
        #[multiversion::inherit_target]
        #[allow(clippy::too_many_arguments)]
        fn run(pairs: &[i32], pcols: usize, tpairs: &[i32], tp: usize, rows: (usize, usize), ry: usize, x0: usize, acc: &mut [i32]) {
            /// Places `x0..x0 + 8 G` of row `ry` (as many as `out` holds).
            #[multiversion::inherit_target]
            #[inline]
            #[allow(clippy::too_many_arguments)]
            fn group<const G: usize>(pairs: &[i32], pcols: usize, tpairs: &[i32], tp: usize, (ty0, ty1): (usize, usize), ry: usize, x0: usize, out: &mut [i32]) {
                use std::arch::x86_64::{__m256i, _mm256_add_epi32, _mm256_madd_epi16, _mm256_set1_epi32, _mm256_setzero_si256};
                let load = |s: &[i32]| -> __m256i {
                    let mut a = [0i32; 8];
                    a.copy_from_slice(&s[..8]);
                    bytemuck::cast(a)
                };
                let mut acc = [_mm256_setzero_si256(); G];
                for ty in ty0..ty1 {
                    let wrow = &pairs[(ry + ty) * pcols + x0..][..2 * tp + 8 * G];
                    for (k, &t) in tpairs[ty * tp..][..tp].iter().enumerate() {
                        let taps = _mm256_set1_epi32(t);
                        let under = &wrow[2 * k..2 * k + 8 * G];
                        for (g, a) in acc.iter_mut().enumerate() {
                            *a = _mm256_add_epi32(*a, _mm256_madd_epi16(load(&under[8 * g..]), taps));
                        }
                    }
                }
                for (chunk, a) in out.chunks_mut(8).zip(acc) {
                    let lanes: [i32; 8] = bytemuck::cast(a);
                    for (o, l) in chunk.iter_mut().zip(lanes) {
                        *o += l;
                    }
                }
            }
            match acc.len().div_ceil(8) {
                0 => {}
                1 => group::<1>(pairs, pcols, tpairs, tp, rows, ry, x0, acc),
                2 => group::<2>(pairs, pcols, tpairs, tp, rows, ry, x0, acc),
                3 => group::<3>(pairs, pcols, tpairs, tp, rows, ry, x0, acc),
                _ => group::<4>(pairs, pcols, tpairs, tp, rows, ry, x0, acc),
            }
        }
        #[multiversion::target::target_cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
        #[allow(clippy::too_many_arguments)]
        fn run(pairs: &[i32], pcols: usize, tpairs: &[i32], tp: usize, rows: (usize, usize), ry: usize, x0: usize, acc: &mut [i32]) {
            portable(pairs, pcols, tpairs, tp, rows, ry, x0, acc);
        }
        run(pairs, pcols, tpairs, tp, rows, ry, x0, acc);
    }

    /// The sum over place `x`'s `tw` columns between an integral image's
    /// `rows` (above and below the place).
    #[inline]
    fn rect([top, bottom]: [&[f64]; 2], x: usize, tw: usize) -> f64 {
        bottom[x + tw] + top[x] - top[x + tw] - bottom[x]
    }

    /// The coefficient's denominator at a place whose grey sums `si` and
    /// whose squares sum `sii`: 0 where the place is flat (next to no
    /// spread), which scores 0. The pruned search's bounds take it from
    /// here too: a place they called flat and [`normalize`] did not could
    /// be dropped while it is the best.
    #[inline]
    fn denominator(si: f64, sii: f64, t: super::TemplateStats) -> f64 {
        let var_i = (sii - si * si / t.n).max(0.0);
        if var_i <= (10.0 * f64::from(f32::EPSILON) * sii).min(0.5) { 0.0 } else { (var_i * t.var_t).sqrt() }
    }

    /// `below[x] = above[x] + prefix[x]`, in f64 (exact: integers below 2⁵³).
    #[multiversion::multiversion(targets("x86_64+avx2"))]
    pub(super) fn add_rows(above: &[f64], prefix: &[i32], below: &mut [f64]) {
        for ((b, &a), &p) in below.iter_mut().zip(above).zip(prefix) {
            *b = a + f64::from(p);
        }
    }

    /// The window's sums over each of `len` places (up to 32) and the
    /// coefficient's denominator there, as [`normalize`] computes them.
    #[multiversion::multiversion(targets("x86_64+avx2"))]
    pub(super) fn whole_sums(sum: [&[f64]; 2], sq: [&[f64]; 2], tw: usize, t: super::TemplateStats, len: usize, whole: &mut super::Whole) {
        for i in 0..len.min(32) {
            let (si, sii) = (rect(sum, i, tw), rect(sq, i, tw));
            whole.s[i] = si;
            whole.q[i] = sii;
            whole.den[i] = denominator(si, sii, t);
        }
    }

    /// Whether any place of a group can still reach `b.floor`: `done` are
    /// the integral images' rows above the places and below the template
    /// rows done (grey and its square), `acc` the places' cross terms over
    /// those rows. The covariance is what the rows done give, plus what the
    /// rows left give at most: their mean's share, and by Cauchy–Schwarz
    /// the template's spread there times the window's (compared squared,
    /// without a root). Written for the compiler to vectorize.
    #[multiversion::multiversion(targets("x86_64+avx2"))]
    pub(super) fn any_reaches(done: [&[f64]; 2], done_sq: [&[f64]; 2], tw: usize, whole: &super::Whole, acc: &[i32], b: super::Bound) -> bool {
        let mut reaches = false;
        let n = acc.len().min(32);
        for (i, (((&sit, &s), &q), &den)) in acc[..n].iter().zip(&whole.s[..n]).zip(&whole.q[..n]).zip(&whole.den[..n]).enumerate() {
            let (s_done, q_done) = (rect(done, i, tw), rect(done_sq, i, tw));
            let (s_rest, q_rest) = (s - s_done, q - q_done);
            let var_rest = (q_rest - s_rest * s_rest * b.rest.inv_n).max(0.0);
            let reached = f64::from(sit) - b.t_mean * s_done + b.rest.mean_less * s_rest;
            let short = b.floor * den - reached;
            // (`&` and `|`, not `&&` and `||`: no branch a place, so the loop vectorizes.)
            #[allow(clippy::nonminimal_bool, clippy::needless_bitwise_bool)]
            let reached_floor = (den > 0.0) & ((short <= 0.0) | (b.rest.spread2 * var_rest >= short * short));
            reaches |= reached_floor;
        }
        reaches
    }

    /// The coefficient at each place of a row from its cross term `sits`:
    /// `sum` and `sq` are the integral images' rows above and below the
    /// places (of the window's grey and its square), `tw` the template's
    /// width. As OpenCV does: a place with next to no spread scores 0, and
    /// rounding past ±1 is ±1. The same IEEE operations at every target
    /// (AVX2 four places at a time), so the same numbers.
    #[multiversion::multiversion(targets("x86_64+avx2"))]
    pub(super) fn normalize(sum: [&[f64]; 2], sq: [&[f64]; 2], tw: usize, sits: &[i32], t: super::TemplateStats, out: &mut [f32]) {
        for (rx, (o, &sit)) in out.iter_mut().zip(sits).enumerate() {
            let (si, sii) = (rect(sum, rx, tw), rect(sq, rx, tw));
            let cov = f64::from(sit) - si * t.st / t.n;
            let den = denominator(si, sii, t);
            *o = if cov.abs() < den {
                (cov / den) as f32
            } else if cov.abs() < den * 1.125 {
                cov.signum() as f32
            } else {
                0.0
            };
        }
    }

    /// [`partial`] in 128-bit registers (`wide`: SSE2 on x86-64, NEON on
    /// ARM, plain code elsewhere).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn portable(pairs: &[i32], pcols: usize, tpairs: &[i32], tp: usize, rows: (usize, usize), ry: usize, x0: usize, acc: &mut [i32]) {
        /// Places `x0..x0 + 4 G` of row `ry` (as many as `out` holds).
        #[inline]
        #[allow(clippy::too_many_arguments)]
        fn group<const G: usize>(pairs: &[i32], pcols: usize, tpairs: &[i32], tp: usize, (ty0, ty1): (usize, usize), ry: usize, x0: usize, out: &mut [i32]) {
            use wide::{i16x8, i32x4};
            let load = |s: &[i32]| -> i16x8 {
                let mut a = [0i32; 4];
                a.copy_from_slice(&s[..4]);
                bytemuck::cast(a)
            };
            let mut acc = [i32x4::ZERO; G];
            for ty in ty0..ty1 {
                let wrow = &pairs[(ry + ty) * pcols + x0..][..2 * tp + 4 * G];
                for (k, &t) in tpairs[ty * tp..][..tp].iter().enumerate() {
                    let taps: i16x8 = bytemuck::cast(i32x4::splat(t));
                    let under = &wrow[2 * k..2 * k + 4 * G];
                    for (g, a) in acc.iter_mut().enumerate() {
                        *a += load(&under[4 * g..]).dot(taps);
                    }
                }
            }
            for (chunk, a) in out.chunks_mut(4).zip(acc) {
                for (o, l) in chunk.iter_mut().zip(a.to_array()) {
                    *o += l;
                }
            }
        }
        match acc.len().div_ceil(4) {
            0 => {}
            1 => group::<1>(pairs, pcols, tpairs, tp, rows, ry, x0, acc),
            2 => group::<2>(pairs, pcols, tpairs, tp, rows, ry, x0, acc),
            3 => group::<3>(pairs, pcols, tpairs, tp, rows, ry, x0, acc),
            4 => group::<4>(pairs, pcols, tpairs, tp, rows, ry, x0, acc),
            5 => group::<5>(pairs, pcols, tpairs, tp, rows, ry, x0, acc),
            6 => group::<6>(pairs, pcols, tpairs, tp, rows, ry, x0, acc),
            7 => group::<7>(pairs, pcols, tpairs, tp, rows, ry, x0, acc),
            _ => group::<8>(pairs, pcols, tpairs, tp, rows, ry, x0, acc),
        }
    }
}

/// What [`prepare`] leaves for the cross terms and their normalization.
struct Prepared {
    tw: usize,
    th: usize,
    /// The places: `rw` a row, `rh` rows.
    rw: usize,
    rh: usize,
    /// Template pairs a row, window pairs a row, integral image columns.
    tp: usize,
    pcols: usize,
    vw: usize,
    stats: TemplateStats,
}

/// Fills `scratch` with the template's and the window's pairs and the
/// window's integral images; `None` for a flat template (which OpenCV
/// scores 1 at every place).
fn prepare(view: &GreyRows<'_>, tmpl: &GreyRows<'_>, scratch: &mut DirectScratch) -> Option<Prepared> {
    let (tw, th) = (tmpl.cols(), tmpl.rows());
    let (cols, rows) = (view.cols(), view.rows());
    let (rw, rh) = (cols - tw + 1, rows - th + 1);
    let DirectScratch { pairs, tpairs, trows, sum, sq, prefix, prefix_sq, .. } = scratch;
    let tp = tw.div_ceil(2);
    tpairs.clear();
    // (Sums of grey levels in integers: exact, as in f64 below 2⁵³, and
    // without f64's chain of dependent additions.)
    let (mut st, mut stt) = (0u64, 0u64);
    trows.clear();
    for y in 0..th {
        let row = tmpl.row(y);
        tpairs.extend(row.chunks(2).map(|p| pair(p[0], p.get(1).copied().unwrap_or(0))));
        let (s1, s2) = grey_sums(row);
        trows.push((s1, s2));
        st += s1;
        stt += s2;
    }
    let (st, stt) = (st as f64, stt as f64);
    let n = (tw * th) as f64;
    let var_t = stt - st * st / n;
    if var_t < f64::EPSILON {
        return None;
    }
    // The window in pairs, and the sums of its grey and its square over
    // every place (integral images, exact in f64: below 2⁵³).
    // (Every buffer is only grown: what a window reads is written below, and
    // zeroing them whole was a twentieth of a replay's instructions. The
    // pairs past a row are read only for places past the last one, whose
    // sums are not kept.)
    let pcols = cols + PAIR_PAD;
    grow(pairs, pcols * rows, 0);
    let vw = cols + 1;
    grow(sum, vw * (rows + 1), 0.0);
    grow(sq, vw * (rows + 1), 0.0);
    sum[..vw].fill(0.0);
    sq[..vw].fill(0.0);
    for y in 0..rows {
        let row = view.row(y);
        let packed = &mut pairs[y * pcols..][..cols];
        for (p, two) in packed.iter_mut().zip(row.windows(2)) {
            *p = pair(two[0], two[1]);
        }
        packed[cols - 1] = pair(row[cols - 1], 0);
        let (above, below) = sum.split_at_mut((y + 1) * vw);
        let (above_sq, below_sq) = sq.split_at_mut((y + 1) * vw);
        (below[0], below_sq[0]) = (0.0, 0.0);
        if cols <= PREFIX_MAX_COLS {
            // The row's running sums in integers, then added to the row above
            // (a loop the compiler vectorizes, with the conversions).
            prefix.resize(cols, 0);
            prefix_sq.resize(cols, 0);
            let (mut s1, mut s2) = (0i32, 0i32);
            for ((&v, p1), p2) in row.iter().zip(prefix.iter_mut()).zip(prefix_sq.iter_mut()) {
                s1 += i32::from(v);
                s2 += i32::from(v) * i32::from(v);
                (*p1, *p2) = (s1, s2);
            }
            kernel::add_rows(&above[y * vw + 1..(y + 1) * vw], prefix, &mut below[1..vw]);
            kernel::add_rows(&above_sq[y * vw + 1..(y + 1) * vw], prefix_sq, &mut below_sq[1..vw]);
        } else {
            let (mut s1, mut s2) = (0i64, 0i64);
            for (x, &v) in row.iter().enumerate() {
                s1 += i64::from(v);
                s2 += i64::from(v) * i64::from(v);
                #[allow(clippy::cast_precision_loss)] // below 2⁵³
                let (s1, s2) = (s1 as f64, s2 as f64);
                below[x + 1] = above[y * vw + x + 1] + s1;
                below_sq[x + 1] = above_sq[y * vw + x + 1] + s2;
            }
        }
    }
    Some(Prepared { tw, th, rw, rh, tp, pcols, vw, stats: TemplateStats { n, st, var_t } })
}

impl Prepared {
    /// The coefficients of the places `x0..x0 + out.len()` of place row `ry`
    /// from their cross terms `sits`.
    fn normalize(&self, scratch: &DirectScratch, ry: usize, x0: usize, sits: &[i32], out: &mut [f32]) {
        let (sums, squares) = self.rows(scratch, ry, x0, self.th);
        kernel::normalize(sums, squares, self.tw, sits, self.stats, out);
    }

    /// The integral images' rows (grey, and its square) above place row
    /// `ry` and `to` rows below it, from place `x0` on.
    fn rows<'s>(&self, scratch: &'s DirectScratch, ry: usize, x0: usize, to: usize) -> ([&'s [f64]; 2], [&'s [f64]; 2]) {
        let vw = self.vw;
        let (top, bottom) = (ry * vw + x0..(ry + 1) * vw, (ry + to) * vw + x0..(ry + to + 1) * vw);
        ([&scratch.sum[top.clone()], &scratch.sum[bottom.clone()]], [&scratch.sq[top], &scratch.sq[bottom]])
    }
}

fn direct_into(view: &GreyRows<'_>, tmpl: &Mat, result: &mut Mat, scratch: &mut DirectScratch) -> Result<(), opencv::Error> {
    let Some(p) = prepare(view, &GreyRows::of(tmpl)?, scratch) else {
        // A flat template matches everywhere alike: OpenCV gives 1.
        result.set_to_def(&core::Scalar::all(1.0))?;
        return Ok(());
    };
    let Prepared { th, rw, rh, tp, pcols, .. } = p;
    let mut cross = std::mem::take(&mut scratch.cross);
    grow(&mut cross, rw * rh, 0);
    kernel::cross_terms(&scratch.pairs, pcols, &scratch.tpairs, tp, th, rw, rh, &mut cross[..rw * rh]);
    for (ry, (sits, out)) in cross.chunks_exact(rw).zip(result.data_typed_mut::<f32>()?.chunks_exact_mut(rw)).enumerate() {
        p.normalize(scratch, ry, 0, sits, out);
    }
    scratch.cross = cross;
    Ok(())
}

/// What the template holds from a block's first row on: one over its pixel
/// count, its mean there less its whole mean, and its spread there (the sum
/// of its squared differences from that mean).
#[derive(Clone, Copy)]
struct Rest {
    inv_n: f64,
    mean_less: f64,
    spread2: f64,
}

/// A group of places' bound after some blocks of template rows: the
/// template's mean, what it holds in the rows left, and the coefficient a
/// place must be able to reach to stay.
#[derive(Clone, Copy)]
struct Bound {
    t_mean: f64,
    rest: Rest,
    floor: f64,
}

/// For each place of a group (up to 32): the window's grey summed over the
/// place, its square summed, and the coefficient's denominator (0 where
/// the place is flat and scores 0).
struct Whole {
    s: [f64; 32],
    q: [f64; 32],
    den: [f64; 32],
}

impl Default for Whole {
    fn default() -> Self {
        Self { s: [0.0; 32], q: [0.0; 32], den: [0.0; 32] }
    }
}

impl Whole {
    /// The sums of the places `x0..x0 + len` of place row `ry`, as
    /// [`kernel::normalize`] takes them.
    fn take(&mut self, p: &Prepared, scratch: &DirectScratch, ry: usize, x0: usize, len: usize) {
        let (sums, squares) = p.rows(scratch, ry, x0, p.th);
        kernel::whole_sums(sums, squares, p.tw, p.stats, len, self);
    }
}

/// Below this many places a search correlates at every place: the bounds
/// cost about what they save (an eye's 11 × 11 places, measured).
const PRUNE_MIN_PLACES: i32 = 150;

/// A place the pruned correlation did not finish: it cannot be the best.
pub const BELOW_BEST: f32 = f32::NEG_INFINITY;

/// How far under the best so far a place's bound must fall to be dropped:
/// far more than the rounding of the bound and of the coefficient.
const PRUNE_MARGIN: f64 = 1e-3;

/// [`direct_into`] for the best place only, exactly: the bounded partial
/// correlation of Di Stefano, Mattoccia and Tombari (2005). The template's
/// rows are taken in up to four blocks; after each block but the last, a
/// group of places is dropped when none of them can reach the best
/// coefficient found so far, whatever the rest of the template gives: by
/// Cauchy–Schwarz, the rest's share of the covariance is at most the
/// product of the template's and the window's spreads there. Rows of
/// places are taken from the middle out, where a tracked template usually
/// is, so the best is known early. Every place that is finished gets the
/// very number [`direct_into`] gives; the others get [`BELOW_BEST`]. The
/// best place's four neighbours are always finished (the sub-pixel peak
/// reads them).
fn direct_peak_into(view: &GreyRows<'_>, tmpl: &Mat, result: &mut Mat, scratch: &mut DirectScratch) -> Result<(), opencv::Error> {
    let tmpl = GreyRows::of(tmpl)?;
    let Some(p) = prepare(view, &tmpl, scratch) else {
        result.set_to_def(&core::Scalar::all(1.0))?;
        return Ok(());
    };
    let Prepared { tw, th, rw, rh, tp, pcols, stats, .. } = p;
    // The blocks' first rows, and what the template holds from each on (`Rest`).
    let mut starts = [0, th / 8, th / 4, th / 2, 3 * th / 4];
    let blocks = {
        let mut n = 1;
        for k in 1..starts.len() {
            if starts[k] > starts[n - 1] {
                starts[n] = starts[k];
                n += 1;
            }
        }
        n
    };
    let starts = &starts[..blocks];
    let t_mean = stats.st / stats.n;
    let mut rest = [Rest { inv_n: 0.0, mean_less: 0.0, spread2: 0.0 }; 5];
    for (r, &from) in rest.iter_mut().zip(starts) {
        let (s, ss) = scratch.trows[from..th].iter().fold((0, 0), |(a, b), &(c, d)| (a + c, b + d));
        #[allow(clippy::cast_precision_loss)]
        let (s, ss, m) = (s as f64, ss as f64, ((th - from) * tw) as f64);
        *r = Rest { inv_n: 1.0 / m, mean_less: s / m - t_mean, spread2: (ss - s * s / m).max(0.0) };
    }
    let values = result.data_typed_mut::<f32>()?;
    let mut best = f64::NEG_INFINITY;
    let mut acc = [0i32; 32];
    let mut whole = Whole::default();
    // The middle row first, then one below and one above, and so on.
    let middle = (rh - 1) / 2;
    let order = (0..2 * rh).map(|k| if k % 2 == 0 { middle.wrapping_sub(k / 2) } else { middle + k.div_ceil(2) }).filter(|&r| r < rh);
    for ry in order {
        for x0 in (0..rw).step_by(32) {
            let len = (rw - x0).min(32);
            let acc = &mut acc[..len];
            acc.fill(0);
            let mut dropped = false;
            let mut sums_taken = false;
            for (k, &from) in starts.iter().enumerate() {
                let to = starts.get(k + 1).copied().unwrap_or(th);
                kernel::partial(&scratch.pairs, pcols, &scratch.tpairs, tp, (from, to), ry, x0, acc);
                if to == th || best <= PRUNE_MARGIN {
                    continue;
                }
                if !sums_taken {
                    whole.take(&p, scratch, ry, x0, len);
                    sums_taken = true;
                }
                let (done, done_sq) = p.rows(scratch, ry, x0, to);
                let bound = Bound { t_mean, rest: rest[k + 1], floor: best - PRUNE_MARGIN };
                if !kernel::any_reaches(done, done_sq, tw, &whole, acc, bound) {
                    dropped = true;
                    break;
                }
            }
            let row = &mut values[ry * rw + x0..][..len];
            if dropped {
                row.fill(BELOW_BEST);
            } else {
                p.normalize(scratch, ry, x0, acc, row);
                best = row.iter().fold(best, |b, &v| b.max(f64::from(v)));
            }
        }
    }
    // The best place's neighbours, for the sub-pixel peak.
    // (A neighbour finished here was dropped, so it is below the best: it is never taken for a peak.)
    for i in 0..rw * rh {
        #[allow(clippy::float_cmp)] // the best is one of the values
        if f64::from(values[i]) != best {
            continue;
        }
        let (x, y) = (i % rw, i / rw);
        for (nx, ny) in [(x.wrapping_sub(1), y), (x + 1, y), (x, y.wrapping_sub(1)), (x, y + 1)] {
            if nx < rw && ny < rh && values[ny * rw + nx] == BELOW_BEST {
                let mut sit = [0i32];
                kernel::partial(&scratch.pairs, pcols, &scratch.tpairs, tp, (0, th), ny, nx, &mut sit);
                p.normalize(scratch, ny, nx, &sit, &mut values[ny * rw + nx..][..1]);
            }
        }
    }
    Ok(())
}

/// The sum of a row's grey levels and of their squares.
fn grey_sums(row: &[u8]) -> (u64, u64) {
    row.iter().fold((0, 0), |(s, q), &v| (s + u64::from(v), q + u64::from(v) * u64::from(v)))
}

/// Makes `v` at least `len` long (what it held stays).
fn grow<T: Copy>(v: &mut Vec<T>, len: usize, fill: T) {
    if v.len() < len {
        v.resize(len, fill);
    }
}

/// What [`kernel::normalize`] needs of the template: its pixel count, the
/// sum of its grey and that grey's variance times the count.
#[derive(Clone, Copy)]
struct TemplateStats {
    n: f64,
    st: f64,
    var_t: f64,
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

    /// Both kernels (AVX2 where the CPU has it, and the portable one every
    /// machine can run) give the exact cross terms of a plain sum, for odd
    /// and even template widths and rows of places that fill no register
    /// group exactly (1 to 70 places).
    #[test]
    fn both_kernels_give_the_exact_cross_terms() {
        let mut rng = crate::lab::synth::Rng::new(11);
        for (tw, th, rw, rh) in [(1, 1, 1, 1), (5, 3, 7, 2), (22, 12, 7, 7), (35, 23, 21, 17), (31, 31, 43, 43), (8, 4, 70, 3), (41, 17, 9, 23), (2, 9, 33, 5)] {
            let (cols, rows) = (tw + rw - 1, th + rh - 1);
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let grey = |rng: &mut crate::lab::synth::Rng, n: usize| -> Vec<u8> { (0..n).map(|_| rng.uniform(0.0, 256.0) as u8).collect() };
            let (img, t) = (grey(&mut rng, cols * rows), grey(&mut rng, tw * th));
            let tp = tw.div_ceil(2);
            let tpairs: Vec<i32> = t.chunks(tw).flat_map(|row| row.chunks(2).map(|p| pair(p[0], p.get(1).copied().unwrap_or(0))).collect::<Vec<_>>()).collect();
            let pcols = cols + PAIR_PAD;
            let mut pairs = vec![0i32; pcols * rows];
            for y in 0..rows {
                for x in 0..cols {
                    pairs[y * pcols + x] = pair(img[y * cols + x], if x + 1 < cols { img[y * cols + x + 1] } else { 0 });
                }
            }
            let mut plain = vec![0i32; rw * rh];
            for ry in 0..rh {
                for rx in 0..rw {
                    plain[ry * rw + rx] = (0..th).flat_map(|ty| (0..tw).map(move |tx| (ty, tx))).map(|(ty, tx)| i32::from(t[ty * tw + tx]) * i32::from(img[(ry + ty) * cols + rx + tx])).sum();
                }
            }
            let (mut dispatched, mut portable, mut blocks) = (vec![0i32; rw * rh], vec![0i32; rw * rh], vec![0i32; rw * rh]);
            kernel::cross_terms(&pairs, pcols, &tpairs, tp, th, rw, rh, &mut dispatched);
            for (ry, (row, by_blocks)) in portable.chunks_exact_mut(rw).zip(blocks.chunks_exact_mut(rw)).enumerate() {
                for x0 in (0..rw).step_by(32) {
                    let end = (x0 + 32).min(rw);
                    kernel::portable(&pairs, pcols, &tpairs, tp, (0, th), ry, x0, &mut row[x0..end]);
                    // The template's rows in two blocks, added up: what the pruned search does.
                    kernel::partial(&pairs, pcols, &tpairs, tp, (0, th / 2), ry, x0, &mut by_blocks[x0..end]);
                    kernel::partial(&pairs, pcols, &tpairs, tp, (th / 2, th), ry, x0, &mut by_blocks[x0..end]);
                }
            }
            assert_eq!(dispatched, plain, "{tw}x{th}, {rw}x{rh} places: the dispatched kernel");
            assert_eq!(portable, plain, "{tw}x{th}, {rw}x{rh} places: the portable kernel");
            assert_eq!(blocks, plain, "{tw}x{th}, {rw}x{rh} places: the template's rows in two blocks");
        }
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

    /// The pruned search (every search tracking makes) gives the very match
    /// the correlation at every place gives: the same place, score and
    /// sub-pixel peak, on a face-like blob and on noise, for templates from
    /// an eye's to the feature's size, where the template is found and
    /// where it is not (another frame's patch). Every place it did not
    /// finish correlates below the best; and it did drop places.
    #[test]
    fn the_pruned_search_finds_what_every_place_finds() {
        let mut rng = crate::lab::synth::Rng::new(5);
        let mut noise = Mat::new_rows_cols_with_default(120, 160, CV_8UC1, Scalar::all(0.0)).expect("mat");
        for y in 0..120 {
            for x in 0..160 {
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let v = (120.0 + 60.0 * (f64::from(x) * 0.21).sin() * (f64::from(y) * 0.17).cos() + rng.uniform(-30.0, 30.0)) as u8;
                *noise.at_2d_mut::<u8>(y, x).expect("px") = v;
            }
        }
        let (blob, moved) = (blob_image(80.0, 60.0), blob_image(84.3, 57.6));
        let mut dropped = 0;
        for (from, to) in [(&blob, &moved), (&noise, &noise), (&blob, &noise)] {
            for (c, (tw, th, r)) in [([80.0, 60.0], (31, 31, 21)), ([80.0, 60.0], (45, 30, 12)), ([70.0, 55.0], (37, 33, 9)), ([90.0, 62.0], (49, 20, 14)), ([80.0, 60.0], (22, 12, 3))] {
                let mut t = Mat::default();
                assert!(extract(from, c, tw, th, &mut t).expect("extract"));
                let (mut every, mut pruned) = (Mat::default(), Mat::default());
                let want = search_map(to, &t, [c[0] + 2.0, c[1] - 1.0], r, r, &mut every).expect("search").expect("a match");
                let got = search(to, &t, [c[0] + 2.0, c[1] - 1.0], r, r, &mut pruned).expect("search").expect("a match");
                assert_eq!(got, want, "{tw}x{th} ±{r}");
                for y in 0..every.rows() {
                    for x in 0..every.cols() {
                        let (e, p) = (*every.at_2d::<f32>(y, x).expect("e"), *pruned.at_2d::<f32>(y, x).expect("p"));
                        if p == BELOW_BEST {
                            dropped += 1;
                            assert!(f64::from(e) < want.score, "{tw}x{th}: dropped ({x}, {y}) scores {e}, the best {}", want.score);
                        } else {
                            assert_eq!(p.to_bits(), e.to_bits(), "{tw}x{th}: ({x}, {y})");
                        }
                    }
                }
            }
        }
        assert!(dropped > 1000, "only {dropped} places dropped");
    }
}
