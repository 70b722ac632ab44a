//! One activation path for every target in every window: a click (the
//! mouse, or the switch's click at the pointer) and a dwell (the pointer
//! resting on the target) both go through [`Activator::target`], so one
//! intent is one action:
//! - a target that fired is spent until the pointer has left it: a click
//!   followed by a rest does not fire again by dwell, and a long rest never
//!   repeats;
//! - after a change of layout (a submenu, a page, a zoom), whatever comes to
//!   lie under the resting pointer is spent too, until the pointer leaves it.
//!   It says so: a rest there is not ignored without a sign (a user rested
//!   3.9 s on a new toolbar's target and nothing came), but the target
//!   shows [`WAITING_HINT`] in its corner marks until the pointer leaves.
//!
//! - while Facemouse drives the pointer but the face does not move it (the
//!   face lost or not yet found, the camera sending no picture, or a pause:
//!   [`Activator::hold`]), no dwell counts: the pointer then rests where it
//!   was left, not where the user rests it, and a hand over the face
//!   selected the menu item under the pointer a second later. A rest counts
//!   from when the face moves it again; a click still acts.
//!
//! Time is the UI's clock (`egui::InputState::time`), so tests can step it.

use eframe::egui::{self, Stroke};

/// While a dwell counts, the window repaints this often to show its progress
/// (not at the display's rate: each repaint of the window is costly).
const DWELL_REPAINT: std::time::Duration = std::time::Duration::from_millis(100);

/// After a relayout, a pointer within this many points of where it was is
/// still resting (a head pointer trembles a little): a target found under
/// it came to the pointer, the pointer did not go to it.
const RESTING_RADIUS: f32 = 24.0;

/// What a target that came under the resting pointer says while it waits.
pub const WAITING_HINT: &str = "Move off, then back";

/// Which target the pointer rests on, since when, and whether it is spent
/// (`came`: because it came under the resting pointer, not because it fired).
#[derive(Debug, Clone, Copy)]
struct Rest {
    id: egui::Id,
    since: f64,
    spent: bool,
    came: bool,
}

/// The activation state of one window.
#[derive(Debug, Default)]
pub struct Activator {
    rest: Option<Rest>,
    /// Where the pointer rested when the layout last changed, until it
    /// moves away (on the desktop: a window the window manager moves as it
    /// appears does not move the resting pointer).
    relayout_at: Option<egui::Pos2>,
    /// The window has drawn its first target: appearing is a change of
    /// layout too (a window that opens under the resting pointer).
    started: bool,
    /// The window has just appeared on the desktop, and has not been told
    /// where the pointer is yet (X tells a window that maps under the
    /// resting pointer only after its first frames); since when (UI time,
    /// from its first pass after appearing).
    await_pointer: bool,
    appeared_at: Option<f64>,
    /// No dwell counts (see the module's documentation).
    held: bool,
}

/// A pointer first known inside a window that appeared at most this long
/// before (s) was resting there as it appeared; one that comes in later was
/// brought there by the user, and its rest counts (the menu's first target
/// rested on after it opened waited for the pointer to leave and come back).
const APPEAR_GRACE_S: f64 = 1.0;

