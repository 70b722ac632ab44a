//! The Settings page: every setting a user changes, changed by dwell and by
//! the switch (no keyboard, no file). Each setting is a pair of stepping
//! targets, "less" and "more" (for a choice: the previous and the next), in
//! the main window's flow of equal targets, so dwell and scanning reach them
//! as they reach the other controls; the camera preview and the plot stay
//! in view above them, and each step applies at once (the pointer moves at
//! the new speed, the next dwell counts the new time) and is saved to the
//! profile. A step that would leave a valid range stops at its end.
//!
//! The page's first page holds the toggles and pickers (high contrast, the
//! click toolbar, the menu's edge, the click sound, start at login, the
//! camera), one target each; the pages after it, these settings (the
//! keyboard's order of letters among them, whether face gestures wait
//! while the user talks, and whether a raise must lift both brows).
//!
//! This is the model: the settings' names, values in words, and steps.

use crate::settings::{Action, KeyboardLayout, Mapping, Settings};

/// The settings on the page, in order.
pub const ROWS: [&str; 17] = [
    "Dwell time",
    "Pointer speed",
    "Dead band",
    "Smoothing",
    "Mapping",
    "Zoom",
    "Scan step",
    "Keyboard",
    "Point scan sweep",
    "Switch key",
    "Switch press",
    "Eyebrow raise",
    "Long blink",
    "Left wink",
    "Right wink",
    "While talking",
    "Raise with",
];

/// How many settings a page shows (two targets each, after the page's own two).
pub const PER_PAGE: usize = 5;

/// How many pages the settings fill.
#[must_use]
pub const fn pages() -> usize {
    ROWS.len().div_ceil(PER_PAGE)
}

/// The keys the switch key steps through ("" is none).
pub const SWITCH_KEYS: [&str; 8] = ["", "f12", "f11", "f10", "f9", "space", "enter", "tab"];

/// The actions a gesture steps through.
pub const GESTURE_ACTIONS: [Action; 11] = [
    Action::None,
    Action::ClickLeft,
    Action::ClickRight,
    Action::DoubleClick,
    Action::DragToggle,
    Action::ScrollMode,
    Action::Pause,
    Action::OpenMenu,
    Action::Recenter,
    Action::PointScan,
    Action::NextMonitor,
];

/// An action in words.
#[must_use]
pub fn action_name(a: &Action) -> String {
    match a {
        Action::None => "nothing".into(),
        Action::ClickLeft => "left click".into(),
        Action::ClickRight => "right click".into(),
        Action::ClickMiddle => "middle click".into(),
        Action::DoubleClick => "double click".into(),
        Action::DragToggle => "drag".into(),
        Action::ScrollMode => "scroll".into(),
        Action::Pause => "pause".into(),
        Action::OpenMenu => "open the menu".into(),
        Action::Recenter => "recentre".into(),
        Action::NextMonitor => "next monitor".into(),
        Action::PointScan => "point scan".into(),
        Action::Key(k) => format!("key {k}"),
    }
}

/// The gesture binding of row `row`, if it is one.
fn gesture(s: &mut Settings, row: usize) -> Option<&mut Action> {
    match ROWS[row] {
        "Eyebrow raise" => Some(&mut s.switch.brow_raise),
        "Long blink" => Some(&mut s.switch.long_blink),
        "Left wink" => Some(&mut s.switch.wink_left),
        "Right wink" => Some(&mut s.switch.wink_right),
        "Switch press" => Some(&mut s.switch.external),
        _ => None,
    }
}

