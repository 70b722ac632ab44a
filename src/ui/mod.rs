//! The window: live preview with overlays, a large status line, live plots of
//! eye closure and eyebrow lift with their thresholds, frame rate and latency,
//! pause and recentre, the camera picker, and the hierarchical navigation menu
//! (large targets, selected by dwell, by the switch's click, or by scanning).
//!
//! The UI never owns the pipeline: a worker thread ("pipeline") runs capture,
//! the pipeline and the desktop output, publishes a [`Snapshot`] after every
//! frame and wakes the UI; the UI sends [`Intent`]s through a bounded channel.

mod activate;
mod calibration;
mod desktop_dwell;
mod ring;
mod scan_lines;
pub mod settings_page;
pub mod style;
mod x11;
pub mod menu_panel;
mod worker;

pub use activate::Activator;
pub use calibration::Wizard;

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use eframe::egui::{self, Color32, RichText, Stroke};

use crate::events::{Event, TrackState};
use crate::menus::{self, Navigator, Outcome};
use menu_panel::MenuPanel;
use style::{Palette, Tone};
use crate::profile::{Profile, Settings};

pub use crate::session::Intent;
pub use worker::{Preview, Snapshot, SourceChoice, Worker};

pub use crate::settings::UiSettings;

/// The windows' titles (the no-focus hint finds them by these).
const MAIN_TITLE: &str = "Facemouse";
const MENU_TITLE: &str = "Facemouse menu";
const HISTORY_S: f64 = 10.0;
/// At most this many points in the plots (10 s at 60 frames a second).
const HISTORY_MAX: usize = 600;
/// How often the camera and profile lists are looked up again (off the UI thread).
const CHOICES_REFRESH: std::time::Duration = std::time::Duration::from_secs(3);

/// The cameras and profiles to choose from, looked up on a thread named
/// "choices" (listing cameras can take a while) and handed over through a
/// one-place channel.
struct Choices {
    rx: crossbeam_channel::Receiver<(Vec<crate::capture::CameraEntry>, Vec<String>)>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    cameras: Vec<crate::capture::CameraEntry>,
    profiles: Vec<String>,
}

impl Choices {
    fn start(root: std::path::PathBuf) -> Self {
        let (tx, rx) = crossbeam_channel::bounded(1);
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let st = Arc::clone(&stop);
        let spawned = std::thread::Builder::new().name("choices".into()).spawn(move || {
            while !st.load(std::sync::atomic::Ordering::Relaxed) {
                let profiles = crate::profile::list(&root);
                // A full channel: the UI has not taken the last list yet; this one waits for the next round.
                let _ = tx.try_send((crate::capture::list_cameras(), profiles));
                let until = Instant::now() + CHOICES_REFRESH;
                while Instant::now() < until && !st.load(std::sync::atomic::Ordering::Relaxed) {
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
            }
        });
        if let Err(e) = spawned {
            tracing::warn!("cannot list cameras in the background: {e}");
        }
        Self { rx, stop, cameras: Vec::new(), profiles: Vec::new() }
    }

    /// Takes the latest lists, if new ones came.
    fn refresh(&mut self) {
        if let Ok((c, p)) = self.rx.try_recv() {
            (self.cameras, self.profiles) = (c, p);
        }
    }
}

impl Drop for Choices {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The app state (runtime handles apart from persisted settings).
pub struct FacemouseApp {
    /// The window's background: the framebuffer's clear colour (see [`apply_style`]).
    background: Color32,
    profile: Profile,
    notes: Vec<String>,
    snapshot: Arc<Mutex<Snapshot>>,
    intents: crossbeam_channel::Sender<Intent>,
    texture: Option<egui::TextureHandle>,
    /// The frame whose preview is in `texture`, and the last frame plotted.
    shown_frame: u64,
    history: VecDeque<(f64, f64, f64)>,
    menu: MenuPanel,
    show_menu: bool,
    /// The sequence number of the last event the window acted on.
    last_event_seen: u64,
    status_message: String,
    wizard: Option<Wizard>,
    /// The main window's activation path (dwell and click).
    controls: Activator,
    /// Cameras and profiles, looked up every few seconds off the UI thread.
    choices: Choices,
    /// Started at login: the grace in seconds, and when it began (UI clock).
    login_grace: Option<(f64, Option<f64>)>,
    /// Where "Start at login" writes its entry.
    autostart_dir: Option<std::path::PathBuf>,
    /// Scanning of the main window's controls (with the menu closed): the
    /// scanner, how many controls there were, and the one the switch selected.
    main_scanner: crate::menus::Scanner,
    /// How many of the main window's controls fit a row on screen (the scan groups' size).
    main_columns: usize,
    main_controls: usize,
    main_chosen: Option<usize>,
    /// Scanning: the switch was pressed during the calibration wizard (its Cancel).
    wizard_cancel: bool,
    /// "Quit Facemouse" was selected once, at this UI time; and a second
    /// time (the window is closing).
    quit_armed: Option<f64>,
    /// The Settings page is open, at this page (it takes the controls' place).
    settings_page: Option<usize>,
    /// The Profiles page: the profile shown (stepping shows, "Use" applies),
    /// a delete waiting for its confirming selection, and a name being typed.
    profile_shown: Option<String>,
    delete_armed: Option<(String, f64)>,
    naming: Option<Naming>,
    /// Enter was selected on the menu's keyboard while naming.
    name_entered: bool,
    /// The main window was moved out of the docked menu's way (for this
    /// edge, and with the click toolbar shown or not), and where it was
    /// before (outer position, inner size).
    menu_cleared: Option<(MenuPlace, bool)>,
    /// The menu's edge as last decided, for (menu, profile's edge, screen).
    dock_chosen: Option<((String, crate::settings::Dock, [u32; 2]), MenuPlace)>,
    main_before_menu: Option<(egui::Rect, egui::Rect)>,
    quitting: bool,
    /// The external switch (a key or switch button), while the profile sets one.
    external: Option<crate::capture::switch_input::SwitchInput>,
    /// Whether the session was last told that the scanning menu takes the switch.
    switch_to_scanner: bool,
    /// Whether the menu window was last set to take the focus (while
    /// editing); `None` until the menu window is made.
    menu_focus: Option<bool>,
    /// The edge the menu window's strip was reserved at (see
    /// [`x11::reserve_edge`]), while it is open.
    menu_strut: Option<MenuPlace>,
    /// The window was made full-screen for the calibration wizard.
    wizard_full_screen: bool,
    /// Where the menu window was last seen (desktop pixels).
    menu_area: Option<crate::settings::ScreenArea>,
    /// What the window manager's frame adds round the menu window's inside
    /// (points; its title bar), as last seen: the docked strip is the
    /// frame's, the inside that much smaller.
    menu_frame: egui::Vec2,
    /// Dwell clicking in other applications: the click-type toolbar and
    /// the countdown ring at the pointer.
    toolbar: desktop_dwell::Toolbar,
    /// The countdown ring's thread and the zoom it was made at, while the desktop dwell is on.
    ring: Option<(ring::Ring, f32)>,
    /// Point scanning's lines and the zoom they were made at, and whether a scan is under way.
    scan_lines: Option<(scan_lines::ScanLines, f32)>,
    point_scanning: bool,
    /// Our windows' places as last sent to the session.
    own_areas_sent: Vec<crate::settings::ScreenArea>,
    /// Whether the main window is on screen, as the X server says.
    x_shown: x11::Shown,
    /// The main window is still to be maximized once it is on screen (see
    /// [`Self::maximize_once_shown`]).
    maximize_pending: bool,
    /// The config folder that holds the profiles (the open one's grandparent).
    root: std::path::PathBuf,
    /// Whether this window may save its profile (another window may have it open).
    access: crate::instance::ProfileAccess,
    /// Held while this window may drive the pointer: a window showing a
    /// recording next to another Facemouse has none, and cannot switch to a camera.
    drive_lock: Option<crate::instance::InstanceLock>,
    // Last, so it stops after the rest is gone.
    worker: worker::Worker,
}

impl FacemouseApp {
    /// Builds the app around a running worker (`launch.source` is the
    /// worker's; the app only shows it).
    #[must_use]
    pub fn new(ctx: &egui::Context, launch: Launch, menus: Navigator, worker: worker::Worker) -> Self {
        let Launch { profile, notes, show_menu, calibrate, access, drive_lock, at_login, autostart_dir, .. } = launch;
        // The profile lives in ROOT/profiles/NAME.
        // The main window does not keep the keyboard focus either: the
        // switch's click on its buttons must not take the keys the menu
        // types away from the user's application.
        x11::set_takes_focus(MAIN_TITLE, false);
        let root = profile.dir.parent().and_then(std::path::Path::parent).map_or_else(|| profile.dir.clone(), std::path::Path::to_path_buf);
        // A start at login opens this profile again.
        if let Err(e) = crate::profile::remember_last(&root, &profile.name) {
            tracing::warn!("{e}");
        }
        let login_grace_s = if at_login { profile.settings.ui.login_grace_s } else { 0.0 };
        if login_grace_s > 0.0 {
            let _ = worker.intents().try_send(Intent::QuietFor(login_grace_s * 1000.0));
        }
        worker.set_repaint(ctx.clone());
        let ui = profile.settings.ui.clone();
        let background = style::apply(ctx, &ui);
        let menu = menu_panel_for(menus, profile.dir.join("menus"), &profile.settings, access.read_only());
        let wizard = calibrate.then(|| Wizard::new(profile.settings.clone()));
        let mut app = Self {
            background,
            menu,
            profile,
            notes,
            snapshot: worker.snapshot(),
            intents: worker.intents(),
            texture: None,
            shown_frame: 0,
            history: VecDeque::with_capacity(HISTORY_MAX),
            show_menu,
            last_event_seen: 0,
            status_message: String::new(),
            wizard,
            controls: Activator::default(),
            access,
            drive_lock,
            menu_focus: None,
            menu_strut: None,
            wizard_full_screen: false,
            menu_area: None,
            menu_frame: egui::Vec2::ZERO,
            toolbar: desktop_dwell::Toolbar::default(),
            ring: None,
            scan_lines: None,
            point_scanning: false,
            own_areas_sent: Vec::new(),
            x_shown: x11::Shown::new(MAIN_TITLE),
            maximize_pending: true,
            switch_to_scanner: false,
            login_grace: (login_grace_s > 0.0).then_some((login_grace_s, None)),
            external: None,
            main_scanner: crate::menus::Scanner::new(ui.scan_step_ms),
            main_columns: MAIN_SCAN_COLUMNS,
            main_controls: 0,
            main_chosen: None,
            wizard_cancel: false,
            quit_armed: None,
            settings_page: None,
            profile_shown: None,
            delete_armed: None,
            naming: None,
            name_entered: false,
            menu_cleared: None,
            dock_chosen: None,
            main_before_menu: None,
            quitting: false,
            autostart_dir,
            choices: Choices::start(root.clone()),
            root,
            worker,
        };
        app.start_external_switch();
        app.scan_lines = scan_lines::ScanLines::start(std::sync::Arc::clone(&app.snapshot), app.profile.settings.ui.zoom).map(|l| (l, app.profile.settings.ui.zoom));
        // The window appears where the pointer may be resting.
        app.controls.appeared();
        app
    }

    /// (Re)starts the external switch for the profile's settings; a problem is shown in words.
    fn start_external_switch(&mut self) {
        self.external = None;
        let tx = self.intents.clone();
        let (listener, problem) = crate::capture::switch_input::SwitchInput::for_settings(&self.profile.settings.switch, move || {
            let _ = tx.try_send(Intent::ExternalSwitch);
        });
        self.external = listener;
        if let Some(p) = problem {
            self.notes.push(p);
        }
    }

    fn send(&self, i: Intent) {
        // A full channel means the worker is busy; the user can press again.
        let _ = self.intents.try_send(i);
    }

    /// Whether this window may drive the pointer, taking the lock if it can;
    /// if another Facemouse drives it, the status line says so.
    fn may_drive(&mut self) -> bool {
        if self.drive_lock.is_some() {
            return true;
        }
        match crate::instance::acquire_driver().map_err(|e| e.to_string()) {
            Ok(l) => {
                self.drive_lock = Some(l);
                true
            }
            Err(why) => {
                self.status_message = format!("Cannot use a camera here: {why}");
                false
            }
        }
    }

    fn settings(&self) -> &Settings {
        &self.profile.settings
    }

    /// Whether saving is refused (the profile is open in another window);
    /// the status line then says so.
    fn refuse_save(&mut self) -> bool {
        match self.access.read_only() {
            Some(why) => {
                self.status_message = format!("Not saved: {why}");
                true
            }
            None => false,
        }
    }

    fn save_profile(&mut self) {
        if self.refuse_save() {
            return;
        }
        let path = self.profile.dir.join("settings.toml");
        self.status_message = match crate::profile::save_settings(&path, &self.profile.settings) {
            Ok(()) => format!("Saved {}", path.display()),
            Err(e) => format!("Not saved: {e}"),
        };
    }

