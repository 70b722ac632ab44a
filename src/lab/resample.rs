//! `facemouse resample`: a labelled sequence at a lower frame rate or a smaller
//! size, to measure how the trackers fare with slower or cheaper cameras than
//! the ones a sequence was recorded with (`docs/accuracy.md`).
//!
//! Every `every`-th frame is kept (the first, then every `every`-th), resized
//! by `scale` (area averaging, as a camera's smaller mode would). A kept frame
//! is labelled closed or raised when any frame since the last kept one is, so
//! a short blink between kept frames still counts: some such blinks are not
//! visible in any kept frame, which makes the recall a pessimistic figure.
//! The window looks back, not ahead: a blink is labelled from the first kept
//! frame at or after its start, the first that can show it. (Until the
//! twenty-third session it looked ahead, so a blink that began between two
//! kept frames was labelled from the frame before it began: a frame early,
//! a sixth of a second at 6 fps, against a scorer's tolerance of one frame.)
//!
//! With a [`Motion`], each frame is first moved as a talking, nodding head
//! moves in the image: it shifts, rolls, comes closer and turns (a turn
//! narrows the face sideways). The development clips are of people who sit
//! still; the people the product meets do not. The eyes, blinks and
//! expressions stay the real ones; the labelled points move with the frame.
//!
//! With a [`Light`], each frame is then seen as a cheap webcam sees a face lit
//! from behind (a lamp or a window in the room): the camera's exposure is set
//! by the bright background, so the face is dark and flat, the sensor's noise
//! shows, and the exposure hunts slowly up and down. The development clips
//! are all lit from the front.
//!
//! With a [`Hand`], a hand first slides over the upper face, rests there
//! and slides away again, over and over, following the labelled eyes: a
//! carer wiping the face, a user rubbing their eyes. Nothing may act while
//! it covers them, and the pointer must not go with it.
//!
//! With a JPEG quality, each frame is last compressed as a cheap webcam's
//! Motion-JPEG stream is, at that quality (blocks, ringing at the lids'
//! edges, smeared lashes).
//!
//! With [`Drops`], frames are dropped at random, as a webcam drops them when
//! the light is low or the machine is busy: the frames left come at uneven
//! intervals, each at its own recorded time (`t_ms`), and are labelled as
//! the kept frames of `every` are, by the frames since the last kept one.

use std::path::{Path, PathBuf};

use opencv::core::{Mat, Size};
use opencv::imgproc;
use opencv::prelude::*;
use opencv::videoio::{self, VideoWriter};

use crate::capture::{Frame, FrameSource, ReadOutcome, VideoFileSource};
use crate::lab::labels::{self, LabelRow, Meta, Sequence};

