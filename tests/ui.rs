//! The navigation menu as the user meets it, driven by accessibility label
//! (egui_kittest): menu → submenu → action and back, scanning with switch
//! events alone, and the editor, whose change persists.

use std::path::Path;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use facemouse::menus::{self, MenuAction, Navigator, Outcome};
use facemouse::ui::menu_panel::{EditTarget, MenuPanel, Target};

struct State {
    panel: MenuPanel,
    outcomes: Vec<Outcome>,
}

fn harness(dir: &Path, scanning: bool) -> Harness<'static, State> {
    let menus = menus::load_dir(dir).expect("menus");
    let panel = MenuPanel::new(Navigator::new(menus), dir.to_path_buf(), 3, scanning, 1000.0, 60_000.0);
    panel_harness(panel, egui::vec2(1200.0, 900.0))
}

/// `panel` in a window of `size` points, keeping what it asks the app to do.
fn panel_harness(panel: MenuPanel, size: egui::Vec2) -> Harness<'static, State> {
    Harness::builder().with_size(size).build_ui_state(
        |ui, s: &mut State| {
            if let Some(o) = s.panel.show(ui, 0.0) {
                s.outcomes.push(o);
            }
        },
        State { panel, outcomes: Vec::new() },
    )
}

/// Clicks the target labelled `label` and lets the panel react.
fn press(h: &mut Harness<'static, State>, label: &str) {
    h.get_by_label(label).click();
    h.run_steps(2);
}

fn user_menus() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    for e in std::fs::read_dir(facemouse::data_dir().join("menus")).expect("shipped menus") {
        let p = e.expect("entry").path();
        std::fs::copy(&p, tmp.path().join(p.file_name().expect("name"))).expect("copy");
    }
    tmp
}

#[test]
fn navigate_menu_submenu_action_and_back() {
    let dir = user_menus();
    let mut h = harness(dir.path(), false);
    h.run_steps(2);
    press(&mut h, "Web browser");
    assert_eq!(h.state().panel.nav.current_name(), "browser");
    press(&mut h, "New tab");
    assert_eq!(h.state().outcomes, vec![Outcome::Moved, Outcome::Keys(chord("ctrl+t"))]);
    // The menu's own Back item, then home again.
    h.get_all_by_label("Back").next().expect("a Back target").click();
    h.run_steps(2);
    assert_eq!(h.state().panel.nav.current_name(), menus::HOME);
    assert!(h.query_by_label("Web browser").is_some());
}

#[test]
fn scanning_selects_the_right_item_with_switch_events_alone() {
    let dir = user_menus();
    let mut h = harness(dir.path(), true);
    h.run_steps(1);
    // Rows of 3: "Keyboard" is item 4 (row 1, second item). Row 0 is lit at first.
    let t = |s: f64| s * 1000.0;
    let p = &mut h.state_mut().panel;
    // As shown: the 8 items in rows of 3, then the navigation row (Close).
    let rows = [3, 3, 2, 1];
    p.scanner.tick(t(0.0), &rows);
    p.scanner.tick(t(1.0), &rows); // row 1 lit
    assert_eq!(p.switch(t(1.1)), None); // enter row 1 at item 3
    p.scanner.tick(t(2.2), &rows); // item 4 lit
    assert_eq!(p.switch(t(2.3)), Some(Outcome::Moved));
    assert_eq!(p.nav.current_name(), "keyboard");
    h.run_steps(2);
    assert!(h.query_by_label("e").is_some(), "the keyboard is showing");
}

#[test]
fn the_editor_changes_a_menu_and_it_persists() {
    let dir = user_menus();
    let mut h = harness(dir.path(), false);
    h.run_steps(1);
    press(&mut h, "Edit menu");
    press(&mut h, "Add item");
    h.get_all_by_label("Remove").next().expect("a Remove button").click(); // removes "Web browser"
    h.run_steps(2);
    press(&mut h, "Done editing");
    assert!(h.query_by_label("New item").is_some(), "the new item shows");
    assert!(h.query_by_label("Web browser").is_none(), "the removed item is gone");
    // Saved: a fresh load of the user's menus has the change.
    let again = menus::load_dir(dir.path()).expect("reload");
    let home = &again[menus::HOME];
    assert!(home.items.iter().any(|i| i.label == "New item" && i.action == MenuAction::Keys(chord("enter"))));
    assert!(!home.items.iter().any(|i| i.label == "Web browser"));
}

