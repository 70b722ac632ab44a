//! `facemouse eval-pointer`: a simulated user drives the real pointer and
//! switch stages through an ISO 9241-9 style multidirectional pointing task.
//!
//! The user's head has a small, asymmetric range of motion (by default 20×10
//! pixels of feature motion at a 64-pixel eye distance, more to one side than
//! the other), reacts with a delay, moves with limited speed, trembles, and is
//! seen through tracking noise. For each mapping mode and click method
//! (dwell, or an eyebrow raise once the pointer is on the target) it measures
//! Fitts' law throughput (effective, bits/s), the error rate and the time to
//! select each target.

use std::fmt::Write as _;
use serde::Serialize;

use crate::events::{Point, TrackState, dist};
use crate::output::Command;
use crate::pointer::{Input, Mapping, PointerMapper, PointerSettings, Range};
use crate::pose::Pose;
use crate::switch::{Action, SwitchDecider, SwitchSettings};
use crate::lab::synth::Rng;
use crate::vision::Observation;

/// How the simulated user clicks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClickMethod {
    Dwell,
    BrowRaise,
    /// A menu's dwell: the target fires once the pointer has stayed on it
    /// for the dwell time, counted from when the pointer came onto it
    /// (`ui::activate`), however it moves inside.
    DwellOnTarget,
}

/// One row of the table.
#[derive(Debug, Clone, Serialize)]
pub struct PointerResult {
    pub mode: String,
    pub click: ClickMethod,
    pub trials: usize,
    /// Effective throughput (bits/s), averaged over the amplitude × width conditions.
    pub throughput: f64,
    /// The same over the movement alone: each selection's time less the
    /// selecting (the dwell; for a raise, from the user's 0.3 s look at the
    /// pointer on the target to the click). A time model that adds the
    /// selection itself (`eval-keyboard`) moves at this speed.
    pub movement_throughput: f64,
    /// Share of selections outside the target, or not made within the time limit.
    pub error_rate: f64,
    /// Mean time from a target's appearance to its selection (s).
    pub time_to_target_s: f64,
}

/// The simulated user's abilities.
#[derive(Debug, Clone, Copy)]
pub struct SimUser {
    /// Reachable feature displacement from rest, in eye distances (mirrored:
    /// x towards the user's right, y down).
    pub range: Range,
    /// Eye distance in camera pixels (for the pixel figures).
    pub iod_px: f64,
    /// Head speed limit (eye distances per second) and response time constant (s).
    pub max_speed: f64,
    pub tau_s: f64,
    /// Perception-to-action delay (s).
    pub delay_s: f64,
    /// Tremor amplitude (eye distances) and tracking noise (eye distances, per frame).
    pub tremor: f64,
    pub noise: f64,
}

impl Default for SimUser {
    fn default() -> Self {
        let iod = 64.0;
        // 20×10 px of motion, off-centre: 12 px to the right and 8 to the left, 6 down and 4 up.
        Self {
            range: Range { left: -8.0 / iod, right: 12.0 / iod, top: -4.0 / iod, bottom: 6.0 / iod },
            iod_px: iod,
            max_speed: 0.6,
            tau_s: 0.12,
            delay_s: 0.2,
            tremor: 0.15 / iod,
            noise: 0.2 / iod,
        }
    }
}

const FPS: f64 = 30.0;
const SCREEN: (f64, f64) = (1920.0, 1080.0);
const TRIAL_LIMIT_S: f64 = 20.0;
const TARGETS_PER_CIRCLE: usize = 13;

/// A mode to evaluate.
#[derive(Debug, Clone)]
pub struct Mode {
    pub name: String,
    pub settings: PointerSettings,
}

