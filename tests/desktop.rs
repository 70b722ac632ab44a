//! The real desktop, as a user's session sees it: a private Xvfb, a test
//! window that counts button presses, and `facemouse replay --drive` on a
//! generated clip with clicks, a pause and a loss of the face.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common;

use crate::common::{Xvfb, default_profile, facemouse, xdotool, xvfb, xvfb_with, xvfb_with_xdotool};
use facemouse::events::{Event, TrackState};
use facemouse::lab::synth::{self, Action, FaceAsset, ScriptEvent, SynthConfig};
use x11rb::connection::Connection;
use x11rb::wrapper::ConnectionExt as _;
use x11rb::protocol::xproto::{ConnectionExt, CreateWindowAux, EventMask, WindowClass};
use x11rb::protocol::Event as XEvent;

/// A full-screen window that counts the presses and releases of the left button.
struct Window {
    presses: Arc<AtomicUsize>,
    releases: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

fn window(display: &str) -> Window {
    let (conn, screen_num) = x11rb::connect(Some(display)).expect("connect");
    let screen = &conn.setup().roots[screen_num];
    let win = conn.generate_id().expect("id");
    conn.create_window(
        screen.root_depth,
        win,
        screen.root,
        0,
        0,
        screen.width_in_pixels,
        screen.height_in_pixels,
        0,
        WindowClass::INPUT_OUTPUT,
        screen.root_visual,
        &CreateWindowAux::new().background_pixel(screen.white_pixel).event_mask(EventMask::BUTTON_PRESS | EventMask::BUTTON_RELEASE),
    )
    .expect("create window");
    conn.map_window(win).expect("map");
    conn.sync().expect("sync");
    let (presses, releases, stop) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)), Arc::new(AtomicBool::new(false)));
    let (p, r, s) = (Arc::clone(&presses), Arc::clone(&releases), Arc::clone(&stop));
    let thread = std::thread::Builder::new()
        .name("x-test-window".into())
        .spawn(move || {
            while !s.load(Ordering::Relaxed) {
                match conn.poll_for_event() {
                    Ok(Some(XEvent::ButtonPress(e))) if e.detail == 1 => {
                        p.fetch_add(1, Ordering::SeqCst);
                    }
                    Ok(Some(XEvent::ButtonRelease(e))) if e.detail == 1 => {
                        r.fetch_add(1, Ordering::SeqCst);
                    }
                    Ok(Some(_)) => {}
                    Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                    Err(_) => return,
                }
            }
        })
        .expect("thread");
    Window { presses, releases, stop, thread: Some(thread) }
}

impl Window {
    /// Stops listening after the server has delivered everything sent so far.
    fn finish(mut self) -> (usize, usize) {
        std::thread::sleep(Duration::from_millis(300));
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        (self.presses.load(Ordering::SeqCst), self.releases.load(Ordering::SeqCst))
    }
}

/// A clip whose user clicks twice with the brows, pauses with a long raise,
/// raises once while paused, resumes, clicks, and then leaves the camera's view.
fn raise(start_ms: f64, hold_ms: f64) -> ScriptEvent {
    ScriptEvent { start_ms, action: Action::Raise { amp: 0.12, hold_ms } }
}

fn clip(dir: &Path) {
    let mut cfg = SynthConfig::demo();
    cfg.duration_s = 17.0;
    cfg.motion_px = (30.0, 15.0);
    cfg.script = vec![
        ScriptEvent { start_ms: 800.0, action: Action::Blink { closed_ms: 80.0 } },
        raise(3800.0, 450.0),
        raise(5400.0, 1900.0), // pause
        raise(8200.0, 400.0),  // while paused: nothing
        raise(9400.0, 1900.0), // resume
        raise(12000.0, 450.0),
        ScriptEvent { start_ms: 15800.0, action: Action::Blink { closed_ms: 80.0 } },
    ];
    cfg.gone = vec![(13200.0, 14400.0)];
    synth::write_sequence(FaceAsset::load(&synth::default_photo()).expect("photo"), &cfg, dir).expect("clip");
}

