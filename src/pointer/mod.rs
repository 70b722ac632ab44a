//! Pointer: from the tracked feature (or the head pose) to a screen position.
//!
//! The input is the feature's displacement from a neutral point, in
//! inter-ocular distances (so it does not change when the user sits closer),
//! mirrored so that turning the head to one's right moves the pointer right;
//! or, with `input = "pose"`, yaw and pitch in degrees. It is smoothed by a
//! One-Euro filter (smooth when still, responsive when moving), then mapped:
//! - `relative` (joystick): displacement beyond a dead band ("easy stop") gives
//!   a velocity, with a gain for each direction and an acceleration curve;
//! - `absolute`: the user's calibrated range of motion, however small and
//!   off-centre, maps onto the whole screen (Akram, Tiberii & Betke).
//!
//! The pointer holds still while a gesture is in progress (eyes closing,
//! brows rising), so a click lands where the user aimed. Recentring makes the
//! current head position the neutral one. Dwell reports when the pointer has
//! stayed within a radius for long enough.

mod filter;

pub use filter::OneEuro;

use crate::events::{Point, TrackState, dist};
use crate::pose::Pose;
use crate::vision::Observation;

pub use crate::settings::{Input, Mapping, PointerSettings, Range, ScreenArea};

/// The neutral position is the mean of this many first tracked frames.
const NEUTRAL_SETTLE_FRAMES: u32 = 15;

/// A gesture is under way (the pointer holds) from this much eye closure
/// (0 open, 1 like a blink) or brow lift (eye distances above rest).
pub const GESTURE_CLOSURE: f64 = 0.4;
pub const GESTURE_LIFT: f64 = 0.024;
/// After the lids moved (a blink, a squint) the pointer holds this much
/// longer: lids that reopen move the tracked point between the eyes for a
/// frame or two more. A live window that dropped frames saw a generated
/// blink's last frames with the lids back under the gesture's threshold and
/// the point still 3 px off: the pointer jumped 35 px and back, and a dwell
/// that had fired began again. (After a raise it follows at once.)
pub const GESTURE_SETTLE_MS: f64 = 150.0;

/// What the mapper says about one frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointerOut {
    pub pos: Point,
    /// The pointer has just dwelt (once per dwell).
    pub dwell: bool,
    /// The pointer was held still for a gesture in progress.
    pub frozen: bool,
    /// A dwell counting: where the pointer rests and how far the count has
    /// gone (0 to 1); `None` while it moves, once the dwell has fired, and
    /// while it is held.
    pub dwelling: Option<(Point, f64)>,
}

/// The pointer stage.
#[derive(Debug)]
pub struct PointerMapper {
    s: PointerSettings,
    pos: Point,
    neutral: Option<Point>,
    fx: OneEuro,
    fy: OneEuro,
    last_t: Option<f64>,
    /// Until when the pointer holds after the lids last moved.
    settle_until: Option<f64>,
    still_since: Option<(f64, Point)>,
    dwell_anchor: Option<(f64, Point)>,
    dwell_done: bool,
    last_input: Option<Point>,
    /// The filtered input's speed (input units per second), smoothed.
    input_speed: Point,
    settling: u32,
    /// Where the feature was (image pixels) when the mapper first saw it:
    /// the feature's input is its place from there, in eye distances.
    origin: Option<Point>,
}

/// The input's speed is smoothed over this long (s), for the relative mapping's lead.
const INPUT_SPEED_TAU_S: f64 = 0.06;

/// The raw input of a frame, mirrored (x towards the user's right, y down).
///
/// The feature's is its place from `origin` (set on the first frame that has
/// it) in eye distances. (It was its place from the image's corner in eye
/// distances: the head 5 % nearer, or an eye tracked 0.15 eye distances
/// off, then read as the head moved a quarter of an eye distance, and after
/// a hand passed over the face the pointer crossed the screen at full speed.)
fn raw_input(input: Input, obs: &Observation, pose: Option<&Pose>, origin: &mut Option<Point>) -> Option<Point> {
    match input {
        Input::Feature => {
            let f = obs.feature?;
            // While AHM carries the pointer there are no eyes: the eye distance it follows at.
            let iod = match (obs.le, obs.re) {
                (Some(le), Some(re)) => dist(le, re),
                _ => obs.carried?.iod,
            };
            let o = *origin.get_or_insert(f);
            (iod > 1.0).then(|| [-(f[0] - o[0]) / iod, (f[1] - o[1]) / iod])
        }
        // yaw > 0 turns the nose to the image right = the user's left; pitch > 0 is up.
        Input::Pose => pose.map(|p| [-p.yaw, -p.pitch]),
    }
}

