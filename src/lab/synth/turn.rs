//! The generated turning head's script (`synth --turning`, #28).

/// Scripted head turns: from frontal to `yaw_deg` to the right and back,
/// then to the left and back, then pitch up and down by `pitch_deg` (each
/// 3.5 s out, 1 s held, 3.5 s back, 1 s frontal), after `lead_s` frontal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Turn {
    pub yaw_deg: f64,
    pub pitch_deg: f64,
    /// The head also drifts about the frame (the generator's free motion,
    /// without roll or scale); otherwise it turns in place.
    pub moving: bool,
    /// Seconds frontal before the first turn (2 by default; AHM learns the
    /// face in its first 4–5 s of tracking, `vision::carry`).
    pub lead_s: f64,
}

impl Turn {
    /// Turns to ±90° of yaw and ±45° of pitch, as #28 asks for.
    #[must_use]
    pub fn wide() -> Self {
        Self { yaw_deg: 90.0, pitch_deg: 45.0, moving: false, lead_s: 2.0 }
    }

    /// How long the whole script takes with the default lead (s).
    pub const LENGTH_S: f64 = 2.0 + Self::TURNS_S;
    /// How long the four turns take (s).
    pub const TURNS_S: f64 = 4.0 * 9.0;

    /// How long the whole script takes (s).
    #[must_use]
    pub fn length_s(&self) -> f64 {
        self.lead_s + Self::TURNS_S
    }

    /// (yaw, pitch) in degrees at `t_ms`.
    #[must_use]
    pub fn pose_at(&self, t_ms: f64) -> (f64, f64) {
        let t = t_ms / 1000.0 - self.lead_s;
        if t < 0.0 {
            return (0.0, 0.0);
        }
        let leg = (t / 9.0).floor();
        let x = t - 9.0 * leg;
        let smooth = |u: f64| {
            let u = u.clamp(0.0, 1.0);
            u * u * (3.0 - 2.0 * u)
        };
        let amount = if x < 3.5 { smooth(x / 3.5) } else if x < 4.5 { 1.0 } else { 1.0 - smooth((x - 4.5) / 3.5) };
        match leg as i64 {
            0 => (self.yaw_deg * amount, 0.0),
            1 => (-self.yaw_deg * amount, 0.0),
            2 => (0.0, self.pitch_deg * amount),
            3 => (0.0, -self.pitch_deg * amount),
            _ => (0.0, 0.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_goes_out_holds_and_comes_back() {
        let t = Turn::wide();
        assert_eq!(t.pose_at(1000.0), (0.0, 0.0));
        assert!((t.pose_at(2000.0 + 4000.0).0 - 90.0).abs() < 1e-9, "held at 90° yaw");
        assert!((t.pose_at(2000.0 + 9000.0 + 4000.0).0 + 90.0).abs() < 1e-9, "then at −90°");
        assert!((t.pose_at(2000.0 + 18_000.0 + 4000.0).1 - 45.0).abs() < 1e-9, "then 45° up");
        assert!((t.pose_at(2000.0 + 27_000.0 + 4000.0).1 + 45.0).abs() < 1e-9, "then 45° down");
        assert_eq!(t.pose_at(Turn::LENGTH_S * 1000.0), (0.0, 0.0));
    }
}
