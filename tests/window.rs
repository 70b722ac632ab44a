//! The main window as its user meets it, driven by accessibility label
//! (egui_kittest) with the UI's clock stepped by the test, never read from
//! the system: dwell on a toggle fires once at the dwell time and saves the
//! profile; a profile another window has open is used read-only; a source
//! that cannot be read shows its problem in words.

use std::path::Path;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use facemouse::instance::{self, ProfileAccess};
use facemouse::menus::{self, Navigator};
use facemouse::profile;
use facemouse::ui::{FacemouseApp, Launch, SourceChoice, Worker};

/// The window on profile "default" under `root`, showing a recording that
/// does not exist (the worker runs, and reports it).
fn window(root: &Path, access: ProfileAccess) -> Harness<'static, FacemouseApp> {
    window_with_events(root, access).0
}

/// [`window`], opened in the calibration wizard (`--calibrate`).
fn wizard_window(root: &Path, access: ProfileAccess) -> Harness<'static, FacemouseApp> {
    build_with(root, access, true, false).0
}

/// [`window`], and the worker's snapshot, into which a test puts the
/// switch's events as the worker would.
fn window_with_events(root: &Path, access: ProfileAccess) -> (Harness<'static, FacemouseApp>, std::sync::Arc<std::sync::Mutex<facemouse::ui::Snapshot>>) {
    build_with(root, access, false, false)
}

/// The window as `--calibrate` and `--autostart` would open it.
fn build_with(root: &Path, access: ProfileAccess, calibrate: bool, at_login: bool) -> (Harness<'static, FacemouseApp>, std::sync::Arc<std::sync::Mutex<facemouse::ui::Snapshot>>) {
    build_noted(root, access, calibrate, at_login, Vec::new(), egui::vec2(1280.0, 800.0))
}

/// [`build_with`], with these notes (warnings) from opening the profile.
fn build_noted(root: &Path, access: ProfileAccess, calibrate: bool, at_login: bool, notes: Vec<String>, size: egui::Vec2) -> (Harness<'static, FacemouseApp>, std::sync::Arc<std::sync::Mutex<facemouse::ui::Snapshot>>) {
    let (prof, _) = profile::open_from(root, "default").expect("profile");
    let source = SourceChoice::recording(&root.join("no-such-recording.avi"), false, false);
    let worker = Worker::start(prof.settings.clone(), source.clone()).expect("worker");
    let snapshot = worker.snapshot();
    let nav = Navigator::new(menus::load_dir(&facemouse::data_dir().join("menus")).expect("menus"));
    let launch = Launch { profile: prof, notes, source, show_menu: false, calibrate, access, drive_lock: None, at_login, autostart_dir: Some(root.join("autostart")) };
    let ctx = egui::Context::default();
    let app = FacemouseApp::new(&ctx, launch, nav, worker);
    // Steps of 100 ms of the UI's clock: dwell times are counted in steps.
    let mut h = Harness::builder().with_size(size).with_step_dt(0.1).build_ui_state(|ui, app: &mut FacemouseApp| app.show(ui), app);
    // The pointer where the window appears: over no target (over the
    // preview, or the wizard's instructions), where it rests, spent.
    h.hover_at(egui::pos2(640.0, 250.0));
    h.run_steps(1);
    (h, snapshot)
}

/// [`window`] on a new config folder (kept with it), after its first passes.
fn fresh_window() -> (tempfile::TempDir, Harness<'static, FacemouseApp>) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let access = instance::open_profile(tmp.path(), "default").expect("lock");
    let mut h = window(tmp.path(), access);
    h.run_steps(2);
    (tmp, h)
}

fn click_sound_saved(root: &Path) -> Option<bool> {
    let text = std::fs::read_to_string(root.join("profiles/default/settings.toml")).ok()?;
    Some(profile::parse_settings(Path::new("settings.toml"), &text).ok()?.ui.click_sound)
}

/// Opens the Settings page by dwell, at its first page (the toggles and pickers).
fn open_settings(h: &mut Harness<'static, FacemouseApp>) {
    rest_on(h, "Settings", 12);
    // (The controls' panel takes the page's height on the next pass.)
    h.run_steps(2);
}

/// Opens the Settings page by dwell at its first stepping page (past the
/// toggles and the profiles), where the dwell time is; how many pages it has.
fn open_step_settings(h: &mut Harness<'static, FacemouseApp>) -> usize {
    open_settings(h);
    assert!(h.query_by_label("Close settings").is_some(), "the page opened");
    let pages = 2 + facemouse::ui::settings_page::pages();
    for page in 1..=2 {
        rest_on(h, &format!("More settings ({page}/{pages})"), 12);
        h.run_steps(2);
        // Off and back: the next page's More is where this one was.
        rest_on(h, "Close settings", 2);
    }
    pages
}

/// Rests the pointer on the target labelled `label` for `steps` steps of the UI's clock.
fn rest_on(h: &mut Harness<'static, FacemouseApp>, label: &str, steps: usize) {
    h.get_by_label(label).hover();
    for _ in 0..steps {
        h.step();
    }
}

#[test]
fn dwell_on_a_toggle_fires_once_at_the_dwell_time_and_saves_the_profile() {
    let (tmp, mut h) = fresh_window();
    assert_eq!(click_sound_saved(tmp.path()), Some(false));
    open_settings(&mut h);
    // The default dwell is 1 s: at 0.8 s nothing has happened yet.
    rest_on(&mut h, "Click sound: off", 8);
    assert!(h.query_by_label("Click sound: off").is_some(), "fired before the dwell time");
    rest_on(&mut h, "Click sound: off", 5);
    assert!(h.query_by_label("Click sound: on").is_some(), "a full dwell must toggle");
    assert_eq!(click_sound_saved(tmp.path()), Some(true), "the change is saved");
    // Resting on longer never repeats: the pointer must leave first.
    for _ in 0..30 {
        h.step();
    }
    assert!(h.query_by_label("Click sound: on").is_some(), "a long rest toggled it back");
}