    fn run_outcome(&mut self, o: Outcome, ctx: &egui::Context) {
        tracing::debug!("menu selection: {o:?}");
        // A profile's name being typed takes the menu keyboard's text.
        if self.type_into_name(&o) {
            if std::mem::take(&mut self.name_entered) {
                let root = self.root.clone();
                self.finish_naming(&root, ctx);
            }
            return;
        }
        match o {
            Outcome::Moved => {}
            Outcome::Launch(l) => {
                // Without a shell: the program and its arguments as written.
                self.status_message = match start_program(std::process::Command::new(&l.program).args(&l.args)) {
                    Ok(()) => format!("Started {}", l.program),
                    Err(e) => format!("Cannot start {}: {e}", l.program),
                };
            }
            Outcome::Type(t) => self.send(Intent::Type(t)),
            Outcome::Keys(k) => self.send(Intent::Keys(k)),
            Outcome::Url(u) => {
                let opener = if cfg!(target_os = "macos") { "open" } else if cfg!(windows) { "explorer" } else { "xdg-open" };
                self.status_message = match start_program(std::process::Command::new(opener).arg(&u)) {
                    Ok(()) => format!("Opening {u}"),
                    Err(e) => format!("Cannot open {u}: {e}"),
                };
            }
            Outcome::Pause => self.send(Intent::SetPaused(true)),
            Outcome::Close => self.show_menu = false,
            Outcome::NextMonitor => self.send(Intent::NextMonitor),
            Outcome::Speak => {
                let text = self.menu.echo().trim().to_string();
                if text.is_empty() {
                    self.status_message = "Nothing typed to speak yet".into();
                } else {
                    self.speak(&text);
                }
            }
            Outcome::Say(text) => self.speak(&text),
            Outcome::Settings => {
                // The page is in the main window: the menu gets out of its way.
                self.show_menu = false;
                self.open_settings(ctx);
            }
            Outcome::PointScan => {
                // The menu gets out of the way of the lines and the click.
                self.show_menu = false;
                self.send(Intent::PointScan);
            }
        }
    }
}

/// Starts a program from a menu and lets it run on its own. A thread named
/// "reaper" waits for it, so a program that ends leaves no zombie behind.
fn start_program(cmd: &mut std::process::Command) -> std::io::Result<()> {
    let mut child = cmd.stdin(std::process::Stdio::null()).spawn()?;
    std::thread::Builder::new().name("reaper".into()).spawn(move || {
        let _ = child.wait();
    })?;
    Ok(())
}

/// The main window's controls in one pass: the activation path, and
/// scanning (rows of `MAIN_SCAN_COLUMNS`, in the order they are drawn).
struct Controls<'a> {
    act: &'a mut Activator,
    /// The next control's number.
    next: usize,
    /// The controls in the scanning highlight (none unless the main window is scanned).
    lit: std::ops::Range<usize>,
    /// The control the switch selected by scanning.
    chosen: Option<usize>,
    /// The first control's top, and how many controls share its row.
    first_top: Option<f32>,
    first_row: usize,
    /// Each control's size (see `main_target_size`).
    size: [f32; 2],
}

impl Controls<'_> {
    /// The controls' labels' size (points): `MAIN_LABEL_PT`, smaller where
    /// the controls were made narrower or lower than usual to fit the
    /// window (`main_target_size_fitting`), so that a label keeps to its
    /// control and the control to its size (at zoom 3 on a 1280×800 screen
    /// a label wrapped to two lines made its control taller than its row).
    fn label_pt(&self) -> f32 {
        MAIN_LABEL_PT * (self.size[0] / MAIN_TARGET_MIN_W).min(self.size[1] / MAIN_TARGET[1]).min(1.0)
    }
}

/// The clicks a dwell on the desktop can make, in the order the "Dwell
/// click" button steps through them.
const DWELL_CLICKS: [crate::settings::Action; 6] = [
    crate::settings::Action::None,
    crate::settings::Action::ClickLeft,
    crate::settings::Action::ClickRight,
    crate::settings::Action::DoubleClick,
    crate::settings::Action::DragToggle,
    crate::settings::Action::ScrollMode,
];

/// The dwell click after `a` (off after the last; off for anything else).
fn next_dwell(a: &crate::settings::Action) -> crate::settings::Action {
    let i = DWELL_CLICKS.iter().position(|d| d == a).map_or(0, |i| (i + 1) % DWELL_CLICKS.len());
    DWELL_CLICKS[i].clone()
}

/// A dwell click in words.
fn dwell_name(a: &crate::settings::Action) -> &'static str {
    use crate::settings::Action;
    match a {
        Action::None => "off",
        Action::ClickLeft => "left",
        Action::ClickRight => "right",
        Action::DoubleClick => "double",
        Action::DragToggle => "drag",
        Action::ScrollMode => "scroll",
        _ => "other",
    }
}

/// The menu window's title row (points), above its panel.
const MENU_TITLE_ROW: f32 = 60.0;
/// The docked menu window's inside is never made smaller than this (points).
const MENU_MIN_SIDE: f32 = 200.0;

/// Where the docked menu's window goes on a `screen` (points) with `frame`
/// (its title bar and borders) round its inside: the frame's place and the
/// inside's size. The strip its dock gives, less the frame, but at least
/// `MENU_MIN_SIDE` across the strip, and then the strip is that much deeper
/// (the window comes in from its edge), and never more than the screen: at
/// zoom 2.5 on a 1280×800 screen the bottom strip is 128 points, the inside
/// was made 200 at the strip's top, and its lower 80 points, the menu's
/// navigation row with Close among them, lay under the screen's edge.
/// A menu at the top or bottom leaves `reserve` points of the right edge
/// free (the click toolbar's column, where it does not fit above or below).
fn menu_window_geometry(place: MenuPlace, screen: [f32; 2], frame: egui::Vec2, reserve: f32) -> ([f32; 2], [f32; 2]) {
    let (mut at, size) = place.place(screen);
    let reserve = if place.wide() { reserve } else { 0.0 };
    let inside = [(size[0] - frame.x).max(MENU_MIN_SIDE).min(screen[0] - frame.x - reserve), (size[1] - frame.y).max(MENU_MIN_SIDE).min(screen[1] - frame.y)];
    match place.dock {
        crate::settings::Dock::Bottom => at[1] = (screen[1] - inside[1] - frame.y).max(0.0),
        crate::settings::Dock::Right => at[0] = (screen[0] - inside[0] - frame.x).max(0.0),
        crate::settings::Dock::Top | crate::settings::Dock::Left => {}
    }
    (at, inside)
}

/// The menu window's rectangle, frame and all, from its frame's place `at`,
/// its `inside` and its `frame` (see [`menu_window_geometry`]).
fn menu_outer_rect((at, inside): ([f32; 2], [f32; 2]), frame: egui::Vec2) -> egui::Rect {
    egui::Rect::from_min_size(egui::pos2(at[0], at[1]), egui::vec2(inside[0], inside[1]) + frame)
}

/// The menu panel for a profile's `settings`, with its menus `nav` kept in
/// `dir` (`read_only`: why they are not saved).
fn menu_panel_for(nav: Navigator, dir: std::path::PathBuf, settings: &crate::profile::Settings, read_only: Option<String>) -> MenuPanel {
    let ui = &settings.ui;
    let mut menu = MenuPanel::new(nav, dir, ui.menu_columns, ui.scanning, ui.scan_step_ms, settings.pointer.dwell_ms);
    menu.nav.set_alias("keyboard", ui.keyboard.menu());
    menu.read_only = read_only;
    menu
}

/// Where the menu window is: the edge it docks to, and how deep (a share of
/// the screen).
#[derive(Debug, Clone, Copy, PartialEq)]
struct MenuPlace {
    dock: crate::settings::Dock,
    depth: f32,
}

impl MenuPlace {
    fn at(dock: crate::settings::Dock) -> Self {
        Self { dock, depth: crate::settings::MENU_DEPTH }
    }

    /// Its (x, y) and (width, height) on a screen of `screen` points.
    fn place(self, screen: [f32; 2]) -> ([f32; 2], [f32; 2]) {
        self.dock.place_at(screen, self.depth)
    }

    /// Whether it lies along the top or bottom edge.
    fn wide(self) -> bool {
        matches!(self.dock, crate::settings::Dock::Top | crate::settings::Dock::Bottom)
    }
}

/// How deep a side dock may grow, step by step, so that a keyboard has
/// every key on one page where the usual depth does not hold them (a
/// 1280×720 or 1366×768 screen at the default zoom of 1.5: 853×480 and
/// 911×512 points). The rest of the screen keeps room for the main window.
const TYPING_DEPTHS: [f32; 3] = [0.5, 0.55, 0.6];

/// Where the menu docks while menu `current` (of `keys` items) is open on
/// a `screen` (points), the profile saying `dock`. A keyboard menu (or the
/// phrases) on a top or bottom dock goes to the right side when a page
/// there holds more of its keys (`room(width, height, wide)` says how many
/// a panel holds and how hard they are to point at); a keyboard also goes
/// there when the side holds as many and its keys are quicker to point at:
/// a top or bottom dock is a long strip, and typing across it costs every
/// move more (`docs/keyboard.md`). A keyboard that still pages gets a
/// deeper side dock (`TYPING_DEPTHS`, at the profile's side, or the right),
/// the first that holds every key.
fn typing_dock(dock: crate::settings::Dock, current: &str, keys: usize, screen: [f32; 2], mut room: impl FnMut(f32, f32, bool) -> menu_panel::PageRoom) -> MenuPlace {
    use crate::settings::Dock;
    let typing = current.starts_with("keyboard") || current == "phrases";
    if !typing {
        return MenuPlace::at(dock);
    }
    let mut room_at = |p: MenuPlace| {
        let size = p.place(screen).1;
        room(size[0], size[1] - MENU_TITLE_ROW, p.wide())
    };
    let keyboard = current.starts_with("keyboard");
    let mut chosen = MenuPlace::at(dock);
    if !keyboard && !chosen.wide() {
        return chosen;
    }
    // Each count lays the panel out: each place is counted once.
    let mut here = room_at(chosen);
    if chosen.wide() {
        let side = MenuPlace::at(Dock::Right);
        let there = room_at(side);
        let quicker = keyboard && there.holds == here.holds && there.bits < here.bits;
        if there.holds > here.holds || quicker {
            (chosen, here) = (side, there);
        }
    }
    if !keyboard || here.holds >= keys {
        return chosen;
    }
    let side = if chosen.wide() { Dock::Right } else { chosen.dock };
    TYPING_DEPTHS.iter().map(|&depth| MenuPlace { dock: side, depth }).find(|&p| room_at(p).holds >= keys).unwrap_or(chosen)
}

/// The least room (points) the main window keeps beside the docked menu:
/// its controls and status; with less, it is left where it is.
const MAIN_MIN_SIZE: egui::Vec2 = egui::vec2(300.0, 220.0);

/// Where the main window goes to lie clear of the menu docked at `dock`
/// (`menu`, all in points) and of the click toolbar (`toolbar`, when it is
/// shown) and, frame and all, on the `screen`: its outer position and inner
/// size. `None` when it is clear already, or when too little room would be
/// left.
fn clear_of_menu(outer: egui::Rect, inner: egui::Rect, menu: egui::Rect, toolbar: Option<egui::Rect>, dock: crate::settings::Dock, screen: egui::Vec2) -> Option<(egui::Pos2, egui::Vec2)> {
    use crate::settings::Dock;
    let under_toolbar = |lo: egui::Pos2, hi: egui::Pos2| toolbar.filter(|t| egui::Rect::from_min_max(lo, hi).intersects(t.shrink(0.5)));
    if !outer.intersects(menu) && under_toolbar(outer.min, outer.max).is_none() {
        return None;
    }
    // The window manager's frame round the inner area.
    let (frame_min, frame_max) = (inner.min - outer.min, outer.max - inner.max);
    let (mut lo, mut hi) = (outer.min, outer.max);
    match dock {
        Dock::Bottom => hi.y = hi.y.min(menu.min.y),
        Dock::Top => lo.y = lo.y.max(menu.max.y),
        Dock::Left => lo.x = lo.x.max(menu.max.x),
        Dock::Right => hi.x = hi.x.min(menu.min.x),
    }
    // And out of the click toolbar's column, at whichever side it stands
    // (the window manager keeps a maximized window out of it, not this one).
    if let Some(t) = under_toolbar(lo, hi) {
        if t.center().x > f32::midpoint(lo.x, hi.x) {
            hi.x = hi.x.min(t.min.x);
        } else {
            lo.x = lo.x.max(t.max.x);
        }
    }
    let size = hi - lo - frame_min - frame_max;
    // Its frame on the screen too: a window maximized before the menu came
    // was 20 pixels taller than the screen with its title bar.
    let on_screen = screen - lo.to_vec2() - frame_min - frame_max;
    (size.x >= MAIN_MIN_SIZE.x && size.y >= MAIN_MIN_SIZE.y).then(|| (lo, size.min(on_screen).max(MAIN_MIN_SIZE)))
}

/// The Settings page's pages: the toggles, the profiles, then the stepping settings.
const PROFILES_PAGE: usize = 1;
const FIRST_STEP_PAGE: usize = 2;

/// A profile's new name, typed with the menu's keyboard.
#[derive(Debug, Clone)]
struct Naming {
    /// The profile renamed.
    from: String,
    text: String,
}

/// "Quit Facemouse" (and "Delete") waits this long (s) for its confirming second selection.
const QUIT_CONFIRM_S: f64 = 8.0;

/// The main window's controls are scanned this many to a group until the
/// first frame shows how many fit a row.
const MAIN_SCAN_COLUMNS: usize = 4;

/// A button pressed by a click or by resting the pointer on it for the
/// dwell time (a frame fills while it counts), through the window's one
/// activation path (see [`Activator`]), or selected by scanning. Its label
/// `text` is given its size here, the controls' ([`label_fitting`]).
fn dwell_button(ui: &mut egui::Ui, text: RichText, c: &mut Controls<'_>, dwell_ms: f64) -> bool {
    let i = c.next;
    c.next += 1;
    // Every control the same size, a long label wrapped inside it: a label
    // that changes ("Quit: select again to confirm", "Start at login: on")
    // never moves another control (the confirming rest hit nothing), and
    // each is at least 64 pixels tall at the default zoom.
    let text = label_fitting(ui, text, c.size, c.label_pt());
    let r = ui.add_sized(c.size, style::target_button(ui, text, c.lit.contains(&i)).wrap_mode(egui::TextWrapMode::Wrap));
    let top = *c.first_top.get_or_insert(r.rect.top());
    if (r.rect.top() - top).abs() < 1.0 {
        c.first_row += 1;
    }
    c.act.target(ui, &r, dwell_ms) || c.chosen == Some(i)
}

/// The smallest a control's label is made to fit its control (points).
const LABEL_MIN_PT: f32 = 10.0;

/// `text` at `pt` points, or smaller where, wrapped to a control of `size`,
/// it would be taller than the control: the control would grow past its
/// row (at zoom 2.5 on a 1280×800 screen, the settings' long labels, as
/// "Dwell time 1.0 s: longer", wrapped to three lines in controls made
/// narrower to fit, and their last row lay under the window's bottom edge).
fn label_fitting(ui: &egui::Ui, text: RichText, size: [f32; 2], pt: f32) -> RichText {
    let pad = ui.spacing().button_padding;
    let (w, h) = (size[0] - 2.0 * pad.x, size[1] - 2.0 * pad.y);
    let mut pt = pt;
    while pt > LABEL_MIN_PT {
        let galley = egui::WidgetText::from(text.clone().size(pt)).into_galley(ui, Some(egui::TextWrapMode::Wrap), w, egui::TextStyle::Button);
        if galley.size().y <= h {
            break;
        }
        pt = (pt * 0.9).max(LABEL_MIN_PT);
    }
    text.size(pt)
}

