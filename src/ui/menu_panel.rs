//! The navigation menu as drawn: large targets selected by a click (the
//! switch clicks the real pointer), by dwell, or by single-switch scanning; and
//! the menu editor (add, remove, reorder and edit items and submenus, saved to
//! the user's `menus/` folder).

use std::path::PathBuf;

use eframe::egui::{self, RichText};

use crate::menus::{Menu, Navigator, Outcome, Scanner};

mod editor;

pub use editor::EditTarget;

/// A target of the menu window besides the menu's own items: the
/// navigation row, always on screen, so that no menu is a dead end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// Item `i` of the open menu.
    Item(usize),
    /// Predicted word `k` (keyboard menus): types the rest of it and a space.
    Word(usize),
    Previous,
    More,
    Back,
    Home,
    Close,
    /// "Edit menu" / "Done editing" (on the title line; scanned last).
    EditMenu,
    /// A target of the editor.
    Edit(EditTarget),
    /// While a name or text is written with the keyboard: keep it, or not.
    Save,
    Cancel,
}

/// A menu target's size, and the space between targets (points).
const TARGET_SIZE: [f32; 2] = [150.0, 80.0];
const TARGET_GAP: f32 = 12.0;

/// How far past its edge a target is still under the pointer: half the gap
/// between targets (the windows' `interact_radius`, set by
/// [`super::style::apply`]). Targets' hit areas meet in the middle of each
/// gap, so a pointer that drifts across one is still on a key, and a
/// dwell is not started over by the gaps (there is no dead strip between
/// keys where the pointer selects nothing).
pub const HIT_MARGIN: f32 = TARGET_GAP / 2.0;

/// A key of a keyboard menu laid out to fit every key on one page is at
/// least this size (points; 66×51 pixels at the default zoom of 1.5), and
/// at most this (a large side dock gives no giant keys).
const MIN_KEY: [f32; 2] = [44.0, 34.0];
const MAX_KEY: [f32; 2] = [190.0, 110.0];

/// The sizes of a keyboard laid out on one page: a key, a predicted word
/// (the words share their row's width) and a target of the navigation row.
#[derive(Debug, Clone, Copy, PartialEq)]
struct KeySizes {
    key: [f32; 2],
    word: [f32; 2],
    nav: [f32; 2],
}

/// How many key widths a key takes: one for a letter or a sign, two for a
/// word ("Space", "Capitals"), three for a longer label, so that every
/// label can be read.
fn key_units(label: &str) -> usize {
    match label.chars().count() {
        0..=2 => 1,
        3..=9 => 2,
        _ => 3,
    }
}

/// How many keys each row holds when keys of `units` widths fill rows of
/// `cols` widths in order (a key that does not fit a row's rest, or one
/// marked to start a row, starts the next). Empty when a key is wider than
/// a row.
fn pack(units: &[(usize, bool)], cols: usize) -> Vec<usize> {
    let mut rows = Vec::new();
    let (mut n, mut used) = (0, 0);
    for &(u, new_row) in units {
        if u > cols {
            return Vec::new();
        }
        if used + u > cols || (new_row && n > 0) {
            rows.push(n);
            (n, used) = (0, 0);
        }
        n += 1;
        used += u;
    }
    if n > 0 {
        rows.push(n);
    }
    rows
}

/// The columns and the size of a one-width key that hold keys of `units`
/// widths on one page of `width` × `height` points with `other_rows` rows
/// besides (the words, the navigation row), all rows the same height: the
/// largest keys (by their smaller side, which is what a pointer must hit),
/// then the fewest columns (scanning goes along a row). `None` when no
/// grid's keys reach `MIN_KEY`.
fn key_grid(units: &[(usize, bool)], width: f32, height: f32, other_rows: usize) -> Option<(usize, [f32; 2])> {
    let mut best: Option<(usize, [f32; 2])> = None;
    // Rows the menu starts itself (QWERTY's) are never wrapped: at least
    // as many columns as the widest of them.
    let least = if units.iter().any(|u| u.1) {
        let mut widest = 0;
        let mut run = 0;
        for &(u, new_row) in units {
            if new_row {
                run = 0;
            }
            run += u;
            widest = widest.max(run);
        }
        widest
    } else {
        1
    };
    for cols in least..=units.iter().map(|u| u.0).sum::<usize>().max(1) {
        let packed = pack(units, cols);
        if packed.is_empty() {
            continue;
        }
        let rows = packed.len() + other_rows;
        let w = ((width - (cols as f32 - 1.0) * TARGET_GAP) / cols as f32).min(MAX_KEY[0]);
        let h = ((height - rows as f32 * TARGET_GAP) / rows as f32).min(MAX_KEY[1]);
        if w < MIN_KEY[0] || h < MIN_KEY[1] {
            continue;
        }
        if best.is_none_or(|(_, b)| w.min(h) > b[0].min(b[1]) + 0.5) {
            best = Some((cols, [w, h]));
        }
    }
    best
}

/// What a panel's title line and margins take of its height (points): the
/// targets have the rest.
pub const HEADING: f32 = 52.0;

/// Fitts' index of difficulty (bits) of moving from target `from` to
/// target `to`: `log2(D/W + 1)`, D between their centres, W the smaller
/// side of the area where `to` is under the pointer, the target and
/// [`HIT_MARGIN`] round it (the "smaller-of" model of MacKenzie and
/// Buxton, 1992).
#[must_use]
pub fn index_of_difficulty(from: egui::Rect, to: egui::Rect) -> f64 {
    (f64::from(from.center().distance(to.center())) / hit_width(to) + 1.0).log2()
}

