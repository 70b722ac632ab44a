//! How much it costs to type with the on-screen keyboard: the shipped
//! keyboard menus in the real menu panel (its layout, paging and word
//! prediction), driven by a simulated user who knows where every key is
//! and takes a predicted word as soon as it is the one they mean.
//!
//! Per character of a phrase set: dwells (each selection is one dwell),
//! switch presses in row–column scanning (two per selection: the row, then
//! the target), and scan steps (how many highlights the scanner moves through
//! before each press: the waiting). Keystroke savings = 1 − selections with
//! prediction / selections without.
//!
//! Words per minute (a word is five characters, spaces included) come from
//! a time model. By dwell, each selection costs the move to its target by
//! Fitts' law, `log2(D/W + 1)` bits (D: from the last target's centre, W:
//! the smaller side of the area where the target is under the pointer,
//! the key and half the gap round it, `menu_panel::HIT_MARGIN`; a key
//! chosen twice in a row is left and entered again, out and back over its
//! own width) at the throughput that
//! `facemouse eval-pointer` measures for a mode, plus the dwell. By
//! row–column scanning, each selection waits its scan steps and about half
//! a step for each of its two presses, at `scan_step_ms` a step.

use std::path::Path;

use eframe::egui;

use crate::menus::{MenuAction, Navigator, Outcome, Scanner};
use crate::ui::menu_panel::{MenuPanel, Target};

/// The cost of typing a phrase set.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct TypingCost {
    pub phrases: usize,
    /// Characters typed (letters and spaces; each phrase once, lower-cased).
    pub chars: usize,
    pub selections: usize,
    pub scan_steps: usize,
    /// The Fitts' law index of difficulty of every move to a target, summed (bits).
    pub fitts_bits: f64,
}

impl TypingCost {
    #[must_use]
    pub fn dwells_per_char(&self) -> f64 {
        self.selections as f64 / self.chars.max(1) as f64
    }
    #[must_use]
    pub fn presses_per_char(&self) -> f64 {
        2.0 * self.selections as f64 / self.chars.max(1) as f64
    }
    #[must_use]
    pub fn scan_steps_per_char(&self) -> f64 {
        self.scan_steps as f64 / self.chars.max(1) as f64
    }

    /// Words a minute by dwell: moves at `throughput` bits/s, and `dwell_s` a selection.
    #[must_use]
    pub fn wpm_dwell(&self, throughput: f64, dwell_s: f64) -> f64 {
        let seconds = self.fitts_bits / throughput.max(1e-9) + self.selections as f64 * dwell_s;
        wpm(self.chars, seconds)
    }

    /// Words a minute by row–column scanning at `step_s` a step.
    #[must_use]
    pub fn wpm_scanning(&self, step_s: f64) -> f64 {
        wpm(self.chars, (self.scan_steps + self.selections) as f64 * step_s)
    }
}

/// Words (five characters) a minute.
fn wpm(chars: usize, seconds: f64) -> f64 {
    if seconds <= 0.0 { 0.0 } else { chars as f64 / 5.0 / (seconds / 60.0) }
}

/// The index of difficulty (bits) of moving from `from` to `to`; the same
/// target again is left and entered again.
fn fitts_bits(from: Option<egui::Rect>, to: egui::Rect) -> f64 {
    match from {
        Some(f) if f == to => 2.0 * (1.0f64 + 1.0).log2(),
        Some(f) => crate::ui::menu_panel::index_of_difficulty(f, to),
        // The first selection of a phrase: the pointer comes from the text, about a panel's height away.
        None => (f64::from(to.center().y.max(to.height())) * 2.0 / crate::ui::menu_panel::hit_width(to) + 1.0).log2(),
    }
}

/// Keyboard measurement failures.
#[derive(Debug, thiserror::Error)]
pub enum KeyboardEvalError {
    #[error("cannot read the phrase file {path}: {source}")]
    Phrases { path: std::path::PathBuf, source: std::io::Error },
    #[error("cannot load the menus: {0}")]
    Menus(String),
    #[error("the keyboard menu has no key for {0:?}")]
    NoKey(char),
}

