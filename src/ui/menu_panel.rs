//! The navigation menu as drawn: large targets selected by a click (the
//! switch clicks the real pointer), by dwell, or by single-switch scanning; and
//! the menu editor (add, remove, reorder and edit items and submenus, saved to
//! the user's `menus/` folder).

use std::path::PathBuf;

use eframe::egui::{self, RichText};

use crate::menus::{Item, Launch, Menu, MenuAction, Navigator, Outcome, Scanner};

/// What kind of action an edited item has (the editor's choice list).
const KINDS: [&str; 10] = ["submenu", "keys", "type", "url", "launch", "back", "home", "pause", "close", "next_monitor"];

fn kind_of(a: &MenuAction) -> &'static str {
    match a {
        MenuAction::Submenu(_) => "submenu",
        MenuAction::Keys(_) => "keys",
        MenuAction::Type(_) => "type",
        MenuAction::Url(_) => "url",
        MenuAction::Launch(_) => "launch",
        MenuAction::Back => "back",
        MenuAction::Home => "home",
        MenuAction::Pause => "pause",
        MenuAction::Close => "close",
        MenuAction::NextMonitor => "next_monitor",
    }
}

fn value_of(a: &MenuAction) -> String {
    match a {
        MenuAction::Submenu(s) | MenuAction::Type(s) | MenuAction::Url(s) => s.clone(),
        MenuAction::Keys(k) => k.to_string(),
        MenuAction::Launch(l) => std::iter::once(l.program.clone()).chain(l.args.iter().cloned()).collect::<Vec<_>>().join(" "),
        _ => String::new(),
    }
}

/// The action an edited item describes; a chord that does not parse (yet:
/// the user may be typing it) is an error in words.
fn make(kind: &str, value: &str) -> Result<MenuAction, String> {
    Ok(match kind {
        "submenu" => MenuAction::Submenu(value.trim().to_string()),
        "keys" => MenuAction::Keys(crate::command::Chord::parse(value).map_err(|e| e.to_string())?),
        "type" => MenuAction::Type(value.to_string()),
        "url" => MenuAction::Url(value.to_string()),
        "launch" => {
            let mut words = value.split_whitespace().map(str::to_string);
            let program = words.next().ok_or("give the program to start")?;
            MenuAction::Launch(Launch { program, args: words.collect() })
        }
        "home" => MenuAction::Home,
        "pause" => MenuAction::Pause,
        "close" => MenuAction::Close,
        "next_monitor" => MenuAction::NextMonitor,
        _ => MenuAction::Back,
    })
}

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
}

impl Target {
    fn label(self, menu: &Menu, words: &[String]) -> String {
        match self {
            Self::Item(i) => menu.items.get(i).map(|it| it.label.clone()).unwrap_or_default(),
            Self::Word(k) => words.get(k).map(|w| format!("{w}…")).unwrap_or_default(),
            Self::Previous => "Previous".into(),
            Self::More => "More".into(),
            Self::Back => "Back".into(),
            Self::Home => "Home".into(),
            Self::Close => "Close menu".into(),
        }
    }
}

/// A menu target's size, and the space between targets (points).
const TARGET_SIZE: [f32; 2] = [150.0, 80.0];
const TARGET_GAP: f32 = 12.0;

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
    /// The page of the open menu that is shown (a menu longer than the
    /// window is paged with Previous and More), and which menu (and depth)
    /// it is of: another menu, however it was opened, starts at its first page.
    page: usize,
    page_of: (String, usize),
    /// The targets as last shown, in scanning order, and their rows.
    targets: Vec<Target>,
    rows: Vec<usize>,
    /// Docked along the top or bottom edge: as many columns as fit the
    /// width (at least `columns`).
    pub wide: bool,
    /// What the keyboard menus typed, as the user's application should now
    /// show it (the last line, at most `ECHO_CHARS`): the echo line.
    echo: String,
    /// Word prediction (`None` when the word list could not be read), the
    /// words shown for the word being typed, and that word.
    predictor: Option<crate::predict::Predictor>,
    words: Vec<String>,
    words_for: String,
    /// Whether the layout has the words' row (typing, and room for it).
    words_row: bool,
}