/// Fitts' W of target `r` (points): the smaller side of the area where it
/// is under the pointer, `r` and [`HIT_MARGIN`] round it.
#[must_use]
pub fn hit_width(r: egui::Rect) -> f64 {
    f64::from(r.width().min(r.height()) + 2.0 * HIT_MARGIN).max(1.0)
}

/// What a panel offers a typist ([`MenuPanel::page_room`]): how many of the
/// open menu's items a page holds, and how hard they are to point at (the
/// mean index of difficulty between them, bits).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageRoom {
    pub holds: usize,
    pub bits: f64,
}

/// What a layout of the menu panel makes of it, with the page shown (a
/// layout goes back to the first page of another menu). Measuring another
/// layout (`MenuPanel::page_room`) keeps a copy and puts it back.
#[derive(Debug, Clone, PartialEq)]
struct Laid {
    /// The page of the open menu that is shown (a menu longer than the
    /// window is paged with Previous and More), and which menu (and depth)
    /// it is of: another menu, however it was opened, starts at its first page.
    page: usize,
    /// How many pages the open menu has in this window (from the last layout).
    pages: usize,
    /// How many items a page holds, as last laid out.
    per_page: usize,
    page_of: (String, usize),
    /// The targets as last shown, in scanning order, and their rows.
    targets: Vec<Target>,
    rows: Vec<usize>,
    /// The words shown for the word being typed, and that word.
    words: Vec<String>,
    words_for: String,
    /// How many rows the layout keeps for the predicted words (none: not
    /// typing, or no room), and how many a row holds.
    word_rows: (usize, usize),
    /// Sizes other than `TARGET_SIZE`: a keyboard menu laid out with every
    /// key on one page, or targets lowered to fit a low panel (`None`: the
    /// usual targets) ...
    keys: Option<KeySizes>,
    /// ... and how many key widths each of its keys takes.
    key_units: Vec<usize>,
}

/// The menu panel's state.
pub struct MenuPanel {
    pub nav: Navigator,
    pub scanner: Scanner,
    /// Where the user's menus are saved.
    pub dir: PathBuf,
    pub columns: usize,
    pub scanning: bool,
    pub dwell_ms: f64,
    pub editing: bool,
    /// The menu window's activation path (dwell and click).
    act: super::Activator,
    pub message: String,
    /// Why the menus are not saved (another window has the profile open), or
    /// `None` when they are.
    pub read_only: Option<String>,
    /// Edits that do not make a valid action yet (a chord being typed), by
    /// menu and item: kind and text. They are kept here, not saved.
    drafts: std::collections::HashMap<(String, usize), (String, String)>,
    /// What the last layout made of the panel, and the page shown.
    laid: Laid,
    /// Docked along the top or bottom edge: as many columns as fit the
    /// width (up to 12), whatever `columns` says.
    pub wide: bool,
    /// What the keyboard menus typed, as the user's application should now
    /// show it (the last line, at most `ECHO_CHARS`): the echo line.
    echo: String,
    /// Word prediction (`None` when the word list could not be read).
    predictor: Option<crate::predict::Predictor>,
    /// The profile's `words.txt` could not be read or moved aside: the words
    /// learned now are not saved over it.
    words_unsaved: bool,
    /// The editor's page (a menu longer than the window is paged).
    edit_page: usize,
    /// A name or text being written with the keyboard, into the editor.
    entry: Option<editor::Entry>,
}

/// At most this many predicted words, in one row above the keys ...
const MAX_WORDS: usize = 4;
/// ... or, on a keyboard with every key on one page, eight: in one row where
/// eight of this width fit (points), else in two rows of four where the
/// keys still fit, else as many as fit in one row (at least four). Eight
/// save more selections than six (49.0 % against 46.9 % on the phrases of
/// `docs/keyboard.md`) and words a minute rise with them.
const WORD_W: f32 = 130.0;
const KEYBOARD_WORDS: usize = 8;

/// `prefix` and as much of the end of `text` as fits in `room` characters
/// ("…" where the start is left out).
fn tail_fitting(prefix: &str, text: &str, room: usize) -> String {
    let (p, n) = (prefix.chars().count(), text.chars().count());
    if p + n <= room {
        return format!("{prefix}{text}");
    }
    let keep = room.saturating_sub(p + 1);
    format!("{prefix}…{}", text.chars().skip(n - keep.min(n)).collect::<String>())
}

/// The echo line in `room` characters: "Typed: " and the end of what was
/// typed, with a cursor; before anything is typed, "(nothing yet)" where it
/// fits whole, else a dash (its cut end, "…g yet)", said nothing).
fn echo_line(echo: &str, room: usize) -> String {
    const NOTHING: &str = "(nothing yet)";
    const PREFIX: &str = "Typed: ";
    if echo.is_empty() {
        let text = if PREFIX.len() + NOTHING.len() <= room { NOTHING } else { "–" };
        return format!("{PREFIX}{text}");
    }
    tail_fitting(PREFIX, &format!("{echo}_"), room)
}

/// The echo line keeps this many characters.
const ECHO_CHARS: usize = 60;

