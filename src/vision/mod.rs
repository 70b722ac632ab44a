//! Vision: from a frame to an [`Observation`] of the eyes, brows and pointer feature.
//!
//! The states follow the user, who does nothing but sit and blink:
//! - `searching`: BlinkLink differences consecutive frames until a natural
//!   blink shows an eye pair ([`blinklink`]).
//! - `initializing`: the point between the eyes is tracked while the eyes
//!   reopen; then the open-eye, eyebrow and feature templates are taken.
//! - `tracking`: each template is found by normalized correlation in a window
//!   that follows the motion, with a sub-pixel peak ([`ncc`]). The eyes' match
//!   with their open templates gives eye state, and the eye–brow distance gives
//!   the brow switch ([`gestures`]).
//! - `lost`: the feature fell below the correlation floor or the eyes broke the
//!   face's geometry. No clicks happen. Tracking comes back by itself, by
//!   finding the stored templates again or at the next natural blinks.

pub mod blinklink;
pub mod gestures;
pub mod haar;
pub mod ncc;

use opencv::core::Mat;
use opencv::prelude::*;
use serde::{Deserialize, Serialize};

use crate::capture::Frame;
use crate::events::{Event, Point, TrackState, dist, midpoint as mid};
use blinklink::{BlinkLink, EyePair};
use gestures::{BrowSwitch, BrowTiming, Ema, EyeOpenness, EyeStateMachine, EyeTiming};

/// What vision saw on one frame.
#[derive(Debug, Clone, Default, PartialEq)]
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
}

/// Which point drives the pointer.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum FeaturePoint {
    /// Between the eyes, on the bridge of the nose (Camera Mouse users' choice).
    #[default]
    MidEyes,
    /// The nose tip, about 0.6 inter-ocular distances below the eyes.
    NoseTip,
    /// A point picked on the preview, as an offset from the point between the
    /// eyes in inter-ocular distances (x right, y down).
    Picked { dx: f64, dy: f64 },
}

/// Vision settings (the profile's `[vision]` table).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VisionSettings {
    /// Minimum duration of a voluntary long blink, in milliseconds.
    pub long_blink_ms: f64,
    /// Minimum duration of a wink, in milliseconds.
    pub wink_min_ms: f64,
    /// The pointer feature.
    pub feature: FeaturePoint,
    /// Brow raise: lift above rest (inter-ocular distances) that starts a raise ...
    pub brow_on: f64,
    /// ... and that ends it.
    pub brow_off: f64,
    /// How long the lift must last before the raise counts, in ms.
    pub brow_min_ms: f64,
    /// After a raise ends, how long before another can start, in ms.
    pub brow_refractory_ms: f64,
}

impl Default for VisionSettings {
    fn default() -> Self {
        Self {
            long_blink_ms: 600.0,
            wink_min_ms: 250.0,
            feature: FeaturePoint::MidEyes,
            brow_on: 0.032,
            brow_off: 0.02,
            brow_min_ms: 90.0,
            brow_refractory_ms: 300.0,
        }
    }
}