#[test]
fn a_profile_open_in_another_window_is_used_read_only_and_never_written() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let _other_window = instance::open_profile(tmp.path(), "default").expect("first window");
    let access = instance::open_profile(tmp.path(), "default").expect("second window");
    assert!(access.read_only().is_some());
    let mut h = window(tmp.path(), access);
    let before = std::fs::read(tmp.path().join("profiles/default/settings.toml")).expect("settings");
    h.run_steps(2);
    open_settings(&mut h);
    rest_on(&mut h, "Click sound: off", 12);
    // The change applies in this window, but is not saved, and the window says why.
    assert!(h.query_by_label("Click sound: on").is_some(), "the toggle works in the window");
    assert_eq!(std::fs::read(tmp.path().join("profiles/default/settings.toml")).expect("settings"), before, "a read-only profile was written");
    assert!(h.query_by_label_contains("Not saved: Profile \"default\" is open in another Facemouse window").is_some(), "the status must say why");
}

#[test]
fn a_source_that_cannot_be_read_shows_its_problem_in_words() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let access = instance::open_profile(tmp.path(), "default").expect("lock");
    let mut h = window(tmp.path(), access);
    // The worker reports from its own thread: step the UI until it shows it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while h.query_by_label_contains("no-such-recording.avi").is_none() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
        h.step();
    }
    assert!(h.query_by_label_contains("no-such-recording.avi").is_some(), "the missing recording must be named");
    assert!(h.query_by_label("No picture from the camera").is_some(), "the status must not say it is searching");
}

/// A click on a toggle (the switch clicks at the pointer), then the pointer
/// resting on it: one action, not a toggle and a dwell that undoes it.
#[test]
fn a_click_then_a_rest_on_a_toggle_toggles_it_once() {
    let (tmp, mut h) = fresh_window();
    open_settings(&mut h);
    h.get_by_label("Click sound: off").click();
    for _ in 0..40 {
        h.step();
    }
    assert!(h.query_by_label("Click sound: on").is_some(), "the dwell undid the click");
    assert_eq!(click_sound_saved(tmp.path()), Some(true));
}

/// A gesture bound to `open_menu` opens the menu, from a source that drives
/// the pointer; the same event from a demo that does not drive does nothing.
#[test]
fn a_gesture_bound_to_open_menu_opens_the_menu_and_a_demo_never_does() {
    use facemouse::events::Event;
    for driving in [false, true] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let access = instance::open_profile(tmp.path(), "default").expect("lock");
        let (mut h, snap) = window_with_events(tmp.path(), access);
        h.run_steps(2);
        assert!(h.query_by_label("Menu").is_some(), "the menu starts closed");
        if let Ok(mut s) = snap.lock() {
            s.driving = driving;
            s.events.push_back((1, Event::OpenMenu));
        }
        h.run_steps(3);
        assert_eq!(h.query_all_by_label("Close menu").next().is_some(), driving, "driving {driving}: the menu opens only from a source that drives");
    }
}

/// The calibration wizard can be left hands-free at any step: Cancel (by
/// dwell here) ends it, says so, and keeps the old calibration and settings.
#[test]
fn the_wizard_is_cancelled_by_dwell_and_keeps_the_old_settings() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let access = instance::open_profile(tmp.path(), "default").expect("lock");
    let mut h = wizard_window(tmp.path(), access);
    let before = std::fs::read(tmp.path().join("profiles/default/settings.toml")).expect("settings");
    h.run_steps(2);
    assert!(h.query_by_label_contains("blink naturally").is_some(), "the wizard shows its first step");
    // As large a target as the main window's controls (it was 92x33 points).
    let cancel = h.get_by_label("Cancel").rect();
    assert!(cancel.width() >= 200.0 && cancel.height() >= 52.0, "Cancel is {cancel:?}");
    rest_on(&mut h, "Cancel", 12);
    assert!(h.query_by_label_contains("Calibration not saved: cancelled").is_some(), "the status says it was cancelled");
    assert!(h.query_by_label("Cancel").is_none(), "the wizard is gone");
    assert_eq!(std::fs::read(tmp.path().join("profiles/default/settings.toml")).expect("settings"), before);
    assert!(!tmp.path().join("profiles/default/calibration.toml").exists());
}

/// Facemouse is quit hands-free, but never by one stray selection: the first
/// rest on "Quit Facemouse" only asks for a second one, which must be a new
/// selection within 8 s.
#[test]
fn quitting_takes_two_selections() {
    let (_tmp, mut h) = fresh_window();
    rest_on(&mut h, "Quit Facemouse", 40);
    assert!(!h.state().quitting(), "one long rest does not quit");
    assert!(h.query_by_label("Quit: select again to confirm").is_some());
    // Not confirmed in time: it asks again from the start.
    h.get_by_label("Recentre").hover();
    h.run_steps(60);
    assert!(h.query_by_label("Quit Facemouse").is_some(), "the request lapsed");
    rest_on(&mut h, "Quit Facemouse", 12);
    h.get_by_label("Recentre").hover();
    h.run_steps(2);
    rest_on(&mut h, "Quit: select again to confirm", 12);
    assert!(h.state().quitting(), "the second selection quits");
}