impl PointerMapper {
    #[must_use]
    pub fn new(settings: &PointerSettings) -> Self {
        let s = settings.clone();
        Self {
            pos: s.mapped_area().center(),
            fx: OneEuro::new(s.min_cutoff, s.beta),
            fy: OneEuro::new(s.min_cutoff, s.beta),
            s,
            neutral: None,
            origin: None,
            last_t: None,
            settle_until: None,
            still_since: None,
            dwell_anchor: None,
            dwell_done: false,
            last_input: None,
            input_speed: [0.0, 0.0],
            settling: 0,
        }
    }

    /// The settings in force.
    #[must_use]
    pub fn settings(&self) -> &PointerSettings {
        &self.s
    }

    /// Replaces the settings and keeps what the mapper has learned: the
    /// pointer's place, the head's neutral position (unless the input
    /// changes between the feature and the head pose, whose neutral means
    /// something else) and the smoothing (unless its own settings change).
    /// A new mapper would take the head's pose at that moment as neutral,
    /// throwing a calibrated pointer to the centre and every later pose off
    /// by as much: choosing a click type on the toolbar did that.
    pub fn set_settings(&mut self, settings: &PointerSettings) {
        let old = std::mem::replace(&mut self.s, settings.clone());
        if old.input != self.s.input {
            self.neutral = None;
            self.origin = None;
            self.last_input = None;
            self.settling = 0;
        }
        if old.min_cutoff.to_bits() != self.s.min_cutoff.to_bits() || old.beta.to_bits() != self.s.beta.to_bits() {
            self.fx = OneEuro::new(self.s.min_cutoff, self.s.beta);
            self.fy = OneEuro::new(self.s.min_cutoff, self.s.beta);
        }
        self.pos = self.clamp(self.pos);
    }

    /// The pointer's position now.
    #[must_use]
    pub fn position(&self) -> Point {
        self.pos
    }

    /// The last input's displacement from the neutral position (what the
    /// calibrated range is made of), if the face was tracked.
    #[must_use]
    pub fn displacement(&self) -> Option<Point> {
        let (i, n) = (self.last_input?, self.neutral?);
        Some([i[0] - n[0], i[1] - n[1]])
    }

    /// Places the pointer (e.g. where the OS pointer is at start).
    pub fn set_position(&mut self, p: Point) {
        self.pos = self.clamp(p);
    }

    /// Makes the current head position the neutral one: the rest position of
    /// the relative mapping and the centre of reference of the calibrated range.
    pub fn recenter(&mut self) {
        if let Some(cur) = self.last_input {
            self.neutral = Some(cur);
            self.settling = NEUTRAL_SETTLE_FRAMES;
        }
    }

    /// Keeps `p` on the area the mapping covers (see [`PointerSettings::mapped_area`]).
    fn clamp(&self, p: Point) -> Point {
        let a = self.s.mapped_area();
        let (x0, y0) = (f64::from(a.x), f64::from(a.y));
        let (x1, y1) = (x0 + f64::from(a.width) - 1.0, y0 + f64::from(a.height) - 1.0);
        [p[0].clamp(x0, x1), p[1].clamp(y0, y1)]
    }

    /// The monitor the absolute mapping covers now (0: the whole desktop).
    #[must_use]
    pub fn monitor(&self) -> u32 {
        self.s.monitor
    }

    /// Makes the absolute mapping cover monitor `m` (0: the whole desktop).
    pub fn set_monitor(&mut self, m: u32) {
        self.s.monitor = m;
        self.pos = self.clamp(self.pos);
    }

    /// Moves on to the next monitor, from the left (after the last, the
    /// first): the absolute mapping covers it from now on, and the pointer
    /// jumps to its centre (in relative mode too: a quick way across).
    /// Returns its number and how many there are; `None` with fewer than
    /// two monitors known.
    pub fn next_monitor(&mut self) -> Option<(u32, usize)> {
        let n = self.s.monitors.len();
        if n < 2 {
            return None;
        }
        let next = self.s.monitor as usize % n + 1;
        self.s.monitor = u32::try_from(next).ok()?;
        self.pos = self.clamp(self.s.monitors[next - 1].center());
        self.dwell_anchor = None;
        Some((self.s.monitor, n))
    }

