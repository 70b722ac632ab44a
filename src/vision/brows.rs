//! The eyebrows: where a brow is above its eye (the darkest thick band), and
//! the brow-raise switch (Eyebrow-Clicker) on the eye–brow distance against
//! the person's own rest level.

use opencv::core::Mat;
use opencv::prelude::*;

use super::params::{BROWS_TOGETHER, SKULL_LIFT_SHARE, BROW_BAND_SHARE, BROW_THIN_DEPTH, BROW_THIN_FROM, BROW_RELEASE_SHARE, BROW_EYES_BUSY, BROW_ONSET_MS, LOOK_BROW_ON_FACTOR, LOOK_NOISE_SIGMAS, LOOK_STEADY, BROW_RAISE_MAX_MS, BROW_PROFILE_HALF_WIDTH, BROW_RANGE, BROW_THICKNESS, BROW_WARMUP_MS, BROW_WINDOW_MS};
use super::stats::RobustWindow;
use super::VisionError;
use crate::events::{Event, Point};

/// The brows' height on one frame, in inter-ocular distances along the face's up axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BrowHeight {
    /// Above the eye's steady place (the switch's measure: it does not move
    /// when the head turns or tilts).
    pub from_eye: f64,
    /// Above the feature between the eyes, which is part of the skull: the
    /// tracked eye moves with a glance and the lids (a glance down moves it
    /// 0.05 eye distances), the feature does not. A raise moves the brows
    /// against both.
    pub from_feature: f64,
    /// Above the eyes where they are tracked, while both are open and seen.
    /// The steady place follows them with a lag, and while the head moves
    /// (rolls, comes closer, turns, as people do who talk) it can lag by
    /// 0.03 eye distances: real clips laid over with head motion gave false
    /// raises. The tracked eyes do not lag, but move with the lids (a blink
    /// the eye state misses behind a glasses frame). A lift is taken against
    /// both, the smaller of the two: each fails where the other holds.
    pub from_tracked_eye: Option<f64>,
    /// Each brow's own height above its tracked eye, while both eyes are
    /// open and seen (as `from_tracked_eye`): the subject's left, then
    /// right. A meant raise lifts both brows about alike (on the
    /// development clips and every copy of them the lesser lift was at
    /// least 0.70 of the greater, as the raise fired); a lift of one brow alone is a brow
    /// tracked onto something else, or a one-sided expression
    /// (`BrowTiming::together`).
    pub sides: Option<[f64; 2]>,
}

impl BrowHeight {
    /// The same height against all (generated data, tests).
    #[must_use]
    pub fn both(d: f64) -> Self {
        Self { from_eye: d, from_feature: d, from_tracked_eye: Some(d), sides: Some([d, d]) }
    }
}

/// Brow-raise settings (the profile's `[vision]` brow fields), in inter-ocular distances and ms.
#[derive(Debug, Clone, Copy)]
pub struct BrowTiming {
    pub on: f64,
    pub off: f64,
    pub min_ms: f64,
    pub refractory_ms: f64,
    /// A raise must lift both brows: the lesser lift at least
    /// `BROWS_TOGETHER` of the greater (the profile's `vision.brows_together`;
    /// off for a person who raises one brow only).
    pub together: bool,
}

/// Whether the brows' rest counts at once, or after the eyes shut must be seen twice.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Rearm {
    #[default]
    Armed,
    /// The eyes shut: no frame at rest seen since ...
    Waiting,
    /// ... or one, the last measured one.
    SeenOnce,
}

/// The eyebrow-raise switch (Eyebrow-Clicker): the eye–brow distance in
/// inter-ocular distances against its rest level (the running median of the
/// frames that are not raised), with hysteresis, a minimum duration and a
/// refractory period. A raise is a quick motion from rest: the brows must
/// rise from the rest level to the threshold within `BROW_ONSET_MS`. A slow
/// drift (leaning back, a new posture) is followed by the rest level instead,
/// and so is a level held far longer than any gesture. The brows must also
/// have risen against the feature (`SKULL_LIFT_SHARE` of the threshold), on
/// the raise's first frame and when it fires: a glance or a blink that moves
/// only the tracked eye is no raise, nor the start of one.
#[derive(Debug, Clone, Default)]
pub struct BrowSwitch {
    rest: RobustWindow,
    skull_rest: RobustWindow,
    tracked_rest: RobustWindow,
    /// Each brow's own rest level (see [`BrowHeight::sides`]).
    side_rest: [RobustWindow; 2],
    above_since: Option<f64>,
    raised_at: Option<f64>,
    /// The highest lift of the raise under way.
    raise_peak: f64,
    released_at: Option<f64>,
    /// When the brows were last seen at rest.
    at_rest: Option<f64>,
    /// Whether rest must be seen on two frames in a row before it counts
    /// (since the eyes last shut; see [`Self::eyes_shut`]).
    rearm: Rearm,
    /// When a blink was last given, and when, since then, the brows were
    /// last seen at rest against the skull while the lids settled (see
    /// [`Self::at_rest_against_skull`]).
    blink_at: Option<f64>,
    skull_rest_at: Option<f64>,
    /// The last measured frame had left rest (past `off`) soon after being
    /// at rest, but not yet reached `on`: a raise may be beginning.
    leaving: bool,
    /// The last lift above rest (for diagnostics and plots).
    pub last_lift: f64,
    /// Each brow's last lift above its own rest, where both were measured
    /// against a rest level (for the rule and for calibration).
    pub last_side_lifts: Option<[f64; 2]>,
}

