//! The window's colours, one palette per theme, checked for contrast (WCAG
//! 2.1): text at least 4.5:1 against what it sits on; control edges, the
//! dwell ring and the scan highlight at least 3:1.

use eframe::egui::{self, Color32, Stroke};

use crate::settings::UiSettings;

/// What a status line means, for its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Info,
    Good,
    Warn,
    Bad,
}

/// The colours of one theme.
#[derive(Debug, Clone, Copy)]
pub struct Palette {
    pub background: Color32,
    pub text: Color32,
    /// A button's fill, and its edge (at least 3:1 against the background).
    pub button: Color32,
    pub edge: Color32,
    /// The dwell ring that fills while the pointer rests on a target.
    pub dwell: Color32,
    /// The scanning highlight: its fill, and the text on it.
    pub highlight: Color32,
    pub highlight_text: Color32,
    info: Color32,
    good: Color32,
    warn: Color32,
    bad: Color32,
}

impl Palette {
    /// The light theme, or the high-contrast one (white on black).
    #[must_use]
    pub fn new(high_contrast: bool) -> Self {
        if high_contrast {
            Self {
                background: Color32::BLACK,
                text: Color32::WHITE,
                button: Color32::from_gray(40),
                edge: Color32::YELLOW,
                dwell: Color32::from_rgb(80, 230, 120),
                highlight: Color32::YELLOW,
                highlight_text: Color32::BLACK,
                info: Color32::from_rgb(130, 180, 255),
                good: Color32::from_rgb(80, 230, 120),
                warn: Color32::from_rgb(255, 190, 40),
                bad: Color32::from_rgb(255, 120, 120),
            }
        } else {
            let v = egui::Visuals::light();
            Self {
                background: v.panel_fill,
                text: Color32::from_gray(20),
                button: v.widgets.inactive.weak_bg_fill,
                edge: Color32::from_gray(95),
                dwell: Color32::from_rgb(0, 110, 40),
                highlight: Color32::from_rgb(0, 60, 160),
                highlight_text: Color32::WHITE,
                info: Color32::from_rgb(0, 70, 170),
                good: Color32::from_rgb(0, 110, 40),
                warn: Color32::from_rgb(150, 75, 0),
                bad: Color32::from_rgb(180, 0, 0),
            }
        }
    }

    /// The palette of the theme `ui` is drawn in.
    #[must_use]
    pub fn of(ui: &egui::Ui) -> Self {
        Self::new(ui.visuals().dark_mode)
    }

    /// The colour of a status line.
    #[must_use]
    pub fn tone(&self, t: Tone) -> Color32 {
        match t {
            Tone::Info => self.info,
            Tone::Good => self.good,
            Tone::Warn => self.warn,
            Tone::Bad => self.bad,
        }
    }
}

/// A target's button, in the scanning highlight when `lit`.
pub fn target_button(ui: &egui::Ui, text: egui::RichText, lit: bool) -> egui::Button<'static> {
    let p = Palette::of(ui);
    if lit { egui::Button::new(text.color(p.highlight_text)).fill(p.highlight) } else { egui::Button::new(text) }
}

/// Applies zoom and colours; returns the background colour.
#[must_use]
pub fn apply(ctx: &egui::Context, ui: &UiSettings) -> Color32 {
    ctx.set_zoom_factor(ui.zoom.clamp(0.75, 3.0));
    let p = Palette::new(ui.high_contrast);
    let mut v = if ui.high_contrast { egui::Visuals::dark() } else { egui::Visuals::light() };
    v.override_text_color = Some(p.text);
    v.panel_fill = p.background;
    v.window_fill = p.background;
    for w in [&mut v.widgets.inactive, &mut v.widgets.hovered, &mut v.widgets.active, &mut v.widgets.open] {
        w.bg_stroke = Stroke::new(2.0, p.edge);
    }
    v.widgets.inactive.bg_fill = p.button;
    v.widgets.inactive.weak_bg_fill = p.button;
    // The keyboard focus and the selection are drawn with the edge colour too.
    v.selection.stroke = Stroke::new(2.0, p.edge);
    v.selection.bg_fill = p.highlight;
    // The background is the framebuffer's clear colour (`clear_color`), not
    // a panel-sized shape painted over it on every repaint: with software
    // rendering, one full-window layer less.
    let bg = v.panel_fill;
    v.panel_fill = Color32::TRANSPARENT;
    ctx.set_visuals(v);
    // A target is under the pointer up to the middle of the gap round it.
    ctx.all_styles_mut(|s| s.interaction.interact_radius = super::menu_panel::HIT_MARGIN);
    bg
}