/// Vision failures that a caller may want to see (OpenCV errors on odd frames).
#[derive(Debug, thiserror::Error)]
pub enum VisionError {
    #[error("image processing failed: {0}")]
    OpenCv(#[from] opencv::Error),
}

// Template sizes in inter-ocular distances (width, height).
const EYE_TEMPLATE: (f64, f64) = (0.55, 0.36);
const FEATURE_TEMPLATE: (f64, f64) = (0.45, 0.45);
const BROW_TEMPLATE: (f64, f64) = (0.6, 0.24);
// Search radii in inter-ocular distances.
const FEATURE_SEARCH: f64 = 0.35;
const EYE_SEARCH: (f64, f64) = (0.15, 0.12);
const BROW_SEARCH: (f64, f64) = (0.06, 0.16);
/// The feature's correlation floor: below it for `LOST_AFTER_MS`, tracking is lost.
const FEATURE_FLOOR: f64 = 0.45;
const LOST_AFTER_MS: f64 = 150.0;
/// ... or this far below its usual match.
const FEATURE_DROP: f64 = 0.3;
/// Neither eye matching its open or closed template this well means no eyes are there.
const EYES_FLOOR: f64 = 0.45;
/// A frame is reliable for eye and brow decisions when the feature matches at least this well.
const RELIABLE_FEATURE: f64 = 0.7;
/// Geometry: the eye distance may change by this factor, and the eye line tilt by this much.
const IOD_RATIO: (f64, f64) = (0.65, 1.5);
const MAX_TILT_DEG: f64 = 40.0;
/// Initializing: wait this long after the blink for the eyes to reopen.
const INIT_WAIT_MS: f64 = 300.0;
/// The brow is the nearest dark band above the eye at least this deep, relative to the deepest.
const BROW_BAND_SHARE: f64 = 0.5;
/// Upward shift of the brows' profiles (both brows added, inter-ocular distances) that says they went up.
const BROWS_UP_MIN_SHIFT: f64 = 0.02;
/// Eye distances, relative to a blob pair's spacing, at which a pair the
/// cascade does not confirm is looked at again (see `narrower_pair`).
const NARROWER_PAIR: [f64; 2] = [0.85, 0.72];
/// How much an eye must look like the mirror image of the other to stand in for the cascade.
const MIRROR_EYE_NCC: f64 = 0.7;
/// Two blink events closer than this are one blink seen twice.
const BLINK_DEDUPE_MS: f64 = 400.0;
/// Pose points (the point between the eyes and the nose tip) are taken where
/// the generic face shows them with the head upright and facing the screen
/// ([`crate::pose::model::neutral_offsets`]), and searched this far (eye distances).
const POSE_POINT_SEARCH: f64 = 0.12;
/// Eyebrows sit about this far above the eyes (inter-ocular distances).
const BROW_ABOVE_EYE: f64 = 0.35;
/// Initializing gives up when the eyes have not reopened after this long.
const INIT_GIVE_UP_MS: f64 = 2500.0;
/// Re-detection while lost: the stored templates must match this well.
const REDETECT_NCC: f64 = 0.7;
/// Feature template refresh: how often, and the drift guard against the first template.
const REFRESH_MS: f64 = 1000.0;
const DRIFT_GUARD_NCC: f64 = 0.6;
/// A closed template must differ from the open one at least this much (its correlation at most).
const CLOSED_MAX_SIMILARITY: f64 = 0.8;
/// The blink that starts tracking must have closed both eyes this clearly
/// (each eye's least open frame at most this like its open template). Real
/// blinks measure 0.2–0.5 on the development videos; small head movements and
/// glints on glasses that BlinkLink mistook for blinks, 0.6–0.97. Missing a
/// real one costs little (the eye learns its closed template at the next
/// blink); taking a wrong one would hide every later blink.
const INIT_CLOSED_MAX_SIMILARITY: f64 = 0.6;
/// Frames kept while initializing (the blink's closed eye is among them).
const MAX_INIT_FRAMES: usize = 48;
/// Below this correlation an eye is not trusted for its position (it follows the feature).
const EYE_POSITION_FLOOR: f64 = 0.5;
/// Eye offsets from the feature follow the eyes with this time constant.
const OFFSET_TAU_MS: f64 = 150.0;

/// The eye–brow geometry of one side.
#[derive(Debug, Clone)]
struct Side {
    eye_tmpl: Mat,
    /// The person's own closed eye, from a blink (BlinkLink's init blink or a later one).
    closed_tmpl: Option<Mat>,
    brow_tmpl: Mat,
    /// The eye's offset from the feature (pixels).
    eye_offset: Point,
    /// The brow's offset from the eye in (along eye line, up) inter-ocular units.
    brow_offset: (f64, f64),
    eye: Point,
    brow: Point,
    eye_score: f64,
}

/// Everything known once tracking has started.
#[derive(Debug, Clone)]
struct Tracks {
    iod0: f64,
    feature_t0: Mat,
    feature_tmpl: Mat,
    feature: Point,
    velocity: Point,
    left: Side,
    right: Side,
    last_refresh: f64,
    weak_since: Option<f64>,
    /// While a blink goes on without closed templates: its deepest eye patches so far.
    pending_closed: Option<(f64, Mat, Mat)>,
    /// Not started by a blink that visibly closed both eyes (a brow raise, a
    /// second look, a movement taken for a blink): replaced at the first clear blink.
    provisional: bool,
    /// The point between the eyes and the nose tip (for head pose): template,
    /// offset from the feature, position.
    pose_points: [(Mat, Point, Point); 2],
}

/// The facial motion that found the eyes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cue {
    Blink,
    /// The brows rose (the user's first gesture was a raise).
    BrowsUp,
    /// The brows moved some other way.
    BrowsMoved,
    /// Eyes found only on a second look (see `narrower_pair`): perhaps a
    /// blink half-seen by a slow camera, perhaps not. No event; the track is
    /// provisional until a clear blink.
    Unconfirmed,
}

enum Phase {
    Searching,
    Initializing { pair: EyePair, since: f64, mid_tmpl: Mat, mid: Point, frames: Vec<(Mat, Point)>, from_blink: bool },
    Tracking(Box<Tracks>),
    Lost { tracks: Box<Tracks>, since: f64 },
}

/// The vision stage.
pub struct Vision {
    settings: VisionSettings,
    phase: Phase,
    blink: BlinkLink,
    eyes: EyeStateMachine,
    brows: BrowSwitch,
    confirm: haar::EyeConfirmer,
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
/// The point a share `t` of the way from `a` to `b`.
fn lerp(a: Point, b: Point, t: f64) -> Point {
    [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])]
}
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

/// The face's unit axes from the eye line: along (image-left to image-right eye) and up.
fn axes(re: Point, le: Point) -> (Point, Point) {
    let d = dist(re, le).max(1e-6);
    let e = [(le[0] - re[0]) / d, (le[1] - re[1]) / d];
    (e, [e[1], -e[0]])
}

impl Vision {
    #[must_use]
    pub fn new(settings: VisionSettings) -> Self {
        Self::with_confirmer(settings, haar::EyeConfirmer::load())
    }

    /// A vision stage with a given eye confirmer.
    #[must_use]
    pub fn with_confirmer(settings: VisionSettings, confirm: haar::EyeConfirmer) -> Self {
        Self {
            settings,
            phase: Phase::Searching,
            blink: BlinkLink::default(),
            eyes: EyeStateMachine::default(),
            brows: BrowSwitch::default(),
            confirm,
            last_t: None,
            feature_score: Ema::default(),
            prev_gray: Mat::default(),
            last_blink: None,
            result: Mat::default(),
            patch: Mat::default(),
            small: Mat::default(),
            small_tmpl: Mat::default(),
        }
    }

