//! Carrying the pointer through large head turns with Active Hidden Models
//! (#28; the model is [`super::ahm`], the method and its figures are in
//! `docs/ahm.md`).
//!
//! The NCC templates are taken from a frontal face; past 30–45° of yaw they
//! lose it. So on the first frame, a second into a track, where the face
//! detector and the trackers agree on a frontal face with open eyes and a
//! still mouth, that frame is put on the generic 3D head (`head3d`) and
//! rendered at every 10° of yaw from −90° to 90° and every 15° of pitch from
//! −45° to 45°, each view seen through five windows: 665 pairs of an
//! observation (the window round where the head turns about, 2.6 eye
//! distances square, averaged down to 24×24 and normalized for light) and
//! its hidden state (the window's offset from that point, the point between
//! the eyes from it, yaw and pitch). The model is trained on a thread of its
//! own ("ahm-train"); its answer is taken a fixed time later on the frames'
//! clock: a replay waits for it there (the same trace every time), a live
//! frame never waits.
//!
//! From then on AHM follows the head on every tracked frame (subset
//! projections onto the 40 pairs whose hidden states are nearest its last
//! one), put back on the trackers' face on confirmed frontal frames where it
//! has drifted. Where the templates lose the face, AHM carries the point
//! between the eyes while its window is like a view of the face: the pointer
//! keeps moving, and the frame is [`TrackState::Carried`](crate::events::TrackState::Carried),
//! on which no gesture, dwell or switch acts. Back near frontal, the face
//! detector (asked on every lost frame) starts the templates again.

use std::sync::mpsc::{Receiver, sync_channel};

use nalgebra::DVector;
use opencv::core::{Mat, Rect, Size};
use opencv::imgproc;
use opencv::prelude::*;

use super::ahm::{Ahm, AhmError};
use super::params::{AHM_ANSWER_MS, AHM_FORGET_MS, AHM_SURE_RESIDUAL, AHM_LEARN_AFTER_MS, AHM_ONE_PASS_DEG, AHM_RESYNC, AHM_RESYNC_DEG, CARRY_MAX_MS, CARRY_MAX_RESIDUAL};
use super::{CarriedHead, Observation, Phase, VisionError, add, sub};
use crate::capture::Frame;
use crate::events::{Point, dist};
use crate::face_model::PhotoLandmarks;
use crate::head3d::{self, Head3d, View as HeadView};

/// The window's side, in eye distances, and the observation's side in pixels.
pub const WINDOW_IODS: f64 = 2.6;
const SIDE: i32 = 24;
/// The training windows' shifts from the pivot (eye distances).
const SHIFT: f64 = 0.15;
/// The subset projection's size.
pub const SUBSET: usize = 40;
/// The eye distance the training views are rendered at (px): the
/// observation is 24×24 whatever the face's size, so a small rendering
/// serves (about 20 times fewer rays than a 640×480 frame).
pub const TRAIN_IOD: f64 = 48.0;
/// The hidden state's values: the window's offset from the pivot (2), the
/// point between the eyes from the pivot (2), yaw / 90° and pitch / 45°.
const HIDDEN: usize = 6;
const YAW_SCALE: f64 = 90.0;
const PITCH_SCALE: f64 = 45.0;