/// The modes of the table: relative and absolute from the feature, and both from head pose.
#[must_use]
pub fn modes(user: &SimUser) -> Vec<Mode> {
    let base = PointerSettings { screen_width: 1920, screen_height: 1080, dwell_ms: 1000.0, dwell_radius: 30.0, ..PointerSettings::default() };
    // Gains per direction, scaled so that the user's shorter reach is as fast as the longer one.
    let rel = PointerSettings {
        gain_left: 9000.0 * user.range.right / -user.range.left,
        gain_right: 9000.0,
        gain_up: 9000.0 * user.range.bottom / -user.range.top,
        gain_down: 9000.0,
        dead_band: 0.02,
        acceleration: 1.3,
        max_speed: 2500.0,
        ..base.clone()
    };
    let abs = PointerSettings { mapping: Mapping::Absolute, range: user.range, ..base.clone() };
    let deg = PointerSettings::DEGREES_PER_IOD;
    let scale = |r: Range| Range { left: r.left * deg, right: r.right * deg, top: r.top * deg, bottom: r.bottom * deg };
    vec![
        Mode { name: "relative (feature)".into(), settings: rel.clone() },
        Mode { name: "absolute (feature, 20×10 px)".into(), settings: abs.clone() },
        Mode { name: "relative (pose)".into(), settings: PointerSettings { input: Input::Pose, ..rel } },
        Mode { name: "absolute (pose)".into(), settings: PointerSettings { input: Input::Pose, range: scale(user.range), ..abs } },
    ]
}

/// The simulated session.
struct Session<'a> {
    user: SimUser,
    mode: &'a Mode,
    mapper: PointerMapper,
    switch: SwitchDecider,
    rng: Rng,
    t: f64,
    head: Point,
    head_v: Point,
    /// What the user saw `delay_s` ago: (time, pointer) pairs.
    seen: std::collections::VecDeque<(f64, Point)>,
    commands: Vec<Command>,
    events: Vec<crate::events::Event>,
    pointer: Point,
}

impl<'a> Session<'a> {
    fn new(user: SimUser, mode: &'a Mode, click: ClickMethod, seed: u64) -> Self {
        let switch = SwitchSettings {
            brow_raise: if click == ClickMethod::BrowRaise { Action::ClickLeft } else { Action::None },
            dwell: if click == ClickMethod::Dwell { Action::ClickLeft } else { Action::None },
            cooldown_ms: 300.0,
            max_clicks_per_minute: 200,
            ..SwitchSettings::default()
        };
        let mapper = PointerMapper::new(&mode.settings);
        let pointer = mapper.position();
        Self {
            user,
            mode,
            mapper,
            switch: SwitchDecider::new(&switch),
            rng: Rng::new(seed),
            t: 0.0,
            head: [0.0, 0.0],
            head_v: [0.0, 0.0],
            seen: std::collections::VecDeque::new(),
            commands: Vec::new(),
            events: Vec::new(),
            pointer,
        }
    }

    /// One frame: the head moves towards `aim` (eye distances), the stages run.
    /// Returns the click position if the switch clicked.
    fn step(&mut self, aim: Point, brows: bool) -> Option<Point> {
        let dt = 1.0 / FPS;
        let u = self.user;
        for k in 0..2 {
            let want = aim[k].clamp(if k == 0 { u.range.left } else { u.range.top }, if k == 0 { u.range.right } else { u.range.bottom });
            let v = ((want - self.head[k]) / u.tau_s).clamp(-u.max_speed, u.max_speed);
            self.head_v[k] = v;
            self.head[k] += v * dt;
        }
        let tremor = u.tremor * (std::f64::consts::TAU * 6.0 * self.t).sin();
        let seen = [self.head[0] + tremor + u.noise * self.rng.gauss(), self.head[1] + u.noise * self.rng.gauss()];
        // The camera sees the face mirrored, 64 px between the eyes; pose sees degrees.
        let iod = u.iod_px;
        let f = [320.0 - seen[0] * iod, 240.0 + seen[1] * iod];
        let obs = Observation {
            state: TrackState::Tracking,
            feature: Some(f),
            le: Some([f[0] + iod / 2.0, f[1]]),
            re: Some([f[0] - iod / 2.0, f[1]]),
            brows_raised: brows,
            confidence: 1.0,
            ..Observation::default()
        };
        let deg = PointerSettings::DEGREES_PER_IOD;
        let pose = Pose { yaw: -seen[0] * deg, pitch: -seen[1] * deg, roll: 0.0 };
        let ms = self.t * 1000.0;
        let hold = self.switch.paused();
        let out = self.mapper.map(&obs, (self.mode.settings.input == Input::Pose).then_some(&pose), ms, hold);
        self.commands.clear();
        self.events.clear();
        let _ = self.switch.decide(&obs, out.pos, out.dwell, ms, &mut self.commands, &mut self.events);
        self.pointer = out.pos;
        self.seen.push_back((self.t, out.pos));
        while self.seen.len() > 1 && self.seen[1].0 <= self.t - u.delay_s {
            self.seen.pop_front();
        }
        self.t += dt;
        self.commands.iter().any(|c| matches!(c, Command::Click(_))).then_some(out.pos)
    }