/// The head pose as the window shows it (degrees, the trace's signs).
fn pose_line(p: Option<&crate::pose::Pose>) -> String {
    match p {
        Some(p) => format!("Head pose: yaw {:+.0}° · pitch {:+.0}° · roll {:+.0}°", p.yaw, p.pitch, p.roll),
        None => "Head pose: – (while tracking, with the pose model)".into(),
    }
}

/// The main window's controls' size (points): 78 pixels tall at the default zoom of 1.5.
const MAIN_TARGET: [f32; 2] = [200.0, 52.0];
/// The main window's controls' labels (points).
const MAIN_LABEL_PT: f32 = 20.0;
/// What a panel's frame adds above and below its contents (points), at most.
const PANEL_MARGIN: f32 = 8.0;
/// The least height (points) the picture and the plot are drawn in.
const MIN_FIGURE_H: f32 = 60.0;
/// A narrow main window's controls are narrower, down to this (points).
const MAIN_TARGET_MIN_W: f32 = 140.0;

/// The main window's controls' size in a row `width` points wide, with
/// `gap` between controls: `MAIN_TARGET`, or narrower so that two share a
/// row. Beside a keyboard docked deep at the side (384 points wide on a
/// 1280×720 screen) one control a row made the eleven taller than the
/// window, and the picture was drawn over Pause.
fn main_target_size(width: f32, gap: f32) -> [f32; 2] {
    let two = ((width - gap) / 2.0).floor();
    [MAIN_TARGET[0].min(two).max(MAIN_TARGET_MIN_W), MAIN_TARGET[1]]
}

/// Where the rows of controls need more room than there is, they are made
/// narrower (more to a row, no narrower than this on the screen, pixels:
/// 100 points at the default zoom of 1.5) ...
const MAIN_TARGET_FIT_W_PX: f32 = 150.0;
/// ... and then lower, down to this (pixels: 36 points at the default
/// zoom). In pixels, not points: a head pointer's reach is on the screen,
/// and at zoom 3 beside the click toolbar 36 points a row was still too
/// tall for the window's five rows.
const MAIN_TARGET_FIT_H_PX: f32 = 54.0;

/// [`main_target_size`], for `n` controls in rows `width` wide, `gap` (x,
/// y) apart, that must fit in `height` (points, at `zoom` pixels a point):
/// at a large zoom or above a docked menu the last rows lay under the
/// window's bottom edge (at zoom 2.5 on a 1280×800 screen, Profile and
/// Quit), where a head pointer cannot reach. More to a row first, each no
/// narrower than `MAIN_TARGET_FIT_W_PX`; then lower, down to
/// `MAIN_TARGET_FIT_H_PX`. Large targets are what a head pointer needs,
/// but one it cannot reach is none.
fn main_target_size_fitting(width: f32, height: f32, n: usize, gap: [f32; 2], zoom: f32) -> [f32; 2] {
    let base = main_target_size(width, gap[0]);
    let zoom = zoom.max(0.1);
    let (least_w, least_h) = ((MAIN_TARGET_FIT_W_PX / zoom).min(base[0]), (MAIN_TARGET_FIT_H_PX / zoom).min(base[1]));
    let per_row = |w: f32| (((width + gap[0]) / (w + gap[0])).floor() as usize).max(1);
    let rows = |w: f32| n.div_ceil(per_row(w)) as f32;
    let fits = |w: f32, h: f32| rows(w) * (h + gap[1]) - gap[1] <= height;
    if n == 0 || fits(base[0], base[1]) {
        return base;
    }
    let mut w = base[0];
    for cols in per_row(base[0]) + 1..=n {
        let narrower = ((width - (cols - 1) as f32 * gap[0]) / cols as f32).floor();
        if narrower < least_w {
            break;
        }
        w = narrower;
        if fits(w, base[1]) {
            return [w, base[1]];
        }
    }
    let h = ((height + gap[1]) / rows(w) - gap[1]).floor();
    [w, h.clamp(least_h, base[1])]
}

/// The most notes (warnings) the status area shows, one line each.
const MAX_NOTES: usize = 2;

/// The line under the state while a gesture waits for something the user
/// can do: the long blink (and winks), until one of the person's blinks has been seen.
fn waiting_hint(s: &Snapshot) -> Option<&'static str> {
    (s.frame_seq > 0 && !s.paused && s.long_blink_waits).then_some("Blink once, naturally: the long blink and winks work after it")
}

fn state_text(s: &Snapshot) -> (String, Tone) {
    if s.frame_seq == 0 {
        // No frame yet: say so, not "searching" (the reason, if any, is shown below).
        return if s.message.is_empty() {
            ("Starting — waiting for the first picture".into(), Tone::Info)
        } else {
            ("No picture from the camera".into(), Tone::Bad)
        };
    }
    if s.paused {
        return ("Paused — hold your eyebrows up, or press the switch, to resume".into(), Tone::Warn);
    }
    match s.record.state {
        TrackState::Searching => ("Searching — look at the screen and blink naturally".into(), Tone::Info),
        TrackState::Initializing => ("Initializing — keep blinking naturally".into(), Tone::Info),
        TrackState::Tracking => ("Tracking".into(), Tone::Good),
        TrackState::Lost => ("Lost — face the camera; it comes back by itself".into(), Tone::Bad),
        TrackState::Carried => ("Head turned — the pointer follows; clicks and dwell wait until you face the screen".into(), Tone::Warn),
    }
}

impl eframe::App for FacemouseApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }

    /// Runs on every wake, also while the window is minimized and its
    /// passes stop: the desktop dwell must then work where it was.
    fn logic(&mut self, _ctx: &egui::Context, _frame: &mut eframe::Frame) {
        if self.x_shown.shown() == Some(false) {
            self.send_own_areas(None);
        }
    }

    fn clear_color(&self, _visuals: &egui::Visuals) -> [f32; 4] {
        self.background.to_normalized_gamma_f32()
    }

    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        let _ = self.intents.try_send(Intent::Quit);
    }
}

impl FacemouseApp {
    /// The window's contents. Time is the UI's clock (`egui::InputState::time`),
    /// never the system's, so that a test can step it.
    pub fn show(&mut self, ui: &mut egui::Ui) {
        let snap = self.snapshot.lock().map(|s| s.clone()).unwrap_or_default();
        let ctx = ui.ctx().clone();
        let t = ui.input(|i| i.time);
        // The face does not move the pointer: no dwell counts in any window.
        let wait = snap.dwell_waits();
        self.controls.hold(wait);
        self.menu.hold(wait);
        self.toolbar.hold(wait);
        // The switch's events (each once, by its sequence number): the click
        // sound; and, from a source that drives (never a demo), the scanning
        // menu's select and a gesture bound to open the menu.
        let fresh: Vec<Event> = snap.events.iter().filter(|(n, _)| *n > self.last_event_seen).map(|(_, e)| *e).collect();
        self.last_event_seen = snap.events.back().map_or(self.last_event_seen, |(n, _)| (*n).max(self.last_event_seen));
        for e in fresh {
            if e.is_click() && self.settings().ui.click_sound {
                play_click();
            }
            if e == Event::SwitchIgnored {
                let ms = self.settings().switch.cooldown_ms;
                self.status_message = format!("Switch press ignored: within {ms:.0} ms of the last action, or before clicks begin");
            }
            // Point scanning takes the switch: its presses and its click select nothing here.
            match e {
                Event::PointScanStart => self.point_scanning = true,
                Event::PointScanEnd => self.point_scanning = false,
                _ => {}
            }
            if !snap.driving || self.point_scanning {
                continue;
            }
            if e == Event::OpenMenu {
                if self.show_menu {
                    self.menu.nav.home();
                } else {
                    self.show_menu = true;
                }
                self.menu.relayout(&ctx);
            } else if e.is_click() && self.settings().ui.scanning {
                if self.wizard.is_some() {
                    // The wizard's one control, always lit while scanning.
                    self.wizard_cancel = true;
                } else if self.show_menu {
                    if let Some(o) = self.menu.switch(t * 1000.0) {
                        self.run_outcome(o, &ctx);
                    }
                } else if let Some(i) = self.main_scanner.switch(t * 1000.0) {
                    // Pressed in the next pass, where the controls are drawn.
                    self.main_chosen = Some(i);
                }
            }
        }
        // Minimized: nothing of the main window is drawn (the menu, its own
        // window, still is), and the worker wakes the window rarely. (egui
        // knows it is minimized on some systems; on X11 the server is asked.)
        let hidden = ctx.input(|i| i.viewport().minimized.unwrap_or(false)) || self.x_shown.shown() == Some(false);
        self.worker.set_visible(!hidden);
        if hidden {
            if self.show_menu {
                self.menu_window(&ctx, t);
            }
            self.desktop_dwell(&ctx, &snap, None);
            return;
        }
        self.maximize_once_shown(&ctx);
        let new_frame = snap.frame_seq != self.shown_frame;
        if new_frame {
            self.shown_frame = snap.frame_seq;
            // The preview texture is uploaded only for a new frame, in place.
            if let Some(img) = &snap.preview {
                let image = egui::ColorImage::from_rgb([img.width, img.height], &img.rgb);
                match &mut self.texture {
                    Some(tex) => tex.set(image, egui::TextureOptions::LINEAR),
                    None => self.texture = Some(ctx.load_texture("preview", image, egui::TextureOptions::LINEAR)),
                }
            }
            if self.history.len() == HISTORY_MAX {
                self.history.pop_front();
            }
            self.history.push_back((t, snap.closure, snap.brow_lift));
            while self.history.front().is_some_and(|h| t - h.0 > HISTORY_S) {
                self.history.pop_front();
            }
        }

        if self.wizard.is_some() {
            self.wizard_ui(ui, &snap);
            return;
        }

        egui::Panel::top("status").show(ui, |ui| {
            let (text, tone) = state_text(&snap);
            let palette = Palette::of(ui);
            // The request for a first blink beside the state, not under it: a
            // line more pushed the picture out of a window docked above the
            // menu, as the user was asked to blink at it.
            ui.horizontal(|ui| {
                ui.label(RichText::new(text).size(30.0).strong().color(palette.tone(tone)));
                if let Some(hint) = waiting_hint(&snap) {
                    ui.add(egui::Label::new(RichText::new(hint).size(22.0).color(palette.tone(Tone::Info))).truncate());
                }
            });
            if let Some((grace, since)) = &mut self.login_grace {
                let left = *grace - (t - *since.get_or_insert(t));
                if left > 0.0 {
                    ui.label(RichText::new(format!("Started at login: clicks begin in {} s", left.ceil())).size(22.0).color(palette.tone(Tone::Warn)));
                    ctx.request_repaint_after(std::time::Duration::from_millis(500));
                } else {
                    self.login_grace = None;
                }
            }
            // At most `MAX_NOTES` notes, one line each (the whole note on
            // hover, and all of them on standard error at start): ten
            // two-line warnings once pushed every control out of the window.
            let notes: Vec<&String> = self.notes.iter().chain((!snap.message.is_empty()).then_some(&snap.message)).collect();
            for n in notes.iter().take(MAX_NOTES) {
                ui.add(egui::Label::new(RichText::new(n.as_str()).size(20.0).color(palette.tone(Tone::Bad))).truncate());
            }
            if notes.len() > MAX_NOTES {
                ui.label(RichText::new(format!("… and {} more (Facemouse printed them all when it started)", notes.len() - MAX_NOTES)).size(20.0).color(palette.tone(Tone::Bad)));
            }
            // What the last action did (saved, refused, started …), in words,
            // at the top where it is always in view.
            if !self.status_message.is_empty() {
                // One line (the whole on hover): two took the room of the picture and the plot.
                ui.add(egui::Label::new(RichText::new(&self.status_message).size(20.0)).truncate());
            }
        });
        self.choices.refresh();
        let dwell_ms = self.settings().pointer.dwell_ms;
        let mut act = std::mem::take(&mut self.controls);
        // With scanning on and the menu closed, the switch scans these controls.
        let scan_main = self.settings().ui.scanning && !self.show_menu;
        // The click toolbar's targets, where it shows, are scanned after them.
        let toolbar_n = if self.settings().ui.click_toolbar { desktop_dwell::CHOICES.len() } else { 0 };
        if scan_main {
            self.main_scanner.step_ms = self.settings().ui.scan_step_ms;
            // As many to a scan group as to a row on screen (measured as
            // they were drawn last): a group crossed the visual rows.
            let mut rows = crate::menus::Scanner::rows_of(self.main_controls, self.main_columns);
            rows.extend(crate::menus::Scanner::rows_of(toolbar_n, desktop_dwell::SCAN_COLUMNS));
            self.main_scanner.tick(t * 1000.0, &rows);
        }
        let lit = if scan_main { self.main_scanner.lit() } else { 0..0 };
        let chosen = self.main_chosen.take();
        let first_tool = self.main_controls;
        let tool_lit = (lit.start >= first_tool && !lit.is_empty()).then(|| lit.start - first_tool..lit.end - first_tool);
        self.toolbar.scan = (tool_lit, chosen.and_then(|i| i.checked_sub(first_tool)));
        let mut hover = Controls { act: &mut act, next: 0, lit, chosen, first_top: None, first_row: 0, size: MAIN_TARGET };
        // The room under the status for the controls' panel: its margins and
        // the figures' line under the controls come off it.
        let room = ui.available_rect_before_wrap().height();
        let controls_drawn = self.main_controls;
        egui::Panel::bottom("controls").resizable(false).show(ui, |ui| {
            let gap = ui.spacing().item_spacing;
            let figures_line = ui.text_style_height(&egui::TextStyle::Body) + gap.y;
            let rows_room = room - figures_line - 2.0 * PANEL_MARGIN;
            hover.size = main_target_size_fitting(ui.available_width(), rows_room, controls_drawn, [gap.x, gap.y], ui.ctx().zoom_factor());
            ui.horizontal_wrapped(|ui| {
                let big = |s: &str| RichText::new(s);
                if let Some(page) = self.settings_page {
                    self.settings_controls(ui, page, &mut hover, dwell_ms, &ctx, t);
                    return;
                }
                if dwell_button(ui, big(if snap.paused { "Start" } else { "Pause" }), &mut hover, dwell_ms) {
                    self.send(Intent::SetPaused(!snap.paused));
                }
                if dwell_button(ui, big("Recentre"), &mut hover, dwell_ms) {
                    self.send(Intent::Recenter);
                }
                if dwell_button(ui, big(if self.show_menu { "Close menu" } else { "Menu" }), &mut hover, dwell_ms) {
                    self.show_menu = !self.show_menu;
                    // The menu's window may open under the resting pointer.
                    self.menu.relayout(&ctx);
                }
                if dwell_button(ui, big(if snap.point_scan.is_some() { "Stop point scan" } else { "Point scan" }), &mut hover, dwell_ms) {
                    // Lines sweep the screen; the switch (or a clicking gesture) stops each, then clicks.
                    self.send(Intent::PointScan);
                }
                if dwell_button(ui, big("Settings"), &mut hover, dwell_ms) {
                    self.open_settings(&ctx);
                }
                if dwell_button(ui, big("Calibrate"), &mut hover, dwell_ms) {
                    self.wizard = Some(Wizard::new(self.profile.settings.clone()));
                }
                // Toggles and pickers are buttons too, so dwell reaches them: a
                // toggle flips, a picker steps to the next choice (the rest
                // are on the Settings page).
                let on = |b: bool| if b { "on" } else { "off" };
                let ui_s = self.profile.settings.ui.clone();
                if dwell_button(ui, big(&format!("Scanning: {}", on(ui_s.scanning))), &mut hover, dwell_ms) {
                    self.profile.settings.ui.scanning = !ui_s.scanning;
                    self.menu.scanning = !ui_s.scanning;
                    self.save_profile();
                }
                // Clicking in other applications by resting the pointer: off,
                // or which click the next dwell makes.
                let dwell_action = self.profile.settings.switch.dwell.clone();
                if dwell_button(ui, big(&format!("Dwell click: {}", dwell_name(&dwell_action))), &mut hover, dwell_ms) {
                    self.set_dwell(next_dwell(&dwell_action));
                }
                // The Profiles page: stepping through the profiles shows each
                // one; only "Use" applies it.
                if dwell_button(ui, big(&format!("Profile: {}", self.profile.name)), &mut hover, dwell_ms) {
                    self.open_settings(&ctx);
                    self.settings_page = Some(PROFILES_PAGE);
                }
                // Quitting takes two selections: once closed, a hands-free
                // user cannot start Facemouse again by themselves. The second
                // is a new selection (the pointer leaves and comes back, or
                // the switch again), within QUIT_CONFIRM_S.
                let armed = self.quit_armed.is_some_and(|at| t - at < QUIT_CONFIRM_S);
                if dwell_button(ui, big(if armed { "Quit: select again to confirm" } else { "Quit Facemouse" }), &mut hover, dwell_ms) {
                    if armed {
                        self.quitting = true;
                        ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                    } else {
                        self.quit_armed = Some(t);
                        self.status_message = "Select \"Quit\" again to close Facemouse".into();
                    }
                }
            });
            // The figures under the controls, on a line of their own (in the
            // controls' flow, a wrapped line fell off the window's bottom).
            // One line, the source last (the whole on hover): wrapped, its
            // second line fell off the bottom of a window beside a side dock.
            let figures = format!(
                "{:.0} fps · {:.1} ms per frame · {} · {}",
                snap.fps,
                f64::from(u32::try_from(snap.record.proc_us).unwrap_or(u32::MAX)) / 1000.0,
                pose_line(snap.record.pose.as_ref()),
                snap.source
            );
            ui.add(egui::Label::new(figures).truncate());
        });
        self.main_controls = hover.next;
        self.main_columns = hover.first_row.max(1);
        self.controls = act;
        // With scanning on, the switch scans (the menu, or the main
        // window's controls) and clicks nothing on the desktop.
        let to_scanner = self.settings().ui.scanning;
        // (Sent again next time if the worker's channel was full.)
        if to_scanner != self.switch_to_scanner && self.intents.try_send(Intent::SwitchToScanner(to_scanner)).is_ok() {
            self.switch_to_scanner = to_scanner;
        }
        if self.show_menu {
            self.menu_window(&ctx, t);
            self.keep_clear_of_menu(&ctx);
        } else {
            // A menu window opened again is a new window: its hint is set again.
            self.menu_focus = None;
            self.menu_strut = None;
            self.menu_area = None;
            self.restore_main_window(&ctx);
            self.menu_cleared = None;
        }
        self.desktop_dwell(&ctx, &snap, desktop_dwell::outer_area(&ctx));
        // The preview and the plot side by side, each in full view above the
        // controls (one above the other, the plot was half hidden behind them).
        egui::CentralPanel::default().show(ui, |ui| {
            let (w, h) = (ui.available_width(), ui.available_height());
            // No room left above the controls (a low, narrow window): no
            // picture and plot, rather than over the controls.
            if h < MIN_FIGURE_H {
                return;
            }
            let preview_w = (0.45 * w).min(1.33 * h).min(620.0);
            ui.horizontal_top(|ui| {
                ui.allocate_ui(egui::vec2(preview_w, h), |ui| preview_ui(ui, self.texture.as_ref(), &snap, preview_w, h));
                ui.vertical(|ui| plot_ui(ui, &self.history, &self.profile.settings, h));
            });
        });
        if self.show_menu && self.settings().ui.scanning {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
    }
}

impl FacemouseApp {
    /// How many of the main window's controls the switch scans as one group:
    /// as many as a row on screen holds.
    #[must_use]
    pub fn main_scan_columns(&self) -> usize {
        self.main_columns
    }