    /// The settings in force.
    #[must_use]
    pub fn settings(&self) -> &VisionSettings {
        &self.settings
    }

    /// Replaces the settings (they apply from the next frame).
    pub fn set_settings(&mut self, settings: VisionSettings) {
        self.settings = settings;
    }

    /// Forgets everything: the next blinks initialize again.
    pub fn reset(&mut self) {
        self.phase = Phase::Searching;
        self.blink.reset();
        self.eyes = EyeStateMachine::default();
        self.brows = BrowSwitch::default();
        self.feature_score = Ema::default();
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
        let gray = &frame.gray;
        // BlinkLink watches every frame while there is no confirmed track, so a
        // blink can (re)initialize; a provisional track (one not started by a
        // clear blink) is replaced at the first blink.
        let provisional = matches!(&self.phase, Phase::Tracking(tr) if tr.provisional);
        let watching = !matches!(self.phase, Phase::Tracking(_)) || provisional;
        let (pair, cue) = if matches!(self.phase, Phase::Initializing { .. }) {
            // A pair seen while initializing would be ignored: skip its (costly) confirmation.
            let _ = self.blink.feed(gray)?;
            gray.copy_to(&mut self.prev_gray)?;
            (None, Cue::Blink)
        } else if watching {
            self.motion_pair(gray)?
        } else {
            // Keep its previous frame current so a later loss does not difference across a gap.
            self.blink.reset();
            (None, Cue::Blink)
        };
        let from_blink = cue == Cue::Blink;

        let phase = std::mem::replace(&mut self.phase, Phase::Searching);
        self.phase = match phase {
            Phase::Searching => self.start_init(gray, pair, cue, t, out)?,
            Phase::Initializing { pair: p, since, mid_tmpl, mid: m, frames, from_blink: fb } => {
                self.initialize(gray, p, since, mid_tmpl, m, frames, fb, t, out)?
            }
            Phase::Tracking(tracks) => match pair {
                Some(p) if tracks.provisional && from_blink && dist(p.le, tracks.left.eye).max(dist(p.re, tracks.right.eye)) < 0.35 * p.iod() => {
                    self.start_init(gray, Some(p), Cue::Blink, t, out)?
                }
                _ => self.track(gray, tracks, t, dt, out)?,
            },
            Phase::Lost { tracks, since } => {
                if let Some(p) = pair {
                    self.start_init(gray, Some(p), cue, t, out)?
                } else {
                    self.recover(gray, tracks, since, t, out)?
                }
            }
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
            Phase::Initializing { .. } => TrackState::Initializing,
            Phase::Tracking(_) => TrackState::Tracking,
            Phase::Lost { .. } => TrackState::Lost,
        };
        if let Phase::Tracking(tr) = &self.phase {
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
        }
        Ok(())
    }

    /// Feeds BlinkLink and confirms its pair with the eye cascade on the frame
    /// before the motion (open eyes) or this one. A pair that is not eyes may
    /// be the brows rising: then eyes found below it count, marked as not from a blink.
    fn motion_pair(&mut self, gray: &Mat) -> Result<(Option<EyePair>, Cue), VisionError> {
        let mut pair = self.blink.feed(gray)?;
        let mut cue = Cue::Blink;
        if let Some(p) = pair {
            let iod = p.iod();
            let before = if self.prev_gray.size()? == gray.size()? { &self.prev_gray } else { gray };
            let confirmed = |c: &mut haar::EyeConfirmer, g: &Mat| -> Result<bool, opencv::Error> {
                Ok(c.is_eye(g, p.le, iod)? && c.is_eye(g, p.re, iod)?)
            };
            let is_eyes = confirmed(&mut self.confirm, before)? || confirmed(&mut self.confirm, gray)?;
            let narrower = if is_eyes { None } else { narrower_pair(&mut self.confirm, before, &p)? };
            if let Some(n) = narrower {
                // Not confirmed as a blink: a provisional start, replaced at the first clear blink.
                pair = Some(n);
                cue = Cue::Unconfirmed;
            } else if !is_eyes {
                let (_, up) = axes(p.re, p.le);
                let drop = [-BROW_ABOVE_EYE * iod * up[0], -BROW_ABOVE_EYE * iod * up[1]];
                let le = self.confirm.find_eye(gray, add(p.le, drop), iod)?;
                let re = self.confirm.find_eye(gray, add(p.re, drop), iod)?;
                pair = match (le, re) {
                    (Some(le), Some(re)) if self.confirm.active() => Some(EyePair { le, re, score: p.score }),
                    _ => None,
                };
                // Dark brows moving up leave brighter skin below where they were and darken above.
                cue = if pair.is_some() && brows_went_up(before, gray, &p)? { Cue::BrowsUp } else { Cue::BrowsMoved };
            }
        }
        gray.copy_to(&mut self.prev_gray)?;
        Ok((pair, cue))
    }

}