#[test]
fn replay_drive_clicks_the_real_desktop_exactly_as_the_trace_says() {
    let Some(x) = xvfb() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    clip(tmp.path());
    let win = window(&x.display);
    let trace = tmp.path().join("t.jsonl");
    let out = facemouse(&x, &tmp.path().join("config"))
                .args(["replay", "--drive", "--trace"])
        .arg(&trace)
        .arg(tmp.path().join("video.avi"))
        .output()
        .expect("facemouse");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (presses, releases) = win.finish();

    let records = facemouse::lab::eval::read_trace(&trace).expect("trace");
    let clicks: Vec<usize> = records.iter().enumerate().filter(|(_, r)| r.events.contains(&Event::ClickLeft)).map(|(i, _)| i).collect();
    assert!(clicks.len() >= 2, "the clip's raises click: {clicks:?}");
    assert_eq!(presses, clicks.len(), "one press on the window per click_left in the trace");
    assert_eq!(releases, presses, "every press released");

    // No click while lost, searching or paused.
    let mut paused = false;
    for r in &records {
        if r.events.contains(&Event::Pause) {
            paused = true;
        }
        if r.events.contains(&Event::Resume) {
            paused = false;
        }
        if r.events.contains(&Event::ClickLeft) {
            assert_eq!(r.state, TrackState::Tracking, "frame {}: a click while {:?}", r.frame, r.state);
            assert!(!paused, "frame {}: a click while paused", r.frame);
        }
    }
    assert!(records.iter().any(|r| r.events.contains(&Event::Pause)), "the long raise paused");
    assert!(records.iter().any(|r| r.state == TrackState::Lost), "the face left the view");

    // The real pointer is where the trace says.
    let loc = Command::new("xdotool").env("DISPLAY", &x.display).arg("getmouselocation").output().expect("xdotool");
    let text = String::from_utf8_lossy(&loc.stdout).to_string();
    let field = |k: &str| -> i64 {
        text.split_whitespace().find_map(|w| w.strip_prefix(k)).and_then(|v| v.parse().ok()).unwrap_or(-1)
    };
    let last = records.iter().rev().find_map(|r| r.pointer).expect("a pointer");
    assert!((field("x:") - last[0].round() as i64).abs() <= 1 && (field("y:") - last[1].round() as i64).abs() <= 1, "xdotool {text} vs trace {last:?}");

    assert_no_button_held(&x.display);
}

fn assert_no_button_held(display: &str) {
    let (conn, screen) = x11rb::connect(Some(display)).expect("connect");
    let root = conn.setup().roots[screen].root;
    let q = conn.query_pointer(root).expect("query").reply().expect("reply");
    assert_eq!(u16::from(q.mask) & 0x1f00, 0, "buttons held: {:?}", q.mask);
}