/// Resampling failures.
#[derive(Debug, thiserror::Error)]
pub enum ResampleError {
    #[error(transparent)]
    Labels(#[from] labels::LabelError),
    #[error(transparent)]
    Capture(#[from] crate::capture::CaptureError),
    #[error("cannot write {path}: {reason}")]
    Write { path: PathBuf, reason: String },
    #[error("resample needs a step of at least 1 and a scale in (0, 1], not {every} and {scale}")]
    Arguments { every: usize, scale: f64 },
    #[error("a JPEG quality is 1 to 100, not {0}")]
    Quality(i32),
    #[error("the share of frames to drop is 0 to 0.9, not {0}")]
    Drops(f64),
    #[error("OpenCV failed while resampling: {0}")]
    OpenCv(#[from] opencv::Error),
    #[error("cannot write the sequence: {0}")]
    Output(#[from] crate::fs::OutputError),
}

/// Head motion over time, the same for a seed: each of its five parts (the
/// shift sideways and up, the roll, the size, the turn) is a sum of three
/// slow swings (0.1 to 0.8 Hz, as a head sways while its owner talks), and
/// the shift up has nods on top (1.5 to 2.5 Hz, in bursts).
#[derive(Debug, Clone)]
pub struct Motion {
    /// Per part: (amplitude share, frequency in Hz, phase) of each swing.
    swings: [[(f64, f64, f64); 3]; 5],
    /// Nods: frequency (Hz), and the burst envelope's frequency (Hz) and phase.
    nod: (f64, f64, f64),
}

/// The largest excursion of each part: a shift of 6 % of the width and 5 %
/// of the height, a roll of 8°, a size 10 % larger or smaller, a turn of 20°
/// (the face narrows sideways as a turn narrows it; a turn's other signs,
/// the nose moving aside, are not made).
const MOTION_REACH: [f64; 5] = [0.06, 0.05, 8.0, 0.1, 20.0];
/// A nod moves the face up and down by this share of the frame's height.
const NOD_REACH: f64 = 0.02;

impl Motion {
    #[must_use]
    pub fn new(seed: u64) -> Self {
        let mut rng = crate::lab::synth::Rng::new(seed ^ 0x6d6f_7665);
        let mut swings = [[(0.0, 0.0, 0.0); 3]; 5];
        for part in &mut swings {
            let weights = [rng.uniform(0.2, 1.0), rng.uniform(0.2, 1.0), rng.uniform(0.2, 1.0)];
            let total: f64 = weights.iter().sum();
            for (swing, w) in part.iter_mut().zip(weights) {
                *swing = (w / total, rng.uniform(0.1, 0.8), rng.uniform(0.0, std::f64::consts::TAU));
            }
        }
        let nod = (rng.uniform(1.5, 2.5), rng.uniform(0.05, 0.15), rng.uniform(0.0, std::f64::consts::TAU));
        Self { swings, nod }
    }

    /// The part `k` at `t` seconds, in [-1, 1].
    fn part(&self, k: usize, t: f64) -> f64 {
        self.swings[k].iter().map(|(a, f, ph)| a * (std::f64::consts::TAU * f * t + ph).sin()).sum()
    }

    /// The affine map (2×3, pixels to pixels) of a `width`×`height` frame at `t_s` seconds.
    #[must_use]
    pub fn at(&self, t_s: f64, width: f64, height: f64) -> [[f64; 3]; 2] {
        let tau = std::f64::consts::TAU;
        // Nods come in bursts: only while the slow envelope is high.
        let burst = ((tau * self.nod.1 * t_s + self.nod.2).sin() - 0.5).max(0.0) * 2.0;
        let nod = burst * (tau * self.nod.0 * t_s).sin() * NOD_REACH * height;
        let shift = [self.part(0, t_s) * MOTION_REACH[0] * width, self.part(1, t_s) * MOTION_REACH[1] * height + nod];
        let roll = (self.part(2, t_s) * MOTION_REACH[2]).to_radians();
        let size = 1.0 + self.part(3, t_s) * MOTION_REACH[3];
        let turn = (self.part(4, t_s) * MOTION_REACH[4]).to_radians().cos();
        let (c, s) = (roll.cos(), roll.sin());
        // About the frame's centre: narrow sideways (the turn), scale, roll, shift.
        let (sx, sy) = (size * turn, size);
        let m = [[c * sx, -s * sy], [s * sx, c * sy]];
        let centre = [width / 2.0, height / 2.0];
        let tx = centre[0] + shift[0] - (m[0][0] * centre[0] + m[0][1] * centre[1]);
        let ty = centre[1] + shift[1] - (m[1][0] * centre[0] + m[1][1] * centre[1]);
        [[m[0][0], m[0][1], tx], [m[1][0], m[1][1], ty]]
    }
}

/// A hand seen from its back, fingers across the face, that slides in from
/// the image's right over the eyes and nose in `slide_ms`, rests there for
/// `rest_ms` (moving a little, as a hand does) and slides out to the left
/// in `slide_ms`, once every `period_ms` from `from_ms` to `to_ms`. Its skin
/// is as bright as the person's cheek under the same light, with shaded
/// fingers, dark gaps between them, creases and a mottle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hand {
    pub from_ms: f64,
    pub to_ms: f64,
    pub slide_ms: f64,
    pub rest_ms: f64,
    pub period_ms: f64,
    pub seed: u64,
}

impl Hand {
    /// The hand of `facemouse resample --hand SEED`: from 10 s on, every 4 s,
    /// it slides in for 0.5 s, rests 1.5 s and slides out.
    #[must_use]
    pub fn every_four_seconds(seed: u64) -> Self {
        Self { from_ms: 10_000.0, to_ms: f64::INFINITY, slide_ms: 500.0, rest_ms: 1500.0, period_ms: 4000.0, seed }
    }

    /// Where the hand's centre is across the face at `t_ms`, in eye
    /// distances from the point between the eyes (image x), or `None` when
    /// it is away.
    #[must_use]
    pub fn across(&self, t_ms: f64) -> Option<f64> {
        if !(self.from_ms..=self.to_ms).contains(&t_ms) || self.period_ms <= 0.0 {
            return None;
        }
        let ph = (t_ms - self.from_ms) % self.period_ms;
        let (slide, rest) = (self.slide_ms.max(1.0), self.rest_ms.max(0.0));
        if ph < slide {
            Some(HAND_OFF * (1.0 - ph / slide))
        } else if ph < slide + rest {
            Some(0.05 * ((ph - slide) / 300.0).sin())
        } else if ph < 2.0 * slide + rest {
            Some(-HAND_OFF * (ph - slide - rest) / slide)
        } else {
            None
        }
    }

    /// Draws the hand on the BGR `img` at `t_ms` over the face whose eyes
    /// are `le`, `re` (a frame without them, or without the hand then, is
    /// left as it is).
    ///
    /// # Errors
    /// OpenCV failures.
    pub fn draw(&self, img: &mut Mat, le: Option<crate::events::Point>, re: Option<crate::events::Point>, t_ms: f64) -> Result<(), opencv::Error> {
        let (Some(x), Some(le), Some(re)) = (self.across(t_ms), le, re) else { return Ok(()) };
        let iod = crate::events::dist(le, re);
        if iod.is_nan() || iod < 4.0 {
            return Ok(());
        }
        let mid = [f64::midpoint(le[0], re[0]), f64::midpoint(le[1], re[1])];
        let (w, h) = (img.cols(), img.rows());
        // The skin: the cheek below the point between the eyes, a little brighter.
        let (cx, cy, q) = (mid[0].round() as i32, (mid[1] + 0.7 * iod).round() as i32, ((0.15 * iod).round() as i32).max(2));
        let (x0, y0) = ((cx - q).max(0), (cy - q).max(0));
        let (x1, y1) = ((cx + q).min(w), (cy + q).min(h));
        if x1 <= x0 || y1 <= y0 {
            return Ok(());
        }
        let skin = crate::lab::synth::mean_bgr(img, opencv::core::Rect::new(x0, y0, x1 - x0, y1 - y0))?.map(|v| v * 1.1);
        let (hw, hh) = (2.6 * iod, 1.5 * iod);
        let (x0, y0) = (mid[0] + x * iod - hw / 2.0, mid[1] + 0.15 * iod - hh / 2.0);
        let mut rng = crate::lab::synth::Rng::new(self.seed ^ (t_ms.to_bits() >> 8));
        let fingers = 4.0;
        for y in (y0.floor() as i32).max(0)..((y0 + hh).ceil() as i32).min(h) {
            let v = (f64::from(y) - y0) / hh;
            if !(0.0..1.0).contains(&v) {
                continue;
            }
            // Across a finger: 0 at its middle, 1 at its edges.
            let f = (v * fingers).fract();
            let d = (f - 0.5).abs() * 2.0;
            let k = (v * fingers).floor();
            // (The two middle fingers reach furthest.)
            let reach = if (1.0..3.0).contains(&k) { 0.12 } else { 0.22 };
            for xx in (x0.floor() as i32).max(0)..((x0 + hw).ceil() as i32).min(w) {
                let u = (f64::from(xx) - x0) / hw;
                if !(0.0..1.0).contains(&u) || u < reach {
                    continue;
                }
                let palm = u > 0.55;
                // The gap between two fingers (not on the palm) is the face behind, in shadow.
                if !palm && d > 0.92 {
                    let p = img.at_2d_mut::<opencv::core::Vec3b>(y, xx)?;
                    for c in 0..3 {
                        p[c] = (f64::from(p[c]) * 0.5) as u8;
                    }
                    continue;
                }
                let shade = if palm { 5.0 } else { 25.0 * (1.0 - d * d) - 10.0 };
                let crease = if !palm && (u * 2.6 * iod / (0.09 * iod)).sin() > 0.97 { -18.0 } else { 0.0 };
                let mottle = 8.0 * ((u * 17.0 + v * 5.0).sin() * (v * 13.0 - u * 7.0).cos());
                let noise = 3.0 * rng.gauss_fast();
                let p = img.at_2d_mut::<opencv::core::Vec3b>(y, xx)?;
                for c in 0..3 {
                    p[c] = (skin[c] + shade + crease + mottle + noise).clamp(0.0, 255.0) as u8;
                }
            }
        }
        Ok(())
    }
}

/// Where a sliding hand starts and ends, in eye distances from the point between the eyes.
const HAND_OFF: f64 = 3.2;

/// A face lit from behind, the same for a seed: the face's contrast (its
/// grey levels times 0.35 to 0.55, plus 0 to 25), an exposure that drifts by
/// up to 15 % (0.05 to 0.2 Hz), sensor noise of 3 to 7 grey levels, and the
/// lamp itself, a bright disc in an upper corner.
#[derive(Debug, Clone)]
pub struct Light {
    contrast: f64,
    lift: f64,
    noise: f64,
    /// The exposure's drift: amplitude (share), frequency (Hz), phase.
    drift: (f64, f64, f64),
    /// The lamp is in the upper right corner (else the upper left).
    lamp_right: bool,
    seed: u64,
}

impl Light {
    #[must_use]
    pub fn new(seed: u64) -> Self {
        let mut rng = crate::lab::synth::Rng::new(seed ^ 0x6c69_6768);
        Self {
            contrast: rng.uniform(0.35, 0.55),
            lift: rng.uniform(0.0, 25.0),
            noise: rng.uniform(3.0, 7.0),
            drift: (rng.uniform(0.05, 0.15), rng.uniform(0.05, 0.2), rng.uniform(0.0, std::f64::consts::TAU)),
            lamp_right: rng.uniform(0.0, 1.0) < 0.5,
            seed,
        }
    }

    /// The gain on the face's grey levels at `t_s` seconds.
    #[must_use]
    pub fn gain(&self, t_s: f64) -> f64 {
        self.contrast * (1.0 + self.drift.0 * (std::f64::consts::TAU * self.drift.1 * t_s + self.drift.2).sin())
    }

    /// `frame` (8-bit, 3 channels) as this light shows it at `t_s`, the
    /// `index`th frame, into `out` (`dark` and `noise` are buffers).
    ///
    /// # Errors
    /// OpenCV failures.
    #[allow(clippy::cast_possible_truncation)]
    pub fn apply(&self, frame: &Mat, t_s: f64, index: usize, out: &mut Mat, (dark, noise): (&mut Mat, &mut Mat)) -> Result<(), opencv::Error> {
        frame.convert_to(dark, -1, self.gain(t_s), self.lift)?;
        let (w, h) = (dark.cols(), dark.rows());
        let centre = opencv::core::Point::new(if self.lamp_right { w * 9 / 10 } else { w / 10 }, h / 10);
        imgproc::circle(dark, centre, (w / 10).max(2), opencv::core::Scalar::all(250.0), -1, imgproc::LINE_AA, 0)?;
        if noise.rows() != h || noise.cols() != w {
            *noise = Mat::new_rows_cols_with_default(h, w, opencv::core::CV_16SC3, opencv::core::Scalar::all(0.0))?;
        }
        opencv::core::set_rng_seed((self.seed.wrapping_mul(1_000_003).wrapping_add(index as u64) & 0x7fff_ffff) as i32)?;
        opencv::core::randn(noise, &opencv::core::Scalar::all(0.0), &opencv::core::Scalar::all(self.noise))?;
        opencv::core::add(&*dark, &*noise, out, &opencv::core::no_array(), opencv::core::CV_8UC3)
    }
}

fn apply(m: &[[f64; 3]; 2], p: crate::events::Point) -> crate::events::Point {
    [m[0][0] * p[0] + m[0][1] * p[1] + m[0][2], m[1][0] * p[0] + m[1][1] * p[1] + m[1][2]]
}

/// Frames dropped at random: each frame that `every` keeps, the first
/// excepted, is dropped with probability `share`, drawn from `seed`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Drops {
    pub share: f64,
    pub seed: u64,
}

/// What `resample` does to a sequence (the module's documentation).
#[derive(Debug, Clone, Copy)]
pub struct Options<'a> {
    /// Keep every `every`th frame (1: all).
    pub every: usize,
    /// Scale each frame by this, in (0, 1].
    pub scale: f64,
    /// Move each frame as a talking head moves.
    pub motion: Option<&'a Motion>,
    /// Light the face from behind.
    pub light: Option<&'a Light>,
    /// Compress each frame at this JPEG quality (1 to 100).
    pub jpeg: Option<i32>,
    /// Drop frames at random.
    pub drops: Option<Drops>,
    /// A hand passing over the face.
    pub hand: Option<&'a Hand>,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Self { every: 1, scale: 1.0, motion: None, light: None, jpeg: None, drops: None, hand: None }
    }
}

