//! The menu editor, hands-free: every control is a target like the menu's
//! own (dwell, a click, or scanning), laid out a row an item and paged to
//! fit the window:
//!
//! `Name` · `Does` (steps through the kinds of action) · `With` (the
//! action's text: keys, text, address, program) · Up · Down · Remove, and
//! at the end Add item, Add submenu (and Previous, More).
//!
//! A name or a text is written with the menus' own keyboard, into the
//! field instead of the user's application: the keyboard opens with the
//! field's text on the title line, its navigation row has Save and Cancel,
//! and nothing is sent to the desktop. (While the menu is edited its window
//! takes the keyboard focus, so a caregiver's keyboard types there too.)
//! An action that is not valid yet (a chord with an unknown key) is not
//! saved; the editor says why and keeps it as a draft.

use eframe::egui;

use super::{MenuPanel, Target};
use crate::menus::{Item, Launch, Menu, MenuAction, Outcome};

/// What kind of action an edited item has, in the order `Does` steps through them.
pub(super) const KINDS: [&str; 14] = ["submenu", "keys", "type", "say", "url", "launch", "back", "home", "pause", "close", "next_monitor", "point_scan", "settings", "speak"];

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
        MenuAction::PointScan => "point_scan",
        MenuAction::Settings => "settings",
        MenuAction::Speak => "speak",
        MenuAction::Say(_) => "say",
    }
}

fn value_of(a: &MenuAction) -> String {
    match a {
        MenuAction::Submenu(s) | MenuAction::Type(s) | MenuAction::Url(s) | MenuAction::Say(s) => s.clone(),
        MenuAction::Keys(k) => k.to_string(),
        MenuAction::Launch(l) => std::iter::once(l.program.clone()).chain(l.args.iter().cloned()).collect::<Vec<_>>().join(" "),
        _ => String::new(),
    }
}

/// Whether a kind of action takes a text.
fn takes_value(kind: &str) -> bool {
    matches!(kind, "submenu" | "keys" | "type" | "say" | "url" | "launch")
}

/// The action an edited item describes; a chord that does not parse is an
/// error in words.
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
        "point_scan" => MenuAction::PointScan,
        "settings" => MenuAction::Settings,
        "speak" => MenuAction::Speak,
        "say" => MenuAction::Say(value.to_string()),
        _ => MenuAction::Back,
    })
}

/// A target of the editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EditTarget {
    /// Item `i`'s name, its kind of action, and the action's text.
    Name(usize),
    Does(usize),
    With(usize),
    Up(usize),
    Down(usize),
    Remove(usize),
    AddItem,
    AddSubmenu,
    Previous,
    More,
}

/// Which text of an item is being written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Field {
    Name,
    With,
}

/// A text being written with the menus' keyboard.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    /// The menu being edited, the item and the field.
    pub menu: String,
    pub item: usize,
    pub field: Field,
    pub text: String,
}

/// An editor target's height, least width, and the width below which an
/// item's targets take two rows (points); the room kept for the message.
const EDIT_H: f32 = 56.0;
const EDIT_MIN_W: f32 = 50.0;
const EDIT_READABLE_W: f32 = 110.0;
const EDIT_MESSAGE_H: f32 = 30.0;

impl MenuPanel {
    /// The editor's targets of the page that fits `width`×`height` points,
    /// and their rows; the size of a target.
    pub(super) fn edit_layout(&mut self, menu: &Menu, width: f32, height: f32) -> (Vec<usize>, [f32; 2]) {
        let gap = super::TARGET_GAP;
        // An item's six targets in one row where they fit at a readable
        // width; in two rows of three (name, kind, text; up, down, remove) where not.
        let per_row = if width >= 6.0 * EDIT_READABLE_W + 5.0 * gap { 6 } else { 3 };
        let w = ((width - (per_row as f32 - 1.0) * gap) / per_row as f32).clamp(EDIT_MIN_W, super::TARGET_SIZE[0]);
        let row_h = EDIT_H + gap;
        let item_h = row_h * (6 / per_row) as f32;
        // Room for the last row and the message.
        let fit = (((height - row_h - EDIT_MESSAGE_H) / item_h).floor() as usize).max(1);
        let n = menu.items.len();
        let pages = n.div_ceil(fit).max(1);
        self.edit_page = self.edit_page.min(pages - 1);
        let first = self.edit_page * fit;
        let shown = first..(first + fit).min(n);
        self.laid.targets.clear();
        let mut rows = Vec::new();
        for i in shown {
            self.laid.targets.extend([EditTarget::Name(i), EditTarget::Does(i), EditTarget::With(i), EditTarget::Up(i), EditTarget::Down(i), EditTarget::Remove(i)].map(Target::Edit));
            rows.extend(std::iter::repeat_n(per_row, 6 / per_row));
        }
        let mut last = vec![EditTarget::AddItem, EditTarget::AddSubmenu];
        if self.edit_page > 0 {
            last.push(EditTarget::Previous);
        }
        if self.edit_page + 1 < pages {
            last.push(EditTarget::More);
        }
        rows.extend(crate::menus::Scanner::rows_of(last.len(), per_row));
        self.laid.targets.extend(last.into_iter().map(Target::Edit));
        (rows, [w, EDIT_H])
    }