/// Failures of training or following.
#[derive(Debug, thiserror::Error)]
pub enum CarryError {
    #[error("image processing failed: {0}")]
    OpenCv(#[from] opencv::Error),
    #[error(transparent)]
    Ahm(#[from] AhmError),
}

/// The window round `centre` (`iod` px between the eyes), 24×24, zero mean
/// and unit length; the part of the window inside the frame where it
/// reaches past an edge. Each value is the mean of its cell of the window
/// (an area resampling, summed here: `OpenCV`'s for these sizes took 20 µs a
/// window).
///
/// # Errors
/// A frame that is not 8-bit grey.
pub fn observe(gray: &Mat, centre: Point, iod: f64) -> Result<DVector<f64>, opencv::Error> {
    let mut v = DVector::zeros(0);
    observe_into(gray, centre, iod, &mut v, &mut Vec::new())?;
    Ok(v)
}

/// The pixels [`observe`] reads round `centre` (`iod` px between the eyes)
/// in a `cols` × `rows` frame.
fn window(centre: Point, iod: f64, cols: i32, rows: i32) -> Rect {
    let half = WINDOW_IODS * iod / 2.0;
    #[allow(clippy::cast_possible_truncation)]
    let (x0, y0, side) = ((centre[0] - half).round() as i32, (centre[1] - half).round() as i32, (2.0 * half).round().max(f64::from(SIDE)) as i32);
    let (w, h) = (side.min(cols), side.min(rows));
    Rect::new(x0.clamp(0, (cols - w).max(0)), y0.clamp(0, (rows - h).max(0)), w, h)
}

/// [`observe`] into `v`, with `columns` for the column sums (both reused).
///
/// # Errors
/// A frame that is not 8-bit grey.
pub fn observe_into(gray: &Mat, centre: Point, iod: f64, v: &mut DVector<f64>, columns: &mut Vec<u32>) -> Result<(), opencv::Error> {
    let Rect { x, y, width: w, height: h } = window(centre, iod, gray.cols(), gray.rows());
    #[allow(clippy::cast_sign_loss)]
    let (xs, w, h) = (x as usize, w as usize, h as usize);
    // The frame's bytes at once where it is one block (every frame is); row by row otherwise.
    #[allow(clippy::cast_sign_loss)]
    let whole = if gray.is_continuous() { Some((gray.data_bytes()?, gray.cols() as usize)) } else { None };
    let n = SIDE as usize;
    // The cells' edges along each axis: cell k covers [edge(k), edge(k + 1)).
    let (ex, ey) = (|k: usize| k * w / n, |k: usize| k * h / n);
    if v.len() != n * n {
        *v = DVector::zeros(n * n);
    }
    // Each cell row's columns summed down (a loop the compiler vectorizes), then across each cell.
    columns.resize(w, 0);
    for cy in 0..n {
        columns.fill(0);
        for yy in ey(cy)..ey(cy + 1) {
            #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap, clippy::cast_sign_loss)]
            let row = match whole {
                Some((data, cols)) => &data[(y as usize + yy) * cols + xs..(y as usize + yy) * cols + xs + w],
                None => &gray.at_row::<u8>(y + yy as i32)?[xs..xs + w],
            };
            for (c, &b) in columns.iter_mut().zip(row) {
                *c += u32::from(b);
            }
        }
        for cx in 0..n {
            #[allow(clippy::cast_precision_loss)]
            let count = ((ex(cx + 1) - ex(cx)) * (ey(cy + 1) - ey(cy))).max(1) as f64;
            v[cy * n + cx] = f64::from(columns[ex(cx)..ex(cx + 1)].iter().sum::<u32>()) / count;
        }
    }
    let mean = v.mean();
    v.add_scalar_mut(-mean);
    let norm = v.norm().max(1e-9);
    *v /= norm;
    Ok(())
}

/// A view of the generated head `iod` px between the eyes, just large enough
/// for every training window, with the head's pivot at its centre.
fn training_view(iod: f64) -> HeadView {
    #[allow(clippy::cast_possible_truncation)]
    let side = (4.0 * iod).round() as i32;
    let offset = head3d::pivot(HeadView { size: Size::default(), origin: [0.0, 0.0], iod_px: iod });
    let c = f64::from(side) / 2.0;
    HeadView { size: Size::new(side, side), origin: [c - offset[0], c - offset[1]], iod_px: iod }
}

/// The training windows' shifts from the pivot (eye distances), and the
/// pixels of the view `iod` px between the eyes that they read: only those
/// are rendered (about half the rays of the view).
fn training_windows(view: HeadView, iod: f64) -> ([(f64, f64); 5], Rect) {
    let shifts = [(0.0, 0.0), (SHIFT, 0.0), (-SHIFT, 0.0), (0.0, SHIFT), (0.0, -SHIFT)];
    let pivot = head3d::pivot(view);
    let read = shifts
        .iter()
        .map(|&(sx, sy)| window([pivot[0] + sx * iod, pivot[1] + sy * iod], iod, view.size.width, view.size.height))
        .reduce(|a, b| a | b)
        .unwrap_or_else(|| Rect::new(0, 0, view.size.width, view.size.height));
    (shifts, read)
}

/// The model of the face in `photo` at `landmarks` on the generic head (see
/// the module's text), its views rendered `iod` px between the eyes.
///
/// # Errors
/// Rendering, `OpenCV` or model failures.
pub fn train(photo: &Mat, landmarks: &PhotoLandmarks, iod: f64) -> Result<Ahm, CarryError> {
    let view = training_view(iod);
    let mut head = Head3d::default();
    let (mut img, mut gray) = (Mat::default(), Mat::default());
    let pivot = head3d::pivot(view);
    let (shifts, read) = training_windows(view, iod);
    let mut pairs = Vec::new();
    for yi in -9..=9 {
        for pi in -3..=3 {
            let pose = (f64::from(yi) * 10.0, f64::from(pi) * 15.0);
            head.render_within(photo, landmarks, pose, view, 0.0, read, &mut img)?;
            imgproc::cvt_color_def(&img, &mut gray, imgproc::COLOR_BGR2GRAY)?;
            let mid = head3d::project(landmarks, pose, view, landmarks.mid).unwrap_or(pivot);
            for (sx, sy) in shifts {
                let centre = [pivot[0] + sx * iod, pivot[1] + sy * iod];
                let x = observe(&gray, centre, iod)?;
                let h = DVector::from_vec(vec![-sx, -sy, (mid[0] - pivot[0]) / iod, (mid[1] - pivot[1]) / iod, pose.0 / YAW_SCALE, pose.1 / PITCH_SCALE]);
                pairs.push((x, h));
            }
        }
    }
    Ok(Ahm::train_gaussian(1.0, 1e-3, &pairs)?)
}

/// The frontal point between the eyes of a face with landmarks `lm`, `iod`
/// px between the eyes, less where its head turns about.
fn frontal_mid_from_pivot(lm: &PhotoLandmarks, iod: f64) -> Point {
    let v = HeadView { size: Size::default(), origin: [0.0, 0.0], iod_px: iod };
    let piv = head3d::pivot(v);
    let mid = head3d::project(lm, (0.0, 0.0), v, lm.mid).unwrap_or(piv);
    [mid[0] - piv[0], mid[1] - piv[1]]
}

/// Where the head turns about, from where its point between the eyes is
/// while it is frontal (`mid`), for a face with landmarks `lm` and `iod` px
/// between the eyes.
#[must_use]
pub fn pivot_from_mid(lm: &PhotoLandmarks, iod: f64, mid: Point) -> Point {
    sub(mid, frontal_mid_from_pivot(lm, iod))
}

/// The hidden state of a frontal head whose window is on its pivot.
#[must_use]
pub fn frontal_state(lm: &PhotoLandmarks) -> DVector<f64> {
    let m = frontal_mid_from_pivot(lm, 1.0);
    DVector::from_vec(vec![0.0, 0.0, m[0], m[1], 0.0, 0.0])
}

/// One frame followed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// The point between the eyes.
    pub mid: Point,
    /// Yaw and pitch in degrees (the signs of `docs/trace.md`).
    pub pose: (f64, f64),
    /// The model's own estimate of its error (root mean square over the hidden values).
    pub expected_error: f64,
    /// The observation's squared distance from the training span, in the kernel's feature space.
    pub residual: f64,
}

/// As AHM's trace lines give it (`scripts/ahm-estimate.py` reads them).
impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "yaw {:.1} pitch {:.1} expected {:.3} residual {:.4} at ({:.1}, {:.1})",
            self.pose.0, self.pose.1, self.expected_error, self.residual, self.mid[0], self.mid[1]
        )
    }
}

