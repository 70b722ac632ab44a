//! Switch: from gesture events to actions (clicks, drags, pause, keys).
//!
//! PLACEHOLDER (foundation issue): no trigger is bound yet, so this stage never
//! emits a click or a press. The pointer issue replaces it with bindings and the
//! safety rules (startup grace, cooldown, rate limit, release on loss).

use crate::events::{Event, Point};
use crate::output::Command;
use crate::vision::Observation;

/// The switch stage.
#[derive(Debug, Default)]
pub struct SwitchDecider;

impl SwitchDecider {
    /// Decides this frame's commands and adds the action events to `events`.
    /// Placeholder: only moves the pointer; never clicks.
    pub fn decide(&mut self, _obs: &Observation, pointer: Point, _t_ms: f64, commands: &mut Vec<Command>, _events: &mut Vec<Event>) {
        commands.push(Command::MoveTo { x: pointer[0], y: pointer[1] });
    }
}
