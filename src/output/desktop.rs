//! The desktop sink: the OS pointer and keyboard through `enigo` (X11 on Linux,
//! and Windows and macOS where enigo supports them).
//!
//! It remembers which buttons it holds down and releases them when dropped, so
//! a drag never stays pressed after an exit, a signal that ends the run loop, or
//! a panic that unwinds through it.

use enigo::{Axis, Coordinate, Direction, Enigo, Key, Keyboard, Mouse, Settings};

use super::{Button, Command, Held, OutputError, PointerSink};
use crate::settings::ScreenArea;

/// The area the pointer may cover: the whole virtual desktop, and its monitors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Desktop {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
    /// Each monitor, from the left (from the top where they are stacked);
    /// one, the whole desktop, where the system does not tell.
    pub monitors: Vec<ScreenArea>,
}

impl Desktop {
    /// A desktop of one monitor.
    #[must_use]
    pub fn single(width: u32, height: u32) -> Self {
        Self { x: 0, y: 0, width, height, monitors: vec![ScreenArea { x: 0, y: 0, width, height }] }
    }

    /// Makes the pointer map onto this desktop (and know its monitors).
    pub fn fit(&self, p: &mut crate::pointer::PointerSettings) {
        (p.screen_x, p.screen_y, p.screen_width, p.screen_height) = (self.x, self.y, self.width, self.height);
        p.monitors.clone_from(&self.monitors);
    }
}

/// The monitors as the user counts them: from the left, then from the top.
/// A monitor that holds another (a split screen's whole, an X server's
/// automatic monitor beside the ones defined on it) is left out for its
/// parts, and a monitor listed twice counts once.
fn in_reading_order(mut monitors: Vec<ScreenArea>) -> Vec<ScreenArea> {
    let holds = |a: &ScreenArea, b: &ScreenArea| {
        a != b
            && a.x <= b.x
            && a.y <= b.y
            && i64::from(a.x) + i64::from(a.width) >= i64::from(b.x) + i64::from(b.width)
            && i64::from(a.y) + i64::from(a.height) >= i64::from(b.y) + i64::from(b.height)
    };
    let all = monitors.clone();
    monitors.retain(|m| !all.iter().any(|other| holds(m, other)));
    monitors.sort_by_key(|m| (m.x, m.y));
    monitors.dedup();
    monitors
}

/// Drives the real pointer.
pub struct DesktopSink {
    enigo: Enigo,
    held: Held,
    desktop: Desktop,
    /// The X display named at start (`None`: `DISPLAY`).
    display: Option<String>,
}

fn backend(e: impl std::fmt::Display) -> OutputError {
    OutputError::Backend(e.to_string())
}

fn button(b: Button) -> enigo::Button {
    match b {
        Button::Left => enigo::Button::Left,
        Button::Right => enigo::Button::Right,
        Button::Middle => enigo::Button::Middle,
    }
}

/// The virtual desktop: the X root window on Linux (it spans every
/// monitor), and the monitors RandR reports (one, the root, without RandR).
#[cfg(target_os = "linux")]
fn virtual_desktop(_enigo: &Enigo, display: Option<&str>) -> Result<Desktop, OutputError> {
    x11_desktop(display)
}

/// The X11 (or XWayland) desktop and its monitors.
#[cfg(target_os = "linux")]
pub(super) fn x11_desktop(display: Option<&str>) -> Result<Desktop, OutputError> {
    use x11rb::connection::Connection;
    use x11rb::protocol::randr::ConnectionExt as _;
    let (conn, screen) = x11rb::connect(display).map_err(backend)?;
    let root = &conn.setup().roots[screen];
    let mut desktop = Desktop::single(u32::from(root.width_in_pixels), u32::from(root.height_in_pixels));
    let monitors = conn.randr_get_monitors(root.root, true).ok().and_then(|c| c.reply().ok()).map(|r| r.monitors).unwrap_or_default();
    let monitors: Vec<ScreenArea> = monitors
        .iter()
        .filter(|m| m.width > 0 && m.height > 0)
        .map(|m| ScreenArea { x: i32::from(m.x), y: i32::from(m.y), width: u32::from(m.width), height: u32::from(m.height) })
        .collect();
    if !monitors.is_empty() {
        desktop.monitors = in_reading_order(monitors);
    }
    Ok(desktop)
}

