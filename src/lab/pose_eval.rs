//! `facemouse eval-pose`: the SMA against solvePnP on generated test sets at
//! several noise levels, and against the labels of real sequences.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;

use crate::face_model::Camera;
use crate::pose::pnp::{self, Method};
use crate::lab::pose_train;
use crate::pose::sma::{self, Sma};
use crate::profile::Settings;

/// Noise levels of the synthetic test sets (pixels, at an eye distance of about 60).
pub const NOISE_PX: [f64; 4] = [0.0, 1.0, 2.0, 4.0];
/// Test samples per noise level.
pub const TEST_SAMPLES: usize = 2000;
/// The K of the extra rows that show why more specialists do not help here.
pub const K_ANALYSIS: usize = 4;

/// One method at one noise level.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub method: String,
    pub noise_px: f64,
    pub mae_yaw: f64,
    pub mae_pitch: f64,
    pub mae_roll: f64,
    pub us_per_estimate: f64,
    /// Estimates the method gave up on (counted as errors of 90°).
    pub failures: usize,
}

/// Errors on a real sequence (degrees), raw and with the median difference removed.
#[derive(Debug, Clone, Serialize)]
pub struct SequenceRow {
    pub sequence: String,
    pub frames: usize,
    pub mae: [f64; 3],
    pub mae_debiased: [f64; 3],
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub chosen_k: usize,
    pub k_validation_mae: Vec<(usize, f64)>,
    pub synthetic: Vec<Row>,
    pub sequences: Vec<SequenceRow>,
}

fn measure(name: &str, noise: f64, set: &[pose_train::Sample], f: &mut dyn FnMut(&pose_train::Sample) -> Option<[f64; 3]>) -> Row {
    let mut e = [0.0; 3];
    let mut failures = 0;
    let t = Instant::now();
    for s in set {
        if let Some(p) = f(s) {
            for k in 0..3 {
                let d = (p[k] - s.y[k] + 180.0).rem_euclid(360.0) - 180.0;
                e[k] += d.abs();
            }
        } else {
            failures += 1;
            for v in &mut e {
                *v += 90.0;
            }
        }
    }
    let n = set.len().max(1) as f64;
    Row {
        method: name.into(),
        noise_px: noise,
        mae_yaw: e[0] / n,
        mae_pitch: e[1] / n,
        mae_roll: e[2] / n,
        us_per_estimate: t.elapsed().as_secs_f64() * 1e6 / n,
        failures,
    }
}

/// The proposal nearest the true pose: what a perfect feedback function would
/// pick (a bound, not an estimator: it looks at the answer).
fn best_proposal(m: &Sma, s: &pose_train::Sample, cam: &Camera) -> Option<[f64; 3]> {
    m.proposals(&s.x)
        .iter()
        .map(|a| {
            let p = crate::face_model::from_apparent(&crate::pose::Pose { yaw: a[0], pitch: a[1], roll: a[2] }, cam, s.at);
            [p.yaw, p.pitch, p.roll]
        })
        .min_by(|a, b| {
            let err = |p: &[f64; 3]| (0..3).map(|k| (p[k] - s.y[k]).abs()).sum::<f64>();
            err(a).total_cmp(&err(b))
        })
}

