//! The `[pointer]` table: how head motion becomes pointer motion.

use serde::{Deserialize, Serialize};

use super::check;
use crate::events::Point;

/// What drives the pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Input {
    /// The tracked feature's displacement (inter-ocular distances).
    #[default]
    Feature,
    /// Head yaw and pitch (degrees), for users who turn the head but hardly shift it.
    Pose,
}

/// How the input becomes a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Mapping {
    /// Joystick: displacement gives velocity.
    #[default]
    Relative,
    /// The calibrated range of motion maps onto the screen.
    Absolute,
}

/// The user's range of motion: displacement from the neutral position in
/// input units (see [`Input`]), mirrored so x grows towards the user's right,
/// y downwards.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Range {
    pub left: f64,
    pub right: f64,
    pub top: f64,
    pub bottom: f64,
}

impl Default for Range {
    fn default() -> Self {
        // About a quarter of an eye distance each way: a modest head motion.
        Self { left: -0.25, right: 0.25, top: -0.15, bottom: 0.15 }
    }
}

impl Range {
    /// The range from samples of the input while the user followed a target to the edges and corners.
    #[must_use]
    pub fn from_samples(samples: &[Point]) -> Option<Self> {
        if samples.len() < 4 {
            return None;
        }
        let mut xs: Vec<f64> = samples.iter().map(|p| p[0]).collect();
        let mut ys: Vec<f64> = samples.iter().map(|p| p[1]).collect();
        xs.sort_by(f64::total_cmp);
        ys.sort_by(f64::total_cmp);
        // The 2nd and 98th percentiles: a stray sample does not stretch the range.
        let q = |v: &[f64], f: f64| v[((v.len() - 1) as f64 * f).round() as usize];
        let r = Self { left: q(&xs, 0.02), right: q(&xs, 0.98), top: q(&ys, 0.02), bottom: q(&ys, 0.98) };
        (r.right - r.left > 1e-6 && r.bottom - r.top > 1e-6).then_some(r)
    }
}

/// How the pointer and keys reach the desktop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum OutputBackend {
    /// uinput in a Wayland session, XTest otherwise.
    #[default]
    Auto,
    /// The X server's XTest extension (X11; on Wayland only XWayland's windows).
    Xtest,
    /// Linux virtual input devices (`/dev/uinput`): Wayland, X11 and the console.
    Uinput,
}

/// A rectangle of the desktop in pixels: a monitor, or the whole desktop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScreenArea {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
}

impl ScreenArea {
    /// Its centre.
    #[must_use]
    pub fn center(&self) -> Point {
        [f64::from(self.x) + f64::from(self.width) / 2.0, f64::from(self.y) + f64::from(self.height) / 2.0]
    }

    /// Whether `p` lies inside.
    #[must_use]
    pub fn contains(&self, p: Point) -> bool {
        let (x, y) = (f64::from(self.x), f64::from(self.y));
        p[0] >= x && p[1] >= y && p[0] < x + f64::from(self.width) && p[1] < y + f64::from(self.height)
    }
}

/// The relative mapping's default lead (see [`PointerSettings::lead_ms`]):
/// about a head's answer (0.12 s) and a glance's delay. The simulated user of
/// `facemouse eval-pointer` overshot each target three or four times, seeing
/// the pointer 0.2 s late; with the lead, 0.80 → 1.08 bits/s (four seeds:
/// 1.08–1.11), 150 to 500 ms all within 1.03–1.27.
pub const LEAD_MS: f64 = 200.0;

/// Pointer settings (the profile's `[pointer]` table).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PointerSettings {
    /// The virtual desktop the pointer maps onto: origin and size in pixels.
    pub screen_x: i32,
    pub screen_y: i32,
    pub screen_width: u32,
    pub screen_height: u32,
    /// Absolute mapping: the monitor the range maps onto; 0 is the whole
    /// desktop, 1 and up one monitor, numbered from the left (from the top
    /// where they are stacked). Relative mapping crosses every monitor.
    pub monitor: u32,
    /// The desktop's monitors, found when driving starts (not in the profile).
    #[serde(skip)]
    pub monitors: Vec<ScreenArea>,
    /// How the pointer and keys reach the desktop.
    pub output: OutputBackend,
    pub input: Input,
    pub mapping: Mapping,
    /// Relative mapping: pixels per second at one input unit beyond the dead
    /// band, for each direction (many users move more easily one way).
    pub gain_left: f64,
    pub gain_right: f64,
    pub gain_up: f64,
    pub gain_down: f64,
    /// Relative mapping: no motion within this displacement ("easy stop").
    pub dead_band: f64,
    /// Relative mapping: speed grows with displacement to this power (1 = linear).
    pub acceleration: f64,
    /// Relative mapping: never faster than this, in pixels per second.
    pub max_speed: f64,
    /// Absolute mapping: the calibrated range (the calibration wizard writes it).
    pub range: Range,
    /// One-Euro filter: cutoff at rest (Hz) and how fast it opens with speed.
    pub min_cutoff: f64,
    pub beta: f64,
    /// Recentre by itself after the head has rested this long near neutral (0 = never).
    pub auto_recenter_ms: f64,
    /// Relative mapping: as the head comes back towards neutral, the speed
    /// is that of where it will be this much later (its speed now carried
    /// forward), so the pointer slows as soon as the head turns back,
    /// before the head gets there (0 = off).
    pub lead_ms: f64,
    /// Dwell: the pointer must stay within this radius (pixels) ...
    pub dwell_radius: f64,
    /// ... for this long (ms).
    pub dwell_ms: f64,
}