/// A half-closed lid (a blink caught mid-way by a slow camera) changes mostly
/// the outer ends of the eyes, so the blobs lie wider apart than the eyes and
/// the cascade, looking for eyes of that spacing, finds none. Looks again on
/// the frame before, nearer the pair's middle with a smaller eye distance; an
/// eye the cascade still misses (glasses) may be found as the mirror image of
/// the one it finds.
fn narrower_pair(confirm: &mut haar::EyeConfirmer, before: &Mat, p: &EyePair) -> Result<Option<EyePair>, VisionError> {
    let m = mid(p.le, p.re);
    let (mut patch, mut flipped, mut result) = (Mat::default(), Mat::default(), Mat::default());
    for f in NARROWER_PAIR {
        let iod = f * p.iod();
        let found = [confirm.find_eye(before, lerp(m, p.le, f), iod)?, confirm.find_eye(before, lerp(m, p.re, f), iod)?];
        let (le, re) = match found {
            [Some(le), Some(re)] => (le, re),
            [Some(one), None] | [None, Some(one)] => {
                // The other eye: the mirror image of this one, across the pair's middle.
                let (w, h) = (px(0.6 * iod), px(0.4 * iod));
                if !ncc::extract(before, one, w, h, &mut patch)? {
                    continue;
                }
                opencv::core::flip(&patch, &mut flipped, 1)?;
                let guess = [2.0 * m[0] - one[0], 2.0 * m[1] - one[1]];
                let r = px(0.15 * iod);
                let Some(other) = ncc::search(before, &flipped, guess, r, r, &mut result)?.filter(|o| o.score >= MIRROR_EYE_NCC) else {
                    continue;
                };
                if found[0].is_some() { (one, other.pos) } else { (other.pos, one) }
            }
            [None, None] => continue,
        };
        let d = dist(le, re);
        let tilt = (le[1] - re[1]).abs() / (le[0] - re[0]).max(1e-6);
        if le[0] > re[0] && (0.85..=1.2).contains(&(d / iod)) && tilt <= MAX_TILT_DEG.to_radians().tan() {
            return Ok(Some(EyePair { le, re, score: p.score }));
        }
    }
    Ok(None)
}

/// Whether the change at a pair of brow blobs is the brows rising: the shift
/// that best aligns each blob's vertical intensity profile now with the one
/// before moves the content up.
fn brows_went_up(before: &Mat, now: &Mat, p: &EyePair) -> Result<bool, VisionError> {
    let iod = p.iod();
    let half_w = (0.15 * iod).round().max(2.0) as i32;
    let reach = (0.3 * iod).round().max(4.0) as i32;
    let max_shift = (0.12 * iod).round().max(2.0) as i32;
    let mut total = 0.0;
    for c in [p.le, p.re] {
        #[allow(clippy::cast_possible_truncation)]
        let (cx, cy) = (c[0].round() as i32, c[1].round() as i32);
        let r = opencv::core::Rect::new(cx - half_w, cy - reach - max_shift, 2 * half_w + 1, 2 * (reach + max_shift) + 1);
        if !ncc::inside(r, now.cols(), now.rows()) {
            return Ok(false);
        }
        let profile = |m: &Mat| -> Result<Vec<f64>, opencv::Error> {
            let roi = Mat::roi(m, r)?;
            (0..roi.rows())
                .map(|y| -> Result<f64, opencv::Error> {
                    let mut s = 0.0;
                    for x in 0..roi.cols() {
                        s += f64::from(*roi.at_2d::<u8>(y, x)?);
                    }
                    Ok(s / f64::from(roi.cols()))
                })
                .collect()
        };
        let (b, n) = (profile(before)?, profile(now)?);
        let mid = usize::try_from(reach + max_shift).unwrap_or(0);
        let span = usize::try_from(reach).unwrap_or(0);
        let mut best = (f64::INFINITY, 0);
        for shift in -max_shift..=max_shift {
            let mut ssd = 0.0;
            for k in 0..=2 * span {
                let y = mid - span + k;
                let yb = usize::try_from(i32::try_from(y).unwrap_or(0) + shift).unwrap_or(0);
                ssd += (n[y] - b[yb.min(b.len() - 1)]).powi(2);
            }
            if ssd < best.0 {
                best = (ssd, shift);
            }
        }
        total += f64::from(best.1);
    }
    Ok(total / iod >= BROWS_UP_MIN_SHIFT)
}

impl Vision {

    fn start_init(&mut self, gray: &Mat, pair: Option<EyePair>, cue: Cue, t: f64, out: &mut Observation) -> Result<Phase, VisionError> {
        let from_blink = cue == Cue::Blink;
        let Some(pair) = pair else {
            return Ok(Phase::Searching);
        };
        let iod = pair.iod();
        let m = mid(pair.le, pair.re);
        let mut mid_tmpl = Mat::default();
        if !ncc::extract(gray, m, px(FEATURE_TEMPLATE.0 * iod), px(FEATURE_TEMPLATE.1 * iod), &mut mid_tmpl)? {
            return Ok(Phase::Searching);
        }
        let frames = vec![(gray.try_clone()?, m)];
        // The gesture that found the eyes counts like any other: a blink, or brows going up.
        match cue {
            Cue::Blink => out.events.push(Event::Blink),
            Cue::BrowsUp => out.events.push(Event::BrowRaise),
            Cue::BrowsMoved | Cue::Unconfirmed => {}
        }
        Ok(Phase::Initializing { pair, since: t, mid_tmpl, mid: m, frames, from_blink })
    }