/// Row `row`'s value in words.
#[must_use]
pub fn value(s: &Settings, row: usize) -> String {
    let p = &s.pointer;
    match ROWS[row] {
        "Dwell time" => format!("{:.1} s", p.dwell_ms / 1000.0),
        "Pointer speed" => format!("{:.0}%", 100.0 * (p.gain_left + p.gain_right + p.gain_up + p.gain_down) / 4.0 / 4000.0),
        "Dead band" => format!("{:.2}", p.dead_band),
        // A lower cutoff at rest smooths more.
        "Smoothing" => format!("{:.1} Hz", p.min_cutoff),
        "Mapping" => match p.mapping {
            Mapping::Relative => "joystick".into(),
            Mapping::Absolute => "absolute".into(),
        },
        "Zoom" => format!("{:.2}×", s.ui.zoom),
        "Scan step" => format!("{:.1} s", s.ui.scan_step_ms / 1000.0),
        "Keyboard" => s.ui.keyboard.name().into(),
        "Point scan sweep" => format!("{:.0} s", s.switch.point_scan_sweep_ms / 1000.0),
        "Switch key" => if s.switch.external_key.trim().is_empty() { "none".into() } else { s.switch.external_key.trim().to_uppercase() },
        // The talk guard (`vision.talk_guard`): off for a user whose mouth moves on its own.
        "While talking" => if s.vision.talk_guard { "gestures wait".into() } else { "gestures act".into() },
        // Whether a raise must lift both brows (`vision.brows_together`).
        "Raise with" => if s.vision.brows_together { "both brows".into() } else { "either brow".into() },
        _ => {
            let mut c = s.clone();
            gesture(&mut c, row).map_or_else(String::new, |a| action_name(a))
        }
    }
}

/// The words on row `row`'s two targets: (less, more).
#[must_use]
pub fn target_labels(s: &Settings, row: usize) -> (String, String) {
    let (name, v) = (ROWS[row], value(s, row));
    let (less, more) = match name {
        "Dwell time" | "Scan step" | "Point scan sweep" => ("shorter", "longer"),
        "Pointer speed" => ("slower", "faster"),
        "Dead band" | "Zoom" => ("smaller", "larger"),
        "Smoothing" => ("less", "more"),
        _ => ("previous", "next"),
    };
    (format!("{name} {v}: {less}"), format!("{name} {v}: {more}"))
}

/// The next in `list` after (or before) `cur`, wrapping; the first for anything not in it.
fn cycle<T: PartialEq + Clone>(list: &[T], cur: &T, up: bool) -> T {
    let n = list.len();
    let i = list.iter().position(|x| x == cur).map_or(0, |i| if up { (i + 1) % n } else { (i + n - 1) % n });
    list[i].clone()
}