/// Clicks the target labelled `label`, then moves the pointer away (a
/// target re-arms once the pointer has left it).
fn tap(h: &mut Harness<'static, State>, label: &str) {
    press(h, label);
    h.hover_at(egui::pos2(5.0, 895.0));
    h.run_steps(1);
}

/// The editor writes with the menus' own keyboard, hands-free: a name and
/// a chord are written into the editor (nothing reaches the desktop); a
/// chord is saved only once it parses (until then the menu file keeps the
/// last valid one and the editor says why); "Does" steps through the kinds.
#[test]
fn the_editor_writes_names_and_chords_with_the_menus_own_keyboard() {
    let dir = user_menus();
    let mut h = harness(dir.path(), false);
    h.run_steps(1);
    tap(&mut h, "Edit menu");
    tap(&mut h, "Add item");
    let saved = || menus::load_dir(dir.path()).expect("the saved menus load")[menus::HOME].items.last().cloned().expect("an item");
    assert_eq!(saved().action, MenuAction::Keys(chord("enter")));
    // Its name: the keyboard opens with it on the title line.
    tap(&mut h, "New item");
    assert!(h.query_by_label("Name: New item_").is_some(), "the name being written shows");
    for _ in 0.."New item".len() {
        tap(&mut h, "Delete");
    }
    tap(&mut h, "h");
    tap(&mut h, "i");
    assert!(h.query_by_label("Name: hi_").is_some());
    tap(&mut h, "Save");
    assert_eq!(saved().label, "hi");
    assert!(h.query_by_label("Done editing").is_some(), "back in the editor");
    // Its chord: "enter" then "d" does not parse; it is not saved, and the editor says why.
    tap(&mut h, "enter");
    tap(&mut h, "d");
    tap(&mut h, "Save");
    assert_eq!(saved().action, MenuAction::Keys(chord("enter")), "an unknown key must not be saved");
    assert!(h.query_by_label_contains("Not saved: unknown key").is_some(), "the editor says why");
    assert!(h.query_by_label("Text: enterd_").is_some(), "the keyboard stays for a fix");
    for _ in 0.."enterd".len() {
        tap(&mut h, "Delete");
    }
    tap(&mut h, "d");
    tap(&mut h, "Save");
    assert_eq!(saved().action, MenuAction::Keys(chord("d")), "the finished chord is saved");
    // What it does: keys, then text.
    tap(&mut h, "keys");
    assert_eq!(saved().action, MenuAction::Type("d".into()));
    let desktop: Vec<_> = h.state().outcomes.iter().filter(|o| matches!(o, Outcome::Type(_) | Outcome::Keys(_))).collect();
    assert!(desktop.is_empty(), "nothing written into the editor reached the desktop: {desktop:?}");
}

/// Selects `target` with the scanning switch alone (rows, then the target),
/// stepping the scanner's clock from `*t`.
fn scan_select(h: &mut Harness<'static, State>, target: Target, t: &mut f64) {
    let p = &mut h.state_mut().panel;
    let index = p.targets().iter().position(|x| *x == target).unwrap_or_else(|| panic!("{target:?} is not scanned: {:?}", p.targets()));
    let rows = p.rows().to_vec();
    let (row, col) = facemouse::menus::Scanner::place(&rows, index).expect("a place");
    p.scanner.reset(*t);
    for _ in 0..row {
        *t += 1000.0;
        p.scanner.tick(*t, &rows);
    }
    *t += 100.0;
    assert_eq!(p.switch(*t), None, "entering row {row}");
    for _ in 0..col {
        *t += 1000.0;
        p.scanner.tick(*t, &rows);
    }
    *t += 100.0;
    if let Some(o) = p.switch(*t) {
        h.state_mut().outcomes.push(o);
    }
    h.run_steps(2);
}

