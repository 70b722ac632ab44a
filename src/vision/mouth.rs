//! Speech: the mouth moving on its own, as it does when someone talks.
//!
//! People who talk move their brows: with stress, questions and surprise,
//! often as far and as long as a raise that is meant (public interview clips:
//! conversational lifts of 0.04 to 0.18 eye distances, held up to a second).
//! No size or length of the lift tells the two apart; what does is that the
//! mouth is moving. So while the person talks, no face gesture clicks.
//!
//! The measure: a patch of the lower face (mouth and chin) is taken in the
//! face's own frame (centred under the eyes, rotated and scaled with them),
//! and matched by normalized correlation, within a small shift, against the
//! same patch about a tenth of a second earlier. What the eyes' alignment
//! leaves (a nod, a head turning, blur) moves the nose beside it as much, so
//! the nose's own change is taken off. A mouth that opens, closes or changes
//! its shape changes its patch where the nose's does not.
//!
//! Talking is this change on a fair share of the frames of the last second:
//! the pauses between words leave the mouth still for a moment, and a single
//! movement of the lips (a swallow, lips parting) is not speech.

use std::collections::VecDeque;

use opencv::core::{Mat, Size};
use opencv::prelude::*;

use super::params::{SPEECH_ACTIVE, SPEECH_LAG_MS, SPEECH_MIN_FRAMES, SPEECH_MOUTH, SPEECH_NOSE, SPEECH_SHARE, SPEECH_STALE_MS, SPEECH_WINDOW_MS};
use super::{VisionError, axes, ncc};
use crate::events::{Point, dist, midpoint};

/// A region of the face in its own frame: across (eye distances from the
/// point between the eyes, towards the image's right), down (eye
/// distances below the eye line), and its size in pixels.
#[derive(Debug, Clone, Copy)]
pub struct Region {
    pub across: (f64, f64),
    pub down: (f64, f64),
    pub size: (i32, i32),
    /// How far (pixels of the patch) the patch may have shifted since the earlier one.
    pub shift: i32,
}

/// One earlier look at the two patches.
#[derive(Debug, Default)]
struct Sample {
    t: f64,
    mouth: Mat,
    nose: Mat,
    valid: bool,
}

/// Samples kept, at most one every `SAMPLE_EVERY_MS`: they reach back 250 ms
/// or more at any frame rate (a 120 fps camera too).
const SAMPLES: usize = 10;
const SAMPLE_EVERY_MS: f64 = SPEECH_LAG_MS / 4.0;

/// Whether the person is talking, from the motion of the mouth against the nose.
#[derive(Debug)]
pub struct Speech {
    samples: Vec<Sample>,
    /// Where the next sample is written.
    next: usize,
    /// The frames of the last `SPEECH_WINDOW_MS`: their time and whether the mouth moved on them.
    recent: VecDeque<(f64, bool)>,
    /// The last measure: the mouth's change less the nose's (for plots and traces).
    pub last_activity: Option<f64>,
    // Reused buffers.
    warp: Mat,
    mouth: Mat,
    nose: Mat,
    inner: Mat,
    result: Mat,
}

impl Default for Speech {
    fn default() -> Self {
        Self {
            samples: (0..SAMPLES).map(|_| Sample::default()).collect(),
            next: 0,
            recent: VecDeque::with_capacity(64),
            last_activity: None,
            warp: Mat::default(),
            mouth: Mat::default(),
            nose: Mat::default(),
            inner: Mat::default(),
            result: Mat::default(),
        }
    }
}

impl Speech {
    /// Forgets everything (a new track: the face may be another one), keeping the buffers.
    pub fn restart(&mut self) {
        for s in &mut self.samples {
            s.valid = false;
        }
        self.recent.clear();
        self.last_activity = None;
    }

    /// Feeds one tracked frame: the eyes at `le` and `re` (the subject's left
    /// eye on the image's right) at time `t` (ms). A frame whose face frame
    /// is not `trusted` (the eyes closing) is not measured; the talking of
    /// the frames before it holds.
    ///
    /// # Errors
    /// OpenCV failures.
    pub fn update(&mut self, gray: &Mat, le: Point, re: Point, t: f64, trusted: bool) -> Result<(), VisionError> {
        while self.recent.front().is_some_and(|&(at, _)| t - at > SPEECH_WINDOW_MS || at > t) {
            self.recent.pop_front();
        }
        self.last_activity = None;
        let iod = dist(le, re);
        if iod < 1.0 || !trusted {
            return Ok(());
        }
        sample(gray, le, re, SPEECH_MOUTH, &mut self.warp, &mut self.mouth)?;
        sample(gray, le, re, SPEECH_NOSE, &mut self.warp, &mut self.nose)?;
        // The newest earlier look at least `SPEECH_LAG_MS` old, and not stale.
        let earlier = (1..=SAMPLES)
            .map(|k| (self.next + SAMPLES - k) % SAMPLES)
            .map(|i| &self.samples[i])
            .find(|s| s.valid && t - s.t >= SPEECH_LAG_MS)
            .filter(|s| t - s.t <= SPEECH_STALE_MS);
        if let Some(s) = earlier {
            let mouth = change(&self.mouth, &s.mouth, SPEECH_MOUTH.shift, &mut self.inner, &mut self.result)?;
            let nose = change(&self.nose, &s.nose, SPEECH_NOSE.shift, &mut self.inner, &mut self.result)?;
            if let (Some(m), Some(n)) = (mouth, nose) {
                let activity = m - n;
                self.last_activity = Some(activity);
                self.recent.push_back((t, self.moved_now()));
            }
        }
        let last = &self.samples[(self.next + SAMPLES - 1) % SAMPLES];
        if last.valid && t > last.t && t - last.t < SAMPLE_EVERY_MS {
            return Ok(());
        }
        let slot = &mut self.samples[self.next];
        self.mouth.copy_to(&mut slot.mouth)?;
        self.nose.copy_to(&mut slot.nose)?;
        (slot.t, slot.valid) = (t, true);
        self.next = (self.next + 1) % SAMPLES;
        Ok(())
    }

