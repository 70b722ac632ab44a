//! The project's own face-video generator, with exact ground truth.
//!
//! It animates one still photo (by default the public-domain NASA portrait of
//! Eileen Collins that scikit-image ships as `astronaut.png`, kept in
//! `assets/demo/`):
//! - head motion: a smooth translation, roll and scale (an affine warp);
//! - eyelids: drawn down over each eye for blinks and winks;
//! - eyebrows: the skin between eye and forehead is remapped upward for raises;
//! - sensor noise and a slow lighting drift;
//! - talking (optional): the jaw and mouth move with syllables, the brows
//!   lift a little with stressed words (some as far as a subtle raise), and
//!   the head nods and turns (foreshortened by the cosine of the angle).
//!
//! Every landmark is carried through the same warp, so the labels are exact.
//! The output is a sequence folder in the format of `../shared/data/README.md`
//! (`video.avi`, `labels.csv`, `meta.json`), which the evaluation reads like
//! real data.

mod face;
mod turn;
mod rng;

use std::path::{Path, PathBuf};

use opencv::core::{self, Mat, Rect, Scalar, Size, CV_32FC1};
use opencv::imgproc;
use opencv::prelude::*;
use opencv::videoio::{self, VideoWriter};

pub use face::FaceAsset;
pub(crate) use face::mean_bgr;
pub use crate::head3d::{Head3d, View as HeadView, pivot as head_pivot, project as head_project};
pub use turn::Turn;
pub use crate::face_model::{ASTRONAUT_LANDMARKS, PhotoLandmarks, default_photo};
pub use rng::Rng;

use crate::events::Point;
use crate::lab::labels::{self, LabelRow, Meta};

/// What happens in a scripted event.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Action {
    /// Both eyes close; `closed_ms` is the time they stay fully shut.
    Blink { closed_ms: f64 },
    /// One eye closes (`left` = the subject's left eye, on the image's right).
    Wink { left: bool, closed_ms: f64 },
    /// Both brows rise by `amp` inter-ocular distances and hold for `hold_ms`.
    Raise { amp: f64, hold_ms: f64 },
    /// A raise too small to be meant (labelled 0, listed in `subtle_raises`).
    Subtle { amp: f64, hold_ms: f64 },
    /// One brow rises (`left` = the subject's left) by `amp` and holds, the
    /// other stays: a cocked brow, an expression (labelled 0), or the raise
    /// of a person who can lift one brow only (on a turning head, `turn`,
    /// both brows are drawn risen).
    OneBrow { left: bool, amp: f64, hold_ms: f64 },
}

/// One scripted event.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScriptEvent {
    pub start_ms: f64,
    pub action: Action,
}

/// Eyelids take this long to close and to open again.
pub const LID_CLOSE_MS: f64 = 60.0;
pub const LID_OPEN_MS: f64 = 90.0;
/// Brows take this long to rise and to fall.
pub const BROW_RAMP_MS: f64 = 150.0;

/// Where a script's events must have begun by (ms): `margin` before the end
/// of a sequence `duration_s` long. A duration that cannot be made
/// (infinite, over an hour) gets no script; `check` refuses it before
/// anything is rendered.
fn script_end_ms(duration_s: f64, margin: f64) -> f64 {
    if duration_s.is_finite() && duration_s <= 3600.0 { duration_s * 1000.0 - margin } else { 0.0 }
}

/// How a sequence is made.
/// A person talking to the camera: phrases of 1.5–5 s with pauses of
/// 0.4–1.6 s; in a phrase the jaw opens and closes with syllables (4–6 a
/// second), the brows lift briefly with about one stressed word in two (by up
/// to `brow` eye distances: speech, never a meant raise, labelled 0), and the
/// head nods (pitch, down and back in 0.4–0.9 s) now and then; all along it
/// turns slowly from side to side (yaw) and looks down now and then.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Talk {
    /// Peak jaw drop, in eye distances.
    pub mouth: f64,
    /// Peak brow lift with speech, in eye distances (a subtle raise is 0.02–0.03).
    pub brow: f64,
    /// Peak nod and look-down (pitch) and turn (yaw), degrees.
    pub nod_deg: f64,
    pub turn_deg: f64,
    /// Peak smile: how far the lower lids rise, as a share of the eye's
    /// height (the cheeks push them up and narrow the eyes); 0, no smiles.
    pub smile: f64,
    /// How long a brow lift with speech lasts (ms, shortest and longest).
    pub brow_ms: (f64, f64),
    /// After every this many phrases, a long pause (3–4 s) in which the
    /// person means a raise, once the mouth has been still for 1.1–1.5 s
    /// (labelled 1); 0: never.
    pub raise_every: usize,
    /// The brows lift as a phrase begins after a pause of a second or more
    /// (the first stressed word), by up to this many eye distances (speech,
    /// labelled 0); 0: no such lifts.
    pub onset_lift: f64,
}

impl Talk {
    /// A lively speaker: jaw 0.25, speech brows up to 0.03 (a subtle raise),
    /// nods of 12° and turns of 30°.
    #[must_use]
    pub fn lively() -> Self {
        Self { mouth: 0.25, brow: 0.03, nod_deg: 12.0, turn_deg: 30.0, smile: 0.0, brow_ms: (150.0, 450.0), raise_every: 0, onset_lift: 0.0 }
    }

    /// An expressive speaker, as people in interviews are: the brows lift
    /// with speech by up to 0.12 eye distances for up to a second, as far
    /// and as long as a raise that is meant (public interview clips: 0.04 to
    /// 0.18); and after every third phrase a pause in which a raise is meant.
    #[must_use]
    pub fn expressive() -> Self {
        Self { brow: 0.12, brow_ms: (200.0, 1000.0), raise_every: 3, ..Self::lively() }
    }

    /// A lively speaker who lifts the brows as far as a raise that is meant
    /// (0.06–0.12 eye distances, for 0.4–0.8 s) with the first word after
    /// each pause of a second or more: the talk guard has lapsed by then,
    /// and the mouth has just begun to move (a public interview clip: a
    /// raise fired so, 0.2 s into a phrase after a 1.3 s pause).
    #[must_use]
    pub fn resuming() -> Self {
        Self { onset_lift: 0.12, ..Self::lively() }
    }

    /// A lively speaker who also smiles now and then (about one smile in
    /// 8 s, held 1–4 s), the lower lids rising by up to 0.45 of the eye's
    /// height: the eyes narrow, and they are open (labelled so).
    #[must_use]
    pub fn smiling() -> Self {
        Self { smile: 0.45, ..Self::lively() }
    }
}

/// What talking does at one time.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct TalkState {
    /// Jaw drop and speech brow lift, in eye distances.
    mouth: f64,
    brow: f64,
    /// Degrees, as the labels give them.
    pitch: f64,
    yaw: f64,
    /// The lower lids' rise, as a share of the eye's height.
    smile: f64,
}

/// The talking of a whole sequence, drawn once from its seed.
#[derive(Debug, Clone, Default)]
struct Speech {
    talk: Option<Talk>,
    /// Phrases: start and end (ms), syllable rate (Hz) and phase.
    phrases: Vec<(f64, f64, f64, f64)>,
    /// Brow lifts with speech: start (ms), peak, length (ms).
    lifts: Vec<(f64, f64, f64)>,
    /// Nods and looks down: start (ms), peak (degrees, negative = down), length (ms).
    nods: Vec<(f64, f64, f64)>,
    /// Smiles: start (ms), peak, length (ms).
    smiles: Vec<(f64, f64, f64)>,
    /// Raises meant in the long pauses (`Talk::raise_every`): start (ms), peak, hold (ms).
    meant: Vec<(f64, f64, f64)>,
    turn_phase: [f64; 2],
}

