//! The Specialized Mappings Architecture (Rosales & Sclaroff) for head pose.
//!
//! K specialized forward functions map the normalized 2D points to (yaw,
//! pitch, roll); each is an RBF regressor (Gaussian units on shared centres
//! plus a linear part). EM learns them together with the regions they
//! specialize in: the E-step gives every training sample a responsibility per
//! function from that function's error, and the M-step refits each function
//! by weighted least squares. At run time every function proposes a pose, and
//! the feedback function renders the 3D face at each proposal and keeps the
//! one whose rendering best matches the observed points. A few Gauss–Newton
//! steps on the reprojection error can refine it (reported separately).
//!
//! The training (EM) and its generated data are in `lab::pose_train`: the
//! product only loads a trained model and runs it.

use nalgebra::{DMatrix, DVector, Matrix3, Vector3};
use serde::{Deserialize, Serialize};

use crate::face_model::{self as model, Camera, FACE_MM, Pose};
use crate::events::Point;

/// One specialized function: Gaussian units on the shared centres plus a linear part.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Specialist {
    /// (units + inputs + 1) × 3 weights, row-major.
    pub weights: Vec<f64>,
    /// Prior weight of this function.
    pub prior: f64,
    /// Its output noise (degrees, per angle).
    pub sigma: f64,
}

/// A trained SMA with its training metadata.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Sma {
    pub format: u32,
    pub points: Vec<String>,
    pub input_dim: usize,
    /// Shared RBF centres, each `input_dim` long.
    pub centres: Vec<Vec<f64>>,
    pub gamma: f64,
    pub specialists: Vec<Specialist>,
    /// Feedback: the noise of the rendered points, in eye distances.
    pub feedback_sigma: f64,
    pub meta: TrainingMeta,
}

/// How a model was made.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrainingMeta {
    pub seed: u64,
    pub train_samples: usize,
    pub validation_samples: usize,
    pub train_noise_px: f64,
    pub em_iterations: usize,
    /// Validation MAE (degrees, mean of the three angles) for each K tried.
    pub k_validation_mae: Vec<(usize, f64)>,
    pub chosen_k: usize,
    pub log_likelihood: Vec<f64>,
}

/// Current file format.
pub const FORMAT: u32 = 1;

pub(crate) fn features(x: &[f64], centres: &[Vec<f64>], gamma: f64, out: &mut Vec<f64>) {
    out.clear();
    for c in centres {
        let d2: f64 = x.iter().zip(c).map(|(a, b)| (a - b).powi(2)).sum();
        out.push((-gamma * d2).exp());
    }
    out.extend_from_slice(x);
    out.push(1.0);
}

pub(crate) fn predict(w: &[f64], phi: &[f64]) -> [f64; 3] {
    let mut y = [0.0; 3];
    for (i, f) in phi.iter().enumerate() {
        for (k, yk) in y.iter_mut().enumerate() {
            *yk += f * w[i * 3 + k];
        }
    }
    y
}

impl Sma {
    /// Every specialist's proposal for input `x`.
    #[must_use]
    pub fn proposals(&self, x: &[f64]) -> Vec<[f64; 3]> {
        let mut phi = Vec::with_capacity(self.centres.len() + x.len() + 1);
        features(x, &self.centres, self.gamma, &mut phi);
        self.specialists.iter().map(|s| predict(&s.weights, &phi)).collect()
    }

    /// The pose relative to the camera of a face whose eye midpoint is at `at`.
    #[must_use]
    pub fn estimate_in(&self, x: &[f64], cam: &Camera, at: Point) -> Option<Pose> {
        self.estimate(x).map(|a| model::from_apparent(&a, cam, at))
    }

