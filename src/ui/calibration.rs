//! The hands-free calibration wizard: the user blinks to start tracking,
//! follows a target to the edges and corners of the screen (recording their
//! comfortable range of motion, however small), then raises the eyebrows a few
//! times (setting the raise threshold from their own raises, and whether a
//! raise must lift both brows: not for a user whose raises lift one). Every step has
//! large text and progress; nothing needs a hand. Every step ends by itself
//! (a face that never appears, raises that never come), a Cancel target
//! stops it at any time, and a range the head did not follow (the targets
//! moved, the head did not, or went elsewhere) is refused: the old
//! calibration stays.
//!
//! Time is the UI's clock in milliseconds, passed to [`Wizard::update`].

use crate::events::{Point, TrackState};
use crate::pointer::{Mapping, Range};
use crate::profile::Settings;
use crate::vision::brows::together;

use super::Snapshot;

/// Where the target goes, as fractions of the window: centre, edges, corners.
pub const TARGETS: [[f32; 2]; 9] =
    [[0.5, 0.5], [0.05, 0.5], [0.95, 0.5], [0.5, 0.08], [0.5, 0.92], [0.05, 0.08], [0.95, 0.08], [0.05, 0.92], [0.95, 0.92]];
/// Each target stays this long; samples count after the user had time to get there.
pub const TARGET_MS: f64 = 2500.0;
pub const SETTLE_MS: f64 = 900.0;
/// Raises to record, and how long to wait for them.
pub const RAISES: usize = 3;
pub const RAISE_TIMEOUT_MS: f64 = 25_000.0;
/// How long to wait for tracking before giving up.
pub const BLINK_TIMEOUT_MS: f64 = 30_000.0;
/// The head's mean position per target must follow the targets: its
/// correlation with the targets' positions, across and up and down, at
/// least this much.
pub const MIN_FOLLOW: f64 = 0.6;

/// The wizard's step.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Waiting for tracking (the user blinks).
    Blink,
    /// Following target `i`.
    Range(usize),
    /// Raising the eyebrows.
    Brows,
    /// Finished: the new settings.
    Done(Box<Settings>),
    /// Could not finish (too little motion recorded, or no raises).
    Failed(String),
}

/// The wizard.
#[derive(Debug, Clone)]
pub struct Wizard {
    pub step: Step,
    /// When the current step began (UI clock, ms), once a first update came.
    since: Option<f64>,
    now: f64,
    /// The head's displacement while following each target.
    samples: Vec<(usize, Point)>,
    peaks: Vec<Raise>,
    raise_peak: Option<Raise>,
    base: Settings,
}

/// One of the user's raises in the calibration: its greatest lift, and each
/// brow's own lift on that frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Raise {
    pub lift: f64,
    pub sides: [f64; 2],
}

impl Wizard {
    #[must_use]
    pub fn new(base: Settings) -> Self {
        Self { step: Step::Blink, since: None, now: 0.0, samples: Vec::new(), peaks: Vec::new(), raise_peak: None, base }
    }

    fn elapsed_ms(&self) -> f64 {
        self.since.map_or(0.0, |s| self.now - s)
    }

    fn next(&mut self, step: Step) {
        self.step = step;
        self.since = Some(self.now);
    }

    /// Stops the wizard: nothing is saved, the old calibration stays.
    pub fn cancel(&mut self) {
        if !matches!(self.step, Step::Done(_) | Step::Failed(_)) {
            self.next(Step::Failed("cancelled; the previous calibration is kept".into()));
        }
    }

    /// The instruction for the current step, large.
    #[must_use]
    pub fn text(&self) -> String {
        match &self.step {
            Step::Blink => "Look at the screen and blink naturally".into(),
            Step::Range(i) => format!("Follow the target with your head — {} of {}", i + 1, TARGETS.len()),
            Step::Brows => format!("Raise your eyebrows, then relax — {} of {RAISES}", self.peaks.len().min(RAISES)),
            Step::Done(s) if !s.vision.brows_together => "Calibration saved: a raise of one brow counts. Thank you!".into(),
            Step::Done(_) => "Calibration saved. Thank you!".into(),
            Step::Failed(why) => format!("Calibration not saved: {why}"),
        }
    }

    /// Progress 0..1 over the whole wizard.
    #[must_use]
    pub fn progress(&self) -> f32 {
        let n = TARGETS.len() as f32 + RAISES as f32 + 1.0;
        let done = match &self.step {
            Step::Blink => 0.0,
            Step::Range(i) => 1.0 + *i as f32,
            Step::Brows => 1.0 + TARGETS.len() as f32 + self.peaks.len() as f32,
            Step::Done(_) | Step::Failed(_) => n,
        };
        done / n
    }

    /// Where the target is (fractions of the window), while following.
    #[must_use]
    pub fn target(&self) -> Option<[f32; 2]> {
        match self.step {
            Step::Range(i) => Some(TARGETS[i]),
            _ => None,
        }
    }

