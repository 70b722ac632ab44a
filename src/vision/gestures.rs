//! Eye state and eyebrow state from the trackers' measurements, with
//! thresholds that adapt to the person: each signal is compared with a running
//! baseline of its own rest value and spread, never with a fixed level.
//! Times are in milliseconds so the detectors work at any frame rate.

use crate::events::Event;

/// An exponential running estimate with a time constant.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ema {
    pub value: f64,
    pub ready: bool,
}

impl Ema {
    /// Moves towards `x` with time constant `tau_ms` over `dt_ms`.
    pub fn update(&mut self, x: f64, dt_ms: f64, tau_ms: f64) {
        if self.ready {
            let a = 1.0 - (-dt_ms.max(0.0) / tau_ms).exp();
            self.value += a * (x - self.value);
        } else {
            self.value = x;
            self.ready = true;
        }
    }
}

/// A robust running level: the median and the median absolute deviation of
/// the values seen in the last `span_ms`. Short excursions (blinks) do not move it.
#[derive(Debug, Clone, Default)]
pub struct RobustWindow {
    values: std::collections::VecDeque<(f64, f64)>,
    scratch: Vec<f64>,
    median: f64,
    mad: f64,
}

impl RobustWindow {
    /// Adds a value at time `t_ms` and forgets those older than `span_ms`.
    pub fn push(&mut self, t_ms: f64, v: f64, span_ms: f64) {
        self.values.push_back((t_ms, v));
        while self.values.front().is_some_and(|(t, _)| t_ms - t > span_ms) {
            self.values.pop_front();
        }
        self.scratch.clear();
        self.scratch.extend(self.values.iter().map(|(_, v)| *v));
        self.scratch.sort_unstable_by(f64::total_cmp);
        self.median = self.scratch[self.scratch.len() / 2];
        for x in &mut self.scratch {
            *x = (*x - self.median).abs();
        }
        self.scratch.sort_unstable_by(f64::total_cmp);
        self.mad = self.scratch[self.scratch.len() / 2];
    }

    /// The time the window covers, in ms.
    #[must_use]
    pub fn covered_ms(&self) -> f64 {
        match (self.values.front(), self.values.back()) {
            (Some(a), Some(b)) => b.0 - a.0,
            _ => 0.0,
        }
    }

    #[must_use]
    pub fn median(&self) -> f64 {
        self.median
    }

    /// The median absolute deviation scaled to a standard deviation (×1.4826).
    #[must_use]
    pub fn sigma(&self) -> f64 {
        1.4826 * self.mad
    }
}

/// An eye's closure evidence `d` is its match with the person's own closed-eye
/// template minus its match with their open-eye template (or, before a closed
/// template exists, minus the open match alone). Closure is `d` between the
/// open level (the running median: blinks are rare) and the closed reference
/// (the level seen at the person's blinks), so 0 is open and 1 is like a blink.
/// The span is never less than this, nor less than `EYE_SPAN_SIGMAS` spreads.
pub const EYE_MIN_SPAN: f64 = 0.15;
pub const EYE_SPAN_SIGMAS: f64 = 6.0;
/// The span assumed before any blink has been seen.
pub const EYE_DEFAULT_SPAN: f64 = 0.3;
/// The span of the open level, and how much of it must be seen before deciding.
pub const EYE_WINDOW_MS: f64 = 4000.0;
pub const EYE_WARMUP_MS: f64 = 400.0;

/// Per-eye open/closed classifier against the person's own open and closed levels.
#[derive(Debug, Clone)]
#[derive(Default)]
pub struct EyeOpenness {
    window: RobustWindow,
    closed_ref: Option<f64>,
}


impl EyeOpenness {
    /// An eye whose closed level is already known (from the initializing blink).
    #[must_use]
    pub fn with_closed_reference(d_closed: f64) -> Self {
        Self { window: RobustWindow::default(), closed_ref: Some(d_closed) }
    }

    /// The distance between the open level and the closed reference.
    #[must_use]
    pub fn span(&self) -> f64 {
        let med = self.window.median();
        let from_ref = self.closed_ref.map_or(EYE_DEFAULT_SPAN, |c| c - med);
        from_ref.max(EYE_MIN_SPAN).max(EYE_SPAN_SIGMAS * self.window.sigma())
    }

    /// 0 for the open level, 1 for the closed reference; 0 until enough has been seen.
    #[must_use]
    pub fn closure(&self, d: f64) -> f64 {
        if self.window.covered_ms() < EYE_WARMUP_MS {
            return 0.0;
        }
        (d - self.window.median()) / self.span()
    }

    /// Adds a reliable frame's evidence.
    pub fn learn(&mut self, t_ms: f64, d: f64) {
        self.window.push(t_ms, d, EYE_WINDOW_MS);
    }