/// Steps row `row` one step up (`more`) or down. The value stays within its
/// valid range; returns whether it changed (then the settings are valid).
pub fn step(s: &mut Settings, row: usize, more: bool) -> bool {
    let before = s.clone();
    let sign = if more { 1.0 } else { -1.0 };
    let round = |x: f64, q: f64| (x / q).round() * q;
    {
        let p = &mut s.pointer;
        match ROWS[row] {
            "Dwell time" => p.dwell_ms = round(p.dwell_ms + sign * 100.0, 100.0).clamp(300.0, 5000.0),
            "Pointer speed" => {
                // Every direction alike, keeping their proportions.
                let f = if more { 1.25 } else { 0.8 };
                let mean = (p.gain_left + p.gain_right + p.gain_up + p.gain_down) / 4.0;
                if (more && mean * f <= 40_000.0) || (!more && mean * f >= 250.0) {
                    for g in [&mut p.gain_left, &mut p.gain_right, &mut p.gain_up, &mut p.gain_down] {
                        *g *= f;
                    }
                }
            }
            "Dead band" => p.dead_band = round(p.dead_band + sign * 0.01, 0.01).clamp(0.0, 0.3),
            // More smoothing: a lower cutoff at rest.
            "Smoothing" => p.min_cutoff = round(p.min_cutoff - sign * 0.2, 0.1).clamp(0.2, 5.0),
            "Mapping" => p.mapping = if p.mapping == Mapping::Relative { Mapping::Absolute } else { Mapping::Relative },
            _ => {}
        }
    }
    match ROWS[row] {
        "Zoom" => s.ui.zoom = ((s.ui.zoom + if more { 0.25 } else { -0.25 }) * 4.0).round() / 4.0,
        "Scan step" => s.ui.scan_step_ms = round(s.ui.scan_step_ms + sign * 100.0, 100.0).clamp(400.0, 5000.0),
        "Keyboard" => s.ui.keyboard = cycle(&[KeyboardLayout::Frequency, KeyboardLayout::Qwerty], &s.ui.keyboard, more),
        "While talking" => s.vision.talk_guard = !s.vision.talk_guard,
        "Raise with" => s.vision.brows_together = !s.vision.brows_together,
        "Point scan sweep" => s.switch.point_scan_sweep_ms = round(s.switch.point_scan_sweep_ms + sign * 1000.0, 1000.0).clamp(2000.0, 30_000.0),
        "Switch key" => {
            let cur = s.switch.external_key.trim().to_lowercase();
            s.switch.external_key = cycle(&SWITCH_KEYS.map(str::to_string), &cur, more);
        }
        _ => {
            if let Some(a) = gesture(s, row) {
                *a = cycle(&GESTURE_ACTIONS, a, more);
            }
        }
    }
    if s.ui.zoom < 0.75 || s.ui.zoom > 3.0 || s.validate().is_err() {
        *s = before;
        return false;
    }
    *s != before
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_steps_both_ways_and_stays_valid() {
        for (row, name) in ROWS.iter().enumerate() {
            let mut s = Settings::default();
            let v0 = value(&s, row);
            assert!(step(&mut s, row, true), "{name} did not step up");
            assert_ne!(value(&s, row), v0, "{name}: the value in words changes");
            assert!(s.validate().is_ok());
            assert!(step(&mut s, row, false), "{name} did not step down");
            assert_eq!(value(&s, row), v0, "{name}: down undoes up");
        }
    }

    #[test]
    fn a_value_stops_at_the_end_of_its_range() {
        let mut s = Settings::default();
        let dwell = ROWS.iter().position(|r| *r == "Dwell time").expect("row");
        for _ in 0..100 {
            step(&mut s, dwell, false);
        }
        assert!((s.pointer.dwell_ms - 300.0).abs() < 1e-9, "{}", s.pointer.dwell_ms);
        assert!(!step(&mut s, dwell, false), "no change past the end");
        let zoom = ROWS.iter().position(|r| *r == "Zoom").expect("row");
        for _ in 0..100 {
            step(&mut s, zoom, true);
        }
        assert!((s.ui.zoom - 3.0).abs() < 1e-6);
        let speed = ROWS.iter().position(|r| *r == "Pointer speed").expect("row");
        s.pointer.gain_left = 2000.0;
        step(&mut s, speed, true);
        assert!((s.pointer.gain_left - 2500.0).abs() < 1e-9 && (s.pointer.gain_right - 5000.0).abs() < 1e-9, "proportions kept");
    }

    #[test]
    fn gestures_and_the_switch_key_step_through_their_choices() {
        let mut s = Settings::default();
        let brow = ROWS.iter().position(|r| *r == "Eyebrow raise").expect("row");
        assert_eq!(value(&s, brow), "left click");
        step(&mut s, brow, true);
        assert_eq!(s.switch.brow_raise, Action::ClickRight);
        let key = ROWS.iter().position(|r| *r == "Switch key").expect("row");
        assert_eq!(value(&s, key), "none");
        step(&mut s, key, true);
        assert_eq!(s.switch.external_key, "f12");
        assert_eq!(value(&s, key), "F12");
        step(&mut s, key, false);
        step(&mut s, key, false);
        assert_eq!(s.switch.external_key, "tab", "wraps round");
        let talk = ROWS.iter().position(|r| *r == "While talking").expect("row");
        assert_eq!(value(&s, talk), "gestures wait");
        step(&mut s, talk, true);
        assert!(!s.vision.talk_guard);
        assert_eq!(value(&s, talk), "gestures act");
        let together = ROWS.iter().position(|r| *r == "Raise with").expect("row");
        assert_eq!(value(&s, together), "both brows");
        step(&mut s, together, false);
        assert!(!s.vision.brows_together);
        assert_eq!(value(&s, together), "either brow");
        assert_eq!(pages(), 4);
    }
}
