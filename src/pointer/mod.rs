//! Pointer: from the tracked feature (or pose) to a screen position.
//!
//! PLACEHOLDER (foundation issue): the mapping does not move the pointer yet. It
//! holds the pointer where it starts (the screen centre) and reports that
//! position, so the trace's `pointer` field is always filled. The pointer issue
//! replaces this with the relative, calibrated-absolute and pose mappings.

use serde::{Deserialize, Serialize};

use crate::events::Point;
use crate::pose::Pose;
use crate::vision::Observation;

/// Pointer settings (the profile's `[pointer]` table).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PointerSettings {
    /// The desktop size in pixels that the pointer maps onto.
    pub screen_width: u32,
    pub screen_height: u32,
}

impl Default for PointerSettings {
    fn default() -> Self {
        Self { screen_width: 1920, screen_height: 1080 }
    }
}

/// The pointer stage.
#[derive(Debug)]
pub struct PointerMapper {
    pos: Point,
}

impl PointerMapper {
    #[must_use]
    pub fn new(settings: &PointerSettings) -> Self {
        Self { pos: [f64::from(settings.screen_width) / 2.0, f64::from(settings.screen_height) / 2.0] }
    }

    /// Maps one frame's observation to a pointer position. Placeholder: holds still.
    #[must_use]
    pub fn map(&mut self, _obs: &Observation, _pose: Option<&Pose>, _t_ms: f64) -> Point {
        self.pos
    }
}