/// Every control of the editor, and writing a name, by the switch alone.
#[test]
fn the_editor_is_used_by_scanning_alone() {
    let dir = user_menus();
    let mut h = harness(dir.path(), true);
    h.run_steps(1);
    let mut t = 0.0;
    scan_select(&mut h, Target::EditMenu, &mut t);
    assert!(h.state().panel.editing, "Edit menu is scanned");
    let n = menus::load_dir(dir.path()).expect("menus")[menus::HOME].items.len();
    let targets = h.state().panel.targets().to_vec();
    for i in 0..n.min(3) {
        for e in [EditTarget::Name(i), EditTarget::Does(i), EditTarget::With(i), EditTarget::Up(i), EditTarget::Down(i), EditTarget::Remove(i)] {
            assert!(targets.contains(&Target::Edit(e)), "{e:?} is scanned");
        }
    }
    scan_select(&mut h, Target::Edit(EditTarget::Down(0)), &mut t);
    let home = || menus::load_dir(dir.path()).expect("menus")[menus::HOME].items.iter().map(|i| i.label.clone()).collect::<Vec<_>>();
    assert_eq!(home()[1], "Web browser", "Down moved the first item down");
    scan_select(&mut h, Target::Edit(EditTarget::Name(0)), &mut t);
    for key in ["Delete", "Delete", "Delete", "Delete", "Delete", "a"] {
        let item = {
            let p = &h.state().panel;
            let menu = p.nav.current();
            menu.items.iter().position(|it| it.label == key).expect("a key")
        };
        scan_select(&mut h, Target::Item(item), &mut t);
    }
    scan_select(&mut h, Target::Save, &mut t);
    assert_eq!(home()[0], "a", "the name written by scanning is saved");
    scan_select(&mut h, Target::EditMenu, &mut t);
    assert!(!h.state().panel.editing, "Done editing is scanned");
    let desktop: Vec<_> = h.state().outcomes.iter().filter(|o| matches!(o, Outcome::Type(_) | Outcome::Keys(_))).collect();
    assert!(desktop.is_empty(), "{desktop:?}");
}

/// A panel whose targets fire after a 1 s dwell, on a clock stepped 0.1 s a step.
fn dwell_harness(dir: &Path) -> Harness<'static, State> {
    let menus = menus::load_dir(dir).expect("menus");
    let panel = MenuPanel::new(Navigator::new(menus), dir.to_path_buf(), 3, false, 1000.0, 1000.0);
    Harness::builder().with_size(egui::vec2(1200.0, 900.0)).with_step_dt(0.1).build_ui_state(
        |ui, s: &mut State| {
            let t = ui.input(|i| i.time) * 1000.0;
            if let Some(o) = s.panel.show(ui, t) {
                s.outcomes.push(o);
            }
        },
        State { panel, outcomes: Vec::new() },
    )
}

/// "System" opens its menu, whose "Close the menu" comes to lie under the
/// resting pointer: it must not fire by itself, however long the pointer
/// rests, until the pointer has left it and come back.
#[test]
fn a_relayout_does_not_fire_the_target_now_under_the_pointer() {
    let dir = user_menus();
    let mut h = dwell_harness(dir.path());
    h.run_steps(1);
    let at = h.get_by_label("System").rect().center();
    h.get_by_label("System").hover();
    h.run_steps(15);
    assert_eq!(h.state().outcomes, vec![Outcome::Moved], "a dwell on System opens it");
    assert!(h.get_by_label("Close the menu").rect().contains(at), "the test needs Close under the pointer");
    h.run_steps(40);
    assert_eq!(h.state().outcomes, vec![Outcome::Moved], "the target that moved under the pointer fired");
    // Away and back: now it is meant.
    h.get_by_label("Volume up").hover();
    h.run_steps(3);
    h.get_by_label("Close the menu").hover();
    h.run_steps(15);
    assert_eq!(h.state().outcomes, vec![Outcome::Moved, Outcome::Close]);
}

/// A click, then the pointer resting on the same target: one action.
#[test]
fn a_click_and_a_rest_on_the_same_target_fire_once() {
    let dir = user_menus();
    let mut h = dwell_harness(dir.path());
    h.run_steps(1);
    h.get_by_label("Pause Facemouse").click();
    h.run_steps(40);
    assert_eq!(h.state().outcomes, vec![Outcome::Pause], "the dwell fired again after the click");
}