#[cfg(not(target_os = "linux"))]
fn virtual_desktop(enigo: &Enigo, _display: Option<&str>) -> Result<Desktop, OutputError> {
    let (w, h) = enigo.main_display().map_err(backend)?;
    Ok(Desktop::single(u32::try_from(w).unwrap_or(0), u32::try_from(h).unwrap_or(0)))
}

impl DesktopSink {
    /// Connects to the desktop.
    ///
    /// # Errors
    /// No display (no X server on Linux: set `DISPLAY`), or no permission.
    pub fn new() -> Result<Self, OutputError> {
        Self::with_display(None)
    }

    /// Connects to a given X display (Linux; `None` is `DISPLAY`).
    ///
    /// # Errors
    /// See [`DesktopSink::new`].
    pub fn with_display(display: Option<&str>) -> Result<Self, OutputError> {
        let settings = Settings { linux_delay: 1, release_keys_when_dropped: true, x11_display: display.map(str::to_string), ..Settings::default() };
        let enigo = Enigo::new(&settings).map_err(|e| OutputError::Backend(format!("{e} (is there a desktop session? on Linux, DISPLAY must name an X server)")))?;
        let desktop = virtual_desktop(&enigo, display)?;
        let mut sink = Self { enigo, held: Held::default(), desktop, display: display.map(str::to_string) };
        sink.release_stuck_buttons(display);
        Ok(sink)
    }

    /// A previous run killed during a drag (SIGKILL, a crash) leaves the
    /// button held in the X server, and a hands-free user cannot release it.
    /// The first time this process opens the desktop, any held button is
    /// released (and said so in the log).
    fn release_stuck_buttons(&mut self, display: Option<&str>) {
        static CHECKED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        if !CHECKED.swap(true, std::sync::atomic::Ordering::SeqCst) {
            self.release_held_in_server(display);
        }
    }