/// Writes `src` kept every `every` frames (less the frames `drops` drops)
/// and scaled by `scale` to `out` (`video.avi`, `labels.csv`, `meta.json`),
/// each frame moved by `motion` first if there is one, then seen in
/// `light`, then compressed at JPEG quality `jpeg` (1 to 100); returns the
/// new metadata.
///
/// # Errors
/// A sequence that cannot be read, or an output that cannot be written.
pub fn resample(src: &Path, out: &Path, opts: &Options<'_>) -> Result<Meta, ResampleError> {
    let Options { every, scale, motion, light, jpeg, drops, hand } = *opts;
    if every == 0 || !(scale > 0.0 && scale <= 1.0) {
        return Err(ResampleError::Arguments { every, scale });
    }
    if let Some(q) = jpeg.filter(|q| !(1..=100).contains(q)) {
        return Err(ResampleError::Quality(q));
    }
    if let Some(d) = drops.filter(|d| !(0.0..=0.9).contains(&d.share)) {
        return Err(ResampleError::Drops(d.share));
    }
    let mut dropper = drops.map(|d| (crate::lab::synth::Rng::new(d.seed), d.share));
    let seq = Sequence::load(src)?;
    let werr = |path: &Path, reason: String| ResampleError::Write { path: path.to_path_buf(), reason };
    // Never onto the sequence it reads (that turned 450 frames into 2), nor through a link.
    let (path, csv, mj) = labels::sequence_outputs(out, &[src])?;
    let mut video = VideoFileSource::open(&seq.video())?;
    let (width, height) = (scaled(seq.meta.width, scale), scaled(seq.meta.height, scale));
    let size = Size::new(i32::try_from(width).unwrap_or(i32::MAX), i32::try_from(height).unwrap_or(i32::MAX));
    // The container's rate: the kept frames' average (their times are their own).
    let fps = seq.meta.fps / every as f64 * (1.0 - drops.map_or(0.0, |d| d.share));
    let tmp = crate::fs::create_beside_keeping_extension(&path, "part").map_err(|e| werr(&path, e.to_string()))?;
    let mut kept = Vec::new();
    let mut maps = Vec::new();
    let (w0, h0) = (f64::from(seq.meta.width), f64::from(seq.meta.height));
    let written = (|| {
        let name = tmp.to_str().ok_or_else(|| werr(&path, "the path is not UTF-8".into()))?;
        let mut writer = VideoWriter::new_with_backend(name, videoio::CAP_FFMPEG, VideoWriter::fourcc('M', 'J', 'P', 'G')?, fps, size, true)?;
        if !writer.is_opened()? {
            return Err(werr(&path, "OpenCV's FFmpeg backend cannot write Motion-JPEG AVI here".into()));
        }
        let (mut frame, mut small, mut moved) = (Frame::empty(), Mat::default(), Mat::default());
        let (mut lit, mut dark, mut noise) = (Mat::default(), Mat::default(), Mat::default());
        let (mut encoded, mut decoded) = (opencv::core::Vector::<u8>::new(), Mat::default());
        let jpeg_params = opencv::core::Vector::<i32>::from_slice(&[opencv::imgcodecs::IMWRITE_JPEG_QUALITY, jpeg.unwrap_or(95)]);
        let mut index = 0usize;
        while let ReadOutcome::Frame = video.read(&mut frame)? {
            // (A frame `every` skips draws nothing.)
            if index.is_multiple_of(every) && !(index > 0 && dropper.as_mut().is_some_and(|(rng, share)| rng.next_f64() < *share)) {
                let t_s = seq.rows.get(index).map_or(index as f64 / seq.meta.fps.max(1.0), |r| r.t_ms / 1000.0);
                if let Some(hand) = hand {
                    let row = seq.rows.get(index);
                    hand.draw(&mut frame.color, row.and_then(|r| r.le), row.and_then(|r| r.re), t_s * 1000.0)?;
                }
                let mut input = &frame.color;
                if let Some(motion) = motion {
                    let m = motion.at(t_s, w0, h0);
                    let mat = Mat::from_slice_2d(&[m[0].to_vec(), m[1].to_vec()])?;
                    let whole = Size::new(frame.color.cols(), frame.color.rows());
                    imgproc::warp_affine(&frame.color, &mut moved, &mat, whole, imgproc::INTER_LINEAR, opencv::core::BORDER_REPLICATE, opencv::core::Scalar::default())?;
                    input = &moved;
                    maps.push(m);
                }
                imgproc::resize(input, &mut small, size, 0.0, 0.0, imgproc::INTER_AREA)?;
                let mut shown = &small;
                if let Some(light) = light {
                    light.apply(&small, t_s, index, &mut lit, (&mut dark, &mut noise))?;
                    shown = &lit;
                }
                if jpeg.is_some() {
                    opencv::imgcodecs::imencode(".jpg", shown, &mut encoded, &jpeg_params)?;
                    opencv::imgcodecs::imdecode_to(&encoded, opencv::imgcodecs::IMREAD_COLOR, &mut decoded)?;
                    shown = &decoded;
                }
                writer.write(shown)?;
                kept.push(index);
            }
            index += 1;
        }
        writer.release()?;
        std::fs::rename(&tmp, &path).map_err(|e| werr(&path, e.to_string()))
    })();
    written.inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })?;

    let rows: Vec<LabelRow> = kept
        .iter()
        .enumerate()
        .filter_map(|(k, &i)| {
            // The frames since the last kept one: what happened between two
            // frames of the slower camera shows first on the next one.
            let from = if k == 0 { i.saturating_sub(every - 1) } else { kept[k - 1] + 1 };
            let span = seq.rows.get(from..=i)?;
            let own = span.last()?;
            let m = maps.get(k);
            let p = |q: Option<crate::events::Point>| q.map(|q| m.map_or(q, |m| apply(m, q))).map(|q| [q[0] * scale, q[1] * scale]);
            Some(LabelRow {
                frame: k as u64,
                eyes_closed: span.iter().any(|r| r.eyes_closed),
                brows_raised: span.iter().any(|r| r.brows_raised),
                le: p(own.le),
                re: p(own.re),
                lb: p(own.lb),
                rb: p(own.rb),
                nose: p(own.nose),
                mid: p(own.mid),
                // A moved frame's head pose is not the labelled one.
                yaw: if m.is_some() { None } else { own.yaw },
                pitch: if m.is_some() { None } else { own.pitch },
                roll: if m.is_some() { None } else { own.roll },
                ..own.clone()
            })
        })
        .collect();
    // A range of original frames becomes the kept frames inside it.
    let ranges = |rs: &[[u64; 2]]| -> Vec<[u64; 2]> {
        rs.iter()
            .filter_map(|[a, b]| {
                let inside: Vec<u64> = kept.iter().enumerate().filter(|(_, i)| (*a..=*b).contains(&(**i as u64))).map(|(k, _)| k as u64).collect();
                Some([*inside.first()?, *inside.last()?])
            })
            .collect()
    };
    let mut meta = seq.meta.clone();
    meta.synthetic_brow_raises = ranges(&seq.meta.synthetic_brow_raises);
    meta.subtle_raises = ranges(&seq.meta.subtle_raises);
    meta.fps = fps;
    meta.frames = rows.len() as u64;
    meta.width = width;
    meta.height = height;
    meta.extra.insert("resampled_from".into(), serde_json::json!({ "sequence": src.display().to_string(), "every": every, "scale": scale, "moved": motion.is_some(), "lit_from_behind": light.is_some(), "jpeg_quality": jpeg, "dropped": drops.map(|d| serde_json::json!({ "share": d.share, "seed": d.seed })) }));
    crate::profile::write_atomic(&csv, &labels::to_csv(&rows)).map_err(|e| werr(&csv, e.to_string()))?;
    let text = serde_json::to_string_pretty(&meta).map_err(|e| werr(&mj, e.to_string()))?;
    crate::profile::write_atomic(&mj, &(text + "\n")).map_err(|e| werr(&mj, e.to_string()))?;
    Ok(meta)
}

