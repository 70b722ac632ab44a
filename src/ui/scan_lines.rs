//! Point scanning's lines across the desktop (see [`crate::switch::point_scan`]).
//!
//! Two plain X11 windows of their own, moved by a thread named
//! "point-scan" that reads the worker's snapshot about 30 times a second
//! (like the dwell ring, so they move whatever the main window does). Each:
//! - is override-redirect: the window manager neither frames, places nor
//!   focuses it;
//! - takes no pointer input (an empty input shape): the click at the
//!   crossing goes to the application under the lines;
//! - is a dark band edged in white, seen on any background.
//!
//! The pointer itself moves with the scan too, so without X11 (a Wayland
//! session) point scanning still shows where it is.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::ring::{BAND, EDGE};
use super::worker::Snapshot;

/// The lines' window titles (tests look for them by these).
pub const ACROSS_TITLE: &str = "Facemouse scan across";
pub const DOWN_TITLE: &str = "Facemouse scan down";

/// The lines' thickness at zoom 1 (pixels), and their white edges.
const LINE: f32 = 8.0;
const EDGE_W: u16 = 2;
/// How often the thread looks at the snapshot.
const TICK: Duration = Duration::from_millis(33);

/// The lines' thread; dropping it takes the lines away.
pub struct ScanLines {
    _overlay: super::ring::Overlay,
}

impl ScanLines {
    /// Starts the lines for the worker's `snapshot`, `zoom` times their
    /// usual thickness. `None` without an X11 display (or when the thread cannot start).
    #[must_use]
    pub fn start(snapshot: Arc<Mutex<Snapshot>>, zoom: f32) -> Option<Self> {
        #[cfg(target_os = "linux")]
        {
            let width = (LINE * zoom.clamp(0.75, 3.0)).round() as u16;
            let overlay = super::ring::Overlay::start("point-scan", "point-scanning lines", move |conn, screen, stop| run(conn, screen, width, &snapshot, stop))?;
            Some(Self { _overlay: overlay })
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (snapshot, zoom);
            None
        }
    }
}

/// The lines' windows, until `stop`.
#[cfg(target_os = "linux")]
fn run(conn: &x11rb::rust_connection::RustConnection, screen: usize, width: u16, snapshot: &Mutex<Snapshot>, stop: &AtomicBool) -> Result<(), Box<dyn std::error::Error>> {
    use x11rb::connection::Connection;
    use x11rb::protocol::shape::{ConnectionExt as _, SK, SO};
    use x11rb::protocol::xproto::{
        AtomEnum, ChangeGCAux, ClipOrdering, ConfigureWindowAux, ConnectionExt, CreateGCAux, CreateWindowAux, PropMode, Rectangle, StackMode, WindowClass,
    };
    use x11rb::wrapper::ConnectionExt as _;
    let s = &conn.setup().roots[screen];
    let (sw, sh) = (s.width_in_pixels, s.height_in_pixels);
    let band = super::ring::pixel(conn, s.default_colormap, BAND);
    let edge = super::ring::pixel(conn, s.default_colormap, EDGE);
    let pid_atom = conn.intern_atom(false, b"_NET_WM_PID")?.reply()?.atom;
    // The vertical line (full height) and the horizontal one (full width).
    let mut wins = [(0u32, width, sh, ACROSS_TITLE), (0u32, sw, width, DOWN_TITLE)];
    for (win, w, h, title) in &mut wins {
        *win = conn.generate_id()?;
        conn.create_window(
            s.root_depth,
            *win,
            s.root,
            0,
            0,
            *w,
            *h,
            0,
            WindowClass::INPUT_OUTPUT,
            s.root_visual,
            &CreateWindowAux::new().override_redirect(1).background_pixel(band),
        )?;
        conn.change_property8(PropMode::REPLACE, *win, AtomEnum::WM_NAME, AtomEnum::STRING, title.as_bytes())?;
        conn.change_property32(PropMode::REPLACE, *win, pid_atom, AtomEnum::CARDINAL, &[std::process::id()])?;
        // No input anywhere: the click at the crossing goes to what is under the lines.
        conn.shape_rectangles(SO::SET, SK::INPUT, ClipOrdering::UNSORTED, *win, 0, 0, &[])?;
    }
    let gc = conn.generate_id()?;
    conn.create_gc(gc, wins[0].0, &CreateGCAux::new().foreground(edge))?;
    conn.change_gc(gc, &ChangeGCAux::new().foreground(edge))?;
    conn.flush()?;
    let half = i32::from(width / 2);
    let mut shown: [Option<i32>; 2] = [None, None];
    while !stop.load(Ordering::Relaxed) {
        let lines = snapshot.lock().ok().and_then(|s| s.point_scan.filter(|_| s.driving));
        let want = [lines.map(|(x, _)| x.round() as i32 - half), lines.and_then(|(_, y)| y).map(|y| y.round() as i32 - half)];
        for (i, ((win, w, h, _), at)) in wins.iter().zip(want).enumerate() {
            match at {
                Some(p) if shown[i] != Some(p) => {
                    let aux = if i == 0 { ConfigureWindowAux::new().x(p).y(0) } else { ConfigureWindowAux::new().x(0).y(p) };
                    conn.configure_window(*win, &aux.stack_mode(StackMode::ABOVE))?;
                    if shown[i].is_none() {
                        conn.map_window(*win)?;
                    }
                    shown[i] = Some(p);
                }
                None if shown[i].is_some() => {
                    conn.unmap_window(*win)?;
                    shown[i] = None;
                }
                _ => {}
            }
            if shown[i].is_some() {
                // White edges along the line's length (drawn again each time: nothing keeps them).
                let (w, h) = (*w, *h);
                let far = |n: u16| i16::try_from(n.saturating_sub(EDGE_W)).unwrap_or(i16::MAX);
                let edges = if i == 0 {
                    [Rectangle { x: 0, y: 0, width: EDGE_W, height: h }, Rectangle { x: far(w), y: 0, width: EDGE_W, height: h }]
                } else {
                    [Rectangle { x: 0, y: 0, width: w, height: EDGE_W }, Rectangle { x: 0, y: far(h), width: w, height: EDGE_W }]
                };
                conn.poly_fill_rectangle(*win, gc, &edges)?;
            }
        }
        conn.flush()?;
        std::thread::sleep(TICK);
    }
    for (win, ..) in wins {
        conn.destroy_window(win)?;
    }
    conn.flush()?;
    Ok(())
}