impl Speech {
    fn new(talk: Option<Talk>, seed: u64, duration_ms: f64) -> Self {
        let Some(k) = talk else { return Self::default() };
        let mut rng = Rng::new(seed ^ 0x7a1c_5eed);
        let mut s = Self { talk, turn_phase: [rng.uniform(0.0, std::f64::consts::TAU), rng.uniform(0.0, std::f64::consts::TAU)], ..Self::default() };
        let mut t = rng.uniform(300.0, 1200.0);
        while t < duration_ms {
            let len = rng.uniform(1500.0, 5000.0);
            s.phrases.push((t, t + len, rng.uniform(4.0, 6.0), rng.uniform(0.0, std::f64::consts::TAU)));
            // About one stressed word in two lifts the brows.
            let mut w = t + rng.uniform(100.0, 700.0);
            while w < t + len {
                if rng.uniform(0.0, 1.0) < 0.5 {
                    s.lifts.push((w, rng.uniform(0.004, k.brow), rng.uniform(k.brow_ms.0, k.brow_ms.1)));
                }
                w += rng.uniform(400.0, 900.0);
            }
            // A nod in one phrase of two.
            if rng.uniform(0.0, 1.0) < 0.5 {
                s.nods.push((t + rng.uniform(0.0, len * 0.7), -rng.uniform(0.4, 1.0) * k.nod_deg, rng.uniform(400.0, 900.0)));
            }
            let pause = rng.uniform(400.0, 1600.0);
            if k.raise_every > 0 && s.phrases.len().is_multiple_of(k.raise_every) {
                // A long pause, and a raise in it once the mouth has been
                // still a while (drawn only for such speakers: every other
                // talking sequence is as it was).
                let end = t + len;
                let pause = rng.uniform(3000.0, 4000.0);
                s.meant.push((end + rng.uniform(1100.0, 1500.0), rng.uniform(0.07, 0.14), rng.uniform(400.0, 900.0)));
                t = end + pause;
            } else {
                t += len + pause;
            }
            // Now and then a look down, held a second or two.
            if rng.uniform(0.0, 1.0) < 0.25 {
                s.nods.push((t - 300.0, -rng.uniform(0.5, 1.0) * k.nod_deg, rng.uniform(1000.0, 2200.0)));
            }
        }
        if k.onset_lift > 0.0 {
            // From their own stream too: without them, the same sequence.
            let mut orng = Rng::new(seed ^ 0x0e5e_7b0f);
            let mut last_end: Option<f64> = None;
            for &(start, end, _, _) in &s.phrases {
                if last_end.is_none_or(|e| start - e >= 1000.0) {
                    s.lifts.push((start + orng.uniform(0.0, 100.0), orng.uniform(0.5, 1.0) * k.onset_lift, orng.uniform(400.0, 800.0)));
                }
                last_end = Some(end);
            }
        }
        if k.smile > 0.0 {
            // Drawn from their own stream: the talking without smiles is
            // the same sequence as before they existed.
            let mut srng = Rng::new(seed ^ 0x53_11e5);
            let mut t = srng.uniform(1000.0, 6000.0);
            while t < duration_ms {
                let len = srng.uniform(1000.0, 4000.0);
                s.smiles.push((t, srng.uniform(0.5, 1.0) * k.smile, len));
                t += len + srng.uniform(3000.0, 9000.0);
            }
        }
        s
    }

    /// The talking at `t_ms`.
    fn at(&self, t_ms: f64) -> TalkState {
        let Some(k) = self.talk else { return TalkState::default() };
        let mut st = TalkState::default();
        for &(a, b, rate, phase) in &self.phrases {
            if (a..b).contains(&t_ms) {
                let env = ramp(t_ms - a, 150.0) * (1.0 - ramp(t_ms - (b - 150.0), 150.0));
                let syl = (std::f64::consts::PI * rate * (t_ms - a) / 1000.0 + phase).sin().abs().powf(1.5);
                st.mouth = k.mouth * env * syl;
            }
        }
        for &(start, amp, len) in &self.lifts {
            let x = t_ms - start;
            if (0.0..len).contains(&x) {
                st.brow = st.brow.max(amp * (std::f64::consts::PI * x / len).sin());
            }
        }
        for &(start, amp, len) in &self.nods {
            let x = t_ms - start;
            if (0.0..len).contains(&x) {
                let shape = if len > 900.0 { ramp(x, 250.0) * (1.0 - ramp(x - (len - 250.0), 250.0)) } else { (std::f64::consts::PI * x / len).sin() };
                st.pitch += amp * shape;
            }
        }
        for &(start, amp, len) in &self.smiles {
            let x = t_ms - start;
            if (0.0..len).contains(&x) {
                st.smile = st.smile.max(amp * ramp(x, 250.0) * (1.0 - ramp(x - (len - 300.0), 300.0)));
            }
        }
        let t = t_ms / 1000.0;
        st.yaw = k.turn_deg * (0.75 * (std::f64::consts::TAU * t / 9.0 + self.turn_phase[0]).sin() + 0.25 * (std::f64::consts::TAU * t / 3.7 + self.turn_phase[1]).sin());
        st
    }
}

/// The shipped photo's mouth centre, chin (lowest row that moves with the
/// jaw) and mouth half-width, in its pixels.
const MOUTH: Point = [225.0, 146.0];
const CHIN_Y: f64 = 184.0;
const MOUTH_HALF_W: f64 = 21.0;

/// A flat block over part of the face from `from_ms` to `to_ms`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cover {
    pub from_ms: f64,
    pub to_ms: f64,
    pub area: CoverArea,
    /// Its grey level (0..255).
    pub grey: f64,
    /// The spread (standard deviation, grey levels) of a pattern on it, held
    /// still in the image as a hand or a book is: 0 for a flat block.
    pub texture: f64,
}

impl Cover {
    /// Whether it is over the face at `t_ms`.
    #[must_use]
    pub fn over(&self, t_ms: f64) -> bool {
        (self.from_ms..self.to_ms).contains(&t_ms)
    }
}

/// Glasses with a dark frame, as three of the ZJU people wear: a rim
/// round each eye (a rounded rectangle 0.8 × 0.5 eye distances, centred a
/// little below the eye) and a bridge, moving, turning and rolling with the
/// face.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Glasses {
    /// The frame's grey level (0..255).
    pub grey: f64,
    /// The rim's thickness, in eye distances.
    pub rim: f64,
}

impl Glasses {
    /// Thick black frames.
    #[must_use]
    pub fn black() -> Self {
        Self { grey: 25.0, rim: 0.07 }
    }
}

/// What a [`Cover`] hides; each spans the cheeks from 0.9 eye distances
/// beyond each eye.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoverArea {
    /// From above the brows to below the mouth (a hand or a card over the face).
    Face,
    /// From the brows to below the nose (a hand over the upper face).
    EyesAndNose,
    /// A band over both eyes, 0.8 eye distances tall (a flat visor).
    Eyes,
}

#[derive(Debug, Clone)]
pub struct SynthConfig {
    pub seed: u64,
    pub fps: f64,
    pub duration_s: f64,
    pub width: i32,
    pub height: i32,
    /// Inter-ocular distance in output pixels at rest.
    pub iod_px: f64,
    /// Peak head translation in output pixels (x, y).
    pub motion_px: (f64, f64),
    /// Peak roll in degrees.
    pub roll_deg: f64,
    /// The head holds still until this time (s), as a user does when sitting
    /// down to start, then its motion fades in over a second.
    pub still_until_s: f64,
    /// Peak relative change of scale (0.05 = ±5 %).
    pub scale_var: f64,
    /// Standard deviation of the sensor noise in grey levels.
    pub noise_sigma: f64,
    /// Peak relative change of brightness.
    pub light_drift: f64,
    pub script: Vec<ScriptEvent>,
    /// Time spans (ms) when the face is gone (covered or turned away): the
    /// frame shows an empty grey scene and the labels have no positions.
    pub gone: Vec<(f64, f64)>,
    /// Flat blocks over part of the face (a hand, a card) while the hair,
    /// ears and scene stay in view: the labels have no positions then.
    pub covered: Vec<Cover>,
    /// The person talks (see [`Talk`]); `None`: a silent face.
    pub talk: Option<Talk>,
    /// Black-framed glasses on the face (`None`: none).
    pub glasses: Option<Glasses>,
    /// A scripted head path instead of the free motion: (time in ms, x, y
    /// in output pixels from the rest position), moved between linearly,
    /// held before the first and after the last. Empty: the free motion.
    pub path: Vec<(f64, f64, f64)>,
    /// The head turns in 3D (see [`Turn`]): the portrait is rendered on a
    /// generic head at the script's yaw and pitch, in place or drifting as
    /// the free motion does (without its roll and scale); talking's turns
    /// and nods, glasses and covers are not drawn.
    pub turn: Option<Turn>,
}

impl SynthConfig {
    /// The bundled demo clip: 15 s at 30 fps with head motion, six natural
    /// blinks, one long blink, three brow raises and one subtle raise.
    #[must_use]
    pub fn demo() -> Self {
        let b = |start_ms, closed_ms| ScriptEvent { start_ms, action: Action::Blink { closed_ms } };
        let r = |start_ms, amp, hold_ms| ScriptEvent { start_ms, action: Action::Raise { amp, hold_ms } };
        Self {
            seed: 2024,
            fps: 30.0,
            duration_s: 15.0,
            width: 640,
            height: 480,
            iod_px: 64.0,
            motion_px: (45.0, 25.0),
            roll_deg: 6.0,
            still_until_s: 2.0,
            scale_var: 0.06,
            noise_sigma: 3.0,
            light_drift: 0.08,
            script: vec![
                b(1200.0, 90.0),
                b(2600.0, 60.0),
                r(4000.0, 0.11, 700.0),
                b(5600.0, 80.0),
                ScriptEvent { start_ms: 6800.0, action: Action::Subtle { amp: 0.025, hold_ms: 600.0 } },
                b(8000.0, 850.0),
                r(9800.0, 0.09, 500.0),
                b(11000.0, 70.0),
                r(12300.0, 0.13, 900.0),
                b(14000.0, 60.0),
            ],
            gone: Vec::new(),
            covered: Vec::new(),
            talk: None,
            glasses: None,
            path: Vec::new(),
            turn: None,
        }
    }

