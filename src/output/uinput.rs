//! The uinput sink: the pointer and keys through Linux virtual input devices
//! (`/dev/uinput`), which every Wayland compositor, X11 and the console read
//! like real hardware. It is what drives the pointer over native Wayland
//! windows, where XTest reaches only XWayland's.
//!
//! Two devices: an absolute pointer (like a virtual machine's tablet: its
//! 0..`ABS_MAX` range spans the whole desktop) with three buttons and a
//! wheel, and a keyboard. Each command becomes batches of events
//! ([`batches`], tested without a device); each batch ends with a
//! `SYN_REPORT`. Keys are key codes: the compositor applies the user's
//! layout, so text is typed as on a US keyboard, and a character that has no
//! key there is refused with a message rather than typed wrong.
//!
//! Like the X11 sink, it releases every button it holds when dropped.

use evdev::uinput::VirtualDevice;
use evdev::{AbsInfo, AbsoluteAxisCode, AttributeSet, EventType, InputEvent, KeyCode, RelativeAxisCode, UinputAbsSetup};

use super::{Button, Command, Desktop, Held, OutputError, PointerSink};
use crate::command::Key;

/// The absolute axes' range: the desktop's width and height map onto 0..=ABS_MAX.
pub const ABS_MAX: i32 = 32767;

/// One event: its type (`EV_KEY`, `EV_REL`, `EV_ABS`), code and value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ev {
    pub kind: u16,
    pub code: u16,
    pub value: i32,
}

impl Ev {
    fn key(code: KeyCode, down: bool) -> Self {
        Self { kind: EventType::KEY.0, code: code.0, value: i32::from(down) }
    }

    /// Whether the pointer device sends it (buttons, wheel, position); otherwise the keyboard does.
    #[must_use]
    pub fn is_pointer(&self) -> bool {
        self.kind != EventType::KEY.0 || (BTN_FIRST..=BTN_LAST).contains(&self.code)
    }
}

const BTN_FIRST: u16 = KeyCode::BTN_LEFT.0;
const BTN_LAST: u16 = KeyCode::BTN_TASK.0;

fn button(b: Button) -> KeyCode {
    match b {
        Button::Left => KeyCode::BTN_LEFT,
        Button::Right => KeyCode::BTN_RIGHT,
        Button::Middle => KeyCode::BTN_MIDDLE,
    }
}

/// A character's key on a US keyboard, and whether Shift goes with it.
#[must_use]
pub fn char_key(c: char) -> Option<(KeyCode, bool)> {
    const LETTERS: [KeyCode; 26] = [
        KeyCode::KEY_A, KeyCode::KEY_B, KeyCode::KEY_C, KeyCode::KEY_D, KeyCode::KEY_E, KeyCode::KEY_F, KeyCode::KEY_G, KeyCode::KEY_H, KeyCode::KEY_I,
        KeyCode::KEY_J, KeyCode::KEY_K, KeyCode::KEY_L, KeyCode::KEY_M, KeyCode::KEY_N, KeyCode::KEY_O, KeyCode::KEY_P, KeyCode::KEY_Q, KeyCode::KEY_R,
        KeyCode::KEY_S, KeyCode::KEY_T, KeyCode::KEY_U, KeyCode::KEY_V, KeyCode::KEY_W, KeyCode::KEY_X, KeyCode::KEY_Y, KeyCode::KEY_Z,
    ];
    const DIGITS: [KeyCode; 10] =
        [KeyCode::KEY_0, KeyCode::KEY_1, KeyCode::KEY_2, KeyCode::KEY_3, KeyCode::KEY_4, KeyCode::KEY_5, KeyCode::KEY_6, KeyCode::KEY_7, KeyCode::KEY_8, KeyCode::KEY_9];
    // The shifted digits, from 0: ) ! @ # $ % ^ & * (
    const SHIFTED_DIGITS: &str = ")!@#$%^&*(";
    if c.is_ascii_lowercase() {
        return Some((LETTERS[usize::from(c as u8 - b'a')], false));
    }
    if c.is_ascii_uppercase() {
        return Some((LETTERS[usize::from(c as u8 - b'A')], true));
    }
    if c.is_ascii_digit() {
        return Some((DIGITS[usize::from(c as u8 - b'0')], false));
    }
    if let Some(i) = SHIFTED_DIGITS.find(c) {
        return Some((DIGITS[i], true));
    }
    let (k, shift) = match c {
        ' ' => (KeyCode::KEY_SPACE, false),
        '\n' => (KeyCode::KEY_ENTER, false),
        '\t' => (KeyCode::KEY_TAB, false),
        '-' => (KeyCode::KEY_MINUS, false),
        '_' => (KeyCode::KEY_MINUS, true),
        '=' => (KeyCode::KEY_EQUAL, false),
        '+' => (KeyCode::KEY_EQUAL, true),
        '[' => (KeyCode::KEY_LEFTBRACE, false),
        '{' => (KeyCode::KEY_LEFTBRACE, true),
        ']' => (KeyCode::KEY_RIGHTBRACE, false),
        '}' => (KeyCode::KEY_RIGHTBRACE, true),
        '\\' => (KeyCode::KEY_BACKSLASH, false),
        '|' => (KeyCode::KEY_BACKSLASH, true),
        ';' => (KeyCode::KEY_SEMICOLON, false),
        ':' => (KeyCode::KEY_SEMICOLON, true),
        '\'' => (KeyCode::KEY_APOSTROPHE, false),
        '"' => (KeyCode::KEY_APOSTROPHE, true),
        '`' => (KeyCode::KEY_GRAVE, false),
        '~' => (KeyCode::KEY_GRAVE, true),
        ',' => (KeyCode::KEY_COMMA, false),
        '<' => (KeyCode::KEY_COMMA, true),
        '.' => (KeyCode::KEY_DOT, false),
        '>' => (KeyCode::KEY_DOT, true),
        '/' => (KeyCode::KEY_SLASH, false),
        '?' => (KeyCode::KEY_SLASH, true),
        _ => return None,
    };
    Some((k, shift))
}