/// At most this many predicted words, in one row above the keys.
const MAX_WORDS: usize = 4;

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
            page: 0,
            page_of: (String::new(), 0),
            targets: Vec::new(),
            rows: Vec::new(),
            wide: false,
            echo: String::new(),
            predictor: None,
            words: Vec::new(),
            words_for: String::new(),
            words_row: false,
        }
        .with_prediction()
    }

    /// Loads the word list and this profile's learned words (`words.txt`
    /// beside its menus folder); without the list, no prediction, and the message says why.
    fn with_prediction(mut self) -> Self {
        match crate::predict::Predictor::shipped() {
            Ok(mut p) => {
                if let Some(path) = self.words_path()
                    && let Err(e) = p.load_user(&path)
                {
                    tracing::warn!("{e}");
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
        self.words.clear();
    }

    /// The word prediction shows these words now (keyboard menus).
    #[must_use]
    pub fn predictions(&self) -> &[String] {
        &self.words
    }

    /// The word being typed has ended: it is learned.
    fn end_word(&mut self) {
        let word = crate::predict::current_word(&self.echo).to_string();
        self.learn_word(&word);
    }

    /// Learns the word just finished (before a space, a return, a punctuation
    /// mark) and saves the profile's words, unless the profile is read-only.
    fn learn_word(&mut self, word: &str) {
        let path = self.words_path().filter(|_| self.read_only.is_none());
        let Some(p) = self.predictor.as_mut() else { return };
        if !crate::predict::is_word(word) {
            return;
        }
        p.learn(word);
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
        let target = *self.targets.get(i)?;
        let outcome = self.activate(target);
        self.scanner.reset(t_ms);
        outcome
    }

    /// The targets on screen, in scanning order (the predicted words, the
    /// page's items, then the navigation row).
    #[must_use]
    pub fn targets(&self) -> &[Target] {
        &self.targets
    }

    /// How many of [`MenuPanel::targets`] each scanning row holds, as last shown.
    #[must_use]
    pub fn rows(&self) -> &[usize] {
        &self.rows
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
                let word = self.words.get(k)?.clone();
                let typed = crate::predict::current_word(&self.echo).chars().count();
                let rest: String = word.chars().skip(typed).collect();
                // The word itself is learned as it ends (the space below).
                Some(Outcome::Type(format!("{rest} ")))
            }
            Target::Previous => {
                self.page = self.page.saturating_sub(1);
                Some(Outcome::Moved)
            }
            Target::More => {
                self.page += 1;
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
        };
        if let Some(o) = &outcome
            && from_keyboard
        {
            self.echo_outcome(o);
        }
        outcome
    }

    /// Lays the panel out for `width`×`height` points as `show` does, and
    /// returns the rows (for measurements and tests; see [`MenuPanel::targets`]).
    pub fn plan(&mut self, width: f32, height: f32) -> Vec<usize> {
        let menu = self.nav.current().clone();
        self.layout(&menu, width, height)
    }

    /// Does what `target` is for, as a click, a dwell or a scanning select on it would.
    pub fn choose(&mut self, target: Target) -> Option<Outcome> {
        self.activate(target)
    }

    /// The menu's window appeared, or its layout changed from outside (a
    /// zoom, a profile): nothing now under the pointer fires by itself.
    pub fn relayout(&mut self, ctx: &egui::Context) {
        self.act.relayout(ctx);
    }

    /// A button through the activation path: a click or a dwell.
    fn button(&mut self, ui: &mut egui::Ui, text: RichText) -> bool {
        let r = ui.button(text);
        self.act.target(ui, &r, self.dwell_ms)
    }

    /// The page's items and the navigation row, laid out for `height` points.
    fn layout(&mut self, menu: &Menu, width: f32, height: f32) -> Vec<usize> {
        let fit_width = ((width + TARGET_GAP) / (TARGET_SIZE[0] + TARGET_GAP)).floor() as usize;
        // Never more columns than fit: a target cut off at the window's edge is half a target.
        let cols = if self.wide { self.columns.max(fit_width.min(12)) } else { self.columns.min(fit_width).max(1) };
        let of = (self.nav.current_name().to_string(), self.nav.depth());
        if of != self.page_of {
            self.page = 0;
            self.page_of = of;
        }
        let depth = self.nav.depth();
        // The navigation row holds at most five targets, as many to a row as
        // the width allows, so that it takes as little height as it can.
        let nav_cols = fit_width.max(cols).max(1);
        let nav_rows = 5usize.div_ceil(nav_cols);
        let row_h = TARGET_SIZE[1] + TARGET_GAP;
        let rows_left = ((height / row_h).floor() as usize).saturating_sub(nav_rows);
        // Keyboard menus: the words that complete the one being typed, in a
        // row of their own, kept even when empty so the keys never move, but
        // only where a row of keys fits besides: the navigation row must
        // never be pushed off the window.
        let typing = self.nav.current_name().starts_with("keyboard");
        self.words_row = typing && self.predictor.is_some() && rows_left >= 2;
        let word = if self.words_row { crate::predict::current_word(&self.echo).to_string() } else { String::new() };
        if word != self.words_for {
            self.words = self.predictor.as_ref().map(|p| p.suggest(&word, MAX_WORDS.min(cols))).unwrap_or_default();
            self.words_for = word;
        }
        let fit = rows_left.saturating_sub(usize::from(self.words_row)).max(1);
        let per_page = fit * cols;
        let pages = menu.items.len().div_ceil(per_page).max(1);
        self.page = self.page.min(pages - 1);
        let first = self.page * per_page;
        let shown = first..(first + per_page).min(menu.items.len());
        self.targets = (0..self.words.len()).map(Target::Word).collect();
        self.targets.extend(shown.clone().map(Target::Item));
        let mut nav = Vec::new();
        if self.page > 0 {
            nav.push(Target::Previous);
        }
        if self.page + 1 < pages {
            nav.push(Target::More);
        }
        if depth > 1 {
            nav.extend([Target::Back, Target::Home]);
        }
        nav.push(Target::Close);
        let mut rows = Scanner::rows_of(self.words.len(), cols);
        rows.extend(Scanner::rows_of(shown.len(), cols));
        rows.extend(Scanner::rows_of(nav.len(), nav_cols));
        self.targets.extend(nav);
        self.rows.clone_from(&rows);
        rows
    }

    /// Draws the panel; returns what a selection asks the app to do.
    pub fn show(&mut self, ui: &mut egui::Ui, t_ms: f64) -> Option<Outcome> {
        let menu = self.nav.current().clone();
        let page = self.page;
        // Wrapped: on a narrow window the echo line and Edit menu go to the next line, not off the edge.
        ui.horizontal_wrapped(|ui| {
            ui.heading(RichText::new(&menu.title).size(28.0));
            if self.nav.current_name().starts_with("keyboard") {
                // The echo line: what was typed, so the user sees it without
                // looking away (the application may be under the menu).
                let shown = if self.echo.is_empty() { "(nothing yet)".to_string() } else { format!("{}_", self.echo) };
                ui.label(RichText::new(format!("Typed: {shown}")).size(24.0).monospace());
            }
            let label = if self.editing { "Done editing" } else { "Edit menu" };
            if self.button(ui, RichText::new(label).size(18.0)) {
                self.editing = !self.editing;
                self.act.relayout(ui.ctx());
            }
        });
        if self.editing {
            self.editor(ui, &menu);
            return None;
        }
        let rows = self.layout(&menu, ui.available_width(), ui.available_height());
        if self.scanning {
            self.scanner.tick(t_ms, &rows);
        }
        let lit = if self.scanning { self.scanner.lit() } else { 0..0 };
        if self.words.is_empty() && self.words_row {
            // The predictions' row, empty for now: the keys stay where they are.
            ui.add_space(TARGET_SIZE[1] + TARGET_GAP);
        }
        let mut chosen = None;
        let targets = self.targets.clone();
        let name = self.nav.current_name().to_string();
        let mut k = 0;
        for n in &rows {
            ui.horizontal(|ui| {
                ui.spacing_mut().item_spacing.x = TARGET_GAP;
                for target in &targets[k..k + n] {
                    // Each target's identity is its menu and its place in
                    // it, not how many targets came before it: the words'
                    // row filling as a word is typed changes no key, and a
                    // key that fired stays spent under the resting pointer.
                    ui.scope_builder(egui::UiBuilder::new().scope_id(egui::Id::unique(("menu-target", name.as_str(), *target))), |ui| {
                        let b = super::style::target_button(ui, RichText::new(target.label(&menu, &self.words)).size(22.0), lit.contains(&k));
                        // Every target the same size, a long label wrapped inside it: the grid is what the layout planned.
                        let resp = ui.add_sized(egui::vec2(TARGET_SIZE[0], TARGET_SIZE[1]), b.wrap_mode(egui::TextWrapMode::Wrap));
                        // A click or a dwell: once, until the pointer leaves.
                        if self.act.target(ui, &resp, self.dwell_ms) {
                            chosen = Some(*target);
                        }
                    });
                    k += 1;
                }
            });
            ui.add_space(TARGET_GAP - ui.spacing().item_spacing.y);
        }
        let before = (self.nav.depth(), self.nav.current_name().to_string());
        let outcome = chosen.and_then(|t| self.activate(t));
        if (self.nav.depth(), self.nav.current_name().to_string()) != before || self.page != page {
            // Another menu or page came under the pointer: nothing of it fires by itself.
            self.act.relayout(ui.ctx());
            self.scanner.reset(t_ms);
        }
        outcome
    }

    fn editor(&mut self, ui: &mut egui::Ui, menu: &Menu) {
        let mut edited = menu.clone();
        let mut changed = false;
        let mut remove = None;
        let mut swap = None;
        let name = self.nav.current_name().to_string();
        let mut drafts = std::mem::take(&mut self.drafts);
        let mut problem = None;
        let (act, dwell_ms) = (&mut self.act, self.dwell_ms);
        egui::Grid::new("menu-editor").spacing([8.0, 8.0]).show(ui, |ui| {
            for (i, it) in edited.items.iter_mut().enumerate() {
                changed |= ui.add(egui::TextEdit::singleline(&mut it.label).desired_width(160.0)).changed();
                let key = (name.clone(), i);
                let (mut kind, mut value) = drafts.get(&key).cloned().unwrap_or_else(|| (kind_of(&it.action).to_string(), value_of(&it.action)));
                let mut edit = false;
                egui::ComboBox::from_id_salt(("kind", i)).selected_text(kind.clone()).show_ui(ui, |ui| {
                    for k in KINDS {
                        edit |= ui.selectable_value(&mut kind, k.to_string(), k).changed();
                    }
                });
                edit |= ui.add(egui::TextEdit::singleline(&mut value).desired_width(180.0)).changed();
                if edit || drafts.contains_key(&key) {
                    // Only a valid action is taken (and saved); until then the edit is a draft.
                    match make(&kind, &value) {
                        Ok(a) => {
                            changed |= a != it.action;
                            it.action = a;
                            drafts.remove(&key);
                        }
                        Err(why) => {
                            problem = Some(format!("\"{}\" is not saved yet: {why}", it.label));
                            drafts.insert(key, (kind, value));
                        }
                    }
                }
                let mut press = |ui: &mut egui::Ui, text: &str| {
                    let r = ui.button(RichText::new(text).size(18.0));
                    act.target(ui, &r, dwell_ms)
                };
                if press(ui, "Up") && i > 0 {
                    swap = Some((i - 1, i));
                }
                if press(ui, "Down") {
                    swap = Some((i, i + 1));
                }
                if press(ui, "Remove") {
                    remove = Some(i);
                }
                ui.end_row();
            }
        });
        if let Some((a, b)) = swap.filter(|(_, b)| *b < edited.items.len()) {
            edited.items.swap(a, b);
            changed = true;
            drafts.clear();
            self.act.relayout(ui.ctx());
        }
        if let Some(i) = remove {
            edited.items.remove(i);
            changed = true;
            drafts.clear();
            self.act.relayout(ui.ctx());
        }
        self.drafts = drafts;
        ui.horizontal(|ui| {
            if self.button(ui, RichText::new("Add item").size(18.0)) {
                edited.items.push(Item { label: "New item".into(), action: crate::command::Chord::parse("enter").map_or(MenuAction::Back, MenuAction::Keys) });
                changed = true;
            }
            if self.button(ui, RichText::new("Add submenu").size(18.0)) {
                let name = (1..).map(|n| format!("menu-{n}")).find(|n| !self.nav.has(n)).unwrap_or_else(|| "menu-new".into());
                let sub = Menu { title: "New menu".into(), items: vec![Item { label: "Back".into(), action: MenuAction::Back }] };
                self.save_menu(&name, &sub);
                self.nav.insert(&name, sub);
                edited.items.push(Item { label: "New menu".into(), action: MenuAction::Submenu(name) });
                changed = true;
            }
        });
        if changed {
            self.save_menu(&name, &edited);
            if let Some(m) = self.nav.current_mut() {
                *m = edited;
            }
        }
        if let Some(p) = problem {
            self.message = p;
        }
        if !self.message.is_empty() {
            ui.label(&self.message);
        }
    }

    fn save_menu(&mut self, name: &str, menu: &Menu) {
        if let Some(why) = &self.read_only {
            self.message = format!("Not saved: {why}");
            return;
        }
        let path = self.dir.join(format!("{name}.toml"));
        self.message = match menu.save(&path) {
            Ok(()) => format!("Saved {}", path.display()),
            Err(e) => format!("Not saved: {e}"),
        };
    }
}
