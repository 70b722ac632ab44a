//! What the product asks of the desktop: [`Command`]s, mouse [`Button`]s and
//! key [`Chord`]s. A leaf: it depends on nothing else in the crate, and the
//! stages that make commands (switch, session, menus) and the one that
//! performs them (`output`) all use it.
//!
//! A chord is parsed when the profile or menu that holds it is read, so a
//! typo is reported there and then, with the file, line and field, and never
//! when the key is to be sent.

use serde::{Deserialize, Serialize};

/// A mouse button.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Button {
    Left,
    Right,
    Middle,
}

/// Something for the output stage to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Move the pointer to a desktop position in pixels.
    MoveTo { x: f64, y: f64 },
    Click(Button),
    DoubleClick(Button),
    Press(Button),
    Release(Button),
    /// Scroll by whole steps; positive is down / right.
    Scroll { dx: i32, dy: i32 },
    /// Press and release a key or chord such as `ctrl+shift+t`.
    Key(Chord),
    /// Type text into the focused application.
    Type(String),
    /// Open the navigation menu (the UI's business; the desktop sinks ignore it).
    OpenMenu,
    /// Release every mouse button the desktop reports held, whoever pressed
    /// it (on pause: repairs what a killed run left behind).
    ReleaseHeld,
}

/// A key, by what it means rather than by any one backend's code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Control,
    Alt,
    Shift,
    /// The Super, Windows or Command key.
    Meta,
    Return,
    Tab,
    Escape,
    Space,
    Backspace,
    Delete,
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
    PageUp,
    PageDown,
    /// F1 to F12.
    F(u8),
    /// One character.
    Char(char),
}

/// A chord that cannot be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown key {0:?} in a key binding (e.g. \"ctrl+c\", \"alt+tab\", \"f5\")")]
pub struct UnknownKey(pub String);

/// Keys pressed together, in order (released in reverse), as written in a
/// profile or menu: `ctrl+shift+t`. It is written back as it was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Chord {
    text: String,
    keys: Vec<Key>,
}

impl Chord {
    /// Parses a chord: key names joined by `+`.
    ///
    /// # Errors
    /// An empty chord, or an unknown key name in it.
    pub fn parse(text: &str) -> Result<Self, UnknownKey> {
        if text.trim().is_empty() {
            return Err(UnknownKey(String::new()));
        }
        let keys = text.split('+').map(|k| Key::parse(k.trim())).collect::<Result<_, _>>()?;
        Ok(Self { text: text.to_string(), keys })
    }

    /// The keys, in the order they are pressed.
    #[must_use]
    pub fn keys(&self) -> &[Key] {
        &self.keys
    }

    /// The chord as written.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl std::fmt::Display for Chord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl TryFrom<String> for Chord {
    type Error = UnknownKey;
    fn try_from(s: String) -> Result<Self, UnknownKey> {
        Self::parse(&s)
    }
}

impl From<Chord> for String {
    fn from(c: Chord) -> Self {
        c.text
    }
}

impl Key {
    /// A key name as written in a profile: `ctrl`, `alt`, `shift`, `super`,
    /// `enter`, `tab`, `esc`, `space`, `backspace`, `delete`, arrows,
    /// `f1`–`f12`, `home`, `end`, `pageup`, `pagedown`, or one character.
    ///
    /// # Errors
    /// An unknown name.
    pub fn parse(name: &str) -> Result<Self, UnknownKey> {
        let lower = name.to_lowercase();
        Ok(match lower.as_str() {
            "ctrl" | "control" => Self::Control,
            "alt" => Self::Alt,
            "shift" => Self::Shift,
            "super" | "meta" | "win" | "cmd" => Self::Meta,
            "enter" | "return" => Self::Return,
            "tab" => Self::Tab,
            "esc" | "escape" => Self::Escape,
            "space" => Self::Space,
            "backspace" => Self::Backspace,
            "delete" | "del" => Self::Delete,
            "up" => Self::Up,
            "down" => Self::Down,
            "left" => Self::Left,
            "right" => Self::Right,
            "home" => Self::Home,
            "end" => Self::End,
            "pageup" => Self::PageUp,
            "pagedown" => Self::PageDown,
            _ => {
                if let Some(n) = lower.strip_prefix('f').and_then(|d| d.parse::<u8>().ok()).filter(|n| (1..=12).contains(n)) {
                    return Ok(Self::F(n));
                }
                let mut chars = lower.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Self::Char(c),
                    _ => return Err(UnknownKey(name.to_string())),
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_names_parse_and_unknown_ones_say_so() {
        assert_eq!(Key::parse("Ctrl"), Ok(Key::Control));
        assert_eq!(Key::parse("f5"), Ok(Key::F(5)));
        assert_eq!(Key::parse("z"), Ok(Key::Char('z')));
        for bad in ["hyper", "f13", "f0", ""] {
            let e = Key::parse(bad).expect_err(bad).to_string();
            assert!(e.contains("unknown key"), "{e}");
        }
    }

    #[derive(Deserialize, Serialize)]
    struct T {
        key: Chord,
    }

    #[test]
    fn chords_parse_once_and_are_written_back_as_read() {
        let c = Chord::parse("ctrl+Shift+t").expect("chord");
        assert_eq!(c.keys(), &[Key::Control, Key::Shift, Key::Char('t')]);
        assert_eq!(c.to_string(), "ctrl+Shift+t");
        assert!(Chord::parse("ctrl+nosuchkey").is_err() && Chord::parse("  ").is_err() && Chord::parse("ctrl+").is_err());
        let t: T = toml::from_str("key = \"alt+tab\"").expect("parses");
        assert_eq!(toml::to_string(&t).expect("writes").trim(), "key = \"alt+tab\"");
        let e = toml::from_str::<T>("key = \"ctrl+nosuchkey\"").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("nosuchkey") && e.contains("line 1"), "{e}");
    }
}