    /// Whether the mouth moved as in speech on the last frame measured
    /// (`SPEECH_ACTIVE`): one frame of what `talking` counts.
    #[must_use]
    pub fn moved_now(&self) -> bool {
        self.last_activity.is_some_and(|a| a > SPEECH_ACTIVE)
    }

    /// Whether the person is talking: the mouth moved on at least
    /// `SPEECH_MIN_FRAMES` frames, and a `SPEECH_SHARE` of them, in the last
    /// `SPEECH_WINDOW_MS`.
    #[must_use]
    pub fn talking(&self) -> bool {
        let moved = self.recent.iter().filter(|r| r.1).count();
        #[allow(clippy::cast_precision_loss)]
        let share = moved as f64 >= SPEECH_SHARE * self.recent.len() as f64;
        moved >= SPEECH_MIN_FRAMES && share
    }
}

/// Takes `region` of the face with its eyes at `le`, `re` into `out`, in the
/// face's own frame (rotated and scaled with the eye line).
fn sample(gray: &Mat, le: Point, re: Point, region: Region, warp: &mut Mat, out: &mut Mat) -> Result<(), VisionError> {
    let iod = dist(le, re);
    let (e, up) = axes(re, le);
    let down = [-up[0], -up[1]];
    let m = midpoint(le, re);
    let (w, h) = region.size;
    let su = (region.across.1 - region.across.0) * iod / f64::from(w);
    let sv = (region.down.1 - region.down.0) * iod / f64::from(h);
    let origin = [
        m[0] + iod * (region.across.0 * e[0] + region.down.0 * down[0]),
        m[1] + iod * (region.across.0 * e[1] + region.down.0 * down[1]),
    ];
    // Patch pixel (i, j) is taken from the frame at origin + i·su·e + j·sv·down.
    let map = [e[0] * su, down[0] * sv, origin[0], e[1] * su, down[1] * sv, origin[1]];
    Ok(super::warp_patch(gray, map, Size::new(w, h), warp, out)?)
}