/// A long rest on a key types it once, though the keys' words' row fills
/// with predictions as it is typed (each target keeps its identity however
/// many come before it).
#[test]
fn a_long_rest_on_a_key_types_it_once_as_the_words_come() {
    let dir = user_menus();
    let mut h = dwell_harness(dir.path());
    h.run_steps(1);
    h.state_mut().panel.nav.open("keyboard");
    h.run_steps(2);
    let before = h.state().panel.predictions().to_vec();
    assert!(!before.is_empty(), "the likeliest first words before typing");
    h.get_by_label("h").hover();
    h.run_steps(40);
    let typed: Vec<_> = h.state().outcomes.iter().filter(|o| matches!(o, Outcome::Type(_))).collect();
    assert_eq!(typed, vec![&Outcome::Type("h".into())], "one rest, one h");
    let after = h.state().panel.predictions().to_vec();
    assert!(after != before && after.iter().all(|w| w.starts_with('h')), "the test needs the words' row to have changed: {after:?}");
}

/// The small controls (Edit menu, the bottom Back) are reached by dwell too.
#[test]
fn edit_and_back_are_reached_by_dwell() {
    let dir = user_menus();
    let mut h = dwell_harness(dir.path());
    h.run_steps(1);
    h.get_by_label("System").hover();
    h.run_steps(15);
    let backs: Vec<_> = h.get_all_by_label("Back").map(|n| n.rect()).collect();
    let bottom = backs.into_iter().max_by(|a, b| a.center().y.total_cmp(&b.center().y)).expect("a Back");
    h.hover_at(bottom.center());
    h.run_steps(15);
    assert!(h.query_by_label("Volume up").is_none(), "the bottom Back returns to the main menu");
    h.get_by_label("Edit menu").hover();
    h.run_steps(15);
    assert!(h.query_by_label("Done editing").is_some(), "Edit menu opens the editor by dwell");
}

/// A panel too small for the keyboard's every key on one page (keys of
/// 50×38 points): it pages.
fn tiny_harness(dir: &Path) -> Harness<'static, State> {
    let menus = menus::load_dir(dir).expect("menus");
    let panel = MenuPanel::new(Navigator::new(menus), dir.to_path_buf(), 3, false, 1000.0, 60_000.0);
    panel_harness(panel, egui::vec2(380.0, 420.0))
}

/// A panel the size of the menu window (760×600).
fn small_harness(dir: &Path, scanning: bool) -> Harness<'static, State> {
    let menus = menus::load_dir(dir).expect("menus");
    let panel = MenuPanel::new(Navigator::new(menus), dir.to_path_buf(), 3, scanning, 1000.0, 60_000.0);
    panel_harness(panel, egui::vec2(760.0, 600.0))
}

/// Scan steps to select target `k` in the panel's rows as shown: wait for
/// its row, switch, wait for it in the row, switch.
fn scan_steps(rows: &[usize], k: usize) -> usize {
    let (row, col) = menus::Scanner::place(rows, k).expect("the target is on screen");
    row + 1 + col + 1
}

/// Every menu screen (every menu, every page of it) of the shipped menus,
/// in the menu window's size: every item can be reached (long menus page
/// with More and Previous), the targets fit the window, and Close (and Back
/// and Home below the home menu) are on screen within a few scan steps.
#[test]
fn from_every_menu_screen_back_home_and_close_are_near_and_every_item_is_reachable() {
    let dir = user_menus();
    let mut h = small_harness(dir.path(), true);
    h.run_steps(1);
    let names = h.state().panel.nav.names();
    assert!(names.len() >= 10, "every shipped menu: {names:?}");
    let mut screens = 0;
    for name in names {
        assert!(h.state_mut().panel.nav.open(&name));
        h.run_steps(2);
        let all: Vec<String> = h.state().panel.nav.current().items.iter().map(|i| i.label.clone()).collect();
        let mut seen = std::collections::BTreeSet::new();
        loop {
            screens += 1;
            let targets = h.state().panel.targets().to_vec();
            let menu = h.state().panel.nav.current().clone();
            for t in &targets {
                if let Target::Item(i) = t {
                    seen.insert(menu.items[*i].label.clone());
                }
            }
            let mut needed = vec![Target::Close];
            if name != menus::HOME {
                needed.extend([Target::Back, Target::Home]);
            }
            for n in needed {
                let k = targets.iter().position(|t| *t == n).unwrap_or_else(|| panic!("{name}: {n:?} is not on screen: {targets:?}"));
                let rows = h.state().panel.rows();
                assert!(scan_steps(rows, k) <= 14, "{name}: {n:?} takes {} scan steps", scan_steps(rows, k));
            }
            // Everything shown fits the window.
            for node in h.get_all_by_role(egui::accesskit::Role::Button) {
                let r = node.rect();
                assert!(r.max.y <= 600.0 + 1.0 && r.max.x <= 760.0 + 1.0, "{name}: {:?} at {r:?} is off the window", node.value());
            }
            if !targets.contains(&Target::More) {
                break;
            }
            // A target re-arms once the pointer has left it: away, then More.
            h.hover_at(egui::pos2(5.0, 5.0));
            h.run_steps(1);
            h.get_by_label("More").click();
            h.run_steps(2);
            // Paging goes round: back on the first page, every page was seen.
            if h.state().panel.page().0 == 0 {
                break;
            }
            assert!(screens < 40, "paging does not end");
        }
        let missing: Vec<&String> = all.iter().filter(|l| !seen.contains(*l)).collect();
        assert!(missing.is_empty(), "{name}: never shown: {missing:?}");
    }
    assert!(screens > 7, "the keyboard needs more than one page in this window: {screens} screens");
}

