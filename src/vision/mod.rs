//! Vision: from a frame to an [`Observation`] of the eyes, brows and pointer feature.
//!
//! The phases follow the user, who does nothing but sit in front of the camera:
//! - searching ([`search`]): the face detector ([`face`]) finds the face on a
//!   small copy of the frame, and the eyes are found near its eye points.
//!   Without the detector's model, or where it sees no face, BlinkLink
//!   ([`blinklink`]) waits for a natural blink to show an eye pair, which the
//!   eye cascade ([`haar`]) confirms; the eyes are then taken once they reopen.
//! - tracking ([`track`]): each template is found by normalized correlation
//!   ([`ncc`]) in a window that follows the motion, scaled by the eye distance
//!   and the real frame interval. The eye state ([`eyes`]) learns each eye's
//!   open look and the person's own blinks; the brow switch ([`brows`]) the
//!   person's rest level. Now and then the face detector checks that the
//!   trackers have not drifted.
//! - lost ([`recover`]): the feature fell below its correlation floor or the
//!   eyes broke the face's geometry. No clicks happen. The face detector, the
//!   stored templates or the next blinks find the face again, by themselves.
//!
//! Every threshold is in [`params`].

pub mod ahm;
pub mod blinklink;
pub mod brows;
pub mod carry;
pub mod eyes;
pub mod face;
pub mod haar;
pub mod locate;
pub mod mouth;
pub mod ncc;
pub mod params;
mod recover;
mod search;
mod still;
pub mod stats;
mod track;

use opencv::core::Mat;

use crate::capture::Frame;
use crate::events::{Event, Point, TrackState, dist};
use blinklink::{BlinkLink, EyePair};
use brows::Brows;
use eyes::EyeState;
use params::BLINK_DEDUPE_MS;
use stats::Ema;
use track::Tracks;

/// What vision saw on one frame.
#[derive(Debug, Clone, Default, PartialEq)]
#[allow(clippy::struct_excessive_bools)] // independent facts about one frame, not states of one thing
pub struct Observation {
    pub state: TrackState,
    /// The subject's left eye centre (on the image's right).
    pub le: Option<Point>,
    /// The subject's right eye centre (on the image's left).
    pub re: Option<Point>,
    pub lb: Option<Point>,
    pub rb: Option<Point>,
    /// The tracked pointer feature.
    pub feature: Option<Point>,
    /// The point between the eyes and the nose tip, for head pose.
    pub mid: Option<Point>,
    pub nose: Option<Point>,
    pub eyes_closed: bool,
    pub brows_raised: bool,
    /// Vision events on this frame (blinks, winks, brow raises, init, lost).
    pub events: Vec<Event>,
    /// 0..1: how much the trackers trust this frame (the feature's correlation).
    pub confidence: f64,
    /// Eye closure of each eye in thresholds (≥ 1 is closed), for plots.
    pub closure: (f64, f64),
    /// Brow lift above rest in inter-ocular distances, for plots.
    pub brow_lift: f64,
    /// How long this frame waited for the face model's training (µs): a
    /// replay waits for it at a set frame, so that every run gives the same
    /// trace; a live frame never does (`Pipeline::set_live`).
    pub model_wait_us: u64,
    /// Each brow's lift above its own rest (the subject's left, then right),
    /// for calibration: whether the user's raise lifts both brows.
    pub brow_side_lifts: [f64; 2],
    /// The mouth moves as in talking (`mouth.rs`): no face gesture acts.
    pub talking: bool,
    /// While AHM carries the pointer (`TrackState::Carried`): the head it reads.
    pub carried: Option<CarriedHead>,
    /// The eye state has seen one of the person's blinks and knows how far
    /// their eyes close: a long blink (and a wink) can count only then.
    pub blinks_known: bool,
    /// The trackers may be on something other than the face: the face
    /// detector has not yet agreed with them since they started, or its
    /// last answer disagreed, or the feature (as it is and upright) does
    /// not match as the face does. The pointer holds (a hand passing over
    /// the face carried the trackers, and the pointer with them, across
    /// the screen), as nothing is judged.
    pub doubtful: bool,
}