/// The phrases of a file, one a line, lower-cased, with anything but letters and spaces left out.
///
/// # Errors
/// The file cannot be read.
pub fn load_phrases(path: &Path) -> Result<Vec<String>, KeyboardEvalError> {
    let text = std::fs::read_to_string(path).map_err(|source| KeyboardEvalError::Phrases { path: path.to_path_buf(), source })?;
    Ok(text
        .lines()
        .map(|l| l.to_lowercase().chars().filter(|c| c.is_ascii_lowercase() || *c == ' ').collect::<String>())
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect())
}

/// A menu panel: width and height in points, columns, and whether it is wide (a top or bottom dock).
pub type PanelSize = (f32, f32, usize, bool);

/// Types `phrases` with the keyboard menus of `menus_dir` in a panel of
/// `width`×`height` points with `columns` (wide: a top or bottom dock).
///
/// # Errors
/// The menus do not load, or a character has no key.
pub fn measure(phrases: &[String], menus_dir: &Path, size: PanelSize, predict: bool) -> Result<TypingCost, KeyboardEvalError> {
    measure_keyboard(phrases, menus_dir, "keyboard", size, predict)
}

/// [`measure`] with the keyboard menu `keyboard` (e.g. "keyboard-qwerty").
///
/// # Errors
/// See [`measure`]; a keyboard menu that does not exist has no keys.
pub fn measure_keyboard(phrases: &[String], menus_dir: &Path, keyboard: &str, size: PanelSize, predict: bool) -> Result<TypingCost, KeyboardEvalError> {
    let (width, height, columns, wide) = size;
    let menus = crate::menus::load_dir(menus_dir).map_err(|e| KeyboardEvalError::Menus(e.to_string()))?;
    let mut cost = TypingCost { phrases: phrases.len(), ..TypingCost::default() };
    for phrase in phrases {
        // A fresh panel for each phrase: nothing learned from the ones before.
        let mut panel = MenuPanel::new(Navigator::new(menus.clone()), menus_dir.to_path_buf(), columns, true, 1000.0, 1000.0);
        panel.wide = wide;
        // Measuring learns nothing to disk (the shipped menus' folder is no profile).
        panel.read_only = Some("measuring the keyboard".into());
        if !predict {
            panel.disable_prediction();
        }
        panel.nav.set_alias("keyboard", Some(keyboard).filter(|k| *k != "keyboard"));
        if !panel.nav.open("keyboard") || panel.nav.current_name() != keyboard {
            return Err(KeyboardEvalError::Menus(format!("no keyboard menu {keyboard:?}")));
        }
        let chars: Vec<char> = phrase.chars().collect();
        cost.chars += chars.len();
        let mut i = 0;
        let mut guard = 0;
        let mut last: Option<egui::Rect> = None;
        while i < chars.len() {
            guard += 1;
            if guard > 100 * chars.len() + 100 {
                return Err(KeyboardEvalError::NoKey(chars[i]));
            }
            let rects = panel.plan_rects(width, height - crate::ui::menu_panel::HEADING);
            let rows = panel.rows().to_vec();
            let targets = panel.targets().to_vec();
            // The word being typed, as the user means it, and where it ends.
            let start = chars[..i].iter().rposition(|c| *c == ' ').map_or(0, |p| p + 1);
            let end = chars[i..].iter().position(|c| *c == ' ').map_or(chars.len(), |p| i + p);
            let meant: String = chars[start..end].iter().collect();
            let target = if let Some(k) = panel.predictions().iter().position(|w| *w == meant).filter(|_| chars[i] != ' ') {
                i = (end + 1).min(chars.len());
                Target::Word(k)
            } else {
                let menu = panel.nav.current().clone();
                let types = |a: &MenuAction| match a {
                    MenuAction::Type(t) => t.chars().eq(std::iter::once(chars[i])),
                    MenuAction::Keys(k) => chars[i] == ' ' && matches!(k.keys(), [crate::command::Key::Space]),
                    _ => false,
                };
                let item = menu.items.iter().position(|it| types(&it.action)).ok_or(KeyboardEvalError::NoKey(chars[i]))?;
                if targets.contains(&Target::Item(item)) {
                    i += 1;
                    Target::Item(item)
                } else {
                    let first_shown = targets.iter().find_map(|t| if let Target::Item(j) = t { Some(*j) } else { None }).unwrap_or(0);
                    if item < first_shown { Target::Previous } else { Target::More }
                }
            };
            let index = targets.iter().position(|t| *t == target).ok_or(KeyboardEvalError::NoKey(chars[i.min(chars.len() - 1)]))?;
            let (r, c) = Scanner::place(&rows, index).unwrap_or((rows.len(), 0));
            cost.scan_steps += r + c;
            cost.selections += 1;
            if let Some(&rect) = rects.get(index) {
                cost.fitts_bits += fitts_bits(last, rect);
                last = Some(rect);
            }
            if let Some(Outcome::Close) = panel.choose(target) {
                break;
            }
        }
        // The phrase was typed as meant.
        debug_assert_eq!(panel.echo().trim_end(), phrase.as_str());
    }
    Ok(cost)
}