    /// The kind and text an item shows in the editor: its draft, if any.
    fn shown_action(&self, menu: &str, i: usize, action: &MenuAction) -> (String, String) {
        self.drafts.get(&(menu.to_string(), i)).cloned().unwrap_or_else(|| (kind_of(action).to_string(), value_of(action)))
    }

    /// An editor target's words.
    pub(super) fn edit_label(&self, t: EditTarget, menu: &Menu) -> String {
        let name = self.nav.current_name();
        let item = |i: usize| menu.items.get(i);
        match t {
            EditTarget::Name(i) => item(i).map(|it| it.label.clone()).unwrap_or_default(),
            EditTarget::Does(i) => item(i).map(|it| self.shown_action(name, i, &it.action).0).unwrap_or_default(),
            EditTarget::With(i) => item(i)
                .map(|it| {
                    let (kind, value) = self.shown_action(name, i, &it.action);
                    if !takes_value(&kind) {
                        "–".to_string()
                    } else if value.is_empty() {
                        "(empty)".to_string()
                    } else {
                        value
                    }
                })
                .unwrap_or_default(),
            EditTarget::Up(_) => "Up".into(),
            EditTarget::Down(_) => "Down".into(),
            EditTarget::Remove(_) => "Remove".into(),
            EditTarget::AddItem => "Add item".into(),
            EditTarget::AddSubmenu => "Add submenu".into(),
            EditTarget::Previous => "Previous".into(),
            EditTarget::More => "More".into(),
        }
    }

    /// Does what an editor target is for.
    pub(super) fn activate_edit(&mut self, t: EditTarget) -> Option<Outcome> {
        let name = self.nav.current_name().to_string();
        let mut edited = self.nav.current().clone();
        let n = edited.items.len();
        let changed = match t {
            EditTarget::Name(i) if i < n => {
                self.entry = Some(Entry { menu: name.clone(), item: i, field: Field::Name, text: edited.items[i].label.clone() });
                self.open_keyboard();
                false
            }
            EditTarget::With(i) if i < n => {
                let (kind, value) = self.shown_action(&name, i, &edited.items[i].action);
                if !takes_value(&kind) {
                    self.message = format!("\"{kind}\" takes no text");
                    return None;
                }
                self.entry = Some(Entry { menu: name.clone(), item: i, field: Field::With, text: value });
                self.open_keyboard();
                false
            }
            EditTarget::Does(i) if i < n => {
                let (kind, value) = self.shown_action(&name, i, &edited.items[i].action);
                let next = KINDS.iter().position(|k| *k == kind).map_or(0, |k| (k + 1) % KINDS.len());
                self.set_action(&mut edited, i, KINDS[next], &value)
            }
            EditTarget::Up(i) if i > 0 && i < n => {
                edited.items.swap(i - 1, i);
                self.drafts.clear();
                true
            }
            EditTarget::Down(i) if i + 1 < n => {
                edited.items.swap(i, i + 1);
                self.drafts.clear();
                true
            }
            EditTarget::Remove(i) if i < n => {
                edited.items.remove(i);
                self.drafts.clear();
                true
            }
            EditTarget::AddItem => {
                edited.items.push(Item { label: "New item".into(), action: crate::command::Chord::parse("enter").map_or(MenuAction::Back, MenuAction::Keys), new_row: false });
                true
            }
            EditTarget::AddSubmenu => {
                let sub_name = crate::fs::first_free(1, |k| format!("menu-{k}"), |k| !self.nav.has(k));
                let sub = Menu { title: "New menu".into(), items: vec![Item { label: "Back".into(), action: MenuAction::Back, new_row: false }] };
                self.save_menu(&sub_name, &sub);
                self.nav.insert(&sub_name, sub);
                edited.items.push(Item { label: "New menu".into(), action: MenuAction::Submenu(sub_name), new_row: false });
                true
            }
            EditTarget::Previous => {
                self.edit_page = self.edit_page.saturating_sub(1);
                false
            }
            EditTarget::More => {
                self.edit_page += 1;
                false
            }
            _ => false,
        };
        if changed {
            self.save_menu(&name, &edited);
            if let Some(m) = self.nav.current_mut() {
                *m = edited;
            }
        }
        Some(Outcome::Moved)
    }