    /// Learns the closed level from a blink's deepest evidence.
    pub fn learn_closed(&mut self, d_peak: f64) {
        self.closed_ref = Some(self.closed_ref.map_or(d_peak, |c| 0.7 * c + 0.3 * d_peak));
    }

    /// The open level.
    #[must_use]
    pub fn baseline(&self) -> f64 {
        self.window.median()
    }

    /// The noise-derived part of the span (for tests).
    #[must_use]
    pub fn threshold(&self) -> f64 {
        EYE_SPAN_SIGMAS * self.window.sigma()
    }
}

/// Settings the eye-state machine needs.
#[derive(Debug, Clone, Copy)]
pub struct EyeTiming {
    pub long_blink_ms: f64,
    pub wink_min_ms: f64,
}

/// Eye state over time: per-frame `eyes_closed` and blink, long-blink and wink events.
#[derive(Debug, Clone, Default)]
pub struct EyeStateMachine {
    pub left: EyeOpenness,
    pub right: EyeOpenness,
    closed_since: Option<f64>,
    long_sent: bool,
    peak: (f64, f64),
    wink_since: Option<(bool, f64)>,
    wink_sent: bool,
    /// The last frame's closures (for diagnostics and plots).
    pub last_closure: (f64, f64),
}

/// Closing needs this mean closure and this much on each eye; opening again needs the mean below `EYE_OPEN`.
pub const EYE_CLOSE: (f64, f64) = (0.5, 0.3);
pub const EYE_OPEN: f64 = 0.3;

impl EyeStateMachine {
    /// A machine whose eyes' closed levels are known.
    #[must_use]
    pub fn with_closed_references(left: f64, right: f64) -> Self {
        Self { left: EyeOpenness::with_closed_reference(left), right: EyeOpenness::with_closed_reference(right), ..Self::default() }
    }

    /// Feeds both eyes' closure evidence. `reliable` is false when the face
    /// itself is not well tracked on this frame (then nothing is learned or
    /// decided). Returns whether both eyes are closed and pushes events.
    pub fn update(&mut self, d_left: f64, d_right: f64, reliable: bool, t_ms: f64, timing: EyeTiming, events: &mut Vec<Event>) -> bool {
        let cl = self.left.closure(d_left);
        let cr = self.right.closure(d_right);
        self.last_closure = (cl, cr);
        let was_closed = self.closed_since.is_some();
        let mean = f64::midpoint(cl, cr);
        let both = if was_closed { mean >= EYE_OPEN } else { mean >= EYE_CLOSE.0 && cl.min(cr) >= EYE_CLOSE.1 };
        let closed = reliable && both;
        if closed {
            let since = *self.closed_since.get_or_insert(t_ms);
            if was_closed {
                self.peak = (self.peak.0.max(d_left), self.peak.1.max(d_right));
            } else {
                events.push(Event::Blink);
                self.long_sent = false;
                self.peak = (d_left, d_right);
            }
            if !self.long_sent && t_ms - since >= timing.long_blink_ms {
                events.push(Event::LongBlink);
                self.long_sent = true;
            }
        } else {
            if was_closed {
                // The blink is over: its depth refines the person's closed level.
                self.left.learn_closed(self.peak.0);
                self.right.learn_closed(self.peak.1);
            }
            self.closed_since = None;
        }

        // A wink: one eye clearly closed, the other clearly open, long enough to be meant.
        let wink = if !reliable || closed {
            None
        } else if cl >= 0.6 && cr < 0.2 {
            Some(true)
        } else if cr >= 0.6 && cl < 0.2 {
            Some(false)
        } else {
            None
        };
        match (wink, self.wink_since) {
            (Some(side), Some((s, since))) if s == side => {
                if !self.wink_sent && t_ms - since >= timing.wink_min_ms {
                    events.push(if side { Event::WinkLeft } else { Event::WinkRight });
                    self.wink_sent = true;
                }
            }
            (Some(side), _) => {
                self.wink_since = Some((side, t_ms));
                self.wink_sent = false;
            }
            (None, _) => self.wink_since = None,
        }

        // The window's median ignores the blinks among the frames it learns from.
        if reliable {
            self.left.learn(t_ms, d_left);
            self.right.learn(t_ms, d_right);
        }
        closed
    }

    /// Whether the eyes are closed now.
    #[must_use]
    pub fn closed(&self) -> bool {
        self.closed_since.is_some()
    }
}

/// Brow-raise settings (the profile's `[vision]` brow fields), in inter-ocular distances and ms.
#[derive(Debug, Clone, Copy)]
pub struct BrowTiming {
    pub on: f64,
    pub off: f64,
    pub min_ms: f64,
    pub refractory_ms: f64,
}