/// How much `now` changed from `before`: 1 less the best correlation of
/// `now`'s inside (`shift` pixels in from each edge) anywhere within `before`.
fn change(now: &Mat, before: &Mat, shift: i32, inner: &mut Mat, result: &mut Mat) -> Result<Option<f64>, VisionError> {
    let (w, h) = (now.cols(), now.rows());
    if w <= 2 * shift || h <= 2 * shift || before.cols() != w || before.rows() != h {
        return Ok(None);
    }
    let centre = [f64::from(w) / 2.0, f64::from(h) / 2.0];
    if !ncc::extract(now, centre, w - 2 * shift, h - 2 * shift, inner)? {
        return Ok(None);
    }
    Ok(ncc::search(before, inner, centre, shift, shift, result)?.map(|m| 1.0 - m.score))
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{CV_8UC1, Point as CvPoint, Scalar};
    use opencv::imgproc;

    /// A plain face: skin, two dark eyes, a nose, and a mouth open by `open` pixels.
    fn face(open: i32, dx: i32, noise_seed: u32) -> Mat {
        let mut m = Mat::new_rows_cols_with_default(240, 320, CV_8UC1, Scalar::all(170.0)).expect("mat");
        let col = |v: f64| Scalar::all(v);
        for x in [140 + dx, 180 + dx] {
            imgproc::circle(&mut m, CvPoint::new(x, 100), 5, col(40.0), -1, imgproc::LINE_8, 0).expect("eye");
        }
        imgproc::line(&mut m, CvPoint::new(160 + dx, 105), CvPoint::new(156 + dx, 125), col(120.0), 3, imgproc::LINE_8, 0).expect("nose");
        imgproc::circle(&mut m, CvPoint::new(154 + dx, 126), 3, col(110.0), -1, imgproc::LINE_8, 0).expect("nostril");
        imgproc::ellipse(&mut m, CvPoint::new(160 + dx, 144), opencv::core::Size::new(14, open.max(1)), 0.0, 0.0, 360.0, col(60.0), -1, imgproc::LINE_8, 0)
            .expect("mouth");
        imgproc::line(&mut m, CvPoint::new(146 + dx, 144), CvPoint::new(174 + dx, 144), col(90.0), 2, imgproc::LINE_8, 0).expect("lips");
        // Sensor noise of ±3 grey levels, the same for every frame of a seed.
        let mut rng = crate::lab::synth::Rng::new(u64::from(noise_seed));
        for y in 0..240 {
            for x in 0..320 {
                let p = m.at_2d_mut::<u8>(y, x).expect("px");
                *p = p.saturating_add(rng.uniform(0.0, 7.0) as u8).saturating_sub(3);
            }
        }
        m
    }

    /// How far the mouth is open at `t_ms` while talking (pixels).
    fn syllables(t_ms: f64) -> i32 {
        (2.0 + 6.0 * (std::f64::consts::PI * 4.5 * t_ms / 1000.0).sin().abs()).round() as i32
    }

    fn run(frames: usize, dt: f64, f: impl Fn(usize) -> (i32, i32)) -> (Speech, Vec<bool>) {
        let mut s = Speech::default();
        let mut talking = Vec::new();
        for i in 0..frames {
            let (open, dx) = f(i);
            #[allow(clippy::cast_possible_truncation)]
            let g = face(open, dx, i as u32 + 1);
            let x = f64::from(dx);
            s.update(&g, [180.0 + x, 100.0], [140.0 + x, 100.0], i as f64 * dt, true).expect("update");
            talking.push(s.talking());
        }
        (s, talking)
    }

    #[test]
    fn a_mouth_that_opens_and_closes_is_talking_and_a_still_one_is_not() {
        for dt in [33.3, 125.0] {
            // Still, with sensor noise.
            let (_, still) = run(40, dt, |_| (1, 0));
            assert!(still.iter().all(|t| !t), "a still face at {dt} ms: {still:?}");
            // Talking: the jaw opens and closes with syllables, 4.5 a second.
            let (_, talk) = run(40, dt, |i| (syllables(i as f64 * dt), 0));
            let from = (SPEECH_WINDOW_MS / dt).ceil() as usize;
            assert!(talk[from..].iter().all(|t| *t), "talking at {dt} ms: {talk:?}");
        }
    }

    /// A fast camera (120 fps) keeps enough earlier looks to compare with one 100 ms old.
    #[test]
    fn talking_is_seen_at_120_fps() {
        let (_, talk) = run(240, 1000.0 / 120.0, |i| (syllables(i as f64 * 1000.0 / 120.0), 0));
        assert!(talk[130..].iter().all(|t| *t), "{talk:?}");
        let (_, still) = run(240, 1000.0 / 120.0, |_| (1, 0));
        assert!(still.iter().all(|t| !t), "{still:?}");
    }

    #[test]
    fn a_head_that_moves_with_a_still_mouth_is_not_talking() {
        // The whole face shifts by up to 4 px a frame (a nod, a turn), the mouth still.
        let (_, moving) = run(60, 33.3, |i| (2, ((i as f64 * 0.4).sin() * 6.0).round() as i32));
        assert!(moving.iter().all(|t| !t), "{moving:?}");
    }

    /// While the eyes close, the face's frame jumps with the feature (half
    /// of it an eye): such frames are not measured. At 8 fps, two frames of
    /// a long blink whose frame was 8 px off were taken for talking.
    #[test]
    fn frames_whose_face_frame_is_not_trusted_are_not_measured() {
        let jumped = |trusted: bool| {
            let mut s = Speech::default();
            let mut talking = false;
            for i in 0..24 {
                let g = face(2, 0, i + 1);
                let off = if (10..12).contains(&i) { 8.0 } else { 0.0 };
                s.update(&g, [180.0, 100.0 + off], [140.0, 100.0 + off], f64::from(i) * 125.0, trusted || off == 0.0).expect("update");
                talking |= s.talking();
            }
            talking
        };
        assert!(jumped(true), "measured, the jumps look like a moving mouth");
        assert!(!jumped(false), "not measured, nothing moves");
    }

    #[test]
    fn one_movement_of_the_lips_is_not_talking_and_talking_ends_when_the_mouth_stops() {
        // Lips parted once (a swallow, a breath).
        let (_, once) = run(60, 33.3, |i| (if i == 30 { 8 } else { 2 }, 0));
        assert!(once.iter().all(|t| !t), "{once:?}");
        // Talking for two seconds, then still: no longer talking a window later.
        let (_, t) = run(120, 33.3, |i| (if i < 60 { syllables(i as f64 * 33.3) } else { 2 }, 0));
        assert!(t[59], "talking at the end of speech");
        let after = (SPEECH_WINDOW_MS / 33.3).ceil() as usize + 2;
        assert!(t[60 + after..].iter().all(|t| !t), "{t:?}");
    }
}
