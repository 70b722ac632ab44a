//! The `[vision]` table: what counts as a gesture.

use serde::{Deserialize, Serialize};

use super::check;

/// Which point drives the pointer.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum FeaturePoint {
    /// Between the eyes, on the bridge of the nose (Camera Mouse users' choice).
    #[default]
    MidEyes,
    /// The nose tip, about 0.6 inter-ocular distances below the eyes.
    NoseTip,
    /// A point picked on the preview, as an offset from the point between the
    /// eyes in inter-ocular distances (x right, y down).
    Picked { dx: f64, dy: f64 },
}

/// Vision settings (the profile's `[vision]` table).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VisionSettings {
    /// Minimum duration of a voluntary long blink, in milliseconds.
    pub long_blink_ms: f64,
    /// Minimum duration of a wink, in milliseconds.
    pub wink_min_ms: f64,
    /// The pointer feature.
    pub feature: FeaturePoint,
    /// Brow raise: lift above rest (inter-ocular distances) that starts a raise
    /// (0.04 by default: a subtle raise, and the brows' lift with speech, reach
    /// 0.03, a meant raise 0.06; the calibration sets half the user's own) ...
    pub brow_on: f64,
    /// ... and that ends it.
    pub brow_off: f64,
    /// How long the lift must last before the raise counts, in ms.
    pub brow_min_ms: f64,
    /// After a raise ends, how long before another can start, in ms.
    pub brow_refractory_ms: f64,
    /// While the mouth moves as it does in talking, no face gesture acts: a
    /// raise does not start, a long blink is a blink, a wink is nothing.
    /// People who talk raise their brows with what they say. Off for a user
    /// whose mouth moves on its own (the brows then click while it moves).
    pub talk_guard: bool,
    /// A raise must lift both brows about alike (the lesser lift at least
    /// 0.6 of the greater): one brow that rises alone (a cocked brow, or a
    /// brow tracked onto something else as the head moves) does not click.
    /// Off for a person who can raise one brow only; the calibration turns
    /// it off when the user's own raises lift one brow.
    pub brows_together: bool,
    /// Past what the face's templates follow (about 45° of yaw), a model of
    /// the user's own face, learned in the first seconds, carries the
    /// pointer (Active Hidden Models); no gesture, dwell or switch acts until
    /// the face is tracked again. Off: a far turn is a loss, as before.
    pub carry_turns: bool,
}

impl Default for VisionSettings {
    fn default() -> Self {
        Self {
            long_blink_ms: 600.0,
            wink_min_ms: 250.0,
            feature: FeaturePoint::MidEyes,
            brow_on: 0.04,
            brow_off: 0.02,
            brow_min_ms: 90.0,
            brow_refractory_ms: 300.0,
            talk_guard: true,
            brows_together: true,
            carry_turns: true,
        }
    }
}

impl VisionSettings {
    /// Checks every value against its valid range; the error names the
    /// field as the profile spells it (`vision.…`).
    ///
    /// # Errors
    /// The first field out of range, and why.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let v = self;
        if let FeaturePoint::Picked { dx, dy } = v.feature {
            check(dx.abs() <= 3.0 && dy.abs() <= 3.0, "vision.feature", "a picked point must be within 3 eye distances of the eyes")?;
        }
        check((100.0..=5000.0).contains(&v.long_blink_ms), "vision.long_blink_ms", "must be 100 to 5000 ms")?;
        check((50.0..=3000.0).contains(&v.wink_min_ms), "vision.wink_min_ms", "must be 50 to 3000 ms")?;
        check((0.005..=0.3).contains(&v.brow_on), "vision.brow_on", "must be 0.005 to 0.3 eye distances")?;
        check(v.brow_off >= 0.0 && v.brow_off < v.brow_on, "vision.brow_off", "must be at least 0 and less than brow_on")?;
        check((0.0..=2000.0).contains(&v.brow_min_ms), "vision.brow_min_ms", "must be 0 to 2000 ms")?;
        check((0.0..=5000.0).contains(&v.brow_refractory_ms), "vision.brow_refractory_ms", "must be 0 to 5000 ms")?;
        Ok(())
    }
}