impl MenuPanel {
    #[must_use]
    pub fn new(nav: Navigator, dir: PathBuf, columns: usize, scanning: bool, scan_step_ms: f64, dwell_ms: f64) -> Self {
        Self {
            nav,
            scanner: Scanner::new(scan_step_ms),
            dir,
            columns: columns.max(1),
            scanning,
            dwell_ms,
            editing: false,
            act: super::Activator::default(),
            message: String::new(),
            read_only: None,
            drafts: std::collections::HashMap::new(),
            laid: Laid { page: 0, pages: 1, per_page: 1, page_of: (String::new(), 0), targets: Vec::new(), rows: Vec::new(), words: Vec::new(), words_for: String::new(), word_rows: (0, 1), keys: None, key_units: Vec::new() },
            wide: false,
            echo: String::new(),
            predictor: None,
            words_unsaved: false,
            edit_page: 0,
            entry: None,
        }
        .with_prediction()
    }

    /// Loads the word list and this profile's learned words (`words.txt`
    /// beside its menus folder); without the list, no prediction, and the message says why.
    fn with_prediction(mut self) -> Self {
        match crate::predict::Predictor::shipped() {
            Ok(mut p) => {
                if let Some(path) = self.words_path() {
                    match p.load_user(&path) {
                        Ok(None) => {}
                        Ok(Some(note)) => {
                            tracing::warn!("{note}");
                            self.message = note;
                        }
                        Err(e) => {
                            // Whatever is there is kept: nothing is saved over it.
                            tracing::warn!("{e}");
                            self.message = e.to_string();
                            self.words_unsaved = true;
                        }
                    }
                }
                self.predictor = Some(p);
            }
            Err(e) => {
                tracing::warn!("{e}; the keyboard works without word prediction");
                self.message = format!("No word prediction: {e}");
            }
        }
        self
    }

    /// Where this profile's learned words are kept: `words.txt` in the
    /// profile, beside its `menus` folder (menus elsewhere learn nothing to disk).
    fn words_path(&self) -> Option<PathBuf> {
        (self.dir.file_name()? == "menus").then(|| self.dir.parent().map(|p| p.join("words.txt")))?
    }

    /// No word prediction (to measure the keyboard without it).
    pub fn disable_prediction(&mut self) {
        self.predictor = None;
        self.laid.words.clear();
    }

    /// The word prediction shows these words now (keyboard menus).
    #[must_use]
    pub fn predictions(&self) -> &[String] {
        &self.laid.words
    }

    /// The word being typed has ended: it is learned, and so is the pair it
    /// makes with the word before it.
    fn end_word(&mut self) {
        let word = crate::predict::current_word(&self.echo).to_string();
        let previous = crate::predict::previous_word(&self.echo).to_string();
        self.learn_word(&previous, &word);
    }

    /// Learns the word just finished (before a space, a return, a punctuation
    /// mark) after `previous`, and saves the profile's words, unless the
    /// profile is read-only.
    fn learn_word(&mut self, previous: &str, word: &str) {
        let path = self.words_path().filter(|_| self.read_only.is_none() && !self.words_unsaved);
        let Some(p) = self.predictor.as_mut() else { return };
        if !crate::predict::is_word(word) {
            return;
        }
        p.learn(word);
        p.learn_pair(previous, word);
        if let Some(path) = path
            && let Err(e) = p.save_user(&path)
        {
            self.message = e.to_string();
        }
    }

    /// The scanning switch (an eyebrow raise's click, a key): enters a row or
    /// selects the highlighted target.
    pub fn switch(&mut self, t_ms: f64) -> Option<Outcome> {
        let i = self.scanner.switch(t_ms)?;
        let target = *self.laid.targets.get(i)?;
        let outcome = self.activate(target);
        self.scanner.reset(t_ms);
        outcome
    }

    /// The targets on screen, in scanning order (the predicted words, the
    /// page's items, then the navigation row).
    #[must_use]
    pub fn targets(&self) -> &[Target] {
        &self.laid.targets
    }

    /// How many of [`MenuPanel::targets`] each scanning row holds, as last shown.
    #[must_use]
    pub fn rows(&self) -> &[usize] {
        &self.laid.rows
    }

    /// The echo line: what the keyboard menus typed.
    #[must_use]
    pub fn echo(&self) -> &str {
        &self.echo
    }

    /// Follows what a keyboard item sends, for the echo line.
    fn echo_outcome(&mut self, o: &Outcome) {
        match o {
            Outcome::Type(t) => {
                for c in t.chars() {
                    // A word ends where something other than a letter follows it: it is learned.
                    if !(c.is_alphabetic() || c == '\'') {
                        self.end_word();
                    }
                    self.echo.push(c);
                }
            }
            Outcome::Keys(k) => match k.keys() {
                [crate::command::Key::Space] => {
                    self.end_word();
                    self.echo.push(' ');
                }
                [crate::command::Key::Backspace] => {
                    self.echo.pop();
                }
                [crate::command::Key::Return] => {
                    self.end_word();
                    self.echo.clear();
                }
                _ => {}
            },
            _ => {}
        }
        let n = self.echo.chars().count();
        if n > ECHO_CHARS {
            self.echo = self.echo.chars().skip(n - ECHO_CHARS).collect();
        }
    }