/// A key of a chord, and whether Shift goes with it (a character such as `?`).
fn key_code(k: Key) -> Option<(KeyCode, bool)> {
    const F: [KeyCode; 12] = [
        KeyCode::KEY_F1, KeyCode::KEY_F2, KeyCode::KEY_F3, KeyCode::KEY_F4, KeyCode::KEY_F5, KeyCode::KEY_F6, KeyCode::KEY_F7, KeyCode::KEY_F8, KeyCode::KEY_F9,
        KeyCode::KEY_F10, KeyCode::KEY_F11, KeyCode::KEY_F12,
    ];
    let plain = |k| Some((k, false));
    match k {
        Key::Control => plain(KeyCode::KEY_LEFTCTRL),
        Key::Alt => plain(KeyCode::KEY_LEFTALT),
        Key::Shift => plain(KeyCode::KEY_LEFTSHIFT),
        Key::Meta => plain(KeyCode::KEY_LEFTMETA),
        Key::Return => plain(KeyCode::KEY_ENTER),
        Key::Tab => plain(KeyCode::KEY_TAB),
        Key::Escape => plain(KeyCode::KEY_ESC),
        Key::Space => plain(KeyCode::KEY_SPACE),
        Key::Backspace => plain(KeyCode::KEY_BACKSPACE),
        Key::Delete => plain(KeyCode::KEY_DELETE),
        Key::Up => plain(KeyCode::KEY_UP),
        Key::Down => plain(KeyCode::KEY_DOWN),
        Key::Left => plain(KeyCode::KEY_LEFT),
        Key::Right => plain(KeyCode::KEY_RIGHT),
        Key::Home => plain(KeyCode::KEY_HOME),
        Key::End => plain(KeyCode::KEY_END),
        Key::PageUp => plain(KeyCode::KEY_PAGEUP),
        Key::PageDown => plain(KeyCode::KEY_PAGEDOWN),
        Key::F(n) => plain(F[usize::from(n.clamp(1, 12) - 1)]),
        Key::Char(c) => char_key(c),
    }
}

/// Press and release of one key, with Shift around it when it needs it.
fn tap(out: &mut Vec<Vec<Ev>>, (k, shift): (KeyCode, bool)) {
    if shift {
        out.push(vec![Ev::key(KeyCode::KEY_LEFTSHIFT, true)]);
    }
    out.push(vec![Ev::key(k, true)]);
    out.push(vec![Ev::key(k, false)]);
    if shift {
        out.push(vec![Ev::key(KeyCode::KEY_LEFTSHIFT, false)]);
    }
}

/// A desktop position on the absolute axes (0..=ABS_MAX over the desktop, clamped to it).
#[must_use]
pub fn abs_position(x: f64, y: f64, d: &Desktop) -> (i32, i32) {
    let scale = |v: f64, origin: i32, size: u32| {
        let span = f64::from(size.max(2) - 1);
        (((v - f64::from(origin)) / span).clamp(0.0, 1.0) * f64::from(ABS_MAX)).round() as i32
    };
    (scale(x, d.x, d.width), scale(y, d.y, d.height))
}