    /// Releases every mouse button the X server reports held.
    #[cfg(target_os = "linux")]
    fn release_held_in_server(&mut self, display: Option<&str>) {
        use x11rb::connection::Connection;
        use x11rb::protocol::xproto::ConnectionExt;
        let display = display.map(str::to_string).or_else(|| self.display.clone());
        let Ok((conn, screen)) = x11rb::connect(display.as_deref()) else { return };
        let root = conn.setup().roots[screen].root;
        let Some(q) = conn.query_pointer(root).ok().and_then(|c| c.reply().ok()) else { return };
        let mask = u16::from(q.mask);
        for (bit, b, name) in [(0x100, Button::Left, "left"), (0x200, Button::Middle, "middle"), (0x400, Button::Right, "right")] {
            if mask & bit != 0 {
                tracing::warn!("the {name} mouse button was left held (by a run that was killed?); releasing it");
                let _ = self.enigo.button(button(b), Direction::Release);
            }
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn release_held_in_server(&mut self, _display: Option<&str>) {}

    /// The desktop the pointer maps onto.
    #[must_use]
    pub fn desktop(&self) -> Desktop {
        self.desktop.clone()
    }

    fn key_chord(&mut self, chord: &crate::command::Chord) -> Result<(), OutputError> {
        for k in chord.keys() {
            self.enigo.key(key(*k), Direction::Press).map_err(backend)?;
        }
        for k in chord.keys().iter().rev() {
            self.enigo.key(key(*k), Direction::Release).map_err(backend)?;
        }
        Ok(())
    }
}

/// The backend's key for ours.
fn key(k: crate::command::Key) -> Key {
    use crate::command::Key as K;
    match k {
        K::Control => Key::Control,
        K::Alt => Key::Alt,
        K::Shift => Key::Shift,
        K::Meta => Key::Meta,
        K::Return => Key::Return,
        K::Tab => Key::Tab,
        K::Escape => Key::Escape,
        K::Space => Key::Space,
        K::Backspace => Key::Backspace,
        K::Delete => Key::Delete,
        K::Up => Key::UpArrow,
        K::Down => Key::DownArrow,
        K::Left => Key::LeftArrow,
        K::Right => Key::RightArrow,
        K::Home => Key::Home,
        K::End => Key::End,
        K::PageUp => Key::PageUp,
        K::PageDown => Key::PageDown,
        K::F(n) => [Key::F1, Key::F2, Key::F3, Key::F4, Key::F5, Key::F6, Key::F7, Key::F8, Key::F9, Key::F10, Key::F11, Key::F12][usize::from(n.clamp(1, 12) - 1)],
        K::Char(c) => Key::Unicode(c),
    }
}

impl PointerSink for DesktopSink {
    fn apply(&mut self, cmd: &Command) -> Result<(), OutputError> {
        match cmd {
            Command::MoveTo { x, y } => {
                let d = &self.desktop;
                #[allow(clippy::cast_possible_truncation)]
                let (px, py) = (
                    (x.round() as i32).clamp(d.x, d.x + i32::try_from(d.width).unwrap_or(i32::MAX) - 1),
                    (y.round() as i32).clamp(d.y, d.y + i32::try_from(d.height).unwrap_or(i32::MAX) - 1),
                );
                self.enigo.move_mouse(px, py, Coordinate::Abs).map_err(backend)
            }
            Command::Click(b) => self.enigo.button(button(*b), Direction::Click).map_err(backend),
            Command::DoubleClick(b) => {
                self.enigo.button(button(*b), Direction::Click).map_err(backend)?;
                self.enigo.button(button(*b), Direction::Click).map_err(backend)
            }
            Command::Press(b) => {
                self.enigo.button(button(*b), Direction::Press).map_err(backend)?;
                self.held.pressed(*b);
                Ok(())
            }
            Command::Release(b) => {
                self.held.released(*b);
                self.enigo.button(button(*b), Direction::Release).map_err(backend)
            }
            Command::Scroll { dx, dy } => {
                if *dy != 0 {
                    self.enigo.scroll(*dy, Axis::Vertical).map_err(backend)?;
                }
                if *dx != 0 {
                    self.enigo.scroll(*dx, Axis::Horizontal).map_err(backend)?;
                }
                Ok(())
            }
            Command::Key(chord) => self.key_chord(chord),
            Command::Type(text) => self.enigo.text(text).map_err(backend),
            Command::OpenMenu => Ok(()),
            Command::ReleaseHeld => {
                self.release_held_in_server(None);
                Ok(())
            }
        }
    }
}

impl Drop for DesktopSink {
    fn drop(&mut self) {
        // Never leave a button down: the user could not let go of it.
        for b in self.held.take() {
            let _ = self.enigo.button(button(b), Direction::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monitors_are_counted_from_the_left_then_from_the_top() {
        let a = |x, y| ScreenArea { x, y, width: 100, height: 100 };
        assert_eq!(in_reading_order(vec![a(1920, 0), a(0, 1080), a(0, 0)]), vec![a(0, 0), a(0, 1080), a(1920, 0)]);
        // A whole split in two (or an automatic monitor under defined ones) counts as its parts; a duplicate once.
        let whole = ScreenArea { x: 0, y: 0, width: 200, height: 100 };
        assert_eq!(in_reading_order(vec![whole, a(100, 0), a(0, 0), a(0, 0)]), vec![a(0, 0), a(100, 0)]);
        let mut p = crate::pointer::PointerSettings::default();
        Desktop { x: 0, y: 0, width: 2020, height: 1180, monitors: vec![a(0, 0), a(1920, 0)] }.fit(&mut p);
        assert_eq!((p.screen_width, p.screen_height, p.monitors.len()), (2020, 1180, 2));
    }

    #[test]
    fn every_key_has_a_backend_key() {
        use crate::command::Key as K;
        assert!(matches!(key(K::F(12)), Key::F12) && matches!(key(K::F(1)), Key::F1));
        assert!(matches!(key(K::Char('z')), Key::Unicode('z')));
    }
}