/// What following a head keeps from frame to frame, so that a frame
/// allocates nothing: the observation, its column sums, the projection's
/// buffers and the hidden state it reads.
#[derive(Debug, Clone)]
pub struct Buffers {
    x: DVector<f64>,
    columns: Vec<u32>,
    scratch: crate::vision::ahm::Scratch,
    hidden: DVector<f64>,
}

impl Default for Buffers {
    fn default() -> Self {
        Self { x: DVector::zeros(0), columns: Vec::new(), scratch: crate::vision::ahm::Scratch::default(), hidden: DVector::zeros(HIDDEN) }
    }
}

/// Follows the head on one frame: the window is put on `pivot`, projected
/// (onto the `subset` pairs nearest the last hidden state, or all of them
/// with `None`), moved to the pivot it reads, and projected again (`passes`
/// times in all). Moves `pivot` and `last`.
///
/// # Errors
/// OpenCV or model failures.
#[allow(clippy::too_many_arguments)]
pub fn step(model: &Ahm, gray: &Mat, iod: f64, pivot: &mut Point, last: &mut DVector<f64>, subset: Option<usize>, passes: usize, b: &mut Buffers) -> Result<Step, CarryError> {
    let (mut expected_error, mut residual) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..passes.max(1) {
        observe_into(gray, *pivot, iod, &mut b.x, &mut b.columns)?;
        let (expected, read_residual) = if let Some(m) = subset {
            model.track(&b.x, last, m, &mut b.scratch, &mut b.hidden)?
        } else {
            let e = model.project(&b.x)?;
            b.hidden.clone_from(&e.hidden);
            (e.expected_error, e.residual)
        };
        *pivot = [pivot[0] + b.hidden[0] * iod, pivot[1] + b.hidden[1] * iod];
        last.clone_from(&b.hidden);
        (expected_error, residual) = (expected, read_residual);
    }
    let h = &b.hidden;
    Ok(Step { mid: [pivot[0] + h[2] * iod, pivot[1] + h[3] * iod], pose: (h[4] * YAW_SCALE, h[5] * PITCH_SCALE), expected_error, residual })
}