/// The event batches a command becomes, in order; each batch is followed by
/// a `SYN_REPORT` when sent.
///
/// # Errors
/// Text with a character that has no key on a US keyboard (nothing of it is typed).
pub fn batches(cmd: &Command, desktop: &Desktop) -> Result<Vec<Vec<Ev>>, OutputError> {
    let mut out = Vec::new();
    match cmd {
        Command::MoveTo { x, y } => {
            let (ax, ay) = abs_position(*x, *y, desktop);
            out.push(vec![
                Ev { kind: EventType::ABSOLUTE.0, code: AbsoluteAxisCode::ABS_X.0, value: ax },
                Ev { kind: EventType::ABSOLUTE.0, code: AbsoluteAxisCode::ABS_Y.0, value: ay },
            ]);
        }
        Command::Click(b) => tap(&mut out, (button(*b), false)),
        Command::DoubleClick(b) => {
            tap(&mut out, (button(*b), false));
            tap(&mut out, (button(*b), false));
        }
        Command::Press(b) => out.push(vec![Ev::key(button(*b), true)]),
        Command::Release(b) => out.push(vec![Ev::key(button(*b), false)]),
        Command::Scroll { dx, dy } => {
            let mut batch = Vec::new();
            // The wheel counts up as positive; a scroll step down is positive here.
            if *dy != 0 {
                batch.push(Ev { kind: EventType::RELATIVE.0, code: RelativeAxisCode::REL_WHEEL.0, value: -*dy });
            }
            if *dx != 0 {
                batch.push(Ev { kind: EventType::RELATIVE.0, code: RelativeAxisCode::REL_HWHEEL.0, value: *dx });
            }
            if !batch.is_empty() {
                out.push(batch);
            }
        }
        Command::Key(chord) => {
            let mut keys = Vec::new();
            for k in chord.keys() {
                let (code, shift) = key_code(*k).ok_or_else(|| OutputError::Backend(format!("the key {k:?} in {chord} has no key on a US keyboard for uinput")))?;
                if shift && !keys.contains(&KeyCode::KEY_LEFTSHIFT) {
                    keys.push(KeyCode::KEY_LEFTSHIFT);
                }
                keys.push(code);
            }
            for k in &keys {
                out.push(vec![Ev::key(*k, true)]);
            }
            for k in keys.iter().rev() {
                out.push(vec![Ev::key(*k, false)]);
            }
        }
        Command::Type(text) => {
            for c in text.chars() {
                let key = char_key(c).ok_or_else(|| {
                    OutputError::Backend(format!(
                        "cannot type {c:?} through uinput (it types the keys of a US keyboard); nothing of {text:?} was typed — on X11, set output = \"xtest\" in the profile's [pointer]"
                    ))
                })?;
                tap(&mut out, key);
            }
        }
        Command::OpenMenu | Command::ReleaseHeld => {}
    }
    Ok(out)
}

/// Every key the keyboard device may send.
fn keyboard_keys() -> AttributeSet<KeyCode> {
    let mut keys: AttributeSet<KeyCode> = (' '..='~').filter_map(char_key).map(|(k, _)| k).collect();
    for k in [
        Key::Control, Key::Alt, Key::Shift, Key::Meta, Key::Return, Key::Tab, Key::Escape, Key::Space, Key::Backspace, Key::Delete, Key::Up, Key::Down, Key::Left,
        Key::Right, Key::Home, Key::End, Key::PageUp, Key::PageDown,
    ]
    .into_iter()
    .chain((1..=12).map(Key::F))
    {
        if let Some((code, _)) = key_code(k) {
            keys.insert(code);
        }
    }
    keys
}

/// Drives the pointer and keys through `/dev/uinput`.
pub struct UinputSink {
    pointer: VirtualDevice,
    keyboard: VirtualDevice,
    desktop: Desktop,
    held: Held,
    events: Vec<InputEvent>,
}

/// The one-line reason `/dev/uinput` cannot be used, and the command that fixes it.
fn open_error(e: &std::io::Error) -> OutputError {
    let why = match e.kind() {
        std::io::ErrorKind::PermissionDenied => {
            "is not writable for this user: install the facemouse package (its udev rule gives the logged-in user access) and log in again, or for this session run `sudo setfacl -m u:$USER:rw /dev/uinput`".to_string()
        }
        std::io::ErrorKind::NotFound => "does not exist: load the module with `sudo modprobe uinput`".to_string(),
        _ => format!("cannot be used: {e}"),
    };
    OutputError::Backend(format!("/dev/uinput {why}"))
}

