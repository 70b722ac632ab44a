//! What the tests on a real X display share: a private Xvfb for each test
//! (on a display number the server picks itself, so tests run side by
//! side), a profile to start with, the `facemouse` binary on that display,
//! and xdotool; and what the vision tests share.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Xvfb {
    child: Child,
    pub display: String,
}

impl Drop for Xvfb {
    /// SIGTERM first, so that Xvfb removes its lock file (a SIGKILL leaves
    /// `/tmp/.XN-lock` behind, and the display numbers run out over runs).
    fn drop(&mut self) {
        let _ = Command::new("kill").arg("-TERM").arg(self.child.id().to_string()).status();
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The default profile of the config folder `config`, with this `settings.toml`.
pub fn default_profile(config: &Path, settings: &str) {
    let profile = config.join("profiles/default");
    std::fs::create_dir_all(&profile).expect("profile");
    std::fs::write(profile.join("settings.toml"), settings).expect("settings");
}

/// `facemouse` on the private display, with its own config folder and
/// software OpenGL (for the window).
pub fn facemouse(x: &Xvfb, config: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_facemouse"));
    c.env("DISPLAY", &x.display).env(facemouse::profile::CONFIG_DIR_ENV, config).env("LIBGL_ALWAYS_SOFTWARE", "1");
    c
}

/// Starts a private X server, or says why it cannot.
pub fn xvfb() -> Option<Xvfb> {
    xvfb_with("1280x800x24")
}

/// Starts a private X server with a screen of `geometry` (`WxHxDEPTH`).
/// The server picks a free display number itself and writes it on its
/// standard output (`-displayfd`): two tests, or two test binaries, never
/// get the same display, and no lock file is raced for.
pub fn xvfb_with(geometry: &str) -> Option<Xvfb> {
    use std::io::BufRead;
    let Ok(mut child) = Command::new("Xvfb")
        .args(["-displayfd", "1", "-screen", "0", geometry, "-noreset", "-nolisten", "tcp"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        eprintln!("skipped: Xvfb is not installed (make test installs it)");
        return None;
    };
    let mut line = String::new();
    let read = child.stdout.take().map(|out| std::io::BufReader::new(out).read_line(&mut line));
    let Some(num) = read.and_then(Result::ok).and_then(|_| line.trim().parse::<u32>().ok()) else {
        let _ = child.kill();
        let _ = child.wait();
        eprintln!("skipped: Xvfb did not start (it gave no display number)");
        return None;
    };
    let display = format!(":{num}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if matches!(child.try_wait(), Ok(Some(_))) {
            break;
        }
        if x11rb::connect(Some(&display)).is_ok() {
            return Some(Xvfb { child, display });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    eprintln!("skipped: Xvfb on {display} did not answer");
    None
}

/// Runs `xdotool` on the private display; its standard output, trimmed.
pub fn xdotool(x: &Xvfb, args: &[&str]) -> Option<String> {
    let out = Command::new("xdotool").env("DISPLAY", &x.display).args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// A private X server where xdotool works, or says why there is none.
pub fn xvfb_with_xdotool() -> Option<Xvfb> {
    xvfb_sized_with_xdotool("1280x800x24")
}

/// [`xvfb_with_xdotool`] with a screen of `geometry` (`WxHxDEPTH`).
pub fn xvfb_sized_with_xdotool(geometry: &str) -> Option<Xvfb> {
    let x = xvfb_with(geometry)?;
    if xdotool(&x, &["getmouselocation"]).is_none() {
        eprintln!("skipped: xdotool is not installed (make test installs it)");
        return None;
    }
    Some(x)
}

/// A window manager (openbox) on the private display, or says why there is none.
pub fn openbox(x: &Xvfb) -> Option<Child> {
    let Ok(wm) = Command::new("openbox").env("DISPLAY", &x.display).stdout(Stdio::null()).stderr(Stdio::null()).spawn() else {
        eprintln!("skipped: openbox is not installed (make test installs it)");
        return None;
    };
    std::thread::sleep(Duration::from_millis(800));
    Some(wm)
}

/// How far the pointer travelled through `points` (screen pixels).
pub fn pointer_path(points: impl IntoIterator<Item = facemouse::events::Point>) -> f64 {
    let points: Vec<_> = points.into_iter().collect();
    points.windows(2).map(|w| facemouse::events::dist(w[0], w[1])).sum()
}