impl Activator {
    /// Whether target `r` is activated in this pass, by a click or by a
    /// completed dwell of `dwell_ms`; draws the dwell's progress.
    pub fn target(&mut self, ui: &egui::Ui, r: &egui::Response, dwell_ms: f64) -> bool {
        let now = ui.input(|i| i.time);
        let pointer = on_desktop(ui.ctx());
        if !self.started {
            self.started = true;
            self.relayout_at = pointer;
        }
        // A window of ours that appeared (see `appeared`): where the pointer
        // is first known inside it counts as where it rested as the window
        // appeared. (Outside: a place from before the window manager moved
        // the window, which it does not hear of until the pointer moves.)
        let inside = ui.input(|i| i.pointer.latest_pos().is_some_and(|p| i.viewport_rect().contains(p)));
        if self.await_pointer {
            let since = *self.appeared_at.get_or_insert(now);
            if inside {
                self.await_pointer = false;
                if now - since <= APPEAR_GRACE_S {
                    self.relayout_at = pointer;
                }
            }
        }
        if let (Some(at), Some(p)) = (self.relayout_at, pointer)
            && at.distance(p) > RESTING_RADIUS
        {
            self.relayout_at = None;
        }
        if !r.hovered() {
            if self.rest.is_some_and(|s| s.id == r.id) {
                self.rest = None;
            }
            // Activated without the pointer on it (the accessibility tree, a key).
            return r.clicked();
        }
        let rest = match self.rest {
            Some(s) if s.id == r.id => s,
            _ => {
                // A target that came under the resting pointer is spent.
                let came = self.relayout_at.is_some();
                let s = Rest { id: r.id, since: now, spent: came, came };
                self.rest = Some(s);
                s
            }
        };
        if rest.spent {
            if rest.came {
                waiting_sign(ui, r.rect);
            }
            return false;
        }
        if self.held {
            // The rest starts over when the face is back; a click acts (and
            // spends the target, as always).
            let clicked = r.clicked();
            self.rest = Some(Rest { since: now, spent: clicked, came: false, ..rest });
            return clicked;
        }
        let frac = (now - rest.since) * 1000.0 / dwell_ms;
        if r.clicked() || frac >= 1.0 {
            self.rest = Some(Rest { spent: true, came: false, ..rest });
            return true;
        }
        let colour = super::style::Palette::of(ui).dwell;
        ui.painter().rect_stroke(r.rect, 4.0, Stroke::new((4.0 * frac.clamp(0.0, 1.0)) as f32, colour), egui::StrokeKind::Inside);
        ui.ctx().request_repaint_after(DWELL_REPAINT);
        false
    }

    /// Whether dwells wait, for this pass and the next ones: Facemouse
    /// drives the pointer but the face does not move it.
    pub fn hold(&mut self, held: bool) {
        self.held = held;
    }

    /// The window has just appeared on the desktop: the target where the
    /// pointer is first known to be is spent, as if it had come under the
    /// resting pointer, until the pointer leaves it.
    pub fn appeared(&mut self) {
        self.await_pointer = true;
        self.appeared_at = None;
    }

    /// The layout changed (a submenu, a page, a zoom, a profile): what now
    /// lies under the resting pointer is spent until the pointer leaves it.
    pub fn relayout(&mut self, ctx: &egui::Context) {
        if let Some(s) = &mut self.rest {
            s.spent = true;
            s.came = true;
        }
        self.relayout_at = on_desktop(ctx);
    }
}

/// The sign on a target that came under the resting pointer: corner marks
/// in the dwell colour and [`WAITING_HINT`] along its bottom edge.
fn waiting_sign(ui: &egui::Ui, rect: egui::Rect) {
    let colour = super::style::Palette::of(ui).dwell;
    let stroke = Stroke::new(3.0, colour);
    let arm = (rect.width().min(rect.height()) * 0.25).max(6.0);
    let p = ui.painter();
    for (corner, dx, dy) in [(rect.left_top(), 1.0, 1.0), (rect.right_top(), -1.0, 1.0), (rect.left_bottom(), 1.0, -1.0), (rect.right_bottom(), -1.0, -1.0)] {
        p.line_segment([corner, corner + egui::vec2(dx * arm, 0.0)], stroke);
        p.line_segment([corner, corner + egui::vec2(0.0, dy * arm)], stroke);
    }
    let size = (rect.height() * 0.22).clamp(9.0, 16.0);
    p.text(rect.center_bottom() - egui::vec2(0.0, 2.0), egui::Align2::CENTER_BOTTOM, WAITING_HINT, egui::FontId::proportional(size), ui.visuals().text_color());
}

