//! Running estimates over time that the detectors use to learn a person's own levels.

use std::collections::VecDeque;

/// An exponential running estimate with a time constant.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ema {
    pub value: f64,
    pub ready: bool,
}

impl Ema {
    /// Moves towards `x` with time constant `tau_ms` over `dt_ms`.
    pub fn update(&mut self, x: f64, dt_ms: f64, tau_ms: f64) {
        if self.ready {
            self.value += alpha(dt_ms, tau_ms) * (x - self.value);
        } else {
            self.value = x;
            self.ready = true;
        }
    }
}

/// The weight a step of `dt_ms` gets in an exponential average of time constant `tau_ms`.
#[must_use]
pub fn alpha(dt_ms: f64, tau_ms: f64) -> f64 {
    1.0 - (-dt_ms.max(0.0) / tau_ms.max(1e-9)).exp()
}

/// A robust running level: the median and the median absolute deviation of
/// the values seen in the last `span_ms`. Short excursions (blinks) do not move it.
#[derive(Debug, Clone, Default)]
pub struct RobustWindow {
    values: VecDeque<(f64, f64)>,
    scratch: Vec<f64>,
    median: f64,
    mad: f64,
}

impl RobustWindow {
    /// Adds a value at time `t_ms` and forgets those older than `span_ms`.
    pub fn push(&mut self, t_ms: f64, v: f64, span_ms: f64) {
        self.values.push_back((t_ms, v));
        while self.values.front().is_some_and(|(t, _)| t_ms - t > span_ms) {
            self.values.pop_front();
        }
        self.scratch.clear();
        self.scratch.extend(self.values.iter().map(|(_, v)| *v));
        // The middle order statistics only (not a sort of the window, twice a frame).
        let mid = self.scratch.len() / 2;
        self.median = *self.scratch.select_nth_unstable_by(mid, f64::total_cmp).1;
        for x in &mut self.scratch {
            *x = (*x - self.median).abs();
        }
        self.mad = *self.scratch.select_nth_unstable_by(mid, f64::total_cmp).1;
    }

    /// Forgets every value.
    pub fn clear(&mut self) {
        self.values.clear();
        self.median = 0.0;
        self.mad = 0.0;
    }

    /// How many values it holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether it holds no value.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The time the window covers, in ms.
    #[must_use]
    pub fn covered_ms(&self) -> f64 {
        match (self.values.front(), self.values.back()) {
            (Some(a), Some(b)) => b.0 - a.0,
            _ => 0.0,
        }
    }

    #[must_use]
    pub fn median(&self) -> f64 {
        self.median
    }

    /// The median absolute deviation scaled to a standard deviation (×1.4826).
    #[must_use]
    pub fn sigma(&self) -> f64 {
        1.4826 * self.mad
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_level_ignores_short_excursions() {
        let mut w = RobustWindow::default();
        for i in 0..120 {
            let v = if i % 20 < 3 { 0.5 } else { 0.9 };
            w.push(f64::from(i) * 33.3, v, 4000.0);
        }
        assert!((w.median() - 0.9).abs() < 1e-9);
        assert!(w.sigma() < 1e-9);
        assert_eq!(w.len(), 120);
        w.clear();
        assert!(w.is_empty());
    }

    /// The level and spread are the sorted window's middle values, for odd
    /// and even lengths, ties and a window that forgets.
    #[test]
    #[allow(clippy::float_cmp)] // the same values, not near ones
    fn the_median_and_its_deviation_are_the_sorted_windows_middle() {
        let middle = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let mut rng = crate::lab::synth::Rng::new(4);
        let mut w = RobustWindow::default();
        for i in 0..300 {
            let v = (rng.uniform(0.0, 8.0)).floor() / 8.0;
            w.push(f64::from(i) * 33.3, v, 3000.0);
            let values: Vec<f64> = w.values.iter().map(|(_, v)| *v).collect();
            let m = middle(values.clone());
            assert_eq!(w.median(), m, "frame {i}");
            assert_eq!(w.mad, middle(values.iter().map(|v| (v - m).abs()).collect()), "frame {i}");
        }
    }

    #[test]
    fn the_window_forgets_by_time_not_by_count() {
        let mut w = RobustWindow::default();
        for i in 0..10 {
            w.push(f64::from(i) * 500.0, f64::from(i), 2000.0);
        }
        assert_eq!(w.len(), 5);
        assert!((w.covered_ms() - 2000.0).abs() < 1e-9);
    }

    #[test]
    fn an_average_moves_by_time_not_by_frames() {
        // One 200 ms step moves it as far as six 33.3 ms steps.
        let (mut slow, mut fast) = (Ema::default(), Ema::default());
        slow.update(0.0, 0.0, 300.0);
        fast.update(0.0, 0.0, 300.0);
        slow.update(1.0, 200.0, 300.0);
        for _ in 0..6 {
            fast.update(1.0, 200.0 / 6.0, 300.0);
        }
        assert!((slow.value - alpha(200.0, 300.0)).abs() < 1e-12);
        assert!((fast.value - slow.value).abs() < 1e-12, "{} vs {}", fast.value, slow.value);
    }
}