    /// Feeds one snapshot at UI time `now_ms`.
    pub fn update(&mut self, s: &Snapshot, now_ms: f64) {
        self.now = now_ms;
        self.since.get_or_insert(now_ms);
        match self.step.clone() {
            Step::Blink => {
                if s.record.state == TrackState::Tracking && self.elapsed_ms() > 500.0 {
                    self.next(Step::Range(0));
                } else if self.elapsed_ms() > BLINK_TIMEOUT_MS {
                    self.next(Step::Failed("no face was tracked; sit in front of the camera and try again".into()));
                }
            }
            Step::Range(i) => {
                if self.elapsed_ms() >= SETTLE_MS
                    && s.record.state == TrackState::Tracking
                    && !s.record.eyes_closed
                    && let Some(d) = s.displacement
                {
                    self.samples.push((i, d));
                }
                if self.elapsed_ms() >= TARGET_MS {
                    if i + 1 < TARGETS.len() {
                        self.next(Step::Range(i + 1));
                    } else {
                        self.next(Step::Brows);
                    }
                }
            }
            Step::Brows => {
                let now = Raise { lift: s.brow_lift, sides: s.brow_sides };
                match self.raise_peak {
                    None if now.lift > 0.02 => self.raise_peak = Some(now),
                    Some(p) if now.lift > 0.008 => self.raise_peak = Some(if now.lift > p.lift { now } else { p }),
                    Some(p) => {
                        self.peaks.push(p);
                        self.raise_peak = None;
                    }
                    None => {}
                }
                if self.peaks.len() >= RAISES || self.elapsed_ms() > RAISE_TIMEOUT_MS {
                    let result = finish(&self.base, &self.samples, &self.peaks);
                    self.next(match result {
                        Ok(s) => Step::Done(Box::new(s)),
                        Err(why) => Step::Failed(why),
                    });
                }
            }
            Step::Done(_) | Step::Failed(_) => {}
        }
    }
}

/// The settings the recording gives: the range (a little padded, so the edges
/// are reachable without straining) for the absolute mapping, an eyebrow
/// threshold at half of the user's own raises, and whether a raise must lift
/// both brows (`vision.brows_together`: as most of the user's raises did).
///
/// # Errors
/// Too little motion, motion that did not follow the targets, or no raises.
pub fn finish(base: &Settings, samples: &[(usize, Point)], peaks: &[Raise]) -> Result<Settings, String> {
    let points: Vec<Point> = samples.iter().map(|(_, p)| *p).collect();
    let range = Range::from_samples(&points).ok_or("too little head motion was recorded; try again")?;
    if !followed(samples) {
        return Err("the head did not follow the target; try again, moving the head towards each target".into());
    }
    let pad = |lo: f64, hi: f64| {
        let m = 0.05 * (hi - lo);
        (lo + m, hi - m)
    };
    let (left, right) = pad(range.left, range.right);
    let (top, bottom) = pad(range.top, range.bottom);
    if right - left < 0.02 || bottom - top < 0.01 {
        return Err("the recorded motion is too small to map onto the screen; move a little more".into());
    }
    let mut s = base.clone();
    s.pointer.range = Range { left, right, top, bottom };
    s.pointer.mapping = Mapping::Absolute;
    if !peaks.is_empty() {
        let mut p: Vec<f64> = peaks.iter().map(|r| r.lift).collect();
        p.sort_by(f64::total_cmp);
        let median = p[p.len() / 2];
        s.vision.brow_on = (0.5 * median).clamp(0.02, 0.08);
        s.vision.brow_off = 0.6 * s.vision.brow_on;
        // Raises whose brows were measured: do most lift both?
        let measured: Vec<&Raise> = peaks.iter().filter(|r| r.sides[0].max(r.sides[1]) > 0.0).collect();
        if !measured.is_empty() {
            let both = measured.iter().filter(|r| together(r.sides)).count();
            s.vision.brows_together = 2 * both >= measured.len();
        }
    }
    Ok(s)
}

/// Whether the head's mean position at each target went with the targets,
/// across and up and down (correlation at least `MIN_FOLLOW` on both axes).
fn followed(samples: &[(usize, Point)]) -> bool {
    let mut pairs: Vec<([f64; 2], Point)> = Vec::new();
    for (i, t) in TARGETS.iter().enumerate() {
        let at: Vec<Point> = samples.iter().filter(|(k, _)| *k == i).map(|(_, p)| *p).collect();
        if !at.is_empty() {
            let n = at.len() as f64;
            let mean = [at.iter().map(|p| p[0]).sum::<f64>() / n, at.iter().map(|p| p[1]).sum::<f64>() / n];
            pairs.push(([f64::from(t[0]), f64::from(t[1])], mean));
        }
    }
    if pairs.len() < TARGETS.len() - 2 {
        return false;
    }
    (0..2).all(|axis| correlation(&pairs.iter().map(|(t, m)| (t[axis], m[axis])).collect::<Vec<_>>()) >= MIN_FOLLOW)
}

