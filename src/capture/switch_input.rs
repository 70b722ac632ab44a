//! The external switch: a key (USB switches present themselves as keys) or
//! an extra mouse button, taken on X11 by a passive grab on the root window,
//! so that the press reaches Facemouse and not the focused application. A
//! thread named "switch-input" waits for presses and calls back; dropping
//! the handle ends the grab.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::command::Key;

/// Why the external switch cannot be taken.
#[derive(Debug, thiserror::Error)]
pub enum SwitchInputError {
    #[error("no X11 display for the external switch (it needs DISPLAY)")]
    NoDisplay,
    #[error("cannot take the external switch {what}: {reason} (another program may hold it)")]
    Grab { what: String, reason: String },
    #[error("the key {0:?} is not on this keyboard")]
    NoKeycode(String),
}

/// The running listener; dropping it ends the grab.
pub struct SwitchInput {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for SwitchInput {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The X keysym of a key.
#[must_use]
pub fn keysym(k: Key) -> u32 {
    match k {
        Key::Control => 0xffe3,
        Key::Alt => 0xffe9,
        Key::Shift => 0xffe1,
        Key::Meta => 0xffeb,
        Key::Return => 0xff0d,
        Key::Tab => 0xff09,
        Key::Escape => 0xff1b,
        Key::Space => 0x0020,
        Key::Backspace => 0xff08,
        Key::Delete => 0xffff,
        Key::Up => 0xff52,
        Key::Down => 0xff54,
        Key::Left => 0xff51,
        Key::Right => 0xff53,
        Key::Home => 0xff50,
        Key::End => 0xff57,
        Key::PageUp => 0xff55,
        Key::PageDown => 0xff56,
        Key::F(n) => 0xffbe + u32::from(n.clamp(1, 12)) - 1,
        Key::Char(c) => u32::from(c.to_ascii_lowercase()),
    }
}

impl SwitchInput {
    /// Takes `key` and/or mouse `button` and calls `on_press` at each press.
    ///
    /// # Errors
    /// No X11 display, a key that is not on the keyboard, or a grab another
    /// program holds.
    #[cfg(target_os = "linux")]
    pub fn start(key: Option<Key>, button: Option<u8>, on_press: impl Fn() + Send + 'static) -> Result<Self, SwitchInputError> {
        use x11rb::connection::Connection;
        use x11rb::protocol::Event;
        use x11rb::protocol::xproto::{ButtonIndex, ConnectionExt, EventMask, GrabMode, ModMask};
        if std::env::var_os("DISPLAY").is_none() {
            return Err(SwitchInputError::NoDisplay);
        }
        let (conn, screen) = x11rb::connect(None).map_err(|_| SwitchInputError::NoDisplay)?;
        let root = conn.setup().roots[screen].root;
        let grab = |what: String, reason: String| SwitchInputError::Grab { what, reason };
        if let Some(k) = key {
            let (min, max) = (conn.setup().min_keycode, conn.setup().max_keycode);
            let map = conn.get_keyboard_mapping(min, max - min + 1).map_err(|e| grab(format!("{k:?}"), e.to_string()))?.reply().map_err(|e| grab(format!("{k:?}"), e.to_string()))?;
            let per = usize::from(map.keysyms_per_keycode).max(1);
            let sym = keysym(k);
            let code = map.keysyms.chunks(per).position(|syms| syms.contains(&sym)).map(|i| min + u8::try_from(i).unwrap_or(0)).ok_or_else(|| SwitchInputError::NoKeycode(format!("{k:?}")))?;
            conn.grab_key(false, root, ModMask::ANY, code, GrabMode::ASYNC, GrabMode::ASYNC)
                .map_err(|e| grab(format!("key {k:?}"), e.to_string()))?
                .check()
                .map_err(|e| grab(format!("key {k:?}"), e.to_string()))?;
        }
        if let Some(b) = button {
            conn.grab_button(false, root, EventMask::BUTTON_PRESS, GrabMode::ASYNC, GrabMode::ASYNC, x11rb::NONE, x11rb::NONE, ButtonIndex::from(b), ModMask::ANY)
                .map_err(|e| grab(format!("button {b}"), e.to_string()))?
                .check()
                .map_err(|e| grab(format!("button {b}"), e.to_string()))?;
        }
        conn.flush().map_err(|e| grab("switch".into(), e.to_string()))?;
        let stop = Arc::new(AtomicBool::new(false));
        let st = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("switch-input".into())
            .spawn(move || {
                while !st.load(Ordering::SeqCst) {
                    match conn.poll_for_event() {
                        Ok(Some(Event::KeyPress(_) | Event::ButtonPress(_))) => on_press(),
                        Ok(Some(_)) => {}
                        Ok(None) => std::thread::sleep(std::time::Duration::from_millis(10)),
                        Err(e) => {
                            tracing::warn!("the external switch stopped: {e}");
                            return;
                        }
                    }
                }
                // The connection closes here, and the server ends its grabs.
            })
            .map_err(|e| grab("switch".into(), e.to_string()))?;
        Ok(Self { stop, thread: Some(thread) })
    }

    /// Without X11 there is no external switch yet.
    ///
    /// # Errors
    /// Always.
    #[cfg(not(target_os = "linux"))]
    pub fn start(_key: Option<Key>, _button: Option<u8>, _on_press: impl Fn() + Send + 'static) -> Result<Self, SwitchInputError> {
        Err(SwitchInputError::NoDisplay)
    }

    /// The listener for the profile's `[switch] external_key` and
    /// `external_button`, or `None` when neither is set or it cannot be
    /// taken (then the reason is logged and returned in words).
    pub fn for_settings(s: &crate::settings::SwitchSettings, on_press: impl Fn() + Send + 'static) -> (Option<Self>, Option<String>) {
        let (key, button) = (s.external_key(), (s.external_button != 0).then_some(s.external_button));
        if key.is_none() && button.is_none() {
            return (None, None);
        }
        match Self::start(key, button, on_press) {
            Ok(l) => (Some(l), None),
            Err(e) => {
                tracing::warn!("{e}");
                (None, Some(e.to_string()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keysyms_are_the_x11_ones() {
        assert_eq!(keysym(Key::F(12)), 0xffc9);
        assert_eq!(keysym(Key::F(1)), 0xffbe);
        assert_eq!(keysym(Key::Space), 0x20);
        assert_eq!(keysym(Key::Char('A')), u32::from(b'a'));
    }
}
