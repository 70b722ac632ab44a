//! Tracking: the feature, the eyes, the brows and the pose points, each found
//! by normalized correlation in a window around where the feature puts it.
//! Windows and templates scale with the eye distance, and the feature's window
//! with the real time since the last frame (a slow camera sees the head move
//! farther between frames).

use opencv::core::{Mat, Size};
use opencv::prelude::*;

use super::eyes::EyeTiming;
use super::face::Face;
use super::params::{
    AHM_AGREE, AHM_FRONTAL, AHM_FRONTAL_NOD, SWITCH_NOD, SWITCH_POSE_DEG, BROW_EYES_BUSY, FACE_ANSWER_MS, FACE_START_SCORE, GENERIC_EYE_FLOOR, BROW_POSITION_FLOOR, BROW_SEARCH, BROW_TEMPLATE, BROW_TEMPLATE_RISE, DRIFT_CHECK_MS, DRIFT_GUARD_NCC, DRIFT_MAX, DRIFT_STRIKES, DRIFT_STRIKES_ANYWAY, EYE_SEARCH, FACE_IOD_RATIO,
    EYE_TEMPLATE, EYES_FLOOR, UNIFORM_EYE_SPREAD, BROW_SCALE_TAU_MS, FEATURE_DROP, FEATURE_FLOOR, FEATURE_SCORE_TAU_MS, FEATURE_SEARCH_MAX, FEATURE_SEARCH_MIN, FEATURE_TEMPLATE,
    HEAD_SPEED, IOD_RATIO, ASTRAY_CHECKS, PAIR_ASTRAY_AGREE, EYE_ASTRAY, LOST_AFTER_MS, CLOSED_TEMPLATE_MARGIN, EYE_REARM, OPEN_MATCH_MS, OPEN_MATCH_TAU_MS, MAX_TILT_DEG, OFFSET_TAU_MS, POSE_POINT_SEARCH, POSE_TEMPLATES, POSITION_FLOOR, REFRESH_MS,
    RELIABLE_DROP, RELIABLE_FEATURE, UNSURE_CHECK_MS, VELOCITY_TAU_MS,
};
use super::stats::alpha;
use super::{FeaturePoint, Observation, Phase, Vision, VisionError, add, axes, brows, dot, lerp, ncc, px, sub};
use crate::capture::Frame;
use crate::events::{Event, Point, dist, midpoint as mid};

/// The eye–brow geometry of one side.
#[derive(Debug, Clone)]
pub(super) struct Side {
    pub eye_tmpl: Mat,
    pub brow_tmpl: Mat,
    /// The eye's offset from the feature (pixels).
    pub eye_offset: Point,
    /// The brow's offset from the eye in (along eye line, up) inter-ocular units.
    pub brow_offset: (f64, f64),
    pub eye: Point,
    pub brow: Point,
    pub eye_score: f64,
    /// How well the eye template matches while the eyes are open ...
    pub open_match: super::stats::Ema,
    /// ... and at best during the closure under way (`None` while the eyes are open).
    pub closed_match: Option<f64>,
}

/// Everything known once tracking has started.
#[derive(Debug, Clone)]
pub(super) struct Tracks {
    pub iod0: f64,
    /// The eye line's angle when the templates were taken (radians, image axes).
    pub tilt0: f64,
    /// How many of the face detector's answers in a row found each eye (and
    /// only it) more than `EYE_ASTRAY` from its own ...
    pub astray: [u32; 2],
    /// ... and both eyes so, the same way (`PAIR_ASTRAY_AGREE`).
    pub pair_astray: u32,
    pub feature_t0: Mat,
    pub feature_tmpl: Mat,
    pub feature: Point,
    /// The feature's velocity in pixels per millisecond.
    pub velocity: Point,
    pub left: Side,
    pub right: Side,
    pub last_refresh: f64,
    pub weak_since: Option<f64>,
    /// Started by something other than a clear blink, without a face detector
    /// (a brow raise, a second look at a half-seen blink): replaced at the first clear blink.
    pub provisional: bool,
    /// The point between the eyes and the nose tip (for head pose): template,
    /// offset from the feature, position.
    pub pose_points: [(Mat, Point, Point); 2],
    /// When the face detector last checked the trackers, and how many checks in a row found them drifting.
    pub last_face_check: f64,
    pub drift_strikes: u32,
    /// Lost because the face detector kept disagreeing: these templates are
    /// of something else, and recovery does not look for them again.
    pub disowned: bool,
    /// Where the eyes were on the frame the face detector is looking at.
    pub face_check: Option<[Point; 2]>,
    /// The face detector has agreed with the trackers since they started
    /// (or there is no detector to ask). Until it does, the pointer holds:
    /// a start on a face a hand was still passing over took part of the
    /// hand into the templates, and the trackers followed the hand away.
    pub confirmed: bool,
    /// A start after a loss whose feature is not yet on the anchor's
    /// (`Vision::anchor`, `keep_feature`): tried again when the face
    /// detector agrees (a hand still leaving the face hid it at the start).
    pub reanchor: bool,
    /// This track's feature has become the anchor.
    pub anchor_taken: bool,
    /// How long the eyes have been seen open (for `open_match`), and whether
    /// the eye templates look like they were taken from closed eyes (to be
    /// taken again once the eyes are open).
    pub open_ms: f64,
    pub retake: bool,
    /// The eye distance, followed slowly (`BROW_SCALE_TAU_MS`): the brows'
    /// height is measured in the larger of it and the eye distance now.
    pub iod_slow: super::stats::Ema,
    /// How long the feature has held still, and the scene around it (`vision::still`).
    pub still: super::still::StillWatch,
    /// When these templates were taken (frames' clock).
    pub started: f64,
}

impl Tracks {
    /// How long these templates have tracked at frame time `t`.
    pub fn tracked_ms(&self, t: f64) -> f64 {
        t - self.started
    }

    /// How far the tracked nose tip lies below the point between the eyes,
    /// across the eye line, in eye distances (it changes as the head nods).
    pub fn nose_down(&self) -> f64 {
        super::nose_offset(self.right.eye, self.left.eye, self.pose_points[1].2, self.pose_points[0].2)[1]
    }

    /// The feature's search radius for a frame `dt_ms` after the last: at
    /// least `FEATURE_SEARCH_MIN`, as far as a head moving at `HEAD_SPEED` goes, at most `FEATURE_SEARCH_MAX`.
    pub fn feature_radius(iod: f64, dt_ms: f64) -> f64 {
        iod * (HEAD_SPEED * dt_ms / 1000.0).clamp(FEATURE_SEARCH_MIN, FEATURE_SEARCH_MAX)
    }
}