    /// Does what `target` is for.
    fn activate(&mut self, target: Target) -> Option<Outcome> {
        // (Another menu starts at its first page: `layout` sees the change.)
        let from_keyboard = self.nav.current_name().starts_with("keyboard");
        let outcome = match target {
            Target::Item(i) => self.nav.select(i),
            Target::Word(k) => {
                let word = self.laid.words.get(k)?.clone();
                let typed = crate::predict::current_word(&self.echo).chars().count();
                let rest: String = word.chars().skip(typed).collect();
                // The word itself is learned as it ends (the space below).
                Some(Outcome::Type(format!("{rest} ")))
            }
            // Paging goes round: Previous on the first page shows the last,
            // More on the last shows the first, so both are on every page
            // of a long menu, always in the same places.
            Target::Previous => {
                self.laid.page = (self.laid.page + self.laid.pages.max(1) - 1) % self.laid.pages.max(1);
                Some(Outcome::Moved)
            }
            Target::More => {
                self.laid.page = (self.laid.page + 1) % self.laid.pages.max(1);
                Some(Outcome::Moved)
            }
            Target::Back => {
                self.nav.back();
                Some(Outcome::Moved)
            }
            Target::Home => {
                self.nav.home();
                Some(Outcome::Moved)
            }
            Target::Close => Some(Outcome::Close),
            Target::EditMenu => {
                self.finish_entry(false);
                self.editing = !self.editing;
                self.edit_page = 0;
                Some(Outcome::Moved)
            }
            Target::Edit(e) => self.activate_edit(e),
            Target::Save | Target::Cancel => {
                self.finish_entry(target == Target::Save);
                Some(Outcome::Moved)
            }
        };
        if self.entry.is_some() {
            // Writing a name or a text: the keys go into it, not to the desktop.
            return outcome.and_then(|o| self.entry_outcome(o));
        }
        if let Some(o) = &outcome
            && from_keyboard
        {
            self.echo_outcome(o);
        }
        outcome
    }

    /// A target's words.
    fn target_label(&self, target: Target, menu: &Menu) -> String {
        match target {
            Target::Item(i) => menu.items.get(i).map(|it| it.label.clone()).unwrap_or_default(),
            Target::Word(k) => self.laid.words.get(k).map(|w| format!("{w}…")).unwrap_or_default(),
            Target::Previous => "Previous".into(),
            Target::More => "More".into(),
            Target::Back => "Back".into(),
            Target::Home => "Home".into(),
            Target::Close => "Close menu".into(),
            Target::EditMenu => if self.editing { "Done editing" } else { "Edit menu" }.into(),
            Target::Edit(e) => self.edit_label(e, menu),
            Target::Save => "Save".into(),
            Target::Cancel => "Cancel".into(),
        }
    }

    /// Lays the panel out for `width`×`height` points as `show` does, and
    /// returns the rows (for measurements and tests; see [`MenuPanel::targets`]).
    pub fn plan(&mut self, width: f32, height: f32) -> Vec<usize> {
        let menu = self.nav.current().clone();
        self.full_layout(&menu, width, height).0
    }

    /// Lays the panel out as [`MenuPanel::plan`] does and returns where each
    /// of [`MenuPanel::targets`] lies, in points from the top left of the
    /// area below the title line, as `show` places them ("Edit menu", on
    /// the title line, at its right end above).
    pub fn plan_rects(&mut self, width: f32, height: f32) -> Vec<egui::Rect> {
        let menu = self.nav.current().clone();
        let (rows, size) = self.full_layout(&menu, width, height);
        let missing = self.missing_word_rows();
        let (mut y, mut k, mut kept) = (0.0, 0, missing == 0);
        let mut rects = Vec::with_capacity(self.laid.targets.len());
        for n in rows {
            if !kept && k >= self.laid.words.len() {
                y += missing as f32 * (size[1] + TARGET_GAP);
                kept = true;
            }
            let mut x = 0.0;
            let mut tallest: f32 = 0.0;
            for &target in &self.laid.targets[k..k + n] {
                if target == Target::EditMenu {
                    rects.push(egui::Rect::from_min_size(egui::pos2(width - 120.0, -40.0), egui::vec2(120.0, 32.0)));
                    continue;
                }
                let at = self.target_size(target, size);
                rects.push(egui::Rect::from_min_size(egui::pos2(x, y), egui::vec2(at[0], at[1])));
                x += at[0] + TARGET_GAP;
                tallest = tallest.max(at[1]);
            }
            k += n;
            if tallest > 0.0 {
                y += tallest + TARGET_GAP;
            }
        }
        rects
    }

    /// How many of the open menu's items a page holds on a panel of `width`
    /// × `height` points (`wide`: docked at the top or the bottom), its
    /// title line included, and how hard they are to point at there: the
    /// mean Fitts' index of difficulty (bits, [`index_of_difficulty`]) from
    /// each of its items and offered words on the page to each other one.
    /// One layout; nothing of what is shown changes (the page, the words,
    /// the targets).
    pub fn page_room(&mut self, width: f32, height: f32, wide: bool) -> PageRoom {
        let (saved, saved_wide) = (self.laid.clone(), self.wide);
        self.wide = wide;
        let rects = self.plan_rects(width, height - HEADING);
        let keys: Vec<egui::Rect> = self.laid.targets.iter().zip(rects).filter(|(t, _)| matches!(t, Target::Item(_) | Target::Word(_))).map(|(_, r)| r).collect();
        let holds = self.laid.per_page;
        (self.laid, self.wide) = (saved, saved_wide);
        let (mut sum, mut n) = (0.0, 0usize);
        for (i, from) in keys.iter().enumerate() {
            for (j, to) in keys.iter().enumerate() {
                if i != j {
                    sum += index_of_difficulty(*from, *to);
                    n += 1;
                }
            }
        }
        PageRoom { holds, bits: if n == 0 { 0.0 } else { sum / n as f64 } }
    }

