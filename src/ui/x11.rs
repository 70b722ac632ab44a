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

/// Asks the window manager, on a thread of its own, to keep other windows
/// out of the strip our window titled `title` takes along a screen edge
/// (`_NET_WM_STRUT_PARTIAL`): a docked menu or the click toolbar then no
/// longer covers the work, and maximized windows (our main window among
/// them) end where it begins. A window that lies along no edge, or across
/// less than half of it, reserves nothing. It waits for the window's place
/// to settle along an edge, and keeps watching until that place has held
/// for five seconds (at most a minute in all). Before, it took the first
/// place that held for two readings, along an edge or not, and stopped: on
/// a loaded machine (three test groups and software OpenGL on two cores)
/// nothing was reserved once, most likely because the window held still at
/// its first, undocked place before it was moved to the edge (not seen
/// again in four runs). Without an X11 display it does nothing.
pub fn reserve_edge(title: &'static str) {
    #[cfg(target_os = "linux")]
    {
        let Some((conn, screen)) = connect() else { return };
        let spawned = std::thread::Builder::new().name("strut".into()).spawn(move || {
            const HELD: u32 = 25;
            let mut last = None;
            let (mut applied, mut held) = (None, 0);
            for _ in 0..300 {
                std::thread::sleep(std::time::Duration::from_millis(200));
                match place(&conn, screen, title) {
                    Ok(Some(p)) if last == Some(p) => {
                        if applied == Some(p) {
                            held += 1;
                            if held >= HELD {
                                return;
                            }
                        } else if let Some(strut) = edge_strut(&conn, screen, p) {
                            if let Err(e) = set_strut(&conn, p.0, &strut) {
                                tracing::debug!("cannot reserve the edge of {title}: {e}");
                                return;
                            }
                            (applied, held) = (Some(p), 0);
                        }
                    }
                    Ok(p) => last = p,
                    Err(e) => {
                        tracing::debug!("cannot find {title} to reserve its edge: {e}");
                        return;
                    }
                }
            }
        });
        if let Err(e) = spawned {
            tracing::warn!("cannot start the strut thread: {e}");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = title;
}

/// A window's client, and its frame's place on the screen (x, y, width, height).
type Place = (u32, [i32; 4]);

/// Our window's client and its frame's place on the screen.
#[cfg(target_os = "linux")]
fn place(conn: &x11rb::rust_connection::RustConnection, screen: usize, title: &str) -> Result<Option<Place>, Box<dyn std::error::Error>> {
    use x11rb::connection::Connection;
    use x11rb::protocol::xproto::ConnectionExt;
    let Some(&(frame, client)) = ours(conn, screen, title)?.first() else { return Ok(None) };
    let g = conn.get_geometry(frame)?.reply()?;
    let root = conn.setup().roots[screen].root;
    let at = conn.translate_coordinates(frame, root, 0, 0)?.reply()?;
    Ok(Some((client, [i32::from(at.dst_x), i32::from(at.dst_y), i32::from(g.width) + 2 * i32::from(g.border_width), i32::from(g.height) + 2 * i32::from(g.border_width)])))
}

/// The strut (`_NET_WM_STRUT_PARTIAL`'s twelve numbers) of a window at
/// `[x, y, w, h]` on a screen of `sw`×`sh`: along the edge it lies on,
/// across at least half of it; `None` for a window along no edge.
#[must_use]
pub fn strut_for(r: [i32; 4], sw: i32, sh: i32) -> Option<[u32; 12]> {
    const NEAR: i32 = 4;
    let [x, y, w, h] = r;
    let u = |v: i32| u32::try_from(v.max(0)).unwrap_or(0);
    let mut s = [0u32; 12];
    if y + h >= sh - NEAR && 2 * w >= sw && y > sh / 3 {
        (s[3], s[10], s[11]) = (u(sh - y), u(x), u(x + w - 1));
    } else if y <= NEAR && 2 * w >= sw && y + h < 2 * sh / 3 {
        (s[2], s[8], s[9]) = (u(y + h), u(x), u(x + w - 1));
    } else if x + w >= sw - NEAR && 2 * h >= sh && x > sw / 3 {
        (s[1], s[6], s[7]) = (u(sw - x), u(y), u(y + h - 1));
    } else if x <= NEAR && 2 * h >= sh && x + w < 2 * sw / 3 {
        (s[0], s[4], s[5]) = (u(x + w), u(y), u(y + h - 1));
    } else {
        return None;
    }
    Some(s)
}

/// The strut of a window at `place` on `screen`, if it lies along an edge.
#[cfg(target_os = "linux")]
fn edge_strut(conn: &x11rb::rust_connection::RustConnection, screen: usize, (_, r): Place) -> Option<[u32; 12]> {
    use x11rb::connection::Connection;
    let root = &conn.setup().roots[screen];
    strut_for(r, i32::from(root.width_in_pixels), i32::from(root.height_in_pixels))
}

/// Sets `strut` on window `client`: both the partial and the plain EWMH property.
#[cfg(target_os = "linux")]
fn set_strut(conn: &x11rb::rust_connection::RustConnection, client: u32, strut: &[u32; 12]) -> Result<(), Box<dyn std::error::Error>> {
    use x11rb::connection::Connection;
    use x11rb::protocol::xproto::{AtomEnum, ConnectionExt, PropMode};
    use x11rb::wrapper::ConnectionExt as _;
    let partial = conn.intern_atom(false, b"_NET_WM_STRUT_PARTIAL")?.reply()?.atom;
    let plain = conn.intern_atom(false, b"_NET_WM_STRUT")?.reply()?.atom;
    conn.change_property32(PropMode::REPLACE, client, partial, AtomEnum::CARDINAL, strut)?;
    conn.change_property32(PropMode::REPLACE, client, plain, AtomEnum::CARDINAL, &strut[..4])?;
    conn.flush()?;
    Ok(())
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
    std::env::var_os("DISPLAY")?;
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

#[cfg(test)]
mod tests {
    use super::strut_for;

    #[test]
    fn a_window_along_an_edge_reserves_that_strip_and_a_floating_one_nothing() {
        // A menu docked at the bottom of 1920×1080, 300 high.
        let s = strut_for([0, 780, 1920, 300], 1920, 1080).expect("bottom");
        assert_eq!((s[3], s[10], s[11]), (300, 0, 1919));
        assert_eq!(s.iter().filter(|v| **v != 0).count(), 2, "only the bottom: {s:?}");
        // The click toolbar: a column at the right edge, most of the height.
        let s = strut_for([1760, 0, 160, 700], 1920, 1080).expect("right");
        assert_eq!((s[1], s[6], s[7]), (160, 0, 699));
        // Docked left and top.
        assert_eq!(strut_for([0, 0, 500, 1080], 1920, 1080).map(|s| s[0]), Some(500));
        assert_eq!(strut_for([0, 0, 1920, 260], 1920, 1080).map(|s| s[2]), Some(260));
        // A window in the middle, or a maximized one, reserves nothing.
        assert!(strut_for([600, 300, 760, 600], 1920, 1080).is_none());
        assert!(strut_for([0, 0, 1920, 1080], 1920, 1080).is_none());
    }
}