    #[allow(clippy::too_many_arguments)]
    fn initialize(
        &mut self,
        gray: &Mat,
        pair: EyePair,
        since: f64,
        mid_tmpl: Mat,
        m: Point,
        mut frames: Vec<(Mat, Point)>,
        from_blink: bool,
        t: f64,
        out: &mut Observation,
    ) -> Result<Phase, VisionError> {
        let iod = pair.iod();
        // Follow the head while the eyes reopen.
        let r = px(FEATURE_SEARCH * iod);
        let Some(found) = ncc::search(gray, &mid_tmpl, m, r, r, &mut self.result)? else {
            return Ok(Phase::Searching);
        };
        if found.score < FEATURE_FLOOR {
            return Ok(Phase::Searching);
        }
        let shift = sub(found.pos, m);
        let pair = EyePair { le: add(pair.le, shift), re: add(pair.re, shift), score: pair.score };
        // Wait for the eyes to reopen: the cascade finds open eyes, not shut ones.
        let iod_now = pair.iod();
        let open = t - since >= INIT_WAIT_MS
            && self.confirm.is_eye(gray, pair.le, iod_now)?
            && self.confirm.is_eye(gray, pair.re, iod_now)?;
        if !open {
            if t - since > INIT_GIVE_UP_MS {
                return Ok(Phase::Searching);
            }
            if frames.len() < MAX_INIT_FRAMES {
                frames.push((gray.try_clone()?, found.pos));
            }
            return Ok(Phase::Initializing { pair, since, mid_tmpl, mid: found.pos, frames, from_blink });
        }
        match self.take_templates(gray, &pair)? {
            Some(mut tracks) => {
                out.events.push(Event::Init);
                let [l, r] = self.closed_from_blink(&mut tracks, &frames, found.pos)?;
                // Only a start that visibly closed both eyes confirms the track;
                // any other is replaced at the first clear blink.
                tracks.provisional = !from_blink || l.is_none();
                self.eyes = EyeStateMachine::default();
                if let Some(d) = l {
                    self.eyes.left = EyeOpenness::with_closed_reference(d);
                }
                if let Some(d) = r {
                    self.eyes.right = EyeOpenness::with_closed_reference(d);
                }
                self.brows = BrowSwitch::default();
                self.feature_score = Ema::default();
                Ok(Phase::Tracking(Box::new(tracks)))
            }
            None => Ok(Phase::Searching),
        }
    }

    fn take_templates(&mut self, gray: &Mat, pair: &EyePair) -> Result<Option<Tracks>, VisionError> {
        let iod0 = pair.iod();
        // Where the eye cascade finds both eyes, its boxes are centred on them
        // (motion blobs sit on the lids): each eye is the iris nearest its box.
        // Otherwise the blobs' mirror-alike iris pair is used.
        let haar_le = self.confirm.find_eye(gray, pair.le, iod0)?.filter(|_| self.confirm.active());
        let haar_re = self.confirm.find_eye(gray, pair.re, iod0)?.filter(|_| self.confirm.active());
        let (le, re) = match (haar_le, haar_re) {
            (Some(l), Some(r)) => {
                let iod_h = dist(l, r).max(4.0);
                (blinklink::nearest_iris(gray, l, iod_h)?, blinklink::nearest_iris(gray, r, iod_h)?)
            }
            _ => blinklink::refine_eye_pair(gray, pair.le, pair.re, iod0)?,
        };
        let iod = dist(le, re);
        if iod < 0.8 * iod0 || iod > 1.25 * iod0 {
            return Ok(None);
        }

        let m = mid(le, re);
        let (e, up) = axes(re, le);
        let cam = crate::pose::model::Camera::for_image(f64::from(gray.cols()), f64::from(gray.rows()));
        let [mid_at, nose_at] = crate::pose::model::neutral_offsets(&cam, m, iod)
            .map(|[a, b]| [m[0] + iod * (a * e[0] + b * up[0]), m[1] + iod * (a * e[1] + b * up[1])]);
        let feature_from_mid = match self.settings.feature {
            FeaturePoint::MidEyes => [0.0, 0.0],
            FeaturePoint::NoseTip => sub(nose_at, m),
            FeaturePoint::Picked { dx, dy } => [dx * iod, dy * iod],
        };
        let feature = add(m, feature_from_mid);
        let mut feature_t0 = Mat::default();
        if !ncc::extract(gray, feature, px(FEATURE_TEMPLATE.0 * iod), px(FEATURE_TEMPLATE.1 * iod), &mut feature_t0)? {
            return Ok(None);
        }
        let mut sides = Vec::with_capacity(2);
        for eye in [le, re] {
            let mut eye_tmpl = Mat::default();
            if !ncc::extract(gray, eye, px(EYE_TEMPLATE.0 * iod), px(EYE_TEMPLATE.1 * iod), &mut eye_tmpl)? {
                return Ok(None);
            }
            let brow = find_brow(gray, eye, e, up, iod)?;
            let mut brow_tmpl = Mat::default();
            if !ncc::extract(gray, brow, px(BROW_TEMPLATE.0 * iod), px(BROW_TEMPLATE.1 * iod), &mut brow_tmpl)? {
                return Ok(None);
            }
            let rel = sub(brow, eye);
            sides.push(Side {
                eye_tmpl,
                brow_tmpl,
                eye_offset: sub(eye, feature),
                brow_offset: ((rel[0] * e[0] + rel[1] * e[1]) / iod, (rel[0] * up[0] + rel[1] * up[1]) / iod),
                eye,
                brow,
                eye_score: 1.0,
                closed_tmpl: None,
            });
        }
        // The point between the eyes sits a little above the eye line; the nose tip about 0.6 eye distances below.
        let mut pose_points = [(Mat::default(), [0.0; 2], [0.0; 2]), (Mat::default(), [0.0; 2], [0.0; 2])];
        for (slot, (at, size)) in pose_points.iter_mut().zip([
            (mid_at, (0.4, 0.4)),
            (nose_at, (0.45, 0.4)),
        ]) {
            if !ncc::extract(gray, at, px(size.0 * iod), px(size.1 * iod), &mut slot.0)? {
                return Ok(None);
            }
            slot.1 = sub(at, feature);
            slot.2 = at;
        }
        let right = sides.pop().ok_or_else(|| opencv::Error::new(0, "no right eye"))?;
        let left = sides.pop().ok_or_else(|| opencv::Error::new(0, "no left eye"))?;
        Ok(Some(Tracks {
            iod0: iod,
            feature_tmpl: feature_t0.clone(),
            feature_t0,
            feature,
            velocity: [0.0, 0.0],
            left,
            right,
            last_refresh: f64::NEG_INFINITY,
            weak_since: None,
            pending_closed: None,
            provisional: false,
            pose_points,
        }))
    }