    /// Whether the user chose to quit (the window is closing).
    #[must_use]
    pub fn quitting(&self) -> bool {
        self.quitting
    }

    /// How many of the main window's controls scanning goes through (as
    /// last drawn), before the click toolbar's.
    #[must_use]
    pub fn scanned_controls(&self) -> usize {
        self.main_controls
    }

    /// Says `text` aloud with the profile's speech engine, without waiting;
    /// without one, the window says so in one line, and typing goes on.
    fn speak(&mut self, text: &str) {
        let result = crate::speech::engine(&self.profile.settings.ui.speech)
            .and_then(|program| start_program(&mut crate::speech::command(&program, text)).map_err(|source| crate::speech::SpeechError::Start { program: program.display().to_string(), source }));
        self.status_message = match result {
            Ok(()) => format!("Speaking: {text}"),
            Err(e) => format!("Not spoken: {e}"),
        };
    }

    /// Opens the Settings page in the main window (brought back if minimized).
    fn open_settings(&mut self, ctx: &egui::Context) {
        self.settings_page = Some(0);
        ctx.send_viewport_cmd(egui::ViewportCommand::Minimized(false));
        self.controls.relayout(ctx);
    }

    /// The Settings page's first page: the toggles and pickers, each one
    /// target that flips or steps to the next choice (they were on the main
    /// window, and with them its controls took five rows and hid the preview).
    fn setting_toggles(&mut self, ui: &mut egui::Ui, c: &mut Controls<'_>, dwell_ms: f64, ctx: &egui::Context) {
        let big = |s: &str| RichText::new(s);
        let on = |b: bool| if b { "on" } else { "off" };
        let ui_s = self.profile.settings.ui.clone();
        let cameras = self.choices.cameras.clone();
        if dwell_button(ui, big(&format!("High contrast: {}", on(ui_s.high_contrast))), c, dwell_ms) {
            self.profile.settings.ui.high_contrast = !ui_s.high_contrast;
            self.background = style::apply(ctx, &self.profile.settings.ui);
            self.save_profile();
        }
        if dwell_button(ui, big(&format!("Click toolbar: {}", on(ui_s.click_toolbar))), c, dwell_ms) {
            self.profile.settings.ui.click_toolbar = !ui_s.click_toolbar;
            self.save_profile();
        }
        if dwell_button(ui, big(&format!("Menu at: {}", ui_s.menu_dock.name())), c, dwell_ms) {
            self.profile.settings.ui.menu_dock = ui_s.menu_dock.next();
            self.menu.relayout(ctx);
            self.save_profile();
        }
        if dwell_button(ui, big(&format!("Click sound: {}", on(ui_s.click_sound))), c, dwell_ms) {
            self.profile.settings.ui.click_sound = !ui_s.click_sound;
            self.save_profile();
        }
        if let Some(dir) = self.autostart_dir.clone() {
            let on = crate::autostart::status(&dir).is_some();
            if dwell_button(ui, big(&format!("Start at login: {}", if on { "on" } else { "off" })), c, dwell_ms) {
                let result = if on {
                    crate::autostart::disable(&dir).map(|_| "Facemouse no longer starts at login".to_string())
                } else {
                    crate::autostart::enable_this_program(&dir)
                        .map(|p| format!("Facemouse starts at login ({})", p.display()))
                };
                self.status_message = result.unwrap_or_else(|e| format!("Start at login not changed: {e}"));
            }
        }
        let current = if ui_s.camera.is_empty() { "first".to_string() } else { ui_s.camera.clone() };
        let camera_pressed = dwell_button(ui, big(&format!("Camera: {current}")), c, dwell_ms);
        if camera_pressed && cameras.len() <= 1 {
            self.status_message = if cameras.is_empty() { "No camera found: connect one; it is looked for every few seconds".into() } else { "This is the only camera found".into() };
        }
        if camera_pressed && cameras.len() > 1 && self.may_drive() {
            let next = cameras.iter().position(|c| c.name == ui_s.camera).map_or(0, |i| (i + 1) % cameras.len());
            let name = cameras[next].name.clone();
            self.profile.settings.ui.camera.clone_from(&name);
            self.send(SourceChoice::camera(crate::capture::CameraSelector::Name(name)).intent());
            self.save_profile();
        }
    }

    /// The Profiles page: the profile shown, and what can be done with it.
    /// Stepping through the profiles only shows each; "Use" applies it.
    /// While a name is typed (with the menu's keyboard), its save and cancel.
    fn profile_controls(&mut self, ui: &mut egui::Ui, c: &mut Controls<'_>, dwell_ms: f64, ctx: &egui::Context, t: f64) {
        let big = |s: &str| RichText::new(s);
        let root = self.root.clone();
        if let Some(n) = self.naming.clone() {
            let shown = if n.text.is_empty() { "…".to_string() } else { n.text.clone() };
            if dwell_button(ui, big(&format!("Save name: {shown}")), c, dwell_ms) {
                self.finish_naming(&root, ctx);
                c.act.relayout(ctx);
            }
            if dwell_button(ui, big("Cancel naming"), c, dwell_ms) {
                self.naming = None;
                self.status_message = format!("{} keeps its name", n.from);
                c.act.relayout(ctx);
            }
            return;
        }
        let names = self.choices.profiles.clone();
        let current = self.profile.name.clone();
        let shown = self.profile_shown.clone().filter(|n| names.contains(n)).unwrap_or_else(|| current.clone());
        if dwell_button(ui, big(&format!("Profile {shown}: show next")), c, dwell_ms) {
            let next = names.iter().position(|n| *n == shown).map_or(0, |i| (i + 1) % names.len().max(1));
            self.profile_shown = names.get(next).cloned();
            if names.len() <= 1 {
                self.status_message = "This is the only profile: \"New profile\" makes another from it".into();
            }
        }
        let in_use = shown == current;
        if dwell_button(ui, big(&if in_use { format!("{shown} is in use") } else { format!("Use {shown}") }), c, dwell_ms) {
            if in_use {
                self.status_message = format!("{shown} is the profile in use");
            } else {
                self.switch_profile(&root, &shown, ctx);
                // Another zoom: nothing now under the pointer fires by itself.
                c.act.relayout(ctx);
            }
        }
        if dwell_button(ui, big("New profile"), c, dwell_ms) {
            // A copy of this one (settings, calibration, menus), switched to at once.
            let (from, name) = (current.clone(), crate::profile::free_name(&root, &current));
            match crate::profile::copy(&root, &from, &name) {
                Ok(_) => {
                    self.switch_profile(&root, &name, ctx);
                    self.profile_shown = Some(name.clone());
                    self.status_message = format!("Made profile {name} from {from}, and switched to it; \"Rename\" names it");
                    c.act.relayout(ctx);
                }
                Err(e) => self.status_message = format!("No new profile: {e}"),
            }
        }
        if dwell_button(ui, big(&format!("Rename {shown}")), c, dwell_ms) {
            // The name is typed with the menu's keyboard, which opens for it.
            self.naming = Some(Naming { from: shown.clone(), text: String::new() });
            self.show_menu = true;
            self.menu.nav.home();
            if !self.menu.nav.open("keyboard") {
                tracing::debug!("no keyboard menu to type the name with");
            }
            self.menu.relayout(ctx);
            self.status_message = format!("Type the new name for {shown} with the menu's keyboard (letters, digits, - and _), then its Enter or \"Save name\"");
            c.act.relayout(ctx);
        }
        let armed = self.delete_armed.as_ref().is_some_and(|(n, at)| *n == shown && t - at < QUIT_CONFIRM_S);
        if dwell_button(ui, big(&if armed { format!("Delete {shown}: select again to confirm") } else { format!("Delete {shown}") }), c, dwell_ms) {
            if in_use {
                self.status_message = format!("{shown} is in use: use another profile first, then delete it");
            } else if armed {
                self.delete_armed = None;
                self.status_message = match Self::profile_unused_elsewhere(&root, &shown).and_then(|()| crate::profile::delete(&root, &shown).map_err(|e| e.to_string())) {
                    Ok(kept) => {
                        self.profile_shown = None;
                        format!("Deleted profile {shown} (kept in {})", kept.display())
                    }
                    Err(e) => format!("{shown} not deleted: {e}"),
                };
            } else {
                self.delete_armed = Some((shown.clone(), t));
                self.status_message = format!("Select \"Delete {shown}\" again to delete it");
            }
        }
    }

    /// `Ok` when no window has profile `name` open (its lock is free); why not, in words.
    fn profile_unused_elsewhere(root: &std::path::Path, name: &str) -> Result<(), String> {
        match crate::instance::open_profile(root, name) {
            Ok(crate::instance::ProfileAccess::Writable(_)) => Ok(()),
            Ok(access) => Err(access.read_only().unwrap_or_else(|| "it is open in another window".into())),
            Err(e) => Err(e.to_string()),
        }
    }