/// The span of the brows' rest level, and how much of it must be seen before detecting.
pub const BROW_WINDOW_MS: f64 = 4000.0;
pub const BROW_WARMUP_MS: f64 = 500.0;

/// The eyebrow-raise switch (Eyebrow-Clicker): the eye–brow distance in
/// inter-ocular distances against its rest level (the running median of the
/// frames that are not raised), with hysteresis, a minimum duration and a
/// refractory period.
#[derive(Debug, Clone, Default)]
pub struct BrowSwitch {
    rest: RobustWindow,
    above_since: Option<f64>,
    raised: bool,
    released_at: Option<f64>,
    /// The last lift above rest (for diagnostics and plots).
    pub last_lift: f64,
}

impl BrowSwitch {
    /// Feeds one measurement (`None` while it cannot be trusted: eyes closed,
    /// tracking weak). Returns whether the brows are raised and pushes `brow_raise` at the onset.
    pub fn update(&mut self, dist: Option<f64>, t_ms: f64, timing: BrowTiming, events: &mut Vec<Event>) -> bool {
        let Some(d) = dist else {
            // Hold the state; a raise in progress stays raised through a blink.
            self.above_since = None;
            return self.raised;
        };
        let warm = self.rest.covered_ms() >= BROW_WARMUP_MS;
        let lift = if warm { d - self.rest.median() } else { 0.0 };
        self.last_lift = lift;
        if self.raised {
            if lift < timing.off {
                self.raised = false;
                self.released_at = Some(t_ms);
            }
        } else if warm && lift >= timing.on {
            let since = *self.above_since.get_or_insert(t_ms);
            let rested = self.released_at.is_none_or(|r| t_ms - r >= timing.refractory_ms);
            if t_ms - since >= timing.min_ms && rested {
                self.raised = true;
                self.above_since = None;
                events.push(Event::BrowRaise);
            }
        } else {
            self.above_since = None;
        }
        // The rest level follows posture and distance, not raises.
        if !self.raised && lift < timing.off {
            self.rest.push(t_ms, d, BROW_WINDOW_MS);
        }
        self.raised
    }