    /// Does what `target` is for, as a click, a dwell or a scanning select on it would.
    pub fn choose(&mut self, target: Target) -> Option<Outcome> {
        self.activate(target)
    }

    /// The menu's window has just appeared on the desktop: nothing under
    /// the resting pointer fires by itself (see [`super::Activator::appeared`]).
    pub fn appeared(&mut self) {
        self.act.appeared();
        // A menu opens on its first page, not the one visited last.
        self.laid.page = 0;
    }

    /// The page shown and how many the open menu has in this window.
    #[must_use]
    pub fn page(&self) -> (usize, usize) {
        (self.laid.page, self.laid.pages)
    }

    /// The menu's window appeared, or its layout changed from outside (a
    /// zoom, a profile): nothing now under the pointer fires by itself.
    pub fn relayout(&mut self, ctx: &egui::Context) {
        self.act.relayout(ctx);
    }

    /// Whether its dwells wait (see [`super::Activator::hold`]).
    pub fn hold(&mut self, held: bool) {
        self.act.hold(held);
    }

    /// The page's items and the navigation row, laid out for `height` points.
    fn layout(&mut self, menu: &Menu, width: f32, height: f32) -> Vec<usize> {
        let fit_width = ((width + TARGET_GAP) / (TARGET_SIZE[0] + TARGET_GAP)).floor() as usize;
        // Never more columns than fit: a target cut off at the window's edge
        // is half a target. A wide dock takes as many as fit, up to 12 (it
        // took the profile's columns at least: at zoom 3 on a 1280×800
        // screen its third column and Close lay past the window's right
        // edge); a side dock the profile's, as many as fit.
        let cols = if self.wide { fit_width.clamp(1, 12) } else { self.columns.min(fit_width).max(1) };
        let of = (self.nav.current_name().to_string(), self.nav.depth());
        if of != self.laid.page_of {
            self.laid.page = 0;
            self.laid.page_of = of;
        }
        let depth = self.nav.depth();
        // The navigation row holds at most five targets, as many to a row as
        // the width allows, so that it takes as little height as it can; it
        // keeps room for as many as this menu has (Previous and More too
        // where the menu does not fit on one page), the same on every page.
        let nav_cols = fit_width.max(cols).max(1);
        let base = if self.entry.is_some() { usize::from(self.nav.current_name() != self.nav.resolve("keyboard")) + 2 } else { 2 * usize::from(depth > 1) + 1 };
        // Keyboard menus: the words that complete the one being typed, in a
        // row of their own, kept even when empty so the keys never move, but
        // only where a row of keys fits besides: the navigation row must
        // never be pushed off the window.
        let typing = self.nav.current_name().starts_with("keyboard") && self.entry.is_none();
        self.laid.keys = None;
        if typing && let Some(rows) = self.key_layout(menu, width, height, depth) {
            return rows;
        }
        // A panel too low for a row of targets and the navigation row (a
        // bottom dock on a small screen): lower targets, never one cut off
        // at the window's edge.
        let least_rows = 1 + (base + 2).div_ceil(nav_cols);
        let fits = ((height / (TARGET_SIZE[1] + TARGET_GAP)).floor() as usize) >= least_rows;
        let target_h = if fits { TARGET_SIZE[1] } else { ((height - least_rows as f32 * TARGET_GAP) / least_rows as f32).clamp(MIN_KEY[1] * 0.75, TARGET_SIZE[1]) };
        if !fits {
            let size = [TARGET_SIZE[0], target_h];
            self.laid.keys = Some(KeySizes { key: size, word: size, nav: size });
            self.laid.key_units.clear();
        }
        let row_h = target_h + TARGET_GAP;
        let rows_with = |nav: usize| ((height / row_h).floor() as usize).saturating_sub(nav.div_ceil(nav_cols));
        let words_with = |rows: usize| typing && self.predictor.is_some() && rows >= 2;
        let one_page = rows_with(base).saturating_sub(usize::from(words_with(rows_with(base)))).max(1) * cols >= menu.items.len();
        let rows_left = rows_with(if one_page { base } else { base + 2 });
        let words_row = words_with(rows_left);
        self.laid.word_rows = (usize::from(words_row), MAX_WORDS.min(cols));
        self.refresh_words(if words_row { MAX_WORDS.min(cols) } else { 0 });
        let fit = rows_left.saturating_sub(usize::from(words_row)).max(1);
        let per_page = fit * cols;
        self.laid.per_page = per_page;
        let pages = menu.items.len().div_ceil(per_page).max(1);
        self.laid.pages = pages;
        self.laid.page = self.laid.page.min(pages - 1);
        let first = self.laid.page * per_page;
        let shown = first..(first + per_page).min(menu.items.len());
        self.laid.targets = (0..self.laid.words.len()).map(Target::Word).collect();
        self.laid.targets.extend(shown.clone().map(Target::Item));
        // The navigation row keeps every target in one place on every page
        // of a menu: Previous and More are both there whenever the menu has
        // more than one page (paging goes round). It used to show More
        // alone on the first page, where later pages had Previous, and
        // Back on the last: resting on one spot to page on went back, then
        // home, then closed the menu.
        let mut nav = Vec::new();
        if pages > 1 {
            nav.extend([Target::Previous, Target::More]);
        }
        if self.entry.is_some() {
            // Writing into the editor: Back only within the keyboard's own
            // menus; Save and Cancel end the writing.
            if self.nav.current_name() != self.nav.resolve("keyboard") {
                nav.push(Target::Back);
            }
            nav.extend([Target::Save, Target::Cancel]);
        } else {
            if depth > 1 {
                nav.extend([Target::Back, Target::Home]);
            }
            nav.push(Target::Close);
        }
        let mut rows = Scanner::rows_of(self.laid.words.len(), cols);
        rows.extend(Scanner::rows_of(shown.len(), cols));
        rows.extend(Scanner::rows_of(nav.len(), nav_cols));
        self.laid.targets.extend(nav);
        rows
    }