impl UinputSink {
    /// Creates the two virtual devices for a desktop of this size.
    ///
    /// # Errors
    /// `/dev/uinput` missing or not writable (the message says how to fix it).
    pub fn new(desktop: Desktop) -> Result<Self, OutputError> {
        let buttons: AttributeSet<KeyCode> = [KeyCode::BTN_LEFT, KeyCode::BTN_RIGHT, KeyCode::BTN_MIDDLE].into_iter().collect();
        let wheels: AttributeSet<RelativeAxisCode> = [RelativeAxisCode::REL_WHEEL, RelativeAxisCode::REL_HWHEEL].into_iter().collect();
        let axis = |code| UinputAbsSetup::new(code, AbsInfo::new(0, 0, ABS_MAX, 0, 0, 0));
        let pointer = VirtualDevice::builder()
            .map_err(|e| open_error(&e))?
            .name("Facemouse pointer")
            .with_keys(&buttons)
            .and_then(|b| b.with_relative_axes(&wheels))
            .and_then(|b| b.with_absolute_axis(&axis(AbsoluteAxisCode::ABS_X)))
            .and_then(|b| b.with_absolute_axis(&axis(AbsoluteAxisCode::ABS_Y)))
            .and_then(evdev::uinput::VirtualDeviceBuilder::build)
            .map_err(|e| open_error(&e))?;
        let keyboard = VirtualDevice::builder()
            .map_err(|e| open_error(&e))?
            .name("Facemouse keyboard")
            .with_keys(&keyboard_keys())
            .and_then(evdev::uinput::VirtualDeviceBuilder::build)
            .map_err(|e| open_error(&e))?;
        Ok(Self { pointer, keyboard, desktop, held: Held::default(), events: Vec::with_capacity(8) })
    }

    /// The desktop the pointer covers.
    #[must_use]
    pub fn desktop(&self) -> Desktop {
        self.desktop.clone()
    }

    fn send(&mut self, batch: &[Ev]) -> Result<(), OutputError> {
        self.events.clear();
        self.events.extend(batch.iter().map(|e| InputEvent::new(e.kind, e.code, e.value)));
        let device = if batch.iter().all(Ev::is_pointer) { &mut self.pointer } else { &mut self.keyboard };
        device.emit(&self.events).map_err(|e| OutputError::Backend(format!("uinput: {e}")))
    }
}

impl PointerSink for UinputSink {
    fn apply(&mut self, cmd: &Command) -> Result<(), OutputError> {
        if matches!(cmd, Command::ReleaseHeld) {
            // Only this process's own buttons can be seen (and released) here.
            for b in self.held.take() {
                self.send(&[Ev::key(button(b), false)])?;
            }
            return Ok(());
        }
        for batch in batches(cmd, &self.desktop)? {
            self.send(&batch)?;
        }
        match cmd {
            Command::Press(b) => self.held.pressed(*b),
            Command::Release(b) => self.held.released(*b),
            _ => {}
        }
        Ok(())
    }
}

