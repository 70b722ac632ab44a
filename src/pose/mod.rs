//! Pose: head yaw, pitch and roll from the tracked points, by the Specialized
//! Mappings Architecture ([`sma`]) on the generic face of [`model`], with
//! OpenCV's `solvePnP` as the baseline ([`pnp`]).

pub mod pnp;
pub mod sma;

use std::path::{Path, PathBuf};

use crate::face_model as model;
pub use model::Pose;
pub use sma::Sma;

use crate::vision::Observation;

/// The model file the app loads.
pub const MODEL_FILE: &str = "sma-head-pose.json";

/// Pose-model failures.
#[derive(Debug, thiserror::Error)]
pub enum PoseError {
    #[error("head-pose model {0} is missing (run `facemouse train-pose` to make it)")]
    Missing(PathBuf),
    #[error("head-pose model {path} is damaged: {reason} (run `facemouse train-pose` to make it again)")]
    Corrupt { path: PathBuf, reason: String },
    #[error("cannot write the head-pose model {path}: {reason}")]
    Write { path: PathBuf, reason: String },
}

/// Where the shipped model lives.
#[must_use]
pub fn default_model_path() -> PathBuf {
    crate::data_dir().join("models").join(MODEL_FILE)
}

/// Loads a model, checking that it fits the points the trackers give.
///
/// # Errors
/// A missing, unreadable or inconsistent file.
pub fn load(path: &Path) -> Result<Sma, PoseError> {
    if !path.exists() {
        return Err(PoseError::Missing(path.to_path_buf()));
    }
    let corrupt = |reason: String| PoseError::Corrupt { path: path.to_path_buf(), reason };
    let text = std::fs::read_to_string(path).map_err(|e| corrupt(e.to_string()))?;
    let m: Sma = serde_json::from_str(&text).map_err(|e| corrupt(e.to_string()))?;
    let units = m.centres.len() + m.input_dim + 1;
    if m.format != sma::FORMAT
        || m.input_dim != 2 * model::POINTS.len()
        || m.specialists.is_empty()
        || m.centres.iter().any(|c| c.len() != m.input_dim)
        || m.specialists.iter().any(|s| s.weights.len() != units * 3 || !s.sigma.is_finite())
    {
        return Err(corrupt("it does not fit this version of Facemouse".into()));
    }
    Ok(m)
}

/// Saves a model atomically (a temporary file, then a rename).
///
/// # Errors
/// A folder that cannot be written.
pub fn save(m: &Sma, path: &Path) -> Result<(), PoseError> {
    let werr = |reason: String| PoseError::Write { path: path.to_path_buf(), reason };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| werr(e.to_string()))?;
    }
    let text = serde_json::to_string(m).map_err(|e| werr(e.to_string()))?;
    crate::profile::write_atomic(path, &(text + "\n")).map_err(|e| werr(e.to_string()))
}

/// The pose stage. Without a model it estimates nothing (and the pointer's
/// pose input cannot be used).
#[derive(Debug, Default)]
pub struct PoseEstimator {
    model: Option<Sma>,
    points: Vec<crate::events::Point>,
}

impl PoseEstimator {
    /// An estimator with `model` (or none).
    #[must_use]
    pub fn new(model: Option<Sma>) -> Self {
        Self { model, points: Vec::with_capacity(4) }
    }

    /// Whether a model is loaded.
    #[must_use]
    pub fn ready(&self) -> bool {
        self.model.is_some()
    }

    /// Estimates the pose of a tracked face in a `width`×`height` frame (the
    /// camera's focal length is taken as the frame width, as for most webcams).
    #[must_use]
    pub fn estimate(&mut self, obs: &Observation, width: f64, height: f64) -> Option<Pose> {
        let model = self.model.as_ref()?;
        self.points.clear();
        self.points.extend([obs.le?, obs.re?, obs.mid?, obs.nose?]);
        let at = crate::events::midpoint(self.points[0], self.points[1]);
        let cam = model::Camera::for_image(width, height);
        model.estimate_in(&model::features(&cam, &self.points)?, &cam, at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Sma {
        let train = crate::lab::pose_train::generate(400, 5, 1.0);
        crate::lab::pose_train::fit(&train, 2, 20, 5, 5).0
    }

    #[test]
    fn serialization_round_trips_and_errors_are_clear() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("m.json");
        let m = small();
        save(&m, &p).expect("save");
        let back = load(&p).expect("load");
        let x = &crate::lab::pose_train::generate(1, 9, 0.0)[0].x;
        let (a, b) = (m.estimate(x).expect("pose"), back.estimate(x).expect("pose"));
        assert!((a.yaw - b.yaw).abs() < 1e-9 && (a.pitch - b.pitch).abs() < 1e-9 && (a.roll - b.roll).abs() < 1e-9, "{a:?} {b:?}");

        let missing = load(&dir.path().join("nope.json")).expect_err("missing").to_string();
        assert!(missing.contains("missing") && missing.contains("train-pose"), "{missing}");
        std::fs::write(&p, "{ not json").expect("write");
        let bad = load(&p).expect_err("corrupt").to_string();
        assert!(bad.contains("damaged") && bad.contains("m.json"), "{bad}");
    }

    /// Tracking takes the point between the eyes and the nose tip where the
    /// generic face shows them with the head upright and facing the screen;
    /// those points must read as pose zero, or every pose is off by a constant.
    #[test]
    fn the_points_the_tracker_starts_with_read_as_pose_zero() {
        let mut est = PoseEstimator::new(Some(load(&default_model_path()).expect("shipped model")));
        let (w, h) = (640.0, 480.0);
        let cam = model::Camera::for_image(w, h);
        for (m, iod) in [([320.0, 240.0], 64.0), ([320.0, 240.0], 90.0), ([200.0, 300.0], 64.0), ([200.0, 300.0], 90.0), ([420.0, 180.0], 45.0)] {
            let [mid, nose] = model::neutral_offsets(&cam, m, iod);
            let face = |drop: f64| Observation {
                le: Some([m[0] + iod / 2.0, m[1]]),
                re: Some([m[0] - iod / 2.0, m[1]]),
                mid: Some([m[0] + mid[0] * iod, m[1] - mid[1] * iod]),
                nose: Some([m[0] + nose[0] * iod, m[1] - (nose[1] - drop) * iod]),
                ..Observation::default()
            };
            let p = est.estimate(&face(0.0), w, h).expect("pose");
            assert!(p.yaw.abs() < 1.0 && p.pitch.abs() < 1.0 && p.roll.abs() < 1.0, "at {m:?}, {iod} px: {p:?}");
            let down = est.estimate(&face(0.1), w, h).expect("pose");
            assert!(down.pitch < p.pitch - 3.0, "a lower nose is the head tilted down: {down:?} vs {p:?}");
        }
    }

    #[test]
    fn the_shipped_model_loads() {
        let m = load(&default_model_path()).expect("models/sma-head-pose.json ships with the project");
        assert!(m.meta.chosen_k >= 1);
    }
}