/// The head as AHM reads it while it carries the pointer (`carry`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CarriedHead {
    /// The eye distance the head was last tracked at (px).
    pub iod: f64,
    /// Degrees, the signs of `docs/trace.md`.
    pub yaw: f64,
    pub pitch: f64,
    /// AHM's own estimate of its error (root mean square of its hidden values).
    pub expected_error: f64,
}

pub use crate::settings::{FeaturePoint, VisionSettings};

/// Vision failures that a caller may want to see (OpenCV errors on odd frames).
#[derive(Debug, thiserror::Error)]
pub enum VisionError {
    #[error("image processing failed: {0}")]
    OpenCv(#[from] opencv::Error),
    #[error("following the head with its model failed: {0}")]
    Carry(#[from] carry::CarryError),
}

/// Waiting for the eyes to reopen after the blink that found them (without a face detector).
struct Init {
    pair: EyePair,
    since: f64,
    mid_tmpl: Mat,
    mid: Point,
    from_blink: bool,
}

enum Phase {
    Searching,
    Initializing(Box<Init>),
    Tracking(Box<Tracks>),
    Lost { tracks: Box<Tracks>, since: f64 },
}

/// The vision stage.
pub struct Vision {
    settings: VisionSettings,
    phase: Phase,
    faces: face::FaceWorker,
    generic: locate::GenericEyes,
    confirm: haar::EyeConfirmer,
    blink: BlinkLink,
    eyes: EyeState,
    brows: Brows,
    speech: mouth::Speech,
    /// Active Hidden Models: trained on the session's frontal face, following the head.
    carry: carry::Carrier,
    /// The frame time of the last face detector's answer that agreed closely
    /// with the trackers on a frontal face (for `carry`).
    face_confirmed: Option<f64>,
    /// The detector's nose tip below its point between the eyes (eye
    /// distances) on the first such answer: this person's frontal, to tell
    /// a nod by.
    face_down0: Option<f64>,
    /// The trackers' nose tip below their point between the eyes (eye
    /// distances) on the first confirmed frontal frame: a nod is told by it.
    ncc_down0: Option<f64>,
    /// The templates' feature less AHM's point between the eyes, on the last frame both had.
    carry_offset: Point,
    /// The feature template (and eye distance) of the last track the face
    /// detector agreed with closely: what the pointer was following. A
    /// start after a loss keeps its feature there (`search::keep_feature`).
    anchor: Option<(Mat, f64)>,
    /// Frames come at their own pace: AHM's model is taken when ready, never waited for.
    live: bool,
    last_t: Option<f64>,
    feature_score: Ema,
    /// The previous frame while not tracking: eyes are confirmed on it, before they closed.
    prev_gray: Mat,
    /// When the last blink event was emitted.
    last_blink: Option<f64>,
    // Reused buffers.
    result: Mat,
    patch: Mat,
    small: Mat,
    small_tmpl: Mat,
    /// A 2×3 affine map (the feature matched upright).
    warp: Mat,
}

impl Default for Vision {
    fn default() -> Self {
        Self::new(VisionSettings::default())
    }
}

fn add(a: Point, b: Point) -> Point {
    [a[0] + b[0], a[1] + b[1]]
}
fn sub(a: Point, b: Point) -> Point {
    [a[0] - b[0], a[1] - b[1]]
}
fn dot(a: Point, b: Point) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}
/// The point a share `t` of the way from `a` to `b`.
fn lerp(a: Point, b: Point, t: f64) -> Point {
    [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])]
}
/// A size in pixels, at least 3.
#[allow(clippy::cast_possible_truncation)]
fn px(v: f64) -> i32 {
    v.round().max(3.0) as i32
}

/// A frame without a tracked face: no positions, eyes not closed, no confidence.
fn forget_positions(out: &mut Observation) {
    out.le = None;
    out.re = None;
    out.lb = None;
    out.rb = None;
    out.feature = None;
    out.mid = None;
    out.nose = None;
    out.eyes_closed = false;
    out.confidence = 0.0;
}