    /// A head that turns to ±90° of yaw and ±45° of pitch (see [`Turn`])
    /// while it blinks and raises its brows as in [`SynthConfig::random`];
    /// the eyes 64 px apart in 640×480.
    #[must_use]
    pub fn turning(seed: u64, fps: f64) -> Self {
        Self::turning_after(seed, fps, Turn::wide().lead_s)
    }

    /// The same, the first turn after `lead_s` seconds frontal.
    #[must_use]
    pub fn turning_after(seed: u64, fps: f64, lead_s: f64) -> Self {
        let turn = Turn { lead_s, ..Turn::wide() };
        Self { turn: Some(turn), ..Self::random(seed, turn.length_s(), fps) }
    }

    /// A random sequence for tests: blinks every 2–4 s, raises and subtle
    /// raises between them, never overlapping, none in the first 1.5 s.
    #[must_use]
    pub fn random(seed: u64, duration_s: f64, fps: f64) -> Self {
        let mut rng = Rng::new(seed ^ 0x5eed);
        let mut script = Vec::new();
        let mut t = 700.0 + rng.uniform(0.0, 500.0);
        let end = script_end_ms(duration_s, 1200.0);
        while t < end {
            let k = rng.uniform(0.0, 1.0);
            let (action, len) = if k < 0.55 || t < 1500.0 {
                let closed = if rng.uniform(0.0, 1.0) < 0.15 { rng.uniform(700.0, 1000.0) } else { rng.uniform(40.0, 120.0) };
                (Action::Blink { closed_ms: closed }, closed + LID_CLOSE_MS + LID_OPEN_MS)
            } else if k < 0.9 {
                let hold = rng.uniform(350.0, 1200.0);
                (Action::Raise { amp: rng.uniform(0.07, 0.14), hold_ms: hold }, hold + 2.0 * BROW_RAMP_MS)
            } else {
                let hold = rng.uniform(400.0, 1000.0);
                (Action::Subtle { amp: rng.uniform(0.02, 0.03), hold_ms: hold }, hold + 2.0 * BROW_RAMP_MS)
            };
            script.push(ScriptEvent { start_ms: t, action });
            t += len + rng.uniform(900.0, 2200.0);
        }
        Self { seed, fps, duration_s, script, ..Self::demo() }
    }

    /// A random sequence of a person talking (see [`Talk`]): blinks every
    /// 1.5–5 s, in speech and between phrases, and no raise at all: every
    /// brow motion is speech, and none may act.
    #[must_use]
    pub fn talking(seed: u64, duration_s: f64, fps: f64) -> Self {
        let mut rng = Rng::new(seed ^ 0x7a1c);
        let mut script = Vec::new();
        let mut t = 600.0 + rng.uniform(0.0, 600.0);
        let end = script_end_ms(duration_s, 1000.0);
        while t < end {
            let closed = rng.uniform(40.0, 140.0);
            script.push(ScriptEvent { start_ms: t, action: Action::Blink { closed_ms: closed } });
            t += closed + LID_CLOSE_MS + LID_OPEN_MS + rng.uniform(1300.0, 4800.0);
        }
        Self { seed, fps, duration_s, script, talk: Some(Talk::lively()), motion_px: (30.0, 18.0), ..Self::demo() }
    }

    /// A person talking expressively (see [`Talk::expressive`]): brows that
    /// lift with speech as far and as long as a raise that is meant
    /// (labelled 0), and a raise meant in every third pause, once the mouth
    /// has been still a while (labelled 1). Blinks as in [`Self::talking`],
    /// but none near a meant raise.
    #[must_use]
    pub fn talking_expressive(seed: u64, duration_s: f64, fps: f64) -> Self {
        let mut cfg = Self::talking(seed, duration_s, fps);
        let talk = Talk::expressive();
        cfg.talk = Some(talk);
        let end = script_end_ms(duration_s, 1000.0);
        let raises: Vec<ScriptEvent> = Speech::new(Some(talk), seed, duration_s * 1000.0)
            .meant
            .into_iter()
            .filter(|&(start, _, hold)| start + hold + 2.0 * BROW_RAMP_MS < end)
            .map(|(start_ms, amp, hold_ms)| ScriptEvent { start_ms, action: Action::Raise { amp, hold_ms } })
            .collect();
        let near_a_raise = |e: &ScriptEvent| {
            raises.iter().any(|r| {
                let Action::Raise { hold_ms, .. } = r.action else { return false };
                (r.start_ms - 500.0..r.start_ms + hold_ms + 2.0 * BROW_RAMP_MS + 300.0).contains(&e.start_ms)
            })
        };
        cfg.script.retain(|e| !near_a_raise(e));
        cfg.script.extend(raises);
        cfg.script.sort_by(|a, b| a.start_ms.total_cmp(&b.start_ms));
        cfg
    }

    /// The number of frames.
    #[must_use]
    pub fn frames(&self) -> usize {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let n = (self.duration_s * self.fps).round().max(1.0) as usize;
        n
    }
}

/// Synthesis failures.
#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    #[error("cannot load the face photo {path}: {reason} (the project ships it in assets/demo/)")]
    Photo { path: PathBuf, reason: String },
    #[error("cannot write {path}: {reason}")]
    Write { path: PathBuf, reason: String },
    #[error("OpenCV failed while rendering: {0}")]
    OpenCv(#[from] opencv::Error),
    #[error("cannot make this sequence: {0}")]
    Config(String),
}

impl SynthConfig {
    /// Checks that the sequence can be made: finite numbers, at most an hour
    /// at 1–240 frames a second, frames of 32–4096 pixels a side.
    ///
    /// # Errors
    /// [`SynthError::Config`], naming the value.
    pub fn check(&self) -> Result<(), SynthError> {
        let bad = |what: &str| Err(SynthError::Config(what.to_string()));
        if !(self.duration_s.is_finite() && self.duration_s > 0.0 && self.duration_s <= 3600.0) {
            return bad("--seconds must be more than 0 and at most 3600");
        }
        if !(self.fps.is_finite() && (1.0..=240.0).contains(&self.fps)) {
            return bad("--fps must be 1 to 240");
        }
        if !((32..=4096).contains(&self.width) && (32..=4096).contains(&self.height)) {
            return bad("the frame must be 32 to 4096 pixels a side");
        }
        let finite = [self.iod_px, self.motion_px.0, self.motion_px.1, self.roll_deg, self.still_until_s, self.scale_var, self.noise_sigma, self.light_drift];
        if !finite.iter().all(|v| v.is_finite()) || self.iod_px <= 0.0 {
            return bad("every number must be finite, and the eye distance more than 0");
        }
        let path_ok = self.path.iter().all(|(t, x, y)| t.is_finite() && x.is_finite() && y.is_finite()) && self.path.windows(2).all(|w| w[1].0 > w[0].0);
        if !path_ok {
            return bad("the head path needs finite numbers and rising times");
        }
        if self.turn.is_some_and(|t| !((0.0..=90.0).contains(&t.yaw_deg) && (0.0..=60.0).contains(&t.pitch_deg))) {
            return bad("a turn must be 0 to 90 degrees of yaw and 0 to 60 of pitch");
        }
        Ok(())
    }
}

/// Where a scripted head path is at `t_ms` (see [`SynthConfig::path`]).
fn along_path(path: &[(f64, f64, f64)], t_ms: f64) -> (f64, f64) {
    let Some(first) = path.first() else { return (0.0, 0.0) };
    let mut at = (first.1, first.2);
    for w in path.windows(2) {
        let ((t0, x0, y0), (t1, x1, y1)) = (w[0], w[1]);
        if t_ms >= t1 {
            at = (x1, y1);
        } else if t_ms > t0 {
            let f = (t_ms - t0) / (t1 - t0);
            at = (x0 + f * (x1 - x0), y0 + f * (y1 - y0));
        }
    }
    at
}

