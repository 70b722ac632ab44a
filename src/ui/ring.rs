//! The countdown ring at the pointer while a desktop dwell counts.
//!
//! It is a plain X11 window of its own, drawn by a thread named
//! "dwell-ring" that reads the worker's snapshot about 30 times a second,
//! so it follows the count whatever the main window does (egui stops the
//! main window's passes while it is minimized, and a dwell user often
//! minimizes it). The window:
//! - is override-redirect: the window manager neither frames, places nor
//!   focuses it;
//! - is cut to a ring (X Shape), so it hides nothing but the ring itself,
//!   with or without a compositor;
//! - takes no pointer input (an empty input shape): the pointer's clicks
//!   go to the application under it;
//! - shows a dark band edged in white, seen on any background, filling
//!   clockwise from the top in bright green as the count goes on.
//!
//! Without X11 (a Wayland session) there is no ring; dwell still clicks.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::worker::Snapshot;

/// The ring window's title (tests look for it by this).
pub const RING_TITLE: &str = "Facemouse dwell";

/// The ring's diameter and width at zoom 1 (pixels).
const RING_SIZE: f32 = 64.0;
const RING_WIDTH: f32 = 12.0;
/// The ring's colours: its band, its edges and its count (0xRRGGBB).
pub(crate) const BAND: u32 = 0x19_19_19;
pub(crate) const EDGE: u32 = 0xff_ff_ff;
pub(crate) const COUNT: u32 = 0x50_e6_78;
/// How often the thread looks at the snapshot.
const TICK: Duration = Duration::from_millis(33);

/// A window of ours drawn by a thread of its own, which reads the worker's
/// snapshot (the dwell ring, point scanning's lines): it goes on whatever
/// the main window does (a minimized window gets no passes). Dropping it
/// stops the thread, which takes its window away.
pub struct Overlay {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Overlay {
    /// Starts `draw` on a thread named `name`, with its own connection to the
    /// X server, until it is told to stop; `what` names it in the log. `None`
    /// without an X11 display, or when the thread cannot start.
    #[cfg(target_os = "linux")]
    pub(super) fn start(
        name: &str,
        what: &'static str,
        draw: impl FnOnce(&x11rb::rust_connection::RustConnection, usize, &AtomicBool) -> Result<(), Box<dyn std::error::Error>> + Send + 'static,
    ) -> Option<Self> {
        std::env::var_os("DISPLAY")?;
        let (conn, screen) = x11rb::connect(None).ok()?;
        let stop = Arc::new(AtomicBool::new(false));
        let st = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                if let Err(e) = draw(&conn, screen, &st) {
                    tracing::warn!("no {what}: {e}");
                }
            })
            .map_err(|e| tracing::warn!("cannot start the {what}: {e}"))
            .ok()?;
        Some(Self { stop, thread: Some(thread) })
    }
}

impl Drop for Overlay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The ring's thread; dropping it takes the ring away.
pub struct Ring {
    _overlay: Overlay,
}

impl Ring {
    /// Starts the ring for the worker's `snapshot`, `zoom` times its usual
    /// size. `None` without an X11 display (or when its thread cannot start).
    #[must_use]
    pub fn start(snapshot: Arc<Mutex<Snapshot>>, zoom: f32) -> Option<Self> {
        #[cfg(target_os = "linux")]
        {
            let size = (RING_SIZE * zoom.clamp(0.75, 3.0)).round() as u16;
            let width = (RING_WIDTH * zoom.clamp(0.75, 3.0)).round() as u16;
            let overlay = Overlay::start("dwell-ring", "dwell ring at the pointer", move |conn, screen, stop| run(conn, screen, size, width, &snapshot, stop))?;
            Some(Self { _overlay: overlay })
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (snapshot, zoom);
            None
        }
    }
}

