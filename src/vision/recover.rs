//! Recovery after a loss, with no hand needed: the face detector finds the
//! face again; without it, the stored templates are looked for (near where
//! the face was, then everywhere), or the next natural blink starts again.

use opencv::core::{Mat, Size};
use opencv::imgproc;
use opencv::prelude::*;

use super::params::{AHM_RESTART_DEG, EYE_SEARCH, GENERIC_EYE_FLOOR, POSITION_FLOOR, REDETECT_EVERYWHERE_MS, REDETECT_NCC, REDETECT_NEAR, UNIFORM_EYE_SPREAD};
use super::track::Tracks;
use super::{Observation, Phase, Vision, VisionError, add, ncc, px};
use crate::capture::Frame;
use crate::events::Event;

impl Vision {
    pub(super) fn recover(&mut self, frame: &Frame, mut tr: Box<Tracks>, since: f64, t: f64, out: &mut Observation) -> Result<Phase, VisionError> {
        let gray = &frame.gray;
        if let Some(phase) = self.track_detected_face(frame, t, out)? {
            return Ok(phase);
        }
        let (pair, cue) = self.motion_pair(gray)?;
        // While AHM reads the head turned away, nothing but a frontal face
        // the detector finds starts the templates again (a blink or the
        // stored templates on a turned face placed them 0.15–0.2 eye
        // distances off for the next seconds: generated turning heads).
        if self.carry.turned_past(AHM_RESTART_DEG) {
            return Ok(Phase::Lost { tracks: tr, since });
        }
        if pair.is_some() {
            return Self::start_init(gray, pair, cue, t, out);
        }
        // Templates the face detector disowned are of something else (a
        // start on a turned or covered face): the detector or a blink starts
        // again. Back from a 45° nod of a generated head, a start 1.8 eye
        // distances off the face was found again from its templates four
        // times in 5 s.
        if tr.disowned {
            return Ok(Phase::Lost { tracks: tr, since });
        }
        let iod = tr.iod0;
        let r = px(REDETECT_NEAR * iod);
        let mut found = ncc::search(gray, &tr.feature_t0, tr.feature, r, r, &mut self.result)?.filter(|m| m.score >= REDETECT_NCC);
        // The face detector has already looked everywhere.
        if found.is_none() && !self.faces.active() && t - since > REDETECT_EVERYWHERE_MS {
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
                // An eye with nothing to see (still covered) is no eye.
                Some(e) if e.score >= POSITION_FLOOR && !ncc::spread(gray, e.pos, side.eye_tmpl.cols(), side.eye_tmpl.rows())?.is_some_and(|s| s < UNIFORM_EYE_SPREAD) => side.eye = e.pos,
                _ => ok = false,
            }
        }
        // And they must look like eyes: the feature's template matched a
        // hand held over the eyes part way (0.71), and the eyes' templates
        // its pattern.
        if ok && self.generic.active() {
            self.generic.find(gray, tr.left.eye, tr.right.eye)?;
            let [a, b] = self.generic.last_scores;
            ok = f64::midpoint(a, b) >= GENERIC_EYE_FLOOR;
        }
        if !ok {
            return Ok(Phase::Lost { tracks: tr, since });
        }
        tracing::debug!("vision: found again from the stored templates at {:?} (correlation {:.2})", m.pos, m.score);
        tr.feature = m.pos;
        tr.feature_t0.copy_to(&mut tr.feature_tmpl)?;
        tr.velocity = [0.0, 0.0];
        tr.weak_since = None;
        // Found on a hand held over the face part way as well (0.71, 1.6 eye
        // distances above the eyes): as any start, it is confirmed by the
        // face detector before the pointer follows it.
        tr.confirmed = !self.faces.active();
        out.events.push(Event::Init);
        self.eyes.restart();
        Ok(Phase::Tracking(tr))
    }

    /// The template anywhere in the frame, at half resolution, then refined at full resolution.
    fn search_everywhere(&mut self, gray: &Mat, tmpl: &Mat) -> Result<Option<ncc::Match>, VisionError> {
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