/// Raised-cosine ramp 0→1 over `[0, len]`.
fn ramp(x: f64, len: f64) -> f64 {
    if x <= 0.0 {
        0.0
    } else if x >= len {
        1.0
    } else {
        0.5 - 0.5 * (std::f64::consts::PI * x / len).cos()
    }
}

/// The state of the face at one time.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FaceState {
    /// Eyelid closure 0 (open) .. 1 (shut), subject's left and right eye.
    pub close_left: f64,
    pub close_right: f64,
    /// Brow lift in inter-ocular distances: the greater of the two ...
    pub brow_amp: f64,
    /// ... and each brow's (the subject's left, then right).
    pub brow_sides: [f64; 2],
    /// Whether the lift belongs to a meant raise and is over half its peak.
    pub brows_raised: bool,
}

/// Evaluates the script at `t_ms`.
#[must_use]
pub fn face_state(script: &[ScriptEvent], t_ms: f64) -> FaceState {
    let mut s = FaceState::default();
    for e in script {
        let x = t_ms - e.start_ms;
        match e.action {
            Action::Blink { closed_ms } | Action::Wink { closed_ms, .. } => {
                let c = ramp(x, LID_CLOSE_MS) * (1.0 - ramp(x - LID_CLOSE_MS - closed_ms, LID_OPEN_MS));
                let (l, r) = match e.action {
                    Action::Wink { left: true, .. } => (c, 0.0),
                    Action::Wink { left: false, .. } => (0.0, c),
                    _ => (c, c),
                };
                s.close_left = s.close_left.max(l);
                s.close_right = s.close_right.max(r);
            }
            Action::Raise { amp, hold_ms } | Action::Subtle { amp, hold_ms } | Action::OneBrow { amp, hold_ms, .. } => {
                let a = amp * ramp(x, BROW_RAMP_MS) * (1.0 - ramp(x - BROW_RAMP_MS - hold_ms, BROW_RAMP_MS));
                let sides = match e.action {
                    Action::OneBrow { left: true, .. } => [a, 0.0],
                    Action::OneBrow { left: false, .. } => [0.0, a],
                    _ => [a, a],
                };
                for (side, lift) in s.brow_sides.iter_mut().zip(sides) {
                    *side = side.max(lift);
                }
                if a > s.brow_amp {
                    s.brow_amp = a;
                    s.brows_raised = matches!(e.action, Action::Raise { .. }) && a >= amp / 2.0;
                }
            }
        }
    }
    s
}

/// Renders frames and their labels.
pub struct Generator {
    asset: FaceAsset,
    cfg: SynthConfig,
    work: Mat,
    patch: Mat,
    map_x: Mat,
    map_y: Mat,
    /// Where the sensor noise's stream starts: frame i's noise is drawn
    /// from it i frames' bytes on, so a frame is the same whichever frames
    /// were rendered before it (and none need be).
    noise_start: Rng,
    phases: [f64; 8],
    speech: Speech,
    head: crate::head3d::Head3d,
}

impl Generator {
    /// # Errors
    /// Never today; kept fallible for assets loaded at run time.
    pub fn new(asset: FaceAsset, cfg: SynthConfig) -> Result<Self, SynthError> {
        let (cfg_talk, cfg_seed, cfg_ms) = (cfg.talk, cfg.seed, cfg.duration_s * 1000.0);
        let mut rng = Rng::new(cfg.seed);
        let mut phases = [0.0; 8];
        for p in &mut phases {
            *p = rng.uniform(0.0, std::f64::consts::TAU);
        }
        Ok(Self {
            work: asset.photo.try_clone()?,
            asset,
            noise_start: Rng::new(cfg.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15)),
            cfg,
            patch: Mat::default(),
            map_x: Mat::default(),
            map_y: Mat::default(),
            phases,
            speech: Speech::new(cfg_talk, cfg_seed, cfg_ms),
            head: crate::head3d::Head3d::default(),
        })
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &SynthConfig {
        &self.cfg
    }

    /// The time of frame `i` in milliseconds.
    #[must_use]
    pub fn t_ms(&self, i: usize) -> f64 {
        #[allow(clippy::cast_precision_loss)]
        let t = i as f64 * 1000.0 / self.cfg.fps;
        t
    }

    /// Head motion at time `t` (s): (dx, dy, roll in degrees, relative scale).
    fn motion(&self, t: f64) -> (f64, f64, f64, f64) {
        if !self.cfg.path.is_empty() {
            let (x, y) = along_path(&self.cfg.path, t * 1000.0);
            return (x, y, 0.0, 1.0);
        }
        let p = &self.phases;
        // Motion relative to its value when the head starts moving, faded in.
        let t0 = self.cfg.still_until_s;
        let fade = ramp(t - t0, 1.0);
        let w = |period: f64, ph: f64| 0.5 * fade * ((std::f64::consts::TAU * t.max(t0) / period + ph).sin() - (std::f64::consts::TAU * t0 / period + ph).sin());
        let (mx, my) = self.cfg.motion_px;
        let dx = mx * (0.65 * w(7.3, p[0]) + 0.35 * w(2.9, p[1]));
        let dy = my * (0.6 * w(5.1, p[2]) + 0.4 * w(3.7, p[3]));
        let roll = self.cfg.roll_deg * (0.7 * w(6.1, p[4]) + 0.3 * w(2.3, p[5]));
        let scale = 1.0 + self.cfg.scale_var * (0.7 * w(8.3, p[6]) + 0.3 * w(3.3, p[7]));
        (dx, dy, roll, scale)
    }