/// What the training thread answers: the model and the face's points it was made from, or why not.
type Trained = Result<(Ahm, PhotoLandmarks), String>;

/// A model being trained, or trained, and AHM following the head with it.
#[derive(Default)]
pub struct Carrier {
    /// The training under way: when it was asked (frames' clock) and where its answer comes.
    training: Option<(f64, Receiver<Trained>)>,
    /// Training failed or could not start: not asked again in this session.
    refused: bool,
    /// How long [`Self::receive`] waited for the training thread since
    /// [`Self::take_waited`] (a replay only: a live frame never waits).
    waited: std::time::Duration,
    model: Option<(Ahm, PhotoLandmarks)>,
    /// Following: the pivot, the last hidden state and the eye distance (px).
    follow: Option<(Point, DVector<f64>, f64)>,
    /// The pose AHM read on the last frame it followed (yaw, pitch in degrees).
    last_pose: Option<(f64, f64)>,
    /// Where it put the point between the eyes then, and how far its window was from the training span.
    last_mid: Option<(Point, f64)>,
    /// Since when (frames' clock) AHM has carried the pointer without the templates.
    carrying_since: Option<f64>,
    /// What following keeps from frame to frame.
    buffers: Buffers,
}

impl Carrier {
    /// Whether a model has been asked for (or failed): the caller need not offer another frame.
    #[must_use]
    pub fn asked(&self) -> bool {
        self.training.is_some() || self.model.is_some() || self.refused
    }

    /// Whether a model is trained.
    #[must_use]
    pub fn trained(&self) -> bool {
        self.model.is_some()
    }

    /// Whether AHM follows the head.
    #[must_use]
    pub fn following(&self) -> bool {
        self.follow.is_some()
    }

    /// Starts training a model of the face on `gray` at `landmarks`, at
    /// frame time `t_ms`, on a thread of its own.
    pub fn ask(&mut self, gray: &Mat, landmarks: PhotoLandmarks, t_ms: f64) {
        if self.asked() {
            return;
        }
        // The head is rendered in colour.
        let mut photo = Mat::default();
        if let Err(e) = imgproc::cvt_color_def(gray, &mut photo, imgproc::COLOR_GRAY2BGR) {
            tracing::warn!("AHM: cannot take the face for its model ({e}); large head turns lose the face");
            self.refused = true;
            return;
        }
        let (tx, rx) = sync_channel(1);
        let started = std::thread::Builder::new().name("ahm-train".into()).spawn(move || {
            let at = std::time::Instant::now();
            let model = train(&photo, &landmarks, TRAIN_IOD).map(|m| (m, landmarks)).map_err(|e| e.to_string());
            tracing::debug!("AHM: trained in {:.2} s", at.elapsed().as_secs_f64());
            let _ = tx.send(model);
        });
        match started {
            Ok(_) => self.training = Some((t_ms, rx)),
            Err(e) => {
                tracing::warn!("AHM: cannot start its training thread ({e}); large head turns lose the face");
                self.refused = true;
            }
        }
    }

    /// Takes the trained model once `after_ms` have passed on the frames'
    /// clock since it was asked: waiting for the thread if it is not done
    /// (`wait`, a replay: the same trace every time), or on a later frame
    /// (live: a frame never waits). Returns whether a model arrived on this
    /// call; how long it waited, [`Self::take_waited`].
    pub fn receive(&mut self, t_ms: f64, after_ms: f64, wait: bool) -> bool {
        let Some((asked, rx)) = &self.training else { return false };
        if t_ms - asked < after_ms {
            return false;
        }
        let answer = if wait {
            let start = std::time::Instant::now();
            let answer = rx.recv().map_err(|_| ());
            self.waited += start.elapsed();
            answer
        } else {
            match rx.try_recv() {
                Ok(a) => Ok(a),
                Err(std::sync::mpsc::TryRecvError::Empty) => return false,
                Err(std::sync::mpsc::TryRecvError::Disconnected) => Err(()),
            }
        };
        self.training = None;
        match answer {
            Ok(Ok(model)) => {
                self.model = Some(model);
                true
            }
            Ok(Err(e)) => {
                tracing::warn!("AHM: its model could not be trained ({e}); large head turns lose the face");
                self.refused = true;
                false
            }
            Err(()) => {
                tracing::warn!("AHM: its training thread stopped; large head turns lose the face");
                self.refused = true;
                false
            }
        }
    }