    /// The name typed: the profile renamed (the one in use too: its lock is
    /// let go, the folder renamed, and the profile opened under its new name).
    fn finish_naming(&mut self, root: &std::path::Path, ctx: &egui::Context) {
        let Some(n) = self.naming.take() else { return };
        let to = n.text.trim().to_string();
        if !crate::profile::valid_name(&to) {
            self.status_message = format!("\"{to}\" cannot be a profile's name: use letters, digits, - and _ (at most 64)");
            self.naming = Some(n);
            return;
        }
        let in_use = n.from == self.profile.name;
        let result = if in_use {
            // Let go of our own lock, so that nothing holds the old name.
            self.access = crate::instance::ProfileAccess::Unwritable("being renamed".into());
            let r = crate::profile::rename(root, &n.from, &to).map_err(|e| e.to_string());
            let name = if r.is_ok() { to.clone() } else { n.from.clone() };
            self.switch_profile(root, &name, ctx);
            r
        } else {
            Self::profile_unused_elsewhere(root, &n.from).and_then(|()| crate::profile::rename(root, &n.from, &to).map_err(|e| e.to_string()))
        };
        self.status_message = match result {
            Ok(_) => {
                self.profile_shown = Some(to.clone());
                self.show_menu = false;
                format!("Profile {} is now {to}", n.from)
            }
            Err(e) => format!("{} not renamed: {e}", n.from),
        };
    }

    /// Text from the menu's keyboard while a profile's name is typed: kept
    /// for the name (letters, digits, - and _; a space is a -), and Delete
    /// takes the last character back. `false` when no name is being typed.
    fn type_into_name(&mut self, o: &Outcome) -> bool {
        let Some(n) = self.naming.as_mut() else { return false };
        match o {
            Outcome::Type(t) => {
                for ch in t.chars() {
                    let ch = if ch == ' ' { '-' } else { ch };
                    if (ch.is_ascii_alphanumeric() || ch == '-' || ch == '_') && n.text.len() < 64 {
                        n.text.push(ch);
                    }
                }
            }
            Outcome::Keys(k) => match k.keys() {
                [crate::command::Key::Backspace | crate::command::Key::Delete] => {
                    n.text.pop();
                }
                [crate::command::Key::Space] => n.text.push('-'),
                // Enter saves the name, from the keyboard itself (the window's
                // "Save name" may lie under the docked menu).
                [crate::command::Key::Return] => self.name_entered = true,
                _ => {}
            },
            _ => return false,
        }
        true
    }

    /// The Settings page's targets, in the controls' flow: close, the next
    /// page, then each setting's "less" and "more" (see [`settings_page`]).
    fn settings_controls(&mut self, ui: &mut egui::Ui, page: usize, c: &mut Controls<'_>, dwell_ms: f64, ctx: &egui::Context, t: f64) {
        let big = |s: &str| RichText::new(s);
        // The toggles' page, the profiles' page, then the stepping settings' pages.
        let n = FIRST_STEP_PAGE + settings_page::pages();
        let page = page.min(n - 1);
        if dwell_button(ui, big("Close settings"), c, dwell_ms) {
            self.settings_page = None;
            self.naming = None;
            c.act.relayout(ctx);
            return;
        }
        if dwell_button(ui, big(&format!("More settings ({}/{n})", page + 1)), c, dwell_ms) {
            self.settings_page = Some((page + 1) % n);
            c.act.relayout(ctx);
        }
        if page == 0 {
            self.setting_toggles(ui, c, dwell_ms, ctx);
            return;
        }
        if page == PROFILES_PAGE {
            self.profile_controls(ui, c, dwell_ms, ctx, t);
            return;
        }
        let page = page - FIRST_STEP_PAGE;
        let rows = page * settings_page::PER_PAGE..((page + 1) * settings_page::PER_PAGE).min(settings_page::ROWS.len());
        for row in rows {
            let (less, more) = settings_page::target_labels(&self.profile.settings, row);
            for (label, up) in [(less, false), (more, true)] {
                if dwell_button(ui, big(&label), c, dwell_ms) {
                    self.step_setting(row, up, ctx, c);
                }
            }
        }
    }

    /// One step of a setting: applied at once, and saved.
    fn step_setting(&mut self, row: usize, up: bool, ctx: &egui::Context, c: &mut Controls<'_>) {
        let before = self.profile.settings.clone();
        if !settings_page::step(&mut self.profile.settings, row, up) {
            self.status_message = format!("{} is at the end of its range", settings_page::ROWS[row]);
            return;
        }
        let now = self.profile.settings.clone();
        if now.ui != before.ui {
            self.background = style::apply(ctx, &now.ui);
            self.menu.scanner.step_ms = now.ui.scan_step_ms;
            self.menu.nav.set_alias("keyboard", now.ui.keyboard.menu());
        }
        if (now.ui.zoom - before.ui.zoom).abs() > f32::EPSILON {
            // Everything moved: nothing now under the pointer fires by itself.
            c.act.relayout(ctx);
            self.menu.relayout(ctx);
        }
        self.menu.dwell_ms = now.pointer.dwell_ms;
        if now.switch.external_key != before.switch.external_key {
            self.start_external_switch();
        }
        self.send(Intent::Settings(Box::new(now)));
        self.save_profile();
    }

    /// The profile's dwell click (what a rest in another application does),
    /// applied from the next frame and saved.
    fn set_dwell(&mut self, action: crate::settings::Action) {
        self.profile.settings.switch.dwell = action;
        self.send(Intent::Settings(Box::new(self.profile.settings.clone())));
        self.save_profile();
    }

    /// The click-type toolbar (when the profile shows it) and the countdown
    /// ring at the pointer; then tells the session where our windows are
    /// (`main`: the main window's place, `None` while minimized), so that
    /// the desktop dwell leaves them to their own dwell.
    fn desktop_dwell(&mut self, ctx: &egui::Context, snap: &Snapshot, main: Option<crate::settings::ScreenArea>) {
        let ui_s = &self.profile.settings.ui;
        if ui_s.click_toolbar {
            let current = self.profile.settings.switch.dwell.clone();
            let dwell_ms = self.profile.settings.pointer.dwell_ms;
            // Clear of where the menu's window goes, which a large zoom makes
            // deeper than its strip (`menu_window_geometry`).
            let place = self.menu_dock_now(ctx);
            let menu = desktop_dwell::screen_points(ctx).map(|s| self.menu_window_rect(place, s));
            if let Some(a) = self.toolbar.show(ctx, &current, place.dock, menu, dwell_ms, self.background) {
                self.set_dwell(a);
            }
        } else {
            self.toolbar.hidden();
        }
        // Point scanning's lines: their own thread, from the start (a
        // minimized window gets no passes, and a switch user may start a
        // scan with the window minimized); made again for another zoom.
        let zoom = self.profile.settings.ui.zoom;
        if self.scan_lines.as_ref().is_none_or(|(_, z)| (*z - zoom).abs() > f32::EPSILON) {
            self.scan_lines = scan_lines::ScanLines::start(std::sync::Arc::clone(&self.snapshot), zoom).map(|l| (l, zoom));
        }
        let dwell_on = snap.driving && self.profile.settings.switch.dwell != crate::settings::Action::None;
        let zoom = self.profile.settings.ui.zoom;
        if !dwell_on || self.ring.as_ref().is_some_and(|(_, z)| *z != zoom) {
            self.ring = None;
        }
        if dwell_on && self.ring.is_none() {
            self.ring = ring::Ring::start(std::sync::Arc::clone(&self.snapshot), zoom).map(|r| (r, zoom));
        }
        self.send_own_areas(main);
    }

    /// Tells the session where our windows are (`main`: the main window's
    /// place, `None` while minimized), when that changed.
    fn send_own_areas(&mut self, main: Option<crate::settings::ScreenArea>) {
        let menu = self.menu_area.filter(|_| self.show_menu);
        let toolbar = self.toolbar.area.filter(|_| self.profile.settings.ui.click_toolbar);
        let areas: Vec<crate::settings::ScreenArea> = [main, menu, toolbar].into_iter().flatten().collect();
        // (Sent again next time if the worker's channel was full.)
        if areas != self.own_areas_sent && self.intents.try_send(Intent::OwnAreas(areas.clone())).is_ok() {
            tracing::debug!("our windows: {areas:?}");
            self.own_areas_sent = areas;
        }
    }

    /// The menu: its own always-on-top window, so it stays over the applications it drives.
    fn menu_window(&mut self, ctx: &egui::Context, t: f64) {
        let mut outcome = None;
        let mut closed = false;
        // The window never takes the keyboard focus (it types into the
        // user's application), except while a menu is edited.
        let want_focus = self.menu.editing;
        if self.menu_focus.is_none() {
            // A new window on the desktop, perhaps under the resting pointer.
            self.menu.appeared();
        }
        // Other windows keep out of the docked menu's strip (it covered the
        // main window's controls and the text being typed into); asked again
        // when the menu docks to another edge.
        let place = self.menu_dock_now(ctx);
        if self.menu_strut != Some(place) {
            x11::reserve_edge(MENU_TITLE);
            self.menu_strut = Some(place);
        }
        if self.menu_focus != Some(want_focus) {
            x11::set_takes_focus(MENU_TITLE, want_focus);
            self.menu_focus = Some(want_focus);
        }
        // Docked to the edge the user picked, the whole edge long, so that it
        // does not cover the text being typed into (unknown screen: a window).
        let mut builder = egui::ViewportBuilder::default().with_title(MENU_TITLE).with_always_on_top().with_inner_size([760.0, 600.0]).with_active(want_focus);
        if let Some(screen) = desktop_dwell::screen_points(ctx) {
            // The position is the frame's; the size the inside's: the frame's
            // title bar took the strip's last 20 pixels off the screen (a
            // side dock's navigation row under the screen's edge).
            let (at, inside) = self.menu_window_geometry(place, screen);
            builder = builder.with_position(at).with_inner_size(inside);
            self.menu.wide = place.wide();
        }
        let menu = &mut self.menu;
        let background = self.background;
        let mut area = None;
        let mut frame_seen = None;
        ctx.show_viewport_immediate(
            egui::ViewportId::from_hash_of("facemouse-menu"),
            builder,
            |ui, _class| {
                // Its own background: the clear colour is the main window's only.
                let frame = egui::Frame::central_panel(ui.style()).fill(background);
                egui::CentralPanel::default().frame(frame).show(ui, |ui| outcome = menu.show(ui, t * 1000.0));
                closed = ui.ctx().input(|i| i.viewport().close_requested());
                area = desktop_dwell::outer_area(ui.ctx());
                frame_seen = desktop_dwell::frame_of(ui.ctx());
            },
        );
        self.menu_area = area;
        if let Some(f) = frame_seen {
            self.menu_frame = f;
        }
        if closed {
            self.show_menu = false;
        }
        if let Some(o) = outcome {
            self.run_outcome(o, ctx);
        }
    }

    /// Where the menu window is now: at the profile's edge, the usual depth,
    /// except for a keyboard or the phrases (see [`typing_dock`]: the side
    /// where a page there holds more keys, deeper where even that pages).
    /// Decided once for each menu, edge and screen (it lays the panel out
    /// a few times), not on every pass.
    fn menu_dock_now(&mut self, ctx: &egui::Context) -> MenuPlace {
        let dock = self.profile.settings.ui.menu_dock;
        let Some(screen) = desktop_dwell::screen_points(ctx) else { return MenuPlace::at(dock) };
        let key = (self.menu.nav.current_name().to_string(), dock, screen.map(f32::to_bits));
        if let Some((k, chosen)) = &self.dock_chosen
            && *k == key
        {
            return *chosen;
        }
        let keys = self.menu.nav.current().items.len();
        let chosen = typing_dock(dock, &key.0, keys, screen, |w, h, wide| self.menu.page_room(w, h, wide));
        self.dock_chosen = Some((key, chosen));
        chosen
    }

    /// The main window maximized, once, as it first shows on an X11 screen.
    /// Asked for as the window was made, X11 window managers ignore it
    /// (winit's `with_maximized` is set before the window is mapped): the
    /// window kept its 1280×800 inside under a title bar, and on a screen
    /// 800 pixels high or less its bottom row of controls and its figures
    /// lay under the screen's edge, out of a head pointer's reach. While
    /// the menu or the calibration wizard places the window, once they are
    /// gone; and never again: a window the user made smaller stays so.
    fn maximize_once_shown(&mut self, ctx: &egui::Context) {
        if !self.maximize_pending || self.show_menu || self.wizard.is_some() || self.wizard_full_screen || self.x_shown.shown() != Some(true) {
            return;
        }
        self.maximize_pending = false;
        if ctx.input(|i| i.viewport().maximized) != Some(true) {
            ctx.send_viewport_cmd(egui::ViewportCommand::Maximized(true));
        }
    }

    /// The menu window's place at `place` on a `screen` (points), its frame
    /// and all (see [`menu_window_geometry`]).
    fn menu_window_rect(&self, place: MenuPlace, screen: [f32; 2]) -> egui::Rect {
        menu_outer_rect(self.menu_window_geometry(place, screen), self.menu_frame)
    }

    /// The menu window's frame place and inside size at `place` on a
    /// `screen` (see [`menu_window_geometry`]), leaving the click toolbar
    /// (when shown) the right edge's column where it fits neither above
    /// nor below the menu (zoom 3 on a 1280×720 screen: 33 points above a
    /// bottom menu, and its targets lay over the menu's right side).
    fn menu_window_geometry(&self, place: MenuPlace, screen: [f32; 2]) -> ([f32; 2], [f32; 2]) {
        let plain = menu_window_geometry(place, screen, self.menu_frame, 0.0);
        if !self.profile.settings.ui.click_toolbar {
            return plain;
        }
        let reserve = desktop_dwell::toolbar_reserve(place.dock, screen, menu_outer_rect(plain, self.menu_frame), self.toolbar.frame());
        if reserve > 0.0 { menu_window_geometry(place, screen, self.menu_frame, reserve) } else { plain }
    }

    /// The main window back where it was before the menu pushed it aside (if it did).
    fn restore_main_window(&mut self, ctx: &egui::Context) {
        if let Some((outer, inner)) = self.main_before_menu.take() {
            ctx.send_viewport_cmd(egui::ViewportCommand::OuterPosition(outer.min));
            ctx.send_viewport_cmd(egui::ViewportCommand::InnerSize(inner.size()));
        }
    }

