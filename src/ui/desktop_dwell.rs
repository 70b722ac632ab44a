//! Dwell clicking in other applications: the click-type toolbar (the
//! countdown ring at the pointer is [`super::ring`]).
//!
//! The toolbar is a small always-on-top window that never takes the focus.
//! Its targets choose what the next dwell does (left, right, double, drag,
//! scroll, no click); they are dwell targets themselves, and a click on
//! them works as well. The choice is the profile's `dwell` binding.

use eframe::egui::{self, Color32, RichText};

use super::activate::Activator;
use crate::settings::{Action, Dock, ScreenArea};

pub const TOOLBAR_TITLE: &str = "Facemouse clicks";

/// The toolbar's choices, in its order.
pub const CHOICES: [(Action, &str); 6] = [
    (Action::ClickLeft, "Left click"),
    (Action::ClickRight, "Right click"),
    (Action::DoubleClick, "Double click"),
    (Action::DragToggle, "Drag"),
    (Action::ScrollMode, "Scroll"),
    (Action::None, "No click"),
];

/// The toolbar's width, its targets' greatest and least height, and the gap
/// between them and round them (points): the usual, and the least it takes
/// on a low screen.
pub const TOOLBAR_WIDTH: f32 = 160.0;
/// Beside a menu at a side of a narrow screen, the toolbar is made narrower,
/// down to this (its longest label, "Double click", takes about 110).
const TOOLBAR_MIN_WIDTH: f32 = 130.0;
const TOOLBAR_TARGET_H: f32 = 56.0;
const TOOLBAR_TARGET_MIN_H: f32 = 30.0;
const TOOLBAR_GAP: f32 = 8.0;
const TOOLBAR_MIN_GAP: f32 = 4.0;

/// Where the toolbar's window goes and how its targets are laid out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ToolbarPlace {
    /// The frame's (x, y) and the inside's (width, height), points.
    pub at: [f32; 2],
    pub size: [f32; 2],
    /// The targets' height and the gap between and round them.
    pub target_h: f32,
    pub gap: f32,
}

/// The least height (points) of the toolbar's column with its window's
/// `frame`: every target at its least height, the gaps at their least.
#[must_use]
pub fn toolbar_min_height(frame: egui::Vec2) -> f32 {
    let n = CHOICES.len() as f32;
    n * TOOLBAR_TARGET_MIN_H + (n + 1.0) * TOOLBAR_MIN_GAP + frame.y
}

/// Where a column goes above or below a menu at the top or bottom (`menu`,
/// its window's frame and all) on a `screen` (points): its top and the
/// height it has there. `None` for a menu at a side (the whole height).
fn room_off_menu(dock: Dock, screen: [f32; 2], menu: egui::Rect) -> Option<(f32, f32)> {
    match dock {
        Dock::Top => Some((menu.max.y, screen[1] - menu.max.y)),
        Dock::Bottom => Some((0.0, menu.min.y)),
        Dock::Left | Dock::Right => None,
    }
}

/// Where the toolbar goes on a screen of `screen` points, given the edge
/// the menu docks to and the place of the menu's window there (`menu`,
/// its frame and all): a column at the right edge (the left one when the
/// menu docks right), beside, above or below the menu, never over it. Its
/// targets shrink to fit a low screen (down to `TOOLBAR_TARGET_MIN_H`, the
/// gaps down to `TOOLBAR_MIN_GAP`), and its window's `frame` (title bar and
/// borders) fits in the room too. Where a menu at the top or bottom leaves
/// too little room above or below it (a large zoom on a low screen), the
/// menu leaves the right edge's column free instead ([`toolbar_reserve`]),
/// and the toolbar takes it, the screen's height long. Beside a menu at a
/// side it is made narrower where the screen is (zoom 3 on 1024×768: a
/// menu at least 200 points wide and the toolbar's 160 overlapped by 21),
/// down to `TOOLBAR_MIN_WIDTH`.
#[must_use]
pub fn toolbar_place(dock: Dock, screen: [f32; 2], menu: egui::Rect, frame: egui::Vec2) -> ToolbarPlace {
    let width = match dock {
        Dock::Left => screen[0] - menu.max.x - frame.x,
        Dock::Right => menu.min.x - frame.x,
        Dock::Top | Dock::Bottom => TOOLBAR_WIDTH,
    }
    .clamp(TOOLBAR_MIN_WIDTH, TOOLBAR_WIDTH);
    let x = if dock == Dock::Right { 0.0 } else { screen[0] - width - frame.x };
    // Beside a menu at the top or bottom that leaves it the right edge: the whole height.
    let beside = menu.max.x <= x + 0.5;
    let (top, room) = room_off_menu(dock, screen, menu).filter(|_| !beside).unwrap_or((0.0, screen[1]));
    let n = CHOICES.len() as f32;
    let gap = ((room - frame.y - n * TOOLBAR_TARGET_MIN_H) / (n + 1.0)).clamp(TOOLBAR_MIN_GAP, TOOLBAR_GAP);
    let target_h = ((room - frame.y - (n + 1.0) * gap) / n).clamp(TOOLBAR_TARGET_MIN_H, TOOLBAR_TARGET_H);
    let height = n * target_h + (n + 1.0) * gap;
    ToolbarPlace { at: [x, top], size: [width, height], target_h, gap }
}