/// The keyboard shows what it typed: letters, a space, a delete.
#[test]
fn the_keyboard_echoes_what_it_typed() {
    let dir = user_menus();
    let mut h = harness(dir.path(), false);
    h.run_steps(1);
    h.state_mut().panel.nav.open("keyboard");
    h.run_steps(2);
    assert!(h.query_by_label("Typed: (nothing yet)").is_some());
    for key in ["h", "i", "Space", "t", "Delete"] {
        press(&mut h, key);
        // Away and back: a target re-arms once the pointer has left it.
        h.hover_at(egui::pos2(5.0, 5.0));
        h.run_steps(1);
    }
    assert!(h.query_by_label("Typed: hi _").is_some(), "{:?}", h.state().panel.echo());
    let typed: Vec<_> = h.state().outcomes.iter().filter(|o| matches!(o, Outcome::Type(_) | Outcome::Keys(_))).collect();
    assert_eq!(typed.len(), 5, "each key press is sent once: {typed:?}");
}

/// Word prediction: after "h" and "e", the keyboard offers words that begin
/// so; choosing one types the rest of it and a space, once, and the profile
/// learns it, so that it comes first for its beginning from then on.
#[test]
fn a_predicted_word_types_its_rest_and_is_learned_for_the_profile() {
    let profile = tempfile::tempdir().expect("tempdir");
    let menus_dir = profile.path().join("menus");
    std::fs::create_dir(&menus_dir).expect("menus");
    for e in std::fs::read_dir(facemouse::data_dir().join("menus")).expect("shipped menus") {
        let p = e.expect("entry").path();
        std::fs::copy(&p, menus_dir.join(p.file_name().expect("name"))).expect("copy");
    }
    let mut h = harness(&menus_dir, false);
    h.run_steps(1);
    h.state_mut().panel.nav.open("keyboard");
    h.run_steps(2);
    // Before the first letter, the likeliest first words.
    assert!(h.state().panel.predictions().iter().any(|w| w == "the"), "{:?}", h.state().panel.predictions());
    for key in ["h", "e"] {
        press(&mut h, key);
        h.hover_at(egui::pos2(5.0, 5.0));
        h.run_steps(1);
    }
    let words = h.state().panel.predictions().to_vec();
    assert!(!words.is_empty() && words.iter().all(|w| w.starts_with("he") && w != "he"), "{words:?}");
    // Not the most likely one: the third, so that learning has something to change.
    let chosen = words[2.min(words.len() - 1)].clone();
    press(&mut h, &format!("{chosen}…"));
    assert_eq!(h.state().panel.echo(), format!("{chosen} "));
    let last = h.state().outcomes.last().cloned();
    assert_eq!(last, Some(Outcome::Type(format!("{} ", &chosen[2..]))), "the rest of the word and a space");
    let saved = std::fs::read_to_string(profile.path().join("words.txt")).expect("the profile's words were saved");
    assert!(saved.lines().any(|l| l == format!("{chosen}\t1")), "{saved}");
    // A new window on the profile offers it first for "he".
    let mut h = harness(&menus_dir, false);
    h.run_steps(1);
    h.state_mut().panel.nav.open("keyboard");
    h.run_steps(2);
    for key in ["h", "e"] {
        press(&mut h, key);
        h.hover_at(egui::pos2(5.0, 5.0));
        h.run_steps(1);
    }
    assert_eq!(h.state().panel.predictions().first(), Some(&chosen));
}

