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
        until_found(conn, screen, "no-focus", std::time::Duration::from_millis(100), move |conn, screen| apply(conn, screen, title, takes, back));
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (title, takes);
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

/// Runs `f` on a thread named `name` with the connection every `every`,
/// until it says it is done (it found our window) or two seconds have passed.
#[cfg(target_os = "linux")]
fn until_found(
    conn: x11rb::rust_connection::RustConnection,
    screen: usize,
    name: &str,
    every: std::time::Duration,
    f: impl Fn(&x11rb::rust_connection::RustConnection, usize) -> Result<bool, Box<dyn std::error::Error>> + Send + 'static,
) {
    let spawned = std::thread::Builder::new().name(name.into()).spawn(move || {
        let until = std::time::Instant::now() + std::time::Duration::from_secs(2);
        while std::time::Instant::now() < until {
            match f(&conn, screen) {
                Ok(true) => break,
                Ok(false) => std::thread::sleep(every),
                Err(e) => {
                    tracing::debug!("cannot reach our window: {e}");
                    break;
                }
            }
        }
    });
    if let Err(e) = spawned {
        tracing::warn!("cannot start the {name} thread: {e}");
    }
}

/// Cuts our window titled `title` (a square of `size` pixels) to a ring
/// `width` pixels wide (the X Shape extension), so that the dwell ring
/// covers nothing of what lies under it but the ring itself, with or
/// without a compositor. Without X11 it stays a square.
pub fn shape_ring(title: &'static str, size: u32, width: u32) {
    #[cfg(target_os = "linux")]
    if let Some((conn, screen)) = connect() {
        // Often: the ring shows as a square until it is cut.
        until_found(conn, screen, "ring-shape", std::time::Duration::from_millis(10), move |conn, screen| {
        use x11rb::connection::Connection;
        use x11rb::protocol::shape::{ConnectionExt as _, SK, SO};
        use x11rb::protocol::xproto::ClipOrdering;
        let rects = ring_rows(size, width);
        let found = ours(conn, screen, title)?;
        for (_, w) in &found {
            conn.shape_rectangles(SO::SET, SK::BOUNDING, ClipOrdering::UNSORTED, *w, 0, 0, &rects)?.check()?;
        }
        conn.flush()?;
        Ok(!found.is_empty())
        });
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (title, size, width);
}

/// The rows of a ring of outer diameter `size` and `width` pixels, as
/// rectangles one pixel high (one or two a row).
#[cfg(target_os = "linux")]
fn ring_rows(size: u32, width: u32) -> Vec<x11rb::protocol::xproto::Rectangle> {
    let r_out = f64::from(size) / 2.0;
    let r_in = (r_out - f64::from(width)).max(0.0);
    let mut rects = Vec::new();
    for row in 0..size {
        let y = f64::from(row) + 0.5 - r_out;
        if y.abs() >= r_out {
            continue;
        }
        let half_out = (r_out * r_out - y * y).sqrt();
        let half_in = if y.abs() < r_in { (r_in * r_in - y * y).sqrt() } else { 0.0 };
        let (a, b) = ((r_out - half_out).round() as i16, (r_out - half_in).round() as i16);
        let (c, d) = ((r_out + half_in).round() as i16, (r_out + half_out).round() as i16);
        let row = i16::try_from(row).unwrap_or(i16::MAX);
        if half_in > 0.0 {
            rects.push(x11rb::protocol::xproto::Rectangle { x: a, y: row, width: (b - a).max(0) as u16, height: 1 });
            rects.push(x11rb::protocol::xproto::Rectangle { x: c, y: row, width: (d - c).max(0) as u16, height: 1 });
        } else {
            rects.push(x11rb::protocol::xproto::Rectangle { x: a, y: row, width: (d - a).max(0) as u16, height: 1 });
        }
    }
    rects
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

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #[test]
    fn a_ring_is_a_ring() {
        let rows = super::ring_rows(64, 10);
        let area: u32 = rows.iter().map(|r| u32::from(r.width)).sum();
        let exact = std::f64::consts::PI * (32.0f64.powi(2) - 22.0f64.powi(2));
        assert!((f64::from(area) - exact).abs() < 0.05 * exact, "{area} against {exact}");
        // The middle row has a hole; the top row has none and is short.
        let middle: Vec<_> = rows.iter().filter(|r| r.y == 32).collect();
        assert_eq!(middle.len(), 2);
        assert!(middle[0].x <= 1 && middle[1].x + middle[1].width as i16 >= 63);
        assert!(middle[0].x + (middle[0].width as i16) < 20 && middle[1].x > 44);
        assert!(rows.iter().all(|r| r.x >= 0 && r.x + r.width as i16 <= 64 && r.y >= 0 && r.y < 64));
    }
}