/// Samples `gray` into the `size` patch `out` through the affine map `m`:
/// patch pixel (x, y) is taken from the frame at (m₀x + m₁y + m₂,
/// m₃x + m₄y + m₅), bilinear, the frame's edges repeated. `warp` is a
/// reused 2×3 buffer.
fn warp_patch(gray: &Mat, m: [f64; 6], size: opencv::core::Size, warp: &mut Mat, out: &mut Mat) -> Result<(), opencv::Error> {
    use opencv::prelude::*;
    if warp.rows() != 2 || warp.cols() != 3 || warp.typ() != opencv::core::CV_64F {
        *warp = Mat::zeros(2, 3, opencv::core::CV_64F)?.to_mat()?;
    }
    for (k, value) in m.into_iter().enumerate() {
        #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)]
        let (row, col) = ((k / 3) as i32, (k % 3) as i32);
        *warp.at_2d_mut::<f64>(row, col)? = value;
    }
    opencv::imgproc::warp_affine(gray, out, warp, size, opencv::imgproc::INTER_LINEAR | opencv::imgproc::WARP_INVERSE_MAP, opencv::core::BORDER_REPLICATE, opencv::core::Scalar::default())
}

/// The face's unit axes from the eye line: along (image-left to image-right eye) and up.
fn axes(re: Point, le: Point) -> (Point, Point) {
    let d = dist(re, le).max(1e-6);
    let e = [(le[0] - re[0]) / d, (le[1] - re[1]) / d];
    (e, [e[1], -e[0]])
}

/// Where the nose tip lies from the point between the eyes `mid`, in eye
/// distances of the pair `re`, `le`: along the eye line (towards the image
/// right; about 0.5 sin(yaw)) and down across it (it changes as the head
/// nods, against the same person's frontal value).
fn nose_offset(re: Point, le: Point, nose: Point, mid: Point) -> [f64; 2] {
    let (along, up) = axes(re, le);
    let (d, iod) = (sub(nose, mid), dist(re, le).max(1e-6));
    [dot(d, along) / iod, -dot(d, up) / iod]
}

impl Vision {
    /// Whether the detector's `face` is frontal within `along` of its eye
    /// distance across (the nose tip under the point between its eyes) and
    /// `down` of this person's frontal nod (`face_down0`, once known).
    fn face_frontal(&self, face: &face::Face, along: f64, down: f64) -> bool {
        let [across, nod] = face.nose_offset();
        across.abs() <= along && self.face_down0.is_none_or(|d0| (nod - d0).abs() <= down)
    }

    /// A vision stage with the shipped face model and the system's eye cascade
    /// (each missing one is reported once, and vision does without it).
    #[must_use]
    pub fn new(settings: VisionSettings) -> Self {
        Self::with_models(settings, face::FaceDetector::load(), haar::EyeConfirmer::load())
    }

    /// A vision stage with a given face detector and eye confirmer.
    #[must_use]
    pub fn with_models(settings: VisionSettings, faces: face::FaceDetector, confirm: haar::EyeConfirmer) -> Self {
        Self {
            settings,
            phase: Phase::Searching,
            faces: face::FaceWorker::spawn(faces),
            generic: locate::GenericEyes::load(),
            confirm,
            blink: BlinkLink::default(),
            eyes: EyeState::default(),
            brows: Brows::default(),
            speech: mouth::Speech::default(),
            carry: carry::Carrier::default(),
            face_confirmed: None,
            face_down0: None,
            ncc_down0: None,
            carry_offset: [0.0, 0.0],
            anchor: None,
            live: false,
            last_t: None,
            feature_score: Ema::default(),
            prev_gray: Mat::default(),
            last_blink: None,
            result: Mat::default(),
            patch: Mat::default(),
            warp: Mat::default(),
            small: Mat::default(),
            small_tmpl: Mat::default(),
        }
    }

    /// The settings in force.
    #[must_use]
    pub fn settings(&self) -> &VisionSettings {
        &self.settings
    }

    /// Whether frames come at their own pace (`Pipeline::set_live`).
    pub fn set_live(&mut self, live: bool) {
        self.live = live;
    }

    /// Replaces the settings (they apply from the next frame).
    pub fn set_settings(&mut self, settings: VisionSettings) {
        if settings.feature != self.settings.feature {
            self.anchor = None;
        }
        self.settings = settings;
    }