/// A low panel (the default bottom dock) holds every key, the words' row
/// and the navigation row inside the window while typing; one too low even
/// for that (150 points) pages, with lower targets, and its navigation row
/// (More, Back, Home, Close) stays inside the window too.
#[test]
fn a_low_keyboard_keeps_its_navigation_row_on_screen() {
    let dir = user_menus();
    for height in [300.0, 150.0] {
        let menus = menus::load_dir(dir.path()).expect("menus");
        let panel = MenuPanel::new(Navigator::new(menus), dir.path().to_path_buf(), 3, false, 1000.0, 60_000.0);
        let mut h = panel_harness(panel, egui::vec2(1200.0, height));
        h.run_steps(1);
        h.state_mut().panel.nav.open("keyboard");
        h.run_steps(2);
        press(&mut h, "e");
        h.run_steps(1);
        let one_page = height > 200.0;
        assert_eq!(h.state().panel.page().1 == 1, one_page, "{height}: pages {:?}", h.state().panel.page());
        assert_eq!(!h.state().panel.predictions().is_empty(), one_page, "{height}: the words' row where every key fits");
        let labels: &[&str] = if one_page { &["Back", "Home", "Close menu", "Space", "z"] } else { &["More", "Back", "Home", "Close menu", "Space"] };
        for label in labels {
            let r = h.get_by_label(label).rect();
            assert!(r.bottom() <= height && r.right() <= 1200.0, "{height}: {label} at {r:?} is outside the window");
        }
    }
}

fn chord(s: &str) -> facemouse::command::Chord {
    facemouse::command::Chord::parse(s).expect("chord")
}

/// The navigation row keeps every target in one place on every page of a
/// long menu (More was in the first column on page 1 and in the second
/// later; on the last page its place was Back): resting on one spot pages
/// on and round, and never goes back, home or closes the menu.
#[test]
fn the_navigation_row_keeps_its_places_on_every_page() {
    let dir = user_menus();
    let mut h = tiny_harness(dir.path());
    h.run_steps(1);
    assert!(h.state_mut().panel.nav.open("keyboard"));
    h.run_steps(2);
    let (_, pages) = h.state().panel.page();
    assert!(pages >= 3, "the keyboard has several pages here: {pages}");
    let places = |h: &Harness<'static, State>| -> Vec<(String, egui::Rect)> {
        ["Previous", "More", "Back", "Home", "Close menu"].iter().map(|l| ((*l).to_string(), h.get_by_label(l).rect())).collect()
    };
    let first = places(&h);
    let more = h.get_by_label("More").rect().center();
    let mut seen = vec![h.state().panel.page().0];
    for _ in 0..pages {
        // The pointer rests on More's place; it leaves and comes back to page on.
        h.hover_at(egui::pos2(5.0, 5.0));
        h.run_steps(1);
        h.hover_at(more);
        h.get_by_label("More").click();
        h.run_steps(2);
        assert_eq!(places(&h), first, "page {}: the navigation row moved", h.state().panel.page().0);
        assert_eq!(h.state().panel.nav.current_name(), "keyboard", "paging never leaves the menu");
        seen.push(h.state().panel.page().0);
    }
    assert_eq!(seen.first(), seen.last(), "round to the first page: {seen:?}");
    let mut pages_seen = seen.clone();
    pages_seen.sort_unstable();
    pages_seen.dedup();
    assert_eq!(pages_seen.len(), pages, "every page: {seen:?}");
    // Previous on the first page shows the last.
    h.hover_at(egui::pos2(5.0, 5.0));
    h.run_steps(1);
    h.get_by_label("Previous").click();
    h.run_steps(2);
    assert_eq!(h.state().panel.page().0, pages - 1);
}

