//! Searching and initializing: the face detector finds the face and the eyes
//! are found near its eye points; without it (no model, or no face seen),
//! BlinkLink waits for a natural blink to show an eye pair, confirmed by the
//! eye cascade, and the eyes are taken once they reopen.

use opencv::core::Mat;
use opencv::prelude::*;

use super::blinklink::{self, EyePair};
use super::track::Tracks;
use super::params::{
    AHM_RESTART_AGREE, AHM_RESTART_DEG, AHM_RESTART_SHARE, BROW_ABOVE_EYE, BROWS_UP_MIN_SHIFT, FEATURE_FLOOR, FEATURE_TEMPLATE, INIT_GIVE_UP_MS, INIT_WAIT_MS, KEEP_FEATURE_NCC,
    KEEP_FEATURE_NEAR, MAX_TILT_DEG, MIRROR_EYE_NCC, NARROWER_PAIR,
};
use super::{Init, Observation, Phase, Vision, VisionError, add, axes, haar, lerp, ncc, px, sub};
use crate::capture::Frame;
use crate::events::{Event, Point, dist, midpoint as mid};

/// The facial motion that found the eyes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cue {
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

impl Vision {
    /// One frame without a face: the detector looks for one; where it finds
    /// none, BlinkLink looks for a blink.
    pub(super) fn search(&mut self, frame: &Frame, t: f64, out: &mut Observation) -> Result<Phase, VisionError> {
        if let Some(phase) = self.track_detected_face(frame, t, out)? {
            return Ok(phase);
        }
        let (pair, cue) = self.motion_pair(&frame.gray)?;
        Self::start_init(&frame.gray, pair, cue, t, out)
    }

    /// Tracking on the face the detector found, if any. The detector looks
    /// at a frame on its own thread and answers on the next frame; the eyes
    /// are then found near its points in the frame at hand. After a loss,
    /// the feature stays where the pointer's was, where it is clearly there
    /// (`keep_feature`).
    pub(super) fn track_detected_face(&mut self, frame: &Frame, t: f64, out: &mut Observation) -> Result<Option<Phase>, VisionError> {
        if !self.faces.active() {
            return Ok(None);
        }
        if let Some(Some(face)) = self.faces.answer(t, 0.0)
            && (!self.carry.turned_past(AHM_RESTART_DEG) || self.face_frontal(&face, AHM_RESTART_SHARE, AHM_RESTART_SHARE))
            && let Some(mut tracks) = self.tracks_from_face(&frame.gray, &face, t)?
            // Nor where AHM, sure of the head it carries, puts it elsewhere:
            // templates taken from a face turned 12° sat 0.23 eye distances
            // below the point between the eyes, where AHM had it 0.03 off.
            && !self.carry.disagrees(tracks.pose_points[0].2, tracks.iod0, AHM_RESTART_AGREE)
        {
            out.events.push(Event::Init);
            // BlinkLink starts afresh if tracking is lost later.
            self.blink.reset();
            self.keep_feature(&frame.gray, &mut tracks)?;
            return Ok(Some(self.start_tracking(tracks)));
        }
        if !self.faces.busy()
            && let Some(prepared) = super::face::Prepared::full(&frame.gray)?
        {
            self.faces.ask(prepared, t);
        }
        Ok(None)
    }

    /// A start after a loss keeps the feature the pointer was following
    /// (`Vision::anchor`): a feature taken from the eyes found now may sit a
    /// few pixels elsewhere on the face (after a hand passed over
    /// focus-p1-c, 0.1 eye distances off: the pointer crossed the screen at
    /// full speed and stayed in its corner). The anchor's template is looked
    /// for near the new feature; where it is clearly there, the new feature
    /// is put on it and everything placed from the feature moves with it.
    /// Where it is not (a hand still leaving the face), it is tried again
    /// once the face detector agrees with the start (`Tracks::reanchor`).
    /// (Not on the restarts that place the eyes again while tracking: their
    /// new feature is the better one.)
    pub(super) fn keep_feature(&mut self, gray: &Mat, fresh: &mut Tracks) -> Result<(), VisionError> {
        let Some((anchor, iod0)) = self.anchor.as_ref() else { return Ok(()) };
        // (Not in the new track's eye distances: a start on a face a hand
        // was leaving had one eye misplaced, and 0.75 or 1.2 times the
        // anchor's. The anchor's template matches only a face of much its size.)
        let r = px(KEEP_FEATURE_NEAR * iod0);
        let Some(m) = ncc::search(gray, anchor, fresh.feature, r, r, &mut self.result)? else {
            fresh.reanchor = true;
            return Ok(());
        };
        if m.score < KEEP_FEATURE_NCC {
            fresh.reanchor = true;
            tracing::trace!("vision: the anchor's feature is not clearly near the start's ({:.2} at {:.2} eye distances)", m.score, dist(m.pos, fresh.feature) / iod0);
            return Ok(());
        }
        let d = sub(m.pos, fresh.feature);
        tracing::debug!("vision: the start keeps the anchor's feature, {:.2} eye distances from its own (correlation {:.2})", dist(m.pos, fresh.feature) / iod0, m.score);
        fresh.feature = m.pos;
        fresh.reanchor = false;
        // (The anchor's own template: this is its feature.)
        fresh.anchor_taken = true;
        anchor.copy_to(&mut fresh.feature_t0)?;
        anchor.copy_to(&mut fresh.feature_tmpl)?;
        for side in [&mut fresh.left, &mut fresh.right] {
            side.eye_offset = sub(side.eye_offset, d);
        }
        for (_, offset, _) in &mut fresh.pose_points {
            *offset = sub(*offset, d);
        }
        Ok(())
    }