    /// How long a replay's frame waited for the training since this was
    /// last asked (zero if it did not), and from now on none.
    pub fn take_waited(&mut self) -> std::time::Duration {
        std::mem::take(&mut self.waited)
    }

    /// Starts following a frontal head whose point between the eyes is at
    /// `mid`, `iod` px between the eyes.
    pub fn start(&mut self, mid: Point, iod: f64) {
        if let Some((_, lm)) = &self.model {
            self.follow = Some((pivot_from_mid(lm, iod, mid), frontal_state(lm), iod));
            self.last_pose = Some((0.0, 0.0));
            self.last_mid = None;
        }
    }

    /// Stops following (the head is lost to AHM too, or another source starts).
    pub fn stop(&mut self) {
        self.follow = None;
        self.last_pose = None;
        self.last_mid = None;
        self.carrying_since = None;
    }

    /// Whether AHM, sure of the head on its last frame (its window near the
    /// training span), put the point between the eyes more than `share` eye
    /// distances (`iod` px) from `mid`.
    #[must_use]
    pub fn disagrees(&self, mid: Point, iod: f64, share: f64) -> bool {
        self.last_mid.is_some_and(|(m, residual)| residual <= AHM_SURE_RESIDUAL && dist(m, mid) > share * iod)
    }

    /// Whether AHM, following, read the head on its last frame turned
    /// further than `deg` degrees of yaw or pitch from frontal.
    #[must_use]
    pub fn turned_past(&self, deg: f64) -> bool {
        self.last_pose.is_some_and(|(y, p)| y.abs() > deg || p.abs() > deg)
    }

    /// Forgets the model as well (another person may sit down).
    pub fn forget(&mut self) {
        self.stop();
        self.model = None;
        self.training = None;
        self.refused = false;
    }

    /// Follows the head on `gray`, if following, with `passes` projections.
    ///
    /// # Errors
    /// OpenCV or model failures.
    pub fn step(&mut self, gray: &Mat, passes: usize) -> Result<Option<Step>, CarryError> {
        let (Some((model, _)), Some((pivot, last, iod))) = (&self.model, &mut self.follow) else { return Ok(None) };
        let s = step(model, gray, *iod, pivot, last, Some(SUBSET), passes, &mut self.buffers)?;
        self.last_pose = Some(s.pose);
        self.last_mid = Some((s.mid, s.residual));
        Ok(Some(s))
    }
}

impl Carrier {
    /// The eye distance AHM follows the head at (px), if following.
    #[must_use]
    pub fn iod(&self) -> Option<f64> {
        self.follow.as_ref().map(|f| f.2)
    }
}

