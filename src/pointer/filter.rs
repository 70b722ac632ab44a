//! The One-Euro filter (Casiez, Roussel & Vogel, CHI 2012): a low-pass filter
//! whose cutoff rises with speed, so the pointer is steady when the user holds
//! still and follows without lag when they move.

use std::f64::consts::PI;

/// One-Euro filter of one coordinate.
#[derive(Debug, Clone)]
pub struct OneEuro {
    min_cutoff: f64,
    beta: f64,
    d_cutoff: f64,
    x: Option<f64>,
    dx: f64,
    t: f64,
}

fn alpha(cutoff: f64, dt: f64) -> f64 {
    let tau = 1.0 / (2.0 * PI * cutoff);
    1.0 / (1.0 + tau / dt)
}

impl OneEuro {
    /// `min_cutoff` in Hz (smoothing at rest), `beta` (how fast the cutoff rises with speed).
    #[must_use]
    pub fn new(min_cutoff: f64, beta: f64) -> Self {
        Self { min_cutoff: min_cutoff.max(1e-3), beta: beta.max(0.0), d_cutoff: 1.0, x: None, dx: 0.0, t: 0.0 }
    }

    /// Forgets the past (after a loss).
    pub fn reset(&mut self) {
        self.x = None;
        self.dx = 0.0;
    }

    /// Filters `x` observed at `t_ms`.
    pub fn filter(&mut self, x: f64, t_ms: f64) -> f64 {
        let Some(prev) = self.x else {
            self.x = Some(x);
            self.t = t_ms;
            return x;
        };
        let dt = ((t_ms - self.t) / 1000.0).max(1e-4);
        self.t = t_ms;
        let dx = (x - prev) / dt;
        self.dx += alpha(self.d_cutoff, dt) * (dx - self.dx);
        let cutoff = self.min_cutoff + self.beta * self.dx.abs();
        let out = prev + alpha(cutoff, dt) * (x - prev);
        self.x = Some(out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steady_when_still_and_quick_when_moving() {
        let mut f = OneEuro::new(1.0, 3.0);
        // Jitter of ±0.01 around 0: the output moves far less.
        let mut spread: f64 = 0.0;
        for i in 0..200 {
            let x = if i % 2 == 0 { 0.01 } else { -0.01 };
            let y = f.filter(x, f64::from(i) * 33.3);
            if i > 50 {
                spread = spread.max(y.abs());
            }
        }
        assert!(spread < 0.004, "{spread}");
        // A step of 0.5: most of it is followed within 100 ms.
        let mut y = 0.0;
        for i in 200..204 {
            y = f.filter(0.5, f64::from(i) * 33.3);
        }
        assert!(y > 0.4, "{y}");
    }
}