/// WCAG 2.1 contrast ratio of two opaque colours (1 to 21).
#[must_use]
pub fn contrast(a: Color32, b: Color32) -> f64 {
    let lum = |c: Color32| {
        let lin = |v: u8| {
            let s = f64::from(v) / 255.0;
            if s <= 0.040_45 { s / 12.92 } else { ((s + 0.055) / 1.055).powf(2.4) }
        };
        0.2126 * lin(c.r()) + 0.7152 * lin(c.g()) + 0.0722 * lin(c.b())
    };
    let (la, lb) = (lum(a), lum(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pair the window draws, in both themes.
    pub(crate) fn ratios(high_contrast: bool) -> Vec<(&'static str, f64, f64)> {
        let p = Palette::new(high_contrast);
        let mut out = vec![
            ("text on the background", contrast(p.text, p.background), 4.5),
            ("text on a button", contrast(p.text, p.button), 4.5),
            ("a button's edge against the background", contrast(p.edge, p.background), 3.0),
            ("the dwell ring against a button", contrast(p.dwell, p.button), 3.0),
            ("the scan highlight against the background", contrast(p.highlight, p.background), 3.0),
            ("text on the scan highlight", contrast(p.highlight_text, p.highlight), 4.5),
        ];
        for (t, what) in [(Tone::Info, "a status line: searching"), (Tone::Good, "a status line: tracking"), (Tone::Warn, "a status line: paused"), (Tone::Bad, "a status line: lost, a problem")] {
            out.push((what, contrast(p.tone(t), p.background), 4.5));
        }
        out
    }

    #[test]
    fn every_pair_meets_wcag_in_both_themes() {
        for hc in [false, true] {
            for (what, ratio, need) in ratios(hc) {
                assert!(ratio >= need, "high contrast {hc}: {what} is {ratio:.2}:1, needs {need}:1");
            }
        }
    }

    #[test]
    fn the_ratio_is_the_wcag_one() {
        assert!((contrast(Color32::BLACK, Color32::WHITE) - 21.0).abs() < 1e-9);
        assert!((contrast(Color32::WHITE, Color32::WHITE) - 1.0).abs() < 1e-9);
        // White on the old yellow highlight: the 1.45:1 the issue measured.
        assert!((contrast(Color32::WHITE, Color32::from_rgb(255, 210, 0)) - 1.45).abs() < 0.05);
    }

    #[test]
    fn the_applied_visuals_use_the_palette() {
        let ctx = egui::Context::default();
        for hc in [false, true] {
            let bg = apply(&ctx, &UiSettings { high_contrast: hc, ..UiSettings::default() });
            let p = Palette::new(hc);
            assert_eq!(bg, p.background);
            let v = ctx.global_style().visuals.clone();
            assert_eq!(v.widgets.inactive.bg_stroke.color, p.edge);
            assert_eq!(v.override_text_color, Some(p.text));
        }
    }

    /// The figures for the closing note: `cargo test --lib style -- --nocapture print_ratios`.
    #[test]
    fn print_ratios() {
        for hc in [false, true] {
            for (what, ratio, need) in ratios(hc) {
                println!("{} | {what} | {ratio:.2}:1 (needs {need}:1)", if hc { "high contrast" } else { "light" });
            }
        }
    }
}