/// Where the pointer is on the desktop (points), where the window's place
/// is known; in the window otherwise.
fn on_desktop(ctx: &egui::Context) -> Option<egui::Pos2> {
    ctx.input(|i| i.pointer.latest_pos().map(|p| p + i.viewport().inner_rect.map_or(egui::Vec2::ZERO, |r| r.min.to_vec2())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One pass at UI time `t` with the pointer at `at`, drawing one button
    /// whose id is made from `key`; whether it was activated.
    fn pass(ctx: &egui::Context, act: &mut Activator, t: f64, at: egui::Pos2, key: &str) -> bool {
        let input = egui::RawInput { time: Some(t), events: vec![egui::Event::PointerMoved(at)], ..Default::default() };
        let mut fired = false;
        let _ = ctx.run_ui(input, |ui| {
            ui.push_id(key, |ui| {
                let r = ui.add_sized([200.0, 100.0], egui::Button::new("target"));
                fired = act.target(ui, &r, 1000.0);
            });
        });
        fired
    }

    fn fired_between(ctx: &egui::Context, act: &mut Activator, from: f64, to: f64, at: egui::Pos2, key: &str) -> usize {
        let mut n = 0;
        let mut t = from;
        while t < to {
            n += usize::from(pass(ctx, act, t, at, key));
            t += 0.1;
        }
        n
    }

    /// A rest while the face is lost never fires, however long; once the
    /// face is back, it fires after a whole dwell from then, not at once.
    /// A click still acts while held.
    #[test]
    fn no_dwell_counts_while_the_face_is_lost_and_a_rest_counts_from_its_return() {
        let ctx = egui::Context::default();
        let mut act = Activator { started: true, ..Activator::default() };
        let at = egui::pos2(60.0, 40.0);
        assert!(!pass(&ctx, &mut act, 0.0, at, "k"));
        act.hold(true);
        assert_eq!(fired_between(&ctx, &mut act, 0.1, 3.0, at, "k"), 0, "held for 3 s: nothing");
        act.hold(false);
        assert_eq!(fired_between(&ctx, &mut act, 3.0, 3.85, at, "k"), 0, "the rest counts from the face's return");
        assert_eq!(fired_between(&ctx, &mut act, 3.85, 4.3, at, "k"), 1, "a whole dwell after it");
        // Without the hold, the same rest fires after one dwell.
        let mut free = Activator { started: true, ..Activator::default() };
        assert_eq!(fired_between(&ctx, &mut free, 0.0, 1.25, at, "j"), 1);
        // A click acts while held.
        let mut clicked = Activator { started: true, ..Activator::default() };
        clicked.hold(true);
        let _ = pass(&ctx, &mut clicked, 0.0, at, "c");
        let mut fired = false;
        for (t, events) in [(0.1, vec![egui::Event::PointerButton { pos: at, button: egui::PointerButton::Primary, pressed: true, modifiers: egui::Modifiers::NONE }]), (0.15, vec![egui::Event::PointerButton { pos: at, button: egui::PointerButton::Primary, pressed: false, modifiers: egui::Modifiers::NONE }])] {
            let input = egui::RawInput { time: Some(t), events, ..Default::default() };
            let _ = ctx.run_ui(input, |ui| {
                ui.push_id("c", |ui| {
                    let r = ui.add_sized([200.0, 100.0], egui::Button::new("target"));
                    fired |= clicked.target(ui, &r, 1000.0);
                });
            });
        }
        assert!(fired, "a click acts while the dwell is held");
        // ... and spends the target: no dwell fires it again once the face is back.
        clicked.hold(false);
        assert_eq!(fired_between(&ctx, &mut clicked, 0.2, 3.0, at, "c"), 0, "fired again after the click");
    }

    #[test]
    fn a_dwell_fires_once_and_a_target_that_comes_under_the_resting_pointer_waits() {
        let ctx = egui::Context::default();
        let mut act = Activator::default();
        let at = egui::pos2(60.0, 40.0);
        // The window appears under the resting pointer: nothing fires until the pointer moves on.
        assert_eq!(fired_between(&ctx, &mut act, 0.0, 3.0, at, "a"), 0, "a window that appeared under the pointer fired");
        pass(&ctx, &mut act, 3.0, egui::pos2(600.0, 500.0), "a");
        let mut act = Activator { started: true, ..Activator::default() };
        assert_eq!(fired_between(&ctx, &mut act, 0.0, 0.85, at, "a"), 0, "before the dwell time");
        assert_eq!(fired_between(&ctx, &mut act, 0.85, 5.0, at, "a"), 1, "once, however long the rest");
        // The layout changes: another target (another id) now lies under the pointer.
        act.relayout(&ctx);
        assert_eq!(fired_between(&ctx, &mut act, 5.0, 9.0, at, "b"), 0, "it came to the pointer: it waits");
        // The pointer leaves and comes back: now it is meant.
        assert_eq!(fired_between(&ctx, &mut act, 9.0, 9.3, egui::pos2(600.0, 500.0), "b"), 0);
        assert_eq!(fired_between(&ctx, &mut act, 9.3, 11.0, at, "b"), 1);
    }

    /// Whether the pass at `t` with the pointer at `at` painted the waiting sign.
    fn shows_waiting(ctx: &egui::Context, act: &mut Activator, t: f64, at: egui::Pos2) -> bool {
        let input = egui::RawInput { time: Some(t), events: vec![egui::Event::PointerMoved(at)], ..Default::default() };
        let out = ctx.run_ui(input, |ui| {
            ui.push_id("a", |ui| {
                let r = ui.add_sized([200.0, 100.0], egui::Button::new("target"));
                act.target(ui, &r, 1000.0);
            });
        });
        out.shapes.iter().any(|s| matches!(&s.shape, egui::Shape::Text(t) if t.galley.text() == WAITING_HINT))
    }

    /// A rest on a target that came under the pointer does not fire, but
    /// it is not ignored without a sign: the target says to move off and back.
    #[test]
    fn a_target_that_came_under_the_resting_pointer_says_so_until_the_pointer_leaves() {
        let ctx = egui::Context::default();
        let mut act = Activator::default();
        let at = egui::pos2(60.0, 40.0);
        assert!(shows_waiting(&ctx, &mut act, 0.0, at) || shows_waiting(&ctx, &mut act, 0.1, at), "the sign as the window appears under the pointer");
        assert!(shows_waiting(&ctx, &mut act, 3.9, at), "still there after a long rest");
        assert!(!shows_waiting(&ctx, &mut act, 4.0, egui::pos2(600.0, 500.0)));
        // Back on it: the dwell counts, with no sign; once fired, no sign either.
        assert!(!shows_waiting(&ctx, &mut act, 4.2, at));
        assert_eq!(fired_between(&ctx, &mut act, 4.3, 6.0, at, "a"), 1);
        assert!(!shows_waiting(&ctx, &mut act, 6.1, at), "spent by firing: no sign");
    }

    /// The pointer brought into a new window later than its appearing (the
    /// user moving onto the menu's first target): the rest there counts.
    #[test]
    fn a_pointer_that_comes_into_a_new_window_later_is_not_taken_for_a_resting_one() {
        let ctx = egui::Context::default();
        let mut act = Activator::default();
        act.appeared();
        // Two seconds with the pointer outside the window.
        for k in 0..20 {
            let input = egui::RawInput { time: Some(f64::from(k) * 0.1), events: vec![egui::Event::PointerGone], ..Default::default() };
            let _ = ctx.run_ui(input, |ui| {
                let r = ui.add_sized([200.0, 100.0], egui::Button::new("target"));
                assert!(!act.target(ui, &r, 1000.0));
            });
        }
        let at = egui::pos2(60.0, 40.0);
        assert_eq!(fired_between(&ctx, &mut act, 2.0, 3.5, at, "a"), 1, "the first rest in the window counts");
    }

    /// A window that appears where the pointer rests learns where it is only
    /// after its first frames: the target found there then waits too.
    #[test]
    fn a_window_that_learns_late_where_the_resting_pointer_is_fires_nothing_there() {
        let ctx = egui::Context::default();
        let mut act = Activator::default();
        act.appeared();
        for k in 0..3 {
            let input = egui::RawInput { time: Some(f64::from(k) * 0.1), ..Default::default() };
            let _ = ctx.run_ui(input, |ui| {
                let r = ui.add_sized([200.0, 100.0], egui::Button::new("target"));
                assert!(!act.target(ui, &r, 1000.0));
            });
        }
        let at = egui::pos2(60.0, 40.0);
        assert_eq!(fired_between(&ctx, &mut act, 0.3, 3.0, at, "a"), 0, "the target under the resting pointer fired");
        assert_eq!(fired_between(&ctx, &mut act, 3.0, 3.3, egui::pos2(600.0, 500.0), "a"), 0);
        assert_eq!(fired_between(&ctx, &mut act, 3.3, 5.0, at, "a"), 1, "once the pointer has come to it");
    }
}