    /// Input units per eye distance (pose input is in degrees).
    fn unit(&self) -> f64 {
        match self.s.input {
            Input::Feature => 1.0,
            Input::Pose => PointerSettings::DEGREES_PER_IOD,
        }
    }

    /// Maps one frame. `hold` freezes the pointer (paused, or the switch stage
    /// says a gesture is under way).
    pub fn map(&mut self, obs: &Observation, pose: Option<&Pose>, t_ms: f64, hold: bool) -> PointerOut {
        let dt = self.last_t.map_or(0.0, |l| ((t_ms - l) / 1000.0).clamp(0.0, 0.5));
        self.last_t = Some(t_ms);
        let lids = obs.eyes_closed || obs.closure.0.max(obs.closure.1) > GESTURE_CLOSURE;
        if lids {
            self.settle_until = Some(t_ms + GESTURE_SETTLE_MS);
        }
        let gesture = lids || obs.brows_raised || obs.brow_lift > GESTURE_LIFT || self.settle_until.is_some_and(|until| t_ms < until);
        let raw = if matches!(obs.state, TrackState::Tracking | TrackState::Carried) { raw_input(self.s.input, obs, pose, &mut self.origin) } else { None };
        let Some(raw) = raw else {
            // No face: hold the last good position; never jump.
            self.fx.reset();
            self.fy.reset();
            self.dwell_anchor = None;
            return PointerOut { pos: self.pos, dwell: false, frozen: true, dwelling: None };
        };
        // Filter in eye-distance units whatever the input, so the same settings smooth both alike.
        let u = self.unit();
        let input = [self.fx.filter(raw[0] / u, t_ms) * u, self.fy.filter(raw[1] / u, t_ms) * u];
        if let Some(prev) = self.last_input.filter(|_| dt > 0.0) {
            // Smoothed over about 60 ms.
            let a = (dt / (dt + INPUT_SPEED_TAU_S)).clamp(0.0, 1.0);
            for k in 0..2 {
                self.input_speed[k] += a * ((input[k] - prev[k]) / dt - self.input_speed[k]);
            }
        }
        self.last_input = Some(input);
        // The neutral position settles over the first frames of tracking (one frame is noisy).
        let neutral = match (self.neutral, self.settling) {
            (Some(n), k) if k >= NEUTRAL_SETTLE_FRAMES => n,
            (Some(n), k) => {
                let w = 1.0 / f64::from(k + 1);
                let n = [n[0] + w * (input[0] - n[0]), n[1] + w * (input[1] - n[1])];
                self.settling = k + 1;
                self.neutral = Some(n);
                n
            }
            (None, _) => {
                self.settling = 1;
                self.neutral = Some(input);
                input
            }
        };
        // (Nor while the trackers may be on something else: `Observation::doubtful`.)
        let frozen = hold || gesture || obs.doubtful;
        if !frozen {
            let d = [input[0] - neutral[0], input[1] - neutral[1]];
            match self.s.mapping {
                Mapping::Relative => {
                    let u = self.unit();
                    // Coming back towards neutral, where the head will be
                    // `lead_ms` later (never past neutral); going out, where it is.
                    let lead = self.s.lead_ms / 1000.0;
                    let ahead = |d: f64, speed: f64| if d * speed < 0.0 { (d + speed * lead).clamp(d.min(0.0), d.max(0.0)) } else { d };
                    let d = [ahead(d[0], self.input_speed[0]), ahead(d[1], self.input_speed[1])];
                    let v = |d: f64, neg_gain: f64, pos_gain: f64| {
                        let m = (d.abs() / u - self.s.dead_band).max(0.0);
                        let g = if d < 0.0 { neg_gain } else { pos_gain };
                        (g * m.powf(self.s.acceleration)).min(self.s.max_speed) * d.signum()
                    };
                    let vx = v(d[0], self.s.gain_left, self.s.gain_right);
                    let vy = v(d[1], self.s.gain_up, self.s.gain_down);
                    self.pos = self.clamp([self.pos[0] + vx * dt, self.pos[1] + vy * dt]);
                }
                Mapping::Absolute => {
                    let r = self.s.range;
                    let a = self.s.absolute_area();
                    let fx = (d[0] - r.left) / (r.right - r.left);
                    let fy = (d[1] - r.top) / (r.bottom - r.top);
                    self.pos = self.clamp([f64::from(a.x) + fx * f64::from(a.width), f64::from(a.y) + fy * f64::from(a.height)]);
                }
            }
        }
        self.auto_recenter(input, neutral, t_ms, frozen);
        let dwell = !frozen && self.dwell(t_ms);
        let dwelling = match self.dwell_anchor {
            Some((since, at)) if !frozen && !self.dwell_done && self.s.dwell_ms > 0.0 => Some((at, ((t_ms - since) / self.s.dwell_ms).clamp(0.0, 1.0))),
            _ => None,
        };
        PointerOut { pos: self.pos, dwell, frozen, dwelling }
    }

