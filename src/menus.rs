//! Hierarchical navigation menus (Akram, Tiberii & Betke): categories →
//! applications → actions, defined in `menus/*.toml`, selected by dwell or by
//! the bound switch, or by single-switch scanning.
//!
//! A menu file:
//!
//! ```toml
//! title = "Web browser"
//! [[items]]
//! label = "New tab"
//! keys = "ctrl+t"
//! [[items]]
//! label = "Open the news"
//! url = "https://www.bbc.co.uk/news"
//! [[items]]
//! label = "Back"
//! action = "back"
//! ```
//!
//! Each item does exactly one thing: `submenu = "file stem"`, `launch = {
//! program, args }` (run without a shell), `type = "text"`, `keys = "chord"`,
//! `url = "…"`, or `action = "back" | "home" | "pause" | "close" | "next_monitor" | "point_scan" | "settings"`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The menu the navigation starts from (`menus/main.toml`).
pub const HOME: &str = "main";

/// A program to start, without a shell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Launch {
    pub program: String,
    #[serde(default)]
    pub args: Vec<String>,
}

/// One item as written in a file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemFile {
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submenu: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch: Option<Launch>,
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<crate::command::Chord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// Say this aloud (a saved phrase).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub say: Option<String>,
    /// A keyboard menu's key that starts a new row of keys (the rows of a
    /// QWERTY keyboard).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub new_row: bool,
}

/// A menu file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MenuFile {
    pub title: String,
    #[serde(default)]
    pub items: Vec<ItemFile>,
}

/// What an item does, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MenuAction {
    Submenu(String),
    Launch(Launch),
    Type(String),
    Keys(crate::command::Chord),
    Url(String),
    Back,
    Home,
    Pause,
    /// Hide the navigation overlay.
    Close,
    /// Move the pointer on to the next monitor.
    NextMonitor,
    /// Start point scanning (the menu closes: the lines sweep the desktop).
    PointScan,
    /// Open the Settings page (in the main window).
    Settings,
    /// Speak the text typed with the keyboard menus aloud.
    Speak,
    /// Speak this phrase aloud.
    Say(String),
}

/// A validated item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub label: String,
    pub action: MenuAction,
    /// On a keyboard menu: this key starts a new row.
    pub new_row: bool,
}

/// A validated menu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Menu {
    pub title: String,
    pub items: Vec<Item>,
}

/// Menu failures; each names the file and the item.
#[derive(Debug, thiserror::Error)]
pub enum MenuError {
    #[error("cannot read {path}: {reason}")]
    Read { path: PathBuf, reason: String },
    #[error("cannot write {path}: {source} (check that the folder is writable and the disk is not full)")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("no menus in {0} (it needs at least {HOME}.toml)")]
    Empty(PathBuf),
}

impl ItemFile {
    fn validate(&self) -> Result<MenuAction, String> {
        let mut found = Vec::new();
        if let Some(s) = &self.submenu {
            found.push(MenuAction::Submenu(s.clone()));
        }
        if let Some(l) = &self.launch {
            if l.program.trim().is_empty() {
                return Err("`launch.program` is empty".into());
            }
            found.push(MenuAction::Launch(l.clone()));
        }
        if let Some(t) = &self.text {
            found.push(MenuAction::Type(t.clone()));
        }
        if let Some(k) = &self.keys {
            found.push(MenuAction::Keys(k.clone()));
        }
        if let Some(u) = &self.url {
            found.push(MenuAction::Url(u.clone()));
        }
        if let Some(t) = &self.say {
            if t.trim().is_empty() {
                return Err("`say` is empty".into());
            }
            found.push(MenuAction::Say(t.clone()));
        }
        if let Some(a) = &self.action {
            found.push(match a.as_str() {
                "back" => MenuAction::Back,
                "home" => MenuAction::Home,
                "pause" => MenuAction::Pause,
                "close" => MenuAction::Close,
                "next_monitor" => MenuAction::NextMonitor,
                "point_scan" => MenuAction::PointScan,
                "settings" => MenuAction::Settings,
                "speak" => MenuAction::Speak,
                other => return Err(format!("unknown action {other:?} (use back, home, pause, close, next_monitor, point_scan, settings or speak)")),
            });
        }
        match found.len() {
            1 => Ok(found.remove(0)),
            0 => Err("does nothing: give it one of submenu, launch, type, keys, url, say or action".into()),
            _ => Err("does more than one thing: give it only one of submenu, launch, type, keys, url, say or action".into()),
        }
    }
}