/// With scanning on, the switch alone cancels the wizard (its one control).
#[test]
fn the_wizard_is_cancelled_by_the_switch_when_scanning() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (mut h, press) = scanning_window(tmp.path(), "", true);
    assert!(h.query_by_label_contains("blink naturally").is_some());
    press(1);
    h.run_steps(3);
    assert!(h.query_by_label_contains("Calibration not saved: cancelled").is_some(), "the switch cancelled the wizard");
    assert!(!tmp.path().join("profiles/default/calibration.toml").exists());
}

/// A new profile is made hands-free: a dwell on "New profile" copies this
/// one and switches to it; "Profile" then cycles between the two.
#[test]
fn a_new_profile_is_made_and_switched_to_by_dwell() {
    let (tmp, mut h) = fresh_window();
    rest_on(&mut h, "Profile: default", 12);
    h.run_steps(2);
    rest_on(&mut h, "Profile default: show next", 12);
    assert!(h.query_by_label_contains("only profile").is_some(), "one profile: the button says so instead of nothing");
    rest_on(&mut h, "New profile", 12);
    assert!(h.query_by_label_contains("Made profile default-2 from default").is_some(), "the status says what was made");
    assert!(h.query_by_label("default-2 is in use").is_some(), "switched to it");
    assert!(tmp.path().join("profiles/default-2/settings.toml").is_file());
    assert!(tmp.path().join("profiles/default-2/menus/main.toml").is_file());
}

/// "Start at login" is a dwell target: it writes the XDG autostart entry,
/// and a second dwell removes it.
#[test]
fn start_at_login_is_turned_on_and_off_by_dwell() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let access = instance::open_profile(tmp.path(), "default").expect("lock");
    let mut h = window(tmp.path(), access);
    let entry = tmp.path().join("autostart/facemouse.desktop");
    h.run_steps(2);
    open_settings(&mut h);
    rest_on(&mut h, "Start at login: off", 12);
    assert!(entry.is_file(), "the entry is written");
    assert!(std::fs::read_to_string(&entry).expect("entry").contains(" --autostart\n"));
    assert!(h.query_by_label("Start at login: on").is_some());
    // Away and back: the target re-arms once the pointer has left it.
    h.get_by_label("Close settings").hover();
    h.run_steps(2);
    rest_on(&mut h, "Start at login: on", 12);
    assert!(!entry.exists(), "the entry is removed");
}

/// Started at login, the window says that clicks wait, and counts down.
#[test]
fn a_start_at_login_shows_its_grace() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let access = instance::open_profile(tmp.path(), "default").expect("lock");
    let mut h = build_with(tmp.path(), access, false, true).0;
    h.run_steps(2);
    assert!(h.query_by_label_contains("Started at login: clicks begin in 10 s").is_some(), "the grace is shown");
    for _ in 0..110 {
        h.step();
    }
    assert!(h.query_by_label_contains("Started at login").is_none(), "gone after 10 s");
    assert_eq!(facemouse::profile::last_used(tmp.path()).as_deref(), Some("default"), "the profile is remembered for the next start at login");
}

/// The window with scanning on (a step a second; `ui_extra` adds to the
/// profile's `[ui]`), in the calibration wizard if `calibrate`, and the
/// switch: each call is a press, as the worker reports it (numbered 1, 2, …).
fn scanning_window(root: &Path, ui_extra: &str, calibrate: bool) -> (Harness<'static, FacemouseApp>, impl Fn(u64)) {
    let dir = root.join("profiles/default");
    std::fs::create_dir_all(&dir).expect("profile");
    std::fs::write(dir.join("settings.toml"), format!("[ui]\nscanning = true\nscan_step_ms = 1000\n{ui_extra}")).expect("settings");
    let access = instance::open_profile(root, "default").expect("lock");
    let (mut h, snap) = build_with(root, access, calibrate, false);
    h.run_steps(3);
    let press = move |n: u64| {
        if let Ok(mut s) = snap.lock() {
            s.driving = true;
            s.events.push_back((n, facemouse::events::Event::ClickLeft));
        }
    };
    (h, press)
}

/// With scanning on and the menu closed, the switch scans the main window's
/// controls: the first press enters the first row, the second selects the
/// lit control (here "Menu", the third) and nothing else.
#[test]
fn scanning_reaches_the_main_windows_controls_with_the_switch_alone() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (mut h, press) = scanning_window(tmp.path(), "", false);
    press(1); // enter the first row, at "Pause"
    h.run_steps(1);
    for _ in 0..21 {
        h.step(); // 2.1 s: "Recentre", then "Menu"
    }
    assert!(h.query_all_by_label("Close menu").next().is_none(), "entering the row selects nothing");
    press(2); // select it
    h.run_steps(3);
    assert!(h.query_all_by_label("Close menu").next().is_some(), "the scanned control opened the menu");
}

/// With the click toolbar shown, the switch scans its targets after the
/// main window's controls, and selects one of them: the switch alone
/// chooses the dwell click too.
#[test]
fn scanning_reaches_the_click_toolbar_after_the_main_windows_controls() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (mut h, press) = scanning_window(tmp.path(), "click_toolbar = true\n", false);
    assert!(h.query_by_label("• No click").is_some(), "the toolbar shows");
    // The main window's controls are scanned in their rows on screen; the
    // toolbar's first row comes after them (a row a second), and "Right
    // click" is its second target.
    let main = h.state().scanned_controls();
    assert!(main >= 10, "{main}");
    let per_row = h.state().main_scan_columns();
    // (The scanner started with the UI's clock at 0; press mid-row.)
    let now = |h: &Harness<'static, FacemouseApp>| h.ctx.input(|i| i.time);
    while now(&h) < main.div_ceil(per_row) as f64 + 0.5 {
        h.step();
    }
    press(1);
    h.run_steps(1);
    assert!(h.query_by_label("Dwell click: off").is_some(), "entering the row selects nothing");
    for _ in 0..14 {
        h.step();
    }
    press(2);
    h.run_steps(3);
    assert!(h.query_by_label("Dwell click: right").is_some() && h.query_by_label("• Right click").is_some(), "the scanned toolbar target chose the click ({main} controls before it)");
}