    /// Renders frame `i` into `out` (BGR, the configured size) and returns its labels.
    ///
    /// # Errors
    /// `OpenCV` failures.
    pub fn render(&mut self, i: usize, out: &mut Mat) -> Result<LabelRow, SynthError> {
        let t_ms = self.t_ms(i);
        if self.cfg.gone.iter().any(|(a, b)| (*a..*b).contains(&t_ms)) {
            *out = Mat::new_rows_cols_with_default(self.cfg.height, self.cfg.width, core::CV_8UC3, Scalar::all(70.0))?;
            self.sensor(out, i, t_ms / 1000.0)?;
            return Ok(LabelRow { frame: i as u64, t_ms, ..LabelRow::default() });
        }
        let st = face_state(&self.cfg.script, t_ms);
        let talk = self.speech.at(t_ms);
        let lm = self.asset.landmarks;
        self.asset.photo.copy_to(&mut self.work)?;
        // Speech lifts the brows too (never a meant raise: the label stays).
        let brow_lifts_px = st.brow_sides.map(|a| a.max(talk.brow) * lm.iod());
        let brow_lift_px = brow_lifts_px[0].max(brow_lifts_px[1]);
        if brow_lift_px > 0.01 {
            self.lift_brows(brow_lifts_px)?;
        }
        let jaw_px = talk.mouth * lm.iod();
        if jaw_px > 0.3 {
            self.open_mouth(jaw_px)?;
        }
        face::draw_lid(&mut self.work, lm.le, lm.eye_half_w, lm.eye_half_h, st.close_left, lm.lid_skin_left)?;
        face::draw_lid(&mut self.work, lm.re, lm.eye_half_w, lm.eye_half_h, st.close_right, lm.lid_skin_right)?;
        if talk.smile > 0.01 {
            face::draw_lower_lid(&mut self.work, lm.le, lm.eye_half_w, lm.eye_half_h, talk.smile, lm.lid_skin_left)?;
            face::draw_lower_lid(&mut self.work, lm.re, lm.eye_half_w, lm.eye_half_h, talk.smile, lm.lid_skin_right)?;
        }
        if let Some(turn) = self.cfg.turn {
            let (yaw, pitch) = turn.pose_at(t_ms);
            let (dx, dy) = if turn.moving { let (dx, dy, _, _) = self.motion(t_ms / 1000.0); (dx, dy) } else { (0.0, 0.0) };
            let origin = [f64::from(self.cfg.width) / 2.0 + dx, f64::from(self.cfg.height) * 0.42 + dy];
            let view = crate::head3d::View { size: Size::new(self.cfg.width, self.cfg.height), origin, iod_px: self.cfg.iod_px };
            let [le, re, lb, rb, nose, mid] = self.head.render(&self.work, &lm, (yaw, pitch), view, brow_lift_px, out)?;
            self.sensor(out, i, t_ms / 1000.0)?;
            return Ok(LabelRow {
                frame: i as u64,
                t_ms,
                eyes_closed: st.close_left >= 0.5 && st.close_right >= 0.5,
                brows_raised: st.brows_raised,
                le,
                re,
                lb,
                rb,
                nose,
                mid,
                yaw: Some(yaw),
                pitch: Some(pitch),
                roll: Some(0.0),
                peer_blink: None,
                peer_brow: None,
            });
        }

        let (dx, dy, roll, rel_scale) = self.motion(t_ms / 1000.0);
        let s = self.cfg.iod_px / lm.iod() * rel_scale;
        let (sin, cos) = roll.to_radians().sin_cos();
        let c = lm.eye_mid();
        // A turn and a nod foreshorten the face (by the cosine) and carry
        // it sideways and up or down (the head turns about its neck).
        let (yaw, pitch) = (talk.yaw.to_radians(), talk.pitch.to_radians());
        let (fx, fy) = (yaw.cos(), pitch.cos());
        let ox = f64::from(self.cfg.width) / 2.0 + dx + yaw.sin() * 0.9 * self.cfg.iod_px;
        let oy = f64::from(self.cfg.height) * 0.42 + dy - pitch.sin() * 0.9 * self.cfg.iod_px;
        // out = s·R·F·(p − c) + o, with R rotating clockwise on screen for
        // roll > 0 (y points down) and F = diag(fx, fy) the foreshortening.
        let m = [
            [s * cos * fx, -s * sin * fy, ox - s * (cos * fx * c[0] - sin * fy * c[1])],
            [s * sin * fx, s * cos * fy, oy - s * (sin * fx * c[0] + cos * fy * c[1])],
        ];
        let apply = |p: Point| -> Point { [m[0][0] * p[0] + m[0][1] * p[1] + m[0][2], m[1][0] * p[0] + m[1][1] * p[1] + m[1][2]] };
        let mm = Mat::from_slice_2d(&[[m[0][0], m[0][1], m[0][2]], [m[1][0], m[1][1], m[1][2]]])?;
        imgproc::warp_affine(
            &self.work,
            out,
            &mm,
            Size::new(self.cfg.width, self.cfg.height),
            imgproc::INTER_LINEAR,
            core::BORDER_REPLICATE,
            Scalar::default(),
        )?;
        if let Some(g) = self.cfg.glasses {
            let (e1, e2) = (apply(lm.le), apply(lm.re));
            draw_glasses(out, e1, e2, g)?;
        }
        let cover = self.cfg.covered.iter().find(|c| c.over(t_ms));
        if let Some(c) = cover {
            let (e1, e2, n) = (apply(lm.le), apply(lm.re), apply(lm.nose));
            let iod = s * lm.iod();
            let (x0, x1) = (e1[0].min(e2[0]) - 0.9 * iod, e1[0].max(e2[0]) + 0.9 * iod);
            let (y0, y1) = match c.area {
                CoverArea::Face => (e1[1].min(e2[1]) - 1.0 * iod, n[1] + 1.3 * iod),
                CoverArea::EyesAndNose => (e1[1].min(e2[1]) - 0.5 * iod, n[1] + 0.3 * iod),
                CoverArea::Eyes => (e1[1].min(e2[1]) - 0.4 * iod, e1[1].max(e2[1]) + 0.4 * iod),
            };
            let rect = opencv::core::Rect::new(x0.round() as i32, y0.round() as i32, (x1 - x0).round() as i32, (y1 - y0).round() as i32);
            imgproc::rectangle(out, rect, Scalar::all(c.grey), imgproc::FILLED, imgproc::LINE_8, 0)?;
            if c.texture > 0.0 {
                self.pattern(out, rect, c)?;
            }
        }
        let covered = cover.is_some();
        self.sensor(out, i, t_ms / 1000.0)?;
        if covered {
            return Ok(LabelRow { frame: i as u64, t_ms, ..LabelRow::default() });
        }

        // The brows move along the face's up direction, which the warp rotates with the face.
        let up = |p: Point, lift: f64| [p[0], p[1] - lift];
        Ok(LabelRow {
            frame: i as u64,
            t_ms,
            eyes_closed: st.close_left >= 0.5 && st.close_right >= 0.5,
            brows_raised: st.brows_raised,
            le: Some(apply(lm.le)),
            re: Some(apply(lm.re)),
            lb: Some(apply(up(lm.lb, brow_lifts_px[0]))),
            rb: Some(apply(up(lm.rb, brow_lifts_px[1]))),
            nose: Some(apply(lm.nose)),
            mid: Some(apply(lm.mid)),
            yaw: Some(talk.yaw),
            pitch: Some(talk.pitch),
            roll: Some(roll),
            peer_blink: None,
            peer_brow: None,
        })
    }

    /// Drops the jaw by `drop` photo pixels: the lower lip and chin move
    /// down (the neck below stays), and the mouth opens dark between the lips.
    fn open_mouth(&mut self, drop: f64) -> Result<(), SynthError> {
        let (left, right) = ((MOUTH[0] - 2.2 * MOUTH_HALF_W).floor(), (MOUTH[0] + 2.2 * MOUTH_HALF_W).ceil());
        let (top, bottom) = ((MOUTH[1] - 2.0).floor(), (CHIN_Y + drop + 10.0).ceil());
        #[allow(clippy::cast_possible_truncation)]
        let rect = Rect::new(left as i32, top as i32, (right - left) as i32, (bottom - top) as i32);
        let mut map_x = Mat::new_rows_cols_with_default(rect.height, rect.width, CV_32FC1, Scalar::all(0.0))?;
        let mut map_y = Mat::new_rows_cols_with_default(rect.height, rect.width, CV_32FC1, Scalar::all(0.0))?;
        let w = usize::try_from(rect.width).unwrap_or(0);
        {
            let mx = map_x.data_typed_mut::<f32>()?;
            let my = map_y.data_typed_mut::<f32>()?;
            for (k, (vx, vy)) in mx.iter_mut().zip(my.iter_mut()).enumerate() {
                #[allow(clippy::cast_precision_loss)]
                let (x, y) = ((k % w) as f64 + left, (k / w) as f64 + top);
                // The jaw: full under the mouth, fading towards the cheeks.
                let wx = (-0.5 * ((x - MOUTH[0]) / (1.1 * MOUTH_HALF_W)).powi(2)).exp();
                let wy = if y < MOUTH[1] { 0.0 } else if y <= CHIN_Y + drop { 1.0 } else { (1.0 - (y - CHIN_Y - drop) / 10.0).clamp(0.0, 1.0) };
                #[allow(clippy::cast_possible_truncation)]
                {
                    *vx = (x - left) as f32;
                    *vy = (y - drop * wx * wy - top).max(0.0) as f32;
                }
            }
        }
        let src = Mat::roi(&self.asset.photo, rect)?;
        let mut moved = Mat::default();
        imgproc::remap(&src, &mut moved, &map_x, &map_y, imgproc::INTER_LINEAR, core::BORDER_REPLICATE, Scalar::default())?;
        let mut dst = Mat::roi_mut(&mut self.work, rect)?;
        moved.copy_to(&mut dst)?;
        // The open mouth between the lips.
        #[allow(clippy::cast_possible_truncation)]
        let (cx, cy, ax, ay) = (MOUTH[0].round() as i32, (MOUTH[1] + 0.5 * drop).round() as i32, (0.8 * MOUTH_HALF_W).round() as i32, (0.5 * drop).round().max(1.0) as i32);
        imgproc::ellipse(&mut self.work, core::Point::new(cx, cy), Size::new(ax, ay), 0.0, 0.0, 360.0, Scalar::new(40.0, 32.0, 45.0, 0.0), imgproc::FILLED, imgproc::LINE_AA, 0)?;
        Ok(())
    }