/// Runs the whole evaluation.
///
/// # Errors
/// A sequence that cannot be read or replayed.
pub fn run(model: &Sma, sequences: &[PathBuf], settings: &Settings) -> anyhow::Result<Report> {
    // Read every sequence first, so that a wrong path fails at once, not after the synthetic part.
    let loaded = sequences.iter().map(|d| crate::lab::labels::Sequence::load(d)).collect::<Result<Vec<_>, _>>()?;
    let cam = Camera::for_image(640.0, 480.0);
    let cfg = pose_train::TrainConfig::default();
    let train = pose_train::generate(cfg.train, cfg.seed, cfg.noise_px);
    let (k1, _) = pose_train::fit(&train, 1, cfg.centres, cfg.em_iterations, cfg.seed);
    let (kn, _) = pose_train::fit(&train, K_ANALYSIS, cfg.centres, cfg.em_iterations, cfg.seed);
    let mut rows = Vec::new();
    for (i, &noise) in NOISE_PX.iter().enumerate() {
        let set = pose_train::generate(TEST_SAMPLES, 77_000 + i as u64, noise);
        let as_array = |p: crate::pose::Pose| [p.yaw, p.pitch, p.roll];
        rows.push(measure("SMA K=1 (ablation)", noise, &set, &mut |s| k1.estimate_in(&s.x, &cam, s.at).map(as_array)));
        rows.push(measure(&format!("SMA K={}", model.meta.chosen_k), noise, &set, &mut |s| model.estimate_in(&s.x, &cam, s.at).map(as_array)));
        rows.push(measure(&format!("SMA K={K_ANALYSIS}, feedback picks"), noise, &set, &mut |s| kn.estimate_in(&s.x, &cam, s.at).map(as_array)));
        rows.push(measure(&format!("SMA K={K_ANALYSIS}, oracle picks (bound)"), noise, &set, &mut |s| best_proposal(&kn, s, &cam)));
        rows.push(measure("SMA + Gauss-Newton refine", noise, &set, &mut |s| {
            model.estimate(&s.x).map(|p| as_array(crate::face_model::from_apparent(&sma::refine(&p, &s.x, 5), &cam, s.at)))
        }));
        rows.push(measure("solvePnP iterative", noise, &set, &mut |s| pnp::solve(&s.px, &cam, Method::Iterative).ok().flatten().map(as_array)));
        rows.push(measure("solvePnP EPnP", noise, &set, &mut |s| pnp::solve(&s.px, &cam, Method::Epnp).ok().flatten().map(as_array)));
    }
    let mut seqs = Vec::new();
    let models = crate::models::Models::load();
    for seq in &loaded {
        let (records, _) = crate::replay::collect_with(seq.source(), settings, models.clone())?;
        let scores = crate::lab::eval::score(seq, &records, None);
        let get = |p: &crate::lab::eval::PoseError| [p.yaw.unwrap_or(f64::NAN), p.pitch.unwrap_or(f64::NAN), p.roll.unwrap_or(f64::NAN)];
        seqs.push(SequenceRow { sequence: scores.sequence.clone(), frames: scores.pose_mae.frames, mae: get(&scores.pose_mae), mae_debiased: get(&scores.pose_mae_debiased) });
    }
    Ok(Report { chosen_k: model.meta.chosen_k, k_validation_mae: model.meta.k_validation_mae.clone(), synthetic: rows, sequences: seqs })
}

/// The report as Markdown.
#[must_use]
pub fn table(r: &Report) -> String {
    let mut s = String::from("| noise (px) | method | MAE yaw | MAE pitch | MAE roll | µs / estimate | failures |\n|---|---|---|---|---|---|---|\n");
    for row in &r.synthetic {
        let _ = writeln!(
            s,
            "| {:.0} | {} | {:.2}° | {:.2}° | {:.2}° | {:.1} | {} |",
            row.noise_px, row.method, row.mae_yaw, row.mae_pitch, row.mae_roll, row.us_per_estimate, row.failures
        );
    }
    let _ = write!(
        s,
        "\nK chosen on the validation set: {} (validation MAE by K: {}).\n",
        r.chosen_k,
        r.k_validation_mae.iter().map(|(k, e)| format!("K={k}: {e:.2}°")).collect::<Vec<_>>().join(", ")
    );
    if !r.sequences.is_empty() {
        s.push_str("\n| sequence | frames with pose | MAE yaw / pitch / roll | debiased |\n|---|---|---|---|\n");
        for q in &r.sequences {
            let _ = writeln!(
                s,
                "| {} | {} | {:.1}° / {:.1}° / {:.1}° | {:.1}° / {:.1}° / {:.1}° |",
                q.sequence, q.frames, q.mae[0], q.mae[1], q.mae[2], q.mae_debiased[0], q.mae_debiased[1], q.mae_debiased[2]
            );
        }
    }
    s
}