/// The menu opens again on its first page, not on the one visited last.
#[test]
fn the_menu_opens_again_on_its_first_page() {
    let dir = user_menus();
    let mut h = tiny_harness(dir.path());
    h.run_steps(1);
    assert!(h.state_mut().panel.nav.open("keyboard"));
    h.run_steps(2);
    h.get_by_label("More").click();
    h.run_steps(2);
    assert_eq!(h.state().panel.page().0, 1);
    h.state_mut().panel.appeared();
    h.run_steps(2);
    assert_eq!(h.state().panel.page().0, 0);
}

/// The side dock's keyboard keeps its keys while the user types: a long echo
/// line once pushed "Edit menu" onto a second line, and the page dropped
/// from 12 keys to 9 in mid-sentence. The echo line shows the end of the text.
#[test]
fn a_long_echo_line_never_takes_keys_from_the_page() {
    let dir = user_menus();
    let menus = menus::load_dir(dir.path()).expect("menus");
    let panel = MenuPanel::new(Navigator::new(menus), dir.path().to_path_buf(), 3, false, 1000.0, 60_000.0);
    // The right dock of a 1920x1080 screen at zoom 1.5 (docs/keyboard.md).
    let mut h = panel_harness(panel, egui::vec2(560.0, 660.0));
    h.run_steps(1);
    h.state_mut().panel.nav.open("keyboard");
    h.run_steps(2);
    let keys = |h: &Harness<'static, State>| h.state().panel.targets().iter().filter(|t| matches!(t, Target::Item(_))).count();
    let before = keys(&h);
    let edit = h.get_by_label("Edit menu").rect();
    for _ in 0..12 {
        for key in ["e", "e", "Space"] {
            press(&mut h, key);
            h.hover_at(egui::pos2(5.0, 5.0));
            h.run_steps(1);
        }
    }
    assert_eq!(h.state().panel.echo().len(), 36);
    assert_eq!(keys(&h), before, "keys on the page before and after a long sentence");
    assert_eq!(h.get_by_label("Edit menu").rect(), edit, "Edit menu stays where it was");
    assert!(h.query_by_label_contains("ee ee _").is_some(), "the echo line shows the end of the text");
}

/// The QWERTY keyboard (the profile's Settings, "Keyboard") lays its
/// letters out in QWERTY's rows, whatever the panel's width: q to p, then a
/// to l starting under q, then z to m under a; every key on one page. (Its
/// four rows of keys do not fit a bottom dock: it opens at the side.)
#[test]
fn the_qwerty_keyboard_keeps_its_rows_on_one_page() {
    let dir = user_menus();
    for size in [egui::vec2(576.0, 660.0), egui::vec2(900.0, 600.0)] {
        let menus = menus::load_dir(&facemouse::data_dir().join("menus")).expect("menus");
        let mut nav = Navigator::new(menus);
        nav.set_alias("keyboard", Some("keyboard-qwerty"));
        let panel = MenuPanel::new(nav, dir.path().to_path_buf(), 3, false, 1000.0, 60_000.0);
        let mut h = panel_harness(panel, size);
        h.run_steps(1);
        assert!(h.state_mut().panel.nav.open("keyboard"));
        h.run_steps(2);
        assert_eq!(h.state().panel.nav.current_name(), "keyboard-qwerty");
        assert_eq!(h.state().panel.page().1, 1, "{size:?}: one page");
        let at = |h: &Harness<'static, State>, l: &str| h.get_by_label(l).rect();
        for row in ["qwertyuiop", "asdfghjkl", "zxcvbnm"] {
            let y = at(&h, &row[..1]).center().y;
            let mut x = f32::MIN;
            for c in row.chars() {
                let r = at(&h, &c.to_string());
                assert!((r.center().y - y).abs() < 1.0 && r.center().x > x, "{size:?}: {c} is not in its row: {r:?}");
                x = r.center().x;
            }
        }
        let (q, a, z) = (at(&h, "q"), at(&h, "a"), at(&h, "z"));
        assert!(a.top() > q.bottom() && z.top() > a.bottom(), "{size:?}: rows in order");
        assert!((a.left() - q.left()).abs() < 1.0 && (z.left() - a.left()).abs() < 1.0, "{size:?}: each row starts at the left");
    }
}