impl BrowSwitch {
    /// Feeds one measurement (`None` while it cannot be trusted: eyes closed,
    /// tracking weak). Returns whether the brows are raised and pushes `brow_raise` at the onset.
    pub fn update(&mut self, height: Option<BrowHeight>, t_ms: f64, timing: BrowTiming, events: &mut Vec<Event>) -> bool {
        let Some(h) = height else {
            // Hold the state; a raise in progress stays raised through a blink.
            self.above_since = None;
            self.leaving = false;
            return self.raised();
        };
        let d = h.from_eye;
        let warm = self.rest.covered_ms() >= BROW_WARMUP_MS;
        let steady_lift = if warm { d - self.rest.median() } else { 0.0 };
        let lift = match h.from_tracked_eye {
            Some(tracked) if self.tracked_rest.covered_ms() >= BROW_WARMUP_MS => steady_lift.min(tracked - self.tracked_rest.median()),
            _ => steady_lift,
        };
        let skull_lift = if warm { h.from_feature - self.skull_rest.median() } else { 0.0 };
        self.last_side_lifts = h
            .sides
            .filter(|_| self.side_rest.iter().all(|r| r.covered_ms() >= BROW_WARMUP_MS))
            .map(|s| [s[0] - self.side_rest[0].median(), s[1] - self.side_rest[1].median()]);
        // What the pointer holds still for (a lift under way may be a raise
        // coming) is the lift above the steady place, as before: it also
        // rises with the lids in a blink, and holds the pointer through the
        // blink's last frames (a generated blink moved the point between
        // the eyes 35 px on the screen as the lids opened, and a dwell
        // that had fired began again: a second click where the user rested).
        self.last_lift = steady_lift;
        // Soon enough after the brows were last at rest for a raise to start.
        let recent = |at: Option<f64>| at.is_some_and(|r| t_ms - r <= BROW_ONSET_MS);
        // Rest seen only against the skull, as the lids settled after a
        // blink: the brows must rise against the skull by the whole
        // threshold (zju-s16's brows, up against his eyes after a blink,
        // rose 0.02 against the feature: half of it, and a raise fired).
        let from_rest = recent(self.at_rest) || (recent(self.skull_rest_at) && skull_lift >= timing.on);
        self.leaving = warm && self.raised_at.is_none() && (timing.off..timing.on).contains(&lift) && from_rest;
        if let Some(since) = self.raised_at {
            self.raise_peak = self.raise_peak.max(lift);
            // Down below `off`, or most of the way down from the raise's
            // peak: a moving head can leave the measure a little above its
            // old rest (p1's raise on a moving copy came down from 0.08 to
            // 0.025 and stayed there), and a raise held past the pause's
            // time paused instead of clicking.
            if lift < timing.off || (lift < timing.on && lift < BROW_RELEASE_SHARE * self.raise_peak) {
                self.raised_at = None;
                self.released_at = Some(t_ms);
                self.at_rest = Some(t_ms);
            } else if t_ms - since > BROW_RAISE_MAX_MS {
                // Held far longer than any gesture: this is how the face rests now.
                self.rest.clear();
                self.skull_rest.clear();
                self.tracked_rest.clear();
                self.side_rest.iter_mut().for_each(RobustWindow::clear);
                self.raised_at = None;
                self.released_at = Some(t_ms);
                self.at_rest = Some(t_ms);
            }
        } else if lift < timing.off {
            if self.rearm == Rearm::Waiting {
                // The first frame at rest since the eyes shut: it may be the
                // measure passing through on its way up as the lids reopen.
                self.rearm = Rearm::SeenOnce;
            } else {
                self.rearm = Rearm::Armed;
                self.at_rest = Some(t_ms);
            }
            self.above_since = None;
        } else if warm && lift >= timing.on {
            let against_skull = skull_lift >= SKULL_LIFT_SHARE * timing.on;
            if self.above_since.is_none() && against_skull && from_rest {
                tracing::trace!("brows: over the threshold {:.0} ms after rest", t_ms - self.at_rest.unwrap_or(t_ms));
                self.above_since = Some(t_ms);
            }
            let rested = self.released_at.is_none_or(|r| t_ms - r >= timing.refractory_ms);
            // Both brows rose, or the profile lets one do (checked as it
            // fires: a raise held past the lesser brow's start may fire a
            // frame later). Not judged where the eyes are not both open
            // and seen: a raise through a blink still counts.
            let together = !timing.together || self.last_side_lifts.is_none_or(together);
            if self.above_since.is_some_and(|s| t_ms - s >= timing.min_ms) && rested && against_skull && together {
                self.raised_at = Some(t_ms);
                self.raise_peak = lift;
                self.above_since = None;
                events.push(Event::BrowRaise);
            }
        } else if self.above_since.is_some_and(|s| t_ms - s > BROW_ONSET_MS) {
            // Under `on` again, and long after it first crossed it: a raise
            // holds above it once it gets there. A measure that creeps round
            // the threshold (p2's face growing by a seventh on a moving copy:
            // 0.04 to 0.048 over half a second) fired once it was over it
            // again, 0.5 s after it first crossed.
            self.above_since = None;
        }
        if lift >= timing.off && self.rearm == Rearm::SeenOnce {
            // Rest seen for one frame only: not yet.
            self.rearm = Rearm::Waiting;
        }
        // The rest level follows posture and distance, not raises.
        if self.raised_at.is_none() {
            self.rest.push(t_ms, d, BROW_WINDOW_MS);
            self.skull_rest.push(t_ms, h.from_feature, BROW_WINDOW_MS);
            if let Some(tracked) = h.from_tracked_eye {
                self.tracked_rest.push(t_ms, tracked, BROW_WINDOW_MS);
            }
            if let Some(sides) = h.sides {
                for (rest, side) in self.side_rest.iter_mut().zip(sides) {
                    rest.push(t_ms, side, BROW_WINDOW_MS);
                }
            }
        }
        self.raised()
    }

    /// The eyes are open but their lids still settle (a closure over
    /// `BROW_EYES_BUSY` just after a blink), so the brows are not measured
    /// against the eyes; their height above the feature, which the lids do
    /// not move, can still show them at rest. A raise begun as the lids come
    /// back (p2 raises her brows a tenth of a second after a blink) then
    /// starts from there, if it rises against the skull by the whole
    /// threshold (`update`); brows that rise with the blink are not at rest
    /// there, and must come down first as before.
    pub fn at_rest_against_skull(&mut self, height: Option<BrowHeight>, t_ms: f64, timing: BrowTiming) {
        let Some(h) = height else { return };
        // Only as the lids come back from a blink that was given: a shallow
        // blink the eye state did not take lifts some people's brows with
        // it (zju-s16), and rest seen as its lids fell is no rest.
        let settling = self.blink_at.is_some_and(|b| t_ms - b <= BROW_ONSET_MS);
        if !settling || self.raised_at.is_some() || self.rest.covered_ms() < BROW_WARMUP_MS {
            return;
        }
        let skull_lift = h.from_feature - self.skull_rest.median();
        tracing::trace!("brows: t {t_ms:.0} lids settling, against the skull {skull_lift:.3}");
        if skull_lift < timing.off {
            self.skull_rest_at = Some(t_ms);
        }
    }

    /// The eyes are shut: the brow measure moves with the lids, so a new
    /// raise must be seen to start from rest once they reopen, and rest
    /// must be seen on two measured frames in a row. As the lids reopen the
    /// measure climbs back, and on its way it passes through the rest band:
    /// one frame there, then a level a little above rest once the eyes are
    /// open (p2 after a long squint, at 18 fps) was taken for a raise.
    pub fn eyes_shut(&mut self) {
        self.at_rest = None;
        self.rearm = Rearm::Waiting;
    }

    /// As [`Self::eyes_shut`], and a rise under way but not yet fired is
    /// dropped too: what moved the measure (a blink, talking) lifted it.
    fn start_from_rest_again(&mut self) {
        self.eyes_shut();
        self.skull_rest_at = None;
        self.above_since = None;
        self.leaving = false;
    }

    /// Whether the brows are raised now.
    #[must_use]
    pub fn raised(&self) -> bool {
        self.raised_at.is_some()
    }

    /// Whether a raise may be under way: the brows have started from rest
    /// and are not yet held long enough, or have just left rest on the last
    /// measured frame.
    #[must_use]
    pub fn rising(&self) -> bool {
        self.above_since.is_some() || self.leaving
    }

    /// Forgets everything (the rest level too), keeping its buffers.
    pub fn restart(&mut self) {
        self.rest.clear();
        self.skull_rest.clear();
        self.tracked_rest.clear();
        self.side_rest.iter_mut().for_each(RobustWindow::clear);
        (self.above_since, self.raised_at, self.released_at, self.at_rest) = (None, None, None, None);
        (self.blink_at, self.skull_rest_at) = (None, None);
        self.rearm = Rearm::Armed;
        self.leaving = false;
        self.last_lift = 0.0;
        self.last_side_lifts = None;
    }

    /// How much the measure wanders at rest (a robust standard deviation).
    #[must_use]
    pub fn spread(&self) -> f64 {
        self.rest.sigma()
    }
}

/// What the eyes do on a frame, as the brow switch needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EyesNow {
    /// Open (perhaps a little lowered or turned).
    Open,
    /// A closure no longer than a blink.
    Closing,
    /// A closure held past a blink's length: a look, or eyes held shut.
    Holding,
}

/// The brows in both states of the eyes, each with its own rest level: the
/// eyes open, and a held look (lids lowered to look up, eyes turned away,
/// eyes held shut). A look moves the brow measure itself, so the open rest
/// level does not hold there. A raise during a look is measured against the
/// level of that look, once the look has held steady for the warm-up; any
/// change of the eyes (another look, a blink, lids opening) starts it afresh.
#[derive(Debug, Clone, Default)]
pub struct Brows {
    open: BrowSwitch,
    look: Option<Look>,
}

/// A look under way: the eyes' closures that define it, and its own switch
/// (kept between looks for its buffers; `active` while a look holds).
#[derive(Debug, Clone)]
struct Look {
    active: bool,
    closure: (f64, f64),
    switch: BrowSwitch,
}

impl Look {
    /// Whether `closure` is still this look: each eye within `LOOK_STEADY`
    /// (absolute, in closure spans, or as a share of its closure, whichever is larger).
    fn holds(&self, closure: (f64, f64)) -> bool {
        if !self.active {
            return false;
        }
        let near = |a: f64, b: f64| (a - b).abs() <= LOOK_STEADY.0.max(LOOK_STEADY.1 * a.abs());
        near(self.closure.0, closure.0) && near(self.closure.1, closure.1)
    }
}

