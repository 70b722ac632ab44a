//! Why more SMA specialists do not help on head pose (`docs/pose.md`):
//! `cargo run --release --example sma_k`.
//!
//! Trains the SMA with K = 1, 2, 4 and 6 the way `facemouse train-pose` does,
//! and on one fresh test set at 1 px prints the mean absolute error (yaw /
//! pitch / roll, and their mean) when the feedback picks the proposal, when
//! the proposals are averaged with weights from the feedback, and when an
//! oracle that knows the true pose picks (a bound). Then K = 1 with more
//! centres and samples, to show how little capacity there is to gain.

use facemouse::events::Point;
use facemouse::face_model::{self as model, Camera, Pose};
use facemouse::lab::pose_train::{self, Sample, TrainConfig};
use facemouse::pose::sma;

/// Sums of absolute errors per angle.
#[derive(Default, Clone, Copy)]
struct Mae([f64; 3]);

impl Mae {
    fn add(&mut self, est: [f64; 3], s: &Sample, cam: &Camera) {
        let p = model::from_apparent(&Pose { yaw: est[0], pitch: est[1], roll: est[2] }, cam, s.at);
        for (e, (v, t)) in self.0.iter_mut().zip([p.yaw, p.pitch, p.roll].iter().zip(&s.y)) {
            *e += (v - t).abs();
        }
    }

    fn show(&self, n: usize) -> String {
        let m = self.0.map(|v| v / n as f64);
        format!("{:.2}/{:.2}/{:.2} (mean {:.3})", m[0], m[1], m[2], m.iter().sum::<f64>() / 3.0)
    }
}

fn weighted(props: &[[f64; 3]], logw: &[f64]) -> [f64; 3] {
    let top = logw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let w: Vec<f64> = logw.iter().map(|l| (l - top).exp()).collect();
    let total: f64 = w.iter().sum();
    let mut y = [0.0; 3];
    for (p, wi) in props.iter().zip(&w) {
        for (yk, pk) in y.iter_mut().zip(p) {
            *yk += wi / total * pk;
        }
    }
    y
}

fn main() {
    let cfg = TrainConfig::default();
    let cam = Camera::for_image(640.0, 480.0);
    let train = pose_train::generate(cfg.train, cfg.seed, cfg.noise_px);
    let test = pose_train::generate(2000, 777, 1.0);
    println!("test: 2000 samples at 1 px; MAE yaw/pitch/roll in degrees");
    for k in [1, 2, 4, 6] {
        let (m, _) = pose_train::fit(&train, k, cfg.centres, cfg.em_iterations, cfg.seed);
        let (mut picked, mut soft, mut oracle) = (Mae::default(), Mae::default(), Mae::default());
        for s in &test {
            let obs: Vec<Point> = s.x.chunks(2).map(|c| [c[0], c[1]]).collect();
            let props = m.proposals(&s.x);
            if let Some(p) = m.estimate(&s.x) {
                picked.add([p.yaw, p.pitch, p.roll], s, &cam);
            }
            let sigma = 2.0 * m.feedback_sigma;
            let logw: Vec<f64> = props
                .iter()
                .zip(&m.specialists)
                .map(|(p, sp)| sp.prior.max(1e-12).ln() - obs.len() as f64 * sma::feedback_error(p, &obs) / (2.0 * sigma * sigma))
                .collect();
            soft.add(weighted(&props, &logw), s, &cam);
            let mut best = (f64::INFINITY, Mae::default());
            for p in &props {
                let mut one = Mae::default();
                one.add(*p, s, &cam);
                if one.0.iter().sum::<f64>() < best.0 {
                    best = (one.0.iter().sum(), one);
                }
            }
            for (o, b) in oracle.0.iter_mut().zip(best.1.0) {
                *o += b;
            }
        }
        let n = test.len();
        println!("K={k}: feedback picks {}; feedback-weighted mean {}; oracle picks {}", picked.show(n), soft.show(n), oracle.show(n));
    }
    for (centres, samples) in [(300, 12_000), (500, 20_000)] {
        let bigger = pose_train::generate(samples, cfg.seed, cfg.noise_px);
        let (m, _) = pose_train::fit(&bigger, 1, centres, cfg.em_iterations, cfg.seed);
        let mut e = Mae::default();
        for s in &test {
            if let Some(p) = m.estimate(&s.x) {
                e.add([p.yaw, p.pitch, p.roll], s, &cam);
            }
        }
        println!("K=1 with {centres} centres and {samples} samples: {}", e.show(test.len()));
    }
}