impl Vision {
    /// Takes every template with the eyes at `le` and `re` (the subject's left
    /// eye on the image's right). `None` when a template would leave the image.
    pub(super) fn take_templates(&mut self, gray: &Mat, le: Point, re: Point, t: f64) -> Result<Option<Tracks>, VisionError> {
        let iod = dist(le, re);
        let m = mid(le, re);
        let (e, up) = axes(re, le);
        let cam = crate::face_model::Camera::for_image(f64::from(gray.cols()), f64::from(gray.rows()));
        let [mid_at, nose_at] = crate::face_model::neutral_offsets(&cam, m, iod)
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
            // Nothing to see there (a hand or a card over the eye, which a
            // face detector still finds the face around): no eye to track.
            if ncc::patch_spread(&eye_tmpl)? < UNIFORM_EYE_SPREAD {
                return Ok(None);
            }
            let brow = brows::find_brow(gray, eye, e, up, iod)?;
            // The brow's template reaches up into the forehead rather than down to the lid, which does not rise.
            let above = add(brow, [BROW_TEMPLATE_RISE * iod * up[0], BROW_TEMPLATE_RISE * iod * up[1]]);
            let mut brow_tmpl = Mat::default();
            if !ncc::extract(gray, above, px(BROW_TEMPLATE.0 * iod), px(BROW_TEMPLATE.1 * iod), &mut brow_tmpl)? {
                return Ok(None);
            }
            let rel = sub(brow, eye);
            sides.push(Side {
                eye_tmpl,
                brow_tmpl,
                eye_offset: sub(eye, feature),
                brow_offset: (dot(rel, e) / iod, dot(rel, up) / iod),
                eye,
                brow,
                eye_score: 1.0,
                open_match: super::stats::Ema::default(),
                closed_match: None,
            });
        }
        let mut pose_points = [(Mat::default(), [0.0; 2], [0.0; 2]), (Mat::default(), [0.0; 2], [0.0; 2])];
        for (slot, (at, size)) in pose_points.iter_mut().zip([mid_at, nose_at].into_iter().zip(POSE_TEMPLATES)) {
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
            tilt0: (le[1] - re[1]).atan2(le[0] - re[0]),
            astray: [0, 0],
            pair_astray: 0,
            feature_tmpl: feature_t0.clone(),
            feature_t0,
            feature,
            velocity: [0.0, 0.0],
            left,
            right,
            last_refresh: t,
            started: t,
            weak_since: None,
            provisional: false,
            pose_points,
            last_face_check: t,
            drift_strikes: 0,
            disowned: false,
            face_check: None,
            confirmed: !self.faces.active(),
            reanchor: false,
            anchor_taken: false,
            open_ms: 0.0,
            retake: false,
            iod_slow: super::stats::Ema::default(),
            still: super::still::StillWatch::default(),
        }))
    }

    /// Starts the trackers (and the eye and brow state) afresh.
    pub(super) fn start_tracking(&mut self, tracks: Tracks) -> Phase {
        self.eyes.restart();
        self.brows = brows::Brows::default();
        self.speech.restart();
        self.feature_score = super::stats::Ema::default();
        Phase::Tracking(Box::new(tracks))
    }

    pub(super) fn track(&mut self, frame: &Frame, mut tr: Box<Tracks>, t: f64, dt: f64, out: &mut Observation) -> Result<Phase, VisionError> {
        let gray = &frame.gray;
        let (iod, centre) = (dist(tr.left.eye, tr.right.eye).max(4.0), mid(tr.left.eye, tr.right.eye));
        // Without a face detector, a track not started by a clear blink is replaced at the first blink.
        if tr.provisional {
            let (pair, cue) = self.motion_pair(gray)?;
            if let Some(p) = pair
                && cue == super::search::Cue::Blink
                && dist(p.le, tr.left.eye).max(dist(p.re, tr.right.eye)) < 0.35 * p.iod()
            {
                return Self::start_init(gray, Some(p), cue, t, out);
            }
        } else if !self.faces.active() && tr.still.wants_whole_frame(gray, centre, iod, t)? {
            // Held still while the scene changed, and no face detector to
            // look at the whole frame with (`vision::still`): a clear blink
            // elsewhere, of eyes as far apart, is the person.
            let (pair, cue) = self.motion_pair(gray)?;
            if let Some(p) = pair
                && cue == super::search::Cue::Blink
                && dist(mid(p.le, p.re), centre) > DRIFT_MAX * iod
                && p.iod() >= FACE_IOD_RATIO.0 * iod
            {
                tracing::debug!("vision: the feature held still {:.0} ms while the scene changed, and eyes blinked elsewhere", tr.still.held_ms(t));
                return Self::start_init(gray, Some(p), cue, t, out);
            }
        } else {
            // Keep BlinkLink's previous frame current so a later loss does not difference across a gap.
            self.blink.reset();
        }
        // 1. The feature, in a window that follows the motion.
        let predicted = add(tr.feature, [tr.velocity[0] * dt, tr.velocity[1] * dt]);
        let r = px(Tracks::feature_radius(iod, dt));
        let found = ncc::search(gray, &tr.feature_tmpl, predicted, r, r, &mut self.result)?;
        let Some(found) = found else {
            tracing::debug!("vision: lost: the feature's window is off the image");
            out.events.push(Event::Lost);
            return Ok(Phase::Lost { tracks: tr, since: t });
        };
        let score = found.score;
        out.confidence = score.clamp(0.0, 1.0);
        let v = sub(found.pos, tr.feature);
        tr.velocity = lerp(tr.velocity, [v[0] / dt, v[1] / dt], alpha(dt, VELOCITY_TAU_MS));
        tr.feature = found.pos;
        // Nor while the face detector's last answer disagreed (step 7).
        let reliable = self.feature_matches(score) && tr.drift_strikes == 0;
        if reliable {
            self.feature_score.update(score, dt, FEATURE_SCORE_TAU_MS);
        }

        // 2. Each eye near where the feature says it is.
        let a = alpha(dt, OFFSET_TAU_MS);
        let mut eyes_seen = f64::NEG_INFINITY;
        for side in [&mut tr.left, &mut tr.right] {
            let guess = add(tr.feature, side.eye_offset);
            let (rx, ry) = (px(EYE_SEARCH.0 * iod), px(EYE_SEARCH.1 * iod));
            if let Some(m) = ncc::search(gray, &side.eye_tmpl, guess, rx, ry, &mut self.result)? {
                side.eye_score = m.score;
                let open = m.score >= POSITION_FLOOR;
                side.eye = if open { m.pos } else { guess };
                if open && reliable {
                    side.eye_offset = lerp(side.eye_offset, sub(m.pos, tr.feature), a);
                }
            } else {
                side.eye_score = -1.0;
                side.eye = guess;
            }
            eyes_seen = eyes_seen.max(side.eye_score);
        }
        // A head that rolls, leans in or turns (people who talk) changes the
        // feature's look: its match falls to 0.6 with the eyes still tracked
        // within 0.03 eye distances, and on such frames nothing was decided
        // (moving copies of the ZJU clips: a third to a half of the frames,
        // and their blinks missed). The feature is then matched again with
        // the roll and size the eyes show undone: a face that is still the
        // face matches as before; a cover or a face gone does not.
        // (Only for the eye state: the feature's template is refreshed, and
        // the offsets learned, from frames it matches as it is; taken from a
        // rolled face, it matched the face rolled back less, and lost it.
        // The brows are not measured on such frames: there, a brow measure
        // the moving head had left high gave a raise, zju-s15 moving.)
        let mut judged = reliable;
        if !reliable && tr.drift_strikes == 0 {
            let upright = self.upright_match(gray, &tr)?;
            judged = self.feature_matches(upright);
            tracing::trace!("vision: t {t:.0} feature {score:.3}, upright {upright:.3}");
        }
        out.doubtful = !judged;

        // An eye with nothing to see where it is tracked, or where the
        // feature says it belongs, is covered (a hand, a card), not closed:
        // the eye state would take it for a closure and keep the track
        // alive (the trackers also slide to the cover's edge), and a covered
        // face clicked.
        let mut covered = false;
        for side in [&tr.left, &tr.right] {
            let (w, h) = (side.eye_tmpl.cols(), side.eye_tmpl.rows());
            for at in [side.eye, add(tr.feature, side.eye_offset)] {
                covered |= ncc::spread(gray, at, w, h)?.is_some_and(|s| s < UNIFORM_EYE_SPREAD);
            }
        }

        // The pose points follow the feature the same way.
        for (tmpl, offset, pos) in &mut tr.pose_points {
            let guess = add(tr.feature, *offset);
            let r = px(POSE_POINT_SEARCH * iod);
            match ncc::search(gray, tmpl, guess, r, r, &mut self.result)? {
                Some(m) if m.score >= POSITION_FLOOR => {
                    *pos = m.pos;
                    if reliable {
                        *offset = lerp(*offset, sub(m.pos, tr.feature), a);
                    }
                }
                _ => *pos = guess,
            }
        }

        // Loss: the feature below its floor (or far below its usual match), or
        // neither eye looking like an eye, for a moment. A closing eye matches
        // its open template less, so the eye state's view of a blink counts too.
        let feature_weak = score < FEATURE_FLOOR || (self.feature_score.ready && score < self.feature_score.value - FEATURE_DROP);
        if feature_weak || covered || (eyes_seen < EYES_FLOOR && !self.eyes.closed()) {
            let since = *tr.weak_since.get_or_insert(t);
            if t - since >= LOST_AFTER_MS {
                tracing::debug!("vision: lost: for {:.0} ms the feature matched {score:.2} (usual {:.2}), covered {covered}, eyes that look like eyes {eyes_seen:.2}", t - since, self.feature_score.value);
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
            tracing::debug!("vision: lost: the eyes {ratio:.2} times as far apart as at the start, tilted {tilt:.0}°");
            out.events.push(Event::Lost);
            return Ok(Phase::Lost { tracks: tr, since: t });
        }

        // 4. Brows: found above each eye; the distance is measured along the
        //    face's up axis, in eye distances. A head turning (yaw) narrows
        //    the eye distance in the image, by 13 % at 30°, and not the
        //    brows' height: measured in the eye distance of the moment, the
        //    brows seemed to rise by 0.03 eye distances as the head turned,
        //    and generated talking with turns of up to 30° gave 1.8 false
        //    raises a minute. The larger of the distance now and the one
        //    followed slowly does not shrink with a turn; it grows at once as
        //    the user comes closer.
        if reliable {
            tr.iod_slow.update(now_iod, dt, BROW_SCALE_TAU_MS);
        }
        let brow_scale = now_iod.max(if tr.iod_slow.ready { tr.iod_slow.value } else { now_iod });
        let (e, up) = axes(tr.right.eye, tr.left.eye);
        let mut lift_sum = 0.0;
        let mut skull_sum = 0.0;
        let mut lift_n = 0;
        let mut sides = Some([0.0; 2]);
        let closures = [self.eyes.last_closure.0, self.eyes.last_closure.1];
        for (k, (side, closure)) in [&mut tr.left, &mut tr.right].into_iter().zip(closures).enumerate() {
            let guess = [
                side.eye[0] + now_iod * (side.brow_offset.0 * e[0] + side.brow_offset.1 * up[0]),
                side.eye[1] + now_iod * (side.brow_offset.0 * e[1] + side.brow_offset.1 * up[1]),
            ];
            let rise = [BROW_TEMPLATE_RISE * now_iod * up[0], BROW_TEMPLATE_RISE * now_iod * up[1]];
            let (rx, ry) = (px(BROW_SEARCH.0 * now_iod), px(BROW_SEARCH.1 * now_iod));
            match ncc::search(gray, &side.brow_tmpl, add(guess, rise), rx, ry, &mut self.result)? {
                Some(m) if m.score > BROW_POSITION_FLOOR => {
                    side.brow = sub(m.pos, rise);
                    // From the eye's steady place beside the feature: a closing lid does not move it.
                    let rel = sub(side.brow, add(tr.feature, side.eye_offset));
                    lift_sum += dot(rel, up) / brow_scale;
                    skull_sum += dot(sub(side.brow, tr.feature), up) / brow_scale;
                    // And from the eye where it is tracked, while it is open
                    // and seen: both brows together, and each on its own
                    // (`BrowHeight::sides`).
                    let open = side.eye_score >= POSITION_FLOOR && closure < EYE_REARM;
                    let height = dot(sub(side.brow, side.eye), up) / brow_scale;
                    sides = sides.filter(|_| open).map(|mut s| {
                        s[k] = height;
                        s
                    });
                    lift_n += 1;
                }
                _ => side.brow = guess,
            }
        }
        let brow_dist = (reliable && lift_n == 2).then(|| brows::BrowHeight {
            from_eye: lift_sum / 2.0,
            from_feature: skull_sum / 2.0,
            from_tracked_eye: sides.map(|s| f64::midpoint(s[0], s[1])),
            sides,
        });
        let brow_timing = brows::BrowTiming {
            on: self.settings.brow_on,
            off: self.settings.brow_off,
            min_ms: self.settings.brow_min_ms,
            refractory_ms: self.settings.brow_refractory_ms,
            together: self.settings.brows_together,
        };

        // 5. Eye state. Whichever moves first owns the frame: raised brows
        //    stretch the lids (no blink starts), and a blink or a glance moves
        //    the brow measure (the brow switch holds its state).
        let brows_up = self.brows.raised();
        let timing = EyeTiming { long_blink_ms: self.settings.long_blink_ms, wink_min_ms: self.settings.wink_min_ms };
        out.eyes_closed = self.eyes.update(gray, [tr.left.eye, tr.right.eye], now_iod, judged, brows_up, t, timing, &mut out.events)?;
        out.closure = self.eyes.last_closure;
        let eyes_now = match (out.eyes_closed, self.eyes.holding(t)) {
            (false, _) => brows::EyesNow::Open,
            (true, false) => brows::EyesNow::Closing,
            (true, true) => brows::EyesNow::Holding,
        };
        if out.events.contains(&Event::Blink) {
            self.brows.blinked(t);
        } else if self.eyes.lids_fell() && out.closure.0.max(out.closure.1) > BROW_EYES_BUSY {
            self.brows.lids_fell();
        }
        // 5b. Speech: while the mouth moves as in talking, no face gesture
        //     acts (people who talk raise their brows with what they say).
        //     The face's frame comes from the eyes' steady places beside
        //     the feature, which the lids do not move (from the tracked eyes,
        //     a blink at 7.5 fps moved the mouth's patch as talking does),
        //     and is not measured while the eyes close: the feature, half
        //     of it an eye, jumps then (a long blink at 8 fps and 320×240
        //     became a blink as the mouth seemed to move). (Not while one
        //     eye only looks away: an eye state whose open look of one eye
        //     was wrong for seconds, on a real talking clip, left the
        //     mouth unmeasured as long.)
        //     Off (`talk_guard`), nothing is measured.
        if self.settings.talk_guard {
            self.speech.update(gray, add(tr.feature, tr.left.eye_offset), add(tr.feature, tr.right.eye_offset), t, !out.eyes_closed)?;
        }
        out.talking = self.settings.talk_guard && self.speech.talking();
        // 5c. A head AHM reads turned or nodded past what the switch judges
        //     (`SWITCH_POSE_DEG`): as while talking. A nod down and back
        //     moves the forehead against the eyes as a raise does (generated
        //     turning heads: a raise on the way back from 45° down).
        //     Both must say so: AHM's pose (a model of a real face on a
        //     generic head misreads warped and rolled frames: the moved
        //     copies of p1's raises lost 4 of 10 on AHM alone) and the
        //     trackers' nose tip, nearer or further below the point between
        //     the eyes than on the first confirmed frontal frame.
        let nodded = self.ncc_down0.is_some_and(|d0| (tr.nose_down() - d0).abs() > SWITCH_NOD);
        let turned = nodded && self.carry.turned_past(SWITCH_POSE_DEG);
        // 5d. The mouth moving on this frame as in speech, before there has
        //     been enough of it to call talking (after a pause of a second,
        //     the guard needs a fifth of a second's frames), holds the brows
        //     too (below). People lift their brows with the first word
        //     after a pause, as far as a meant raise (a public interview
        //     clip: a click 0.2 s into a phrase after a 1.3 s pause); a
        //     meant raise begins with the mouth still.
        let mouth_moved = self.settings.talk_guard && self.speech.moved_now();
        if out.talking || turned {
            // Talking: a long closure is a blink (a look down while
            // speaking), a wink nothing, and a raise must be seen to start
            // from rest once the talking is over.
            for e in &mut out.events {
                if *e == Event::LongBlink {
                    *e = Event::Blink;
                }
            }
            out.events.retain(|e| !matches!(e, Event::WinkLeft | Event::WinkRight));
        }
        if out.talking || turned || mouth_moved {
            self.brows.talking();
        }
        // 5e. A frame on which the feature, as it is or upright, does not
        //     match as the face does (a hand or a card coming over it) says
        //     nothing of the brows: their state holds, as the eye state's
        //     does. The eyes' closure measured on it is the cover's, and
        //     taken as a new look it let a raise go: a raise the cover came
        //     over was a click on the covered frame (a block over
        //     focus-p2-brows-b mid-raise), where a loss cancels it.
        out.brows_raised = if judged { self.brows.update(brow_dist, eyes_now, out.closure, t, brow_timing, &mut out.events) } else { self.brows.raised() };
        out.brow_lift = self.brows.last_lift();
        out.brow_side_lifts = self.brows.last_side_lifts().unwrap_or_default();
        if let Some(fresh) = self.closed_templates(gray, &mut tr, reliable, out, t, dt)? {
            return Ok(self.start_tracking(fresh));
        }
        tracing::trace!(
            "vision {} t {t:.0} reliable {judged} feature {score:.3} closure {:.2} {:.2} closed {} brow {:?} skull {:?} lift {:.3} raised {} mouth {:?} talking {}",
            frame.index,
            out.closure.0,
            out.closure.1,
            out.eyes_closed,
            brow_dist.map(|b| (b.from_eye * 1000.0).round() / 1000.0),
            brow_dist.map(|b| (b.from_feature * 1000.0).round() / 1000.0),
            out.brow_lift,
            out.brows_raised,
            self.speech.last_activity.map(|a| (a * 1000.0).round() / 1000.0),
            out.talking
        );

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

        // 7. Now and then the face detector checks, on its own thread, that the
        //    trackers are still on the eyes: its answer is compared with where
        //    the eyes were on the frame it looked at. An answer that finds no
        //    face there, or one whose eyes are elsewhere, disagrees: until an
        //    answer agrees again the frames are not reliable (no blink or
        //    raise is decided on them), and two in a row end the track. A
        //    textured cover (a hand, a book) held over the eyes kept the
        //    trackers on its pattern while the head moved on behind it, and
        //    its edges crossing the eye patches gave winks. On every
        //    development clip, its slower and smaller copies and generated
        //    talking, no answer has ever disagreed (worst 0.28 eye distances).
        //    A feature held still while the scene changed is checked on the
        //    whole frame (`vision::still`): there, only a face as large as
        //    the tracked one and elsewhere disagrees; no face, or a smaller
        //    one (a picture, a screen), says nothing.
        tr.still.follow(gray, tr.feature, now_iod, t, out.eyes_closed)?;
        if let Some(answer) = self.faces.answer(t, FACE_ANSWER_MS) {
            if let Some([le, re]) = tr.face_check.take() {
                // Each eye's distance from the detector's, in its eye distances.
                let offs = answer.as_ref().map(|face| [dist(face.le, le), dist(face.re, re)].map(|d| d / face.iod().max(1.0)));
                let off = offs.map(|[l, r]| l.max(r));
                let whole = std::mem::take(&mut tr.still.asked_whole);
                tracing::debug!("vision: the face detector's check{}: {}", if whole { " on the whole frame" } else { "" }, off.map_or("no face".to_string(), |o| format!("{o:.2} eye distances off")));
                // The detector and the trackers agree closely on a frontal
                // face: what AHM is taught from and put back on (`carry`).
                if off.is_some_and(|o| o <= AHM_AGREE) && answer.as_ref().is_some_and(|f| self.face_frontal(f, AHM_FRONTAL, AHM_FRONTAL_NOD)) {
                    self.face_confirmed = Some(t);
                    if let Some(f) = &answer {
                        self.face_down0.get_or_insert(f.nose_offset()[1]);
                    }
                    self.ncc_down0.get_or_insert(tr.nose_down());
                }
                if whole {
                    let agrees = off.is_some_and(|o| o <= DRIFT_MAX);
                    let elsewhere = !agrees && answer.as_ref().is_some_and(|f| f.iod() >= FACE_IOD_RATIO.0 * dist(le, re));
                    // Agreeing, it only clears the strikes: its eyes, from a
                    // smaller copy of the frame, place no single eye again.
                    if agrees {
                        tr.drift_strikes = 0;
                        tr.confirmed = true;
                    }
                    if !elsewhere {
                        return Ok(Phase::Tracking(tr));
                    }
                    tracing::debug!("vision: the feature held still {:.0} ms while the scene changed, and the whole frame's face is elsewhere", tr.still.held_ms(t));
                    tr.still.elsewhere = true;
                }
                tr.drift_strikes = if off.is_some_and(|o| o <= DRIFT_MAX) { 0 } else { tr.drift_strikes + 1 };
                if !tr.confirmed && tr.drift_strikes == 0 {
                    tr.confirmed = true;
                    // A start on a face a hand was still leaving could not
                    // find the anchor's feature; the face is clear now.
                    // (Once: where it is still not there, this track's
                    // feature becomes the anchor, below.)
                    if tr.reanchor {
                        self.keep_feature(gray, &mut tr)?;
                        tr.reanchor = false;
                    }
                }
                // The feature of a track the detector agrees with closely is
                // the one a start after a loss keeps (`keep_feature`).
                if off.is_some_and(|o| o <= AHM_AGREE) && !tr.reanchor && !tr.anchor_taken {
                    self.anchor = Some((tr.feature_t0.clone(), tr.iod0));
                    tr.anchor_taken = true;
                }
                // Nothing is started again while the eyes are closing or
                // shut: templates taken then are of closed eyes, and open eyes
                // would then look shut for seconds, as the eye state's looks
                // taken at a blink's start did (a long blink, a right click,
                // in generated talking).
                let eyes_open = !out.eyes_closed && out.closure.0.max(out.closure.1) < EYE_REARM;
                // One eye off the detector's by more than `EYE_ASTRAY` while
                // the other agrees, answer after answer, is on something
                // else: a glasses rim above the eye (the moving, smaller copy
                // of p1-c: 0.29 to 0.31 eye distances off for its whole 60 s,
                // and none of its 12 blinks seen; a drift that large never
                // ends the track). It is looked for again beside the other
                // eye, where the detector's eye line puts it, and the
                // trackers start again there if it is like an eye.
                if let (Some(face), Some(off)) = (answer.as_ref(), offs) {
                    for k in 0..2 {
                        tr.astray[k] = if off[k] > EYE_ASTRAY && off[1 - k] <= EYE_ASTRAY { tr.astray[k] + 1 } else { 0 };
                    }
                    if let Some(k) = (0..2).find(|&k| tr.astray[k] >= ASTRAY_CHECKS)
                        && eyes_open
                        && tr.drift_strikes == 0
                    {
                        // The count stays until the eye is placed again (or
                        // agrees): a search that finds nothing like an eye
                        // now (a blink, a blurred frame) is tried again at
                        // the next answer, not four answers later.
                        let (good, now, from, to) = if k == 0 { (tr.right.eye, tr.left.eye, face.re, face.le) } else { (tr.left.eye, tr.right.eye, face.le, face.re) };
                        if let Some(m) = self.generic.find_one(gray, k, add(good, sub(to, from)), now_iod)?
                            && m.score >= GENERIC_EYE_FLOOR
                            && dist(m.pos, now) >= EYE_ASTRAY * now_iod / 2.0
                        {
                            tracing::debug!("vision: eye {k} was off the detector's {ASTRAY_CHECKS} times in a row; placed again at {:?} (like an eye {:.2})", m.pos, m.score);
                            tr.astray = [0, 0];
                            let (le, re) = if k == 0 { (m.pos, good) } else { (good, m.pos) };
                            if let Some(fresh) = self.take_templates(gray, le, re, t)? {
                                return Ok(self.start_tracking(fresh));
                            }
                        }
                    }
                    // Both eyes off the detector's the same way, answer after
                    // answer, are on something else that is a pair: the brows
                    // or a glasses rim's top above the eyes (p1-b lit from
                    // behind: 0.27 eye distances above for its whole 60 s, none
                    // of its 11 blinks seen, and a brow "raise" that clicked;
                    // p1-a at 0.4 of its size: 0.35 above for 11 s). The
                    // detector's eyes, each about a tenth of an eye distance
                    // off, are where the trackers start again.
                    tr.pair_astray = if off_the_same_way([le, re], face) { tr.pair_astray + 1 } else { 0 };
                    if tr.pair_astray >= ASTRAY_CHECKS && eyes_open && tr.drift_strikes == 0 {
                        tr.pair_astray = 0;
                        // Each where the generic eye finds it near the
                        // detector's point, or (dark, behind glasses: a match
                        // under `GENERIC_EYE_FLOOR`) at that point itself.
                        let mut found = [face.le, face.re];
                        for (k, at) in found.iter_mut().enumerate() {
                            if let Some(m) = self.generic.find_one(gray, k, *at, now_iod)?
                                && m.score >= GENERIC_EYE_FLOOR
                            {
                                *at = m.pos;
                            }
                        }
                        tracing::debug!("vision: both eyes were off the detector's the same way {ASTRAY_CHECKS} times in a row; placed again at {:?} {:?}", found[0], found[1]);
                        if let Some(fresh) = self.take_templates(gray, found[0], found[1], t)? {
                            return Ok(self.start_tracking(fresh));
                        }
                    }
                }
                if tr.drift_strikes >= DRIFT_STRIKES {
                    // (With the eyes closing, the strikes stay, and the next answer decides.)
                    if answer.is_none() || eyes_open || tr.drift_strikes >= DRIFT_STRIKES_ANYWAY {
                        tracing::debug!("vision: the face detector disagreed {} times in a row; starting the trackers again", tr.drift_strikes);
                        if answer.is_some()
                            && let Some(prepared) = super::face::Prepared::full(gray)?
                            && let Some(face) = self.faces.detect_now(prepared)
                            && let Some(fresh) = self.tracks_from_face(gray, &face, t)?
                        {
                            return Ok(self.start_tracking(fresh));
                        }
                        tracing::debug!("vision: lost: the face detector disagreed and found no face to start from");
                        out.events.push(Event::Lost);
                        tr.disowned = true;
                        return Ok(Phase::Lost { tracks: tr, since: t });
                    }
                }
            }
        } else if self.faces.active()
            && !self.faces.busy()
            // (At once again after a whole-frame check found a face
            // elsewhere, and on trackers not yet confirmed.)
            && (t - tr.last_face_check >= DRIFT_CHECK_MS || tr.still.elsewhere || !tr.confirmed)
            // Not while the eyes close or the brows rise (the trackers
            // wobble then), unless that has lasted a while: eyes that stay
            // "closed" may be a cover's edge crossing them.
            && ((!out.eyes_closed && !out.brows_raised) || t - tr.last_face_check >= UNSURE_CHECK_MS)
        {
            tr.last_face_check = t;
            let centre = mid(tr.left.eye, tr.right.eye);
            let whole = tr.still.wants_whole_frame(gray, centre, now_iod, t)?;
            let prepared = if whole { super::face::Prepared::full(gray)? } else { super::face::Prepared::near(gray, centre, now_iod)? };
            if let Some(prepared) = prepared
                && self.faces.ask(prepared, t)
            {
                tr.face_check = Some([tr.left.eye, tr.right.eye]);
                tr.still.asked_whole = whole;
            }
        }
        Ok(Phase::Tracking(tr))
    }

    /// Whether a feature match of `score` is good enough to decide on:
    /// above `RELIABLE_FEATURE`, and not far below the feature's usual match.
    fn feature_matches(&self, score: f64) -> bool {
        score >= RELIABLE_FEATURE && (!self.feature_score.ready || score >= self.feature_score.value - RELIABLE_DROP)
    }

    /// How the feature now matches its first template with the face's roll
    /// and size since then undone (from the eyes' line and distance).
    fn upright_match(&mut self, gray: &Mat, tr: &Tracks) -> Result<f64, VisionError> {
        let d = sub(tr.left.eye, tr.right.eye);
        let scale = (d[0].hypot(d[1]) / tr.iod0).clamp(IOD_RATIO.0, IOD_RATIO.1);
        let turn = d[1].atan2(d[0]) - tr.tilt0;
        let (w, h) = (tr.feature_t0.cols(), tr.feature_t0.rows());
        let (c, s) = (scale * turn.cos(), scale * turn.sin());
        let (u, v) = (f64::from(w) / 2.0, f64::from(h) / 2.0);
        // Template pixel (x, y) is taken from the frame at feature + R·scale·((x, y) − centre).
        let m = [c, -s, tr.feature[0] - c * u + s * v, s, c, tr.feature[1] - s * u - c * v];
        super::warp_patch(gray, m, Size::new(w, h), &mut self.warp, &mut self.patch)?;
        Ok(ncc::correlate(&self.patch, &tr.feature_t0, &mut self.result)?)
    }

    /// Eye templates taken from closed eyes (tracking started during a
    /// blink, as a clip or a session may): they match the person's blinks
    /// better than their open eyes, and on open eyes the tracked eye wanders
    /// (to the rim of black-framed glasses at 7.5 fps). Compared at the end
    /// of each closure; once the eyes are open again (back within
    /// `EYE_REARM` of their open look), every template is taken afresh there.
    fn closed_templates(&mut self, gray: &Mat, tr: &mut Tracks, reliable: bool, out: &Observation, t: f64, dt: f64) -> Result<Option<Tracks>, VisionError> {
        if out.eyes_closed {
            for side in [&mut tr.left, &mut tr.right] {
                side.closed_match = Some(side.closed_match.map_or(side.eye_score, |m| m.max(side.eye_score)));
            }
            return Ok(None);
        }
        // The first open frame after a closure.
        if let (Some(l), Some(r)) = (tr.left.closed_match.take(), tr.right.closed_match.take()) {
            let closed = tr.open_ms >= OPEN_MATCH_MS && l >= tr.left.open_match.value + CLOSED_TEMPLATE_MARGIN && r >= tr.right.open_match.value + CLOSED_TEMPLATE_MARGIN;
            if closed {
                tracing::debug!(
                    "vision: the eye templates match closed eyes better ({l:.2} {r:.2}) than open ones ({:.2} {:.2}); taking them again",
                    tr.left.open_match.value,
                    tr.right.open_match.value
                );
            }
            tr.retake |= closed;
            return Ok(None);
        }
        let at_rest = out.closure.0.max(out.closure.1) < EYE_REARM;
        if !(reliable && at_rest) {
            return Ok(None);
        }
        if tr.retake {
            let (le, re) = self.generic.find(gray, tr.left.eye, tr.right.eye)?;
            return self.take_templates(gray, le, re, t);
        }
        for side in [&mut tr.left, &mut tr.right] {
            side.open_match.update(side.eye_score, dt, OPEN_MATCH_TAU_MS);
        }
        tr.open_ms += dt;
        Ok(None)
    }

    /// Tracks for a detected face: the eyes are found near its eye points
    /// (the irises whose surroundings best mirror each other). `None` when the
    /// face is too small or its eyes cannot be found.
    pub(super) fn tracks_from_face(&mut self, gray: &Mat, face: &Face, t: f64) -> Result<Option<Tracks>, VisionError> {
        let iod = face.iod();
        if iod < super::params::MIN_IOD_PX {
            return Ok(None);
        }
        // The detector finds a face around eyes that a hand or a card
        // covers: where it puts them there must be something to see.
        let (w, h) = (px(EYE_TEMPLATE.0 * iod), px(EYE_TEMPLATE.1 * iod));
        for eye in [face.le, face.re] {
            if ncc::spread(gray, eye, w, h)?.is_some_and(|s| s < UNIFORM_EYE_SPREAD) {
                return Ok(None);
            }
        }
        let (le, re) = self.generic.find(gray, face.le, face.re)?;
        // Nor on a pattern (a hand's creases, a book) there: the detector is
        // unsure of a face whose eyes are covered, and what lies at its eye
        // points must look like eyes. Together the two checks refused every
        // start on generated faces whose eyes patterned covers hid (each
        // alone let some through); on the development clips, their copies
        // and generated talking, the least face score of a start is 0.97
        // and the least mean correlation with the generic eye 0.505.
        let [a, b] = self.generic.last_scores;
        if face.score < FACE_START_SCORE || f64::midpoint(a, b) < GENERIC_EYE_FLOOR {
            tracing::debug!("vision: no track from a face of score {:.2} whose eyes correlate {a:.2} and {b:.2} with an eye", face.score);
            return Ok(None);
        }
        let ratio = dist(le, re) / iod;
        if !(super::params::FACE_IOD_RATIO.0..=super::params::FACE_IOD_RATIO.1).contains(&ratio) {
            return Ok(None);
        }
        self.take_templates(gray, le, re, t)
    }
}