impl Brows {
    /// Feeds one frame: the eye–brow distance (`None` while tracking is
    /// weak), what the eyes do, and each eye's closure (1 = the blink threshold).
    /// Returns whether the brows are raised; pushes `brow_raise` at an onset.
    pub fn update(&mut self, dist: Option<BrowHeight>, eyes: EyesNow, closure: (f64, f64), t_ms: f64, timing: BrowTiming, events: &mut Vec<Event>) -> bool {
        // Raised brows stretch the lids: that is not the eyes moving away.
        // Nor is it while a raise is under way: whichever moved first owns
        // the frame (a blink is the eyes closing, and still takes it).
        let away = eyes != EyesNow::Open || (!self.open.raised() && !self.open.rising() && closure.0.max(closure.1) > BROW_EYES_BUSY);
        if away {
            // A blink moves the brow measure: a raise must be seen to start from rest afterwards.
            if eyes == EyesNow::Closing {
                self.open.eyes_shut();
            } else if eyes == EyesNow::Open {
                self.open.at_rest_against_skull(dist, t_ms, timing);
            }
            self.open.update(None, t_ms, timing, events);
            match self.look.as_mut() {
                Some(look) if look.holds(closure) => {}
                // Another look: its level is learned afresh (in the same buffers).
                Some(look) => {
                    (look.active, look.closure) = (true, closure);
                    look.switch.restart();
                }
                None => self.look = Some(Look { active: true, closure, switch: BrowSwitch::default() }),
            }
            if let Some(look) = self.look.as_mut() {
                // A closure may still be a blink: its level is learned, but no raise starts in it.
                if eyes == EyesNow::Closing {
                    look.switch.eyes_shut();
                }
                // The brow measure is noisier in a look (the lids and the eye's
                // place move with it): a raise there must be clearly one, and
                // stand out of how much the measure wanders in this look.
                let on = (LOOK_BROW_ON_FACTOR * timing.on).max(LOOK_NOISE_SIGMAS * look.switch.spread());
                let in_look = BrowTiming { on, ..timing };
                look.switch.update(dist, t_ms, in_look, events);
            }
        } else {
            // Back to the open eyes: the look's level is forgotten (and a raise in it let go).
            if let Some(look) = self.look.as_mut().filter(|l| l.active) {
                look.active = false;
                look.switch.restart();
            }
            self.open.update(dist, t_ms, timing, events);
        }
        self.raised()
    }

    /// The eyes blinked, though they may not have been seen closed: a slow
    /// camera may catch a blink only part way, as the lids reopen. The brow
    /// measure moved with the lids, and some people's brows rise with a
    /// blink: a raise must be seen to start from rest afterwards.
    ///
    /// A raise under way but not yet fired is dropped too: the measure rose
    /// with the lids. At 10 fps, ZJU s16's brows rose with a blink that the
    /// eye state saw only as the lids reopened, on the frame the raise would
    /// have fired: a click on every blink.
    pub fn blinked(&mut self, t_ms: f64) {
        self.open.start_from_rest_again();
        self.open.blink_at = Some(t_ms);
    }

    /// The lids came down part of the way (`EyeState::lids_fell`), with a
    /// closure that stops the brows being measured (`BROW_EYES_BUSY`), but
    /// the eye state did not take it for a blink: a shallow blink, or one in
    /// a dark, noisy image. It moved the brow measure as a blink does, and
    /// some people's brows rise with every blink (zju-s16 lit from behind
    /// and moving at 15 fps: a left click after each such blink). So a
    /// raise must be seen to start from rest afterwards. A raise already
    /// over the threshold goes on: it stretches the lids, and they may seem
    /// to move. A rise still under the threshold is the lids' own: at 9 fps
    /// and 0.6 of the size (a moving copy of focus-p2-a), a blink seen only
    /// at 0.7 of the blink threshold lifted the measure from 0.002 to 0.026
    /// on the frame the lids began to fall, and past the threshold on the
    /// next: a left click on a blink. (Told on every frame the lids fell,
    /// whatever the closure, two of p1's raises on the moving copies were
    /// lost; this way none of the check sets' raises is.)
    pub fn lids_fell(&mut self) {
        if !self.open.raised() && self.open.above_since.is_none() {
            self.open.eyes_shut();
        }
    }

    /// The person is talking (`mouth::Speech`): the brows move with what
    /// they say, often as far and as long as a raise that is meant. No raise
    /// starts while they talk, and one under way but not yet fired is
    /// dropped; once the talking is over, a raise must be seen to start from
    /// rest. A raise already fired goes on (it began with the mouth still).
    pub fn talking(&mut self) {
        self.open.start_from_rest_again();
        if let Some(look) = self.look.as_mut() {
            look.switch.start_from_rest_again();
        }
    }

    /// Whether the brows are raised now.
    #[must_use]
    pub fn raised(&self) -> bool {
        self.open.raised() || self.look.as_ref().is_some_and(|l| l.active && l.switch.raised())
    }

    /// The last lift above the rest level in force (for diagnostics and plots).
    #[must_use]
    pub fn last_lift(&self) -> f64 {
        self.look.as_ref().filter(|l| l.active).map_or(self.open.last_lift, |l| l.switch.last_lift)
    }

    /// Each brow's last lift above its own rest level in force (the
    /// subject's left, then right; for calibration).
    #[must_use]
    pub fn last_side_lifts(&self) -> Option<[f64; 2]> {
        self.look.as_ref().filter(|l| l.active).map_or(self.open.last_side_lifts, |l| l.switch.last_side_lifts)
    }
}

/// Whether two brows' lifts are one raise of both: the lesser at least
/// `BROWS_TOGETHER` of the greater (and the greater above nothing).
#[must_use]
pub fn together(lifts: [f64; 2]) -> bool {
    let (lo, hi) = (lifts[0].min(lifts[1]), lifts[0].max(lifts[1]));
    hi > 0.0 && lo >= BROWS_TOGETHER * hi
}

/// The eyebrow above `eye`: the darkest thick band along the face's up axis,
/// between 0.15 and 0.5 inter-ocular distances above the eye centre.
pub(crate) fn find_brow(gray: &Mat, eye: Point, e: Point, up: Point, iod: f64) -> Result<Point, VisionError> {
    let half_w = BROW_PROFILE_HALF_WIDTH * iod;
    // The profile reaches a little higher than a brow may be, to see the skin above it.
    let (lo, hi, top) = (BROW_RANGE.0 * iod, BROW_RANGE.1 * iod, BROW_RANGE.2 * iod);
    let steps = (top - lo).ceil() as usize + 1;
    let last_band = (hi - lo).ceil() as usize;
    let mut profile = Vec::with_capacity(steps);
    for k in 0..steps {
        let h = lo + k as f64;
        let mut sum = 0.0;
        let mut n = 0.0;
        let mut s = -half_w;
        while s <= half_w {
            let x = eye[0] + s * e[0] + h * up[0];
            let y = eye[1] + s * e[1] + h * up[1];
            #[allow(clippy::cast_possible_truncation)]
            let (xi, yi) = (x.round() as i32, y.round() as i32);
            if xi >= 0 && yi >= 0 && xi < gray.cols() && yi < gray.rows() {
                sum += f64::from(*gray.at_2d::<u8>(yi, xi)?);
                n += 1.0;
            }
            s += 1.0;
        }
        profile.push(if n > 0.0 { sum / n } else { 255.0 });
    }
    // Smooth over a brow's thickness so that a thin glasses rim does not win.
    let k = ((BROW_THICKNESS * iod).round() as usize).max(1);
    let smooth: Vec<f64> = (0..profile.len())
        .map(|i| {
            let a = i.saturating_sub(k);
            let b = (i + k).min(profile.len() - 1);
            profile[a..=b].iter().sum::<f64>() / (b - a + 1) as f64
        })
        .collect();
    // Dark bands are local minima; a band's depth is how much brighter the skin
    // between it and the eye gets. The brow is the band nearest the eye that is
    // nearly as deep as the deepest (hair above the brows is a band too).
    // A band needs brighter skin on both sides: the top of the range, where
    // hair may begin, is an edge, not a band.
    // A flat-bottomed minimum (a band narrower than the smoothing) counts once, at its middle.
    let mut bands = Vec::new();
    let end = smooth.len().saturating_sub(1).min(last_band + 1);
    let mut i = 1;
    while i < end {
        let mut j = i;
        while j + 1 < smooth.len() - 1 && (smooth[j + 1] - smooth[i]).abs() < 1e-9 {
            j += 1;
        }
        if smooth[i] < smooth[i - 1] && smooth[j] < smooth[j + 1] {
            let below = smooth[..i].iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let above = smooth[j + 1..].iter().copied().fold(f64::NEG_INFINITY, f64::max);
            bands.push((usize::midpoint(i, j), below.min(above) - smooth[i]));
        }
        i = j + 1;
    }
    let deepest = bands.iter().map(|b| b.1).fold(0.0, f64::max);
    let h = if let Some(b) = bands.iter().find(|b| b.1 >= BROW_BAND_SHARE * deepest && b.1 > 0.0) {
        lo + b.0 as f64
    } else {
        // No thick band: a faint brow on skin that brightens towards the
        // forehead (a small or blurred face) is smoothed into the slope,
        // and the darkest place left is the lid at the bottom of the range.
        // The deepest dip of the profile itself (darker than what lies
        // within a brow's thickness on both sides), where a brow may be and
        // the lid's crease is not; else, as before, the darkest place.
        let from = (BROW_THIN_FROM * iod - lo).ceil() as usize;
        let darkest = || smooth.iter().enumerate().min_by(|a, b| a.1.total_cmp(b.1)).map_or(0, |m| m.0);
        lo + thin_dip(&profile, k, from, last_band).unwrap_or_else(darkest) as f64
    };
    Ok([eye[0] + h * up[0], eye[1] + h * up[1]])
}