    /// After resting near neutral (within twice the dead band) for the profile's time, recentre.
    fn auto_recenter(&mut self, input: Point, neutral: Point, t_ms: f64, frozen: bool) {
        if self.s.auto_recenter_ms <= 0.0 || self.s.mapping != Mapping::Relative || frozen {
            self.still_since = None;
            return;
        }
        let u = self.unit();
        let near = dist(input, neutral) / u <= 2.0 * self.s.dead_band;
        let still_tol = 0.01 * u;
        match self.still_since {
            Some((since, at)) if near && ((input[0] - at[0]).abs() < still_tol && (input[1] - at[1]).abs() < still_tol) => {
                if t_ms - since >= self.s.auto_recenter_ms {
                    self.neutral = Some(input);
                    self.still_since = Some((t_ms, input));
                }
            }
            _ => self.still_since = near.then_some((t_ms, input)),
        }
    }

    fn dwell(&mut self, t_ms: f64) -> bool {
        match self.dwell_anchor {
            Some((since, at)) if dist(self.pos, at) <= self.s.dwell_radius => {
                if !self.dwell_done && t_ms - since >= self.s.dwell_ms {
                    self.dwell_done = true;
                    return true;
                }
                false
            }
            _ => {
                self.dwell_anchor = Some((t_ms, self.pos));
                self.dwell_done = false;
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An observation of a tracked face whose feature sits at `f` with eyes 64 px apart.
    fn obs(f: Point) -> Observation {
        Observation {
            state: TrackState::Tracking,
            feature: Some(f),
            le: Some([f[0] + 32.0, f[1]]),
            re: Some([f[0] - 32.0, f[1]]),
            confidence: 1.0,
            ..Observation::default()
        }
    }

    fn run(m: &mut PointerMapper, f: impl Fn(usize) -> Point, frames: usize, t0: f64) -> PointerOut {
        let mut out = PointerOut { pos: [0.0, 0.0], dwell: false, frozen: false, dwelling: None };
        for i in 0..frames {
            out = m.map(&obs(f(i)), None, t0 + i as f64 * 33.3, false);
        }
        out
    }

    /// Going out, the lead changes nothing; coming back, the pointer slows
    /// as soon as the head turns back, so it runs on less past where the
    /// user meant to stop.
    #[test]
    fn the_lead_slows_the_pointer_as_soon_as_the_head_comes_back() {
        let trip = |lead_ms: f64| {
            let mut m = PointerMapper::new(&PointerSettings { lead_ms, ..PointerSettings::default() });
            run(&mut m, |_| [320.0, 240.0], 30, 0.0);
            let out = run(&mut m, |_| [300.0, 240.0], 30, 1000.0).pos;
            // Back to rest over 0.3 s, then still.
            run(&mut m, |i| [300.0 + 20.0 * (i as f64 / 9.0).min(1.0), 240.0], 30, 2000.0);
            let end = run(&mut m, |_| [320.0, 240.0], 30, 3000.0).pos;
            (out[0], end[0] - out[0])
        };
        let ((out0, after0), (out200, after200)) = (trip(0.0), trip(200.0));
        assert!((out0 - out200).abs() < 1e-9, "going out the same: {out0} and {out200}");
        assert!(after200 > 0.0 && after200 < 0.7 * after0, "run-on after turning back: {after200:.1} px with the lead, {after0:.1} without");
    }

    #[test]
    fn relative_mode_moves_towards_the_users_right_and_stops_in_the_dead_band() {
        let mut m = PointerMapper::new(&PointerSettings::default());
        let start = run(&mut m, |_| [320.0, 240.0], 30, 0.0).pos;
        // The face moves to the image's left = the user's right: the pointer goes right.
        let moved = run(&mut m, |_| [310.0, 240.0], 30, 1000.0).pos;
        assert!(moved[0] > start[0] + 100.0, "{start:?} -> {moved:?}");
        assert!((moved[1] - start[1]).abs() < 1.0);
        // Back to neutral, within the dead band: it stops.
        let a = run(&mut m, |_| [320.5, 240.0], 30, 2000.0).pos;
        let b = run(&mut m, |_| [320.5, 240.0], 30, 3000.0).pos;
        assert!((a[0] - b[0]).abs() < 0.5, "{a:?} {b:?}");
    }

    #[test]
    fn gains_differ_per_direction() {
        let s = PointerSettings { gain_left: 1000.0, gain_right: 4000.0, ..PointerSettings::default() };
        let mut m = PointerMapper::new(&s);
        let c = run(&mut m, |_| [320.0, 240.0], 10, 0.0).pos;
        let r = run(&mut m, |_| [310.0, 240.0], 15, 400.0).pos[0] - c[0];
        let mut m = PointerMapper::new(&s);
        let c = run(&mut m, |_| [320.0, 240.0], 10, 0.0).pos;
        let l = c[0] - run(&mut m, |_| [330.0, 240.0], 15, 400.0).pos[0];
        assert!(r > 3.0 * l && l > 0.0, "right {r} left {l}");
    }

    #[test]
    fn a_small_off_centre_range_reaches_every_corner() {
        // 20×10 px of feature motion at 64 px eye distance, off-centre: the user
        // rests at (325, 252) and reaches x 310..330, y 250..260.
        let iod = 64.0;
        let s = PointerSettings {
            mapping: Mapping::Absolute,
            range: Range { left: -5.0 / iod, right: 15.0 / iod, top: -2.0 / iod, bottom: 8.0 / iod },
            ..PointerSettings::default()
        };
        let corners = [([330.0, 250.0], [0.0, 0.0]), ([310.0, 250.0], [1919.0, 0.0]), ([330.0, 260.0], [0.0, 1079.0]), ([310.0, 260.0], [1919.0, 1079.0])];
        for (f, want) in corners {
            let mut m = PointerMapper::new(&s);
            run(&mut m, |_| [325.0, 252.0], 20, 0.0);
            let got = run(&mut m, |_| f, 60, 700.0).pos;
            assert!((got[0] - want[0]).abs() < 2.0 && (got[1] - want[1]).abs() < 2.0, "{f:?}: {got:?} vs {want:?}");
        }
    }

    /// Choosing a click type (any other setting) threw a calibrated pointer
    /// from (119, 75) to the centre, and the user's rest pose pointed far
    /// off from then on: the mapper started anew and took the head's pose at
    /// that moment as neutral. Now the pointer stays, and every later pose
    /// points where it did.
    #[test]
    fn other_settings_keep_a_calibrated_pointer_where_it_is() {
        let iod = 64.0;
        let s = PointerSettings {
            mapping: Mapping::Absolute,
            range: Range { left: -10.0 / iod, right: 10.0 / iod, top: -5.0 / iod, bottom: 5.0 / iod },
            ..PointerSettings::default()
        };
        let (mut kept, mut changed) = (PointerMapper::new(&s), PointerMapper::new(&s));
        for m in [&mut kept, &mut changed] {
            run(m, |_| [320.0, 240.0], 20, 0.0);
            run(m, |_| [328.0, 236.0], 60, 700.0);
        }
        let before = changed.position();
        assert!(before[0] < 500.0 && before[1] < 300.0, "near the top left: {before:?}");
        changed.set_settings(&PointerSettings { dwell_ms: 1500.0, dead_band: 0.02, ..s.clone() });
        assert_eq!(changed.position(), before, "the pointer stays");
        for (f, t0) in [([328.0, 236.0], 2700.0), ([320.0, 240.0], 4700.0), ([312.0, 244.0], 6700.0)] {
            let (a, b) = (run(&mut kept, |_| f, 60, t0).pos, run(&mut changed, |_| f, 60, t0).pos);
            assert!((a[0] - b[0]).abs() < 1.0 && (a[1] - b[1]).abs() < 1.0, "{f:?}: {a:?} without the change, {b:?} with it");
        }
        // Another input (the head's pose instead of the feature) starts anew.
        changed.set_settings(&PointerSettings { input: Input::Pose, ..s });
        assert!(changed.displacement().is_none());
    }

    /// Two monitors side by side, 1920×1080 and 1280×1024 (the second's top at y 0).
    fn two_monitors(mapping: Mapping, monitor: u32) -> PointerSettings {
        let iod = 64.0;
        PointerSettings {
            screen_width: 3200,
            screen_height: 1080,
            monitor,
            monitors: vec![ScreenArea { x: 0, y: 0, width: 1920, height: 1080 }, ScreenArea { x: 1920, y: 0, width: 1280, height: 1024 }],
            mapping,
            range: Range { left: -10.0 / iod, right: 10.0 / iod, top: -5.0 / iod, bottom: 5.0 / iod },
            ..PointerSettings::default()
        }
    }

    #[test]
    fn absolute_mapping_covers_the_chosen_monitor_or_the_whole_desktop() {
        // The user's whole range, corner to corner, on monitor 2: exactly its corners.
        for (monitor, top_left, bottom_right) in [(2, [1920.0, 0.0], [3199.0, 1023.0]), (1, [0.0, 0.0], [1919.0, 1079.0]), (0, [0.0, 0.0], [3199.0, 1079.0])] {
            let mut m = PointerMapper::new(&two_monitors(Mapping::Absolute, monitor));
            run(&mut m, |_| [320.0, 240.0], 20, 0.0);
            let a = run(&mut m, |_| [330.0, 235.0], 60, 700.0).pos;
            let b = run(&mut m, |_| [310.0, 245.0], 60, 3000.0).pos;
            assert!((a[0] - top_left[0]).abs() < 2.0 && (a[1] - top_left[1]).abs() < 2.0, "monitor {monitor}: {a:?}");
            assert!((b[0] - bottom_right[0]).abs() < 2.0 && (b[1] - bottom_right[1]).abs() < 2.0, "monitor {monitor}: {b:?}");
        }
        // A monitor that is not there (unplugged): the whole desktop.
        let s = PointerSettings { monitor: 3, ..two_monitors(Mapping::Absolute, 3) };
        assert_eq!(s.absolute_area(), s.desktop());
    }

    #[test]
    fn relative_mapping_crosses_from_one_monitor_to_the_next() {
        let mut m = PointerMapper::new(&two_monitors(Mapping::Relative, 1));
        m.set_position([1800.0, 500.0]);
        run(&mut m, |_| [320.0, 240.0], 20, 0.0);
        let p = run(&mut m, |_| [305.0, 240.0], 60, 700.0).pos;
        assert!(p[0] > 1920.0, "onto the second monitor: {p:?}");
        let p = run(&mut m, |_| [290.0, 240.0], 150, 3000.0).pos;
        assert!((p[0] - 3199.0).abs() < 1e-9, "to the desktop's right edge: {p:?}");
    }

    #[test]
    fn next_monitor_cycles_and_puts_the_pointer_on_its_centre() {
        let mut m = PointerMapper::new(&two_monitors(Mapping::Absolute, 0));
        let near = |p: Point, q: Point| (p[0] - q[0]).abs() < 1e-9 && (p[1] - q[1]).abs() < 1e-9;
        assert_eq!(m.next_monitor(), Some((1, 2)));
        assert!(near(m.position(), [960.0, 540.0]), "{:?}", m.position());
        assert_eq!(m.next_monitor(), Some((2, 2)));
        assert!(near(m.position(), [2560.0, 512.0]), "{:?}", m.position());
        assert_eq!(m.next_monitor(), Some((1, 2)), "after the last, the first");
        // The absolute mapping now covers the chosen monitor.
        m.next_monitor();
        run(&mut m, |_| [320.0, 240.0], 20, 0.0);
        let p = run(&mut m, |_| [330.0, 235.0], 60, 700.0).pos;
        assert!((p[0] - 1920.0).abs() < 2.0, "{p:?}");
        // One monitor (or none known, as when not driving): nothing to move to.
        let mut one = PointerMapper::new(&PointerSettings { monitors: vec![ScreenArea { x: 0, y: 0, width: 1920, height: 1080 }], ..PointerSettings::default() });
        let at = one.position();
        assert_eq!(one.next_monitor(), None);
        assert!(near(one.position(), at), "it stays");
        assert_eq!(PointerMapper::new(&PointerSettings::default()).next_monitor(), None);
    }

    #[test]
    fn the_pointer_holds_during_a_gesture_and_without_a_face() {
        let mut m = PointerMapper::new(&PointerSettings::default());
        run(&mut m, |_| [320.0, 240.0], 10, 0.0);
        let before = run(&mut m, |_| [300.0, 240.0], 5, 400.0).pos;
        let mut o = obs([280.0, 240.0]);
        o.brows_raised = true;
        let during = m.map(&o, None, 700.0, false);
        assert!(during.frozen && during.pos == before);
        let mut lost = obs([0.0, 0.0]);
        lost.state = TrackState::Lost;
        assert_eq!(m.map(&lost, None, 733.0, false).pos, before);
    }

    /// Frames on which the trackers may be on something else (a start the
    /// face detector has not yet agreed with, a hand dragging them): the
    /// pointer holds, and follows again once they are sure.
    #[test]
    #[allow(clippy::float_cmp)] // held means not moved at all
    fn the_pointer_holds_while_the_trackers_are_doubtful() {
        let mut m = PointerMapper::new(&PointerSettings::default());
        let rest = run(&mut m, |_| [320.0, 240.0], 10, 0.0).pos;
        let mut o = obs([280.0, 240.0]);
        o.doubtful = true;
        for k in 0..10 {
            let out = m.map(&o, None, 333.0 + f64::from(k) * 33.3, false);
            assert!(out.frozen && out.pos == rest, "frame {k}: {out:?}");
        }
        o.doubtful = false;
        let after = run(&mut m, |_| [280.0, 240.0], 10, 700.0).pos;
        assert!(after[0] > rest[0] + 50.0, "{rest:?} -> {after:?}");
    }

    /// The head comes 10 % nearer (the eyes 64 then 70 px apart) with the
    /// feature where it was, at the side of the image: that is no motion.
    /// (Read as the feature's place from the image's corner in eye
    /// distances, it moved by half an eye distance, and so did an eye
    /// tracked off its place: the pointer crossed the screen.)
    #[test]
    fn a_head_that_comes_nearer_does_not_move_the_pointer() {
        let mut m = PointerMapper::new(&PointerSettings::default());
        let at = |iod: f64| Observation { le: Some([500.0 + iod / 2.0, 150.0]), re: Some([500.0 - iod / 2.0, 150.0]), ..obs([500.0, 150.0]) };
        let mut t = 0.0;
        let mut last = m.map(&at(64.0), None, t, false).pos;
        let start = last;
        for k in 0..60 {
            t += 33.3;
            let iod = 64.0 + 6.0 * f64::from(k.min(10)) / 10.0;
            last = m.map(&at(iod), None, t, false).pos;
        }
        assert!(dist(last, start) < 5.0, "{start:?} -> {last:?}");
    }

    /// A blink's last frames: the lids are back under the gesture's
    /// threshold, the tracked point is still off for a frame, then back.
    /// The pointer holds through them and stays where it rested.
    #[test]
    #[allow(clippy::float_cmp)] // held means not moved at all
    fn the_pointer_holds_a_moment_after_the_lids_moved() {
        let mut m = PointerMapper::new(&PointerSettings { mapping: Mapping::Absolute, ..PointerSettings::default() });
        let rest = run(&mut m, |_| [320.0, 240.0], 30, 0.0).pos;
        let mut shut = obs([320.0, 243.0]);
        shut.eyes_closed = true;
        assert!(m.map(&shut, None, 1000.0, false).frozen);
        // 100 ms later (frames dropped): the lids are open, the point still 3 px down.
        let reopening = m.map(&obs([320.0, 243.0]), None, 1100.0, false);
        assert!(reopening.frozen && reopening.pos == rest, "{reopening:?}");
        // Back in place, and past the settling time: the pointer follows again, from where it was.
        let back = run(&mut m, |_| [320.0, 240.0], 10, 1200.0).pos;
        assert!(dist(back, rest) < PointerSettings::default().dwell_radius / 3.0, "{back:?} vs {rest:?}");
        assert!(!m.map(&obs([320.0, 240.0]), None, 1600.0, false).frozen);
    }

    #[test]
    fn dwell_fires_once_per_stay() {
        let s = PointerSettings { dwell_ms: 500.0, ..PointerSettings::default() };
        let mut m = PointerMapper::new(&s);
        let mut dwells = 0;
        let mut last = -1.0;
        for i in 0..60 {
            let out = m.map(&obs([320.0, 240.0]), None, f64::from(i) * 33.3, false);
            if out.dwell {
                dwells += 1;
            }
            // The count the ring shows: rising while it counts, gone once fired.
            match out.dwelling {
                Some((at, frac)) => {
                    assert_eq!(dwells, 0, "no count after the dwell fired (frame {i})");
                    assert!(frac >= last && frac < 1.0, "frame {i}: {frac} after {last}");
                    assert_eq!(at, out.pos);
                    last = frac;
                }
                None => assert!(dwells == 1 || i == 0, "frame {i}: no count before the dwell"),
            }
        }
        assert_eq!(dwells, 1);
        assert!(last > 0.9, "the count came near its end before firing: {last}");
    }

    #[test]
    fn recentring_makes_the_current_position_neutral() {
        let mut m = PointerMapper::new(&PointerSettings::default());
        run(&mut m, |_| [320.0, 240.0], 10, 0.0);
        run(&mut m, |_| [300.0, 240.0], 30, 400.0);
        m.recenter();
        let a = run(&mut m, |_| [300.0, 240.0], 10, 1500.0).pos;
        let b = run(&mut m, |_| [300.0, 240.0], 10, 1900.0).pos;
        assert!((a[0] - b[0]).abs() < 1.0, "still after recentring: {a:?} {b:?}");
    }

    #[test]
    fn resting_off_neutral_recentres_by_itself_when_enabled() {
        let s = PointerSettings { auto_recenter_ms: 1000.0, ..PointerSettings::default() };
        let mut m = PointerMapper::new(&s);
        run(&mut m, |_| [320.0, 240.0], 10, 0.0);
        // The user settles 0.05 eye distances off neutral (beyond the dead band, within twice it).
        run(&mut m, |_| [316.8, 240.0], 60, 400.0);
        let a = run(&mut m, |_| [316.8, 240.0], 5, 2500.0).pos;
        let b = run(&mut m, |_| [316.8, 240.0], 30, 2700.0).pos;
        assert!((a[0] - b[0]).abs() < 1.0, "drift stopped: {a:?} {b:?}");
    }

    #[test]
    fn pose_input_drives_the_pointer() {
        let s = PointerSettings { input: Input::Pose, ..PointerSettings::default() };
        let mut m = PointerMapper::new(&s);
        let o = obs([320.0, 240.0]);
        let rest = Pose { yaw: 0.0, pitch: 0.0, roll: 0.0 };
        for i in 0..10 {
            m.map(&o, Some(&rest), f64::from(i) * 33.3, false);
        }
        let start = m.position();
        // Turning to one's own right (nose to the image left: yaw < 0) moves the pointer right.
        let right = Pose { yaw: -8.0, pitch: 0.0, roll: 0.0 };
        for i in 10..40 {
            m.map(&o, Some(&right), f64::from(i) * 33.3, false);
        }
        assert!(m.position()[0] > start[0] + 50.0);
    }

    #[test]
    fn a_range_comes_from_calibration_samples() {
        let mut samples = Vec::new();
        for i in 0..100 {
            let a = f64::from(i) / 100.0 * std::f64::consts::TAU;
            samples.push([0.1 + 0.2 * a.cos(), -0.05 + 0.1 * a.sin()]);
        }
        samples.push([5.0, 5.0]); // one stray sample
        let r = Range::from_samples(&samples).expect("a range");
        assert!((r.left + 0.1).abs() < 0.01 && (r.right - 0.3).abs() < 0.01, "{r:?}");
        assert!((r.top + 0.15).abs() < 0.01 && (r.bottom - 0.05).abs() < 0.01, "{r:?}");
    }
}