    /// Takes each eye's closed template from the frames of the initializing
    /// blink: the frame where that eye is least like its open template. A
    /// blink closes both eyes: when either eye's frames all still look open,
    /// the motion was something else (a small head movement, a glint on
    /// glasses), and neither eye gets one (each learns one at a later blink;
    /// a wrong closed template would hide every later blink). Returns each
    /// eye's closure evidence on its closed frame (its closed reference).
    fn closed_from_blink(&mut self, tr: &mut Tracks, frames: &[(Mat, Point)], mid_now: Point) -> Result<[Option<f64>; 2], VisionError> {
        let mut found: [Option<(f64, Mat)>; 2] = [None, None];
        for (slot, side) in found.iter_mut().zip([&tr.left, &tr.right]) {
            let (w, h) = (side.eye_tmpl.cols(), side.eye_tmpl.rows());
            let mut best: Option<(f64, usize)> = None;
            for (k, (g, m)) in frames.iter().enumerate() {
                if ncc::extract(g, add(side.eye, sub(*m, mid_now)), w, h, &mut self.patch)? {
                    let sim = ncc::correlate(&self.patch, &side.eye_tmpl, &mut self.result)?;
                    if best.is_none_or(|(b, _)| sim < b) {
                        best = Some((sim, k));
                    }
                }
            }
            if let Some((sim, k)) = best.filter(|(sim, _)| *sim <= INIT_CLOSED_MAX_SIMILARITY) {
                let (g, m) = &frames[k];
                let mut closed = Mat::default();
                if ncc::extract(g, add(side.eye, sub(*m, mid_now)), w, h, &mut closed)? {
                    *slot = Some((sim, closed));
                }
            }
        }
        let [Some((sim_l, closed_l)), Some((sim_r, closed_r))] = found else {
            return Ok([None, None]);
        };
        tr.left.closed_tmpl = Some(closed_l);
        tr.right.closed_tmpl = Some(closed_r);
        Ok([Some(1.0 - sim_l), Some(1.0 - sim_r)])
    }