/// Whether both tracked eyes `ours` (left, right) are more than
/// `EYE_ASTRAY` off the detector's, the same way (their offsets, in its eye
/// distances, within `PAIR_ASTRAY_AGREE` of each other).
fn off_the_same_way(ours: [Point; 2], face: &Face) -> bool {
    let f = face.iod().max(1.0);
    let v = [sub(ours[0], face.le), sub(ours[1], face.re)].map(|d| [d[0] / f, d[1] / f]);
    dist(v[0], v[1]) <= PAIR_ASTRAY_AGREE && v.iter().all(|d| d[0].hypot(d[1]) > EYE_ASTRAY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::imgproc;

    #[test]
    fn the_feature_window_grows_with_the_frame_interval_within_bounds() {
        let iod = 60.0;
        let at30 = Tracks::feature_radius(iod, 33.3);
        let at7 = Tracks::feature_radius(iod, 140.0);
        assert!((at30 - FEATURE_SEARCH_MIN * iod).abs() < 1e-9, "30 fps: the minimum ({at30})");
        assert!(at7 > 2.0 * at30, "7 fps: a head moves farther between frames ({at7} vs {at30})");
        assert!((Tracks::feature_radius(iod, 1000.0) - FEATURE_SEARCH_MAX * iod).abs() < 1e-9);
        assert!((Tracks::feature_radius(2.0 * iod, 140.0) - 2.0 * at7).abs() < 1e-9, "scales with the eye distance");
    }

    use crate::capture::Frame;
    use crate::lab::synth::{FaceAsset, Generator, SynthConfig, default_photo};
    use crate::vision::{Observation, Vision, VisionSettings, face::FaceDetector, haar::EyeConfirmer};

    /// Runs `frames` of `cfg` through `vision`; `tamper` may change the vision before each frame.
    fn run(
        vision: &mut Vision,
        cfg: &SynthConfig,
        frames: std::ops::Range<usize>,
        mut tamper: impl FnMut(usize, &Frame, &crate::lab::labels::LabelRow, &mut Vision),
    ) -> Vec<(Observation, crate::lab::labels::LabelRow)> {
        let mut g = Generator::new(FaceAsset::load(&default_photo()).expect("photo"), cfg.clone()).expect("generator");
        let mut frame = Frame::empty();
        let mut out = Vec::new();
        for i in frames {
            let row = g.render(i, &mut frame.color).expect("render");
            frame.update_gray().expect("gray");
            frame.index = i as u64;
            frame.t_ms = g.t_ms(i);
            tamper(i, &frame, &row, vision);
            let mut obs = Observation::default();
            vision.observe(&frame, &mut obs);
            out.push((obs, row));
        }
        out
    }

    fn eye_error(obs: &Observation, row: &crate::lab::labels::LabelRow) -> f64 {
        let (le, re) = (row.le.expect("le"), row.re.expect("re"));
        let iod = dist(le, re);
        dist(obs.le.expect("tracked le"), le).max(dist(obs.re.expect("tracked re"), re)) / iod
    }

    /// A head that rolls 12° and leans in by 15 %: the feature's template
    /// matches it less, the same template with the roll and size undone as
    /// before. Where the face is covered, neither does.
    #[test]
    fn a_rolled_face_still_matches_its_feature_upright_and_a_covered_one_does_not() {
        // A face that holds still (no motion, roll, size change or script).
        let cfg = SynthConfig { motion_px: (0.0, 0.0), roll_deg: 0.0, scale_var: 0.0, script: Vec::new(), path: Vec::new(), ..SynthConfig::demo() };
        let mut vision = Vision::new(VisionSettings::default());
        run(&mut vision, &cfg, 0..40, |_, _, _, _| {});
        let Phase::Tracking(tr) = &vision.phase else { panic!("not tracking after 40 frames") };
        let mut tr = tr.clone();
        let mut g = Generator::new(FaceAsset::load(&default_photo()).expect("photo"), cfg).expect("generator");
        let mut frame = Frame::empty();
        g.render(40, &mut frame.color).expect("render");
        frame.update_gray().expect("gray");
        let centre = crate::events::midpoint(tr.left.eye, tr.right.eye);
        let turn = |angle: f64, scale: f64, out: &mut Mat| {
            let m = imgproc::get_rotation_matrix_2d(opencv::core::Point2f::new(centre[0] as f32, centre[1] as f32), angle, scale).expect("matrix");
            imgproc::warp_affine(&frame.gray, out, &m, frame.gray.size().expect("size"), imgproc::INTER_LINEAR, opencv::core::BORDER_REPLICATE, opencv::core::Scalar::default()).expect("warp");
        };
        let mut rolled = Mat::default();
        turn(12.0, 1.15, &mut rolled);
        // Where the trackers put the eyes and feature on the rolled frame (they follow the face).
        let (a, k) = ((-12.0f64).to_radians(), 1.15);
        let moved = |p: Point| {
            let d = sub(p, centre);
            [centre[0] + k * (a.cos() * d[0] - a.sin() * d[1]), centre[1] + k * (a.sin() * d[0] + a.cos() * d[1])]
        };
        (tr.left.eye, tr.right.eye, tr.feature) = (moved(tr.left.eye), moved(tr.right.eye), moved(tr.feature));
        let (w, h) = (tr.feature_t0.cols(), tr.feature_t0.rows());
        let mut plain = Mat::default();
        assert!(ncc::extract(&rolled, tr.feature, w, h, &mut plain).expect("patch"));
        let as_is = ncc::correlate(&plain, &tr.feature_t0, &mut vision.result).expect("ncc");
        let upright = vision.upright_match(&rolled, &tr).expect("upright");
        assert!(upright > 0.95 && upright > as_is + 0.08, "upright {upright:.3}, as it is {as_is:.3}");
        // A flat cover over the face: nothing to match.
        let covered = Mat::new_rows_cols_with_default(rolled.rows(), rolled.cols(), opencv::core::CV_8UC1, opencv::core::Scalar::all(128.0)).expect("cover");
        assert!(vision.upright_match(&covered, &tr).expect("upright") < RELIABLE_FEATURE);
    }

    #[test]
    fn the_face_detector_starts_tracking_at_once_without_a_blink() {
        let mut cfg = SynthConfig::demo();
        cfg.script.clear();
        let mut v = Vision::new(VisionSettings::default());
        let seen = run(&mut v, &cfg, 0..10, |_, _, _, _| {});
        let first = seen.iter().position(|(o, _)| o.state == crate::events::TrackState::Tracking).expect("tracking");
        assert!(first <= 2, "tracking from frame {first}");
        for (o, row) in &seen[first..] {
            assert!(eye_error(o, row) < 0.08, "{:?} vs {:?} {:?}", (o.le, o.re), row.le, row.re);
        }
    }

    #[test]
    fn without_the_face_model_a_blink_starts_tracking_as_before() {
        let cfg = SynthConfig::demo();
        let mut v = Vision::with_models(VisionSettings::default(), FaceDetector::unavailable(), EyeConfirmer::load());
        let seen = run(&mut v, &cfg, 0..80, |_, _, _, _| {});
        let first = seen.iter().position(|(o, _)| o.state == crate::events::TrackState::Tracking).expect("tracking after the first blink");
        let blink = seen.iter().position(|(_, row)| row.eyes_closed).expect("a blink in the clip");
        assert!(first > blink, "started at {first}, before the first blink at {blink}");
        let (o, row) = &seen[79];
        assert!(eye_error(o, row) < 0.1);
    }

    /// Tracking that started during a blink has templates of closed eyes
    /// (zju-s12 starts so; at 7.5 fps its right eye then wandered onto the
    /// glasses' rim between blinks). Here the templates are taken from the
    /// closed eyes of a blink at 1 s, at 8 fps: after the next blink they are
    /// taken again from the open eyes, and they match those.
    #[test]
    fn templates_taken_from_closed_eyes_are_taken_again_after_a_blink() {
        use crate::lab::synth::{Action, ScriptEvent};
        let mut cfg = SynthConfig::demo();
        cfg.fps = 8.0;
        cfg.duration_s = 4.5;
        cfg.script = [1000.0, 2500.0].iter().map(|&start_ms| ScriptEvent { start_ms, action: Action::Blink { closed_ms: 150.0 } }).collect();
        let match_open = |v: &Vision, gray: &Mat, row: &crate::lab::labels::LabelRow| {
            let Phase::Tracking(tr) = &v.phase else { panic!("not tracking") };
            let mut patch = Mat::default();
            let mut result = Mat::default();
            let (w, h) = (tr.left.eye_tmpl.cols(), tr.left.eye_tmpl.rows());
            assert!(ncc::extract(gray, row.le.expect("le"), w, h, &mut patch).expect("extract"));
            ncc::correlate(&patch, &tr.left.eye_tmpl, &mut result).expect("correlate")
        };
        let mut v = Vision::new(VisionSettings::default());
        let (mut tampered, mut before, mut after) = (false, 1.0, 0.0);
        run(&mut v, &cfg, 0..cfg.frames(), |i, frame, row, v| {
            if !tampered && row.eyes_closed && frame.t_ms >= 1000.0 {
                let tracks = v.take_templates(&frame.gray, row.le.expect("le"), row.re.expect("re"), frame.t_ms).expect("templates").expect("inside");
                v.phase = Phase::Tracking(Box::new(tracks));
                tampered = true;
            } else if tampered && !row.eyes_closed && frame.t_ms < 2400.0 {
                before = f64::min(before, match_open(v, &frame.gray, row));
            } else if i + 1 == cfg.frames() {
                after = match_open(v, &frame.gray, row);
            }
        });
        assert!(tampered, "the blink at 1 s was seen closed");
        assert!(before < 0.8, "the closed eyes' template matches the open eyes at {before:.2}");
        assert!(after > 0.9, "taken again from open eyes: {after:.2}");
    }

    #[test]
    fn the_face_detector_puts_drifted_trackers_back_on_the_eyes() {
        let mut cfg = SynthConfig::demo();
        cfg.script.clear();
        cfg.duration_s = 6.0;
        let mut v = Vision::new(VisionSettings::default());
        // After one second, every tracker locks onto what lies 0.4 eye distances
        // below and beside the face's points, as a slow drift would leave them.
        let seen = run(&mut v, &cfg, 0..cfg.frames(), |i, frame, row, v| {
            if i == 30 {
                let (le, re) = (row.le.expect("le"), row.re.expect("re"));
                let shift = [0.4 * dist(le, re), 0.3 * dist(le, re)];
                let tracks = v.take_templates(&frame.gray, add(le, shift), add(re, shift), frame.t_ms).expect("templates").expect("inside");
                v.phase = Phase::Tracking(Box::new(tracks));
            }
        });
        assert!(eye_error(&seen[35].0, &seen[35].1) > 0.3, "the tamper moved the eyes");
        assert!(seen.iter().all(|(o, _)| !o.events.contains(&crate::events::Event::Lost)), "put back by the drift check, not by a loss");
        let last = seen.last().expect("frames");
        assert!(eye_error(&last.0, &last.1) < 0.08, "back on the eyes: {}", eye_error(&last.0, &last.1));
    }

    /// The rule that puts eyes tracked on the brows back (p1-b lit from
    /// behind: both eyes 0.27 eye distances above the detector's, for a
    /// minute): both eyes off by more than `EYE_ASTRAY`, the same way.
    #[test]
    fn eyes_off_the_detectors_the_same_way_are_told_from_other_offsets() {
        let face = Face { bbox: [0.0, 0.0, 100.0, 100.0], le: [132.0, 100.0], re: [68.0, 100.0], nose: [100.0, 130.0], score: 0.9 };
        let at = |l: Point, r: Point| off_the_same_way([add(face.le, l), add(face.re, r)], &face);
        let iod = 64.0;
        // Both 0.27 up: the brows.
        assert!(at([0.0, -0.27 * iod], [0.0, -0.27 * iod]));
        // Both up, one a little more and to the side (within 0.15 of each other).
        assert!(at([0.05 * iod, -0.25 * iod], [-0.03 * iod, -0.33 * iod]));
        // One eye alone off (the single-eye rule's case), or both but a
        // different way each (the detector's own error), or both a little.
        assert!(!at([0.0, -0.27 * iod], [0.0, 0.0]));
        assert!(!at([0.25 * iod, 0.0], [-0.25 * iod, 0.0]));
        assert!(!at([0.0, -0.15 * iod], [0.0, -0.15 * iod]));
    }
}