/// Dwell clicking in other applications is turned on from the window, by
/// dwell: each rest on "Dwell click" steps to the next click, and it is saved.
#[test]
fn desktop_dwell_is_turned_on_and_its_click_chosen_by_dwell() {
    let (tmp, mut h) = fresh_window();
    rest_on(&mut h, "Dwell click: off", 12);
    assert!(h.query_by_label("Dwell click: left").is_some());
    let text = std::fs::read_to_string(tmp.path().join("profiles/default/settings.toml")).expect("settings");
    let saved = profile::parse_settings(Path::new("settings.toml"), &text).expect("parses");
    assert_eq!(saved.switch.dwell, facemouse::settings::Action::ClickLeft);
    h.get_by_label("Recentre").hover();
    h.run_steps(2);
    rest_on(&mut h, "Dwell click: left", 12);
    assert!(h.query_by_label("Dwell click: right").is_some(), "the next rest chooses the next click");
}

#[test]
fn the_click_toolbar_is_shown_by_dwell_and_chooses_the_next_click_by_dwell() {
    let (tmp, mut h) = fresh_window();
    assert!(h.query_by_label("Drag").is_none(), "no toolbar until asked for");
    open_settings(&mut h);
    rest_on(&mut h, "Click toolbar: off", 12);
    assert!(h.query_by_label("Click toolbar: on").is_some());
    h.run_steps(2);
    // The current choice is marked; dwell off is "No click".
    assert!(h.query_by_label("• No click").is_some());
    rest_on(&mut h, "Drag", 12);
    assert!(h.query_by_label("• Drag").is_some(), "the toolbar's choice is marked");
    let text = std::fs::read_to_string(tmp.path().join("profiles/default/settings.toml")).expect("settings");
    let saved = profile::parse_settings(Path::new("settings.toml"), &text).expect("parses");
    assert_eq!(saved.switch.dwell, facemouse::settings::Action::DragToggle);
    assert!(saved.ui.click_toolbar);
    // A long rest on the chosen one changes nothing; the pointer must leave first.
    rest_on(&mut h, "• Drag", 30);
    assert!(h.query_by_label("• Drag").is_some());
    rest_on(&mut h, "No click", 12);
    let text = std::fs::read_to_string(tmp.path().join("profiles/default/settings.toml")).expect("settings");
    assert_eq!(profile::parse_settings(Path::new("settings.toml"), &text).expect("parses").switch.dwell, facemouse::settings::Action::None, "the toolbar's choice is the dwell click");
    rest_on(&mut h, "Click toolbar: on", 12);
    h.run_steps(2);
    assert!(h.query_by_label("Right click").is_none(), "hidden again");
}

/// A profile without menus gave ten two-line red warnings that pushed every
/// control out of the window (1280x800 at the default zoom): the notes take
/// at most three lines now, and every control stays inside the window.
#[test]
fn many_warnings_never_push_the_controls_out_of_the_window() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let access = instance::open_profile(tmp.path(), "default").expect("lock");
    let long = |i: usize| format!("{}/profiles/default/menus/menu-{i}.toml: line 3, item \"Open the news\": does more than one thing: give it only one of submenu, launch, type, keys, url or action; kept as menu-{i}.toml.bak and not used", tmp.path().display());
    // 1280x800 pixels at the default zoom of 1.5.
    let size = egui::vec2(853.0, 533.0);
    let (mut h, _) = build_noted(tmp.path(), access, false, false, (0..10).map(long).collect(), size);
    h.run_steps(3);
    for label in ["Quit Facemouse", "Scanning: off", "Pause"] {
        let r = h.get_by_label(label).rect();
        assert!(r.top() >= 0.0 && r.bottom() <= size.y && r.right() <= size.x, "{label} at {r:?} is outside the window");
    }
    assert!(h.query_by_label_contains("more (Facemouse printed them all").is_some(), "the rest are counted");
}

/// When the wizard ends with the pointer resting where "Calibrate"
/// reappears, the wizard must not start again a dwell later (it did,
/// twice): what comes back under a resting pointer waits for it to leave.
#[test]
fn a_pointer_resting_where_calibrate_reappears_does_not_start_the_wizard_again() {
    let at = {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (h, _) = scanning_window(tmp.path(), "", false);
        h.get_by_label("Calibrate").rect().center()
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let (mut h, press) = scanning_window(tmp.path(), "", true);
    assert!(h.query_by_label_contains("blink naturally").is_some(), "in the wizard");
    h.hover_at(at);
    h.run_steps(30);
    press(1);
    h.run_steps(3);
    assert!(h.query_by_label_contains("Calibration not saved: cancelled").is_some(), "the switch cancelled the wizard");
    assert!(h.query_by_label("Calibrate").is_some_and(|n| n.rect().contains(at)), "Calibrate is back under the resting pointer");
    h.run_steps(40);
    assert!(h.query_by_label_contains("blink naturally").is_none(), "the wizard started again under the resting pointer");
}

/// A label that changes never moves another control: the Quit confirmation
/// jumped to the next row, so the confirming rest hit nothing, and "Start at
/// login" moved Quit again. Every control is at least 64 pixels tall at the
/// default zoom (1.5).
#[test]
fn controls_keep_their_places_when_a_label_changes_and_are_large() {
    let (_tmp, mut h) = fresh_window();
    let quit = h.get_by_label("Quit Facemouse").rect();
    let dwell = h.get_by_label("Dwell click: off").rect();
    rest_on(&mut h, "Quit Facemouse", 12);
    let confirm = h.get_by_label("Quit: select again to confirm").rect();
    assert_eq!(confirm, quit, "the confirmation is where Quit was");
    rest_on(&mut h, "Dwell click: off", 12);
    assert_eq!(h.get_by_label("Dwell click: left").rect(), dwell);
    assert_eq!(h.get_by_label("Quit: select again to confirm").rect(), quit, "Dwell click moved nothing");
    for node in h.get_all_by_role(egui::accesskit::Role::Button) {
        let r = node.rect();
        assert!(r.height() * 1.5 >= 64.0, "{:?} is {} pixels tall at zoom 1.5", node.value(), r.height() * 1.5);
    }
}

/// A switch press that does nothing (too soon after the last) says so.
#[test]
fn an_ignored_switch_press_is_shown() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let access = instance::open_profile(tmp.path(), "default").expect("lock");
    let (mut h, snap) = window_with_events(tmp.path(), access);
    h.run_steps(2);
    snap.lock().expect("snapshot").events.push_back((1, facemouse::events::Event::SwitchIgnored));
    h.run_steps(2);
    assert!(h.query_by_label_contains("Switch press ignored").is_some(), "the window says why nothing came");
}