impl Default for PointerSettings {
    fn default() -> Self {
        Self {
            screen_x: 0,
            screen_y: 0,
            screen_width: 1920,
            screen_height: 1080,
            monitor: 0,
            monitors: Vec::new(),
            output: OutputBackend::Auto,
            input: Input::Feature,
            mapping: Mapping::Relative,
            gain_left: 4000.0,
            gain_right: 4000.0,
            gain_up: 4000.0,
            gain_down: 4000.0,
            dead_band: 0.03,
            acceleration: 1.4,
            max_speed: 2500.0,
            range: Range::default(),
            min_cutoff: 1.0,
            beta: 3.0,
            auto_recenter_ms: 0.0,
            lead_ms: LEAD_MS,
            dwell_radius: 30.0,
            dwell_ms: 1000.0,
        }
    }
}

impl PointerSettings {
    /// The most monitors a profile may name.
    pub const MAX_MONITORS: u32 = 16;

    /// The whole desktop (every monitor).
    #[must_use]
    pub fn desktop(&self) -> ScreenArea {
        ScreenArea { x: self.screen_x, y: self.screen_y, width: self.screen_width, height: self.screen_height }
    }

    /// Where the absolute mapping lands: the chosen monitor, or the whole
    /// desktop (monitor 0, or a monitor that is not there).
    #[must_use]
    pub fn absolute_area(&self) -> ScreenArea {
        let k = self.monitor as usize;
        if k >= 1 && k <= self.monitors.len() { self.monitors[k - 1] } else { self.desktop() }
    }

    /// The area the mapping keeps the pointer on: the absolute mapping's
    /// monitor, or (relative) the whole desktop, across monitors.
    #[must_use]
    pub fn mapped_area(&self) -> ScreenArea {
        match self.mapping {
            Mapping::Absolute => self.absolute_area(),
            Mapping::Relative => self.desktop(),
        }
    }

    /// Pose input is in degrees, feature input in eye distances: the pose gains
    /// and dead band are scaled by this many degrees per eye distance.
    pub const DEGREES_PER_IOD: f64 = 40.0;
}

impl PointerSettings {
    /// Checks every value against its valid range; the error names the
    /// field as the profile spells it (`pointer.…`).
    ///
    /// # Errors
    /// The first field out of range, and why.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let p = self;
        check(p.screen_width >= 16 && p.screen_height >= 16, "pointer.screen_width", "the screen must be at least 16×16 pixels")?;
        check(p.monitor <= Self::MAX_MONITORS, "pointer.monitor", "must be 0 (the whole desktop) or a monitor's number, 1 to 16")?;
        for (g, f) in [(p.gain_left, "pointer.gain_left"), (p.gain_right, "pointer.gain_right"), (p.gain_up, "pointer.gain_up"), (p.gain_down, "pointer.gain_down")] {
            check(g > 0.0 && g <= 100_000.0, f, "must be more than 0 and at most 100000")?;
        }
        check((0.0..=0.5).contains(&p.dead_band), "pointer.dead_band", "must be 0 to 0.5 eye distances")?;
        check((0.5..=4.0).contains(&p.acceleration), "pointer.acceleration", "must be 0.5 to 4")?;
        check(p.max_speed > 0.0 && p.max_speed <= 1_000_000.0, "pointer.max_speed", "must be more than 0 and at most 1000000")?;
        let r = &p.range;
        check(r.right > r.left && r.bottom > r.top, "pointer.range", "right must exceed left and bottom exceed top")?;
        check([r.left, r.right, r.top, r.bottom].iter().all(|x| x.abs() <= 1000.0), "pointer.range", "must be within ±1000")?;
        check(p.min_cutoff > 0.0 && p.min_cutoff <= 30.0, "pointer.min_cutoff", "must be more than 0 and at most 30 Hz")?;
        check((0.0..=100.0).contains(&p.beta), "pointer.beta", "must be 0 to 100")?;
        check((0.0..=60_000.0).contains(&p.auto_recenter_ms), "pointer.auto_recenter_ms", "must be 0 to 60000 ms")?;
        check((0.0..=500.0).contains(&p.lead_ms), "pointer.lead_ms", "must be 0 to 500 ms")?;
        check((2.0..=500.0).contains(&p.dwell_radius), "pointer.dwell_radius", "must be 2 to 500 pixels")?;
        check((200.0..=10_000.0).contains(&p.dwell_ms), "pointer.dwell_ms", "must be 200 to 10000 ms")?;
        Ok(())
    }
}