    /// The apparent pose whose rendering best explains the observed (normalized) points.
    #[must_use]
    pub fn estimate(&self, x: &[f64]) -> Option<Pose> {
        if x.len() != self.input_dim || x.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let obs: Vec<Point> = x.chunks(2).map(|c| [c[0], c[1]]).collect();
        let props = self.proposals(x);
        let best = props
            .iter()
            .zip(&self.specialists)
            .map(|(y, s)| (s.prior.max(1e-12).ln() - feedback_error(y, &obs) / (2.0 * self.feedback_sigma.powi(2)), y))
            .max_by(|a, b| a.0.total_cmp(&b.0))?;
        Some(Pose { yaw: best.1[0], pitch: best.1[1], roll: best.1[2] })
    }

}

/// The face rotated to `y` and projected orthographically (x right, y down), at best scale and offset.
fn render(y: &[f64; 3], obs: &[Point]) -> (Vec<Point>, f64) {
    let r: Matrix3<f64> = model::rotation(&Pose { yaw: y[0], pitch: y[1], roll: y[2] });
    let q: Vec<Point> = FACE_MM
        .iter()
        .take(obs.len())
        .map(|p| {
            let v = r * Vector3::new(p[0], p[1], p[2]);
            [v.x, -v.y]
        })
        .collect();
    let n = q.len() as f64;
    let (qm, om) = (mean(&q), mean(obs));
    let (mut num, mut den) = (0.0, 0.0);
    for (a, b) in q.iter().zip(obs) {
        num += (a[0] - qm[0]) * (b[0] - om[0]) + (a[1] - qm[1]) * (b[1] - om[1]);
        den += (a[0] - qm[0]).powi(2) + (a[1] - qm[1]).powi(2);
    }
    let s = if den > 0.0 { num / den } else { 0.0 };
    let rendered: Vec<Point> = q.iter().map(|a| [om[0] + s * (a[0] - qm[0]), om[1] + s * (a[1] - qm[1])]).collect();
    let err = rendered.iter().zip(obs).map(|(a, b)| (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sum::<f64>() / n;
    (rendered, err)
}

fn mean(v: &[Point]) -> Point {
    let n = v.len().max(1) as f64;
    [v.iter().map(|p| p[0]).sum::<f64>() / n, v.iter().map(|p| p[1]).sum::<f64>() / n]
}

/// The feedback function: the mean squared distance (eye distances²) between the
/// observed points and the 3D face rendered at pose `y`.
#[must_use]
pub fn feedback_error(y: &[f64; 3], obs: &[Point]) -> f64 {
    render(y, obs).1
}

/// A few Gauss–Newton steps on the reprojection error from `start` (normalized points `x`).
#[must_use]
pub fn refine(start: &Pose, x: &[f64], steps: usize) -> Pose {
    let obs: Vec<Point> = x.chunks(2).map(|c| [c[0], c[1]]).collect();
    let mut p = [start.yaw, start.pitch, start.roll];
    let residuals = |p: &[f64; 3]| -> Vec<f64> {
        let (r, _) = render(p, &obs);
        r.iter().zip(&obs).flat_map(|(a, b)| [a[0] - b[0], a[1] - b[1]]).collect()
    };
    for _ in 0..steps {
        let r0 = residuals(&p);
        let h = 0.05;
        let mut j = DMatrix::<f64>::zeros(r0.len(), 3);
        for k in 0..3 {
            let mut q = p;
            q[k] += h;
            let r1 = residuals(&q);
            for i in 0..r0.len() {
                j[(i, k)] = (r1[i] - r0[i]) / h;
            }
        }
        let jt = j.transpose();
        let mut a = &jt * &j;
        for d in 0..3 {
            a[(d, d)] += 1e-6;
        }
        let g = &jt * DVector::from_vec(r0.clone());
        let Some(delta) = a.cholesky().map(|c| c.solve(&g)) else { break };
        let next = [p[0] - delta[0], p[1] - delta[1], p[2] - delta[2]];
        let before: f64 = r0.iter().map(|v| v * v).sum();
        let after: f64 = residuals(&next).iter().map(|v| v * v).sum();
        if after >= before {
            break;
        }
        p = next;
    }
    Pose { yaw: p[0], pitch: p[1], roll: p[2] }
}