/// Parses one menu file's text.
///
/// # Errors
/// TOML errors (with the line) and invalid items (with their number and label).
pub fn parse(path: &Path, text: &str) -> Result<Menu, MenuError> {
    let invalid = |message: String| MenuError::Invalid { path: path.to_path_buf(), message };
    let file: MenuFile = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        invalid(line.map_or_else(|| e.message().to_string(), |l| format!("line {l}{}: {}", where_in_menu(text, l), e.message())))
    })?;
    let mut items = Vec::with_capacity(file.items.len());
    for (i, it) in file.items.iter().enumerate() {
        if it.label.trim().is_empty() {
            return Err(invalid(format!("item {} has no label", i + 1)));
        }
        let action = it.validate().map_err(|m| invalid(format!("item {} ({:?}) {m}", i + 1, it.label)))?;
        items.push(Item { label: it.label.clone(), action, new_row: it.new_row });
    }
    Ok(Menu { title: file.title, items })
}

/// The field set on 1-based `line` of a menu file, and the label of the
/// item it belongs to, as ", item \"Mail\", field `keys`" (what is known).
fn where_in_menu(text: &str, line: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let Some(at) = line.checked_sub(1).filter(|i| *i < lines.len()) else { return String::new() };
    let mut out = String::new();
    let start = lines[..=at].iter().rposition(|l| l.trim() == "[[items]]");
    if let Some(start) = start {
        let end = lines[start + 1..].iter().position(|l| l.trim().starts_with('[')).map_or(lines.len(), |e| start + 1 + e);
        let label = lines[start..end].iter().find_map(|l| l.split_once('=').filter(|(k, _)| k.trim() == "label").map(|(_, v)| v.trim().trim_matches('"').to_string()));
        if let Some(label) = label {
            out = format!("{out}, item {label:?}");
        }
    }
    if let Some((key, _)) = lines[at].split_once('=') {
        out = format!("{out}, field `{}`", key.trim());
    }
    out
}

/// Loads every `*.toml` in `dir` (named by file stem) and checks that every submenu exists.
///
/// # Errors
/// An unreadable folder or file, an invalid menu, a missing submenu or home menu.
pub fn load_dir(dir: &Path) -> Result<BTreeMap<String, Menu>, MenuError> {
    let entries = std::fs::read_dir(dir).map_err(|e| MenuError::Read { path: dir.to_path_buf(), reason: e.to_string() })?;
    let mut menus = BTreeMap::new();
    for e in entries.filter_map(Result::ok) {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let bytes = crate::fs::read_regular(&p, crate::fs::PROFILE_FILE_LIMIT)
            .map_err(|e| MenuError::Read { path: p.clone(), reason: e.to_string() })?
            .ok_or_else(|| MenuError::Read { path: p.clone(), reason: "it is gone".into() })?;
        let text = String::from_utf8(bytes).map_err(|_| MenuError::Invalid { path: p.clone(), message: "not UTF-8 text (save it as UTF-8)".into() })?;
        let stem = p.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
        menus.insert(stem, parse(&p, &text)?);
    }
    if !menus.contains_key(HOME) {
        return Err(MenuError::Empty(dir.to_path_buf()));
    }
    for (name, m) in &menus {
        for it in &m.items {
            if let MenuAction::Submenu(s) = &it.action
                && !menus.contains_key(s)
            {
                return Err(MenuError::Invalid {
                    path: dir.join(format!("{name}.toml")),
                    message: format!("item {:?} opens submenu {s:?}, but there is no {s}.toml", it.label),
                });
            }
        }
    }
    Ok(menus)
}

/// Menus that no item opens but a setting does (`ui.keyboard`).
pub const SETTING_MENUS: &[&str] = &["keyboard-qwerty"];

/// Adds to `menus`, from `spare`, the menus `roots` and every submenu the
/// menus then open, that `menus` lacks; returns their names.
fn fill_from(menus: &mut BTreeMap<String, Menu>, spare: &mut BTreeMap<String, Menu>, roots: &[&str]) -> Vec<String> {
    let mut used = Vec::new();
    loop {
        let wanted: Vec<String> = roots
            .iter()
            .map(|r| (*r).to_string())
            .chain(menus.values().flat_map(|m| m.items.iter()).filter_map(|it| if let MenuAction::Submenu(s) = &it.action { Some(s.clone()) } else { None }))
            .filter(|n| !menus.contains_key(n))
            .collect();
        let mut added = false;
        for name in wanted {
            if let Some(m) = spare.remove(&name) {
                used.push(name.clone());
                menus.insert(name, m);
                added = true;
            }
        }
        if !added {
            return used;
        }
    }
}

