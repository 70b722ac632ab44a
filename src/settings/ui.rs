//! The `[ui]` table: how the window looks and behaves.

use serde::{Deserialize, Serialize};

use super::check;

/// The profile's `[ui]` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UiSettings {
    /// Everything in the window is this much larger than usual.
    pub zoom: f32,
    /// White on black with strong colours.
    pub high_contrast: bool,
    /// Single-switch scanning of the menu instead of pointing.
    pub scanning: bool,
    /// Scanning: how long each row or item stays highlighted (ms).
    pub scan_step_ms: f64,
    /// Menu targets: columns.
    pub menu_columns: usize,
    /// The camera, remembered by name (empty: the first one).
    pub camera: String,
    /// A short sound at each click.
    pub click_sound: bool,
    /// Started at login: no click for this many seconds (the status counts down).
    pub login_grace_s: f64,
    /// The screen edge the menu window docks to, so that it does not cover
    /// the text being typed into.
    pub menu_dock: Dock,
    /// The click-type toolbar for dwell clicking in other applications.
    pub click_toolbar: bool,
    /// The program that speaks the typed text (the keyboard's Speak, the
    /// Phrases menu): empty, the first of espeak-ng, spd-say and espeak found.
    pub speech: String,
    /// The keyboard's order of letters.
    pub keyboard: KeyboardLayout,
}

/// The order of the keyboard's letters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum KeyboardLayout {
    /// The most frequent letters first (e t a o i n …): fewest steps for
    /// scanning, and the common keys together.
    #[default]
    Frequency,
    /// QWERTY rows, for people who know them.
    Qwerty,
}

impl KeyboardLayout {
    /// The menu the keyboard opens as ("keyboard" itself: `None`).
    #[must_use]
    pub fn menu(self) -> Option<&'static str> {
        match self {
            Self::Frequency => None,
            Self::Qwerty => Some("keyboard-qwerty"),
        }
    }

    /// Its name in words.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Frequency => "letters by frequency",
            Self::Qwerty => "QWERTY",
        }
    }
}

/// A screen edge for the menu window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Dock {
    #[default]
    Bottom,
    Top,
    Left,
    Right,
}

/// How deep a docked menu is: this share of the screen's height (top and
/// bottom) or width (sides).
pub const MENU_DEPTH: f32 = 0.45;

impl Dock {
    /// The next edge, for a button that steps through them.
    #[must_use]
    pub fn next(self) -> Self {
        match self {
            Self::Bottom => Self::Right,
            Self::Right => Self::Top,
            Self::Top => Self::Left,
            Self::Left => Self::Bottom,
        }
    }

    /// The edge's name, as the profile spells it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Bottom => "bottom",
            Self::Top => "top",
            Self::Left => "left",
            Self::Right => "right",
        }
    }

    /// Where the menu window goes on a screen of `screen` (width, height)
    /// points: the whole edge, `MENU_DEPTH` of the screen deep. Returns (x,
    /// y) and (width, height).
    #[must_use]
    pub fn place(self, screen: [f32; 2]) -> ([f32; 2], [f32; 2]) {
        self.place_at(screen, MENU_DEPTH)
    }

    /// The same, `depth` (a share) of the screen deep.
    #[must_use]
    pub fn place_at(self, screen: [f32; 2], depth: f32) -> ([f32; 2], [f32; 2]) {
        let [w, h] = screen;
        let (dw, dh) = (depth * w, depth * h);
        match self {
            Self::Bottom => ([0.0, h - dh], [w, dh]),
            Self::Top => ([0.0, 0.0], [w, dh]),
            Self::Left => ([0.0, 0.0], [dw, h]),
            Self::Right => ([w - dw, 0.0], [dw, h]),
        }
    }
}

impl Default for UiSettings {
    fn default() -> Self {
        Self { zoom: 1.5, high_contrast: false, scanning: false, scan_step_ms: 1200.0, menu_columns: 3, camera: String::new(), click_sound: false, login_grace_s: 10.0, menu_dock: Dock::Bottom, click_toolbar: false, speech: String::new(), keyboard: KeyboardLayout::Frequency }
    }
}

impl UiSettings {
    /// Checks every value against its valid range; the error names the
    /// field as the profile spells it (`ui.…`).
    ///
    /// # Errors
    /// The first field out of range, and why.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let u = self;
        check((0.75..=3.0).contains(&u.zoom), "ui.zoom", "must be 0.75 to 3")?;
        check((200.0..=20_000.0).contains(&u.scan_step_ms), "ui.scan_step_ms", "must be 200 to 20000 ms")?;
        check((1..=8).contains(&u.menu_columns), "ui.menu_columns", "must be 1 to 8")?;
        check((0.0..=120.0).contains(&u.login_grace_s), "ui.login_grace_s", "must be 0 to 120 seconds")?;
        Ok(())
    }
}