    /// Moves the skin between eyes and forehead up by `lifts` photo pixels
    /// at the brows (the subject's left brow, then right).
    fn lift_brows(&mut self, lifts: [f64; 2]) -> Result<(), SynthError> {
        let lm = self.asset.landmarks;
        let pad = 2.2 * lm.brow_half_len;
        let top = (lm.lb[1].min(lm.rb[1]) - lm.forehead_span - 2.0).floor();
        let bottom = (lm.le[1].max(lm.re[1]) - lm.eye_half_h).ceil();
        let left = (lm.rb[0].min(lm.lb[0]) - pad).floor();
        let right = (lm.rb[0].max(lm.lb[0]) + pad).ceil();
        #[allow(clippy::cast_possible_truncation)]
        let rect = Rect::new(left as i32, top as i32, (right - left) as i32, (bottom - top) as i32);
        if self.map_x.rows() != rect.height || self.map_x.cols() != rect.width {
            self.map_x = Mat::new_rows_cols_with_default(rect.height, rect.width, CV_32FC1, Scalar::all(0.0))?;
            self.map_y = Mat::new_rows_cols_with_default(rect.height, rect.width, CV_32FC1, Scalar::all(0.0))?;
        }
        let w = usize::try_from(rect.width).unwrap_or(0);
        {
            let mx = self.map_x.data_typed_mut::<f32>()?;
            let my = self.map_y.data_typed_mut::<f32>()?;
            for (k, (vx, vy)) in mx.iter_mut().zip(my.iter_mut()).enumerate() {
                #[allow(clippy::cast_precision_loss)]
                let (x, y) = ((k % w) as f64 + left, (k / w) as f64 + top);
                let mut d = 0.0;
                for (brow, eye, lift) in [(lm.lb, lm.le, lifts[0]), (lm.rb, lm.re, lifts[1])] {
                    let wx = (-0.5 * ((x - brow[0]) / lm.brow_half_len).powi(2)).exp();
                    let eye_top = eye[1] - lm.eye_half_h;
                    let wy = if y >= brow[1] {
                        let u = ((eye_top - y) / (eye_top - brow[1])).clamp(0.0, 1.0);
                        u * u
                    } else {
                        ((y - (brow[1] - lm.forehead_span)) / lm.forehead_span).clamp(0.0, 1.0)
                    };
                    d += lift * wx * wy;
                }
                #[allow(clippy::cast_possible_truncation)]
                {
                    *vx = (x - left) as f32;
                    *vy = (y + d - top) as f32;
                }
            }
        }
        let src = Mat::roi(&self.asset.photo, rect)?;
        imgproc::remap(&src, &mut self.patch, &self.map_x, &self.map_y, imgproc::INTER_CUBIC, core::BORDER_REPLICATE, Scalar::default())?;
        let mut dst = Mat::roi_mut(&mut self.work, rect)?;
        self.patch.copy_to(&mut dst)?;
        Ok(())
    }

    /// A cover's pattern: creases and blotches of 6 to 30 px (a sum of
    /// waves with the sequence's own directions and phases), anchored in the
    /// image, not on the face.
    fn pattern(&self, img: &mut Mat, rect: opencv::core::Rect, c: &Cover) -> Result<(), SynthError> {
        let mut rng = Rng::new(self.cfg.seed ^ 0xc0ee_7e47);
        let waves: Vec<(f64, f64, f64)> = (0..6)
            .map(|_| {
                let (angle, length) = (rng.uniform(0.0, std::f64::consts::PI), rng.uniform(6.0, 30.0));
                let k = std::f64::consts::TAU / length;
                (k * angle.cos(), k * angle.sin(), rng.uniform(0.0, std::f64::consts::TAU))
            })
            .collect();
        // Six unit waves of random phase spread by sqrt(6 / 2).
        let scale = c.texture / 3f64.sqrt();
        let (cols, rows, ch) = (img.cols(), img.rows(), img.channels());
        let (x0, x1) = (rect.x.max(0), (rect.x + rect.width).min(cols));
        let (y0, y1) = (rect.y.max(0), (rect.y + rect.height).min(rows));
        let step = img.mat_step().first().copied().unwrap_or(0);
        let data = img.data_bytes_mut()?;
        for y in y0..y1 {
            for x in x0..x1 {
                let (fx, fy) = (f64::from(x), f64::from(y));
                let v = c.grey + scale * waves.iter().map(|(kx, ky, ph)| (kx * fx + ky * fy + ph).sin()).sum::<f64>();
                let at = y as usize * step + x as usize * ch as usize;
                data[at..at + ch as usize].fill(grey_u8(v));
            }
        }
        Ok(())
    }

    /// Lighting drift and sensor noise, in place, on frame `i` at `t` s.
    fn sensor(&self, img: &mut Mat, i: usize, t: f64) -> Result<(), SynthError> {
        let gain = 1.0 + self.cfg.light_drift * (std::f64::consts::TAU * t / 11.0 + self.phases[0]).sin();
        let bias = 6.0 * self.cfg.light_drift / 0.08 * (std::f64::consts::TAU * t / 17.0 + self.phases[3]).sin();
        let sigma = self.cfg.noise_sigma;
        let data = img.data_bytes_mut()?;
        if sigma > 0.0 {
            self.noise_start.ahead(i as u64 * data.len() as u64).add_noise(data, gain, bias, sigma);
        } else {
            for v in data.iter_mut() {
                *v = grey_u8(f64::from(*v) * gain + bias);
            }
        }
        Ok(())
    }
}

/// A grey level rounded to the nearest (halves away from zero) and clamped
/// to 0..=255: exactly `x.round().clamp(0.0, 255.0) as u8`, NaN giving 0,
/// without the call into libm that `round` is where SSE4.1 is not assumed
/// (a tenth of the time of generating a frame went there).
#[inline]
pub(crate) fn grey_u8(x: f64) -> u8 {
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= 255.0 {
        255
    } else {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let whole = x as u8;
        // Exact: x and its whole part are within 2⁸ of each other.
        whole + u8::from(x - f64::from(whole) >= 0.5)
    }
}

/// [`grey_u8`] with no branch and no float-to-integer conversion, so that
/// a loop of it runs in vector registers; for code compiled with SSE4.1
/// (`trunc` is a call without it).
#[inline]
pub(crate) fn grey_u8_lanes(x: f64) -> u8 {
    // `max` takes 0 for NaN (`clamp` would keep it); 0 and 255 round to themselves.
    #[allow(clippy::manual_clamp)]
    let c = x.max(0.0).min(255.0);
    let whole = c.trunc();
    // Exact: c and its whole part are within 2⁸ of each other.
    let grey = whole + if c - whole >= 0.5 { 1.0 } else { 0.0 };
    // A whole number below 2⁵² plus 2⁵² is that number in the low bits.
    #[allow(clippy::cast_possible_truncation)]
    let low = (grey + 4_503_599_627_370_496.0).to_bits() as u8;
    low
}

/// Draws glasses round the eyes at `e1` and `e2` (image points).
fn draw_glasses(img: &mut Mat, e1: Point, e2: Point, g: Glasses) -> Result<(), SynthError> {
    let (dx, dy) = (e1[0] - e2[0], e1[1] - e2[1]);
    let iod = dx.hypot(dy).max(1.0);
    // Along the eye line, and down the face.
    let (ux, uy) = (dx / iod, dy / iod);
    let (vx, vy) = (-uy, ux);
    let at = |c: Point, a: f64, b: f64| opencv::core::Point::new((c[0] + a * ux + b * vx).round() as i32, (c[1] + a * uy + b * vy).round() as i32);
    let thick = ((g.rim * iod).round() as i32).max(1);
    let colour = Scalar::all(g.grey);
    let (hw, hh, drop) = (0.4 * iod, 0.25 * iod, 0.05 * iod);
    for eye in [e1, e2] {
        // A rounded rectangle: its corners cut at a quarter of its height.
        let k = 0.25 * 2.0 * hh;
        let ring: Vec<opencv::core::Point> = [(-hw + k, -hh), (hw - k, -hh), (hw, -hh + k), (hw, hh - k), (hw - k, hh), (-hw + k, hh), (-hw, hh - k), (-hw, -hh + k)]
            .iter()
            .map(|&(a, b)| at(eye, a, b + drop))
            .collect();
        let pts = opencv::core::Vector::<opencv::core::Vector<opencv::core::Point>>::from_iter([opencv::core::Vector::from_iter(ring)]);
        imgproc::polylines(img, &pts, true, colour, thick, imgproc::LINE_AA, 0)?;
    }
    // The bridge between the rims' inner edges, a little above the eyes.
    let (inner1, inner2) = (at(e1, -hw, -0.1 * iod), at(e2, hw, -0.1 * iod));
    imgproc::line(img, inner1, inner2, colour, thick, imgproc::LINE_AA, 0)?;
    Ok(())
}