    /// Whether the brows are raised now.
    #[must_use]
    pub fn raised(&self) -> bool {
        self.raised
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TIMING: EyeTiming = EyeTiming { long_blink_ms: 600.0, wink_min_ms: 250.0 };
    const BROW: BrowTiming = BrowTiming { on: 0.045, off: 0.025, min_ms: 90.0, refractory_ms: 300.0 };

    /// Runs `n` frames at `dt` ms through the eye machine; `f(i)` gives (left, right) scores.
    fn run_eyes(m: &mut EyeStateMachine, n: usize, dt: f64, t0: f64, f: impl Fn(usize) -> (f64, f64)) -> (Vec<Event>, Vec<bool>) {
        let mut ev = Vec::new();
        let mut closed = Vec::new();
        for i in 0..n {
            let (l, r) = f(i);
            // Open-template-only evidence: the lower the match, the more closed.
            closed.push(m.update(-l, -r, true, t0 + i as f64 * dt, TIMING, &mut ev));
        }
        (ev, closed)
    }

    fn noise(i: usize) -> f64 {
        0.01 * ((i as f64) * 1.7).sin()
    }

    #[test]
    fn a_short_blink_is_one_blink_event_at_its_onset() {
        let mut m = EyeStateMachine::default();
        run_eyes(&mut m, 60, 33.3, 0.0, |i| (0.92 + noise(i), 0.9 + noise(i + 3)));
        let (ev, closed) = run_eyes(&mut m, 20, 33.3, 2000.0, |i| if (5..9).contains(&i) { (0.7, 0.72) } else { (0.92, 0.9) });
        assert_eq!(ev, vec![Event::Blink]);
        assert_eq!(closed.iter().position(|&c| c), Some(5));
        assert_eq!(closed.iter().filter(|&&c| c).count(), 4);
    }

    #[test]
    fn a_long_blink_adds_long_blink_after_the_minimum() {
        let mut m = EyeStateMachine::default();
        run_eyes(&mut m, 60, 33.3, 0.0, |i| (0.92 + noise(i), 0.9 + noise(i)));
        let (ev, _) = run_eyes(&mut m, 40, 33.3, 2000.0, |i| if (2..30).contains(&i) { (0.7, 0.7) } else { (0.92, 0.9) });
        assert_eq!(ev, vec![Event::Blink, Event::LongBlink]);
    }

    #[test]
    fn blinks_are_found_at_a_low_frame_rate() {
        let mut m = EyeStateMachine::default();
        run_eyes(&mut m, 15, 130.0, 0.0, |i| (0.92 + noise(i), 0.9 + noise(i)));
        let (ev, _) = run_eyes(&mut m, 10, 130.0, 2000.0, |i| if i == 4 { (0.75, 0.74) } else { (0.92, 0.9) });
        assert_eq!(ev, vec![Event::Blink]);
    }

    #[test]
    fn a_held_wink_is_a_wink_not_a_blink() {
        let mut m = EyeStateMachine::default();
        run_eyes(&mut m, 60, 33.3, 0.0, |i| (0.92 + noise(i), 0.9 + noise(i)));
        let (ev, closed) = run_eyes(&mut m, 30, 33.3, 2000.0, |i| if (3..20).contains(&i) { (0.6, 0.9) } else { (0.92, 0.9) });
        assert_eq!(ev, vec![Event::WinkLeft]);
        assert!(closed.iter().all(|&c| !c));
    }

    #[test]
    fn unreliable_frames_decide_nothing() {
        let mut m = EyeStateMachine::default();
        run_eyes(&mut m, 60, 33.3, 0.0, |i| (0.92 + noise(i), 0.9 + noise(i)));
        let mut ev = Vec::new();
        for i in 0..10 {
            assert!(!m.update(-0.3, -0.3, false, 3000.0 + f64::from(i) * 33.3, TIMING, &mut ev));
        }
        assert!(ev.is_empty());
    }

    #[test]
    fn the_threshold_adapts_to_a_noisier_person() {
        let mut calm = EyeStateMachine::default();
        let mut jittery = EyeStateMachine::default();
        run_eyes(&mut calm, 200, 33.3, 0.0, |i| (0.92 + noise(i), 0.92 + noise(i)));
        run_eyes(&mut jittery, 200, 33.3, 0.0, |i| (0.85 + 6.0 * noise(i), 0.85 + 6.0 * noise(i)));
        assert!(jittery.left.threshold() > 2.0 * calm.left.threshold());
        assert!(jittery.left.span() > calm.left.span());
    }

    #[test]
    fn a_closed_template_separates_a_gaze_shift_from_a_blink() {
        // Evidence = closed match − open match. Open ≈ −0.3; a blink ≈ +0.45;
        // looking aside lowers the open match but does not raise the closed one: ≈ −0.05.
        let mut m = EyeStateMachine::with_closed_references(0.5, 0.5);
        let mut ev = Vec::new();
        for i in 0..60 {
            m.update(-0.3 + noise(i), -0.3 + noise(i), true, f64::from(i as u32) * 33.3, TIMING, &mut ev);
        }
        let mut closed = Vec::new();
        for i in 0..40 {
            let d = match i {
                5..=7 => 0.45,
                15..=35 => -0.05,
                _ => -0.3,
            };
            closed.push(m.update(d, d, true, 2000.0 + f64::from(i) * 33.3, TIMING, &mut ev));
        }
        assert_eq!(ev, vec![Event::Blink]);
        assert_eq!(closed.iter().filter(|&&c| c).count(), 3);
    }

    #[test]
    fn the_open_level_ignores_blinks() {
        let mut w = RobustWindow::default();
        for i in 0..120 {
            let v = if i % 20 < 3 { 0.5 } else { 0.9 };
            w.push(f64::from(i) * 33.3, v, 4000.0);
        }
        assert!((w.median() - 0.9).abs() < 1e-9);
        assert!(w.sigma() < 1e-9);
    }

    fn run_brows(b: &mut BrowSwitch, n: usize, dt: f64, t0: f64, f: impl Fn(usize) -> f64) -> (Vec<Event>, Vec<bool>) {
        let mut ev = Vec::new();
        let mut up = Vec::new();
        for i in 0..n {
            up.push(b.update(Some(f(i)), t0 + i as f64 * dt, BROW, &mut ev));
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

    #[test]
    fn the_brow_baseline_follows_a_slow_drift_without_firing() {
        let mut b = BrowSwitch::default();
        // The user leans back over 20 s: the normalized distance creeps by 0.06.
        let (ev, _) = run_brows(&mut b, 600, 33.3, 0.0, |i| 0.34 + 0.06 * (i as f64 / 600.0));
        assert!(ev.is_empty());
    }

    #[test]
    fn a_refractory_period_ignores_a_quick_repeat() {
        let mut b = BrowSwitch::default();
        run_brows(&mut b, 60, 33.3, 0.0, |_| 0.34);
        let (ev, _) = run_brows(&mut b, 40, 33.3, 2000.0, |i| if (2..10).contains(&i) || (12..20).contains(&i) { 0.42 } else { 0.34 });
        assert_eq!(ev, vec![Event::BrowRaise]);
    }
}