    fn track(&mut self, gray: &Mat, mut tr: Box<Tracks>, t: f64, dt: f64, out: &mut Observation) -> Result<Phase, VisionError> {
        let iod = dist(tr.left.eye, tr.right.eye).max(4.0);
        // 1. The feature, in a window that follows the motion.
        let predicted = add(tr.feature, tr.velocity);
        let r = px(FEATURE_SEARCH * iod + 0.5 * tr.velocity[0].abs().max(tr.velocity[1].abs()));
        let found = ncc::search(gray, &tr.feature_tmpl, predicted, r, r, &mut self.result)?;
        let score = found.map_or(-1.0, |m| m.score);
        out.confidence = score.clamp(0.0, 1.0);
        if let Some(m) = found {
            let v = sub(m.pos, tr.feature);
            tr.velocity = [0.5 * tr.velocity[0] + 0.5 * v[0], 0.5 * tr.velocity[1] + 0.5 * v[1]];
            tr.feature = m.pos;
        }
        if found.is_none() {
            out.events.push(Event::Lost);
            return Ok(Phase::Lost { tracks: tr, since: t });
        }
        let reliable = score >= RELIABLE_FEATURE
            && (!self.feature_score.ready || score >= self.feature_score.value - 0.15);
        if reliable {
            self.feature_score.update(score, dt, 2000.0);
        }

        // 2. Each eye near where the feature says it is. Its closure evidence is
        //    its match with the closed template minus its match with the open one.
        let a = 1.0 - (-dt / OFFSET_TAU_MS).exp();
        let mut evidence = [0.0; 2];
        let mut eyes_seen = f64::NEG_INFINITY;
        for (i, side) in [&mut tr.left, &mut tr.right].into_iter().enumerate() {
            let guess = add(tr.feature, side.eye_offset);
            let (rx, ry) = (px(EYE_SEARCH.0 * iod), px(EYE_SEARCH.1 * iod));
            if let Some(m) = ncc::search(gray, &side.eye_tmpl, guess, rx, ry, &mut self.result)? {
                side.eye_score = m.score;
                let open = m.score >= EYE_POSITION_FLOOR;
                side.eye = if open { m.pos } else { guess };
                if open && reliable {
                    side.eye_offset = lerp(side.eye_offset, sub(m.pos, tr.feature), a);
                }
            } else {
                side.eye_score = -1.0;
                side.eye = guess;
            }
            let closed_score = match &side.closed_tmpl {
                Some(c) => ncc::search(gray, c, guess, rx, ry, &mut self.result)?.map_or(-1.0, |m| m.score),
                None => 0.0,
            };
            evidence[i] = closed_score - side.eye_score;
            eyes_seen = eyes_seen.max(closed_score.max(side.eye_score));
        }

        // The pose points follow the feature the same way.
        for (tmpl, offset, pos) in &mut tr.pose_points {
            let guess = add(tr.feature, *offset);
            let r = px(POSE_POINT_SEARCH * iod);
            match ncc::search(gray, tmpl, guess, r, r, &mut self.result)? {
                Some(m) if m.score >= EYE_POSITION_FLOOR => {
                    *pos = m.pos;
                    if reliable {
                        *offset = lerp(*offset, sub(m.pos, tr.feature), a);
                    }
                }
                _ => *pos = guess,
            }
        }

        // Loss: the feature below its floor (or far below its usual match), or
        // neither eye looking like an open or a closed eye, for a moment.
        let feature_weak = score < FEATURE_FLOOR || (self.feature_score.ready && score < self.feature_score.value - FEATURE_DROP);
        if feature_weak || eyes_seen < EYES_FLOOR {
            let since = *tr.weak_since.get_or_insert(t);
            if t - since >= LOST_AFTER_MS {
                out.events.push(Event::Lost);
                return Ok(Phase::Lost { tracks: tr, since: t });
            }
        } else {
            tr.weak_since = None;
        }

        // 3. Geometry: the eyes must keep the face's shape.
        let now_iod = dist(tr.left.eye, tr.right.eye);
        let tilt = (tr.left.eye[1] - tr.right.eye[1]).atan2(tr.left.eye[0] - tr.right.eye[0]).to_degrees();
        let ratio = now_iod / tr.iod0;
        if ratio < IOD_RATIO.0 || ratio > IOD_RATIO.1 || tilt.abs() > MAX_TILT_DEG {
            out.events.push(Event::Lost);
            return Ok(Phase::Lost { tracks: tr, since: t });
        }

        // 4. Eye state.
        let timing = EyeTiming { long_blink_ms: self.settings.long_blink_ms, wink_min_ms: self.settings.wink_min_ms };
        out.eyes_closed = self.eyes.update(evidence[0], evidence[1], reliable, t, timing, &mut out.events);
        out.closure = self.eyes.last_closure;
        if tr.left.closed_tmpl.is_none() || tr.right.closed_tmpl.is_none() {
            self.learn_closed_templates(gray, &mut tr, out.eyes_closed, evidence)?;
        }

        // 5. Brows: found above each eye; the distance is measured along the face's up axis.
        let (e, up) = axes(tr.right.eye, tr.left.eye);
        let mut lift_sum = 0.0;
        let mut lift_n = 0;
        for side in [&mut tr.left, &mut tr.right] {
            let guess = [
                side.eye[0] + now_iod * (side.brow_offset.0 * e[0] + side.brow_offset.1 * up[0]),
                side.eye[1] + now_iod * (side.brow_offset.0 * e[1] + side.brow_offset.1 * up[1]),
            ];
            let (rx, ry) = (px(BROW_SEARCH.0 * now_iod), px(BROW_SEARCH.1 * now_iod));
            match ncc::search(gray, &side.brow_tmpl, guess, rx, ry, &mut self.result)? {
                Some(m) if m.score > 0.3 => {
                    side.brow = m.pos;
                    let rel = sub(m.pos, side.eye);
                    lift_sum += (rel[0] * up[0] + rel[1] * up[1]) / now_iod;
                    lift_n += 1;
                }
                _ => side.brow = guess,
            }
        }
        let eyes_busy = out.eyes_closed || self.eyes.last_closure.0.max(self.eyes.last_closure.1) > 0.5;
        let brow_dist = if reliable && !eyes_busy && lift_n == 2 { Some(lift_sum / 2.0) } else { None };
        let brow_timing = BrowTiming {
            on: self.settings.brow_on,
            off: self.settings.brow_off,
            min_ms: self.settings.brow_min_ms,
            refractory_ms: self.settings.brow_refractory_ms,
        };
        out.brows_raised = self.brows.update(brow_dist, t, brow_timing, &mut out.events);
        out.brow_lift = self.brows.last_lift;

        // 6. Refresh the feature template now and then, guarded against drift.
        if reliable && !out.eyes_closed && !out.brows_raised && t - tr.last_refresh >= REFRESH_MS {
            tr.last_refresh = t;
            let (w, h) = (tr.feature_t0.cols(), tr.feature_t0.rows());
            if ncc::extract(gray, tr.feature, w, h, &mut self.patch)?
                && ncc::correlate(&self.patch, &tr.feature_t0, &mut self.result)? >= DRIFT_GUARD_NCC
            {
                self.patch.copy_to(&mut tr.feature_tmpl)?;
            }
        }
        Ok(Phase::Tracking(tr))
    }