    /// A keyboard menu with every key on one page, when keys of at least
    /// `MIN_KEY` fit: the words' row (kept, empty, before the first letter),
    /// the keys, and the navigation row in one row. Nothing moves while the
    /// user types, and no key is a page away (`None`: they do not fit; the
    /// usual paged layout then).
    fn key_layout(&mut self, menu: &Menu, width: f32, height: f32, depth: usize) -> Option<Vec<usize>> {
        let mut nav = Vec::new();
        if depth > 1 {
            nav.extend([Target::Back, Target::Home]);
        }
        nav.push(Target::Close);
        let fit = ((width + TARGET_GAP) / (WORD_W + TARGET_GAP)).floor() as usize;
        let options: &[(usize, usize)] = match (self.predictor.is_some(), fit >= KEYBOARD_WORDS) {
            (false, _) => &[(0, 1)],
            (true, true) => &[(1, KEYBOARD_WORDS)],
            (true, false) => &[(2, KEYBOARD_WORDS / 2), (1, fit.clamp(KEYBOARD_WORDS / 2, KEYBOARD_WORDS))],
        };
        let units: Vec<(usize, bool)> = menu.items.iter().map(|it| (key_units(&it.label), it.new_row)).collect();
        let ((cols, key), (word_rows, per_row)) = options.iter().find_map(|&(rows, per_row)| key_grid(&units, width, height, 1 + rows).map(|g| (g, (rows, per_row))))?;
        let word_w = ((width - (per_row as f32 - 1.0) * TARGET_GAP) / per_row as f32).min(2.0 * MAX_KEY[0]);
        let nav_w = ((width - (nav.len() as f32 - 1.0) * TARGET_GAP) / nav.len() as f32).min(TARGET_SIZE[0].max(key[0]));
        self.laid.keys = Some(KeySizes { key, word: [word_w, key[1]], nav: [nav_w, key[1]] });
        self.laid.word_rows = (word_rows, per_row);
        self.refresh_words(word_rows * per_row);
        self.laid.per_page = menu.items.len();
        self.laid.pages = 1;
        self.laid.page = 0;
        self.laid.targets = (0..self.laid.words.len()).map(Target::Word).collect();
        self.laid.targets.extend((0..menu.items.len()).map(Target::Item));
        let mut rows = Scanner::rows_of(self.laid.words.len(), per_row);
        rows.extend(pack(&units, cols));
        self.laid.key_units = units.iter().map(|u| u.0).collect();
        rows.extend(Scanner::rows_of(nav.len(), nav.len()));
        self.laid.targets.extend(nav);
        Some(rows)
    }

    /// The `n` words offered for what is typed now: those that complete the
    /// word being typed, or, before its first letter, the likeliest next
    /// words (so that a whole word can cost one selection).
    fn refresh_words(&mut self, n: usize) {
        let (word, previous) = (crate::predict::current_word(&self.echo), crate::predict::previous_word(&self.echo));
        let key = format!("{previous}\t{word}\t{n}");
        if key == self.laid.words_for {
            return;
        }
        self.laid.words = match self.predictor.as_ref() {
            Some(p) if n > 0 => {
                if word.is_empty() {
                    p.suggest_next(previous, n)
                } else {
                    p.suggest_after(previous, word, n)
                }
            }
            _ => Vec::new(),
        };
        self.laid.words_for = key;
    }

    /// How many of the rows kept for the predicted words the words offered
    /// now leave empty (kept, so that the keys stay where they are).
    fn missing_word_rows(&self) -> usize {
        self.laid.word_rows.0.saturating_sub(self.laid.words.len().div_ceil(self.laid.word_rows.1.max(1)))
    }

    /// A target's size: the layout's, or a keyboard's own for its keys,
    /// words and navigation row.
    fn target_size(&self, target: Target, size: [f32; 2]) -> [f32; 2] {
        match (self.laid.keys, target) {
            (None, _) => size,
            (Some(k), Target::Item(i)) => {
                let u = self.laid.key_units.get(i).copied().unwrap_or(1) as f32;
                [u * k.key[0] + (u - 1.0) * TARGET_GAP, k.key[1]]
            }
            (Some(k), Target::Word(_)) => k.word,
            (Some(k), _) => k.nav,
        }
    }

    /// The targets of what is shown (the menu, the editor, or the keyboard
    /// writing into the editor), their rows and their size; "Edit menu"
    /// (on the title line) is scanned last, in a row of its own.
    fn full_layout(&mut self, menu: &Menu, width: f32, height: f32) -> (Vec<usize>, [f32; 2]) {
        let (mut rows, size) = if self.editing && self.entry.is_none() {
            self.laid.keys = None;
            self.edit_layout(menu, width, height)
        } else {
            let rows = self.layout(menu, width, height);
            (rows, self.laid.keys.map_or(TARGET_SIZE, |k| k.key))
        };
        if self.entry.is_none() {
            self.laid.targets.push(Target::EditMenu);
            rows.push(1);
        }
        self.laid.rows.clone_from(&rows);
        (rows, size)
    }