impl super::Vision {
    /// AHM's part of a frame (see the module's text), after the templates'
    /// (`out` holds what they saw): learns the face, follows the head, and
    /// gives the pointer's feature and the head where AHM carries it.
    ///
    /// # Errors
    /// OpenCV failures.
    pub(super) fn carry_head(&mut self, frame: &Frame, t: f64, out: &Observation) -> Result<Option<(Point, CarriedHead)>, VisionError> {
        if !self.settings.carry_turns {
            if self.carry.asked() {
                self.carry.forget();
            }
            return Ok(None);
        }
        let gray = &frame.gray;
        self.carry.receive(t, AHM_ANSWER_MS, !self.live);
        let step = match &self.phase {
            Phase::Tracking(tr) => {
                let (le, re) = (tr.left.eye, tr.right.eye);
                let iod = dist(le, re).max(1.0);
                let mid = tr.pose_points[0].2;
                // The detector and the trackers agreed on a frontal face on this frame.
                let confirmed = self.face_confirmed == Some(t);
                let calm = !out.talking && !out.eyes_closed && !out.brows_raised && out.closure.0.max(out.closure.1) < 0.5;
                if confirmed && calm && !self.carry.asked() && tr.tracked_ms(t) >= AHM_LEARN_AFTER_MS {
                    let landmarks = PhotoLandmarks::with_portrait_sizes(le, re, tr.left.brow, tr.right.brow, tr.pose_points[1].2, mid);
                    self.carry.ask(gray, landmarks, t);
                }
                self.carry.carrying_since = None;
                if !self.carry.trained() {
                    return Ok(None);
                }
                // AHM is started on a confirmed frontal face, and put back on
                // one where it reads the head turned or puts the point
                // between the eyes off the templates' (trained on a rendering
                // of a real face, it can drift on a real one: p2 to 37° of
                // pitch; the detector's nose alone calls a nod of up to about
                // 20° frontal, so AHM agreeing is left alone); between, it
                // follows the head on its own, as it turns past what the
                // templates follow.
                if confirmed && !self.carry.following() {
                    self.carry.start(mid, iod);
                }
                if confirmed {
                    self.carry_offset = sub(tr.feature, mid);
                }
                // One projection a frame within `AHM_ONE_PASS_DEG` of frontal,
                // where the head moves little for AHM; two as it turns (with
                // one, AHM fell behind a nod and lost the head at 16°).
                let passes = if self.carry.turned_past(AHM_ONE_PASS_DEG) { 2 } else { 1 };
                if let Some(s) = self.carry.step(gray, passes)? {
                    let off = dist(s.mid, mid) / iod;
                    tracing::trace!("AHM: t {t:.0} follows: {s}, {off:.3} off the templates");
                    if confirmed && (off > AHM_RESYNC || self.carry.turned_past(AHM_RESYNC_DEG)) {
                        tracing::debug!("AHM: put back on the templates' frontal face (it read yaw {:.0}°, pitch {:.0}°, {off:.2} eye distances off)", s.pose.0, s.pose.1);
                        self.carry.start(mid, iod);
                    } else if s.residual > CARRY_MAX_RESIDUAL {
                        // Not like any view of this face: AHM has lost the head (until the next frontal check).
                        self.carry.stop();
                    }
                }
                return Ok(None);
            }
            // The templates lost the face: AHM, if it followed the head,
            // carries it, for `CARRY_MAX_MS` at most (a head turned away
            // longer, or a hand AHM took for a turned head, is a loss).
            Phase::Lost { since: lost_since, .. } => {
                // Gone this long, whoever comes back may be someone else: their own model, when they are tracked.
                if t - lost_since > AHM_FORGET_MS && self.carry.asked() {
                    tracing::debug!("AHM: the face was lost {AHM_FORGET_MS:.0} ms; its model is forgotten");
                    self.carry.forget();
                    self.face_down0 = None;
                    self.ncc_down0 = None;
                    return Ok(None);
                }
                let since = *self.carry.carrying_since.get_or_insert(t);
                if t - since > CARRY_MAX_MS {
                    tracing::debug!("AHM: carried the pointer {CARRY_MAX_MS:.0} ms without the templates; lost");
                    self.carry.stop();
                    return Ok(None);
                }
                let Some(s) = self.carry.step(gray, 2)? else { return Ok(None) };
                tracing::trace!("AHM: t {t:.0} carries: {s}");
                if s.residual > CARRY_MAX_RESIDUAL {
                    tracing::debug!("AHM: the window is not like any view of the face (residual {:.3}); lost", s.residual);
                    self.carry.stop();
                    return Ok(None);
                }
                s
            }
            Phase::Searching | Phase::Initializing(_) => {
                self.carry.stop();
                return Ok(None);
            }
        };
        // A head AHM puts outside the frame is lost to it too.
        let (w, h) = (f64::from(gray.cols()), f64::from(gray.rows()));
        let inside = step.mid.iter().all(|v| v.is_finite()) && (0.0..w).contains(&step.mid[0]) && (0.0..h).contains(&step.mid[1]);
        let Some(iod) = self.carry.iod().filter(|_| inside) else {
            self.carry.stop();
            return Ok(None);
        };
        let head = CarriedHead { iod, yaw: step.pose.0, pitch: step.pose.1, expected_error: step.expected_error };
        Ok(Some((add(step.mid, self.carry_offset), head)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use super::super::params::AHM_FORGET_MS;
    use crate::lab::synth::{FaceAsset, Generator, SynthConfig, Turn, default_photo};

    /// The portrait's model, trained on small views, follows a generated
    /// 640×480 head that drifts as it turns 60° and nods 30°: the point
    /// between the eyes within 0.1 eye distances on 95 % of the frames and
    /// 0.2 on all, the pose within 10°.
    #[test]
    fn a_model_of_small_views_follows_a_large_head_through_a_turn() {
        let asset = FaceAsset::load(&default_photo()).expect("photo");
        let model = train(&asset.photo, &asset.landmarks, TRAIN_IOD).expect("train");
        assert_eq!(model.len(), 19 * 7 * 5);
        let mut cfg = SynthConfig::turning(5, 10.0);
        cfg.turn = Some(Turn { yaw_deg: 60.0, pitch_deg: 30.0, moving: true, ..Turn::wide() });
        cfg.script.clear();
        let iod = cfg.iod_px;
        let mut generator = Generator::new(FaceAsset::load(&default_photo()).expect("photo"), cfg.clone()).expect("generator");
        let (mut img, mut gray) = (Mat::default(), Mat::default());
        let mut last = frontal_state(&asset.landmarks);
        let (mut pivot, mut buffers) = (None, Buffers::default());
        let (mut errors, mut worst_pose): (Vec<f64>, f64) = (Vec::new(), 0.0);
        for i in 0..cfg.frames() {
            let row = generator.render(i, &mut img).expect("render");
            imgproc::cvt_color_def(&img, &mut gray, imgproc::COLOR_BGR2GRAY).expect("gray");
            let p = pivot.get_or_insert_with(|| pivot_from_mid(&asset.landmarks, iod, row.mid.expect("frontal at the start")));
            let s = step(&model, &gray, iod, p, &mut last, Some(SUBSET), 2, &mut buffers).expect("step");
            if let Some(m) = row.mid {
                errors.push(dist(s.mid, m) / iod);
            }
            worst_pose = worst_pose.max((s.pose.0 - row.yaw.unwrap_or(0.0)).abs()).max((s.pose.1 - row.pitch.unwrap_or(0.0)).abs());
        }
        let worst = errors.iter().copied().fold(0.0, f64::max);
        #[allow(clippy::cast_precision_loss)]
        let within = errors.iter().filter(|e| **e < 0.1).count() as f64 / errors.len() as f64;
        assert!(within >= 0.95 && worst < 0.2, "the point between the eyes: {within:.3} of the frames within 0.1, worst {worst:.3} eye distances");
        assert!(worst_pose < 10.0, "the pose, worst {worst_pose:.1}°");
    }

    /// Training renders only the pixels its windows read: every training
    /// observation, at every pose, is the one the whole view gives.
    #[test]
    fn training_observes_from_a_partial_render_what_the_whole_view_gives() {
        let asset = FaceAsset::load(&default_photo()).expect("photo");
        let view = training_view(TRAIN_IOD);
        let (shifts, read) = training_windows(view, TRAIN_IOD);
        assert!(read.area() < view.size.area() * 3 / 5, "{read:?} of {:?}: most of the rays are spared", view.size);
        let pivot = head3d::pivot(view);
        let mut head = Head3d::default();
        let (mut img, mut gray, mut part, mut part_gray) = (Mat::default(), Mat::default(), Mat::default(), Mat::default());
        for pose in [(0.0, 0.0), (-90.0, 45.0), (50.0, -30.0), (90.0, 0.0)] {
            head.render(&asset.photo, &asset.landmarks, pose, view, 0.0, &mut img).expect("render");
            head.render_within(&asset.photo, &asset.landmarks, pose, view, 0.0, read, &mut part).expect("render");
            imgproc::cvt_color_def(&img, &mut gray, imgproc::COLOR_BGR2GRAY).expect("gray");
            imgproc::cvt_color_def(&part, &mut part_gray, imgproc::COLOR_BGR2GRAY).expect("gray");
            for (sx, sy) in shifts {
                let centre = [pivot[0] + sx * TRAIN_IOD, pivot[1] + sy * TRAIN_IOD];
                assert_eq!(observe(&part_gray, centre, TRAIN_IOD).expect("observe"), observe(&gray, centre, TRAIN_IOD).expect("observe"), "{pose:?}, shift ({sx}, {sy})");
            }
        }
    }

    /// A model asked for is taken only once its time has come on the
    /// frames' clock: in a replay then whatever the thread's speed, live
    /// only once it is ready (a frame never waits).
    #[test]
    fn the_model_arrives_at_its_time_on_the_frames_clock() {
        let mut cfg = SynthConfig::demo();
        cfg.motion_px = (0.0, 0.0);
        cfg.roll_deg = 0.0;
        let mut generator = Generator::new(FaceAsset::load(&default_photo()).expect("photo"), cfg).expect("generator");
        let mut img = Mat::default();
        let row = generator.render(0, &mut img).expect("render");
        let mut gray = Mat::default();
        imgproc::cvt_color_def(&img, &mut gray, imgproc::COLOR_BGR2GRAY).expect("gray");
        let p = |o: Option<Point>| o.expect("a frontal face has every point");
        let landmarks = PhotoLandmarks::with_portrait_sizes(p(row.le), p(row.re), p(row.lb), p(row.rb), p(row.nose), p(row.mid));
        let mut c = Carrier::default();
        assert!(!c.asked());
        c.ask(&gray, landmarks, 1000.0);
        assert!(c.asked() && !c.trained());
        assert!(!c.receive(2999.0, 2000.0, true), "not before its time");
        // Live, a frame does not wait for the thread (rendering 133 views takes a second).
        assert!(!c.receive(3000.0, 2000.0, false) && !c.trained(), "live: taken on a later frame");
        assert_eq!(c.take_waited(), std::time::Duration::ZERO, "live: no wait");
        assert!(c.receive(3000.0, 2000.0, true) && c.trained(), "at its time, waiting for the thread");
        // The wait is known, and left out of the frame's time (`Pipeline`).
        let waited = c.take_waited();
        assert!(waited > std::time::Duration::ZERO && c.take_waited() == std::time::Duration::ZERO, "{waited:?}");
        c.start(p(row.mid), dist(p(row.le), p(row.re)));
        let s = c.step(&gray, 2).expect("step").expect("following");
        assert!(dist(s.mid, p(row.mid)) < 0.1 * dist(p(row.le), p(row.re)), "{s:?} against {:?}", row.mid);
        assert!(s.pose.0.abs() < 10.0 && s.pose.1.abs() < 10.0, "{s:?}");
        c.forget();
        assert!(!c.asked() && !c.following());
    }

    /// The face learned, then gone for longer than `AHM_FORGET_MS` (the user
    /// left; someone else may sit down): the model goes with it, and the next
    /// face tracked gets its own.
    #[test]
    fn a_face_gone_long_takes_its_model_with_it() {
        use crate::capture::Frame;
        use crate::vision::{Observation, Vision, VisionSettings};
        let mut cfg = SynthConfig::demo();
        cfg.duration_s = 5.0;
        let mut generator = Generator::new(FaceAsset::load(&default_photo()).expect("photo"), cfg.clone()).expect("generator");
        let mut vision = Vision::new(VisionSettings::default());
        let mut frame = Frame::empty();
        let mut obs = Observation::default();
        for i in 0..cfg.frames() {
            generator.render(i, &mut frame.color).expect("render");
            frame.update_gray().expect("gray");
            frame.t_ms = generator.t_ms(i);
            vision.observe(&frame, &mut obs);
        }
        assert!(vision.carry.trained(), "the face learned in 5 s");
        // An empty room, two frames a second.
        let blank = Mat::new_rows_cols_with_default(cfg.height, cfg.width, opencv::core::CV_8UC3, opencv::core::Scalar::all(90.0)).expect("blank");
        let t0 = frame.t_ms;
        let mut k = 1.0;
        while frame.t_ms < t0 + AHM_FORGET_MS - 1000.0 {
            blank.copy_to(&mut frame.color).expect("blank");
            frame.update_gray().expect("gray");
            frame.t_ms = t0 + 500.0 * k;
            k += 1.0;
            vision.observe(&frame, &mut obs);
        }
        assert!(vision.carry.trained(), "kept while the face has been gone less than {AHM_FORGET_MS} ms");
        for _ in 0..6 {
            frame.t_ms = t0 + 500.0 * k;
            k += 1.0;
            vision.observe(&frame, &mut obs);
        }
        assert!(!vision.carry.asked(), "forgotten once it has been gone longer");
    }

    /// A restart is checked against AHM only where AHM is sure of the head
    /// (its window near the training span) and puts the point between the
    /// eyes further off than allowed; not following, it says nothing.
    #[test]
    fn a_restart_is_refused_only_where_a_sure_ahm_puts_the_head_elsewhere() {
        use super::super::params::{AHM_RESTART_AGREE, AHM_SURE_RESIDUAL};
        let mut c = Carrier::default();
        assert!(!c.disagrees([0.0, 0.0], 64.0, AHM_RESTART_AGREE), "not following: no say");
        c.last_mid = Some(([320.0, 200.0], AHM_SURE_RESIDUAL / 2.0));
        assert!(!c.disagrees([320.0, 208.0], 64.0, AHM_RESTART_AGREE), "0.125 eye distances off: agrees");
        assert!(c.disagrees([320.0, 215.0], 64.0, AHM_RESTART_AGREE), "0.23 eye distances off: disagrees");
        c.last_mid = Some(([320.0, 200.0], AHM_SURE_RESIDUAL * 2.0));
        assert!(!c.disagrees([320.0, 215.0], 64.0, AHM_RESTART_AGREE), "unsure of the head: no say");
        c.stop();
        assert!(!c.disagrees([320.0, 215.0], 64.0, AHM_RESTART_AGREE), "stopped: no say");
    }
}