/// The main window's scan groups are its rows on screen, at any window
/// width: a group of four crossed the visual rows on a wider window.
#[test]
fn the_main_windows_scan_groups_are_its_rows_on_screen() {
    for width in [853.0, 1280.0, 1920.0] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let access = instance::open_profile(tmp.path(), "default").expect("lock");
        let (mut h, _) = build_noted(tmp.path(), access, false, false, Vec::new(), egui::vec2(width, 800.0));
        h.run_steps(3);
        let top = h.get_by_label("Pause").rect().top();
        let on_first_row = h.get_all_by_role(egui::accesskit::Role::Button).filter(|n| (n.rect().top() - top).abs() < 1.0 && n.rect().height() > 40.0).count();
        assert!(on_first_row >= 3, "{width}: {on_first_row} on the first row");
        assert_eq!(h.state().main_scan_columns(), on_first_row, "{width} points wide");
    }
}

fn dwell_saved(root: &Path) -> Option<f64> {
    let text = std::fs::read_to_string(root.join("profiles/default/settings.toml")).ok()?;
    Some(profile::parse_settings(Path::new("settings.toml"), &text).ok()?.pointer.dwell_ms)
}

/// The Settings page, by dwell alone: a step of the dwell time applies, is
/// saved, and is there after a restart; every target of every page lies
/// inside the window, and the page closes back to the controls.
#[test]
fn a_setting_changed_by_dwell_is_saved_and_kept_after_a_restart() {
    let tmp = tempfile::tempdir().expect("tempdir");
    {
        let access = instance::open_profile(tmp.path(), "default").expect("lock");
        let mut h = window(tmp.path(), access);
        h.run_steps(2);
        let pages = open_step_settings(&mut h);
        rest_on(&mut h, "Dwell time 1.0 s: longer", 12);
        assert_eq!(dwell_saved(tmp.path()), Some(1100.0), "saved at once");
        // Resting on longer never repeats; leaving and coming back steps again (at the new dwell time).
        rest_on(&mut h, "Dwell time 1.1 s: longer", 20);
        assert_eq!(dwell_saved(tmp.path()), Some(1100.0), "a long rest stepped again");
        rest_on(&mut h, "Close settings", 2);
        rest_on(&mut h, "Dwell time 1.1 s: longer", 13);
        assert_eq!(dwell_saved(tmp.path()), Some(1200.0));
        // Every page's targets are inside the window (1280x800 points at zoom 1 here).
        for page in 2..pages + 2 {
            for node in h.get_all_by_role(egui::accesskit::Role::Button) {
                let r = node.rect();
                assert!(r.top() >= 0.0 && r.bottom() <= 800.0 && r.left() >= 0.0 && r.right() <= 1280.0, "{:?} at {r:?}", node.value());
            }
            rest_on(&mut h, "Close settings", 2);
            rest_on(&mut h, &format!("More settings ({}/{pages})", page % pages + 1), 13);
            h.run_steps(2);
        }
        h.run_steps(2);
        rest_on(&mut h, "Close settings", 13);
        h.run_steps(2);
        assert!(h.query_by_label("Quit Facemouse").is_some(), "back to the controls");
    }
    // A restart: the setting is there.
    let access = instance::open_profile(tmp.path(), "default").expect("lock");
    let mut h = window(tmp.path(), access);
    h.run_steps(2);
    open_step_settings(&mut h);
    assert!(h.query_by_label("Dwell time 1.2 s: shorter").is_some(), "kept after a restart");
}

/// The Settings page by the switch alone, with scanning: the switch
/// selects "Settings", then a setting's step.
#[test]
fn the_settings_page_is_reached_and_used_by_the_switch_alone() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (mut h, press) = scanning_window(tmp.path(), "", false);
    // The first row: Pause, Recentre, Menu, Point scan, Settings, … (as many as fit).
    let mut n = 0;
    let mut select = |h: &mut Harness<'static, FacemouseApp>, row_steps: usize, item_steps: usize| {
        for _ in 0..row_steps * 10 {
            h.step();
        }
        n += 1;
        press(n); // enter the lit row
        h.run_steps(1);
        for _ in 0..item_steps * 10 {
            h.step();
        }
        n += 1;
        press(n); // select the lit control
        h.run_steps(3);
    };
    select(&mut h, 0, 4); // the first row, its fifth control: "Settings"
    assert!(h.query_by_label("Close settings").is_some(), "the switch opened the page");
    // The page's first row: Close settings, More settings, …: on past the
    // toggles and the profiles, to the page whose first row is Close
    // settings, More settings, Dwell time shorter, Dwell time longer.
    select(&mut h, 0, 1);
    select(&mut h, 0, 1); // past the profiles' page
    select(&mut h, 0, 3);
    assert_eq!(dwell_saved(tmp.path()), Some(1100.0), "the switch stepped the dwell time");
}