    /// The main window out of the docked menu's way: it covered every one
    /// of the main window's controls (the window manager keeps maximized
    /// windows out of the menu's strip, not this one). Once per menu
    /// opening and edge; put back when the menu closes.
    fn keep_clear_of_menu(&mut self, ctx: &egui::Context) {
        let place = self.menu_dock_now(ctx);
        let toolbar_on = self.profile.settings.ui.click_toolbar;
        if self.menu_cleared == Some((place, toolbar_on)) || self.wizard_full_screen {
            return;
        }
        let Some(screen) = desktop_dwell::screen_points(ctx) else { return };
        let (outer, inner) = ctx.input(|i| (i.viewport().outer_rect, i.viewport().inner_rect));
        let (Some(outer), Some(inner)) = (outer, inner) else { return };
        if ctx.input(|i| i.viewport().minimized.unwrap_or(false)) {
            return;
        }
        self.menu_cleared = Some((place, toolbar_on));
        let menu = self.menu_window_rect(place, screen);
        let toolbar = toolbar_on.then(|| self.toolbar.rect(place.dock, screen, menu));
        // From where the window was before any menu moved it (the keyboard
        // moves the menu to another edge and back): it never shrinks twice.
        let (outer, inner) = self.main_before_menu.unwrap_or((outer, inner));
        match clear_of_menu(outer, inner, menu, toolbar, place.dock, egui::vec2(screen[0], screen[1])) {
            Some((pos, inner_size)) => {
                self.main_before_menu.get_or_insert((outer, inner));
                ctx.send_viewport_cmd(egui::ViewportCommand::OuterPosition(pos));
                ctx.send_viewport_cmd(egui::ViewportCommand::InnerSize(inner_size));
            }
            // Clear of the menu where it was: back there.
            None => self.restore_main_window(ctx),
        }
    }

    /// Another user's profile, applied live: settings, style and menus.
    fn switch_profile(&mut self, root: &std::path::Path, name: &str, ctx: &egui::Context) {
        // The new profile's lock first: its files are written (a broken one
        // kept as .bak) only by the window that may save it.
        match crate::instance::ProfileAccess::open(root, name) {
            Ok((access, p, notes)) => {
                self.notes = notes.recovered;
                self.notes.extend(access.read_only());
                self.background = style::apply(ctx, &p.settings.ui);
                self.send(Intent::Settings(Box::new(p.settings.clone())));
                let dir = p.dir.join("menus");
                if let Ok((m, menu_notes)) = menus::load_user_dir(&dir, &crate::data_dir().join("menus")) {
                    self.notes.extend(menu_notes);
                    self.menu = menu_panel_for(Navigator::new(m), dir, &p.settings, access.read_only());
                }
                self.status_message = format!("Profile {name}");
                self.access = access;
                if let Err(e) = crate::profile::remember_last(root, name) {
                    tracing::warn!("{e}");
                }
                // Other menus: nothing now under the pointer fires by itself.
                self.menu.relayout(ctx);
                self.profile = p;
                self.start_external_switch();
            }
            Err(e) => self.status_message = format!("Cannot open profile {name}: {e}"),
        }
    }

    fn wizard_ui(&mut self, ui: &mut egui::Ui, snap: &Snapshot) {
        let Some(mut w) = self.wizard.take() else { return };
        // The targets must reach the screen's edges, not the window's: the
        // window covers the whole screen while the wizard runs.
        if !self.wizard_full_screen {
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Fullscreen(true));
            self.wizard_full_screen = true;
        }
        w.update(snap, ui.input(|i| i.time) * 1000.0);
        let dwell_ms = self.settings().pointer.dwell_ms;
        let scanning = self.settings().ui.scanning;
        let mut act = std::mem::take(&mut self.controls);
        egui::CentralPanel::default().show(ui, |ui| {
            let rect = ui.max_rect();
            // The instructions sit between the top targets and the centre
            // one, so that no target covers them.
            let band = egui::Rect::from_min_max(
                egui::pos2(rect.left() + 0.15 * rect.width(), rect.top() + 0.16 * rect.height()),
                egui::pos2(rect.right() - 0.15 * rect.width(), rect.top() + 0.42 * rect.height()),
            );
            ui.scope_builder(egui::UiBuilder::new().max_rect(band), |ui| {
                ui.label(RichText::new(w.text()).size(36.0).strong());
                ui.add(egui::ProgressBar::new(w.progress()).desired_height(24.0));
                let (text, tone) = state_text(snap);
                ui.label(RichText::new(text).size(22.0).color(Palette::of(ui).tone(tone)));
                // Cancel, by dwell, the switch's click, or (scanning: it is
                // the one control, always lit) the switch: the old calibration stays.
                // As large as the main window's controls: a head pointer must be able to rest on it.
                let r = ui.add(style::target_button(ui, RichText::new("Cancel").size(26.0), scanning).min_size(egui::vec2(MAIN_TARGET[0], MAIN_TARGET[1])));
                if act.target(ui, &r, dwell_ms) || std::mem::take(&mut self.wizard_cancel) {
                    w.cancel();
                }
            });
            if let Some(t) = w.target() {
                let c = egui::pos2(rect.left() + t[0] * rect.width(), rect.top() + t[1] * rect.height());
                let p = ui.painter();
                p.circle_filled(c, 36.0, Color32::from_rgb(230, 40, 40));
                p.circle_filled(c, 12.0, Color32::WHITE);
            }
        });
        let finished = match &w.step {
            calibration::Step::Done(s) => Some(Ok((**s).clone())),
            calibration::Step::Failed(why) => Some(Err(why.clone())),
            _ => None,
        };
        let ended = finished.is_some();
        match finished {
            Some(Ok(s)) => {
                self.profile.settings = s.clone();
                self.send(Intent::Settings(Box::new(s.clone())));
                self.save_profile();
                if !self.refuse_save() {
                    self.status_message = match crate::profile::Calibration::of(&s).save(&self.profile.dir) {
                        Ok(()) => "Calibration saved".into(),
                        Err(e) => format!("Calibration not saved: {e}"),
                    };
                }
            }
            Some(Err(why)) => self.status_message = format!("Calibration not saved: {why}"),
            None => self.wizard = Some(w),
        }
        if ended {
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Fullscreen(false));
            self.wizard_full_screen = false;
            // The main window's controls come back: what lies under the
            // resting pointer ("Calibrate", often) waits for it to leave,
            // or the wizard started again a dwell later.
            act.relayout(ui.ctx());
        }
        self.controls = act;
        ui.ctx().request_repaint_after(std::time::Duration::from_millis(50));
    }
}

/// A short click sound through the system's player, if there is one. It
/// never blocks the window: a thread named "click-sound" plays one click at
/// a time (a click while one plays is dropped) and waits for the player, so
/// no finished player is left behind as a zombie. The sound goes to the
/// player through a pipe, never through a file another user could plant a
/// link at.
fn play_click() {
    static PLAYER: std::sync::OnceLock<Option<crossbeam_channel::Sender<()>>> = std::sync::OnceLock::new();
    let tx = PLAYER.get_or_init(|| {
        let (tx, rx) = crossbeam_channel::bounded::<()>(1);
        let wav = click_wav();
        std::thread::Builder::new()
            .name("click-sound".into())
            .spawn(move || {
                for () in rx {
                    if let Err(e) = play(&wav) {
                        tracing::debug!("click sound: {e}");
                    }
                }
            })
            .map_err(|e| tracing::warn!("no click sound: cannot start its thread: {e}"))
            .ok()
            .map(|_| tx)
    });
    if let Some(tx) = tx {
        let _ = tx.try_send(());
    }
}

/// Plays `wav` and waits for the player to end.
fn play(wav: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = if cfg!(target_os = "macos") {
        // afplay reads only files: one in the user's own cache folder, written atomically.
        let dir = directories::ProjectDirs::from("", "", "facemouse").map_or_else(std::env::temp_dir, |d| d.cache_dir().to_path_buf());
        std::fs::create_dir_all(&dir)?;
        let path = dir.join("click.wav");
        crate::fs::write_atomic(&path, wav)?;
        Command::new("afplay").arg(&path).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).spawn()?
    } else {
        let mut child = Command::new("aplay").args(["-q", "-"]).stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::null()).spawn()?;
        if let Some(mut input) = child.stdin.take() {
            // A player that quits early closes the pipe: nothing to do about it.
            let _ = input.write_all(wav);
        }
        child
    };
    child.wait().map(|_| ())
}

/// 60 ms of a 1 kHz tone fading out, as a 16-bit mono WAV at 16 kHz.
fn click_wav() -> Vec<u8> {
    let rate = 16_000u32;
    let n = rate * 60 / 1000;
    let mut data = Vec::with_capacity(44 + 2 * n as usize);
    let len = 2 * n;
    for (tag, v) in [(b"RIFF", 36 + len), (b"WAVE", 0), (b"fmt ", 16)] {
        data.extend_from_slice(tag);
        if tag != b"WAVE" {
            data.extend_from_slice(&v.to_le_bytes());
        }
    }
    for v in [1u16, 1] {
        data.extend_from_slice(&v.to_le_bytes());
    }
    data.extend_from_slice(&rate.to_le_bytes());
    data.extend_from_slice(&(rate * 2).to_le_bytes());
    for v in [2u16, 16] {
        data.extend_from_slice(&v.to_le_bytes());
    }
    data.extend_from_slice(b"data");
    data.extend_from_slice(&len.to_le_bytes());
    for i in 0..n {
        let s = (f64::from(i) / f64::from(rate) * 1000.0 * std::f64::consts::TAU).sin() * 8000.0 * (1.0 - f64::from(i) / f64::from(n));
        data.extend_from_slice(&(s as i16).to_le_bytes());
    }
    data
}

/// The camera's picture with what vision sees on it, within `max_w` × `max_h` points.
fn preview_ui(ui: &mut egui::Ui, tex: Option<&egui::TextureHandle>, s: &Snapshot, max_w: f32, max_h: f32) {
    let Some(tex) = tex else {
        ui.label("Waiting for the camera…");
        return;
    };
    let size = tex.size_vec2();
    let scale = (max_w / size.x.max(1.0)).min(max_h / size.y.max(1.0)).max(0.05);
    let r = ui.add(egui::Image::new((tex.id(), size * scale)));
    let p = ui.painter_at(r.rect);
    let (fw, fh) = (s.frame_size.0.max(1) as f32, s.frame_size.1.max(1) as f32);
    let map = |pt: [f64; 2]| egui::pos2(r.rect.left() + pt[0] as f32 / fw * r.rect.width(), r.rect.top() + pt[1] as f32 / fh * r.rect.height());
    let k = r.rect.width() / fw;
    if let (Some(le), Some(re)) = (s.record.le, s.record.re) {
        let iod = (crate::events::dist(le, re) as f32) * k;
        let eye_colour = if s.record.eyes_closed { Color32::RED } else { Color32::GREEN };
        for e in [le, re] {
            p.circle_stroke(map(e), 0.12 * iod, Stroke::new(2.0, eye_colour));
            // The eye's search window.
            p.rect_stroke(egui::Rect::from_center_size(map(e), egui::vec2(0.85 * iod, 0.6 * iod)), 0.0, Stroke::new(1.0, Color32::from_white_alpha(120)), egui::StrokeKind::Middle);
        }
        let brow_colour = if s.record.brows_raised { Color32::from_rgb(255, 140, 0) } else { Color32::from_rgb(0, 180, 255) };
        for b in [s.record.lb, s.record.rb].into_iter().flatten() {
            p.line_segment([map(b) - egui::vec2(0.2 * iod, 0.0), map(b) + egui::vec2(0.2 * iod, 0.0)], Stroke::new(3.0, brow_colour));
        }
        if let Some(f) = s.record.feature {
            p.circle_filled(map(f), 5.0, Color32::YELLOW);
        }
        // The talk guard: the mouth moves, and no face gesture acts.
        if s.record.talking {
            let c = map(crate::events::midpoint(le, re)) + egui::vec2(0.0, 1.25 * iod);
            let orange = Color32::from_rgb(255, 140, 0);
            p.rect_stroke(egui::Rect::from_center_size(c, egui::vec2(1.1 * iod, 1.1 * iod)), 4.0, Stroke::new(2.0, orange), egui::StrokeKind::Middle);
            p.text(c + egui::vec2(0.0, 0.6 * iod), egui::Align2::CENTER_TOP, "talking: gestures wait", egui::FontId::proportional(16.0), orange);
        }
    }
}

/// The plot's title row (points), above the plot.
const PLOT_TITLE_H: f32 = 30.0;
/// The plot's legend (three rows) is drawn only in a plot at least this
/// tall (points); in a lower one it overflowed the plot, over the controls,
/// and the title's colours say the same.
const PLOT_LEGEND_MIN_H: f32 = 90.0;

/// The plot's height in `max_h` points with its title above it: never more
/// than there is room for, at most 260 points.
fn plot_height(max_h: f32) -> f32 {
    (max_h - PLOT_TITLE_H).clamp(0.0, 260.0)
}

/// The eye closure and the brow lift over the last seconds, in at most `max_h` points.
fn plot_ui(ui: &mut egui::Ui, history: &VecDeque<(f64, f64, f64)>, s: &Settings, max_h: f32) {
    use egui_plot::{HLine, Legend, Line, Plot, PlotPoints};
    const CLOSURE: Color32 = Color32::from_rgb(210, 60, 60);
    const LIFT: Color32 = Color32::from_rgb(60, 110, 230);
    const THRESHOLD: Color32 = Color32::from_rgb(80, 170, 60);
    let now = history.back().map_or(0.0, |h| h.0);
    let closure: Vec<[f64; 2]> = history.iter().map(|h| [h.0 - now, h.1]).collect();
    let lift: Vec<[f64; 2]> = history.iter().map(|h| [h.0 - now, h.2 / s.vision.brow_on]).collect();
    // The title names each line in its colour, so the plot reads without its legend.
    let mut title = egui::text::LayoutJob::default();
    let font = egui::FontId::proportional(16.0);
    let text = ui.visuals().text_color();
    for (part, colour) in [("Eye closure", CLOSURE), (" and ", text), ("eyebrow lift", LIFT), (" (", text), ("1", THRESHOLD), (" = where a blink or a raise starts)", text)] {
        title.append(part, 0.0, egui::TextFormat::simple(font.clone(), colour));
    }
    ui.add(egui::Label::new(title).truncate());
    let height = plot_height(max_h);
    let mut plot = Plot::new("signals").height(height).include_y(0.0).include_y(1.2);
    if height >= PLOT_LEGEND_MIN_H {
        plot = plot.legend(Legend::default());
    }
    plot.show(ui, |p| {
        // Drawn as lines however narrow the plot: egui_plot's bands for dense
        // points drew a narrow plot's blinks as filled blots and broken lines.
        p.line(Line::new("eye closure", PlotPoints::from(closure)).color(CLOSURE).allow_band(false));
        p.line(Line::new("eyebrow lift", PlotPoints::from(lift)).color(LIFT).allow_band(false));
        p.hline(HLine::new("threshold", 1.0).color(THRESHOLD));
    });
}