    /// Draws the panel; returns what a selection asks the app to do.
    pub fn show(&mut self, ui: &mut egui::Ui, t_ms: f64) -> Option<Outcome> {
        let menu = self.nav.current().clone();
        let before = (self.nav.depth(), self.nav.current_name().to_string(), self.laid.page, self.editing, self.edit_page, self.entry.is_some());
        if self.entry.is_some() {
            self.entry_keys(ui);
        }
        let lit = if self.scanning { self.scanner.lit() } else { 0..0 };
        let toggle = self.laid.targets.iter().position(|t| *t == Target::EditMenu);
        let mut chosen = None;
        // One line, always: the title, "Edit menu" at the right edge, and the
        // echo line in the room between, showing the end of the text. (Wrapped,
        // a long echo line pushed "Edit menu" onto a second line, and the
        // page lost a row of keys in mid-sentence.)
        ui.horizontal(|ui| {
            if let Some(line) = self.entry_line() {
                // Writing a name or a text for the editor: it shows here.
                ui.heading(RichText::new(line).size(28.0).monospace());
                return;
            }
            // The title in the room "Edit menu" leaves, cut short where it is
            // longer: first, it pushed the button past a narrow side dock's
            // right edge (zoom 3: keyboard-more's at x 215–312 of 200).
            let edit = RichText::new(self.target_label(Target::EditMenu, &menu)).size(18.0);
            let edit_w = egui::WidgetText::from(edit.clone()).into_galley(ui, Some(egui::TextWrapMode::Extend), f32::INFINITY, egui::TextStyle::Button).size().x
                + 2.0 * ui.spacing().button_padding.x
                + ui.spacing().item_spacing.x;
            let title_room = (ui.available_width() - edit_w).max(0.0);
            ui.scope(|ui| {
                ui.set_max_width(title_room);
                ui.add(egui::Label::new(RichText::new(&menu.title).size(28.0).heading()).truncate());
            });
            let keyboard = self.nav.current_name().starts_with("keyboard");
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let b = super::style::target_button(ui, edit, toggle.is_some_and(|k| lit.contains(&k)));
                let r = ui.add(b);
                if self.act.target(ui, &r, self.dwell_ms) {
                    chosen = Some(Target::EditMenu);
                }
                if keyboard {
                    // The echo line: what was typed, so the user sees it without
                    // looking away (the application may be under the menu).
                    let font = egui::FontId::monospace(24.0);
                    let char_w = ui.fonts_mut(|f| f.glyph_width(&font, 'm')).max(1.0);
                    let room = ((ui.available_width() - 8.0) / char_w).floor().max(8.0) as usize;
                    let line = echo_line(&self.echo, room);
                    ui.add(egui::Label::new(RichText::new(line).font(font)).wrap_mode(egui::TextWrapMode::Truncate));
                }
            });
        });
        let editor = self.editing && self.entry.is_none();
        if editor {
            // The columns' names.
            ui.horizontal(|ui| {
                for name in ["Name", "Does", "With"] {
                    ui.label(RichText::new(name).size(18.0).strong());
                }
            });
        }
        let (rows, size) = self.full_layout(&menu, ui.available_width(), ui.available_height());
        if self.scanning {
            self.scanner.tick(t_ms, &rows);
        }
        let lit = if self.scanning { self.scanner.lit() } else { 0..0 };
        // The words' rows are kept when fewer words (or none) are offered:
        // the keys stay where they are.
        let missing = self.missing_word_rows();
        let mut kept = missing == 0;
        let targets = self.laid.targets.clone();
        let name = self.nav.current_name().to_string();
        let mut k = 0;
        for n in &rows {
            if !kept && k >= self.laid.words.len() {
                ui.add_space(missing as f32 * (self.laid.keys.map_or(TARGET_SIZE[1], |k| k.key[1]) + TARGET_GAP));
                kept = true;
            }
            ui.horizontal(|ui| {
                ui.spacing_mut().item_spacing.x = TARGET_GAP;
                for target in &targets[k..k + n] {
                    k += 1;
                    if *target == Target::EditMenu {
                        continue; // on the title line
                    }
                    // Each target's identity is its menu and its place in
                    // it, not how many targets came before it: the words'
                    // row filling as a word is typed changes no key, and a
                    // key that fired stays spent under the resting pointer.
                    ui.scope_builder(egui::UiBuilder::new().scope_id(egui::Id::unique(("menu-target", name.as_str(), *target))), |ui| {
                        let at = self.target_size(*target, size);
                        // A keyboard's small keys: a font that fits them, and
                        // a label too long for one line cut short, never
                        // wrapped (wrapped, it grew the key past its row).
                        let label = self.target_label(*target, &menu);
                        let (font, wrap) = match self.laid.keys {
                            Some(_) => {
                                // Smaller type for a label wider than its key, down to 12 points.
                                let font = (at[1] * 0.45).clamp(14.0, 22.0);
                                let room = at[0] - 2.0 * ui.spacing().button_padding.x - 4.0;
                                let wide = ui.fonts_mut(|f| f.layout_no_wrap(label.clone(), egui::FontId::proportional(font), egui::Color32::WHITE).size().x);
                                let font = if wide > room { (font * room / wide).max(12.0) } else { font };
                                (font, egui::TextWrapMode::Truncate)
                            }
                            None => (if editor { 18.0 } else { 22.0 }, egui::TextWrapMode::Wrap),
                        };
                        let text = RichText::new(label).size(font);
                        let b = super::style::target_button(ui, text, lit.contains(&(k - 1)));
                        // Every target the size the layout planned, a long label inside it.
                        let resp = ui.add_sized(egui::vec2(at[0], at[1]), b.wrap_mode(wrap));
                        // A click or a dwell: once, until the pointer leaves.
                        if self.act.target(ui, &resp, self.dwell_ms) {
                            chosen = Some(*target);
                        }
                    });
                }
            });
            ui.add_space(TARGET_GAP - ui.spacing().item_spacing.y);
        }
        if (editor || self.entry.is_some()) && !self.message.is_empty() {
            ui.label(RichText::new(&self.message).size(18.0));
        }
        let outcome = chosen.and_then(|t| self.activate(t));
        if (self.nav.depth(), self.nav.current_name().to_string(), self.laid.page, self.editing, self.edit_page, self.entry.is_some()) != before {
            // Another menu, page or editor view came under the pointer: nothing of it fires by itself.
            self.act.relayout(ui.ctx());
            self.scanner.reset(t_ms);
        }
        outcome
    }

}