/// The menu window's panels measured, on a 1920×1080 screen at the default
/// zoom of 1.5 (1280×720 points; a dock is 45 % of the screen; the title
/// row takes 60 points): the bottom dock's strip, and the right side, where
/// the keyboard opens from the default bottom dock (its keys are as many
/// and quicker to point at there: `ui::typing_dock`) and from a right dock.
pub const PANELS: [(&str, PanelSize); 2] = [
    ("bottom strip, 1280×264 pt, wide (the keyboard opens at the side instead)", (1280.0, 264.0, 3, true)),
    ("right side, 560×660 pt, 3 columns (the keyboard from the default bottom dock, or a right dock)", (560.0, 660.0, 3, false)),
];

/// How fast the pointer moves, for the time model: a mapping mode and its
/// Fitts' law throughput (bits/s, from `facemouse eval-pointer`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Throughput {
    pub mode: String,
    pub bits_per_s: f64,
}

/// The time model's settings: the profile's dwell and scan step.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct Timing {
    pub dwell_s: f64,
    pub scan_step_s: f64,
}

/// One panel, with or without prediction.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Row {
    pub panel: String,
    pub prediction: bool,
    pub selections_per_char: f64,
    pub switch_presses_per_char: f64,
    pub scan_steps_per_char: f64,
    /// Selections saved by prediction (percent of those without).
    pub saved_percent: f64,
    /// Words a minute by dwell, per pointer mode (in the order given).
    pub wpm_dwell: Vec<f64>,
    /// Words a minute by row–column scanning.
    pub wpm_scanning: f64,
    pub cost: TypingCost,
}

/// The whole measurement, as `--json` prints it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    pub phrases: usize,
    pub chars: usize,
    pub timing: Timing,
    pub throughputs: Vec<Throughput>,
    pub rows: Vec<Row>,
}