/// A drag is under way (the left button held) when the user's session is
/// ended with SIGTERM, Ctrl-C (SIGINT), SIGHUP or SIGQUIT: the button is released.
#[test]
fn a_signal_during_a_drag_leaves_no_button_pressed() {
    let Some(x) = xvfb() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut cfg = SynthConfig::demo();
    cfg.duration_s = 10.0;
    cfg.motion_px = (20.0, 10.0);
    cfg.script = vec![ScriptEvent { start_ms: 800.0, action: Action::Blink { closed_ms: 80.0 } }, raise(3600.0, 450.0)];
    synth::write_sequence(FaceAsset::load(&synth::default_photo()).expect("photo"), &cfg, tmp.path()).expect("clip");
    default_profile(&tmp.path().join("config"), "[switch]\nbrow_raise = \"drag_toggle\"\n");
    for signal in ["TERM", "INT", "HUP", "QUIT"] {
        let win = window(&x.display);
        let trace = tmp.path().join(format!("{signal}.jsonl"));
        let mut child = facemouse(&x, &tmp.path().join("config"))
                        .args(["replay", "--drive", "--realtime", "--trace"])
            .arg(&trace)
            .arg(tmp.path().join("video.avi"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("facemouse");
        // The drag starts when the brows come down at about 4.1 s of the
        // 10 s clip; with the other test groups on the same two cores it
        // came later than a fixed 6.5 s once. The signal goes once it holds.
        let (conn, screen) = x11rb::connect(Some(&x.display)).expect("connect");
        let root = conn.setup().roots[screen].root;
        let started = Instant::now();
        let held = loop {
            let held = u16::from(conn.query_pointer(root).expect("query").reply().expect("reply").mask) & 0x100 != 0;
            if held || started.elapsed() > Duration::from_secs(9) {
                break held;
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        assert!(held, "SIG{signal}: the drag holds the left button before the signal");
        std::thread::sleep(Duration::from_millis(300));
        let status = Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().expect("kill");
        assert!(status.success());
        let exit = child.wait().expect("wait");
        assert!(exit.success(), "SIG{signal}: a clean exit, got {exit:?}");
        let (presses, releases) = win.finish();
        assert_eq!((presses, releases), (1, 1), "SIG{signal}: one press, released");
        assert_no_button_held(&x.display);
        let records = facemouse::lab::eval::read_trace(&trace).expect("trace");
        assert!(records.iter().any(|r| r.events.contains(&Event::DragStart)));
        assert!(records.len() < cfg.frames(), "SIG{signal} ended the replay early");
    }
}

/// A panic with a button held unwinds through the desktop sink, which releases it.
#[test]
fn a_panic_with_a_button_held_releases_it() {
    use facemouse::output::{Button, Command as Cmd, DesktopSink, PointerSink};
    let Some(x) = xvfb() else { return };
    let display = x.display.clone();
    let result = std::thread::spawn(move || {
        let mut sink = DesktopSink::with_display(Some(&display)).expect("sink");
        sink.apply(&Cmd::MoveTo { x: 100.0, y: 100.0 }).expect("move");
        sink.apply(&Cmd::Press(Button::Left)).expect("press");
        let (conn, screen) = x11rb::connect(Some(&display)).expect("connect");
        let root = conn.setup().roots[screen].root;
        let mask = u16::from(conn.query_pointer(root).expect("query").reply().expect("reply").mask);
        assert!(mask & 0x100 != 0, "the button is held before the panic");
        panic!("a bug somewhere while dragging");
    })
    .join();
    assert!(result.is_err(), "the thread panicked");
    assert_no_button_held(&x.display);
}

/// Two monitors side by side on one X screen, as RandR reports a dual-head
/// desktop: Facemouse finds both, from the left, and "next monitor" puts the
/// real pointer on the centre of each in turn.
#[test]
fn two_monitors_are_found_and_next_monitor_moves_the_pointer_across() {
    use facemouse::output::{Command as Cmd, DesktopSink, PointerSink};
    use facemouse::pointer::{PointerMapper, PointerSettings, ScreenArea};
    use x11rb::protocol::randr::{ConnectionExt as _, MonitorInfo};
    let Some(x) = xvfb_with("2560x800x24") else { return };
    let (conn, screen) = x11rb::connect(Some(&x.display)).expect("connect");
    let root = conn.setup().roots[screen].root;
    // Declared right one first: the numbering is by place, not by order.
    for (name, x0) in [("FM-RIGHT", 1280), ("FM-LEFT", 0)] {
        let atom = conn.intern_atom(false, name.as_bytes()).expect("intern").reply().expect("atom").atom;
        let info = MonitorInfo { name: atom, primary: x0 == 0, automatic: false, x: x0, y: 0, width: 1280, height: 800, width_in_millimeters: 340, height_in_millimeters: 210, outputs: vec![] };
        conn.randr_set_monitor(root, info).expect("set monitor").check().expect("the X server takes the monitor");
    }
    let mut sink = DesktopSink::with_display(Some(&x.display)).expect("sink");
    let desktop = sink.desktop();
    let area = |x, width| ScreenArea { x, y: 0, width, height: 800 };
    assert_eq!((desktop.width, desktop.height), (2560, 800));
    assert_eq!(desktop.monitors, vec![area(0, 1280), area(1280, 1280)]);

    let mut settings = PointerSettings::default();
    desktop.fit(&mut settings);
    let mut mapper = PointerMapper::new(&settings);
    for (want, at) in [((1, 2), (640, 400)), ((2, 2), (1920, 400)), ((1, 2), (640, 400))] {
        assert_eq!(mapper.next_monitor(), Some(want));
        let p = mapper.position();
        sink.apply(&Cmd::MoveTo { x: p[0], y: p[1] }).expect("move");
        assert_eq!(pointer_at(&x.display), at, "monitor {want:?}");
    }
}

/// Where the X pointer is.
fn pointer_at(display: &str) -> (i16, i16) {
    let (conn, screen) = x11rb::connect(Some(display)).expect("connect");
    let root = conn.setup().roots[screen].root;
    let p = conn.query_pointer(root).expect("query").reply().expect("reply");
    (p.root_x, p.root_y)
}

/// Runs `facemouse ARGS` on the display until it exits, `limit` passes, or
/// (unless `to_the_end`) the X pointer has been at 20 places; returns the
/// places seen (up to 20) and how it exited.
fn pointer_places(x: &Xvfb, config: &Path, args: &[&std::ffi::OsStr], limit: Duration, to_the_end: bool) -> (Vec<(i16, i16)>, Option<std::process::ExitStatus>) {
    let mut child = facemouse(x, config)
                .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("facemouse");
    let mut places = vec![pointer_at(&x.display)];
    let deadline = Instant::now() + limit;
    let mut status = None;
    while Instant::now() < deadline && (to_the_end || places.len() < 20) {
        std::thread::sleep(Duration::from_millis(100));
        let p = pointer_at(&x.display);
        if places.last() != Some(&p) && places.len() < 20 {
            places.push(p);
        }
        if let Ok(Some(s)) = child.try_wait() {
            status = Some(s);
            break;
        }
    }
    if status.is_none() {
        let _ = child.kill();
    }
    let _ = child.wait();
    (places, status)
}

/// `--source VIDEO --drive` stands a recording in for the camera, in the
/// window and headless, and moves the real pointer; without `--drive` the
/// recording is only shown.
#[test]
fn a_recording_as_the_camera_moves_the_real_pointer_only_with_drive() {
    let Some(x) = xvfb() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    clip(tmp.path());
    let video = tmp.path().join("video.avi");
    let config = tmp.path().join("config");
    let os = |s: &'static str| std::ffi::OsStr::new(s);
    // Headless, once: it ends by itself, having moved the pointer.
    let (places, status) = pointer_places(&x, &config, &[os("--headless"), os("--source"), video.as_os_str(), os("--once"), os("--drive")], Duration::from_secs(90), true);
    assert!(places.len() >= 5, "the pointer follows the head: {places:?}");
    assert!(status.is_some_and(|s| s.success()), "--once ends at the end of the recording: {status:?}");
    // The window, looping: the pointer moves as well.
    let (places, _) = pointer_places(&x, &config, &[os("--source"), video.as_os_str(), os("--drive")], Duration::from_secs(30), false);
    assert!(places.len() >= 5, "the window's session drives the pointer: {places:?}");
    // Without --drive: shown, never driving.
    let (places, _) = pointer_places(&x, &config, &[os("--headless"), os("--source"), video.as_os_str(), os("--once")], Duration::from_secs(90), true);
    assert_eq!(places.len(), 1, "the pointer stays where it was: {places:?}");
    assert_no_button_held(&x.display);
}

/// TERM, INT, HUP and QUIT (a logout, `kill`, Ctrl-C, Ctrl-\) close the
/// window as its close button does: exit 0, nothing left pressed (it died
/// with 143, 130, 129, and a core dump).
#[test]
fn the_window_closes_cleanly_on_termination_signals() {
    let Some(x) = xvfb() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    clip(tmp.path());
    for sig in ["TERM", "INT", "HUP", "QUIT"] {
        let mut child = facemouse(&x, &tmp.path().join("config"))
                        .arg("--source")
            .arg(tmp.path().join("video.avi"))
            .arg("--drive")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("facemouse");
        std::thread::sleep(Duration::from_secs(4));
        let sent = Command::new("kill").arg(format!("-{sig}")).arg(child.id().to_string()).status().expect("kill");
        assert!(sent.success());
        let deadline = Instant::now() + Duration::from_secs(15);
        let status = loop {
            if let Ok(Some(s)) = child.try_wait() {
                break Some(s);
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        assert!(status.is_some_and(|s| s.success()), "SIG{sig}: {status:?}");
        assert_no_button_held(&x.display);
    }
}

/// A run killed during a drag leaves the left button held in the X server
/// (SIGKILL cannot be caught). The next start releases it.
#[test]
fn a_button_left_held_by_a_killed_run_is_released_at_the_next_start() {
    let Some(x) = xvfb() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let down = Command::new("xdotool").env("DISPLAY", &x.display).args(["mousedown", "1"]).status();
    if !down.is_ok_and(|s| s.success()) {
        eprintln!("skipped: xdotool is not installed (make test installs it)");
        return;
    }
    let (conn, screen) = x11rb::connect(Some(&x.display)).expect("connect");
    let root = conn.setup().roots[screen].root;
    let mask = conn.query_pointer(root).expect("query").reply().expect("reply").mask;
    assert_ne!(u16::from(mask) & 0x100, 0, "the button is held before the start");
    // Any driving start: a one-frame replay is enough.
    let frames = tmp.path().join("frames");
    std::fs::create_dir_all(&frames).expect("dir");
    std::fs::copy(synth::default_photo(), frames.join("0001.png")).expect("frame");
    let out = facemouse(&x, &tmp.path().join("config"))
                .args(["replay", "--drive"])
        .arg(&frames)
        .output()
        .expect("facemouse");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("left mouse button was left held"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_no_button_held(&x.display);
}

/// A button held by someone else (a killed run's drag, here the middle
/// button pressed from outside) is released when the user pauses.
#[test]
fn a_pause_releases_a_button_held_by_someone_else() {
    let Some(x) = xvfb() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    clip(tmp.path());
    let mut child = facemouse(&x, &tmp.path().join("config"))
                .args(["replay", "--drive", "--realtime"])
        .arg(tmp.path().join("video.avi"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("facemouse");
    // After the start (which repairs once), before the long raise that pauses at about 7.3 s.
    std::thread::sleep(Duration::from_millis(2500));
    let down = Command::new("xdotool").env("DISPLAY", &x.display).args(["mousedown", "2"]).status();
    if !down.is_ok_and(|s| s.success()) {
        let _ = child.kill();
        let _ = child.wait();
        eprintln!("skipped: xdotool is not installed (make test installs it)");
        return;
    }
    let status = child.wait().expect("wait");
    assert!(status.success());
    assert_no_button_held(&x.display);
}

/// With a window open, a second Facemouse that would drive the pointer (a
/// window, or headless) is refused in one line: two would fight over the
/// pointer. A second window that only shows a recording opens, with the
/// profile read-only, and says so: two would overwrite each other's settings.
#[test]
fn a_second_driver_is_refused_and_a_second_window_gets_the_profile_read_only() {
    let Some(x) = xvfb() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let clip = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/clip/video.avi");
    // The first window covers the screen and the recording moves its
    // pointer: with the usual 1 s dwell, a rest on one of its own controls
    // once turned "Desktop dwell" on and saved it, and the settings seemed to
    // have been written by the viewer. The longest dwell outlasts the test.
    // The clip's raises and long blink click nothing either: on a loaded
    // machine one clicked a control of the first window under the pointer
    // (a make test of the nineteenth session), and that saved the settings.
    default_profile(&tmp.path().join("config"), "[pointer]\ndwell_ms = 10000.0\n\n[switch]\nbrow_raise = \"none\"\nlong_blink = \"none\"\n");
    let start = || {
        let mut c = facemouse(&x, &tmp.path().join("config"));
        c.arg("--source").arg(&clip);
        c
    };
    // The first window drives (a window that only shows a recording takes
    // no driver's lock: tests/cli.rs).
    let mut first = start().arg("--drive").stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("first window");
    std::thread::sleep(Duration::from_secs(3));
    let second = start().arg("--drive").output().expect("second window");
    let third = start().args(["--headless", "--drive"]).output().expect("headless");
    let log = tmp.path().join("viewer.log");
    let mut viewer = start().stdout(Stdio::null()).stderr(std::fs::File::create(&log).expect("log")).spawn().expect("viewer");
    let settings = tmp.path().join("config/profiles/default/settings.toml");
    let before = std::fs::read(&settings).expect("settings");
    std::thread::sleep(Duration::from_secs(4));
    let viewer_ran = matches!(viewer.try_wait(), Ok(None));
    let _ = viewer.kill();
    let _ = viewer.wait();
    let _ = first.kill();
    let _ = first.wait();
    for out in [second, third] {
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("already running") && err.contains(&format!("process {}", first.id())), "{err}");
    }
    let err = std::fs::read_to_string(&log).expect("viewer log");
    assert!(viewer_ran, "a window that only shows a recording must open beside the first: {err}");
    assert!(err.contains("read-only") && err.contains(&format!("process {}", first.id())), "{err}");
    assert_eq!(std::fs::read(&settings).expect("settings"), before);
}

/// The user's application: a plain 300×200 window named "users-app" at
/// (`x`, `y`), mapped; its connection (the window lives as long as it) and id.
fn users_app(x: &Xvfb, at_x: i16, at_y: i16) -> (x11rb::rust_connection::RustConnection, String) {
    let (conn, screen_num) = x11rb::connect(Some(&x.display)).expect("connect");
    let screen = &conn.setup().roots[screen_num];
    let app = conn.generate_id().expect("id");
    conn.create_window(screen.root_depth, app, screen.root, at_x, at_y, 300, 200, 0, WindowClass::INPUT_OUTPUT, screen.root_visual, &CreateWindowAux::new().background_pixel(screen.white_pixel))
        .expect("create");
    conn.change_property8(x11rb::protocol::xproto::PropMode::REPLACE, app, x11rb::protocol::xproto::AtomEnum::WM_NAME, x11rb::protocol::xproto::AtomEnum::STRING, b"users-app")
        .expect("name");
    conn.map_window(app).expect("map");
    conn.sync().expect("sync");
    std::thread::sleep(Duration::from_millis(500));
    (conn, app.to_string())
}

/// The menu types into the user's application, so neither of our windows
/// keeps the keyboard focus: with a window manager, the user's window (here a
/// test window) still has the focus after the window and its menu open and
/// after clicks on both, as the switch clicks; the menu window says so in
/// its WM_HINTS (input false).
#[test]
fn neither_window_takes_the_keyboard_focus_from_the_users_application() {
    let Some(x) = xvfb() else { return };
    let Some(mut wm) = common::openbox(&x) else { return };
    // The user's application: a window of its own, focused.
    let (_conn, app_id) = users_app(&x, 900, 560);
    let focus_app = || xdotool(&x, &["windowactivate", "--sync", &app_id]);
    if focus_app().is_none() {
        let _ = wm.kill();
        eprintln!("skipped: xdotool is not installed (make test installs it)");
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let clip = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/clip/video.avi");
    let mut fm = facemouse(&x, &tmp.path().join("config")).arg("--source").arg(&clip).arg("--show-menu").stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("facemouse");
    std::thread::sleep(Duration::from_secs(8));
    let menu = xdotool(&x, &["search", "--name", "^Facemouse menu$"]).unwrap_or_default();
    let main = xdotool(&x, &["search", "--name", "^Facemouse$"]).unwrap_or_default();
    let hints = Command::new("xprop").env("DISPLAY", &x.display).args(["-id", menu.lines().next().unwrap_or("0"), "WM_HINTS"]).output().map(|o| String::from_utf8_lossy(&o.stdout).to_string()).unwrap_or_default();
    // Launching may have focused the new window; the user's application has it now.
    focus_app();
    let mut focus_after = Vec::new();
    for win in [&menu, &main] {
        let id = win.lines().next().unwrap_or("0").to_string();
        let geometry = xdotool(&x, &["getwindowgeometry", "--shell", &id]).unwrap_or_default();
        let field = |k: &str| geometry.lines().find_map(|l| l.strip_prefix(k)).and_then(|v| v.parse::<i32>().ok()).unwrap_or(0);
        let (cx, cy) = (field("X=") + field("WIDTH=") / 2, field("Y=") + field("HEIGHT=") / 3);
        let _ = xdotool(&x, &["mousemove", &cx.to_string(), &cy.to_string(), "click", "1"]);
        std::thread::sleep(Duration::from_millis(800));
        focus_after.push(xdotool(&x, &["getwindowfocus"]).unwrap_or_default());
    }
    let _ = fm.kill();
    let _ = fm.wait();
    let _ = wm.kill();
    let _ = wm.wait();
    assert!(!menu.is_empty() && !main.is_empty(), "both windows are up: menu {menu:?}, main {main:?}");
    assert!(hints.contains("input focus: False"), "the menu window's WM_HINTS: {hints}");
    for f in focus_after {
        assert_eq!(f, app_id, "a click on our window took the keyboard focus");
    }
}

/// A key (as a USB switch sends) and a switch mouse button work as the
/// switch, besides the face: each press is one action, here a right click
/// (the face's own gestures are unbound, so every click seen is a press).
#[test]
fn a_key_or_a_switch_button_is_the_switch() {
    let Some(x) = xvfb_with_xdotool() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    default_profile(&tmp.path().join("config"), "[switch]\nbrow_raise = \"none\"\nlong_blink = \"none\"\nexternal_key = \"f12\"\nexternal_button = 9\nexternal = \"click_right\"\n");
    let clip = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/clip/video.avi");
    let mut child = facemouse(&x, &tmp.path().join("config")).arg("--headless").arg("--source").arg(&clip).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("facemouse");
    let out = child.stdout.take().expect("stdout");
    let lines = std::thread::Builder::new()
        .name("read-stdout".into())
        .spawn(move || std::io::BufRead::lines(std::io::BufReader::new(out)).map_while(Result::ok).collect::<Vec<String>>())
        .expect("reader");
    std::thread::sleep(Duration::from_secs(3));
    let _ = xdotool(&x, &["key", "F12"]);
    std::thread::sleep(Duration::from_millis(1200));
    let _ = xdotool(&x, &["click", "9"]);
    std::thread::sleep(Duration::from_millis(1200));
    let _ = Command::new("kill").arg("-INT").arg(child.id().to_string()).status();
    let status = child.wait().expect("wait");
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut err);
    }
    let lines = lines.join().expect("lines");
    let presses = lines.iter().filter(|l| l.contains("click_right")).count();
    assert!(status.success(), "{err}");
    assert_eq!(presses, 2, "one action per press of the key and of the button: {lines:?} {err}");
}

/// The menu window docks to the edge the profile names (bottom by default),
/// the whole edge long, inside the screen: it never covers the middle of the
/// screen, where the text being typed is.
#[test]
fn the_menu_window_docks_to_the_chosen_edge_inside_the_screen() {
    let Some(x) = xvfb_with_xdotool() else { return };
    let clip = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/clip/video.avi");
    for (dock, expect) in [("bottom", "bottom"), ("right", "right")] {
        let tmp = tempfile::tempdir().expect("tempdir");
        default_profile(&tmp.path().join("config"), &format!("[ui]\nmenu_dock = \"{dock}\"\n"));
        let mut fm = facemouse(&x, &tmp.path().join("config")).arg("--source").arg(&clip).arg("--show-menu").stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("facemouse");
        std::thread::sleep(Duration::from_secs(7));
        let id = xdotool(&x, &["search", "--name", "^Facemouse menu$"]).unwrap_or_default();
        let geometry = xdotool(&x, &["getwindowgeometry", "--shell", id.lines().next().unwrap_or("0")]).unwrap_or_default();
        let _ = fm.kill();
        let _ = fm.wait();
        let field = |k: &str| geometry.lines().find_map(|l| l.strip_prefix(k)).and_then(|v| v.parse::<i32>().ok()).unwrap_or(-1);
        let (gx, gy, w, h) = (field("X="), field("Y="), field("WIDTH="), field("HEIGHT="));
        assert!(gx >= 0 && gy >= 0 && gx + w <= 1280 && gy + h <= 800, "{dock}: inside the 1280×800 screen: {geometry}");
        match expect {
            "bottom" => assert!(w >= 1270 && gy + h >= 790 && h <= 420, "{dock}: {geometry}"),
            _ => assert!(h >= 790 && gx + w >= 1270 && w <= 640, "{dock}: {geometry}"),
        }
    }
}

/// Where the inside of the window named `name` (a regular expression) lies
/// on the screen: x, y, width and height (-1 where unknown), and
/// `xwininfo`'s words. xwininfo's absolute place: under a reparenting
/// window manager xdotool's counts the frame's offset twice.
fn inside_on_screen(x: &Xvfb, name: &str) -> ([i32; 4], String) {
    // (No window yet: none asked about; `xwininfo -id 0` waits for a click.)
    let Some(id) = xdotool(x, &["search", "--name", name]).and_then(|w| w.lines().next().map(str::to_string)) else {
        return ([-1; 4], format!("no window named {name}"));
    };
    let geometry = std::process::Command::new("xwininfo")
        .env("DISPLAY", &x.display)
        .args(["-id", &id])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).to_string())
        .unwrap_or_default();
    let field = |k: &str| geometry.lines().find_map(|l| l.trim().strip_prefix(k)).and_then(|v| v.trim().parse::<i32>().ok()).unwrap_or(-1);
    ([field("Absolute upper-left X:"), field("Absolute upper-left Y:"), field("Width:"), field("Height:")], geometry)
}

/// The main window, title bar and all, fills a small screen and lies on
/// it, its last row of controls and its figures with it. Asked to start
/// maximized only as it was made, it was not (X11 window managers ignore
/// the state set before a window is mapped): its 1280×800 inside sat under
/// a 20-pixel title bar, reaching 20 pixels below a 1024×768 screen's
/// bottom edge, out of a head pointer's reach.
#[test]
fn the_main_window_fills_a_small_screen_with_its_title_bar_on_it() {
    let Some(x) = common::xvfb_sized_with_xdotool("1024x768x24") else { return };
    let Some(mut wm) = common::openbox(&x) else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let clip = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/clip/video.avi");
    let mut fm = facemouse(&x, &tmp.path().join("config")).arg("--source").arg(&clip).stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("facemouse");
    let fits = |[gx, gy, w, h]: [i32; 4]| gy > 0 && gx >= 0 && gx + w <= 1024 && gy + h <= 768 && w >= 1000 && h >= 700;
    let started = Instant::now();
    let mut seen = inside_on_screen(&x, "^Facemouse$");
    while !fits(seen.0) && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(300));
        seen = inside_on_screen(&x, "^Facemouse$");
    }
    let _ = fm.kill();
    let _ = fm.wait();
    let _ = wm.kill();
    let _ = wm.wait();
    assert!(fits(seen.0), "the main window's inside, under its title bar, fills the 1024×768 screen and stays on it: {:?}\n{}", seen.0, seen.1);
}

/// With a window manager that gives each window a title bar, the docked
/// menu, its frame and all, stays on the screen: placed by its frame and
/// sized by its inside, it reached 20 pixels (the title bar) under the
/// screen's bottom edge, where a side dock's navigation row is; and the main
/// window, pushed aside, keeps its frame on the screen too.
#[test]
fn the_docked_menu_and_its_title_bar_stay_on_the_screen() {
    let Some(x) = xvfb_with_xdotool() else { return };
    let Some(mut wm) = common::openbox(&x) else { return };
    let clip = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/clip/video.avi");
    let mut seen = Vec::new();
    for dock in ["bottom", "right"] {
        let tmp = tempfile::tempdir().expect("tempdir");
        default_profile(&tmp.path().join("config"), &format!("[ui]\nmenu_dock = \"{dock}\"\n"));
        let mut fm = facemouse(&x, &tmp.path().join("config")).arg("--source").arg(&clip).arg("--show-menu").stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("facemouse");
        std::thread::sleep(Duration::from_secs(7));
        for name in ["^Facemouse menu$", "^Facemouse$"] {
            let ([gx, gy, w, h], geometry) = inside_on_screen(&x, name);
            // The inside, under its title bar, within the 1280×800 screen.
            assert!(gy > 0, "{dock}, {name}: a title bar above it: {geometry}");
            assert!(gx >= 0 && gx + w <= 1280 && gy + h <= 800, "{dock}, {name}: inside the 1280×800 screen with its frame: {geometry}");
            seen.push((dock, name, gy + h));
        }
        let _ = fm.kill();
        let _ = fm.wait();
    }
    let _ = wm.kill();
    let _ = wm.wait();
    // The menu still reaches the screen's bottom edge (within its frame's border).
    assert!(seen.iter().filter(|s| s.1 == "^Facemouse menu$").all(|s| s.2 >= 790), "{seen:?}");
}

/// At a large zoom the docked menu, whose inside is never less than 200
/// points across its strip, still lies on the screen, its navigation row
/// (Close among it) with it: at zoom 2.5 on a 1280×800 screen the bottom
/// strip is 128 points, the inside was made 200 at the strip's top, and
/// its lower 80 points lay under the screen's bottom edge.
#[test]
fn at_a_large_zoom_the_docked_menu_stays_on_the_screen() {
    let Some(x) = xvfb_with_xdotool() else { return };
    let Some(mut wm) = common::openbox(&x) else { return };
    let clip = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/clip/video.avi");
    for dock in ["bottom", "right"] {
        let tmp = tempfile::tempdir().expect("tempdir");
        default_profile(&tmp.path().join("config"), &format!("[ui]\nzoom = 2.5\nmenu_dock = \"{dock}\"\n"));
        let mut fm = facemouse(&x, &tmp.path().join("config")).arg("--source").arg(&clip).arg("--show-menu").stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("facemouse");
        let on_screen = |[gx, gy, w, h]: [i32; 4]| gx >= 0 && gy > 0 && gx + w <= 1280 && gy + h <= 800 && w >= 300 && h >= 300;
        // Placed once its frame is known: give it the time it takes, as the
        // docked menu's test above does.
        std::thread::sleep(Duration::from_secs(7));
        let seen = inside_on_screen(&x, "^Facemouse menu$");
        let _ = fm.kill();
        let _ = fm.wait();
        assert!(on_screen(seen.0), "{dock}: the menu, title bar and all, on the 1280×800 screen at zoom 2.5: {:?}\n{}", seen.0, seen.1);
    }
    let _ = wm.kill();
    let _ = wm.wait();
}

/// Restarted ten times, Facemouse leaves the keyboard focus with the user's
/// application: after a restart, the menu took it the first time it opened
/// in 2 of 5 launches (and kept it: a whole sentence typed by the menu went
/// nowhere) and the toolbar once. A window manager may hand a new window
/// the focus as it appears (X11 has no hint for that before the window
/// exists): it must come back within half a second, by itself, and stay.
#[test]
fn the_users_window_keeps_the_focus_across_ten_restarts() {
    let Some(x) = xvfb() else { return };
    let Some(mut wm) = common::openbox(&x) else { return };
    let (_conn, app_id) = users_app(&x, 500, 300);
    if xdotool(&x, &["windowactivate", "--sync", &app_id]).is_none() {
        let _ = wm.kill();
        eprintln!("skipped: xdotool is not installed (make test installs it)");
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let config = tmp.path().join("config");
    default_profile(&config, "[ui]\nclick_toolbar = true\n");
    let clip = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/clip/video.avi");
    let mut problems = Vec::new();
    for launch in 0..10 {
        let mut fm = facemouse(&x, &config).arg("--source").arg(&clip).arg("--show-menu").stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("facemouse");
        // Watch the focus while the three windows appear and for 3 s after.
        let started = Instant::now();
        let (mut all_up, mut away_since, mut longest) = (None, None::<Instant>, Duration::ZERO);
        while started.elapsed() < Duration::from_secs(15) {
            let focus = xdotool(&x, &["getwindowfocus"]).unwrap_or_default();
            if focus == app_id {
                away_since = None;
            } else {
                let since = *away_since.get_or_insert_with(Instant::now);
                longest = longest.max(since.elapsed());
            }
            if all_up.is_none() && ["^Facemouse$", "^Facemouse menu$", "^Facemouse clicks$"].iter().all(|n| xdotool(&x, &["search", "--name", n]).is_some_and(|w| !w.trim().is_empty())) {
                all_up = Some(Instant::now());
            }
            if all_up.is_some_and(|t| t.elapsed() > Duration::from_secs(3)) {
                break;
            }
            std::thread::sleep(Duration::from_millis(40));
        }
        let last = xdotool(&x, &["getwindowfocus"]).unwrap_or_default();
        let _ = fm.kill();
        let _ = fm.wait();
        assert!(all_up.is_some(), "launch {launch}: the window, the menu and the toolbar came up");
        if last != app_id || longest > Duration::from_millis(500) {
            let name = xdotool(&x, &["getwindowname", &last]).unwrap_or_default();
            problems.push(format!("launch {launch}: focus away for up to {} ms, now on {name:?}", longest.as_millis()));
        }
        let _ = xdotool(&x, &["windowactivate", "--sync", &app_id]);
    }
    let _ = wm.kill();
    let _ = wm.wait();
    assert!(problems.is_empty(), "{problems:?}");
}

/// With the menu docked and the click toolbar shown, other windows are told
/// to keep out of their strips (`_NET_WM_STRUT_PARTIAL`): the window
/// manager's work area shrinks by them. The bottom dock covered every
/// control of the main window, and the toolbar the left 240 px of
/// applications, with nothing making room for them.
#[test]
fn the_docked_menu_and_the_toolbar_keep_other_windows_out_of_their_strips() {
    let Some(x) = xvfb() else { return };
    let Some(mut wm) = common::openbox(&x) else { return };
    let workarea = || -> Option<Vec<u32>> {
        let out = Command::new("xprop").env("DISPLAY", &x.display).args(["-root", "_NET_WORKAREA"]).output().ok()?;
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        Some(text.split('=').nth(1)?.split(',').take(4).filter_map(|v| v.trim().parse().ok()).collect())
    };
    let Some(before) = workarea().filter(|w| w.len() == 4) else {
        let _ = wm.kill();
        eprintln!("skipped: xprop or the window manager's work area is not available");
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let config = tmp.path().join("config");
    default_profile(&config, "[ui]\nclick_toolbar = true\nmenu_dock = \"bottom\"\n");
    let clip = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/clip/video.avi");
    let mut fm = facemouse(&x, &config).arg("--source").arg(&clip).arg("--show-menu").stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("facemouse");
    let started = Instant::now();
    let mut after = before.clone();
    // The strut thread waits up to a minute for the window to settle.
    while started.elapsed() < Duration::from_mins(1) {
        std::thread::sleep(Duration::from_millis(250));
        if let Some(w) = workarea().filter(|w| w.len() == 4) {
            after = w;
            if after[2] < before[2] && after[3] < before[3] {
                break;
            }
        }
    }
    let _ = fm.kill();
    let _ = fm.wait();
    let _ = wm.kill();
    let _ = wm.wait();
    assert_eq!(before, vec![0, 0, 1280, 800], "the whole screen before");
    assert!(after[3] < before[3] - 100, "the bottom dock's strip is kept free: {after:?}");
    assert!(after[2] < before[2] - 100, "the toolbar's column is kept free: {after:?}");
}

/// The calibration wizard's targets reach the screen's edges: the window
/// covers the whole screen while it runs (its targets covered only the
/// window, 1280×800 of a larger screen, and not its edges).
#[test]
fn the_calibration_wizard_covers_the_whole_screen() {
    let Some(x) = xvfb_with("1600x900x24") else { return };
    let Some(mut wm) = common::openbox(&x) else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let clip = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/clip/video.avi");
    let mut fm = facemouse(&x, &tmp.path().join("config")).arg("--source").arg(&clip).arg("--calibrate").stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("facemouse");
    let started = Instant::now();
    let mut geometry = String::new();
    while started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(300));
        let Some(id) = xdotool(&x, &["search", "--name", "^Facemouse$"]).and_then(|w| w.lines().next().map(str::to_string)) else { continue };
        geometry = xdotool(&x, &["getwindowgeometry", "--shell", &id]).unwrap_or_default();
        if geometry.contains("WIDTH=1600") && geometry.contains("HEIGHT=900") && geometry.contains("X=0") && geometry.contains("Y=0") {
            break;
        }
    }
    let _ = fm.kill();
    let _ = fm.wait();
    let _ = wm.kill();
    let _ = wm.wait();
    if geometry.is_empty() {
        eprintln!("skipped: xdotool is not installed (make test installs it)");
        return;
    }
    for want in ["X=0", "Y=0", "WIDTH=1600", "HEIGHT=900"] {
        assert!(geometry.lines().any(|l| l == want), "{want} while calibrating: {geometry}");
    }
}