/// The user's menus, file by file: a file that cannot be read or parsed is
/// moved aside to `NAME.toml.bak` (never written over) and reported with
/// its error; the others load. A menu that is then missing (the home menu,
/// or a submenu an item opens, or a menu a setting opens: [`SETTING_MENUS`])
/// is taken from `shipped`, in memory only; an
/// item whose submenu exists nowhere is left out and reported. Returns the
/// menus and what had to be done, in words.
///
/// # Errors
/// A folder that cannot be read, a broken file that cannot be moved aside,
/// or no home menu even among the shipped ones.
pub fn load_user_dir(dir: &Path, shipped: &Path) -> Result<(BTreeMap<String, Menu>, Vec<String>), MenuError> {
    let mut notes = Vec::new();
    let mut menus = BTreeMap::new();
    let mut paths: Vec<std::path::PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "toml")).collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(MenuError::Read { path: dir.to_path_buf(), reason: e.to_string() }),
    };
    paths.sort();
    for p in paths {
        let stem = p.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
        let bytes = match crate::fs::read_regular(&p, crate::fs::PROFILE_FILE_LIMIT) {
            Ok(Some(b)) => b,
            Ok(None) => continue,
            Err(crate::fs::ReadError::Io { source, .. }) => return Err(MenuError::Read { path: p.clone(), reason: source.to_string() }),
            Err(e) => {
                // Not a regular file, or far too large: left as it is.
                notes.push(format!("{e}; not used"));
                continue;
            }
        };
        let loaded = String::from_utf8(bytes)
            .map_err(|_| MenuError::Invalid { path: p.clone(), message: "not UTF-8 text (save it as UTF-8)".into() })
            .and_then(|text| parse(&p, &text));
        match loaded {
            Ok(m) => {
                menus.insert(stem, m);
            }
            Err(e) => {
                let bak = crate::fs::backup_path(&p);
                match std::fs::rename(&p, &bak) {
                    Ok(()) => notes.push(format!("{e}; kept as {} and not used", bak.display())),
                    // A read-only folder: the file stays as it is, unused.
                    Err(err) => notes.push(format!("{e}; not used (it could not be moved aside: {err})")),
                }
            }
        }
    }
    let mut spare = load_dir(shipped).unwrap_or_default();
    let mut shipped_used = fill_from(&mut menus, &mut spare, &[HOME]);
    // Menus only a setting opens (the QWERTY keyboard): the shipped ones
    // when the profile has none, without a note (profiles made before they
    // shipped have none).
    let _ = fill_from(&mut menus, &mut spare, SETTING_MENUS);
    // One note for them all (a profile without menus had one per menu).
    if !shipped_used.is_empty() {
        shipped_used.sort();
        let list = shipped_used.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ");
        let (what, are) = if shipped_used.len() == 1 { ("menu", "is the shipped one") } else { ("menus", "are the shipped ones") };
        notes.push(format!("{what} {list} {are} (their files in {} are missing or were set aside)", dir.display()));
    }
    if !menus.contains_key(HOME) {
        return Err(MenuError::Empty(dir.to_path_buf()));
    }
    let names: std::collections::BTreeSet<String> = menus.keys().cloned().collect();
    for (name, m) in &mut menus {
        m.items.retain(|it| match &it.action {
            MenuAction::Submenu(s) if !names.contains(s) => {
                notes.push(format!("{name}.toml: item {:?} opens submenu {s:?}, which exists nowhere; left out", it.label));
                false
            }
            _ => true,
        });
    }
    Ok((menus, notes))
}

impl MenuAction {
    /// The action back in the file's form.
    fn write(&self, it: &mut ItemFile) {
        match self {
            Self::Submenu(s) => it.submenu = Some(s.clone()),
            Self::Launch(l) => it.launch = Some(l.clone()),
            Self::Type(t) => it.text = Some(t.clone()),
            Self::Keys(k) => it.keys = Some(k.clone()),
            Self::Url(u) => it.url = Some(u.clone()),
            Self::Back => it.action = Some("back".into()),
            Self::Home => it.action = Some("home".into()),
            Self::Pause => it.action = Some("pause".into()),
            Self::Close => it.action = Some("close".into()),
            Self::NextMonitor => it.action = Some("next_monitor".into()),
            Self::PointScan => it.action = Some("point_scan".into()),
            Self::Settings => it.action = Some("settings".into()),
            Self::Speak => it.action = Some("speak".into()),
            Self::Say(t) => it.say = Some(t.clone()),
        }
    }
}