/// A key is under the pointer up to the middle of the gap round it
/// (`menu_panel::HIT_MARGIN`, the windows' interact radius): a rest in the
/// gap beside a key, nearer to it, types that key, in the gap between two
/// rows too; there is no dead strip between keys. The side keyboard of a
/// 1920x1080 screen at zoom 1.5, the window's style as the app sets it.
#[test]
fn a_rest_in_the_gap_beside_a_key_types_that_key() {
    use facemouse::ui::menu_panel::HIT_MARGIN;
    let dir = user_menus();
    let menus = menus::load_dir(dir.path()).expect("menus");
    let panel = MenuPanel::new(Navigator::new(menus), dir.path().to_path_buf(), 3, false, 1000.0, 1000.0);
    let mut h = Harness::builder().with_size(egui::vec2(560.0, 660.0)).with_step_dt(0.1).build_ui_state(
        |ui, s: &mut State| {
            let _ = facemouse::ui::style::apply(ui.ctx(), &facemouse::settings::UiSettings { zoom: 1.0, ..Default::default() });
            let t = ui.input(|i| i.time) * 1000.0;
            if let Some(o) = s.panel.show(ui, t) {
                s.outcomes.push(o);
            }
        },
        State { panel, outcomes: Vec::new() },
    );
    h.run_steps(1);
    h.state_mut().panel.nav.open("keyboard");
    h.run_steps(2);
    let (e, t) = (h.get_by_label("e").rect(), h.get_by_label("t").rect());
    let gap = t.left() - e.right();
    assert!(gap > 2.0 * HIT_MARGIN - 1.0 && gap < 2.0 * HIT_MARGIN + 1.0, "keys {gap} apart");
    // Beside "e", just short of the gap's middle; then below "t", in the gap to the next row.
    let below = ('a'..='z').filter_map(|c| h.query_by_label(&c.to_string()).map(|n| n.rect())).find(|r| r.top() > t.bottom() && r.left() <= t.center().x && r.right() >= t.center().x);
    let spots = [(egui::pos2(e.right() + HIT_MARGIN - 0.5, e.center().y), "e"), (egui::pos2(t.center().x, t.bottom() + HIT_MARGIN - 0.5), "t")];
    assert!(below.is_some_and(|b| b.top() - t.bottom() > 2.0 * HIT_MARGIN - 1.0), "a row of keys under t: {below:?}");
    for (i, (at, key)) in spots.into_iter().enumerate() {
        h.hover_at(egui::pos2(5.0, 5.0));
        h.run_steps(3);
        h.hover_at(at);
        h.run_steps(15);
        let typed: Vec<_> = h.state().outcomes.iter().filter(|o| matches!(o, Outcome::Type(_))).cloned().collect();
        assert_eq!(typed.len(), i + 1, "a rest at {at:?} typed one key: {typed:?}");
        assert_eq!(typed[i], Outcome::Type(key.into()), "the rest at {at:?}, nearest {key}");
    }
}

/// A menu docked along the bottom of a small screen at a large zoom (zoom 3
/// on 1280×800: a window of 427×200 points) shows no target past its
/// edges, and Close is on every screen: its columns were the profile's
/// three at least, and the third, Close among it, lay past the right edge.
#[test]
fn a_wide_menu_at_a_large_zoom_keeps_every_target_inside() {
    // Along the bottom, and (not wide) at the side, as narrow as a docked
    // menu gets (`MENU_MIN_SIDE`).
    for (wide, size) in [(true, egui::vec2(427.0, 200.0)), (false, egui::vec2(200.0, 260.0))] {
        let dir = user_menus();
        let menus = menus::load_dir(dir.path()).expect("menus");
        let mut panel = MenuPanel::new(Navigator::new(menus), dir.path().to_path_buf(), 3, false, 1000.0, 60_000.0);
        panel.wide = wide;
        let mut h = panel_harness(panel, size);
        h.run_steps(2);
        for name in h.state().panel.nav.names() {
            assert!(h.state_mut().panel.nav.open(&name));
            h.run_steps(2);
            assert!(h.state().panel.targets().contains(&Target::Close), "{size:?} {name}: Close is on screen");
            for node in h.get_all_by_role(egui::accesskit::Role::Button) {
                let r = node.rect();
                assert!(r.min.x >= 0.0 && r.min.y >= 0.0 && r.max.x <= size.x + 1.0 && r.max.y <= size.y + 1.0, "{size:?} {name}: {:?} at {r:?} is off the window", node.value());
            }
        }
    }
}