/// The ring's window and drawing, until `stop`.
#[cfg(target_os = "linux")]
fn run(
    conn: &x11rb::rust_connection::RustConnection,
    screen: usize,
    size: u16,
    width: u16,
    snapshot: &Mutex<Snapshot>,
    stop: &AtomicBool,
) -> Result<(), Box<dyn std::error::Error>> {
    use x11rb::connection::Connection;
    use x11rb::protocol::shape::{ConnectionExt as _, SK, SO};
    use x11rb::protocol::xproto::{
        Arc as XArc, AtomEnum, ClipOrdering, ConfigureWindowAux, ConnectionExt, CreateGCAux, CreateWindowAux, PropMode, StackMode, WindowClass,
    };
    use x11rb::wrapper::ConnectionExt as _;
    let s = &conn.setup().roots[screen];
    let (win, gc) = (conn.generate_id()?, conn.generate_id()?);
    conn.create_window(
        s.root_depth,
        win,
        s.root,
        -i16::try_from(size).unwrap_or(64),
        0,
        size,
        size,
        0,
        WindowClass::INPUT_OUTPUT,
        s.root_visual,
        &CreateWindowAux::new().override_redirect(1).background_pixel(pixel(conn, s.default_colormap, BAND)),
    )?;
    conn.change_property8(PropMode::REPLACE, win, AtomEnum::WM_NAME, AtomEnum::STRING, RING_TITLE.as_bytes())?;
    let pid_atom = conn.intern_atom(false, b"_NET_WM_PID")?.reply()?.atom;
    conn.change_property32(PropMode::REPLACE, win, pid_atom, AtomEnum::CARDINAL, &[std::process::id()])?;
    conn.shape_rectangles(SO::SET, SK::BOUNDING, ClipOrdering::UNSORTED, win, 0, 0, &ring_rows(u32::from(size), u32::from(width)))?;
    // No input anywhere: clicks go through to what is under the ring.
    conn.shape_rectangles(SO::SET, SK::INPUT, ClipOrdering::UNSORTED, win, 0, 0, &[])?;
    conn.create_gc(gc, win, &CreateGCAux::new())?;
    let (edge, count) = (pixel(conn, s.default_colormap, EDGE), pixel(conn, s.default_colormap, COUNT));
    conn.flush()?;
    let mut shown: Option<(i16, i16)> = None;
    let full = 360 * 64;
    let circle = |inset: i16| XArc { x: inset, y: inset, width: size - 2 * inset as u16, height: size - 2 * inset as u16, angle1: 0, angle2: full };
    while !stop.load(Ordering::Relaxed) {
        let ring = snapshot.lock().ok().and_then(|s| s.dwell_ring.filter(|_| s.driving));
        match ring {
            Some(r) => {
                let half = f64::from(size) / 2.0;
                let at = ((r.at[0] - half).round() as i16, (r.at[1] - half).round() as i16);
                if shown != Some(at) {
                    conn.configure_window(win, &ConfigureWindowAux::new().x(i32::from(at.0)).y(i32::from(at.1)).stack_mode(StackMode::ABOVE))?;
                    if shown.is_none() {
                        conn.map_window(win)?;
                    }
                    shown = Some(at);
                }
                // The band, its white edges, and the count from the top, clockwise.
                conn.clear_area(false, win, 0, 0, size, size)?;
                let mid = (width / 2) as i16;
                conn.change_gc(gc, &x11rb::protocol::xproto::ChangeGCAux::new().foreground(edge).line_width(2))?;
                conn.poly_arc(win, gc, &[circle(1), circle(width as i16 - 1)])?;
                let frac = r.frac_at(Instant::now());
                conn.change_gc(gc, &x11rb::protocol::xproto::ChangeGCAux::new().foreground(count).line_width(u32::from(width.saturating_sub(4))))?;
                let sweep = -((frac * f64::from(full)).round() as i16);
                conn.poly_arc(win, gc, &[XArc { angle1: 90 * 64, angle2: sweep, ..circle(mid) }])?;
            }
            None if shown.is_some() => {
                conn.unmap_window(win)?;
                shown = None;
            }
            None => {}
        }
        conn.flush()?;
        std::thread::sleep(TICK);
    }
    conn.destroy_window(win)?;
    conn.flush()?;
    Ok(())
}

/// The pixel of colour `rgb` (0xRRGGBB) in `colormap`.
#[cfg(target_os = "linux")]
pub(super) fn pixel(conn: &x11rb::rust_connection::RustConnection, colormap: u32, rgb: u32) -> u32 {
    use x11rb::protocol::xproto::ConnectionExt;
    let c = |shift: u32| (((rgb >> shift) & 0xff) as u16) * 257;
    conn.alloc_color(colormap, c(16), c(8), c(0)).ok().and_then(|r| r.reply().ok()).map_or(rgb, |r| r.pixel)
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

#[cfg(test)]
mod tests {
    use eframe::egui::Color32;

    #[cfg(target_os = "linux")]
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

    #[test]
    fn the_rings_count_and_edges_stand_out_from_its_band() {
        let c = |rgb: u32| Color32::from_rgb((rgb >> 16) as u8, (rgb >> 8) as u8, rgb as u8);
        assert!(super::super::style::contrast(c(super::COUNT), c(super::BAND)) >= 3.0);
        assert!(super::super::style::contrast(c(super::EDGE), c(super::BAND)) >= 3.0);
    }
}