impl Menu {
    /// The menu as a file.
    #[must_use]
    pub fn to_file(&self) -> MenuFile {
        MenuFile {
            title: self.title.clone(),
            items: self
                .items
                .iter()
                .map(|i| {
                    let mut f = ItemFile { label: i.label.clone(), new_row: i.new_row, ..ItemFile::default() };
                    i.action.write(&mut f);
                    f
                })
                .collect(),
        }
    }

    /// Writes the menu to `path` atomically.
    ///
    /// # Errors
    /// A folder that cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), MenuError> {
        let text = toml::to_string_pretty(&self.to_file()).map_err(|e| MenuError::Invalid { path: path.to_path_buf(), message: e.to_string() })?;
        crate::fs::write_atomic(path, text.as_bytes()).map_err(|source| MenuError::Write { path: path.to_path_buf(), source })
    }
}

/// What selecting an item asks the app to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The navigation moved (submenu, back, home): redraw.
    Moved,
    /// Start a program, type text, press keys, open a URL.
    Launch(Launch),
    Type(String),
    Keys(crate::command::Chord),
    Url(String),
    Pause,
    Close,
    NextMonitor,
    PointScan,
    Settings,
    /// Speak the typed text.
    Speak,
    /// Speak this phrase.
    Say(String),
}

/// The navigation state: a stack of open menus.
#[derive(Debug, Clone)]
pub struct Navigator {
    menus: BTreeMap<String, Menu>,
    stack: Vec<String>,
    /// Menus opened in another's place (the QWERTY keyboard for the keyboard).
    aliases: BTreeMap<String, String>,
}

impl Navigator {
    #[must_use]
    pub fn new(menus: BTreeMap<String, Menu>) -> Self {
        Self { menus, stack: vec![HOME.to_string()], aliases: BTreeMap::new() }
    }

    /// Opens menu `to` wherever menu `from` would open, when `to` exists
    /// (`None`: `from` itself again).
    pub fn set_alias(&mut self, from: &str, to: Option<&str>) {
        match to.filter(|t| self.menus.contains_key(*t)) {
            Some(t) => {
                self.aliases.insert(from.to_string(), t.to_string());
            }
            None => {
                self.aliases.remove(from);
            }
        }
    }

    /// The menu that opens for `name`.
    #[must_use]
    pub fn resolve<'a>(&'a self, name: &'a str) -> &'a str {
        self.aliases.get(name).map_or(name, String::as_str)
    }

    /// The open menu.
    #[must_use]
    pub fn current(&self) -> &Menu {
        let name = self.stack.last().map_or(HOME, String::as_str);
        self.menus.get(name).or_else(|| self.menus.get(HOME)).unwrap_or_else(|| unreachable_menu())
    }

    /// The open menu, to edit.
    pub fn current_mut(&mut self) -> Option<&mut Menu> {
        let name = self.stack.last().cloned().unwrap_or_else(|| HOME.to_string());
        self.menus.get_mut(&name)
    }

    /// Adds (or replaces) a menu.
    pub fn insert(&mut self, name: &str, menu: Menu) {
        self.menus.insert(name.to_string(), menu);
    }

    /// The menu of that name.
    #[must_use]
    pub fn menu(&self, name: &str) -> Option<&Menu> {
        self.menus.get(name)
    }

    /// Opens the menu `name` above the open one, as a submenu item would
    /// (Back returns); whether it exists.
    pub fn push(&mut self, name: &str) -> bool {
        let name = self.resolve(name).to_string();
        let name = name.as_str();
        let there = self.menus.contains_key(name);
        if there {
            self.stack.push(name.to_string());
        }
        there
    }

    /// Whether a menu of that name exists.
    #[must_use]
    pub fn has(&self, name: &str) -> bool {
        self.menus.contains_key(name)
    }

    /// The open menu's name.
    #[must_use]
    pub fn current_name(&self) -> &str {
        self.stack.last().map_or(HOME, String::as_str)
    }

