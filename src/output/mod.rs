//! Output: the only stage that touches the operating system.
//!
//! Every other stage returns [`Command`]s. A [`PointerSink`] performs them:
//! [`DesktopSink`] drives the real pointer, [`NullSink`] ignores them (replay
//! without `--drive`), [`RecordingSink`] keeps them for tests.

mod desktop;

pub use desktop::{Desktop, DesktopSink};

pub use crate::command::{Button, Command};

/// Output failures.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("cannot drive the desktop pointer: {0}")]
    Backend(String),
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