fn scaled(v: u32, scale: f64) -> u32 {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let s = (f64::from(v) * scale).round().max(1.0) as u32;
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::synth::{self, FaceAsset, SynthConfig};

    /// A generated 320×240 sequence in `src` (its script cleared unless `script`).
    fn generated(src: &Path, seed: u64, seconds: f64, iod_px: f64, script: bool) {
        let mut cfg = SynthConfig::random(seed, seconds, 30.0);
        (cfg.width, cfg.height, cfg.iod_px) = (320, 240, iod_px);
        if !script {
            cfg.script.clear();
        }
        synth::write_sequence(FaceAsset::load(&synth::default_photo()).expect("photo"), &cfg, src).expect("generate");
    }

    #[test]
    fn resampling_keeps_every_nth_frame_and_every_blink() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (src, out) = (tmp.path().join("src"), tmp.path().join("out"));
        generated(&src, 5, 6.0, 40.0, true);
        let meta = resample(&src, &out, &Options { every: 3, scale: 0.5, ..Options::default() }).expect("resample");
        let (a, b) = (Sequence::load(&src).expect("source"), Sequence::load(&out).expect("resampled"));
        assert_eq!(b.rows.len(), a.rows.len().div_ceil(3));
        assert_eq!((meta.width, meta.height), (160, 120));
        assert!((meta.fps - 10.0).abs() < 1e-9);
        let frames = opencv::videoio::VideoCapture::from_file(b.video().to_str().expect("utf-8"), opencv::videoio::CAP_ANY)
            .and_then(|c| c.get(opencv::videoio::CAP_PROP_FRAME_COUNT))
            .expect("the video opens");
        assert!((frames - b.rows.len() as f64).abs() < 0.5, "{frames} frames for {} rows", b.rows.len());
        let blinks = |s: &Sequence| Sequence::runs(s.rows.iter().map(|r| r.eyes_closed)).len();
        assert_eq!(blinks(&a), blinks(&b), "every blink survives");
        let (ra, rb) = (&a.rows[9], &b.rows[3]);
        let (le_a, le_b) = (ra.le.expect("eye"), rb.le.expect("eye"));
        assert!((le_a[0] * 0.5 - le_b[0]).abs() < 0.01 && (ra.t_ms - rb.t_ms).abs() < 0.1);
        assert!(resample(&src, &out, &Options { every: 0, scale: 0.5, ..Options::default() }).is_err()
            && resample(&src, &out, &Options { every: 2, scale: 1.5, ..Options::default() }).is_err()
            && resample(&src, &out, &Options { jpeg: Some(0), ..Options::default() }).is_err()
            && resample(&src, &out, &Options { drops: Some(Drops { share: 0.95, seed: 1 }), ..Options::default() }).is_err());
    }

    /// Each blink of the slower copy begins on the first kept frame at or
    /// after the source's blink began (the first a slower camera could show
    /// it on), never on the one before.
    #[test]
    fn a_blink_is_labelled_from_the_first_kept_frame_that_can_show_it() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (src, out) = (tmp.path().join("src"), tmp.path().join("out"));
        generated(&src, 5, 6.0, 40.0, true);
        let every = 4;
        resample(&src, &out, &Options { every, scale: 0.5, ..Options::default() }).expect("resample");
        let (a, b) = (Sequence::load(&src).expect("source"), Sequence::load(&out).expect("resampled"));
        let onsets = |s: &Sequence| Sequence::runs(s.rows.iter().map(|r| r.eyes_closed)).into_iter().map(|(start, _)| start).collect::<Vec<_>>();
        let (sa, sb) = (onsets(&a), onsets(&b));
        assert!(!sa.is_empty(), "the source blinks");
        let want: Vec<usize> = sa.iter().map(|s| s.div_ceil(every)).collect();
        assert_eq!(sb, want, "source onsets {sa:?}");
        // Some blink began between two kept frames, so the window mattered.
        assert!(sa.iter().any(|s| s % every != 0), "source onsets {sa:?}");
    }

    /// A camera that drops frames: about the share asked for is gone, the
    /// rest come at their own uneven times (and are played at them), each
    /// blink is labelled from the first frame left at or after its start,
    /// and the same seed drops the same frames.
    #[test]
    fn dropped_frames_leave_uneven_times_and_every_blink() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let src = tmp.path().join("src");
        generated(&src, 5, 6.0, 40.0, true);
        let dropped = |seed: u64, name: &str| {
            let out = tmp.path().join(name);
            resample(&src, &out, &Options { drops: Some(Drops { share: 0.3, seed }), ..Options::default() }).expect("resample");
            Sequence::load(&out).expect("the copy")
        };
        let a = Sequence::load(&src).expect("source");
        let (b, again, other) = (dropped(7, "b"), dropped(7, "again"), dropped(8, "other"));
        let share = 1.0 - b.rows.len() as f64 / a.rows.len() as f64;
        assert!((0.2..0.4).contains(&share), "{share:.2} of the frames dropped");
        let times = |s: &Sequence| s.rows.iter().map(|r| r.t_ms).collect::<Vec<_>>();
        assert_eq!(times(&b), times(&again), "the same seed, the same frames");
        assert_ne!(times(&b), times(&other), "another seed, other frames");
        let frames = opencv::videoio::VideoCapture::from_file(b.video().to_str().expect("utf-8"), opencv::videoio::CAP_ANY)
            .and_then(|c| c.get(opencv::videoio::CAP_PROP_FRAME_COUNT))
            .expect("the video opens");
        assert!((frames - b.rows.len() as f64).abs() < 0.5, "{frames} frames for {} rows", b.rows.len());
        let step = 1000.0 / a.meta.fps;
        let gaps: Vec<f64> = times(&b).windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.iter().any(|g| *g > 1.5 * step) && gaps.iter().any(|g| *g < 1.5 * step), "uneven gaps: {gaps:?}");
        assert!(matches!(b.source(), crate::capture::SourceSpec::Recorded { .. }), "played at its own times");
        let onsets = |s: &Sequence| Sequence::runs(s.rows.iter().map(|r| r.eyes_closed)).into_iter().map(|(start, _)| s.rows[start].t_ms).collect::<Vec<_>>();
        let (sa, sb) = (onsets(&a), onsets(&b));
        assert!(!sa.is_empty(), "the source blinks");
        let first_left = |t: f64| times(&b).into_iter().find(|&k| k >= t - 1e-9);
        assert_eq!(sb.iter().map(|&t| Some(t)).collect::<Vec<_>>(), sa.iter().map(|&t| first_left(t)).collect::<Vec<_>>(), "source onsets {sa:?}");
    }

    #[test]
    fn moved_frames_keep_their_labels_on_the_eyes() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (src, out) = (tmp.path().join("src"), tmp.path().join("out"));
        generated(&src, 9, 4.0, 50.0, false);
        let motion = Motion::new(3);
        resample(&src, &out, &Options { motion: Some(&motion), ..Options::default() }).expect("resample");
        let (a, b) = (Sequence::load(&src).expect("source"), Sequence::load(&out).expect("moved"));
        assert_eq!(a.rows.len(), b.rows.len());
        let frames = |s: &Sequence| {
            let mut video = VideoFileSource::open(&s.video()).expect("video");
            let (mut frame, mut all) = (Frame::empty(), Vec::new());
            while let ReadOutcome::Frame = video.read(&mut frame).expect("read") {
                all.push(frame.gray.clone());
            }
            all
        };
        let (fa, fb) = (frames(&a), frames(&b));
        let (mut moved_most, mut worst) = (0.0f64, f64::INFINITY);
        let (mut patch_a, mut patch_b, mut result) = (Mat::default(), Mat::default(), Mat::default());
        for k in (0..a.rows.len()).step_by(10) {
            let (ra, rb) = (&a.rows[k], &b.rows[k]);
            for (pa, pb) in [(ra.le, rb.le), (ra.re, rb.re)] {
                let (pa, pb) = (pa.expect("eye"), pb.expect("eye"));
                moved_most = moved_most.max(crate::events::dist(pa, pb));
                // The labelled eye of the moved frame looks like the one of the source frame.
                assert!(crate::vision::ncc::extract(&fa[k], pa, 20, 12, &mut patch_a).expect("patch"));
                assert!(crate::vision::ncc::extract(&fb[k], pb, 20, 12, &mut patch_b).expect("patch"));
                worst = worst.min(crate::vision::ncc::correlate(&patch_a, &patch_b, &mut result).expect("ncc"));
            }
            assert!(rb.yaw.is_none() && rb.roll.is_none(), "a moved frame has no labelled pose");
        }
        assert!(moved_most > 8.0, "the head moved only {moved_most:.1} px");
        assert!(worst > 0.8, "a labelled eye is off the moved eye: correlation {worst:.2}");
        // The same seed, the same motion; another seed, another.
        assert_eq!(Motion::new(3).at(1.3, 320.0, 240.0), motion.at(1.3, 320.0, 240.0));
        assert_ne!(Motion::new(4).at(1.3, 320.0, 240.0), motion.at(1.3, 320.0, 240.0));
    }

    /// The first frame of `s`, in grey.
    fn first_frame(s: &Sequence) -> Mat {
        let mut video = VideoFileSource::open(&s.video()).expect("video");
        let mut frame = Frame::empty();
        assert!(matches!(video.read(&mut frame).expect("read"), ReadOutcome::Frame));
        frame.gray.clone()
    }

    /// Lit from behind: the face darker and flatter, with the lamp in view;
    /// the labels are the source's; the same seed, the same light.
    #[test]
    fn a_face_lit_from_behind_is_dark_and_flat_with_the_lamp_in_view_and_its_labels() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (src, out) = (tmp.path().join("src"), tmp.path().join("out"));
        generated(&src, 9, 2.0, 50.0, false);
        let light = Light::new(5);
        resample(&src, &out, &Options { light: Some(&light), ..Options::default() }).expect("resample");
        let (a, b) = (Sequence::load(&src).expect("source"), Sequence::load(&out).expect("lit"));
        assert_eq!(a.rows, b.rows.iter().map(|r| LabelRow { frame: r.frame, ..r.clone() }).collect::<Vec<_>>());
        let (fa, fb) = (first_frame(&a), first_frame(&b));
        let le = a.rows[0].le.expect("eye");
        let (mut pa, mut pb) = (Mat::default(), Mat::default());
        assert!(crate::vision::ncc::extract(&fa, le, 30, 30, &mut pa).expect("patch") && crate::vision::ncc::extract(&fb, le, 30, 30, &mut pb).expect("patch"));
        let spread = |m: &Mat| {
            let (mut mean, mut sd) = (opencv::core::Scalar::default(), opencv::core::Scalar::default());
            opencv::core::mean_std_dev(m, &mut mean, &mut sd, &opencv::core::no_array()).expect("stats");
            (mean[0], sd[0])
        };
        let ((ma, sa), (mb, sb)) = (spread(&pa), spread(&pb));
        assert!(mb < 0.7 * ma && sb < 0.8 * sa, "the face is darker and flatter: mean {ma:.0} -> {mb:.0}, spread {sa:.1} -> {sb:.1}");
        // The lamp: a bright disc in an upper corner.
        let (w, h) = (fb.cols(), fb.rows());
        let lamp = [w / 10, w * 9 / 10].iter().map(|&x| *fb.at_2d::<u8>(h / 10, x).expect("px")).max().unwrap_or(0);
        assert!(lamp >= 230, "the lamp is in view: {lamp}");
        assert!((Light::new(5).gain(2.5) - light.gain(2.5)).abs() < 1e-12, "the same seed, the same light");
        assert!((Light::new(6).gain(2.5) - light.gain(2.5)).abs() > 1e-6, "another seed, another light");
    }

    /// A cheap webcam's Motion-JPEG: the harder the compression, the further
    /// each frame is from the source; the labels are the source's.
    #[test]
    fn a_lower_jpeg_quality_loses_more_of_the_face() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let src = tmp.path().join("src");
        generated(&src, 9, 1.0, 50.0, false);
        let a = Sequence::load(&src).expect("source");
        let fa = first_frame(&a);
        let mut loss = Vec::new();
        for q in [90, 40, 10] {
            let out = tmp.path().join(format!("q{q}"));
            resample(&src, &out, &Options { jpeg: Some(q), ..Options::default() }).expect("resample");
            let b = Sequence::load(&out).expect("compressed");
            assert_eq!(a.rows.len(), b.rows.len());
            assert_eq!(a.rows[0].le, b.rows[0].le);
            let fb = first_frame(&b);
            loss.push(opencv::core::norm2(&fa, &fb, opencv::core::NORM_L2, &opencv::core::no_array()).expect("norm"));
        }
        assert!(loss[0] < loss[1] && loss[1] < loss[2], "the error grows as the quality falls: {loss:?}");
        assert!(matches!(resample(&src, &tmp.path().join("bad"), &Options { jpeg: Some(101), ..Options::default() }), Err(ResampleError::Quality(101))));
    }
}