    fn seen_pointer(&self) -> Point {
        self.seen.front().map_or(self.pointer, |s| s.1)
    }

    /// Where the user aims the head to bring the seen pointer to `target`.
    fn aim(&self, target: Point, inside: bool) -> Point {
        let s = &self.mode.settings;
        let unit = if s.input == Input::Pose { PointerSettings::DEGREES_PER_IOD } else { 1.0 };
        match s.mapping {
            Mapping::Absolute => {
                let r = s.range;
                [(r.left + target[0] / SCREEN.0 * (r.right - r.left)) / unit, (r.top + target[1] / SCREEN.1 * (r.bottom - r.top)) / unit]
            }
            Mapping::Relative => {
                if inside {
                    return [0.0, 0.0];
                }
                // The user wants the pointer to close the gap with a 0.3 s time
                // constant, and leans as far as that speed needs (knowing the gain
                // after practice), within reach.
                let p = self.seen_pointer();
                let want = |d: f64, neg_gain: f64, pos_gain: f64, neg_reach: f64, pos_reach: f64| {
                    let speed = (d.abs() / 0.3).min(s.max_speed);
                    let gain = if d < 0.0 { neg_gain } else { pos_gain };
                    let m = (speed / gain).powf(1.0 / s.acceleration) + s.dead_band;
                    let reach = if d < 0.0 { -neg_reach } else { pos_reach };
                    d.signum() * m.min(reach)
                };
                let r = self.user.range;
                [
                    want(target[0] - p[0], s.gain_left, s.gain_right, r.left, r.right),
                    want(target[1] - p[1], s.gain_up, s.gain_down, r.top, r.bottom),
                ]
            }
        }
    }
}