/// Writes a sequence folder: `video.avi` (MPEG-4), `labels.csv`, `meta.json`.
///
/// # Errors
/// A photo that cannot be loaded, or a folder that cannot be written.
pub fn write_sequence(asset: FaceAsset, cfg: &SynthConfig, dir: &Path) -> Result<Meta, SynthError> {
    cfg.check()?;
    let werr = |path: &Path, reason: String| SynthError::Write { path: path.to_path_buf(), reason };
    let (video, csv, mj) = crate::lab::labels::sequence_outputs(dir, &[]).map_err(|e| werr(dir, e.to_string()))?;
    let tmp = crate::fs::create_beside_keeping_extension(&video, "part").map_err(|e| werr(&video, e.to_string()))?;
    let written = (|| {
        let name = tmp.to_str().ok_or_else(|| werr(&video, "path is not UTF-8".into()))?;
        // MPEG-4 part 2 in AVI through FFmpeg, like the shared sequences.
        let fourcc = VideoWriter::fourcc('F', 'M', 'P', '4')?;
        let size = Size::new(cfg.width, cfg.height);
        let mut writer = VideoWriter::new_with_backend(name, videoio::CAP_FFMPEG, fourcc, cfg.fps, size, true)?;
        if !writer.is_opened()? {
            return Err(werr(&video, "OpenCV's FFmpeg backend cannot write MPEG-4 AVI here".into()));
        }
        writer.set(videoio::VIDEOWRITER_PROP_QUALITY, 92.0)?;
        // A frame does not depend on the frames before it (each draws its
        // noise from its own place in the stream), so two threads render the
        // even and the odd frames, each with a generator of its own, and this
        // one encodes them in order: the same bytes, the cores shared.
        let n = cfg.frames();
        let second = FaceAsset { photo: asset.photo.try_clone()?, landmarks: asset.landmarks };
        let generators = [Generator::new(asset, cfg.clone())?, Generator::new(second, cfg.clone())?];
        let rows = std::thread::scope(|scope| -> Result<Vec<LabelRow>, SynthError> {
            // Made in the scope, so that the receivers are gone, and a thread
            // blocked on a full channel lets go, before the scope waits for it.
            let mut rendered = Vec::with_capacity(2);
            for (first, mut generator) in generators.into_iter().enumerate() {
                let (tx, rx) = std::sync::mpsc::sync_channel::<Result<(Mat, LabelRow), SynthError>>(2);
                std::thread::Builder::new()
                    .name("synth-render".into())
                    .spawn_scoped(scope, move || {
                        for i in (first..n).step_by(2) {
                            let mut img = Mat::default();
                            let frame = generator.render(i, &mut img).map(|row| (img, row));
                            let failed = frame.is_err();
                            if tx.send(frame).is_err() || failed {
                                break;
                            }
                        }
                    })
                    .map_err(|e| werr(&video, format!("cannot start a thread to render frames: {e}")))?;
                rendered.push(rx);
            }
            let mut rows = Vec::with_capacity(n);
            for i in 0..n {
                let (img, row) = rendered[i % 2].recv().map_err(|_| werr(&video, "a thread rendering frames stopped".into()))??;
                rows.push(row);
                writer.write(&img)?;
            }
            Ok(rows)
        })?;
        writer.release()?;
        std::fs::rename(&tmp, &video).map_err(|e| werr(&video, e.to_string()))?;
        Ok(rows)
    })();
    let rows = written.inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })?;
    crate::fs::write_atomic(&csv, labels::to_csv(&rows).as_bytes()).map_err(|e| werr(&csv, e.to_string()))?;
    let meta = make_meta(cfg, &rows);
    let text = serde_json::to_string_pretty(&meta).map_err(|e| werr(&mj, e.to_string()))?;
    crate::fs::write_atomic(&mj, (text + "\n").as_bytes()).map_err(|e| werr(&mj, e.to_string()))?;
    Ok(meta)
}

/// The metadata of a generated sequence, in the shared format.
#[must_use]
pub fn make_meta(cfg: &SynthConfig, rows: &[LabelRow]) -> Meta {
    let raises: Vec<[u64; 2]> = crate::lab::labels::Sequence::runs(rows.iter().map(|r| r.brows_raised))
        .into_iter()
        .map(|(a, b)| [a as u64, b as u64])
        .collect();
    // Subtle raises: frames over half of their own peak (they are labelled 0).
    let mut subtle = Vec::new();
    for e in &cfg.script {
        if let Action::Subtle { amp, .. } = e.action {
            let over: Vec<bool> = rows
                .iter()
                .map(|r| {
                    let x = r.t_ms - e.start_ms;
                    let lone = face_state(&[*e], r.t_ms);
                    x >= 0.0 && lone.brow_amp >= amp / 2.0
                })
                .collect();
            if let Some((a, b)) = crate::lab::labels::Sequence::runs(over).first() {
                subtle.push([*a as u64, *b as u64]);
            }
        }
    }
    let blinks = crate::lab::labels::Sequence::runs(rows.iter().map(|r| r.eyes_closed)).len();
    let mut extra = serde_json::Map::new();
    extra.insert("generator".into(), serde_json::json!("facemouse synth"));
    extra.insert("seed".into(), serde_json::json!(cfg.seed));
    extra.insert("label_shift_frames".into(), serde_json::json!(0));
    extra.insert("blinks".into(), serde_json::json!(blinks));
    extra.insert("brow_raises".into(), serde_json::json!(raises.len()));
    extra.insert("glasses".into(), serde_json::json!(cfg.glasses.is_some()));
    extra.insert("smiles".into(), serde_json::json!(Speech::new(cfg.talk, cfg.seed, cfg.duration_s * 1000.0).smiles.len()));
    extra.insert("person".into(), serde_json::json!(match cfg.talk {
        Some(k) if k.raise_every > 0 => "generated expressive talking",
        Some(_) => "generated talking",
        None => "synthetic (astronaut photo)",
    }));
    Meta {
        source: "facemouse synth from assets/demo/astronaut.png (NASA portrait of Eileen Collins, via scikit-image)".into(),
        license: "public domain (NASA); generated data: same licence as the project".into(),
        fps: cfg.fps,
        frames: rows.len() as u64,
        width: u32::try_from(cfg.width).unwrap_or(0),
        height: u32::try_from(cfg.height).unwrap_or(0),
        synthetic_brow_raises: raises,
        subtle_raises: subtle,
        extra,
    }
}