    /// How deep the navigation is (1 = home).
    #[must_use]
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// Selects item `i` of the open menu.
    pub fn select(&mut self, i: usize) -> Option<Outcome> {
        let action = self.current().items.get(i)?.action.clone();
        Some(match action {
            MenuAction::Submenu(s) => {
                let s = self.resolve(&s).to_string();
                self.stack.push(s);
                Outcome::Moved
            }
            MenuAction::Back => {
                self.back();
                Outcome::Moved
            }
            MenuAction::Home => {
                self.stack.truncate(1);
                Outcome::Moved
            }
            MenuAction::Launch(l) => Outcome::Launch(l),
            MenuAction::Type(t) => Outcome::Type(t),
            MenuAction::Keys(k) => Outcome::Keys(k),
            MenuAction::Url(u) => Outcome::Url(u),
            MenuAction::Pause => Outcome::Pause,
            MenuAction::Close => Outcome::Close,
            MenuAction::NextMonitor => Outcome::NextMonitor,
            MenuAction::PointScan => Outcome::PointScan,
            MenuAction::Settings => Outcome::Settings,
            MenuAction::Speak => Outcome::Speak,
            MenuAction::Say(t) => Outcome::Say(t),
        })
    }

    /// Opens the menu `name` from home (as if reached by its submenu item);
    /// whether it exists.
    pub fn open(&mut self, name: &str) -> bool {
        let name = self.resolve(name).to_string();
        let name = name.as_str();
        if !self.menus.contains_key(name) {
            return false;
        }
        self.stack.truncate(1);
        if name != HOME {
            self.stack.push(name.to_string());
        }
        true
    }

    /// The names of every menu.
    #[must_use]
    pub fn names(&self) -> Vec<String> {
        self.menus.keys().cloned().collect()
    }

    /// Back to the home menu.
    pub fn home(&mut self) {
        self.stack.truncate(1);
    }

    /// Goes one menu up (stays at home).
    pub fn back(&mut self) {
        if self.stack.len() > 1 {
            self.stack.pop();
        }
    }
}

fn unreachable_menu() -> &'static Menu {
    static EMPTY: std::sync::OnceLock<Menu> = std::sync::OnceLock::new();
    EMPTY.get_or_init(|| Menu { title: String::new(), items: Vec::new() })
}

/// Single-switch scanning: the highlight steps through the rows, a switch
/// enters the highlighted row, the highlight steps through its targets, and
/// a switch selects. A row scanned through without a switch returns to the
/// rows. Rows may differ in length (a menu's last row, the row of Previous,
/// More, Back, Home and Close); targets are numbered across all rows.
#[derive(Debug, Clone)]
pub struct Scanner {
    pub step_ms: f64,
    /// How many targets each row holds, as last shown.
    rows: Vec<usize>,
    row: usize,
    item: Option<usize>,
    last_step: f64,
    item_steps: usize,
}

impl Scanner {
    #[must_use]
    pub fn new(step_ms: f64) -> Self {
        Self { step_ms: step_ms.max(100.0), rows: Vec::new(), row: 0, item: None, last_step: 0.0, item_steps: 0 }
    }

    /// The rows of `n` targets laid out `columns` to a row.
    #[must_use]
    pub fn rows_of(n: usize, columns: usize) -> Vec<usize> {
        let columns = columns.max(1);
        (0..n.div_ceil(columns)).map(|r| columns.min(n - r * columns)).collect()
    }

    /// Where target `index` (numbered across `rows`) is: its row, and its
    /// place in the row; `None` past the last target.
    #[must_use]
    pub fn place(rows: &[usize], index: usize) -> Option<(usize, usize)> {
        let mut first = 0;
        for (r, n) in rows.iter().enumerate() {
            if index < first + n {
                return Some((r, index - first));
            }
            first += n;
        }
        None
    }

    /// The highlighted row, and the highlighted target if inside a row.
    #[must_use]
    pub fn highlight(&self) -> (usize, Option<usize>) {
        (self.row, self.item)
    }

    /// The targets highlighted now (numbered across the rows as last
    /// shown): the whole row while rows are scanned, else the one target.
    #[must_use]
    pub fn lit(&self) -> std::ops::Range<usize> {
        match self.item {
            Some(i) => i..i + 1,
            None => {
                let start = self.start(self.row);
                start..start + self.rows.get(self.row).copied().unwrap_or(0)
            }
        }
    }

    /// Starts again at the first row (another menu or page came).
    pub fn reset(&mut self, t_ms: f64) {
        self.row = 0;
        self.item = None;
        self.last_step = t_ms;
    }

    fn start(&self, row: usize) -> usize {
        self.rows.iter().take(row).sum()
    }