    /// Forgets everything: the face is looked for again.
    pub fn reset(&mut self) {
        self.phase = Phase::Searching;
        self.blink.reset();
        self.eyes = EyeState::default();
        self.brows = Brows::default();
        self.speech.restart();
        self.feature_score = Ema::default();
        self.carry.stop();
        self.face_confirmed = None;
        self.anchor = None;
    }

    /// Starts afresh for another source (a new camera, a recording that
    /// starts again): nothing of the last one is kept, its clock included,
    /// but the models stay loaded.
    pub fn restart(&mut self) {
        self.reset();
        self.faces.forget();
        self.carry.forget();
        self.face_down0 = None;
        self.ncc_down0 = None;
        self.last_t = None;
        self.last_blink = None;
        self.prev_gray = Mat::default();
    }

    /// Observes one frame into `out`. An OpenCV failure on an odd frame is
    /// reported as a frame without positions (and logged), never a panic.
    pub fn observe(&mut self, frame: &Frame, out: &mut Observation) {
        out.events.clear();
        if let Err(e) = self.observe_inner(frame, out) {
            tracing::warn!("vision: frame {} skipped: {e}", frame.index);
            forget_positions(out);
        }
    }

    fn observe_inner(&mut self, frame: &Frame, out: &mut Observation) -> Result<(), VisionError> {
        let t = frame.t_ms;
        let dt = self.last_t.map_or(33.3, |l| (t - l).clamp(1.0, 1000.0));
        self.last_t = Some(t);
        out.eyes_closed = false;
        out.closure = (0.0, 0.0);
        out.brow_side_lifts = [0.0; 2];
        out.model_wait_us = 0;
        out.doubtful = false;
        let phase = std::mem::replace(&mut self.phase, Phase::Searching);
        self.phase = match phase {
            Phase::Searching => self.search(frame, t, out)?,
            Phase::Initializing(init) => self.initialize(frame, *init, t, out)?,
            Phase::Tracking(tracks) => self.track(frame, tracks, t, dt, out)?,
            Phase::Lost { tracks, since } => self.recover(frame, tracks, since, t, out)?,
        };

        // One blink is one event, whichever path saw it.
        if out.events.contains(&Event::Blink) {
            if self.last_blink.is_some_and(|b| t - b < BLINK_DEDUPE_MS) {
                out.events.retain(|e| *e != Event::Blink);
            } else {
                self.last_blink = Some(t);
            }
        }
        out.state = match &self.phase {
            Phase::Searching => TrackState::Searching,
            Phase::Initializing(_) => TrackState::Initializing,
            Phase::Tracking(_) => TrackState::Tracking,
            Phase::Lost { .. } => TrackState::Lost,
        };
        out.carried = None;
        out.blinks_known = self.eyes.knows_closed_eyes();
        let carried = self.carry_head(frame, t, out);
        out.model_wait_us = u64::try_from(self.carry.take_waited().as_micros()).unwrap_or(u64::MAX);
        let carried = carried?;
        if let Some(head) = carried {
            // AHM carries: the point between the eyes and the pose, nothing the switch could act on.
            forget_positions(out);
            out.state = TrackState::Carried;
            out.feature = Some(head.0);
            out.carried = Some(head.1);
            out.eyes_closed = false;
            out.closure = (0.0, 0.0);
            out.brows_raised = false;
            out.brow_lift = 0.0;
            out.brow_side_lifts = [0.0; 2];
            out.talking = false;
            // (AHM's own check, the window's distance from its training span, holds the carry.)
            out.doubtful = false;
            out.events.retain(|e| !matches!(e, Event::Blink | Event::LongBlink | Event::WinkLeft | Event::WinkRight | Event::BrowRaise));
        } else if let Phase::Tracking(tr) = &self.phase {
            out.doubtful |= !tr.confirmed || tr.drift_strikes > 0;
            out.le = Some(tr.left.eye);
            out.re = Some(tr.right.eye);
            out.lb = Some(tr.left.brow);
            out.rb = Some(tr.right.brow);
            out.feature = Some(tr.feature);
            out.mid = Some(tr.pose_points[0].2);
            out.nose = Some(tr.pose_points[1].2);
        } else {
            forget_positions(out);
            out.brows_raised = false;
            out.talking = false;
        }
        Ok(())
    }
}
