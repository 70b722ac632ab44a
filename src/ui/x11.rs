//! Overlay windows that never take the keyboard focus (X11).
//!
//! The menu window types keys and text into the user's application, so it
//! must never become the focused window: ICCCM's "No Input" model, WM_HINTS
//! with `input = false` and no `WM_TAKE_FOCUS` (winit sets none), tells the
//! window manager never to give it the focus, not when it appears and not
//! when it is clicked. Pointer events still reach it. While a caregiver
//! edits a menu (text fields), it takes the focus again.
//!
//! winit has no setting for this, so a thread named "no-focus" finds our
//! window by its title and process number and sets the hint as soon as the
//! window exists; if the window manager gave it the focus as it appeared,
//! the focus goes back to the window that had it.
//!
//! [`Shown`] asks the X server whether a window of ours is on screen (egui
//! is not told when the window manager minimizes it).

/// Sets, on a thread of its own, whether our window titled `title` may take
/// the keyboard focus (it looks for the window for two seconds; without an
/// X11 display it does nothing). One connection serves the whole search.
pub fn set_takes_focus(title: &'static str, takes: bool) {
    #[cfg(target_os = "linux")]
    {
        use x11rb::protocol::xproto::ConnectionExt;
        let Some((conn, screen)) = connect() else { return };
        // Who has the focus before our window appears (it goes back there).
        let before = conn.get_input_focus().ok().and_then(|c| c.reply().ok()).map(|f| f.focus).filter(|w| *w > 1);
        let back = if takes { None } else { before };
        let spawned = std::thread::Builder::new().name("no-focus".into()).spawn(move || {
            // Looks for the window for two seconds; once found, watches for
            // another 1.5 s: a window manager may give it the focus a little
            // after it appears (it did in 8 of 10 restarts under openbox),
            // and the focus goes back each time.
            let mut found_at = None;
            for i in 0..35 {
                match apply(&conn, screen, title, takes, back) {
                    Ok(true) if takes => break,
                    Ok(true) => {
                        found_at.get_or_insert(i);
                    }
                    Ok(false) if found_at.is_none() && i >= 20 => break,
                    Ok(false) => {}
                    Err(e) => {
                        tracing::debug!("cannot set the focus hint of {title}: {e}");
                        break;
                    }
                }
                if found_at.is_some_and(|f| i - f >= 15) {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        });
        if let Err(e) = spawned {
            tracing::warn!("cannot start the no-focus thread: {e}");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (title, takes);
}

/// Whether our window titled `title` is on screen, asked of the X server
/// (egui is not told when a window manager minimizes a window on X11). The
/// window's id is looked up once; an answer is kept for half a second.
pub struct Shown {
    title: &'static str,
    #[cfg(target_os = "linux")]
    conn: Option<(x11rb::rust_connection::RustConnection, usize)>,
    id: Option<u32>,
    kept: Option<(std::time::Instant, bool)>,
}

impl Shown {
    #[must_use]
    pub fn new(title: &'static str) -> Self {
        Self {
            title,
            #[cfg(target_os = "linux")]
            conn: connect(),
            id: None,
            kept: None,
        }
    }

    /// Whether the window is shown (mapped: not minimized, not withdrawn);
    /// `None` where it cannot be told (no X11, not found).
    pub fn shown(&mut self) -> Option<bool> {
        if let Some((at, v)) = self.kept
            && at.elapsed() < std::time::Duration::from_millis(500)
        {
            return Some(v);
        }
        let v = self.ask()?;
        self.kept = Some((std::time::Instant::now(), v));
        Some(v)
    }

    #[cfg(target_os = "linux")]
    fn ask(&mut self) -> Option<bool> {
        use x11rb::protocol::xproto::{ConnectionExt, MapState};
        let (conn, screen) = self.conn.as_ref()?;
        for _ in 0..2 {
            let id = match self.id {
                Some(id) => id,
                None => *self.id.insert(ours(conn, *screen, self.title).ok()?.first()?.1),
            };
            match conn.get_window_attributes(id).ok()?.reply() {
                Ok(a) => return Some(a.map_state == MapState::VIEWABLE),
                // Gone (a window made again): look it up once more.
                Err(_) => self.id = None,
            }
        }
        None
    }

    #[cfg(not(target_os = "linux"))]
    fn ask(&mut self) -> Option<bool> {
        None
    }
}

/// A connection to the X11 display, if there is one.
#[cfg(target_os = "linux")]
fn connect() -> Option<(x11rb::rust_connection::RustConnection, usize)> {
    if std::env::var_os("DISPLAY").is_none() {
        return None;
    }
    x11rb::connect(None).ok()
}

/// Our top-level windows titled `title`, each as (its window manager's
/// frame or itself, itself): top-level windows and one level down (window
/// managers put a frame around a shown window).
#[cfg(target_os = "linux")]
fn ours(conn: &x11rb::rust_connection::RustConnection, screen: usize, title: &str) -> Result<Vec<(u32, u32)>, Box<dyn std::error::Error>> {
    use x11rb::connection::Connection;
    use x11rb::protocol::xproto::{AtomEnum, ConnectionExt, Window};
    let root = conn.setup().roots[screen].root;
    let pid_atom = conn.intern_atom(false, b"_NET_WM_PID")?.reply()?.atom;
    let is_ours = |w: Window| -> Result<bool, Box<dyn std::error::Error>> {
        let name = conn.get_property(false, w, AtomEnum::WM_NAME, AtomEnum::ANY, 0, 256)?.reply()?;
        if name.value != title.as_bytes() {
            return Ok(false);
        }
        let pid = conn.get_property(false, w, pid_atom, AtomEnum::CARDINAL, 0, 1)?.reply()?;
        Ok(pid.value32().and_then(|mut v| v.next()) == Some(std::process::id()))
    };
    let mut found = Vec::new();
    for w in conn.query_tree(root)?.reply()?.children {
        let mut candidates = vec![w];
        candidates.extend(conn.query_tree(w)?.reply()?.children);
        for c in candidates {
            if is_ours(c)? {
                found.push((w, c));
            }
        }
    }
    Ok(found)
}

/// Sets the hint on every window of ours titled `title`; whether one was
/// found. If one of them (or its frame) has the focus, it goes back to `back`.
#[cfg(target_os = "linux")]
fn apply(conn: &x11rb::rust_connection::RustConnection, screen: usize, title: &str, takes: bool, back: Option<u32>) -> Result<bool, Box<dyn std::error::Error>> {
    use x11rb::connection::Connection;
    use x11rb::properties::WmHints;
    use x11rb::protocol::xproto::ConnectionExt;
    let found = ours(conn, screen, title)?;
    for (_, c) in &found {
        let mut hints = WmHints::get(conn, *c)?.reply()?.unwrap_or_default();
        hints.input = Some(takes);
        hints.set(conn, *c)?;
    }
    if let Some(back) = back {
        let now = conn.get_input_focus()?.reply()?.focus;
        if found.iter().any(|(frame, w)| now == *frame || now == *w) {
            use x11rb::protocol::xproto::InputFocus;
            // The window that had the focus may be gone by now: then nothing changes.
            let _ = conn.set_input_focus(InputFocus::PARENT, back, x11rb::CURRENT_TIME)?.check();
        }
    }
    conn.flush()?;
    Ok(!found.is_empty())
}