/// How much of the right edge (points) a menu docked at the top or bottom
/// leaves free for the toolbar (with its window's `frame`): none where the
/// toolbar's column fits above or below the menu (`menu`, where the menu
/// goes without it), else the column's width.
#[must_use]
pub fn toolbar_reserve(dock: Dock, screen: [f32; 2], menu: egui::Rect, frame: egui::Vec2) -> f32 {
    match room_off_menu(dock, screen, menu) {
        Some((_, room)) if room < toolbar_min_height(frame) => TOOLBAR_WIDTH + frame.x,
        _ => 0.0,
    }
}

/// The rectangle of the strip the menu docks to on `screen` (points): where
/// the toolbar goes when the menu's own window was not placed yet.
#[must_use]
pub fn menu_strip(dock: Dock, screen: [f32; 2]) -> egui::Rect {
    let (at, size) = dock.place(screen);
    egui::Rect::from_min_size(egui::pos2(at[0], at[1]), egui::vec2(size[0], size[1]))
}

/// The toolbar's targets are scanned (after the main window's) this many to a row.
pub const SCAN_COLUMNS: usize = 3;

/// The toolbar's state.
#[derive(Default)]
pub struct Toolbar {
    act: Activator,
    /// Scanning the main window's controls and then the toolbar's: the
    /// choices lit now, and the one the switch selected, as the toolbar's
    /// own numbers.
    pub scan: (Option<std::ops::Range<usize>>, Option<usize>),
    /// The no-focus hint was set on the window shown now.
    hinted: bool,
    /// Where the window was last seen (desktop pixels).
    pub area: Option<ScreenArea>,
    /// What the window manager's frame adds round the window's inside
    /// (points), as last seen.
    frame: egui::Vec2,
}

impl Toolbar {
    /// Whether its dwells wait (see [`Activator::hold`]).
    pub fn hold(&mut self, held: bool) {
        self.act.hold(held);
    }

    /// Shows the toolbar with `current` chosen, clear of the menu's window
    /// at `menu` (points; `None`: the strip its `dock` gives); returns a new choice.
    pub fn show(&mut self, ctx: &egui::Context, current: &Action, dock: Dock, menu: Option<egui::Rect>, dwell_ms: f64, background: Color32) -> Option<Action> {
        if !self.hinted {
            super::x11::set_takes_focus(TOOLBAR_TITLE, false);
            self.act.appeared();
            self.hinted = true;
            // Applications keep out of the toolbar's column.
            super::x11::reserve_edge(TOOLBAR_TITLE);
        }
        let mut builder = egui::ViewportBuilder::default()
            .with_title(TOOLBAR_TITLE)
            .with_always_on_top()
            .with_resizable(false)
            .with_taskbar(false)
            .with_active(false)
            .with_window_type(egui::X11WindowType::Utility);
        let screen = screen_points(ctx);
        let on = screen.unwrap_or([1280.0, 800.0]);
        let ToolbarPlace { at, size, target_h, gap } = toolbar_place(dock, on, menu.unwrap_or_else(|| menu_strip(dock, on)), self.frame);
        let target_w = size[0] - 2.0 * gap;
        builder = builder.with_inner_size(size);
        if screen.is_some() {
            builder = builder.with_position(at);
        }
        let mut chosen = None;
        let mut area = None;
        let mut frame_seen = None;
        let act = &mut self.act;
        let scan = self.scan.clone();
        ctx.show_viewport_immediate(egui::ViewportId::from_hash_of("facemouse-toolbar"), builder, |ui, _class| {
            let frame = egui::Frame::central_panel(ui.style()).fill(background).inner_margin(gap);
            egui::CentralPanel::default().frame(frame).show(ui, |ui| {
                ui.spacing_mut().item_spacing.y = gap;
                for (k, (action, name)) in CHOICES.iter().enumerate() {
                    let on = action == current;
                    let text = RichText::new(if on { format!("• {name}") } else { (*name).to_string() }).size(20.0);
                    // The chosen one is marked, and in the highlight unless
                    // scanning lights one of these (then that one is).
                    let lit = scan.0.as_ref().map_or(on, |l| l.contains(&k));
                    let b = super::style::target_button(ui, text, lit);
                    let r = ui.add_sized([target_w, target_h], b);
                    if (act.target(ui, &r, dwell_ms) || scan.1 == Some(k)) && !on {
                        chosen = Some(action.clone());
                    }
                }
            });
            area = outer_area(ui.ctx());
            frame_seen = frame_of(ui.ctx());
        });
        self.area = area;
        if let Some(f) = frame_seen {
            self.frame = f;
        }
        chosen
    }