/// Each panel of [`PANELS`] without and with prediction.
///
/// # Errors
/// See [`measure`].
pub fn report(phrases: &[String], menus_dir: &Path, keyboard: &str, throughputs: &[Throughput], timing: Timing) -> Result<Report, KeyboardEvalError> {
    let mut rows = Vec::new();
    for (name, size) in PANELS {
        let plain = measure_keyboard(phrases, menus_dir, keyboard, size, false)?;
        let predicted = measure_keyboard(phrases, menus_dir, keyboard, size, true)?;
        for (prediction, c) in [(false, plain), (true, predicted)] {
            rows.push(Row {
                panel: name.to_string(),
                prediction,
                selections_per_char: c.dwells_per_char(),
                switch_presses_per_char: c.presses_per_char(),
                scan_steps_per_char: c.scan_steps_per_char(),
                saved_percent: 100.0 * (1.0 - c.selections as f64 / plain.selections.max(1) as f64),
                wpm_dwell: throughputs.iter().map(|t| c.wpm_dwell(t.bits_per_s, timing.dwell_s)).collect(),
                wpm_scanning: c.wpm_scanning(timing.scan_step_s),
                cost: c,
            });
        }
    }
    let chars = phrases.iter().map(|p| p.chars().count()).sum();
    Ok(Report { phrases: phrases.len(), chars, timing, throughputs: throughputs.to_vec(), rows })
}

/// The table of `docs/keyboard.md`.
#[must_use]
pub fn table(r: &Report) -> String {
    use std::fmt::Write;
    let mut s = String::from("| panel | prediction | selections per char | switch presses per char | scan steps per char | selections saved |");
    for t in &r.throughputs {
        let _ = write!(s, " wpm, dwell, {} ({:.2} bits/s) |", t.mode, t.bits_per_s);
    }
    let _ = writeln!(s, " wpm, scanning |\n|---|---|---|---|---|---|{}---|", "---|".repeat(r.throughputs.len()));
    for row in &r.rows {
        let _ = write!(
            s,
            "| {} | {} | {:.2} | {:.2} | {:.2} | {:.1} % |",
            row.panel,
            if row.prediction { "yes" } else { "no" },
            row.selections_per_char,
            row.switch_presses_per_char,
            row.scan_steps_per_char,
            row.saved_percent
        );
        for w in &row.wpm_dwell {
            let _ = write!(s, " {w:.1} |");
        }
        let _ = writeln!(s, " {:.1} |", row.wpm_scanning);
    }
    let _ = writeln!(
        s,
        "\n{} phrases, {} characters (lower-cased letters and spaces); dwell {:.1} s, scan step {:.1} s.",
        r.phrases, r.chars, r.timing.dwell_s, r.timing.scan_step_s
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped_menus() -> std::path::PathBuf {
        crate::data_dir().join("menus")
    }

    /// A panel large enough for every key on one page: "hello there" is 11
    /// selections letter by letter; with prediction, each word takes a
    /// letter or two and one selection for its rest and its space.
    #[test]
    fn typing_costs_one_selection_a_key_and_a_predicted_word_one_for_its_rest() {
        let phrases = vec!["hello there".to_string()];
        let size = (1900.0, 1000.0, 12, true);
        let plain = measure(&phrases, &shipped_menus(), size, false).expect("measure");
        assert_eq!((plain.chars, plain.selections), (11, 11), "{plain:?}");
        let predicted = measure(&phrases, &shipped_menus(), size, true).expect("measure");
        assert!(predicted.selections < plain.selections && predicted.selections >= 4, "{predicted:?}");
        // A panel too small for every key on one page (keys of 50×38
        // points) pages: the same phrase costs more selections than keys.
        let small = measure(&phrases, &shipped_menus(), (380.0, 300.0, 3, false), false).expect("measure");
        assert!(small.selections > plain.selections, "{small:?}");
        // The default bottom dock holds every key: one selection a letter.
        let bottom = measure(&phrases, &shipped_menus(), PANELS[0].1, false).expect("measure");
        assert_eq!(bottom.selections, 11, "{bottom:?}");
    }

    #[test]
    fn phrases_are_lower_cased_letters_and_spaces() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("p.txt");
        std::fs::write(&p, "I can see the rings on Saturn\n\nthree  two, one!\n").expect("write");
        assert_eq!(load_phrases(&p).expect("load"), vec!["i can see the rings on saturn", "three two one"]);
        assert!(load_phrases(&dir.path().join("none.txt")).expect_err("missing").to_string().contains("none.txt"));
    }
}