/// Runs one mode with one click method.
#[must_use]
pub fn run(user: SimUser, mode: &Mode, click: ClickMethod, seed: u64) -> PointerResult {
    let mut s = Session::new(user, mode, click, seed);
    // Sit down: tracking starts, the startup grace passes.
    for _ in 0..(3.0 * FPS) as usize {
        s.step([0.0, 0.0], false);
    }
    let conditions = [(500.0, 60.0), (500.0, 120.0), (900.0, 60.0), (900.0, 120.0)];
    let (mut tps, mut errors, mut trials, mut times): (Vec<(f64, f64)>, _, _, _) = (Vec::new(), 0usize, 0usize, Vec::new());
    for (amp, width) in conditions {
        let centre = [SCREEN.0 / 2.0, SCREEN.1 / 2.0];
        let target_at = |k: usize| {
            // ISO 9241-9 order: each target across the circle from the last.
            let idx = (k * (TARGETS_PER_CIRCLE / 2 + 1)) % TARGETS_PER_CIRCLE;
            let a = std::f64::consts::TAU * idx as f64 / TARGETS_PER_CIRCLE as f64;
            [centre[0] + amp / 2.0 * a.cos(), centre[1] + amp / 2.0 * a.sin()]
        };
        let (mut deviations, mut distances, mut mts, mut moves) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut from = target_at(0);
        for k in 1..=TARGETS_PER_CIRCLE {
            let target = target_at(k);
            let start_t = s.t;
            let start_pos = s.pointer;
            let mut inside_since: Option<f64> = None;
            let mut raise_until: Option<f64> = None;
            let mut selecting_from = None;
            let mut clicked = None;
            let mut on_since: Option<f64> = None;
            while s.t - start_t < TRIAL_LIMIT_S {
                if click == ClickMethod::DwellOnTarget {
                    if dist(s.pointer, target) <= width / 2.0 {
                        let since = *on_since.get_or_insert(s.t);
                        if s.t - since >= mode.settings.dwell_ms / 1000.0 - 1e-9 {
                            clicked = Some(s.pointer);
                            selecting_from = Some(since);
                            break;
                        }
                    } else {
                        on_since = None;
                    }
                }
                let p = s.seen_pointer();
                let inside = dist(p, target) <= width / 2.0;
                if inside {
                    inside_since.get_or_insert(s.t);
                } else {
                    inside_since = None;
                }
                // Brow users raise once they have seen the pointer rest on the target for 300 ms.
                if click == ClickMethod::BrowRaise && raise_until.is_none() && inside_since.is_some_and(|i| s.t - i >= 0.3) {
                    raise_until = Some(s.t + 0.4);
                    selecting_from = inside_since;
                }
                let brows = raise_until.is_some_and(|u| s.t < u);
                if raise_until.is_some_and(|u| s.t >= u + 0.5) {
                    raise_until = None; // the click did not come: try again
                }
                let aim = s.aim(target, inside);
                if let Some(at) = s.step(aim, brows) {
                    clicked = Some(at);
                    break;
                }
            }
            trials += 1;
            let Some(at) = clicked else {
                errors += 1;
                from = target;
                continue;
            };
            let hit = dist(at, target) <= width / 2.0;
            if !hit {
                errors += 1;
            }
            let mt = s.t - start_t;
            times.push(mt);
            mts.push(mt);
            // The movement ends where the selecting begins: the dwell's
            // start (the click comes one dwell later), or the look before a raise.
            let end = match click {
                ClickMethod::Dwell => s.t - mode.settings.dwell_ms / 1000.0,
                ClickMethod::BrowRaise | ClickMethod::DwellOnTarget => selecting_from.unwrap_or(s.t),
            };
            moves.push((end - start_t).max(1.0 / FPS));
            // Deviation along the task axis (from the previous target to this one).
            let axis = [target[0] - from[0], target[1] - from[1]];
            let len = (axis[0].powi(2) + axis[1].powi(2)).sqrt().max(1e-9);
            let along = ((at[0] - target[0]) * axis[0] + (at[1] - target[1]) * axis[1]) / len;
            deviations.push(along);
            distances.push(dist(at, start_pos));
            from = target;
        }
        if mts.len() >= 3 {
            let n = deviations.len() as f64;
            let mean = deviations.iter().sum::<f64>() / n;
            let sd = (deviations.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
            let we = (4.133 * sd).max(1.0);
            let ae = distances.iter().sum::<f64>() / distances.len() as f64;
            let mt = mts.iter().sum::<f64>() / mts.len() as f64;
            let mv = moves.iter().sum::<f64>() / moves.len() as f64;
            tps.push(((ae / we + 1.0).log2() / mt, (ae / we + 1.0).log2() / mv));
        }
    }
    let mean = |v: &[f64]| if v.is_empty() { f64::NAN } else { v.iter().sum::<f64>() / v.len() as f64 };
    PointerResult {
        mode: mode.name.clone(),
        click,
        trials,
        throughput: mean(&tps.iter().map(|t| t.0).collect::<Vec<_>>()),
        movement_throughput: mean(&tps.iter().map(|t| t.1).collect::<Vec<_>>()),
        error_rate: errors as f64 / trials.max(1) as f64,
        time_to_target_s: mean(&times),
    }
}

/// Whether the user's whole range brings the absolute-mode pointer to each corner (within 2 px).
#[must_use]
pub fn corners_reached(user: &SimUser) -> usize {
    let mode = &modes(user)[1];
    let r = user.range;
    [[r.left, r.top], [r.right, r.top], [r.left, r.bottom], [r.right, r.bottom]]
        .into_iter()
        .zip([[0.0, 0.0], [SCREEN.0 - 1.0, 0.0], [0.0, SCREEN.1 - 1.0], [SCREEN.0 - 1.0, SCREEN.1 - 1.0]])
        .filter(|(head, corner)| {
            let mut s = Session::new(SimUser { noise: 0.0, tremor: 0.0, ..*user }, mode, ClickMethod::Dwell, 1);
            for _ in 0..30 {
                s.step([0.0, 0.0], false);
            }
            for _ in 0..60 {
                s.step(*head, false);
            }
            (s.pointer[0] - corner[0]).abs() <= 2.0 && (s.pointer[1] - corner[1]).abs() <= 2.0
        })
        .count()
}

/// The whole table.
#[must_use]
pub fn evaluate(seed: u64) -> Vec<PointerResult> {
    let user = SimUser::default();
    let mut out = Vec::new();
    for (i, mode) in modes(&user).iter().enumerate() {
        for click in [ClickMethod::Dwell, ClickMethod::DwellOnTarget, ClickMethod::BrowRaise] {
            out.push(run(user, mode, click, seed.wrapping_add(i as u64 * 7)));
        }
    }
    out
}

/// The table as Markdown.
#[must_use]
pub fn table(rows: &[PointerResult], corners: usize) -> String {
    let mut s = String::from("| mode | click | trials | throughput (bits/s) | movement alone (bits/s) | error rate | time to target (s) |\n|---|---|---|---|---|---|---|\n");
    for r in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.2} | {:.2} | {:.1} % | {:.2} |",
            r.mode,
            match r.click {
                ClickMethod::Dwell => "dwell 1 s",
                ClickMethod::BrowRaise => "eyebrow raise",
                ClickMethod::DwellOnTarget => "dwell 1 s on the target",
            },
            r.trials,
            r.throughput,
            r.movement_throughput,
            100.0 * r.error_rate,
            r.time_to_target_s
        );
    }
    let _ = write!(s, "\nCalibrated absolute mode with a 20×10 px range of motion reaches {corners}/4 screen corners.\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tiny_range_reaches_all_four_corners() {
        assert_eq!(corners_reached(&SimUser::default()), 4);
    }

    #[test]
    fn the_simulated_user_completes_the_task_in_every_mode() {
        let user = SimUser::default();
        for mode in modes(&user) {
            let r = run(user, &mode, ClickMethod::BrowRaise, 3);
            assert!(r.throughput.is_finite() && r.throughput > 0.3, "{r:?}");
            assert!(r.error_rate < 0.25, "{r:?}");
        }
    }

    /// A dwell selection's time holds the dwell itself: the movement alone
    /// is that much shorter, and as many bits over it are faster. A time
    /// model that adds the dwell to each selection must move at the
    /// movement's throughput, or it counts the dwell twice.
    #[test]
    fn the_movement_alone_leaves_out_the_dwell() {
        let user = SimUser::default();
        let mode = &modes(&user)[0];
        let r = run(user, mode, ClickMethod::Dwell, 3);
        let dwell = mode.settings.dwell_ms / 1000.0;
        // Bits per trial, over the whole time and over the movement alone.
        let bits = r.throughput * r.time_to_target_s;
        let implied_move = bits / r.movement_throughput;
        assert!(r.movement_throughput > r.throughput, "{r:?}");
        assert!((r.time_to_target_s - implied_move - dwell).abs() < 0.35 * dwell, "{r:?}: the movement is {implied_move:.2} s of {:.2} s", r.time_to_target_s);
    }

    /// A menu's dwell counts from when the pointer comes onto the target,
    /// not from when it settles: the same user selects sooner, every
    /// selection on its target, in every mode.
    #[test]
    fn a_menus_dwell_counts_from_the_pointers_arrival() {
        let user = SimUser::default();
        for mode in modes(&user) {
            let settled = run(user, &mode, ClickMethod::Dwell, 3);
            let arrived = run(user, &mode, ClickMethod::DwellOnTarget, 3);
            assert!(arrived.error_rate < 1e-9, "no selection off its target: {arrived:?}");
            assert!(arrived.time_to_target_s < settled.time_to_target_s, "{arrived:?} against {settled:?}");
            // Each selection is the movement and one whole dwell.
            let bits = arrived.throughput * arrived.time_to_target_s;
            let implied_move = bits / arrived.movement_throughput;
            assert!(arrived.time_to_target_s - implied_move >= 0.95 * mode.settings.dwell_ms / 1000.0, "{arrived:?}");
        }
    }
}