/// Pearson's correlation of the pairs (0 when either side does not vary).
fn correlation(xy: &[(f64, f64)]) -> f64 {
    let n = xy.len() as f64;
    let (mx, my) = (xy.iter().map(|p| p.0).sum::<f64>() / n, xy.iter().map(|p| p.1).sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in xy {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx).powi(2);
        syy += (y - my).powi(2);
    }
    if sxx <= 0.0 || syy <= 0.0 { 0.0 } else { sxy / (sxx * syy).sqrt() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_range_and_the_users_raises_become_settings() {
        let mut samples = Vec::new();
        for (i, t) in TARGETS.iter().enumerate() {
            for _ in 0..20 {
                // 20×10 px at a 64 px eye distance, off-centre.
                samples.push((i, [f64::from(t[0] - 0.4) * 20.0 / 64.0, f64::from(t[1] - 0.45) * 10.0 / 64.0]));
            }
        }
        let raises = [0.09, 0.1, 0.12].map(|lift| Raise { lift, sides: [lift, 0.9 * lift] });
        let s = finish(&Settings::default(), &samples, &raises).expect("settings");
        assert_eq!(s.pointer.mapping, Mapping::Absolute);
        assert!(s.pointer.range.right - s.pointer.range.left > 0.2 && s.pointer.range.left < 0.0);
        assert!((s.vision.brow_on - 0.05).abs() < 1e-9 && s.vision.brow_off < s.vision.brow_on);
        assert!(s.vision.brows_together, "both brows rose");
        assert!(s.validate().is_ok(), "{:?}", s.validate());
        // A user whose raises lift one brow (the other a little, or not at
        // all): one brow is enough from now on; and back, when both rise.
        let one = [0.09, 0.1, 0.12].map(|lift| Raise { lift, sides: [0.1 * lift, 2.0 * lift] });
        let s = finish(&Settings::default(), &samples, &one).expect("settings");
        assert!(!s.vision.brows_together, "one brow rose");
        let s = finish(&s, &samples, &raises).expect("settings");
        assert!(s.vision.brows_together, "both rose again");
        // Brows not measured (no sides): the setting stays as it was.
        let unmeasured = [0.09, 0.1, 0.12].map(|lift| Raise { lift, sides: [0.0; 2] });
        let mut base = Settings::default();
        base.vision.brows_together = false;
        assert!(!finish(&base, &samples, &unmeasured).expect("settings").vision.brows_together);
    }

    #[test]
    fn no_motion_is_not_saved() {
        let samples = vec![(0, [0.0, 0.0]); 50];
        assert!(finish(&Settings::default(), &samples, &[]).is_err());
    }

    /// A head that moved, but not with the targets (the demo clip's face,
    /// a head turning to look at someone): refused.
    #[test]
    fn motion_that_did_not_follow_the_targets_is_refused() {
        let mut samples = Vec::new();
        for i in 0..TARGETS.len() {
            for k in 0..20 {
                // Wandering, ignoring where the target is.
                let a = (i * 20 + k) as f64 * 0.37;
                samples.push((i, [0.2 * a.sin(), 0.1 * (1.3 * a).cos()]));
            }
        }
        let e = finish(&Settings::default(), &samples, &[Raise { lift: 0.09, sides: [0.09; 2] }]).expect_err("refused");
        assert!(e.contains("did not follow"), "{e}");
    }

    #[test]
    fn every_step_ends_by_itself_and_cancel_stops_it() {
        let snap = Snapshot::default(); // never tracking
        let mut w = Wizard::new(Settings::default());
        w.update(&snap, 1000.0);
        w.update(&snap, 1000.0 + BLINK_TIMEOUT_MS + 1.0);
        assert!(matches!(&w.step, Step::Failed(why) if why.contains("no face")), "{:?}", w.step);
        let mut w = Wizard::new(Settings::default());
        w.update(&snap, 0.0);
        w.cancel();
        assert!(matches!(&w.step, Step::Failed(why) if why.contains("cancelled")), "{:?}", w.step);
    }

    #[test]
    fn the_wizard_walks_through_its_steps_hands_free() {
        let mut w = Wizard::new(Settings::default());
        let mut snap = Snapshot::default();
        snap.record.state = TrackState::Tracking;
        // The UI's clock, stepped by the test.
        let mut now = 0.0;
        w.update(&snap, now);
        now += 600.0;
        w.update(&snap, now);
        assert_eq!(w.step, Step::Range(0));
        for t in TARGETS {
            snap.displacement = Some([f64::from(t[0] - 0.5) * 0.3, f64::from(t[1] - 0.5) * 0.15]);
            now += 1000.0;
            w.update(&snap, now);
            now += 1600.0;
            w.update(&snap, now);
        }
        assert_eq!(w.step, Step::Brows);
        for _ in 0..RAISES {
            for lift in [0.03, 0.09, 0.06, 0.0] {
                snap.brow_lift = lift;
                // The left brow rises, the right hardly.
                snap.brow_sides = [1.8 * lift, 0.2 * lift];
                now += 100.0;
                w.update(&snap, now);
            }
        }
        let Step::Done(s) = &w.step else { panic!("not done: {:?}", w.step) };
        assert!(!s.vision.brows_together, "the user's raises lift one brow");
        assert!(w.text().contains("one brow"), "{}", w.text());
        assert!(w.progress() >= 0.999);
    }
}
