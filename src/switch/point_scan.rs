//! Point scanning: the whole desktop by a switch alone (as Apple's Switch
//! Control does it). A vertical line sweeps across the screen from the left;
//! a press stops it there, and a horizontal line sweeps down from the top; the
//! next press clicks where the two lines cross. Each line starts again at
//! its edge when it reaches the other one; after `MAX_SWEEPS` sweeps without
//! a press the scan ends by itself, clicking nothing.
//!
//! This is the state alone, on the frames' clock; [`super::SwitchDecider`]
//! starts it, feeds it the presses, and makes the click.

use crate::events::Point;

/// A line that sweeps this many times without a press ends the scan.
pub const MAX_SWEEPS: f64 = 2.0;

/// Where a point scan is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// The vertical line sweeps across, since this time.
    Across { since: f64 },
    /// The vertical line stopped at `x`; the horizontal one sweeps down.
    Down { x: f64, since: f64 },
}

/// What a press did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Press {
    /// The vertical line stopped; the horizontal one starts.
    Stopped,
    /// Click here: the scan is over.
    Click(Point),
}

/// A point scan under way over `area` (left, top, width, height, in desktop pixels).
#[derive(Debug, Clone, PartialEq)]
pub struct PointScan {
    area: [f64; 4],
    sweep_ms: f64,
    phase: Phase,
}

impl PointScan {
    /// A scan of `area` starting at `t_ms`, each line crossing it in `sweep_ms`.
    #[must_use]
    pub fn new(area: [f64; 4], sweep_ms: f64, t_ms: f64) -> Self {
        Self { area, sweep_ms: sweep_ms.max(100.0), phase: Phase::Across { since: t_ms } }
    }

    /// How far a line that started at `since` has gone at `t_ms` (0 to 1, starting again at each edge).
    fn frac(&self, since: f64, t_ms: f64) -> f64 {
        ((t_ms - since).max(0.0) / self.sweep_ms).fract()
    }

    /// The lines at `t_ms`: the vertical line's x, and the horizontal line's
    /// y once the vertical one has stopped.
    #[must_use]
    pub fn lines(&self, t_ms: f64) -> (f64, Option<f64>) {
        let [x0, y0, w, h] = self.area;
        match self.phase {
            Phase::Across { since } => (x0 + self.frac(since, t_ms) * (w - 1.0).max(0.0), None),
            Phase::Down { x, since } => (x, Some(y0 + self.frac(since, t_ms) * (h - 1.0).max(0.0))),
        }
    }

    /// Where the pointer shows the scan: on the vertical line at the
    /// screen's middle height, then at the crossing.
    #[must_use]
    pub fn point(&self, t_ms: f64) -> Point {
        let (x, y) = self.lines(t_ms);
        [x, y.unwrap_or(self.area[1] + self.area[3] / 2.0)]
    }

    /// A press at `t_ms`.
    pub fn press(&mut self, t_ms: f64) -> Press {
        match self.phase {
            Phase::Across { .. } => {
                let (x, _) = self.lines(t_ms);
                self.phase = Phase::Down { x, since: t_ms };
                Press::Stopped
            }
            Phase::Down { .. } => Press::Click(self.point(t_ms)),
        }
    }

    /// Whether the line sweeping now has swept `MAX_SWEEPS` times without a press.
    #[must_use]
    pub fn expired(&self, t_ms: f64) -> bool {
        let since = match self.phase {
            Phase::Across { since } | Phase::Down { since, .. } => since,
        };
        t_ms - since >= MAX_SWEEPS * self.sweep_ms
    }
}

#[cfg(test)]
#[allow(clippy::float_cmp)] // the positions are exact in these tests
mod tests {
    use super::*;

    const AREA: [f64; 4] = [100.0, 50.0, 1001.0, 501.0];

    #[test]
    fn the_line_sweeps_across_then_down_and_the_second_press_clicks_at_the_crossing() {
        let mut s = PointScan::new(AREA, 4000.0, 1000.0);
        assert_eq!(s.lines(1000.0), (100.0, None), "from the left edge");
        assert_eq!(s.lines(2000.0), (350.0, None), "a quarter across after a quarter of the sweep");
        assert_eq!(s.point(2000.0), [350.0, 300.5], "the pointer on the line, at mid-height");
        assert_eq!(s.press(3000.0), Press::Stopped);
        assert_eq!(s.lines(3000.0), (600.0, Some(50.0)), "stopped halfway; the other line from the top");
        assert_eq!(s.lines(4000.0), (600.0, Some(175.0)));
        assert_eq!(s.press(5000.0), Press::Click([600.0, 300.0]));
    }

    #[test]
    fn a_line_starts_again_at_its_edge_and_the_scan_ends_after_two_sweeps_without_a_press() {
        let s = PointScan::new(AREA, 4000.0, 0.0);
        assert!((s.lines(5000.0).0 - 350.0).abs() < 1e-9, "the second sweep, a quarter on");
        assert!(!s.expired(7999.0));
        assert!(s.expired(8000.0));
        // A press starts the count again for the next line.
        let mut s = PointScan::new(AREA, 4000.0, 0.0);
        s.press(7000.0);
        assert!(!s.expired(14_999.0) && s.expired(15_000.0));
    }

    #[test]
    fn the_lines_stay_on_the_area() {
        let s = PointScan::new([0.0, 0.0, 1280.0, 800.0], 3000.0, 0.0);
        for i in 0..200 {
            let (x, _) = s.lines(f64::from(i) * 37.0);
            assert!((0.0..=1279.0).contains(&x), "{x}");
        }
    }
}
