//! Pose: head yaw, pitch and roll from the tracked points.
//!
//! PLACEHOLDER (foundation issue): there is no estimator yet, so every frame has
//! no pose (`null` in the trace). The head-pose issue replaces this with the
//! Specialized Mappings Architecture.

use serde::{Deserialize, Serialize};

use crate::vision::Observation;

/// Head pose in degrees, with the signs of `../shared/data/README.md`:
/// yaw > 0 turns the nose to the image right, pitch > 0 is nose up,
/// roll > 0 tilts the head clockwise on screen.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Pose {
    pub yaw: f64,
    pub pitch: f64,
    pub roll: f64,
}

/// The pose stage.
#[derive(Debug, Default)]
pub struct PoseEstimator;

impl PoseEstimator {
    /// Estimates the pose. Placeholder: always `None` (see the module docs).
    #[must_use]
    pub fn estimate(&mut self, _obs: &Observation) -> Option<Pose> {
        None
    }
}