    /// Advances the highlight with time, over `rows` as they are shown now.
    pub fn tick(&mut self, t_ms: f64, rows: &[usize]) {
        if rows != self.rows.as_slice() {
            self.rows = rows.to_vec();
            if self.row >= rows.len() || self.item.is_some_and(|i| i >= rows.iter().sum()) {
                self.row = 0;
                self.item = None;
            }
        }
        if rows.is_empty() || t_ms - self.last_step < self.step_ms {
            return;
        }
        self.last_step = t_ms;
        match self.item {
            None => self.row = (self.row + 1) % rows.len(),
            Some(i) => {
                let start = self.start(self.row);
                let end = start + rows[self.row];
                self.item_steps += 1;
                if self.item_steps >= end - start {
                    self.item = None; // scanned through the row: back to rows
                } else {
                    self.item = Some(if i + 1 < end { i + 1 } else { start });
                }
            }
        }
    }

    /// The switch: enters the row, or returns the target to select.
    pub fn switch(&mut self, t_ms: f64) -> Option<usize> {
        self.last_step = t_ms;
        match self.item {
            None => {
                if self.rows.get(self.row).is_some_and(|n| *n > 0) {
                    self.item = Some(self.start(self.row));
                    self.item_steps = 0;
                }
                None
            }
            Some(i) => {
                self.item = None;
                self.row = 0;
                Some(i)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped() -> BTreeMap<String, Menu> {
        load_dir(&crate::data_dir().join("menus")).expect("the shipped menus load")
    }

    #[test]
    fn every_shipped_menu_parses_and_links() {
        let m = shipped();
        for name in [HOME, "browser", "email", "editor", "media", "system", "keyboard"] {
            assert!(m.contains_key(name), "menus/{name}.toml");
            assert!(!m[name].items.is_empty(), "{name} has items");
        }
    }

    #[test]
    fn navigate_menu_submenu_action_and_back() {
        let mut n = Navigator::new(shipped());
        let browser = n.current().items.iter().position(|i| i.action == MenuAction::Submenu("browser".into())).expect("a browser entry");
        assert_eq!(n.select(browser), Some(Outcome::Moved));
        assert_eq!(n.current_name(), "browser");
        let keys = n.current().items.iter().position(|i| matches!(i.action, MenuAction::Keys(_))).expect("a key action");
        assert!(matches!(n.select(keys), Some(Outcome::Keys(_))));
        let back = n.current().items.iter().position(|i| i.action == MenuAction::Back).expect("back");
        n.select(back);
        assert_eq!(n.current_name(), HOME);
    }

    #[test]
    fn the_system_menu_moves_to_the_next_monitor() {
        let mut n = Navigator::new(shipped());
        assert!(n.open("system"));
        let next = n.current().items.iter().position(|i| i.action == MenuAction::NextMonitor).expect("a Next monitor item");
        assert_eq!(n.select(next), Some(Outcome::NextMonitor));
        let scan = n.current().items.iter().position(|i| i.action == MenuAction::PointScan).expect("a Point scan item");
        assert_eq!(n.select(scan), Some(Outcome::PointScan));
        let settings = n.current().items.iter().position(|i| i.action == MenuAction::Settings).expect("a Settings item");
        assert_eq!(n.select(settings), Some(Outcome::Settings));
        let e = parse(Path::new("menus/x.toml"), "title = \"x\"\n[[items]]\nlabel = \"A\"\naction = \"next_screen\"\n").expect_err("unknown").to_string();
        assert!(e.contains("next_monitor"), "the message lists the actions: {e}");
    }

    /// A profile whose menus were made before the QWERTY keyboard shipped
    /// (or that has none) still gets it, and its capitals, from the shipped
    /// menus, without a note: a setting opens it, no item does.
    #[test]
    fn a_profile_without_the_qwerty_keyboard_gets_the_shipped_one_quietly() {
        let dir = tempfile::tempdir().expect("tempdir");
        let shipped_dir = crate::data_dir().join("menus");
        for name in ["main", "keyboard"] {
            std::fs::copy(shipped_dir.join(format!("{name}.toml")), dir.path().join(format!("{name}.toml"))).expect("copy");
        }
        let (menus, notes) = load_user_dir(dir.path(), &shipped_dir).expect("load");
        assert!(menus.contains_key("keyboard-qwerty") && menus.contains_key("keyboard-capitals-qwerty"), "{:?}", menus.keys());
        assert!(notes.iter().all(|n| !n.contains("qwerty")), "{notes:?}");
        assert!(notes.iter().any(|n| n.contains("keyboard-capitals")), "the missing submenus are noted as before: {notes:?}");
    }

    /// The QWERTY keyboard opens wherever the keyboard would (home's item,
    /// `open`, `push`); its rows start where the file says, and that is
    /// kept when the menu is saved.
    #[test]
    fn a_keyboard_alias_opens_the_qwerty_keyboard_everywhere() {
        let mut n = Navigator::new(shipped());
        n.set_alias("keyboard", Some("keyboard-qwerty"));
        let kb = n.current().items.iter().position(|i| i.action == MenuAction::Submenu("keyboard".into())).expect("home's Keyboard item");
        assert_eq!(n.select(kb), Some(Outcome::Moved));
        assert_eq!(n.current_name(), "keyboard-qwerty");
        let letters: String = n.current().items.iter().filter(|i| i.label.len() == 1 && i.label != "," && i.label != ".").map(|i| i.label.as_str()).collect();
        assert!(letters.starts_with("qwertyuiopasdfghjklzxcvbnm"), "{letters}");
        let starts: Vec<&str> = n.current().items.iter().filter(|i| i.new_row).map(|i| i.label.as_str()).collect();
        assert_eq!(starts, vec!["a", "z", "Space", "Speak"]);
        assert!(n.open("keyboard") && n.current_name() == "keyboard-qwerty");
        n.home();
        assert!(n.push("keyboard") && n.current_name() == "keyboard-qwerty");
        // No such menu: the keyboard itself.
        n.set_alias("keyboard", Some("no-such-menu"));
        assert!(n.open("keyboard") && n.current_name() == "keyboard");
        n.set_alias("keyboard", Some("keyboard-qwerty"));
        n.set_alias("keyboard", None);
        assert!(n.open("keyboard") && n.current_name() == "keyboard");
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("keyboard-qwerty.toml");
        shipped()["keyboard-qwerty"].save(&path).expect("save");
        let again = parse(&path, &std::fs::read_to_string(&path).expect("read")).expect("parse");
        assert_eq!(again, shipped()["keyboard-qwerty"], "new_row is kept");
    }

    #[test]
    fn the_keyboard_speaks_and_its_phrases_are_said_with_one_selection() {
        let mut n = Navigator::new(shipped());
        assert!(n.open("keyboard"));
        let speak = n.current().items.iter().position(|i| i.action == MenuAction::Speak).expect("a Speak key");
        assert_eq!(n.select(speak), Some(Outcome::Speak));
        let phrases = n.current().items.iter().position(|i| i.action == MenuAction::Submenu("phrases".into())).expect("a Phrases key");
        assert_eq!(n.select(phrases), Some(Outcome::Moved));
        let yes = n.current().items.iter().position(|i| i.label == "Yes").expect("a phrase");
        assert_eq!(n.select(yes), Some(Outcome::Say("Yes".into())));
        let e = parse(Path::new("menus/x.toml"), "title = \"x\"\n[[items]]\nlabel = \"A\"\nsay = \" \"\n").expect_err("empty").to_string();
        assert!(e.contains("`say` is empty"), "{e}");
    }

    #[test]
    fn items_must_do_exactly_one_thing() {
        let p = Path::new("menus/x.toml");
        let e = parse(p, "title = \"x\"\n[[items]]\nlabel = \"A\"\nkeys = \"a\"\nurl = \"u\"\n").expect_err("two things").to_string();
        assert!(e.contains("x.toml") && e.contains("item 1") && e.contains("more than one"), "{e}");
        let e = parse(p, "title = \"x\"\n[[items]]\nlabel = \"A\"\n").expect_err("nothing").to_string();
        assert!(e.contains("does nothing"), "{e}");
        let e = parse(p, "title = \"x\"\n[[items]]\nlabel = \"A\"\nlauch = { program = \"x\" }\n").expect_err("typo").to_string();
        assert!(e.contains("line 4"), "{e}");
    }

    #[test]
    fn menus_round_trip_through_their_files() {
        for (name, m) in shipped() {
            let text = toml::to_string_pretty(&m.to_file()).expect("toml");
            assert_eq!(parse(Path::new(&name), &text).expect("parses"), m, "{name}");
        }
    }

    #[test]
    fn a_target_is_found_in_uneven_rows() {
        let rows = [4, 4, 2, 3];
        assert_eq!(Scanner::place(&rows, 0), Some((0, 0)));
        assert_eq!(Scanner::place(&rows, 9), Some((2, 1)));
        assert_eq!(Scanner::place(&rows, 12), Some((3, 2)));
        assert_eq!(Scanner::place(&rows, 13), None);
    }

    #[test]
    fn scanning_selects_the_right_item_with_switch_events_alone() {
        // 7 items in rows of 3: rows 0 [0,1,2], 1 [3,4,5], 2 [6]. Select item 4.
        let mut s = Scanner::new(1000.0);
        let n = &Scanner::rows_of(7, 3);
        assert_eq!(n, &[3, 3, 1]);
        s.tick(0.0, n);
        s.tick(1000.0, n); // row 1
        assert_eq!(s.highlight(), (1, None));
        assert_eq!(s.lit(), 3..6, "the whole row is lit");
        assert_eq!(s.switch(1200.0), None); // enter row 1 at item 3
        assert_eq!(s.highlight(), (1, Some(3)));
        assert_eq!(s.lit(), 3..4, "then the one item");
        s.tick(2200.0, n); // item 4
        assert_eq!(s.switch(2500.0), Some(4));
        // Scanning through a whole row without a switch goes back to the rows.
        s.tick(3500.0, n);
        s.switch(3600.0);
        for k in 1..=3 {
            s.tick(3600.0 + 1000.0 * f64::from(k), n);
        }
        assert_eq!(s.highlight().1, None);
    }

    /// Rows of different lengths: a page of 4 items in rows of 3, then the
    /// navigation row; the last target is reached through its own row.
    #[test]
    fn scanning_reaches_every_target_of_uneven_rows() {
        let rows = [3, 1, 4];
        for target in 0..8 {
            let mut s = Scanner::new(1000.0);
            let mut t = 0.0;
            s.tick(t, &rows);
            let (row, col) = if target < 3 { (0, target) } else if target < 4 { (1, 0) } else { (2, target - 4) };
            for _ in 0..row {
                t += 1000.0;
                s.tick(t, &rows);
            }
            assert_eq!(s.switch(t), None);
            for _ in 0..col {
                t += 1000.0;
                s.tick(t, &rows);
            }
            assert_eq!(s.switch(t), Some(target), "target {target}");
        }
    }

    #[test]
    fn an_unknown_key_in_a_menu_is_refused_when_loaded() {
        let text = "title = \"Keys\"\n[[items]]\nlabel = \"Oops\"\nkeys = \"ctrl+nosuchkey\"\n";
        let msg = parse(Path::new("keys.toml"), text).expect_err("unknown key").to_string();
        assert!(msg.contains("keys.toml") && msg.contains("Oops") && msg.contains("nosuchkey"), "{msg}");
    }

    /// One broken file (a typo in browser.toml) is set aside and reported;
    /// the user's other menus load, and nothing of theirs is written over.
    #[test]
    fn one_broken_menu_file_is_set_aside_and_the_others_load() {
        let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("menus");
        let tmp = tempfile::tempdir().expect("tempdir");
        for e in std::fs::read_dir(&shipped).expect("shipped") {
            let p = e.expect("entry").path();
            std::fs::copy(&p, tmp.path().join(p.file_name().expect("name"))).expect("copy");
        }
        let main = tmp.path().join(format!("{HOME}.toml"));
        let mut text = std::fs::read_to_string(&main).expect("main");
        text.push_str("\n[[items]]\nlabel = \"My own item\"\ntype = \"hello\"\n");
        std::fs::write(&main, &text).expect("write");
        let broken = tmp.path().join("browser.toml");
        std::fs::write(&broken, "title = \"Browser\"\n[[items]\nlabel = \"typo\"\n").expect("write");
        let (menus, notes) = load_user_dir(tmp.path(), &shipped).expect("load");
        assert!(menus[HOME].items.iter().any(|i| i.label == "My own item"), "the user's main menu, not the shipped one");
        assert_eq!(std::fs::read_to_string(&main).expect("main"), text, "untouched");
        assert!(!broken.exists() && tmp.path().join("browser.toml.bak").exists());
        assert!(notes.iter().any(|n| n.contains("browser.toml") && n.contains("line") && n.contains("browser.toml.bak")), "{notes:?}");
        assert!(menus.contains_key("browser"), "the shipped browser menu stands in: {:?}", menus.keys().collect::<Vec<_>>());
        // A missing folder gives the shipped menus.
        let (menus, _) = load_user_dir(&tmp.path().join("none"), &shipped).expect("load");
        assert!(menus.contains_key(HOME));
    }
}
