//! The desktop sink: the OS pointer and keyboard through `enigo` (X11 on Linux,
//! and Windows and macOS where enigo supports them).
//!
//! It remembers which buttons it holds down and releases them when dropped, so
//! a drag never stays pressed after an exit, a signal that ends the run loop, or
//! a panic that unwinds through it.

use enigo::{Axis, Coordinate, Direction, Enigo, Key, Keyboard, Mouse, Settings};

use super::{Button, Command, OutputError, PointerSink};

/// The area the pointer may cover: the whole virtual desktop (all monitors).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Desktop {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
}

impl Desktop {
    /// Makes the pointer map onto this desktop.
    pub fn fit(&self, p: &mut crate::pointer::PointerSettings) {
        (p.screen_x, p.screen_y, p.screen_width, p.screen_height) = (self.x, self.y, self.width, self.height);
    }
}

/// Drives the real pointer.
pub struct DesktopSink {
    enigo: Enigo,
    held: Vec<Button>,
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

/// The virtual desktop's size: the X root window on Linux (it spans every monitor).
#[cfg(target_os = "linux")]
fn virtual_desktop(_enigo: &Enigo, display: Option<&str>) -> Result<Desktop, OutputError> {
    use x11rb::connection::Connection;
    let (conn, screen) = x11rb::connect(display).map_err(backend)?;
    let root = &conn.setup().roots[screen];
    Ok(Desktop { x: 0, y: 0, width: u32::from(root.width_in_pixels), height: u32::from(root.height_in_pixels) })
}

#[cfg(not(target_os = "linux"))]
fn virtual_desktop(enigo: &Enigo, _display: Option<&str>) -> Result<Desktop, OutputError> {
    let (w, h) = enigo.main_display().map_err(backend)?;
    Ok(Desktop { x: 0, y: 0, width: u32::try_from(w).unwrap_or(0), height: u32::try_from(h).unwrap_or(0) })
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
        let mut sink = Self { enigo, held: Vec::new(), desktop, display: display.map(str::to_string) };
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
        self.desktop
    }

    fn key_chord(&mut self, chord: &str) -> Result<(), OutputError> {
        let keys = parse_chord(chord)?;
        for k in &keys {
            self.enigo.key(*k, Direction::Press).map_err(backend)?;
        }
        for k in keys.iter().rev() {
            self.enigo.key(*k, Direction::Release).map_err(backend)?;
        }
        Ok(())
    }
}

/// The keys of a chord as written in a profile or menu (`ctrl+shift+t`).
/// Checked when the file is loaded, so a typo is reported there and then,
/// not when the key is to be sent.
///
/// # Errors
/// An empty chord, or an unknown key name in it.
pub fn parse_chord(chord: &str) -> Result<Vec<Key>, OutputError> {
    if chord.trim().is_empty() {
        return Err(OutputError::UnknownKey(String::new()));
    }
    chord.split('+').map(|k| parse_key(k.trim())).collect()
}

/// A key name as written in a profile: `ctrl`, `alt`, `shift`, `super`,
/// `enter`, `tab`, `esc`, `space`, `backspace`, `delete`, arrows, `f1`–`f12`,
/// `home`, `end`, `pageup`, `pagedown`, or one character.
///
/// # Errors
/// An unknown name.
pub fn parse_key(name: &str) -> Result<Key, OutputError> {
    let lower = name.to_lowercase();
    Ok(match lower.as_str() {
        "ctrl" | "control" => Key::Control,
        "alt" => Key::Alt,
        "shift" => Key::Shift,
        "super" | "meta" | "win" | "cmd" => Key::Meta,
        "enter" | "return" => Key::Return,
        "tab" => Key::Tab,
        "esc" | "escape" => Key::Escape,
        "space" => Key::Space,
        "backspace" => Key::Backspace,
        "delete" | "del" => Key::Delete,
        "up" => Key::UpArrow,
        "down" => Key::DownArrow,
        "left" => Key::LeftArrow,
        "right" => Key::RightArrow,
        "home" => Key::Home,
        "end" => Key::End,
        "pageup" => Key::PageUp,
        "pagedown" => Key::PageDown,
        "f1" => Key::F1,
        "f2" => Key::F2,
        "f3" => Key::F3,
        "f4" => Key::F4,
        "f5" => Key::F5,
        "f6" => Key::F6,
        "f7" => Key::F7,
        "f8" => Key::F8,
        "f9" => Key::F9,
        "f10" => Key::F10,
        "f11" => Key::F11,
        "f12" => Key::F12,
        _ => {
            let mut chars = lower.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => Key::Unicode(c),
                _ => return Err(OutputError::UnknownKey(name.to_string())),
            }
        }
    })
}

impl PointerSink for DesktopSink {
    fn apply(&mut self, cmd: &Command) -> Result<(), OutputError> {
        match cmd {
            Command::MoveTo { x, y } => {
                let d = self.desktop;
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
                if !self.held.contains(b) {
                    self.held.push(*b);
                }
                Ok(())
            }
            Command::Release(b) => {
                self.held.retain(|h| h != b);
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
        for b in std::mem::take(&mut self.held) {
            let _ = self.enigo.button(button(b), Direction::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_names_parse_and_unknown_ones_say_so() {
        assert!(matches!(parse_key("Ctrl"), Ok(Key::Control)));
        assert!(matches!(parse_key("f5"), Ok(Key::F5)));
        assert!(matches!(parse_key("z"), Ok(Key::Unicode('z'))));
        let e = parse_key("hyper").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("unknown key \"hyper\""), "{e}");
    }
}