/// SIGTERM, SIGINT and SIGHUP (a logout, `kill`, Ctrl-C in the terminal)
/// close the window as its close button does: the session stops and
/// releases any held button. A second signal ends the process at once.
fn close_on_signals() -> Arc<std::sync::atomic::AtomicBool> {
    use std::sync::atomic::{AtomicBool, Ordering};
    let flag = Arc::new(AtomicBool::new(false));
    let f = Arc::clone(&flag);
    let set = ctrlc::set_handler(move || {
        if f.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
    });
    if let Err(e) = set {
        tracing::warn!("cannot handle termination signals: {e}");
    }
    // SIGQUIT (Ctrl-\) closes the window too, instead of dumping core with a button held.
    #[cfg(unix)]
    if let Err(e) = signal_hook::flag::register(signal_hook::consts::SIGQUIT, Arc::clone(&flag)) {
        tracing::warn!("cannot handle SIGQUIT: {e}");
    }
    flag
}

/// Closes the window once `flag` is set (see [`close_on_signals`]).
fn watch_signals(flag: Arc<std::sync::atomic::AtomicBool>, ctx: egui::Context) {
    let spawned = std::thread::Builder::new().name("signals".into()).spawn(move || {
        while !flag.load(std::sync::atomic::Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        tracing::info!("closing on a termination signal");
        ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        ctx.request_repaint();
    });
    if let Err(e) = spawned {
        tracing::warn!("cannot watch for termination signals: {e}");
    }
}

/// What the window needs to start.
pub struct Launch {
    pub profile: Profile,
    /// Problems met on the way (a broken file kept as .bak, a profile open
    /// elsewhere), shown in the window until the profile changes.
    pub notes: Vec<String>,
    pub source: SourceChoice,
    pub show_menu: bool,
    pub calibrate: bool,
    /// Whether the window may save the profile.
    pub access: crate::instance::ProfileAccess,
    /// The lock of the instance that drives the pointer, if this window holds it.
    pub drive_lock: Option<crate::instance::InstanceLock>,
    /// Started at login: no click for the profile's `ui.login_grace_s`.
    pub at_login: bool,
    /// The XDG autostart folder ("Start at login" writes its entry there);
    /// `None` when the system has none.
    pub autostart_dir: Option<std::path::PathBuf>,
}

/// Opens the window and runs until it is closed.
///
/// # Errors
/// No display, or a source that cannot be opened.
pub fn run(mut launch: Launch) -> anyhow::Result<()> {
    let menus_dir = launch.profile.dir.join("menus");
    let (menus, menu_notes) = menus::load_user_dir(&menus_dir, &crate::data_dir().join("menus"))?;
    for n in &menu_notes {
        tracing::warn!("{n}");
    }
    let nav = Navigator::new(menus);
    let worker = worker::Worker::start(launch.profile.settings.clone(), launch.source.clone())?;
    let options = eframe::NativeOptions {
        // Not focused as it appears (`_NET_WM_USER_TIME` 0 on X11): the
        // user's application keeps the keyboard focus across restarts.
        viewport: egui::ViewportBuilder::default().with_title(MAIN_TITLE).with_inner_size([1280.0, 800.0]).with_maximized(true).with_active(false),
        // Dithering costs a noise term on every pixel of every repaint: with
        // software rendering (no GPU), a large share of the window's cost.
        dithering: false,
        event_loop_builder: Some(Box::new(|builder| {
            // On a Wayland desktop with XWayland, the window still uses X11:
            // only there can it refuse the keyboard focus (WM_HINTS), so
            // that keys typed from its keyboard reach the user's
            // application. Without XWayland it runs natively on Wayland.
            #[cfg(target_os = "linux")]
            if std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty()) {
                use winit::platform::x11::EventLoopBuilderExtX11 as _;
                builder.with_x11();
            }
            #[cfg(not(target_os = "linux"))]
            let _ = builder;
        })),
        ..Default::default()
    };
    launch.notes.extend(menu_notes);
    let closing = close_on_signals();
    eframe::run_native(
        "Facemouse",
        options,
        Box::new(move |cc| {
            watch_signals(closing, cc.egui_ctx.clone());
            Ok(Box::new(FacemouseApp::new(&cc.egui_ctx, launch, nav, worker)))
        }),
    )
    .map_err(|e| anyhow::anyhow!("cannot open the window: {e} (is there a display? on Linux, DISPLAY must name an X server)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Children of this process that have ended but were not waited for.
    #[cfg(target_os = "linux")]
    fn zombies() -> usize {
        let me = std::process::id().to_string();
        std::fs::read_dir("/proc")
            .map_or(0, |d| {
                d.filter_map(Result::ok)
                    .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
                    .filter(|st| {
                        let rest: Vec<&str> = st.rsplit_once(") ").map(|(_, r)| r.split_whitespace().collect()).unwrap_or_default();
                        rest.first() == Some(&"Z") && rest.get(1) == Some(&me.as_str())
                    })
                    .count()
            })
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn programs_started_from_the_menu_leave_no_zombies() {
        for _ in 0..3 {
            start_program(std::process::Command::new("true").stdout(std::process::Stdio::null())).expect("start");
        }
        let deadline = Instant::now() + std::time::Duration::from_secs(5);
        while zombies() > 0 && Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert_eq!(zombies(), 0);
    }

    #[test]
    fn the_click_sound_is_a_well_formed_wav() {
        let w = click_wav();
        assert_eq!(&w[..4], b"RIFF");
        assert_eq!(&w[8..16], b"WAVEfmt ");
        assert_eq!(u32::from_le_bytes([w[4], w[5], w[6], w[7]]) as usize, w.len() - 8);
        assert_eq!(u32::from_le_bytes([w[40], w[41], w[42], w[43]]) as usize, w.len() - 44);
    }

    #[test]
    fn the_window_says_when_the_long_blink_waits_for_a_first_blink() {
        let mut s = Snapshot { frame_seq: 1, long_blink_waits: true, ..Snapshot::default() };
        assert!(waiting_hint(&s).is_some_and(|h| h.contains("long blink")));
        s.paused = true;
        assert_eq!(waiting_hint(&s), None, "paused: the pause's own line");
        s.paused = false;
        s.long_blink_waits = false;
        assert_eq!(waiting_hint(&s), None);
    }

    #[test]
    fn without_a_picture_the_status_says_so_not_searching() {
        let mut s = Snapshot::default();
        assert!(state_text(&s).0.starts_with("Starting"));
        s.message = "cannot open clip.avi as a video".into();
        assert_eq!(state_text(&s).0, "No picture from the camera");
        s.frame_seq = 1;
        assert!(state_text(&s).0.starts_with("Searching"));
    }

    /// The keyboard where it opens, for each dock a profile may choose, on
    /// 1920x1080, 1366x768 and 1280x720 screens at the default zoom of 1.5:
    /// every letter, Space, Delete, the keys to capitals, numbers and signs,
    /// and the predicted words are on one page, every target inside the
    /// menu's window, no key smaller than 44x34 points. (On the two small
    /// screens the side dock grows for it: see `typing_dock`.)
    #[test]
    fn every_key_is_inside_the_window_at_every_dock() {
        use crate::settings::Dock;
        use egui_kittest::kittest::Queryable;
        let menus = crate::menus::load_dir(&crate::data_dir().join("menus")).expect("menus");
        let tmp = tempfile::tempdir().expect("tempdir");
        for px in [[1920.0, 1080.0], [1366.0, 768.0], [1280.0, 720.0]] {
            let screen = [px[0] / 1.5, px[1] / 1.5];
            for dock in [Dock::Top, Dock::Bottom, Dock::Left, Dock::Right] {
                let mut panel = MenuPanel::new(Navigator::new(menus.clone()), tmp.path().to_path_buf(), 3, false, 1200.0, 1000.0);
                assert!(panel.nav.open("keyboard"));
                let keys = panel.nav.current().items.len();
                let at = typing_dock(dock, "keyboard", keys, screen, |w, h, wide| panel.page_room(w, h, wide));
                let size = at.place(screen).1;
                panel.wide = at.wide();
                let what = format!("{px:?} docked {dock:?}, shown {at:?} in {size:?}");
                let inner = egui::vec2(size[0], size[1] - MENU_TITLE_ROW);
                let mut h = egui_kittest::Harness::builder().with_size(inner).build_ui_state(
                    |ui, p: &mut MenuPanel| {
                        let _ = p.show(ui, 0.0);
                    },
                    panel,
                );
                h.run_steps(2);
                let window = egui::Rect::from_min_size(egui::Pos2::ZERO, inner);
                let items: Vec<String> = h.state().nav.current().items.iter().map(|it| it.label.clone()).collect();
                let mut seen = std::collections::HashSet::new();
                assert_eq!(h.state().page().1, 1, "{what}: every key on one page");
                assert!(h.state().predictions().len() >= 3, "{what}: the words' row");
                for t in h.state().targets().to_vec() {
                    if let menu_panel::Target::Item(i) = t {
                        let r = h.get_by_label(&items[i]).rect();
                        assert!(window.contains_rect(r), "{what}: {} at {r:?} is outside the window", items[i]);
                        assert!(r.height() >= 34.0 && r.width() >= 44.0, "{what}: {} is {r:?}", items[i]);
                        seen.insert(i);
                    }
                }
                for label in ["Back", "Home", "Close menu"] {
                    let r = h.get_by_label(label).rect();
                    assert!(window.contains_rect(r), "{what}: {label} at {r:?} is outside the window");
                }
                assert_eq!(seen.len(), items.len(), "{what}: every key on the page");
            }
        }
    }

    /// The keyboard from a bottom dock goes to the side where a page there
    /// holds more keys, or as many that are quicker to point at. On
    /// 1920x1080 at zoom 1.5 (1280x720 points) both hold every key, and the
    /// side's are quicker to point at (the bottom is a strip two keys high
    /// and 1280 points long): it goes to the side, and so from the top. On
    /// 1600x900 (1067x600 points) and 1280x800 (853x533) only the side holds
    /// them all, and it goes there. On 1366x768 (911x512) and 1280x720
    /// (853x480) neither does (on 1366x768, 5 keys a page at the bottom and
    /// 2 at the side): the side dock grows deeper until every key is on one
    /// page. Other menus stay.
    #[test]
    fn the_keyboard_docks_at_the_side_where_a_page_there_holds_more_keys_or_quicker_ones() {
        use crate::settings::{Dock, MENU_DEPTH};
        let tmp = tempfile::tempdir().expect("tempdir");
        let mut panel = menu_panel::keyboard_panel(tmp.path());
        let keys = panel.nav.current().items.len();
        let mut room = |w: f32, h: f32, wide: bool| panel.page_room(w, h, wide);
        let place = |dock: Dock, screen: [f32; 2]| dock.place(screen).1;
        for (screen, dock, deeper) in [([1280.0, 720.0], Dock::Right, false), ([1067.0, 600.0], Dock::Right, false), ([853.0, 533.0], Dock::Right, false), ([911.0, 512.0], Dock::Right, true), ([853.0, 480.0], Dock::Right, true)] {
            let (low, side) = (place(Dock::Bottom, screen), place(Dock::Right, screen));
            let rooms = (room(low[0], low[1] - MENU_TITLE_ROW, true), room(side[0], side[1] - MENU_TITLE_ROW, false));
            let at = typing_dock(Dock::Bottom, "keyboard", keys, screen, &mut room);
            assert_eq!(at.dock, dock, "{screen:?}: bottom and side {rooms:?} of {keys}");
            assert_eq!(at.depth > MENU_DEPTH, deeper, "{screen:?}: {at:?}, bottom and side {rooms:?} of {keys}");
            assert!(at.depth <= 0.6, "{screen:?}: {at:?} leaves room for the main window");
            let size = at.place(screen).1;
            assert_eq!(room(size[0], size[1] - MENU_TITLE_ROW, at.wide()).holds, keys, "{screen:?}: {at:?} holds every key");
        }
        let (low, side) = (place(Dock::Bottom, [1280.0, 720.0]), place(Dock::Right, [1280.0, 720.0]));
        let (low, side) = (room(low[0], low[1] - MENU_TITLE_ROW, true), room(side[0], side[1] - MENU_TITLE_ROW, false));
        assert_eq!(low.holds, keys, "every key at the bottom of 1920x1080");
        assert!(side.bits < low.bits - 0.3, "the side's keys are quicker to point at: {side:?}, bottom {low:?}");
        assert_eq!(typing_dock(Dock::Top, "keyboard", keys, [1280.0, 720.0], &mut room), MenuPlace::at(Dock::Right));
        // The default profile docks at the bottom: its keyboard is the one `eval-keyboard` measures at the side.
        assert_eq!(crate::settings::UiSettings::default().menu_dock, Dock::Bottom);
        assert_eq!(typing_dock(Dock::Bottom, "main", 10, [1067.0, 600.0], &mut room), MenuPlace::at(Dock::Bottom));
        assert_eq!(typing_dock(Dock::Left, "keyboard", keys, [1067.0, 600.0], &mut room), MenuPlace::at(Dock::Left));
        // A left dock grows deeper at the left.
        assert_eq!(typing_dock(Dock::Left, "keyboard", keys, [853.0, 480.0], &mut room).dock, Dock::Left);
        // A menu that is not a keyboard never grows, nor moves where it holds as many.
        assert_eq!(typing_dock(Dock::Right, "phrases", 500, [853.0, 480.0], &mut room), MenuPlace::at(Dock::Right));
        assert_eq!(typing_dock(Dock::Bottom, "phrases", 8, [1280.0, 720.0], &mut room), MenuPlace::at(Dock::Bottom));
        // Measuring changes nothing of what is shown.
        assert_eq!(panel.page(), (0, panel.page().1));
    }

    /// Two controls a row whenever they can be 140 points wide: beside a
    /// keyboard docked deep at the side of a 1280×720 screen the main window
    /// is 384 points wide, and one control a row made the eleven taller than
    /// the window (the picture was drawn over Pause).
    #[test]
    fn the_main_windows_controls_are_two_a_row_in_a_narrow_window() {
        let same = |a: [f32; 2], b: [f32; 2]| (a[0] - b[0]).abs() < 1e-3 && (a[1] - b[1]).abs() < 1e-3;
        assert!(same(main_target_size(1200.0, 8.0), MAIN_TARGET));
        let narrow = main_target_size(368.0, 8.0);
        assert!(2.0 * narrow[0] + 8.0 <= 368.0 && narrow[0] >= MAIN_TARGET_MIN_W, "{narrow:?}");
        assert!(same(narrow, [narrow[0], MAIN_TARGET[1]]), "{narrow:?}");
        assert!(same(main_target_size(200.0, 8.0), [MAIN_TARGET_MIN_W, MAIN_TARGET[1]]));
    }

    /// Where the rows need more room than there is, the controls are made
    /// narrower (more to a row), then lower, and all rows fit; where there
    /// is room, nothing changes; never narrower than `MAIN_TARGET_FIT_W_PX`
    /// nor lower than `MAIN_TARGET_FIT_H_PX` on the screen.
    #[test]
    fn the_main_windows_controls_are_made_smaller_only_to_fit() {
        let gap = [8.0, 3.0];
        let rows = |size: [f32; 2], width: f32, n: usize| {
            let per_row = (((width + gap[0]) / (size[0] + gap[0])).floor() as usize).max(1);
            n.div_ceil(per_row) as f32 * (size[1] + gap[1]) - gap[1]
        };
        let same = |a: [f32; 2], b: [f32; 2]| (a[0] - b[0]).abs() < 1e-3 && (a[1] - b[1]).abs() < 1e-3;
        // Room enough: as before.
        assert!(same(main_target_size_fitting(820.0, 400.0, 10, gap, 1.5), main_target_size(820.0, gap[0])));
        assert!(same(main_target_size_fitting(368.0, 400.0, 0, gap, 1.5), main_target_size(368.0, gap[0])));
        // About zoom 2.5 on 1280×800 (480 wide, 170 high for the rows): more to a row, as tall.
        let s = main_target_size_fitting(480.0, 170.0, 10, gap, 2.5);
        assert!(s[0] < MAIN_TARGET_MIN_W && s[0] * 2.5 >= MAIN_TARGET_FIT_W_PX && (s[1] - MAIN_TARGET[1]).abs() < 1e-3, "{s:?}");
        assert!(rows(s, 480.0, 10) <= 170.0, "{s:?}");
        // Lower still where narrower is not enough.
        let s = main_target_size_fitting(395.0, 160.0, 10, gap, 1.5);
        assert!(s[1] < MAIN_TARGET[1] && s[1] * 1.5 >= MAIN_TARGET_FIT_H_PX && s[0] * 1.5 >= MAIN_TARGET_FIT_W_PX, "{s:?}");
        assert!(rows(s, 395.0, 10) <= 160.0, "{s:?}");
        // No room at all: the least size, never less.
        assert!((main_target_size_fitting(395.0, 20.0, 10, gap, 1.5)[1] * 1.5 - MAIN_TARGET_FIT_H_PX).abs() < 1e-3);
        // At zoom 3 beside the click toolbar (235 points wide, 150 high): it fits.
        let s = main_target_size_fitting(235.0, 150.0, 10, gap, 3.0);
        assert!(rows(s, 235.0, 10) <= 150.0 && s[0] * 3.0 >= MAIN_TARGET_FIT_W_PX && s[1] * 3.0 >= MAIN_TARGET_FIT_H_PX, "{s:?}");
    }

    /// The docked menu's window is its dock's strip where that holds
    /// `MENU_MIN_SIDE`; deeper, from the same edge, where it does not; and
    /// on the screen either way.
    #[test]
    fn the_docked_menu_window_is_its_strip_or_deeper_and_on_the_screen() {
        use crate::settings::Dock;
        let frame = egui::vec2(2.0, 24.0);
        for (screen, deeper) in [([853.0, 533.0], false), ([512.0, 320.0], true), ([427.0, 267.0], true)] {
            for dock in [Dock::Bottom, Dock::Top, Dock::Right, Dock::Left] {
                let place = MenuPlace::at(dock);
                let (strip_at, strip) = place.place(screen);
                let (at, inside) = menu_window_geometry(place, screen, frame, 0.0);
                let outer = [inside[0] + frame.x, inside[1] + frame.y];
                assert!(at[0] >= 0.0 && at[1] >= 0.0 && at[0] + outer[0] <= screen[0] + 1e-3 && at[1] + outer[1] <= screen[1] + 1e-3, "{dock:?} on {screen:?}: {at:?} {outer:?}");
                let across = usize::from(matches!(dock, Dock::Top | Dock::Bottom));
                assert!(inside[across] >= MENU_MIN_SIDE.min(screen[across] - frame[across]) - 1e-3, "{dock:?} on {screen:?}: {inside:?}");
                if !deeper {
                    assert!((at[0] - strip_at[0]).abs() < 1e-3 && (at[1] - strip_at[1]).abs() < 1e-3 && (outer[across] - strip[across]).abs() < 1e-3, "{dock:?} on {screen:?}: {at:?} {outer:?} against the strip {strip_at:?} {strip:?}");
                }
            }
        }
    }

    #[test]
    fn the_main_window_is_moved_clear_of_the_docked_menu_and_keeps_its_frame() {
        use crate::settings::Dock;
        let r = |x0: f32, y0: f32, x1: f32, y1: f32| egui::Rect::from_min_max(egui::pos2(x0, y0), egui::pos2(x1, y1));
        // 1280x800 at zoom 1.5: 853x533 points; a window over the whole screen with a 20-point title bar.
        let (outer, inner) = (r(0.0, 0.0, 853.0, 533.0), r(0.0, 20.0, 853.0, 533.0));
        let screen = [853.0, 533.0];
        for dock in [Dock::Bottom, Dock::Top, Dock::Left, Dock::Right] {
            let (at, size) = dock.place(screen);
            let menu = egui::Rect::from_min_size(egui::pos2(at[0], at[1]), egui::vec2(size[0], size[1]));
            let (pos, inner_size) = clear_of_menu(outer, inner, menu, None, dock, egui::vec2(853.0, 533.0)).expect("room beside the menu");
            let now = egui::Rect::from_min_size(pos, inner_size + egui::vec2(0.0, 20.0));
            assert!(!now.intersects(menu.shrink(0.5)), "{dock:?}: {now:?} against {menu:?}");
            assert!(inner_size.x >= MAIN_MIN_SIZE.x && inner_size.y >= MAIN_MIN_SIZE.y);
        }
        // Clear already: nothing to do. Too little room left: left where it is.
        let menu = r(0.0, 400.0, 853.0, 533.0);
        let on = egui::vec2(853.0, 533.0);
        assert_eq!(clear_of_menu(r(0.0, 0.0, 853.0, 390.0), r(0.0, 20.0, 853.0, 390.0), menu, None, Dock::Bottom, on), None);
        assert_eq!(clear_of_menu(outer, inner, r(0.0, 100.0, 853.0, 533.0), None, Dock::Bottom, on), None);
        // A window whose frame ran 20 points under the screen's edge comes back onto it.
        let (at, size) = Dock::Right.place(screen);
        let menu = egui::Rect::from_min_size(egui::pos2(at[0], at[1]), egui::vec2(size[0], size[1]));
        let (pos, inner_size) = clear_of_menu(r(0.0, 0.0, 853.0, 553.0), r(0.0, 20.0, 853.0, 553.0), menu, None, Dock::Right, on).expect("room beside the menu");
        assert!((pos.y + 20.0 + inner_size.y - 533.0).abs() < 1e-3, "{pos:?} {inner_size:?}");
    }

    /// A large zoom on a low screen: above or below a menu at the top or
    /// bottom there is no room for the toolbar's column (zoom 3 on
    /// 1280×720: 33 points above the menu; its six targets at their least
    /// took 236 and lay over the menu's right side, which no dwell could
    /// reach). The menu then leaves the right edge's column free, and the
    /// toolbar takes it: neither covers the other, both stay on the screen,
    /// and every target keeps its least height. Where it fits, nothing moves.
    /// Beside a menu at a side of a narrow screen (zoom 3 on 1024×768: the
    /// menu at least 200 points wide, the toolbar 160, of 341), the toolbar
    /// is made narrower; it overlapped the menu by 21 points.
    #[test]
    fn on_a_low_screen_the_toolbar_goes_beside_the_menu_and_neither_covers_the_other() {
        use crate::settings::Dock;
        for (screen, zoom, low) in [([1280.0, 720.0], 3.0, true), ([1024.0, 768.0], 3.0, true), ([1366.0, 768.0], 2.5, true), ([1280.0, 800.0], 1.5, false), ([1920.0, 1080.0], 2.0, false)] {
            let on = [screen[0] / zoom, screen[1] / zoom];
            // A 20-pixel title bar and 1-pixel borders.
            let frame = egui::vec2(2.0 / zoom, 21.0 / zoom);
            for dock in [Dock::Bottom, Dock::Top, Dock::Left, Dock::Right] {
                let place = MenuPlace::at(dock);
                let geometry = |reserve| menu_outer_rect(menu_window_geometry(place, on, frame, reserve), frame);
                let reserve = desktop_dwell::toolbar_reserve(dock, on, geometry(0.0), frame);
                assert_eq!(reserve > 0.0, low && place.wide(), "{dock:?} on {screen:?} at {zoom}: {reserve}");
                let menu = geometry(reserve);
                let p = desktop_dwell::toolbar_place(dock, on, menu, frame);
                let bar = egui::Rect::from_min_size(p.at.into(), egui::Vec2::from(p.size) + frame);
                assert!(!bar.intersects(menu.shrink(0.5)), "{dock:?} on {screen:?} at {zoom}: the toolbar {bar:?} over the menu {menu:?}");
                let whole = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(on[0], on[1])).expand(1e-3);
                assert!(whole.contains_rect(bar) && whole.contains_rect(menu), "{dock:?} on {screen:?} at {zoom}: {bar:?} {menu:?}");
                assert!(p.target_h >= 30.0 - 1e-3 && p.gap >= 4.0 - 1e-3 && p.size[0] >= 130.0 - 1e-3, "{dock:?} on {screen:?} at {zoom}: {p:?}");
                if place.wide() {
                    assert!(menu.width() >= 0.5 * on[0], "{dock:?} on {screen:?} at {zoom}: the menu keeps most of the width: {menu:?}");
                } else {
                    assert!(menu.width() >= MENU_MIN_SIDE, "{dock:?} on {screen:?} at {zoom}: {menu:?}");
                }
                if !low {
                    assert!((p.size[0] - desktop_dwell::TOOLBAR_WIDTH).abs() < 1e-3, "{dock:?} on {screen:?} at {zoom}: its usual width where there is room: {p:?}");
                }
            }
        }
    }

    /// With the click toolbar on, the main window keeps out of its column
    /// as well as out of the menu: started with the menu open, the window
    /// (not yet maximized) had its fourth column of controls under the
    /// toolbar.
    #[test]
    fn the_main_window_keeps_out_of_the_click_toolbar_beside_the_menu() {
        use crate::settings::Dock;
        let r = |x0: f32, y0: f32, x1: f32, y1: f32| egui::Rect::from_min_max(egui::pos2(x0, y0), egui::pos2(x1, y1));
        let (outer, inner) = (r(0.0, 0.0, 853.0, 533.0), r(0.0, 20.0, 853.0, 533.0));
        let screen = [853.0, 533.0];
        let frame = egui::vec2(0.0, 20.0);
        for dock in [Dock::Bottom, Dock::Top, Dock::Left, Dock::Right] {
            let menu = desktop_dwell::menu_strip(dock, screen);
            let p = desktop_dwell::toolbar_place(dock, screen, menu, frame);
            let toolbar = egui::Rect::from_min_size(p.at.into(), egui::Vec2::from(p.size) + frame);
            let (pos, inner_size) = clear_of_menu(outer, inner, menu, Some(toolbar), dock, egui::vec2(853.0, 533.0)).expect("room beside the menu");
            let now = egui::Rect::from_min_size(pos, inner_size + frame);
            assert!(!now.intersects(menu.shrink(0.5)) && !now.intersects(toolbar.shrink(0.5)), "{dock:?}: {now:?} against {menu:?} and {toolbar:?}");
            assert!(inner_size.x >= MAIN_MIN_SIZE.x && inner_size.y >= MAIN_MIN_SIZE.y);
            // Without the toolbar, the window keeps the width it had.
            let (_, wide) = clear_of_menu(outer, inner, menu, None, dock, egui::vec2(853.0, 533.0)).expect("room beside the menu");
            assert!(wide.x > inner_size.x + 100.0, "{dock:?}: {wide:?} against {inner_size:?}");
        }
        // Clear of the menu but under the toolbar: moved out of it too.
        let menu = r(0.0, 400.0, 853.0, 533.0);
        let toolbar = r(693.0, 0.0, 853.0, 390.0);
        let (pos, inner_size) = clear_of_menu(r(0.0, 0.0, 853.0, 390.0), r(0.0, 20.0, 853.0, 390.0), menu, Some(toolbar), Dock::Bottom, egui::vec2(853.0, 533.0)).expect("out of the toolbar");
        assert!(pos.x + inner_size.x <= 693.0 + 1e-3, "{pos:?} {inner_size:?}");
    }

    #[test]
    fn the_pose_line_shows_signed_degrees_or_says_why_not() {
        let p = crate::pose::Pose { yaw: 12.4, pitch: -5.2, roll: 0.3 };
        assert_eq!(pose_line(Some(&p)), "Head pose: yaw +12° · pitch -5° · roll +0°");
        assert!(pose_line(None).contains("while tracking"));
    }
}