/// Profiles by dwell alone: stepping through them only shows each, "Use"
/// applies one; a new profile is named with the menu's keyboard; a profile
/// is deleted only after a confirming selection, never the one in use, and
/// is kept aside, not lost.
#[test]
fn profiles_are_shown_used_named_and_deleted_by_dwell() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let bob = tmp.path().join("profiles/bob");
    std::fs::create_dir_all(&bob).expect("bob");
    // (The menu at the right: at the bottom it would lie over the window's controls here.)
    std::fs::write(bob.join("settings.toml"), "[pointer]\ndwell_ms = 1000\n[ui]\nmenu_dock = \"right\"\n").expect("settings");
    let access = instance::open_profile(tmp.path(), "default").expect("lock");
    let mut h = window(tmp.path(), access);
    // The profiles are listed by a thread: wait for both.
    for _ in 0..50 {
        h.step();
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    rest_on(&mut h, "Profile: default", 12);
    h.run_steps(2);
    assert!(h.query_by_label("default is in use").is_some());
    rest_on(&mut h, "Profile default: show next", 12);
    assert!(h.query_by_label("Use bob").is_some(), "bob is shown");
    assert!(h.query_all_by_label_contains("is in use").next().is_none(), "and not applied by showing it");
    rest_on(&mut h, "Use bob", 12);
    h.run_steps(2);
    assert!(h.query_by_label("bob is in use").is_some(), "applied when chosen");
    // A new profile, named with the menu's keyboard.
    rest_on(&mut h, "New profile", 12);
    h.run_steps(2);
    assert!(h.query_by_label("bob-2 is in use").is_some(), "{:?}", h.query_by_label_contains("profile"));
    rest_on(&mut h, "Rename bob-2", 12);
    h.run_steps(3);
    // Each key by a rest, leaving between.
    for key in ["e", "Space", "e"] {
        rest_on(&mut h, key, 12);
        rest_on(&mut h, "Cancel naming", 1);
    }
    assert!(h.query_by_label("Save name: e-e").is_some(), "typed with the menu's keyboard (a space is a -)");
    rest_on(&mut h, "Delete", 12);
    rest_on(&mut h, "Cancel naming", 1);
    assert!(h.query_by_label("Save name: e-").is_some(), "Delete takes a character back");
    rest_on(&mut h, "e", 12);
    h.run_steps(1);
    // (Here the menu lies over the window: out of the way first.)
    rest_on(&mut h, "Close menu", 12);
    h.run_steps(2);
    rest_on(&mut h, "Save name: e-e", 12);
    h.run_steps(2);
    assert!(tmp.path().join("profiles/e-e/settings.toml").is_file() && !tmp.path().join("profiles/bob-2").exists(), "renamed");
    assert!(h.query_by_label("e-e is in use").is_some(), "the profile in use under its new name");
    // Deleting: never the one in use; another after a confirming selection.
    rest_on(&mut h, "Delete e-e", 12);
    assert!(h.query_by_label_contains("e-e is in use: use another profile first").is_some());
    assert!(tmp.path().join("profiles/e-e").is_dir());
    for _ in 0..50 {
        h.step();
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let mut shown_default = false;
    for _ in 0..4 {
        if h.query_by_label("Use default").is_some() {
            shown_default = true;
            break;
        }
        let next = ["Profile e-e: show next", "Profile bob: show next", "Profile default: show next"].into_iter().find(|l| h.query_by_label(l).is_some()).expect("a show-next target");
        rest_on(&mut h, next, 12);
        rest_on(&mut h, "New profile", 1);
    }
    assert!(shown_default, "default can be shown");
    rest_on(&mut h, "Delete default", 12);
    assert!(tmp.path().join("profiles/default").is_dir(), "one selection deletes nothing");
    rest_on(&mut h, "Use default", 2);
    rest_on(&mut h, "Delete default: select again to confirm", 12);
    assert!(!tmp.path().join("profiles/default").exists(), "deleted after the confirming selection");
    assert!(std::fs::read_dir(tmp.path().join("deleted-profiles")).expect("kept").next().is_some(), "kept aside, not lost");
}

/// The window (`size` points) on a new config folder, showing a camera
/// picture (640x480) as the worker publishes it, once the worker has
/// reported the test's missing recording: the window's note line comes with
/// that report, and a test that measures the window's room must see it
/// settled (it came before or after the first frames). The steps are the
/// caller's.
fn picture_window(size: egui::Vec2) -> (tempfile::TempDir, Harness<'static, FacemouseApp>, std::sync::Arc<std::sync::Mutex<facemouse::ui::Snapshot>>) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let access = instance::open_profile(tmp.path(), "default").expect("lock");
    let (h, snap) = build_noted(tmp.path(), access, false, false, Vec::new(), size);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while snap.lock().map_or(true, |s| s.message.is_empty()) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    if let Ok(mut s) = snap.lock() {
        s.preview = Some(std::sync::Arc::new(facemouse::ui::Preview { width: 640, height: 480, rgb: vec![128; 640 * 480 * 3] }));
        s.frame_seq += 1;
        s.frame_size = (640, 480);
    }
    (tmp, h, snap)
}

/// The live plot is in full view above the controls at 1280x800 pixels and
/// the default zoom (one above the other, the plot was half hidden behind
/// the controls): its title and its legend lie above the first control.
#[test]
fn the_preview_and_the_plot_are_in_view_above_the_controls() {
    // 1280x800 pixels at the default zoom of 1.5.
    let (_tmp, mut h, _) = picture_window(egui::vec2(853.0, 533.0));
    h.run_steps(3);
    let controls_top = h.get_by_label("Pause").rect().top();
    let legend = h.get_by_label("threshold").rect();
    assert!(legend.bottom() <= controls_top && legend.top() >= 0.0, "the plot's legend at {legend:?} is behind the controls (from {controls_top})");
    let title = h.get_by_label_contains("Eye closure and eyebrow lift").rect();
    assert!(title.bottom() <= controls_top, "{title:?}");
}

/// Until Facemouse has seen one of the user's blinks, the window asks for
/// one beside its state: under it, a line more took the picture and the
/// plot out of the main window docked above the menu on a 1920x1080 screen
/// (1280x536 pixels, 853x357 points at the default zoom, with three rows of
/// controls; this test's window has a fourth), and the user was asked to
/// blink at a window that no longer showed their face.
#[test]
fn the_request_for_a_first_blink_leaves_the_picture_in_view() {
    // The test's window has a fourth row of controls, and the note that its
    // recording is missing: here the picture shows from 400 points high
    // with the request beside the state, and from 430 with it under.
    let size = egui::vec2(853.0, 412.0);
    for waits in [false, true] {
        let (_tmp, mut h, snap) = picture_window(size);
        if let Ok(mut s) = snap.lock() {
            s.record.state = facemouse::events::TrackState::Tracking;
            s.long_blink_waits = waits;
        }
        h.run_steps(3);
        let hint = h.query_by_label("Blink once, naturally: the long blink and winks work after it").map(|n| n.rect());
        assert_eq!(hint.is_some(), waits, "the request shows while a first blink is awaited");
        let pause = h.get_by_label("Pause").rect();
        let title = h.query_by_label_contains("Eye closure and eyebrow lift").map(|n| n.rect());
        assert!(
            title.is_some_and(|t| t.top() >= hint.map_or(0.0, |r| r.bottom()) && t.bottom() <= pause.top()),
            "waiting {waits}: the plot (and the picture beside it) between the request at {hint:?} and Pause at {pause:?}: {title:?}"
        );
    }
}

/// However little room is left above the controls (a status line, a note,
/// a lower window), the plot and its legend stay above them: a plot given
/// at least 60 points under its title ran 20 points into the controls, its
/// legend over Pause's row.
#[test]
fn the_plot_never_runs_into_the_controls() {
    for extra in (0..=80).step_by(8) {
        let size = egui::vec2(853.0, 380.0 + extra as f32);
        let (_tmp, mut h, _) = picture_window(size);
        h.run_steps(3);
        let pause = h.get_by_label("Pause").rect();
        let title = h.query_by_label_contains("Eye closure and eyebrow lift").map(|n| n.rect());
        assert!(title.is_none_or(|t| t.bottom() <= pause.top()), "{size:?}: the plot's title at {title:?}, Pause at {pause:?}");
        if let Some(legend) = h.query_by_label("threshold").map(|n| n.rect()) {
            assert!(legend.bottom() <= pause.top(), "{size:?}: the legend at {legend:?} runs into Pause at {pause:?}");
        }
    }
}

/// Beside a keyboard docked deep at the side of a 1280×720 screen (the
/// main window 384 points wide), every control is inside the window, below
/// the picture and the plot: one control a row made them taller than the
/// window, and the picture was drawn over Pause.
#[test]
fn a_narrow_main_window_keeps_every_control_in_view() {
    // 1280x720 at zoom 1.5, beside the keyboard: 384x460 points less the
    // title bar; and a lower one, where the picture and plot give way.
    for (size, figures) in [(egui::vec2(384.0, 440.0), false), (egui::vec2(384.0, 560.0), true)] {
        // The note of the missing recording in its place (it takes a line).
        let (_tmp, mut h, _) = picture_window(size);
        h.run_steps(3);
        let window = egui::Rect::from_min_size(egui::Pos2::ZERO, size);
        let pause = h.get_by_label("Pause").rect();
        for label in ["Pause", "Recentre", "Settings", "Calibrate", "Quit Facemouse"] {
            let r = h.get_by_label(label).rect();
            assert!(window.contains_rect(r), "{label} at {r:?} is outside the {size:?} window");
        }
        // The figures' line too, the head pose in it (wrapped, it fell off the bottom).
        let line = h.get_by_label_contains("Head pose").rect();
        assert!(window.contains_rect(line) && line.height() < 30.0, "the figures' line at {line:?} in the {size:?} window");
        let title = h.query_by_label_contains("Eye closure and eyebrow lift").map(|n| n.rect());
        assert_eq!(title.is_some(), figures, "{size:?}: the plot is shown where it has room, and only there");
        if let Some(title) = title {
            assert!(title.bottom() <= pause.top(), "{size:?}: the plot's title at {title:?} is over Pause at {pause:?}");
        }
    }
}

/// The keyboard's Speak, in the window: without the speech program the
/// window says so in one line and typing goes on; with one, the typed text
/// is given to it as one argument.
#[test]
fn speak_says_the_typed_text_or_why_not() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let said = tmp.path().join("said");
    let speaker = tmp.path().join("speaker");
    std::fs::write(&speaker, format!("#!/bin/sh\nprintf '%s|' \"$@\" > {}\n", said.display())).expect("script");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&speaker, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    // A small keyboard, so that its keys are all on one page here.
    let menus_dir = tmp.path().join("menus");
    std::fs::create_dir_all(&menus_dir).expect("menus");
    std::fs::write(menus_dir.join("main.toml"), "title = \"Home\"\n[[items]]\nlabel = \"Keyboard\"\nsubmenu = \"keyboard\"\n").expect("main");
    std::fs::write(menus_dir.join("keyboard.toml"), "title = \"Keyboard\"\n[[items]]\nlabel = \"e\"\ntype = \"e\"\n[[items]]\nlabel = \"Speak\"\naction = \"speak\"\n").expect("keyboard");
    for (program, expect) in [("/no/such/speaker", "Not spoken: the speech program /no/such/speaker was not found"), (speaker.to_str().expect("utf-8"), "Speaking: e")] {
        let root = tempfile::tempdir().expect("root");
        let dir = root.path().join("profiles/default");
        std::fs::create_dir_all(&dir).expect("profile");
        std::fs::write(dir.join("settings.toml"), format!("[ui]\nspeech = \"{program}\"\nmenu_dock = \"right\"\n")).expect("settings");
        let access = instance::open_profile(root.path(), "default").expect("lock");
        let (prof, _) = profile::open_from(root.path(), "default").expect("profile");
        let source = SourceChoice::recording(&root.path().join("none.avi"), false, false);
        let worker = Worker::start(prof.settings.clone(), source.clone()).expect("worker");
        let nav = Navigator::new(menus::load_dir(&menus_dir).expect("menus"));
        let launch = Launch { profile: prof, notes: Vec::new(), source, show_menu: true, calibrate: false, access, drive_lock: None, at_login: false, autostart_dir: None };
        let app = FacemouseApp::new(&egui::Context::default(), launch, nav, worker);
        let mut h = Harness::builder().with_size(egui::vec2(1280.0, 800.0)).with_step_dt(0.1).build_ui_state(|ui, app: &mut FacemouseApp| app.show(ui), app);
        h.hover_at(egui::pos2(640.0, 250.0));
        h.run_steps(3);
        for label in ["Keyboard", "e", "Speak"] {
            rest_on(&mut h, label, 12);
            h.hover_at(egui::pos2(640.0, 250.0));
            h.run_steps(2);
        }
        assert!(h.query_by_label_contains(expect).is_some(), "{program}: the window says \"{expect}\"");
        assert!(h.query_by_label("Typed: e_").is_some(), "the keyboard is still there, and what was typed");
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(std::fs::read_to_string(&said).expect("the speaker ran"), "--|e|", "the text as one argument");
}

/// Every control of the main window lies inside a window that a large zoom
/// or a docked menu makes small, with a line of status under the state: at
/// zoom 2.5 on a 1280×800 screen (1280×780 pixels under the title bar) the
/// last row, Profile and Quit, lay half under the screen's bottom edge, and
/// at zoom 3 wholly, out of a head pointer's reach; above a menu docked at
/// the bottom of a 1024×768 screen (1024×403 pixels at the default zoom)
/// Quit was cut in half; beside the click toolbar at zoom 3 (800×780) the
/// fifth row. Made narrower to fit, the labels wrapped to two lines and
/// made their controls taller than their rows at zoom 3; and the settings'
/// long labels, to three.
#[test]
fn the_main_windows_controls_lie_inside_a_small_window() {
    for (pixels, zoom) in [(egui::vec2(1280.0, 780.0), 2.5), (egui::vec2(1280.0, 780.0), 3.0), (egui::vec2(1024.0, 403.0), 1.5), (egui::vec2(800.0, 780.0), 3.0)] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let access = instance::open_profile(tmp.path(), "default").expect("lock");
        let note = vec!["menus \"browser\", \"editor\" are the shipped ones".to_string()];
        let (mut h, _) = build_noted(tmp.path(), access, false, false, note, pixels);
        h.ctx.set_zoom_factor(zoom);
        h.run_steps(3);
        let size = h.ctx.content_rect().size();
        assert!((size.x - pixels.x / zoom).abs() < 1.0, "{pixels:?} at zoom {zoom}: the window is {size:?} points");
        let inside = |r: egui::Rect| r.top() >= 0.0 && r.left() >= 0.0 && r.bottom() <= size.y + 0.5 && r.right() <= size.x + 0.5;
        let mut seen = 0;
        for node in h.get_all_by_role(egui::accesskit::Role::Button) {
            assert!(inside(node.rect()), "{pixels:?} at zoom {zoom}: {:?} at {:?} is outside the window", node.value(), node.rect());
            seen += 1;
        }
        assert!(seen >= 10, "{pixels:?} at zoom {zoom}: {seen} controls");
        assert!(h.query_by_label("Quit Facemouse").is_some(), "{pixels:?} at zoom {zoom}: Quit is there");
        // And every page of Settings, reached by dwell. The pointer inside
        // the window first, over no target (it came from outside, where the
        // harness put it: the first target it is known on counts as one
        // that appeared under it).
        h.hover_at(egui::pos2(size.x / 2.0, 20.0));
        h.run_steps(2);
        open_settings(&mut h);
        let pages = 2 + facemouse::ui::settings_page::pages();
        for page in 1..=pages {
            h.run_steps(2);
            assert!(h.query_by_label(&format!("More settings ({page}/{pages})")).is_some(), "{pixels:?} at zoom {zoom}: on settings page {page}");
            for node in h.get_all_by_role(egui::accesskit::Role::Button) {
                assert!(inside(node.rect()), "{pixels:?} at zoom {zoom}, settings page {page}: {:?} at {:?} is outside the window", node.value(), node.rect());
            }
            rest_on(&mut h, "Close settings", 2);
            rest_on(&mut h, &format!("More settings ({page}/{pages})"), 13);
        }
    }
}