    /// An eye without a closed template (the init blink gave none) gets one
    /// at the first clear blink: its deepest frame's patch, adopted when the blink ends.
    fn learn_closed_templates(&mut self, gray: &Mat, tr: &mut Tracks, closed: bool, evidence: [f64; 2]) -> Result<(), VisionError> {
        if closed {
            let depth = f64::midpoint(evidence[0], evidence[1]);
            if tr.pending_closed.as_ref().is_none_or(|(d, _, _)| depth > *d) {
                let (w, h) = (tr.left.eye_tmpl.cols(), tr.left.eye_tmpl.rows());
                let (mut l, mut r) = (Mat::default(), Mat::default());
                if ncc::extract(gray, tr.left.eye, w, h, &mut l)? && ncc::extract(gray, tr.right.eye, w, h, &mut r)? {
                    tr.pending_closed = Some((depth, l, r));
                }
            }
        } else if let Some((_, l, r)) = tr.pending_closed.take() {
            for (side, eye, patch) in [(&mut tr.left, &mut self.eyes.left, l), (&mut tr.right, &mut self.eyes.right, r)] {
                if side.closed_tmpl.is_some() {
                    continue;
                }
                let sim = ncc::correlate(&patch, &side.eye_tmpl, &mut self.result)?;
                if sim <= CLOSED_MAX_SIMILARITY {
                    side.closed_tmpl = Some(patch);
                    *eye = EyeOpenness::with_closed_reference(1.0 - sim);
                }
            }
        }
        Ok(())
    }

    /// While lost: look for the stored feature template, first near where it was, then everywhere.
    fn recover(&mut self, gray: &Mat, mut tr: Box<Tracks>, since: f64, t: f64, out: &mut Observation) -> Result<Phase, VisionError> {
        let iod = tr.iod0;
        let r = px(1.5 * iod);
        let mut found = ncc::search(gray, &tr.feature_t0, tr.feature, r, r, &mut self.result)?.filter(|m| m.score >= REDETECT_NCC);
        if found.is_none() && t - since > 500.0 {
            found = self.search_everywhere(gray, &tr.feature_t0)?.filter(|m| m.score >= REDETECT_NCC);
        }
        let Some(m) = found else {
            return Ok(Phase::Lost { tracks: tr, since });
        };
        // The eyes must be where they belong relative to the feature.
        let mut ok = true;
        for side in [&mut tr.left, &mut tr.right] {
            let guess = add(m.pos, side.eye_offset);
            let (rx, ry) = (px(EYE_SEARCH.0 * iod), px(EYE_SEARCH.1 * iod));
            match ncc::search(gray, &side.eye_tmpl, guess, rx, ry, &mut self.result)? {
                Some(e) if e.score >= 0.5 => side.eye = e.pos,
                _ => ok = false,
            }
        }
        if !ok {
            return Ok(Phase::Lost { tracks: tr, since });
        }
        tr.feature = m.pos;
        tr.feature_t0.copy_to(&mut tr.feature_tmpl)?;
        tr.velocity = [0.0, 0.0];
        tr.weak_since = None;
        out.events.push(Event::Init);
        Ok(Phase::Tracking(tr))
    }

    /// The template anywhere in the frame, at half resolution, then refined at full resolution.
    fn search_everywhere(&mut self, gray: &Mat, tmpl: &Mat) -> Result<Option<ncc::Match>, VisionError> {
        use opencv::core::Size;
        use opencv::imgproc;
        let half = |m: &Mat, out: &mut Mat| imgproc::resize(m, out, Size::new(m.cols() / 2, m.rows() / 2), 0.0, 0.0, imgproc::INTER_AREA);
        half(gray, &mut self.small)?;
        half(tmpl, &mut self.small_tmpl)?;
        let c = [f64::from(self.small.cols()) / 2.0, f64::from(self.small.rows()) / 2.0];
        let Some(coarse) = ncc::search(&self.small, &self.small_tmpl, c, self.small.cols(), self.small.rows(), &mut self.result)? else {
            return Ok(None);
        };
        let r = 4;
        Ok(ncc::search(gray, tmpl, [coarse.pos[0] * 2.0, coarse.pos[1] * 2.0], r, r, &mut self.result)?)
    }
}

/// The eyebrow above `eye`: the darkest thick band along the face's up axis,
/// between 0.15 and 0.5 inter-ocular distances above the eye centre.
fn find_brow(gray: &Mat, eye: Point, e: Point, up: Point, iod: f64) -> Result<Point, VisionError> {
    let half_w = 0.22 * iod;
    // The profile reaches a little higher than a brow may be, to see the skin above it.
    let (lo, hi, top) = (0.15 * iod, 0.5 * iod, 0.62 * iod);
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
    let k = ((0.08 * iod).round() as usize).max(1);
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
    let mut bands = Vec::new();
    for i in 1..smooth.len().saturating_sub(1).min(last_band + 1) {
        if smooth[i] <= smooth[i - 1] && smooth[i] <= smooth[i + 1] {
            let below = smooth[..i].iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let above = smooth[i + 1..].iter().copied().fold(f64::NEG_INFINITY, f64::max);
            bands.push((i, below.min(above) - smooth[i]));
        }
    }
    let deepest = bands.iter().map(|b| b.1).fold(0.0, f64::max);
    let best = bands
        .iter()
        .find(|b| b.1 >= BROW_BAND_SHARE * deepest && b.1 > 0.0)
        .map_or_else(|| smooth.iter().enumerate().min_by(|a, b| a.1.total_cmp(b.1)).map_or(0, |m| m.0), |b| b.0);
    let h = lo + best as f64;
    Ok([eye[0] + h * up[0], eye[1] + h * up[1]])
}