/// The deepest dip of `profile` from `from` to `last`: the place darker
/// than the brightest within `k` on each side, by the most (the lesser of
/// the two rises). Not at an end, where one side is unseen.
fn thin_dip(profile: &[f64], k: usize, from: usize, last: usize) -> Option<usize> {
    (from.max(1)..profile.len().saturating_sub(1).min(last + 1))
        .filter_map(|i| {
            let below = profile[i.saturating_sub(k)..i].iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let above = profile[i + 1..=(i + k).min(profile.len() - 1)].iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let depth = below.min(above) - profile[i];
            (depth >= BROW_THIN_DEPTH).then_some((i, depth))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BROW: BrowTiming = BrowTiming { on: 0.045, off: 0.025, min_ms: 90.0, refractory_ms: 300.0, together: true };

    fn run_brows(b: &mut BrowSwitch, n: usize, dt: f64, t0: f64, f: impl Fn(usize) -> f64) -> (Vec<Event>, Vec<bool>) {
        let mut ev = Vec::new();
        let mut up = Vec::new();
        for i in 0..n {
            up.push(b.update(Some(BrowHeight::both(f(i))), t0 + i as f64 * dt, BROW, &mut ev));
        }
        (ev, up)
    }

    #[test]
    fn a_raise_fires_once_and_a_subtle_one_never() {
        let mut b = BrowSwitch::default();
        run_brows(&mut b, 60, 33.3, 0.0, |i| 0.34 + 0.003 * ((i as f64) * 0.9).sin());
        let (ev, up) = run_brows(&mut b, 40, 33.3, 2000.0, |i| if (5..25).contains(&i) { 0.34 + 0.08 } else { 0.34 });
        assert_eq!(ev, vec![Event::BrowRaise]);
        assert!(up[10] && !up[30]);
        let (ev, _) = run_brows(&mut b, 40, 33.3, 4000.0, |i| if (5..25).contains(&i) { 0.34 + 0.025 } else { 0.34 });
        assert!(ev.is_empty(), "a 2.5 % raise is ignored");
    }

    /// A moving head can leave the brow measure a little above its old
    /// rest after a raise (p1's raise on a moving copy came down from 0.08
    /// to 0.025 and stayed): the raise is over once it is most of the way
    /// down, not held on until it paused instead of clicking. A raise that
    /// sags a little while held stays raised.
    #[test]
    fn a_raise_that_comes_most_of_the_way_down_is_over() {
        let mut b = BrowSwitch::default();
        run_brows(&mut b, 60, 33.3, 0.0, |_| 0.34);
        let (ev, up) = run_brows(&mut b, 90, 33.3, 2000.0, |i| match i {
            5..20 => 0.42,
            20..35 => 0.40,
            35.. => 0.37,
            _ => 0.34,
        });
        assert_eq!(ev, vec![Event::BrowRaise]);
        assert!(up[15] && up[30], "held, and sagging a little: {up:?}");
        assert!(!up[37], "down from 0.08 to 0.03 above the old rest: {up:?}");
    }

    /// p2's face growing by a seventh on a moving copy: the measure crept
    /// from rest to the threshold, over it on one frame, then hovered just
    /// under it, and the raise fired when it was over it again half a
    /// second later. A raise holds above the threshold within the onset
    /// time; one that dips under it for a frame on its way up still fires.
    #[test]
    fn a_measure_that_hovers_round_the_threshold_is_no_raise() {
        let on = BROW.on;
        let mut b = BrowSwitch::default();
        run_brows(&mut b, 60, 56.0, 0.0, |_| 0.34);
        // Over the threshold on one frame, under it for half a second, over it again.
        let (ev, _) = run_brows(&mut b, 30, 56.0, 3400.0, |i| match i {
            0..3 => 0.34 + 0.014 * i as f64,
            3 | 13..18 => 0.34 + on + 0.003,
            _ => 0.34 + on - 0.006,
        });
        assert!(ev.is_empty(), "{ev:?}");
        let mut b = BrowSwitch::default();
        run_brows(&mut b, 60, 56.0, 0.0, |_| 0.34);
        let (ev, _) = run_brows(&mut b, 30, 56.0, 3400.0, |i| match i {
            2 => 0.34 + on + 0.01,
            3 => 0.34 + on - 0.005,
            4..20 => 0.42,
            _ => 0.34,
        });
        assert_eq!(ev, vec![Event::BrowRaise]);
    }

    #[test]
    fn the_brow_baseline_follows_a_slow_drift_without_firing() {
        let mut b = BrowSwitch::default();
        // The user leans back over 20 s: the normalized distance creeps by 0.06.
        let (ev, _) = run_brows(&mut b, 600, 33.3, 0.0, |i| 0.34 + 0.06 * (i as f64 / 600.0));
        assert!(ev.is_empty());
    }

    #[test]
    fn brows_seen_high_after_a_blink_must_first_be_seen_at_rest() {
        let mut b = BrowSwitch::default();
        run_brows(&mut b, 60, 33.3, 0.0, |_| 0.34);
        let mut ev = Vec::new();
        for i in 0..5 {
            b.eyes_shut();
            b.update(None, 2000.0 + f64::from(i) * 33.3, BROW, &mut ev);
        }
        // The eyes reopen with the brow measure still settling down: no raise.
        let (ev, _) = run_brows(&mut b, 20, 33.3, 2200.0, |i| if i < 5 { 0.42 - 0.015 * i as f64 } else { 0.34 });
        assert!(ev.is_empty(), "{ev:?}");
        // A raise from rest afterwards counts.
        let (ev, _) = run_brows(&mut b, 20, 33.3, 3000.0, |i| if (3..15).contains(&i) { 0.42 } else { 0.34 });
        assert_eq!(ev, vec![Event::BrowRaise]);
    }

    /// p2 after a long squint (18 fps): as the lids reopened, the measure
    /// climbed back through the rest band in one frame and settled a little
    /// above rest. One frame at rest after the eyes shut is not rest.
    #[test]
    fn after_the_eyes_shut_one_frame_passing_through_rest_is_not_rest() {
        let dt = 56.0;
        let shut = |b: &mut BrowSwitch, t0: f64| {
            let mut ev = Vec::new();
            for i in 0..5 {
                b.eyes_shut();
                b.update(None, t0 + f64::from(i) * dt, BROW, &mut ev);
            }
        };
        let mut b = BrowSwitch::default();
        run_brows(&mut b, 60, dt, 0.0, |_| 0.34);
        shut(&mut b, 3400.0);
        let (ev, _) = run_brows(&mut b, 12, dt, 3700.0, |i| if i == 0 { 0.35 } else { 0.39 });
        assert!(ev.is_empty(), "one frame at rest, then the level the reopened lids leave: {ev:?}");
        // Seen at rest on two frames, a raise counts.
        let mut b = BrowSwitch::default();
        run_brows(&mut b, 60, dt, 0.0, |_| 0.34);
        shut(&mut b, 3400.0);
        let (ev, _) = run_brows(&mut b, 12, dt, 3700.0, |i| if i < 2 { 0.345 } else { 0.39 });
        assert_eq!(ev, vec![Event::BrowRaise]);
    }

    /// ZJU s16 at 10 fps: the brows rose with a blink that the eye state saw
    /// only as the lids reopened, on the frame the raise would have fired.
    #[test]
    fn a_blink_drops_a_raise_under_way_that_has_not_fired() {
        let dt = 100.0;
        let open = |b: &mut Brows, d: f64, t: f64, ev: &mut Vec<Event>| b.update(Some(BrowHeight::both(d)), EyesNow::Open, (0.0, 0.0), t, BROW, ev);
        let mut b = Brows::default();
        let mut ev = Vec::new();
        for i in 0..40 {
            open(&mut b, 0.34, f64::from(i) * dt, &mut ev);
        }
        open(&mut b, 0.40, 4000.0, &mut ev);
        b.blinked(4000.0);
        for i in 1..6 {
            open(&mut b, 0.40, 4000.0 + f64::from(i) * dt, &mut ev);
        }
        assert!(ev.is_empty(), "{ev:?}");
        // Without the blink, the same rise is a raise.
        let mut b = Brows::default();
        for i in 0..40 {
            open(&mut b, 0.34, f64::from(i) * dt, &mut ev);
        }
        for i in 0..6 {
            open(&mut b, 0.40, 4000.0 + f64::from(i) * dt, &mut ev);
        }
        assert_eq!(ev, vec![Event::BrowRaise]);
    }

    #[test]
    fn a_quick_new_posture_that_stays_is_followed_and_a_stuck_raise_lets_go() {
        let mut b = BrowSwitch::default();
        run_brows(&mut b, 60, 33.3, 0.0, |_| 0.34);
        // The brows go up quickly and stay there (the user now rests like this): one raise, released later.
        let (ev, up) = run_brows(&mut b, 400, 33.3, 2000.0, |i| if i >= 5 { 0.42 } else { 0.34 });
        assert_eq!(ev, vec![Event::BrowRaise]);
        assert!(up[50] && !up[399], "held {}, then let go", up.iter().filter(|u| **u).count());
        // From the new rest, a raise counts again.
        let (ev, _) = run_brows(&mut b, 40, 33.3, 16_000.0, |i| if (5..25).contains(&i) { 0.50 } else { 0.42 });
        assert_eq!(ev, vec![Event::BrowRaise]);
    }

    #[test]
    fn a_refractory_period_ignores_a_quick_repeat() {
        let mut b = BrowSwitch::default();
        run_brows(&mut b, 60, 33.3, 0.0, |_| 0.34);
        let (ev, _) = run_brows(&mut b, 40, 33.3, 2000.0, |i| if (2..10).contains(&i) || (12..20).contains(&i) { 0.42 } else { 0.34 });
        assert_eq!(ev, vec![Event::BrowRaise]);
    }

    /// p2 lowers her gaze after a blink: the tracked eye moves down, so the
    /// brows' height above it climbs by 0.05 over a quarter of a second and
    /// stays, while against the feature between the eyes it does not move.
    #[test]
    fn a_glance_that_moves_only_the_eye_is_no_raise_and_a_raise_still_is() {
        let feed = |b: &mut BrowSwitch, ev: &mut Vec<Event>, t0: f64, n: usize, f: &dyn Fn(usize) -> BrowHeight| {
            for i in 0..n {
                b.update(Some(f(i)), t0 + i as f64 * 55.0, BROW, ev);
            }
        };
        let rest = |_| BrowHeight { from_eye: 0.347, from_feature: 0.25, from_tracked_eye: None, sides: Some([0.347; 2]) };
        let mut ev = Vec::new();
        let mut b = BrowSwitch::default();
        feed(&mut b, &mut ev, 0.0, 60, &rest);
        let glance = |i: usize| BrowHeight { from_eye: 0.347 + 0.05 * (i as f64 / 5.0).min(1.0), from_feature: 0.25 + 0.002 * (i as f64 * 0.8).sin(), from_tracked_eye: None, sides: Some([0.347 + 0.05 * (i as f64 / 5.0).min(1.0); 2]) };
        feed(&mut b, &mut ev, 4000.0, 30, &glance);
        assert!(ev.is_empty(), "a glance: {ev:?}");
        // The same climb with the brows rising against the feature too is a raise.
        let mut b = BrowSwitch::default();
        feed(&mut b, &mut ev, 0.0, 60, &rest);
        let raise = |i: usize| {
            let lift = 0.05 * (i as f64 / 5.0).min(1.0);
            BrowHeight { from_eye: 0.347 + lift, from_feature: 0.25 + 0.8 * lift, from_tracked_eye: None, sides: Some([0.347 + lift; 2]) }
        };
        feed(&mut b, &mut ev, 4000.0, 30, &raise);
        assert_eq!(ev, vec![Event::BrowRaise]);
    }

    /// A raise lifts both brows. One brow that rises alone (a face-maker's
    /// cocked brow on the real talking set: 0.17 against 0.001; a brow
    /// tracked onto the hair line of a small face rolling at 9 fps: 0.035
    /// against 0.069) does not click, unless the profile lets one brow do
    /// (a person who can raise one only). A raise whose second brow follows
    /// a frame late fires once both are up.
    #[test]
    fn one_brow_alone_is_no_raise_unless_the_profile_says_so() {
        let height = |left: f64, right: f64| BrowHeight {
            from_eye: 0.35 + f64::midpoint(left, right),
            from_feature: 0.30 + f64::midpoint(left, right),
            from_tracked_eye: Some(0.36 + f64::midpoint(left, right)),
            sides: Some([0.36 + left, 0.36 + right]),
        };
        let run = |together: bool, f: &dyn Fn(usize) -> (f64, f64)| {
            let mut b = BrowSwitch::default();
            let mut ev = Vec::new();
            let timing = BrowTiming { together, ..BROW };
            for i in 0..150 {
                let (l, r) = if i < 90 { (0.0, 0.0) } else { f(i - 90) };
                b.update(Some(height(l, r)), i as f64 * 33.3, timing, &mut ev);
            }
            ev
        };
        let ramp = |i: usize, to: f64| to * (i as f64 / 4.0).min(1.0);
        let cocked = |i: usize| if i < 20 { (ramp(i, 0.14), 0.0) } else { (0.0, 0.0) };
        assert!(run(true, &cocked).is_empty(), "one brow alone");
        assert_eq!(run(false, &cocked), vec![Event::BrowRaise], "one brow is enough when the profile says so");
        // Mostly one brow: the other rose less than 0.6 of it.
        let uneven = |i: usize| if i < 20 { (ramp(i, 0.10), ramp(i, 0.05)) } else { (0.0, 0.0) };
        assert!(run(true, &uneven).is_empty(), "0.05 against 0.10");
        for (name, f) in [
            ("both alike", &(|i: usize| if i < 20 { (ramp(i, 0.08), ramp(i, 0.075)) } else { (0.0, 0.0) }) as &dyn Fn(usize) -> (f64, f64)),
            ("one a little less", &|i: usize| if i < 20 { (ramp(i, 0.08), ramp(i, 0.056)) } else { (0.0, 0.0) }),
            ("the second a frame late", &|i: usize| if i < 20 { (ramp(i, 0.08), ramp(i.saturating_sub(1), 0.08)) } else { (0.0, 0.0) }),
        ] {
            assert_eq!(run(true, f), vec![Event::BrowRaise], "{name}");
        }
    }

    /// A head that moves while its owner talks: the eyes' steady place lags
    /// the tracked eyes, and the brows seem to climb 0.055 above it; above
    /// the tracked eyes they climb 0.03 (zju-s11 laid over with head motion).
    /// A lid that closes unseen (a blink behind a glasses frame) moves the
    /// tracked eye down instead: 0.07 above it, not above the steady place.
    /// Neither is a raise; a raise lifts the brows above both.
    #[test]
    fn a_lift_against_only_one_of_the_eyes_two_places_is_no_raise() {
        let feed = |b: &mut BrowSwitch, ev: &mut Vec<Event>, t0: f64, n: usize, f: &dyn Fn(usize) -> BrowHeight| {
            for i in 0..n {
                b.update(Some(f(i)), t0 + i as f64 * 33.3, BROW, ev);
            }
        };
        let ramp = |i: usize, to: f64| to * (i as f64 / 6.0).min(1.0);
        let at = |steady: f64, tracked: f64| BrowHeight { from_eye: 0.35 + steady, from_feature: 0.30 + steady.max(tracked), from_tracked_eye: Some(0.36 + tracked), sides: Some([0.36 + tracked; 2]) };
        for (name, steady, tracked, raises) in [("moving head", 0.055, 0.03, 0), ("unseen blink", 0.0, 0.07, 0), ("raise", 0.07, 0.065, 1)] {
            let mut b = BrowSwitch::default();
            let mut ev = Vec::new();
            feed(&mut b, &mut ev, 0.0, 90, &|_| at(0.0, 0.0));
            feed(&mut b, &mut ev, 3000.0, 30, &|i| at(ramp(i, steady), ramp(i, tracked)));
            assert_eq!(ev.len(), raises, "{name}: {ev:?}");
        }
        // While the eyes close, only the steady place is measured: a raise through a blink still counts.
        let mut b = BrowSwitch::default();
        let mut ev = Vec::new();
        feed(&mut b, &mut ev, 0.0, 90, &|_| at(0.0, 0.0));
        feed(&mut b, &mut ev, 3000.0, 30, &|i| BrowHeight { from_tracked_eye: None, sides: None, ..at(ramp(i, 0.07), 0.0) });
        assert_eq!(ev, vec![Event::BrowRaise]);
    }

    /// A raised brow stretches the lid above one eye, which may then look
    /// part way closed on the frame after the brows started to rise (p2's
    /// synthetic raises at 9 fps). The raise moved first and keeps the frame:
    /// it fires when it would have without the lid, not two frames later.
    #[test]
    fn a_lid_stretched_by_a_raise_under_way_does_not_hold_it_up() {
        let mut b = Brows::default();
        let raise = |i: usize| {
            let lid = if i == 41 { (0.0, 0.7) } else { (0.0, 0.0) };
            (if i >= 40 { 0.42 } else { 0.34 }, EyesNow::Open, lid)
        };
        let (ev, up) = run_look(&mut b, 60, 0.0, raise);
        assert_eq!(ev, vec![Event::BrowRaise]);
        assert!(up[42], "raised two frames after it began: {:?}", up.iter().position(|u| *u));
        // A lid that moves on the brows' first frame up owns that frame and the next.
        let mut b = Brows::default();
        let lid_first = |i: usize| {
            let lid = if (40..42).contains(&i) { (0.0, 0.7) } else { (0.0, 0.0) };
            (if i >= 40 { 0.42 } else { 0.34 }, EyesNow::Open, lid)
        };
        let (_, up) = run_look(&mut b, 60, 0.0, lid_first);
        assert_eq!(up.iter().position(|u| *u), Some(44));
    }

    /// At 9 fps a raise may be caught part way on its first frame (past
    /// `off`, short of `on`), and its stretch of the lid shows on the next
    /// (p2's raise at 56.0 s, every 2nd frame). The brows left rest first and
    /// keep that frame: the raise fires on the frame after it, as without the lid.
    #[test]
    fn a_raise_caught_part_way_keeps_the_frame_its_lid_stretch_shows_on() {
        let raise = |i: usize| {
            let d = match i {
                ..40 => 0.34,
                40 => 0.34 + 0.03,
                _ => 0.42,
            };
            let lid = if i == 41 { (0.0, 0.76) } else { (0.0, 0.0) };
            (BrowHeight::both(d), EyesNow::Open, lid)
        };
        let (ev, up) = run_at(&mut Brows::default(), 60, 111.0, raise);
        assert_eq!(ev, vec![Event::BrowRaise]);
        assert_eq!(up.iter().position(|u| *u), Some(42));
    }

    /// A slow camera may catch a blink only as it reopens: one frame with a
    /// lid past the threshold, which the eye state need not call closed,
    /// and the blink is known on the next (zju-s16 at 10 fps). Her brows
    /// rise with her blinks and settle over half a second: no raise. The
    /// brows must be seen at rest again first, as after a blink seen whole.
    #[test]
    fn brows_that_rise_with_a_blink_caught_part_way_are_no_raise() {
        let frame = |i: usize| {
            let d = if (30..36).contains(&i) { 0.41 + 0.08 - 0.01 * (i - 30) as f64 } else { 0.41 };
            let lid = match i {
                30 => (1.2, 0.55),
                31 => (0.41, 0.37),
                _ => (0.0, 0.0),
            };
            (BrowHeight::both(d), lid)
        };
        let run = |b: &mut Brows, blink_known: bool| {
            let mut ev = Vec::new();
            for i in 0..60 {
                if blink_known && i == 31 {
                    b.blinked(i as f64 * 100.0);
                }
                let (h, lid) = frame(i);
                b.update(Some(h), EyesNow::Open, lid, i as f64 * 100.0, BROW, &mut ev);
            }
            ev
        };
        let mut b = Brows::default();
        let ev = run(&mut b, true);
        assert!(ev.is_empty(), "{ev:?}");
        // Not told of the blink, the same frames would be a raise (a left click).
        assert_eq!(run(&mut Brows::default(), false), vec![Event::BrowRaise]);
        // A raise from rest afterwards counts.
        let mut ev = Vec::new();
        for i in 0..30_u32 {
            let d = if (10..20).contains(&i) { 0.49 } else { 0.41 };
            b.update(Some(BrowHeight::both(d)), EyesNow::Open, (0.0, 0.0), 6000.0 + f64::from(i) * 100.0, BROW, &mut ev);
        }
        assert_eq!(ev, vec![Event::BrowRaise]);
    }

    /// zju-s16 lit from behind (30 fps) and moving at 15 fps: a blink the eye
    /// state did not take for one (its closure reached 0.78 of the
    /// threshold), her brows rising with it by 0.05 to 0.1 eye distances and
    /// settling over half a second. The lids came down (`lids_fell`), so a
    /// raise must be seen to start from rest afterwards: no left click. A
    /// raise under way when the lids seem to fall (they stretch with it)
    /// still fires, and so does one from rest afterwards.
    #[test]
    fn brows_that_rise_with_a_shallow_blink_are_no_raise() {
        let shallow = |i: usize| {
            let d = match i {
                30..=31 => 0.46,
                32..=40 => 0.41 + 0.06 - 0.004 * (i - 32) as f64,
                _ => 0.41,
            };
            let lid = match i {
                30 => (0.78, 0.53),
                31 => (0.71, 0.27),
                _ => (0.0, 0.0),
            };
            (BrowHeight::both(d), lid)
        };
        let run = |b: &mut Brows, told: bool, f: &dyn Fn(usize) -> (BrowHeight, (f64, f64)), lids_at: usize| {
            let mut ev = Vec::new();
            for i in 0..60 {
                let (h, lid) = f(i);
                if told && i == lids_at {
                    b.lids_fell();
                }
                b.update(Some(h), EyesNow::Open, lid, i as f64 * 33.3, BROW, &mut ev);
            }
            ev
        };
        let mut b = Brows::default();
        assert!(run(&mut b, true, &shallow, 30).is_empty());
        // Not told that the lids came down, the same frames are a raise (a left click).
        assert_eq!(run(&mut Brows::default(), false, &shallow, 30), vec![Event::BrowRaise]);
        // A raise already over the threshold when its lid stretch looks like a fall fires ...
        let raise = |i: usize| {
            let d = if (30..50).contains(&i) { 0.47 } else { 0.41 };
            let lid = if i == 31 { (0.89, 0.7) } else { (0.0, 0.0) };
            (BrowHeight::both(d), lid)
        };
        assert_eq!(run(&mut Brows::default(), true, &raise, 31), vec![Event::BrowRaise]);
        // ... and a rise still under it when the lids fall is theirs (a blink
        // seen part of the way lifts the measure with it): no raise.
        let under = |i: usize| {
            let d = match i {
                30 => 0.44,
                31..50 => 0.47,
                _ => 0.41,
            };
            let lid = if i == 31 { (0.89, 0.7) } else { (0.0, 0.0) };
            (BrowHeight::both(d), lid)
        };
        assert!(run(&mut Brows::default(), true, &under, 31).is_empty());
        // Not told, the same rise is a raise.
        assert_eq!(run(&mut Brows::default(), false, &under, 31), vec![Event::BrowRaise]);
        // And a raise from rest after the shallow blink counts.
        let mut ev = Vec::new();
        for i in 0..40_u32 {
            let d = if (10..25).contains(&i) { 0.47 } else { 0.41 };
            b.update(Some(BrowHeight::both(d)), EyesNow::Open, (0.0, 0.0), 3000.0 + f64::from(i) * 33.3, BROW, &mut ev);
        }
        assert_eq!(ev, vec![Event::BrowRaise]);
    }

    /// p2 raises her brows a tenth of a second after a blink, while her
    /// lids still settle (one eye's closure over `BROW_EYES_BUSY`): the
    /// measure against the eyes is not taken there, but the one against the
    /// feature shows the brows at rest before they rise. Brows that rose
    /// with the blink are not at rest there; a lowering of the lids that
    /// was not given as a blink opens no such window; and brows up against
    /// the eyes after a blink but hardly against the skull (zju-s16) are no
    /// raise from there.
    #[test]
    fn a_raise_begun_as_the_lids_settle_after_a_blink_counts() {
        let dt = 56.0;
        let run = |skull_settling: f64, blink_given: bool, skull_rise: f64| {
            let mut b = Brows::default();
            let mut ev = Vec::new();
            let h = |eye: f64, skull: f64| BrowHeight { from_eye: 0.34 + eye, from_feature: 0.30 + skull, from_tracked_eye: None, sides: Some([0.34 + eye; 2]) };
            for i in 0..60_u32 {
                let t = f64::from(i) * dt;
                // 40..43 the blink (the eye measure moves with the lids);
                // 43..46 the lids settle; the brows rise from frame 44.
                let (height, eyes, lid) = match i {
                    40..43 => (h(0.03, 0.0), EyesNow::Closing, (1.5, 2.0)),
                    43 => (h(0.02, skull_settling), EyesNow::Open, (0.4, 1.0)),
                    44..46 => (h(0.06, skull_rise), EyesNow::Open, (0.3, 0.9)),
                    46..56 => (h(0.07, skull_rise), EyesNow::Open, (0.0, 0.0)),
                    _ => (h(0.0, 0.0), EyesNow::Open, (0.0, 0.0)),
                };
                if i == 43 && blink_given {
                    b.blinked(t);
                }
                b.update(Some(height), eyes, lid, t, BROW, &mut ev);
            }
            ev
        };
        assert_eq!(run(0.0, true, 0.06), vec![Event::BrowRaise], "a raise from rest seen against the skull as the lids settle");
        assert!(run(0.05, true, 0.06).is_empty(), "brows already up as the lids settle");
        assert!(run(0.0, false, 0.06).is_empty(), "no blink given: rest against the eyes is needed, as before");
        assert!(run(0.0, true, 0.025).is_empty(), "up against the eyes, half the threshold against the skull");
    }

    /// A raise starts with the brows rising against the skull, not only
    /// against the tracked eye. At 6 fps, after a frame the lids own (part
    /// way closed with a blink), zju-s16's eye measure is up 0.06 while the
    /// feature says the brows have not moved; they rise against it a frame
    /// later, 500 ms after they were last at rest: too slow for a raise.
    #[test]
    fn a_raise_must_start_against_the_skull() {
        let after_blink = |skull_first: f64| {
            move |i: usize| {
                let (eye, skull) = match i {
                    ..30 => (0.0, 0.0),
                    30 => (0.07, 0.02),
                    31 => (0.06, skull_first),
                    _ => (0.06, 0.03),
                };
                let lid = if i == 30 { (0.89, 0.42) } else { (0.0, 0.0) };
                (BrowHeight { from_eye: 0.41 + eye, from_feature: 0.39 + skull, from_tracked_eye: None, sides: Some([0.41 + eye; 2]) }, EyesNow::Open, lid)
            }
        };
        let (ev, _) = run_at(&mut Brows::default(), 45, 167.0, after_blink(0.0));
        assert!(ev.is_empty(), "{ev:?}");
        // Had the brows risen against the feature on that frame too, it would be a raise.
        let (ev, _) = run_at(&mut Brows::default(), 45, 167.0, after_blink(0.03));
        assert_eq!(ev, vec![Event::BrowRaise]);
    }

    /// Feeds `n` frames `dt` ms apart from 0: each frame's heights, eye state and closures.
    fn run_at(b: &mut Brows, n: usize, dt: f64, f: impl Fn(usize) -> (BrowHeight, EyesNow, (f64, f64))) -> (Vec<Event>, Vec<bool>) {
        let mut ev = Vec::new();
        let mut up = Vec::new();
        for i in 0..n {
            let (h, eyes, closure) = f(i);
            up.push(b.update(Some(h), eyes, closure, i as f64 * dt, BROW, &mut ev));
        }
        (ev, up)
    }

    /// Feeds `n` frames 55 ms apart (an 18 fps camera) from `t0`: each frame's distance, eye state and closures.
    fn run_look(b: &mut Brows, n: usize, t0: f64, f: impl Fn(usize) -> (f64, EyesNow, (f64, f64))) -> (Vec<Event>, Vec<bool>) {
        let mut ev = Vec::new();
        let mut up = Vec::new();
        for i in 0..n {
            let (d, eyes, closure) = f(i);
            up.push(b.update(Some(BrowHeight::both(d)), eyes, closure, t0 + i as f64 * 55.0, BROW, &mut ev));
        }
        (ev, up)
    }

    /// A look up with the lids half lowered (p2's habit): the first 400 ms may
    /// still be a blink, then the closure holds. The look itself lifts the brow measure by 0.06.
    fn look_up(i: usize, raise: impl Fn(usize) -> f64) -> (f64, EyesNow, (f64, f64)) {
        let eyes = if i < 8 { EyesNow::Closing } else { EyesNow::Holding };
        (0.306 + 0.064 * (i as f64 / 4.0).min(1.0) + raise(i), eyes, (2.3 + 0.05 * (i as f64 * 1.3).sin(), 5.8 + 0.1 * (i as f64 * 0.7).cos()))
    }

    #[test]
    fn a_raise_during_a_held_look_counts_against_the_looks_own_level() {
        let mut b = Brows::default();
        let open = |_| (0.306, EyesNow::Open, (0.0, 0.1));
        run_look(&mut b, 60, 0.0, open);
        // Entering the look moves the measure, which is not a raise.
        let (ev, _) = run_look(&mut b, 36, 4000.0, |i| look_up(i, |_| 0.0));
        assert!(ev.is_empty(), "the look itself: {ev:?}");
        // A raise of 0.1 inside a look: one event, and the brows are down again when it ends.
        let (ev, up) = run_look(&mut b, 36, 6000.0, |i| look_up(i, |i| if (14..28).contains(&i) { 0.1 } else { 0.0 }));
        assert_eq!(ev, vec![Event::BrowRaise]);
        assert!(up[20] && !up[34]);
        // Back to open eyes at the old level: nothing.
        let (ev, up) = run_look(&mut b, 20, 8000.0, open);
        assert!(ev.is_empty() && !up.contains(&true), "{ev:?}");
    }

    #[test]
    fn the_eyes_changing_inside_a_look_is_no_raise() {
        let mut b = Brows::default();
        run_look(&mut b, 60, 0.0, |_| (0.34, EyesNow::Open, (0.0, 0.0)));
        // Eyes held lowered for a second, then one eye opens half way while the measure climbs by 0.1.
        let (ev, _) = run_look(&mut b, 40, 4000.0, |i| {
            let eyes = if i < 8 { EyesNow::Closing } else { EyesNow::Holding };
            if i < 20 { (0.34, eyes, (3.5, 4.5)) } else { (0.34 + 0.1 * ((i - 19) as f64 / 3.0).min(1.0), eyes, (1.2, 4.2)) }
        });
        assert!(ev.is_empty(), "{ev:?}");
        // A blink's own closure, however the measure moves, never raises.
        let (ev, _) = run_look(&mut b, 7, 7000.0, |i| (0.34 + 0.03 * i as f64, EyesNow::Closing, (1.0 + i as f64, 1.0 + i as f64)));
        assert!(ev.is_empty(), "{ev:?}");
    }

    /// One eye held shut on a small face: the brow template flips between
    /// two places, so the look's measure wanders by ±0.08. A stretch at 0.08
    /// to 0.15 in it is that wandering, not a raise.
    #[test]
    fn a_look_whose_measure_wanders_raises_nothing() {
        let mut b = Brows::default();
        run_look(&mut b, 60, 0.0, |_| (0.34, EyesNow::Open, (0.0, 0.0)));
        let (ev, _) = run_look(&mut b, 30, 4000.0, |i| {
            let eyes = if i < 8 { EyesNow::Closing } else { EyesNow::Holding };
            let wander = match i % 5 {
                0 | 3 => 0.09,
                1 | 4 => -0.055,
                _ => 0.0,
            };
            // At the end it sits high for a quarter of a second, as it did on the synthetic clip.
            let lift = match i {
                24..=26 => 0.08,
                27.. => 0.15,
                _ => wander,
            };
            (0.34 + lift, eyes, (3.7, 0.7))
        });
        assert!(ev.is_empty(), "{ev:?}");
    }

    /// A 200×240 grey picture of `background` whose columns 60 to 139 (a
    /// face round x = 100) have row y's grey `grey_at(y)`.
    fn rows_painted(background: f64, grey_at: impl Fn(i32) -> u8) -> Mat {
        let mut img = Mat::new_rows_cols_with_default(240, 200, opencv::core::CV_8UC1, opencv::core::Scalar::all(background)).expect("mat");
        for y in 0..240 {
            let v = grey_at(y);
            for x in 60..140 {
                *img.at_2d_mut::<u8>(y, x).expect("px") = v;
            }
        }
        img
    }

    #[test]
    fn the_brow_is_the_dark_band_above_the_eye_not_the_hair_above_it() {
        // A light face: a brow 0.3 IOD above the eye, hair from 0.58 IOD up.
        let iod = 60.0;
        let eye = [100.0, 120.0];
        let img = rows_painted(180.0, |y| {
            let h = (eye[1] - f64::from(y)) / iod;
            if (0.26..0.34).contains(&h) { 60 } else if h >= 0.58 { 40 } else { 180 }
        });
        let brow = find_brow(&img, eye, [1.0, 0.0], [0.0, -1.0], iod).expect("brow");
        assert!(((eye[1] - brow[1]) / iod - 0.3).abs() < 0.04, "{brow:?}");
    }

    /// A small face (33 px between the eyes, p2's at 0.4 of her size): the
    /// skin brightens from the lid up to the forehead, and the brow is a
    /// faint dip 0.39 eye distances up, 3 px thick. Smoothed over a brow's
    /// thickness the dip is gone into the slope, and the darkest place left
    /// was the lid at the bottom of the range: the brow switch then followed
    /// the lid, which hardly moves with a raise (0 of 8 raises on her clip
    /// at that size). The dip itself is the brow; and a darker crease just
    /// over the eye (0.2 up) is not taken for it.
    #[test]
    fn a_faint_brow_on_a_brightening_slope_is_found_and_the_lids_crease_is_not() {
        let iod = 32.7;
        let eye = [100.0, 120.0];
        // Grey levels up from 0.15 eye distances, a pixel a step, as measured on her frame.
        let measured = [84, 95, 101, 107, 110, 115, 112, 106, 102, 110, 143, 178, 198, 206, 210, 211, 209];
        let paint = |crease: bool| {
            rows_painted(80.0, |y| {
                let step = (eye[1] - f64::from(y) - BROW_RANGE.0 * iod).round();
                if crease && (1.0..=2.0).contains(&step) {
                    60 // darker than the brow, 0.18–0.21 up
                } else if step < 0.0 {
                    80
                } else {
                    measured.get(step as usize).copied().unwrap_or(209)
                }
            })
        };
        for crease in [false, true] {
            let brow = find_brow(&paint(crease), eye, [1.0, 0.0], [0.0, -1.0], iod).expect("brow");
            let up = (eye[1] - brow[1]) / iod;
            assert!((up - 0.39).abs() < 0.04, "crease {crease}: the brow found {up:.2} eye distances up, not 0.39");
        }
        // A wiggle of two grey levels on a plain slope is noise, not a brow:
        // the place found is the one without it.
        let slope = |wiggle: bool| {
            let img = rows_painted(80.0, |y| {
                let step = eye[1] - f64::from(y) - BROW_RANGE.0 * iod;
                let v = (90.0 + 6.0 * step.max(0.0)).min(250.0);
                // 2 under the level below it.
                (if wiggle && (7.0..8.0).contains(&step.round()) { v - 8.0 } else { v }) as u8
            });
            find_brow(&img, eye, [1.0, 0.0], [0.0, -1.0], iod).expect("brow")
        };
        let (with, without) = (slope(true), slope(false));
        assert!(crate::events::dist(with, without) < 1e-9, "{with:?} against {without:?}");
    }

    /// People who talk lift their brows with what they say, as far and as
    /// long as a meant raise: while they talk, no raise starts, and once the
    /// talking is over a raise must be seen to start from rest. A raise
    /// fired with the mouth still goes on if talking starts under it.
    #[test]
    fn brows_that_rise_while_talking_are_no_raise_and_a_raise_after_it_is() {
        // At rest, then a lift of 0.1 (a meant raise's size) from frame 40 to 70.
        let lift = |i: usize| BrowHeight::both(if (40..70).contains(&i) { 0.51 } else { 0.41 });
        let run = |b: &mut Brows, talking: &dyn Fn(usize) -> bool, f: &dyn Fn(usize) -> BrowHeight| {
            let mut ev = Vec::new();
            let mut up = Vec::new();
            for i in 0..100 {
                if talking(i) {
                    b.talking();
                }
                up.push(b.update(Some(f(i)), EyesNow::Open, (0.0, 0.0), i as f64 * 33.3, BROW, &mut ev));
            }
            (ev, up)
        };
        // Not talking: the lift is a raise.
        assert_eq!(run(&mut Brows::default(), &|_| false, &lift).0, vec![Event::BrowRaise]);
        // Talking through it: none, and the brows are never taken as raised.
        let (ev, up) = run(&mut Brows::default(), &|i| (30..80).contains(&i), &lift);
        assert!(ev.is_empty() && up.iter().all(|u| !u), "{ev:?}");
        // Talking that ends while the brows are still up: no raise either
        // (they were not seen to start from rest) ...
        let (ev, _) = run(&mut Brows::default(), &|i| (30..50).contains(&i), &lift);
        assert!(ev.is_empty(), "{ev:?}");
        // ... but a raise that starts from rest after the talking is one.
        let later = |i: usize| BrowHeight::both(if (60..80).contains(&i) { 0.51 } else { 0.41 });
        assert_eq!(run(&mut Brows::default(), &|i| (30..50).contains(&i), &later).0, vec![Event::BrowRaise]);
        // A raise fired before the talking began goes on.
        let (ev, up) = run(&mut Brows::default(), &|i| (50..90).contains(&i), &lift);
        assert_eq!(ev, vec![Event::BrowRaise]);
        assert!(up[60], "{up:?}");
    }
}
