//! Output: the only stage that touches the operating system.
//!
//! Every other stage returns [`Command`]s. A [`PointerSink`] performs them:
//! [`DesktopSink`] drives the real pointer through XTest (X11),
//! [`UinputSink`] through Linux virtual input devices (Wayland, X11, the
//! console), [`NullSink`] ignores them (replay without `--drive`),
//! [`RecordingSink`] keeps them for tests. [`open_desktop`] picks one as the
//! profile's `output` says.

mod desktop;
#[cfg(target_os = "linux")]
mod uinput;

pub use desktop::{Desktop, DesktopSink};
#[cfg(target_os = "linux")]
pub use uinput::{ABS_MAX, Ev, UinputSink, abs_position, batches, char_key};

pub use crate::command::{Button, Command};
pub use crate::settings::OutputBackend;

/// Whether this is a Wayland session (`XDG_SESSION_TYPE=wayland`, or
/// `WAYLAND_DISPLAY` set): there XTest reaches only XWayland's windows.
#[must_use]
pub fn wayland_session() -> bool {
    std::env::var("XDG_SESSION_TYPE").is_ok_and(|v| v.eq_ignore_ascii_case("wayland")) || std::env::var_os("WAYLAND_DISPLAY").is_some_and(|v| !v.is_empty())
}

/// The backend a profile's choice comes to in this session: `auto` is
/// uinput on Wayland and XTest elsewhere.
#[must_use]
pub fn resolve(choice: OutputBackend, wayland: bool) -> OutputBackend {
    match choice {
        OutputBackend::Auto if wayland => OutputBackend::Uinput,
        OutputBackend::Auto => OutputBackend::Xtest,
        other => other,
    }
}

/// Opens the real desktop as the profile's `output` says, and the desktop's
/// size and monitors (for uinput, from XWayland or X11 when there is one;
/// otherwise `fallback`, the profile's screen size).
///
/// # Errors
/// The backend cannot drive the pointer here; the message says why and what fixes it.
pub fn open_desktop(choice: OutputBackend, fallback: (u32, u32)) -> Result<(Box<dyn PointerSink>, Desktop), OutputError> {
    match resolve(choice, wayland_session()) {
        #[cfg(target_os = "linux")]
        OutputBackend::Uinput => {
            let desktop = desktop::x11_desktop(None).unwrap_or_else(|_| Desktop::single(fallback.0, fallback.1));
            let sink = UinputSink::new(desktop.clone())?;
            tracing::info!("driving the pointer through uinput ({}×{} desktop)", desktop.width, desktop.height);
            Ok((Box::new(sink), desktop))
        }
        _ => {
            let sink = DesktopSink::new()?;
            let desktop = sink.desktop();
            Ok((Box::new(sink), desktop))
        }
    }
}

/// Output failures.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("cannot drive the desktop pointer: {0}")]
    Backend(String),
}

/// The mouse buttons a desktop sink holds down, so that it can let go of
/// them all when it ends (a drag must never stay pressed after an exit).
#[derive(Debug, Default)]
pub(crate) struct Held(Vec<Button>);

impl Held {
    /// `b` went down.
    pub(crate) fn pressed(&mut self, b: Button) {
        if !self.0.contains(&b) {
            self.0.push(b);
        }
    }

    /// `b` went up (or is being let go of).
    pub(crate) fn released(&mut self, b: Button) {
        self.0.retain(|h| *h != b);
    }

    /// Every button still down, forgotten here.
    pub(crate) fn take(&mut self) -> Vec<Button> {
        std::mem::take(&mut self.0)
    }

    #[cfg(test)]
    pub(crate) fn buttons(&self) -> &[Button] {
        &self.0
    }
}

/// Performs commands.
pub trait PointerSink {
    /// Performs one command.
    ///
    /// # Errors
    /// When the operating system refuses it.
    fn apply(&mut self, cmd: &Command) -> Result<(), OutputError>;
}

/// Ignores every command (replay without `--drive`).
#[derive(Debug, Default)]
pub struct NullSink;

impl PointerSink for NullSink {
    fn apply(&mut self, _cmd: &Command) -> Result<(), OutputError> {
        Ok(())
    }
}

/// Keeps every command, for tests.
#[derive(Debug, Default)]
pub struct RecordingSink {
    pub commands: Vec<Command>,
}

impl RecordingSink {
    /// How many commands would press a button (clicks count once, double clicks twice).
    #[must_use]
    pub fn presses(&self) -> usize {
        self.commands
            .iter()
            .map(|c| match c {
                Command::Click(_) | Command::Press(_) => 1,
                Command::DoubleClick(_) => 2,
                _ => 0,
            })
            .sum()
    }
}

impl PointerSink for RecordingSink {
    fn apply(&mut self, cmd: &Command) -> Result<(), OutputError> {
        self.commands.push(cmd.clone());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_is_uinput_on_wayland_and_xtest_elsewhere_and_a_choice_stays() {
        assert_eq!(resolve(OutputBackend::Auto, true), OutputBackend::Uinput);
        assert_eq!(resolve(OutputBackend::Auto, false), OutputBackend::Xtest);
        for wayland in [true, false] {
            assert_eq!(resolve(OutputBackend::Xtest, wayland), OutputBackend::Xtest);
            assert_eq!(resolve(OutputBackend::Uinput, wayland), OutputBackend::Uinput);
        }
    }

    #[test]
    fn held_buttons_are_counted_once_and_let_go_of_together() {
        let mut h = Held::default();
        h.pressed(Button::Left);
        h.pressed(Button::Left);
        h.pressed(Button::Middle);
        h.released(Button::Middle);
        h.released(Button::Right);
        assert_eq!(h.take(), vec![Button::Left]);
        assert!(h.buttons().is_empty());
    }

    #[test]
    fn recording_sink_counts_presses() {
        let mut s = RecordingSink::default();
        for c in [
            Command::MoveTo { x: 1.0, y: 2.0 },
            Command::Click(Button::Left),
            Command::DoubleClick(Button::Left),
            Command::Press(Button::Left),
            Command::Release(Button::Left),
        ] {
            s.apply(&c).expect("recording never fails");
        }
        assert_eq!(s.commands.len(), 5);
        assert_eq!(s.presses(), 4);
    }
}