impl Drop for UinputSink {
    fn drop(&mut self) {
        // Never leave a button down: the user could not let go of it.
        for b in self.held.take() {
            let _ = self.send(&[Ev::key(button(b), false)]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::Chord;

    fn desktop() -> Desktop {
        Desktop::single(1920, 1080)
    }

    fn keys(batches: &[Vec<Ev>]) -> Vec<(u16, i32)> {
        batches.iter().flatten().map(|e| (e.code, e.value)).collect()
    }

    #[test]
    fn a_move_is_one_batch_of_both_axes_over_the_whole_desktop() {
        let d = desktop();
        assert_eq!(batches(&Command::MoveTo { x: 0.0, y: 0.0 }, &d).expect("move"), vec![vec![
            Ev { kind: EventType::ABSOLUTE.0, code: AbsoluteAxisCode::ABS_X.0, value: 0 },
            Ev { kind: EventType::ABSOLUTE.0, code: AbsoluteAxisCode::ABS_Y.0, value: 0 },
        ]]);
        assert_eq!(abs_position(1919.0, 1079.0, &d), (ABS_MAX, ABS_MAX));
        assert_eq!(abs_position(959.5, 539.5, &d), (16384, 16384));
        assert_eq!(abs_position(-50.0, 5000.0, &d), (0, ABS_MAX), "clamped to the desktop");
        // A desktop that does not start at 0 (a monitor left of the primary one).
        let wide = Desktop { x: -1280, y: 0, width: 3200, height: 1080, monitors: Vec::new() };
        assert_eq!(abs_position(-1280.0, 0.0, &wide).0, 0);
    }

    #[test]
    fn a_click_is_a_press_then_a_release_each_reported_and_on_the_pointer() {
        let b = batches(&Command::Click(Button::Left), &desktop()).expect("click");
        assert_eq!(b, vec![vec![Ev::key(KeyCode::BTN_LEFT, true)], vec![Ev::key(KeyCode::BTN_LEFT, false)]]);
        assert!(b.iter().flatten().all(Ev::is_pointer));
        let double = batches(&Command::DoubleClick(Button::Right), &desktop()).expect("double");
        assert_eq!(keys(&double), vec![(KeyCode::BTN_RIGHT.0, 1), (KeyCode::BTN_RIGHT.0, 0), (KeyCode::BTN_RIGHT.0, 1), (KeyCode::BTN_RIGHT.0, 0)]);
        assert_eq!(keys(&batches(&Command::Press(Button::Middle), &desktop()).expect("press")), vec![(KeyCode::BTN_MIDDLE.0, 1)]);
    }

    #[test]
    fn scrolling_down_turns_the_wheel_down() {
        let b = batches(&Command::Scroll { dx: 2, dy: 3 }, &desktop()).expect("scroll");
        assert_eq!(b, vec![vec![
            Ev { kind: EventType::RELATIVE.0, code: RelativeAxisCode::REL_WHEEL.0, value: -3 },
            Ev { kind: EventType::RELATIVE.0, code: RelativeAxisCode::REL_HWHEEL.0, value: 2 },
        ]]);
        assert!(batches(&Command::Scroll { dx: 0, dy: 0 }, &desktop()).expect("nothing").is_empty());
    }

    #[test]
    fn a_chord_presses_in_order_and_releases_in_reverse_on_the_keyboard() {
        let chord = Chord::parse("ctrl+shift+t").expect("chord");
        let b = batches(&Command::Key(chord), &desktop()).expect("keys");
        let (ctrl, shift, t) = (KeyCode::KEY_LEFTCTRL.0, KeyCode::KEY_LEFTSHIFT.0, KeyCode::KEY_T.0);
        assert_eq!(keys(&b), vec![(ctrl, 1), (shift, 1), (t, 1), (t, 0), (shift, 0), (ctrl, 0)]);
        assert!(!b.iter().flatten().any(Ev::is_pointer));
    }

    #[test]
    fn text_is_typed_with_shift_where_a_us_keyboard_needs_it() {
        let b = batches(&Command::Type("Hi!".into()), &desktop()).expect("type");
        let (shift, h, i, one) = (KeyCode::KEY_LEFTSHIFT.0, KeyCode::KEY_H.0, KeyCode::KEY_I.0, KeyCode::KEY_1.0);
        assert_eq!(keys(&b), vec![(shift, 1), (h, 1), (h, 0), (shift, 0), (i, 1), (i, 0), (shift, 1), (one, 1), (one, 0), (shift, 0)]);
        // Every printable ASCII character has a key.
        assert!((' '..='~').all(|c| char_key(c).is_some()));
        // One that has none: nothing is typed, and the message says why and what to do.
        let e = batches(&Command::Type("café".into()), &desktop()).expect_err("é").to_string();
        assert!(e.contains("'é'") && e.contains("xtest"), "{e}");
    }

    /// Where `/dev/uinput` can be opened, the devices are made and a move
    /// and a click go through; elsewhere the error is the one-line advice.
    #[test]
    fn the_devices_open_where_uinput_is_writable() {
        match UinputSink::new(desktop()) {
            Ok(mut sink) => {
                // The kernel's view of the pointer device: the position it was sent.
                std::thread::sleep(std::time::Duration::from_millis(200));
                let node = sink.pointer.enumerate_dev_nodes_blocking().ok().and_then(|mut n| n.next()).and_then(Result::ok);
                sink.apply(&Command::MoveTo { x: 1919.0, y: 0.0 }).expect("move");
                match node.map(evdev::Device::open) {
                    Some(Ok(dev)) => {
                        let abs = dev.get_abs_state().expect("absolute state");
                        assert_eq!(abs[usize::from(AbsoluteAxisCode::ABS_X.0)].value, ABS_MAX, "the device is at the right edge");
                    }
                    _ => eprintln!("the pointer device's node could not be read back; only the sending was checked"),
                }
                sink.apply(&Command::Press(Button::Left)).expect("press");
                assert_eq!(sink.held.buttons(), [Button::Left]);
                sink.apply(&Command::Release(Button::Left)).expect("release");
                assert!(sink.held.buttons().is_empty());
            }
            Err(e) => {
                let msg = e.to_string();
                eprintln!("skipped: /dev/uinput cannot be used here: {msg}");
                assert!(msg.contains("/dev/uinput") && !msg.contains('\n'), "{msg}");
            }
        }
    }
}