    /// Sets item `i`'s action from `kind` and `value` if they make a valid
    /// one; if not, keeps them as a draft and says why. Whether `menu` changed.
    fn set_action(&mut self, menu: &mut Menu, i: usize, kind: &str, value: &str) -> bool {
        let name = self.nav.current_name().to_string();
        match make(kind, value) {
            Ok(a) => {
                self.drafts.remove(&(name, i));
                let changed = a != menu.items[i].action;
                menu.items[i].action = a;
                changed
            }
            Err(why) => {
                self.message = format!("\"{}\" is not saved yet: {why}", menu.items[i].label);
                self.drafts.insert((name, i), (kind.to_string(), value.to_string()));
                false
            }
        }
    }

    /// Opens the keyboard for the text being written.
    fn open_keyboard(&mut self) {
        if !self.nav.push("keyboard") {
            self.entry = None;
            self.message = "There is no keyboard menu to write with".into();
        }
    }

    /// What a keyboard target does while a text is written: it goes into
    /// the text, never to the desktop.
    pub(super) fn entry_outcome(&mut self, o: Outcome) -> Option<Outcome> {
        let Some(e) = self.entry.as_mut() else { return Some(o) };
        match o {
            Outcome::Type(t) => e.text.push_str(&t),
            Outcome::Keys(k) => match k.keys() {
                [crate::command::Key::Space] => e.text.push(' '),
                [crate::command::Key::Backspace] => {
                    e.text.pop();
                }
                [crate::command::Key::Return] => self.finish_entry(true),
                _ => {}
            },
            _ => {}
        }
        Some(Outcome::Moved)
    }

    /// The text from a caregiver's keyboard (the window has the focus while
    /// a menu is edited).
    pub(super) fn entry_keys(&mut self, ui: &egui::Ui) {
        let events = ui.input(|i| i.events.clone());
        for ev in events {
            match ev {
                egui::Event::Text(t) => {
                    if let Some(e) = self.entry.as_mut() {
                        e.text.push_str(&t);
                    }
                }
                egui::Event::Key { key: egui::Key::Backspace, pressed: true, .. } => {
                    if let Some(e) = self.entry.as_mut() {
                        e.text.pop();
                    }
                }
                egui::Event::Key { key: egui::Key::Enter, pressed: true, .. } => self.finish_entry(true),
                egui::Event::Key { key: egui::Key::Escape, pressed: true, .. } => self.finish_entry(false),
                _ => {}
            }
        }
    }

    /// Ends the text being written: saved (if it makes a valid action; if
    /// not, the keyboard stays, and the message says why) or dropped; back to
    /// the menu being edited.
    pub(super) fn finish_entry(&mut self, save: bool) {
        let Some(e) = self.entry.clone() else { return };
        if save {
            let Some(mut edited) = self.nav.menu(&e.menu).cloned() else { return };
            let Some(it) = edited.items.get_mut(e.item) else { return };
            let changed = match e.field {
                Field::Name => {
                    let new = e.text.trim().to_string();
                    if new.is_empty() {
                        self.message = "A name cannot be empty".into();
                        return;
                    }
                    let changed = it.label != new;
                    it.label = new;
                    changed
                }
                Field::With => {
                    let kind = self.drafts.get(&(e.menu.clone(), e.item)).map_or_else(|| kind_of(&it.action).to_string(), |d| d.0.clone());
                    match make(&kind, &e.text) {
                        Ok(a) => {
                            self.drafts.remove(&(e.menu.clone(), e.item));
                            let changed = it.action != a;
                            it.action = a;
                            changed
                        }
                        Err(why) => {
                            self.message = format!("Not saved: {why}");
                            return;
                        }
                    }
                }
            };
            if changed {
                self.save_menu(&e.menu, &edited);
                self.nav.insert(&e.menu, edited);
            }
        }
        self.entry = None;
        while self.nav.current_name() != e.menu && self.nav.depth() > 1 {
            self.nav.back();
        }
    }

    /// The title line while a text is written.
    pub(super) fn entry_line(&self) -> Option<String> {
        let e = self.entry.as_ref()?;
        let what = match e.field {
            Field::Name => "Name",
            Field::With => "Text",
        };
        Some(format!("{what}: {}_", e.text))
    }

    pub(super) fn save_menu(&mut self, name: &str, menu: &Menu) {
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