    /// Where the toolbar's window goes, its frame and all (points; see
    /// [`toolbar_place`]): the main window keeps out of it too.
    #[must_use]
    pub fn rect(&self, dock: Dock, screen: [f32; 2], menu: egui::Rect) -> egui::Rect {
        let p = toolbar_place(dock, screen, menu, self.frame);
        egui::Rect::from_min_size(p.at.into(), egui::Vec2::from(p.size) + self.frame)
    }

    /// What the window manager's frame adds round the toolbar's inside (points), as last seen.
    #[must_use]
    pub fn frame(&self) -> egui::Vec2 {
        self.frame
    }

    /// The toolbar was closed: a window shown again is a new window.
    pub fn hidden(&mut self) {
        self.hinted = false;
        self.area = None;
    }
}

/// What the window manager's frame (title bar and borders) adds round the
/// inside of the viewport of `ctx` (points), where it is known: more than
/// 120 points is a window still being mapped, not a frame.
#[must_use]
pub fn frame_of(ctx: &egui::Context) -> Option<egui::Vec2> {
    ctx.input(|i| match (i.viewport().outer_rect, i.viewport().inner_rect) {
        (Some(o), Some(n)) => Some(o.size() - n.size()),
        _ => None,
    })
    .filter(|f| f.x >= 0.0 && f.y >= 0.0 && f.x <= 120.0 && f.y <= 120.0)
}

/// The screen's size in points, where it is known (a size of a hundred
/// points or less is not a screen but a window system that does not say).
#[must_use]
pub fn screen_points(ctx: &egui::Context) -> Option<[f32; 2]> {
    ctx.input(|i| i.viewport().monitor_size).filter(|s| s.x > 100.0 && s.y > 100.0).map(|s| [s.x, s.y])
}

/// The viewport's place on the desktop, in pixels.
pub fn outer_area(ctx: &egui::Context) -> Option<ScreenArea> {
    // Points are pixels over the zoom times the display's scale.
    let (r, ppp) = (ctx.input(|i| i.viewport().outer_rect)?, ctx.pixels_per_point());
    let px = |v: f32| (v * ppp).round() as i32;
    Some(ScreenArea { x: px(r.min.x), y: px(r.min.y), width: px(r.width()).max(0) as u32, height: px(r.height()).max(0) as u32 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_toolbar_never_covers_the_menu_and_stays_on_screen() {
        // Screens in points: 1280×800 and 1024×768 at the default zoom of 1.5, 1920×1080 at 1.
        for screen in [[853.0, 533.0], [1920.0, 1080.0], [683.0, 512.0], [1280.0, 800.0]] {
            for dock in [Dock::Bottom, Dock::Top, Dock::Left, Dock::Right] {
                let menu = menu_strip(dock, screen);
                // No frame, and a title bar of 20 pixels at zoom 1.5.
                for frame in [egui::Vec2::ZERO, egui::vec2(2.0, 14.0)] {
                    let p = toolbar_place(dock, screen, menu, frame);
                    assert!(p.target_h >= TOOLBAR_TARGET_MIN_H && (p.gap - TOOLBAR_GAP).abs() < 1e-3, "{dock:?} on {screen:?}");
                    let bar = egui::Rect::from_min_size(p.at.into(), egui::Vec2::from(p.size) + frame);
                    assert!(!bar.intersects(menu.shrink(0.5)), "{dock:?} on {screen:?} ({frame:?}): {bar:?} over the menu {menu:?}");
                    assert!(bar.min.x >= 0.0 && bar.min.y >= 0.0 && bar.max.x <= screen[0] + 1e-3 && bar.max.y <= screen[1] + 1e-3, "{dock:?} on {screen:?} ({frame:?}): {bar:?}");
                }
            }
        }
    }
}
