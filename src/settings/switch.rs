//! The `[switch]` table: what each gesture does, and the safety limits.

use serde::{Deserialize, Serialize};

use super::check;
use crate::command::Chord;

/// What a trigger does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    #[default]
    None,
    ClickLeft,
    ClickRight,
    ClickMiddle,
    DoubleClick,
    /// Press the left button; the next trigger releases it.
    DragToggle,
    /// Head motion scrolls until the next trigger.
    ScrollMode,
    /// Pause or resume.
    Pause,
    /// Open the navigation menu.
    OpenMenu,
    /// Make the current head position the neutral one.
    Recenter,
    /// Move to the next monitor (absolute mapping covers it; the pointer jumps to its centre).
    NextMonitor,
    /// Point scanning: a line sweeps across the screen, then down; each
    /// press stops one, and the press after clicks where they cross.
    PointScan,
    /// A key or chord, e.g. `{ key = "ctrl+c" }`.
    Key(Chord),
}

impl Action {
    /// Whether the action presses a mouse button (subject to the click rules).
    #[must_use]
    pub fn clicks(&self) -> bool {
        matches!(self, Self::ClickLeft | Self::ClickRight | Self::ClickMiddle | Self::DoubleClick | Self::DragToggle)
    }
}

/// The profile's `[switch]` table: bindings and safety limits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SwitchSettings {
    pub brow_raise: Action,
    pub long_blink: Action,
    pub wink_left: Action,
    pub wink_right: Action,
    pub dwell: Action,
    /// Holding the brows up this long pauses or resumes (ms).
    pub pause_raise_ms: f64,
    /// No action for this long after tracking starts or comes back (ms).
    pub startup_grace_ms: f64,
    /// A trigger this soon after an action is ignored (ms).
    pub cooldown_ms: f64,
    /// At most this many clicks in any minute.
    pub max_clicks_per_minute: u32,
    /// Scroll mode: pointer pixels per scroll step.
    pub scroll_px_per_step: f64,
    /// A switch besides the face: a key (a USB switch presents itself as
    /// one, e.g. "f12", "space"; empty: none) ...
    pub external_key: String,
    /// ... or an extra mouse button (8 or 9, as adapted mice and switch
    /// interfaces send; 0: none). It is taken from other applications.
    pub external_button: u8,
    /// What the external switch does (in scanning, it selects).
    pub external: Action,
    /// Point scanning: how long each line takes to cross the screen (ms).
    pub point_scan_sweep_ms: f64,
}

impl SwitchSettings {
    /// Each gesture's action, with the gesture's name in the profile.
    #[must_use]
    pub fn bindings(&self) -> [(&Action, &'static str); 6] {
        [
            (&self.brow_raise, "brow_raise"),
            (&self.long_blink, "long_blink"),
            (&self.wink_left, "wink_left"),
            (&self.wink_right, "wink_right"),
            (&self.dwell, "dwell"),
            (&self.external, "external"),
        ]
    }

    /// The external switch's key, parsed (a key name that does not parse
    /// is refused when the profile is read).
    #[must_use]
    pub fn external_key(&self) -> Option<crate::command::Key> {
        let k = self.external_key.trim();
        if k.is_empty() { None } else { crate::command::Key::parse(k).ok() }
    }
}

impl Default for SwitchSettings {
    fn default() -> Self {
        Self {
            brow_raise: Action::ClickLeft,
            long_blink: Action::ClickRight,
            wink_left: Action::None,
            wink_right: Action::None,
            dwell: Action::None,
            pause_raise_ms: 1500.0,
            startup_grace_ms: 2000.0,
            cooldown_ms: 500.0,
            max_clicks_per_minute: 40,
            external_key: String::new(),
            external_button: 0,
            external: Action::ClickLeft,
            scroll_px_per_step: 40.0,
            point_scan_sweep_ms: 8000.0,
        }
    }
}

impl SwitchSettings {
    /// Checks every value against its valid range; the error names the
    /// field as the profile spells it (`switch.…`).
    ///
    /// # Errors
    /// The first field out of range, and why.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let w = self;
        check((500.0..=10_000.0).contains(&w.pause_raise_ms), "switch.pause_raise_ms", "must be 500 to 10000 ms")?;
        check((0.0..=30_000.0).contains(&w.startup_grace_ms), "switch.startup_grace_ms", "must be 0 to 30000 ms")?;
        check((0.0..=10_000.0).contains(&w.cooldown_ms), "switch.cooldown_ms", "must be 0 to 10000 ms")?;
        check((1..=600).contains(&w.max_clicks_per_minute), "switch.max_clicks_per_minute", "must be 1 to 600")?;
        check((1.0..=1000.0).contains(&w.scroll_px_per_step), "switch.scroll_px_per_step", "must be 1 to 1000")?;
        check((2000.0..=60_000.0).contains(&w.point_scan_sweep_ms), "switch.point_scan_sweep_ms", "must be 2000 to 60000 ms")?;
        let k = w.external_key.trim();
        if !k.is_empty() {
            match crate::command::Key::parse(k) {
                Ok(crate::command::Key::Control | crate::command::Key::Alt | crate::command::Key::Shift | crate::command::Key::Meta) => {
                    return Err(("switch.external_key".into(), "a modifier cannot be the switch".into()));
                }
                Ok(_) => {}
                Err(e) => return Err(("switch.external_key".into(), e.to_string())),
            }
        }
        check(matches!(w.external_button, 0 | 8 | 9), "switch.external_button", "must be 0 (none), 8 or 9 (buttons 1 to 7 are the mouse's own and its wheel)")?;
        Ok(())
    }
}