    /// Feeds BlinkLink and confirms its pair with the eye cascade on the frame
    /// before the motion (open eyes) or this one. A pair that is not eyes may
    /// be the brows rising: then eyes found below it count, marked as not from a blink.
    pub(super) fn motion_pair(&mut self, gray: &Mat) -> Result<(Option<EyePair>, Cue), VisionError> {
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

    pub(super) fn start_init(gray: &Mat, pair: Option<EyePair>, cue: Cue, t: f64, out: &mut Observation) -> Result<Phase, VisionError> {
        let Some(pair) = pair else {
            return Ok(Phase::Searching);
        };
        let iod = pair.iod();
        let m = mid(pair.le, pair.re);
        let mut mid_tmpl = Mat::default();
        if !ncc::extract(gray, m, px(FEATURE_TEMPLATE.0 * iod), px(FEATURE_TEMPLATE.1 * iod), &mut mid_tmpl)? {
            return Ok(Phase::Searching);
        }
        // The gesture that found the eyes counts like any other: a blink, or brows going up.
        match cue {
            Cue::Blink => out.events.push(Event::Blink),
            Cue::BrowsUp => out.events.push(Event::BrowRaise),
            Cue::BrowsMoved | Cue::Unconfirmed => {}
        }
        Ok(Phase::Initializing(Box::new(Init { pair, since: t, mid_tmpl, mid: m, from_blink: cue == Cue::Blink })))
    }

    /// Follows the head while the eyes reopen after the blink that found them, then takes the templates.
    pub(super) fn initialize(&mut self, frame: &Frame, init: Init, t: f64, out: &mut Observation) -> Result<Phase, VisionError> {
        // A start that no blink confirmed (motion: a hand taken away from the
        // face, brows) gives way to the face detector, which would otherwise
        // wait until it ends, up to `INIT_GIVE_UP_MS`.
        if !init.from_blink
            && let Some(phase) = self.track_detected_face(frame, t, out)?
        {
            return Ok(phase);
        }
        let gray = &frame.gray;
        // A pair seen while initializing would be ignored: only keep BlinkLink's previous frame current.
        let _ = self.blink.feed(gray)?;
        gray.copy_to(&mut self.prev_gray)?;
        let Init { pair, since, mid_tmpl, mid: m, from_blink } = init;
        let iod = pair.iod();
        let r = px(super::params::FEATURE_SEARCH_MIN * iod);
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
        let open = t - since >= INIT_WAIT_MS && self.confirm.is_eye(gray, pair.le, iod_now)? && self.confirm.is_eye(gray, pair.re, iod_now)?;
        if !open {
            if t - since > INIT_GIVE_UP_MS {
                return Ok(Phase::Searching);
            }
            return Ok(Phase::Initializing(Box::new(Init { pair, since, mid_tmpl, mid: found.pos, from_blink })));
        }
        let Some((le, re)) = self.eyes_of_pair(gray, &pair)? else {
            return Ok(Phase::Searching);
        };
        match self.take_templates(gray, le, re, t)? {
            Some(mut tracks) => {
                out.events.push(Event::Init);
                // Only a start by a clear blink confirms the track; any other is replaced at the first blink.
                tracks.provisional = !from_blink;
                self.keep_feature(gray, &mut tracks)?;
                Ok(self.start_tracking(tracks))
            }
            None => Ok(Phase::Searching),
        }
    }

    /// The eye centres of a blink's pair once the eyes are open. Where the eye
    /// cascade finds both eyes, its boxes are centred on them (motion blobs
    /// sit on the lids): each eye is the iris nearest its box. Otherwise the
    /// blobs' mirror-alike iris pair is used.
    fn eyes_of_pair(&mut self, gray: &Mat, pair: &EyePair) -> Result<Option<(Point, Point)>, VisionError> {
        let iod0 = pair.iod();
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
        Ok((iod >= 0.8 * iod0 && iod <= 1.25 * iod0).then_some((le, re)))
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