/// Frame `i` of `g` in grey, with its labels (for the vision's unit tests).
#[cfg(test)]
pub(crate) fn gray_frame(g: &mut Generator, i: usize) -> (Mat, LabelRow) {
    let mut img = Mat::default();
    let row = g.render(i, &mut img).expect("render");
    let mut gray = Mat::default();
    imgproc::cvt_color_def(&img, &mut gray, imgproc::COLOR_BGR2GRAY).expect("gray");
    (gray, row)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cheap roundings give what `round` and `clamp` give, at every
    /// half, just beside it, far out and for NaN and the infinities.
    #[test]
    fn grey_u8_rounds_as_round_and_clamp_do() {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let reference = |x: f64| x.round().clamp(0.0, 255.0) as u8;
        let mut xs = vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0, -0.5, 0.5, 254.5, 254.499_999_999_999_97, 255.0, 255.5, 1e300, -1e300];
        let mut rng = rng::Rng::new(3);
        for k in -2000..2000 {
            let x = f64::from(k) / 8.0;
            xs.extend([x, x.next_up(), x.next_down()]);
            xs.push(rng.uniform(-20.0, 280.0));
        }
        for x in xs {
            assert_eq!(grey_u8(x), reference(x), "at {x:e}");
            assert_eq!(grey_u8_lanes(x), reference(x), "at {x:e}");
        }
    }

    /// Frame i is the same whichever frames were rendered before it, and a
    /// cover changes only the frames it covers (tests play one clip under
    /// several covers and render its uncovered frames once).
    #[test]
    fn a_frame_is_the_same_in_any_order_and_a_cover_changes_only_its_own() {
        let asset = || FaceAsset::load(&default_photo()).expect("photo");
        let plain = SynthConfig { duration_s: 1.0, ..SynthConfig::demo() };
        let cover = Cover { from_ms: 300.0, to_ms: 600.0, area: CoverArea::Face, grey: 120.0, texture: 10.0 };
        let covered = SynthConfig { covered: vec![cover], ..plain.clone() };
        let bytes = |m: &Mat| m.data_bytes().expect("bytes").to_vec();
        let mut g = Generator::new(asset(), plain.clone()).expect("generator");
        let mut img = Mat::default();
        let in_order: Vec<Vec<u8>> = (0..plain.frames()).map(|i| g.render(i, &mut img).map(|_| bytes(&img)).expect("render")).collect();
        let (mut back, mut c) = (Generator::new(asset(), plain.clone()).expect("generator"), Generator::new(asset(), covered).expect("generator"));
        let mut changed = 0;
        for i in (0..plain.frames()).rev() {
            back.render(i, &mut img).expect("render");
            assert!(bytes(&img) == in_order[i], "frame {i} rendered backwards differs");
            c.render(i, &mut img).expect("render");
            let under = cover.over(c.t_ms(i));
            assert_eq!(bytes(&img) != in_order[i], under, "frame {i}: changed by the cover only while it covers");
            changed += usize::from(under);
        }
        assert_eq!(changed, 9);
    }

    /// A sequence rendered on two threads is written in order: its labels
    /// are those of the frames rendered one after the other, and a second
    /// writing of it is the same to the byte.
    #[test]
    fn a_sequence_rendered_on_two_threads_is_written_in_order() {
        let asset = || FaceAsset::load(&default_photo()).expect("photo");
        let cfg = SynthConfig { duration_s: 1.5, covered: vec![Cover { from_ms: 400.0, to_ms: 700.0, area: CoverArea::Eyes, grey: 90.0, texture: 0.0 }], ..SynthConfig::demo() };
        let mut g = Generator::new(asset(), cfg.clone()).expect("generator");
        let mut img = Mat::default();
        let rows: Vec<LabelRow> = (0..cfg.frames()).map(|i| g.render(i, &mut img).expect("render")).collect();
        let (a, b) = (tempfile::tempdir().expect("tempdir"), tempfile::tempdir().expect("tempdir"));
        write_sequence(asset(), &cfg, a.path()).expect("write");
        write_sequence(asset(), &cfg, b.path()).expect("write");
        let read = |dir: &Path, name: &str| std::fs::read(dir.join(name)).expect("read");
        assert_eq!(String::from_utf8(read(a.path(), "labels.csv")).expect("utf8"), labels::to_csv(&rows));
        assert!(read(a.path(), "video.avi") == read(b.path(), "video.avi"), "two writings differ");
    }

    /// Glasses draw a dark rim round each eye (above and below it, not on
    /// it) and change no label.
    #[test]
    fn glasses_ring_the_eyes_and_leave_the_labels() {
        let asset = || FaceAsset::load(&default_photo()).expect("photo");
        let plain = SynthConfig::demo();
        let worn = SynthConfig { glasses: Some(Glasses::black()), ..SynthConfig::demo() };
        let (a, row_a) = gray_frame(&mut Generator::new(asset(), plain).expect("generator"), 10);
        let (b, row_b) = gray_frame(&mut Generator::new(asset(), worn).expect("generator"), 10);
        assert_eq!((row_a.le, row_a.re, row_a.lb, row_a.eyes_closed), (row_b.le, row_b.re, row_b.lb, row_b.eyes_closed));
        let (le, re) = (row_a.le.expect("le"), row_a.re.expect("re"));
        let iod = ((le[0] - re[0]).powi(2) + (le[1] - re[1]).powi(2)).sqrt();
        let px = |m: &Mat, p: [f64; 2]| f64::from(*m.at_2d::<u8>(p[1].round() as i32, p[0].round() as i32).expect("px"));
        for eye in [le, re] {
            // The rims: 0.2 eye distances above the eye and 0.3 below (darkest within 2 px).
            for dy in [-0.2, 0.3] {
                let darkest = (-2..=2).map(|k| px(&b, [eye[0], eye[1] + dy * iod + f64::from(k)])).fold(255.0, f64::min);
                assert!(darkest < 60.0, "a rim {dy} eye distances from {eye:?}: {darkest}");
            }
            assert!((px(&a, eye) - px(&b, eye)).abs() < 12.0, "the eye itself shows through");
        }
    }

    /// Smiles come from their own random stream: a talking sequence with
    /// them has the same phrases, speech lifts and nods as without, and
    /// its smiles narrow the eyes (the lower lids rise) while they last.
    #[test]
    fn smiles_leave_the_rest_of_the_talking_as_it_was() {
        let plain = Speech::new(Some(Talk::lively()), 603, 40_000.0);
        let smiling = Speech::new(Some(Talk::smiling()), 603, 40_000.0);
        assert!(plain.smiles.is_empty());
        assert!(smiling.smiles.len() >= 3, "{:?}", smiling.smiles);
        assert_eq!((&plain.phrases, &plain.lifts, &plain.nods), (&smiling.phrases, &smiling.lifts, &smiling.nods));
        let (start, amp, len) = smiling.smiles[0];
        let mid = smiling.at(start + len / 2.0);
        assert!((mid.smile - amp).abs() < 1e-9, "{mid:?}");
        assert!(smiling.at(start - 1.0).smile.abs() < 1e-9);
        // The lower lid: skin over the eye's lower part, the upper part untouched.
        let mut img = Mat::new_rows_cols_with_default(40, 60, core::CV_8UC3, Scalar::all(250.0)).expect("mat");
        face::draw_lower_lid(&mut img, [30.0, 20.0], 20.0, 8.0, 0.45, [120.0, 120.0, 120.0]).expect("lid");
        let at = |y: i32| img.at_2d::<opencv::core::Vec3b>(y, 30).expect("px")[0];
        assert!(at(26) < 150, "the lower part is skin: {}", at(26));
        assert_eq!(at(14), 250, "the upper part is untouched");
    }

    #[test]
    fn script_gives_closure_and_lift() {
        let script = vec![
            ScriptEvent { start_ms: 100.0, action: Action::Blink { closed_ms: 100.0 } },
            ScriptEvent { start_ms: 1000.0, action: Action::Raise { amp: 0.1, hold_ms: 400.0 } },
        ];
        assert_eq!(face_state(&script, 0.0), FaceState::default());
        let shut = face_state(&script, 200.0);
        assert!((shut.close_left - 1.0).abs() < 1e-9 && (shut.close_right - 1.0).abs() < 1e-9);
        assert!(face_state(&script, 400.0).close_left < 1e-9);
        let up = face_state(&script, 1300.0);
        assert!((up.brow_amp - 0.1).abs() < 1e-9 && up.brows_raised);
        assert!(!face_state(&script, 1010.0).brows_raised);
    }

    #[test]
    fn a_scripted_path_is_followed_and_held_at_its_ends() {
        let path = [(1000.0, 0.0, 0.0), (2000.0, 40.0, -20.0), (3000.0, 40.0, -20.0)];
        assert_eq!(along_path(&path, 0.0), (0.0, 0.0));
        assert_eq!(along_path(&path, 1500.0), (20.0, -10.0));
        assert_eq!(along_path(&path, 2500.0), (40.0, -20.0));
        assert_eq!(along_path(&path, 9000.0), (40.0, -20.0));
    }

    #[test]
    fn random_scripts_do_not_overlap_and_skip_the_start() {
        let cfg = SynthConfig::random(7, 60.0, 30.0);
        assert!(cfg.script.len() > 10);
        for e in &cfg.script {
            if matches!(e.action, Action::Raise { .. } | Action::Subtle { .. }) {
                assert!(e.start_ms >= 1500.0);
            }
        }
        for w in cfg.script.windows(2) {
            assert!(w[1].start_ms - w[0].start_ms > 500.0);
        }
    }

    #[test]
    fn rendered_labels_follow_the_face() {
        let asset = FaceAsset::load(&default_photo()).expect("the shipped photo");
        let cfg = SynthConfig::demo();
        let mut g = Generator::new(asset, cfg.clone()).expect("generator");
        let mut img = Mat::default();
        let row = g.render(0, &mut img).expect("render");
        assert_eq!((img.cols(), img.rows()), (cfg.width, cfg.height));
        let (le, re) = (row.le.expect("le"), row.re.expect("re"));
        let iod = crate::events::dist(le, re);
        assert!((iod / cfg.iod_px - 1.0).abs() < cfg.scale_var + 0.01, "iod {iod}");
        assert!(le[0] > re[0], "the subject's left eye is on the image's right");
        assert!(row.lb.expect("lb")[1] < le[1] && row.rb.expect("rb")[1] < re[1], "brows above the eyes");
    }

    #[test]
    fn a_blink_darkens_nothing_but_changes_the_eye() {
        let asset = FaceAsset::load(&default_photo()).expect("the shipped photo");
        let mut cfg = SynthConfig::demo();
        cfg.noise_sigma = 0.0;
        cfg.light_drift = 0.0;
        cfg.motion_px = (0.0, 0.0);
        cfg.roll_deg = 0.0;
        cfg.scale_var = 0.0;
        cfg.script = vec![ScriptEvent { start_ms: 100.0, action: Action::Blink { closed_ms: 200.0 } }];
        let mut g = Generator::new(asset, cfg).expect("generator");
        let (mut open, mut shut) = (Mat::default(), Mat::default());
        let r0 = g.render(0, &mut open).expect("render");
        let r1 = g.render(6, &mut shut).expect("render");
        assert!(!r0.eyes_closed && r1.eyes_closed);
        let mut diff = Mat::default();
        core::absdiff(&open, &shut, &mut diff).expect("absdiff");
        let le = r0.le.expect("le");
        #[allow(clippy::cast_possible_truncation)]
        let eye = Rect::new(le[0] as i32 - 20, le[1] as i32 - 12, 40, 24);
        let inside = core::sum_elems(&Mat::roi(&diff, eye).expect("roi")).expect("sum")[0];
        let total = core::sum_elems(&diff).expect("sum")[0];
        assert!(inside > 2000.0, "the eye changes: {inside}");
        assert!(total < inside * 2.5, "little changes outside the eyes: {total} vs {inside}");
    }
}
