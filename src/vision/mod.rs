//! Vision: from a frame to an [`Observation`] of the eyes, brows and pointer feature.
//!
//! PLACEHOLDER (foundation issue): this stage does not look at the image yet. It
//! reports `searching` on every frame, with no positions and no events, so that
//! the pipeline, trace and replay can be built and tested end to end. The vision
//! issue replaces it with blink self-initialization and NCC trackers. Because it
//! never reports `tracking`, nothing downstream can click.

use serde::{Deserialize, Serialize};

use crate::capture::Frame;
use crate::events::{Event, Point, TrackState};

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
    pub eyes_closed: bool,
    pub brows_raised: bool,
    /// Vision events on this frame (blinks, winks, brow raises, init, lost).
    pub events: Vec<Event>,
    /// 0..1: how much the trackers trust this frame.
    pub confidence: f64,
}

/// Vision settings (the profile's `[vision]` table).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VisionSettings {
    /// Minimum duration of a voluntary long blink, in milliseconds.
    pub long_blink_ms: f64,
}

impl Default for VisionSettings {
    fn default() -> Self {
        Self { long_blink_ms: 600.0 }
    }
}

/// The vision stage.
#[derive(Debug, Default)]
pub struct Vision {
    settings: VisionSettings,
}

impl Vision {
    #[must_use]
    pub fn new(settings: VisionSettings) -> Self {
        Self { settings }
    }

    /// The settings in force.
    #[must_use]
    pub fn settings(&self) -> &VisionSettings {
        &self.settings
    }

    /// Observes one frame. Placeholder: always `searching` (see the module docs).
    pub fn observe(&mut self, _frame: &Frame, out: &mut Observation) {
        out.state = TrackState::Searching;
        out.le = None;
        out.re = None;
        out.lb = None;
        out.rb = None;
        out.feature = None;
        out.eyes_closed = false;
        out.brows_raised = false;
        out.events.clear();
        out.confidence = 0.0;
    }
}