/// The shipped menus in a panel whose profile folder is `dir`, with the
/// keyboard menu open (tests).
#[cfg(test)]
pub(crate) fn keyboard_panel(dir: &std::path::Path) -> MenuPanel {
    let menus = crate::menus::load_dir(&crate::data_dir().join("menus")).expect("menus");
    let mut panel = MenuPanel::new(Navigator::new(menus), dir.to_path_buf(), 3, false, 1200.0, 1000.0);
    assert!(panel.nav.open("keyboard"));
    panel
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Measuring another layout leaves the panel as it was laid out and
    /// shown: the page the user is on, the words offered, the targets and
    /// their sizes, and where it is docked.
    #[test]
    fn measuring_another_layout_changes_nothing_of_the_one_shown() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let mut panel = keyboard_panel(tmp.path());
        let _ = panel.plan_rects(400.0, 300.0);
        assert!(panel.laid.pages > 1, "the keyboard is paged in a small panel");
        panel.laid.page = 1;
        let _ = panel.plan_rects(400.0, 300.0);
        let (before, wide) = (panel.laid.clone(), panel.wide);
        for (w, h, wide) in [(1280.0, 264.0, true), (600.0, 700.0, false), (300.0, 200.0, false)] {
            let room = panel.page_room(w, h, wide);
            assert!(room.holds > 0, "{w}x{h}: {room:?}");
        }
        assert_eq!(panel.laid, before);
        assert_eq!(panel.wide, wide);
        assert_eq!(panel.page(), (1, before.pages), "still on the page the user turned to");
    }

    #[test]
    fn the_echo_line_shows_the_end_of_the_text_or_says_nothing_is_typed_whole() {
        assert_eq!(echo_line("", 40), "Typed: (nothing yet)");
        // Too narrow for the whole note: a dash, not its cut end ("…g yet)").
        assert_eq!(echo_line("", 14), "Typed: –");
        assert_eq!(echo_line("hello world", 14), "Typed: …world_");
        assert_eq!(echo_line("hi", 14), "Typed: hi_");
    }

    #[test]
    fn keys_are_packed_in_order_and_a_wide_key_starts_a_row_it_does_not_fit() {
        let plain = |u: &[usize]| u.iter().map(|u| (*u, false)).collect::<Vec<_>>();
        assert_eq!(pack(&plain(&[2, 2, 1, 1, 1]), 4), vec![2, 3]);
        assert_eq!(pack(&plain(&[1, 1, 1, 2]), 4), vec![3, 1]);
        assert_eq!(pack(&plain(&[3]), 2), Vec::<usize>::new(), "wider than a row");
        assert_eq!(pack(&[(1, false), (1, true), (1, false), (1, true)], 10), vec![1, 2, 1], "a key that starts a row");
        assert_eq!((key_units("e"), key_units("Space"), key_units("Punctuation and arrows")), (1, 2, 3));
    }

    /// The grid holds every key with the largest keys that fit, and none
    /// when keys would be smaller than `MIN_KEY`.
    #[test]
    fn the_key_grid_gives_the_largest_keys_that_hold_every_key() {
        let units = [(1, false); 30];
        let (cols, key) = key_grid(&units, 1280.0, 264.0, 2).expect("a wide, low panel holds 30 keys");
        assert!(key[0] >= MIN_KEY[0] && key[1] >= MIN_KEY[1], "{key:?}");
        let rows = pack(&units, cols).len() + 2;
        assert!(rows as f32 * (key[1] + TARGET_GAP) <= 264.0 + 0.01 && cols as f32 * (key[0] + TARGET_GAP) <= 1280.0 + TARGET_GAP + 0.01, "{cols} {key:?}");
        // No other column count gives a larger smaller side.
        for c in 1..=30 {
            let r = pack(&units, c).len() + 2;
            let (w, h) = ((1280.0 - (c as f32 - 1.0) * TARGET_GAP) / c as f32, (264.0 - r as f32 * TARGET_GAP) / r as f32);
            if w >= MIN_KEY[0] && h >= MIN_KEY[1] {
                assert!(w.min(MAX_KEY[0]).min(h.min(MAX_KEY[1])) <= key[0].min(key[1]) + 0.5, "{c} columns give {w}x{h}, more than {key:?}");
            }
        }
        assert!(key_grid(&units, 300.0, 200.0, 2).is_none(), "too small: the paged layout");
    }
}
