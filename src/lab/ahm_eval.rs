//! `facemouse eval-ahm`: Active Hidden Models alone against the NCC trackers
//! alone on generated turning heads, per bin of yaw and pitch (#28; a lab
//! measurement: in the pipeline AHM carries the pointer only where the
//! templates lose the head, `vision::carry`, measured by `eval --turns`).
//!
//! AHM's training set is made of generated views: a face (the shipped
//! portrait, or with `--face` a sequence's frontal frame) on the 3D head
//! at every 10° of yaw from −90° to 90° and every 15° of pitch from −45° to
//! 45°, each seen through five windows (centred on where the
//! head turns about, and shifted by 0.15 eye distances each way), 665 pairs.
//! An observation is the window, 2.6 eye distances square, averaged down to
//! 24×24 and normalized for light (`vision::carry`, whose training and
//! step this uses; views rendered 48 px between the eyes). The hidden state is the window's offset
//! from the head's pivot, the point between the eyes from the pivot (both in
//! eye distances), and yaw / 90° and pitch / 45°. Tracking: the window is
//! put where the last frame's pivot was, projected (subset: the 40 pairs
//! nearest the last hidden state), moved to the pivot it gives, and
//! projected again. The eye distance is taken as known (64 px): these heads
//! do not come nearer or go away.
//!
//! A face is trained on and tested on the same generated head: the best
//! case for AHM. A model trained on one face and run on another is measured
//! too (the portrait's model on the `--face` heads).

use nalgebra::DVector;
use opencv::core::{Mat, Size};
use opencv::prelude::*;

use crate::capture::Frame;
use crate::events::{Point, TrackState};
use crate::lab::labels::{Meta, Sequence};
use crate::lab::synth::{self, FaceAsset, Generator, HeadView, SynthConfig, Turn};
use crate::lab::turn_eval::{self, TurnReport};
use crate::trace::TraceRecord;
use crate::vision::ahm::{Ahm, AhmError};
use crate::vision::carry::{self, CarryError};

/// The subset projection's size.
const SUBSET: usize = carry::SUBSET;

/// Failures of the measurement.
#[derive(Debug, thiserror::Error)]
pub enum AhmEvalError {
    #[error(transparent)]
    Synth(#[from] synth::SynthError),
    #[error("OpenCV failed: {0}")]
    OpenCv(#[from] opencv::Error),
    #[error(transparent)]
    Ahm(#[from] AhmError),
    #[error(transparent)]
    Carry(#[from] CarryError),
    #[error(transparent)]
    Labels(#[from] crate::lab::labels::LabelError),
    #[error("{0}: no frontal frame with open eyes and every face point labelled, or its video frame could not be read")]
    NoFace(std::path::PathBuf),
}

/// A face to put on the generated head: the first frame of a labelled
/// sequence that is frontal (yaw and pitch within 5°) with open eyes and
/// every face point labelled, with the portrait's eye and brow sizes scaled
/// to its eye distance. For measuring AHM on a person it was not trained on
/// (development data; nothing of it is kept).
///
/// # Errors
/// The labels or the video cannot be read, or no such frame.
pub fn face_from_sequence(dir: &std::path::Path) -> Result<FaceAsset, AhmEvalError> {
    let seq = Sequence::load(dir)?;
    let none = || AhmEvalError::NoFace(dir.to_path_buf());
    let row = seq
        .rows
        .iter()
        .find(|r| !r.eyes_closed && r.yaw.is_some_and(|y| y.abs() < 5.0) && r.pitch.is_some_and(|p| p.abs() < 5.0) && [r.le, r.re, r.lb, r.rb, r.nose, r.mid].iter().all(Option::is_some))
        .ok_or_else(none)?;
    let name = seq.video().to_str().ok_or_else(none)?.to_string();
    let mut cap = opencv::videoio::VideoCapture::from_file(&name, opencv::videoio::CAP_ANY)?;
    #[allow(clippy::cast_precision_loss)]
    cap.set(opencv::videoio::CAP_PROP_POS_FRAMES, row.frame as f64)?;
    let mut photo = Mat::default();
    if !cap.read(&mut photo)? || photo.empty() {
        return Err(none());
    }
    let get = |p: Option<Point>| p.unwrap_or_default();
    let lm = synth::PhotoLandmarks::with_portrait_sizes(get(row.le), get(row.re), get(row.lb), get(row.rb), get(row.nose), get(row.mid));
    Ok(FaceAsset::new(photo, lm)?)
}

/// Follows one frame (`carry::step`): the point between the eyes, the pose
/// (yaw, pitch in degrees), the model's expected error and the step's time
/// (s: the two observations and projections).
fn track(model: &Ahm, gray: &Mat, iod: f64, pivot: &mut Point, last: &mut DVector<f64>, subset: Option<usize>, buffers: &mut carry::Buffers) -> Result<(Point, (f64, f64), f64, f64), AhmEvalError> {
    let started = std::time::Instant::now();
    let s = carry::step(model, gray, iod, pivot, last, subset, 2, buffers)?;
    Ok((s.mid, s.pose, s.expected_error, started.elapsed().as_secs_f64()))
}

/// One AHM tracker's results.
pub struct Check {
    pub name: String,
    pub report: TurnReport,
    /// Spearman's correlation of the model's expected error with the real
    /// error of the point between the eyes, over every labelled frame.
    pub spearman: f64,
    /// The real error (frontal eye distances): median and 95th percentile.
    pub error_median: Option<f64>,
    pub error_p95: Option<f64>,
    /// The two projections' time per frame (µs).
    pub projection_us: f64,
}

/// What `run` measured: NCC alone, and each AHM tracker alone.
pub struct AhmRuns {
    pub ncc: TurnReport,
    pub ahm: Vec<Check>,
}

/// An AHM tracker being run.
struct Follower<'a> {
    name: String,
    model: &'a Ahm,
    subset: Option<usize>,
    pivot: Option<Point>,
    last: DVector<f64>,
    buffers: carry::Buffers,
    records: Vec<TraceRecord>,
    runs: Vec<turn_eval::TurnRun>,
    expected: Vec<f64>,
    real: Vec<f64>,
    spent_s: f64,
    frames: usize,
}

/// NCC (the pipeline) and AHM, each alone, on generated turning heads of
/// `seeds` at `fps` wearing `face` (the shipped portrait if `None`); the
/// heads drift about the frame if `moving`. AHM is trained on the
/// portrait's generated head and, with a face, on that face's own; each
/// model is run with the subset projection (40 pairs) and the full one.
///
/// # Errors
/// Rendering, `OpenCV` or model failures.
pub fn run(seeds: &[u64], fps: f64, moving: bool, face: Option<&FaceAsset>) -> Result<AhmRuns, AhmEvalError> {
    let portrait = FaceAsset::load(&synth::default_photo())?;
    let asset = face.unwrap_or(&portrait);
    let iod = 64.0;
    let model = carry::train(&portrait.photo, &portrait.landmarks, carry::TRAIN_IOD)?;
    let own_model = face.map(|f| carry::train(&f.photo, &f.landmarks, carry::TRAIN_IOD)).transpose()?;
    let mut followers = Vec::new();
    let mut models: Vec<(&str, &Ahm)> = vec![("trained on the shipped portrait", &model)];
    if let Some(m) = &own_model {
        models.push(("trained on this face's own views", m));
    }
    for (name, m) in models {
        for subset in [Some(SUBSET), None] {
            let how = subset.map_or_else(|| "full projection".to_string(), |k| format!("subset projection ({k} of {})", m.len()));
            followers.push(Follower { name: format!("{name}, {how}"), model: m, subset, pivot: None, last: carry::frontal_state(&asset.landmarks), buffers: carry::Buffers::default(), records: Vec::new(), runs: Vec::new(), expected: Vec::new(), real: Vec::new(), spent_s: 0.0, frames: 0 });
        }
    }
    let settings = crate::profile::Settings::default();
    let vision_models = crate::models::Models::load();
    let mut ncc_runs = Vec::new();
    for &seed in seeds {
        let mut cfg = SynthConfig::turning(seed, fps);
        cfg.turn = Some(Turn { moving, ..Turn::wide() });
        cfg.iod_px = iod;
        let copy = FaceAsset { photo: asset.photo.try_clone()?, landmarks: asset.landmarks };
        let mut generator = Generator::new(copy, cfg.clone())?;
        let mut pipeline = crate::pipeline::Pipeline::new(&settings, &vision_models);
        let mut frame = Frame::empty();
        let (mut rows, mut ncc) = (Vec::new(), Vec::new());
        for f in &mut followers {
            f.pivot = None;
            f.last = carry::frontal_state(&asset.landmarks);
            f.records.clear();
        }
        for i in 0..cfg.frames() {
            let row = generator.render(i, &mut frame.color)?;
            frame.update_gray()?;
            frame.index = i as u64;
            frame.t_ms = generator.t_ms(i);
            let (rec, _) = pipeline.tick(&frame, std::time::Instant::now());
            ncc.push(rec.clone());
            // AHM starts from the first frame's labelled pivot (where the
            // face detector's first answer would put it).
            let start = || row.mid.map_or_else(|| synth::head_pivot(HeadView { size: Size::default(), origin: [0.0, 0.0], iod_px: iod }), |m| carry::pivot_from_mid(&asset.landmarks, iod, m));
            for f in &mut followers {
                let p = f.pivot.get_or_insert_with(start);
                let (feature, (yaw, pitch), expected, spent) = track(f.model, &frame.gray, iod, p, &mut f.last, f.subset, &mut f.buffers)?;
                f.spent_s += spent;
                f.frames += 1;
                if let Some(m) = row.mid {
                    f.expected.push(expected);
                    f.real.push(crate::events::dist(m, feature) / iod);
                }
                f.records.push(TraceRecord {
                    frame: i as u64,
                    t_ms: frame.t_ms,
                    state: TrackState::Tracking,
                    feature: Some(feature),
                    pose: Some(crate::pose::Pose { yaw, pitch, roll: 0.0 }),
                    ..TraceRecord::default()
                });
            }
            rows.push(row);
        }
        let seq = Sequence { dir: format!("turn-{seed}").into(), rows, meta: Meta::default() };
        for f in &mut followers {
            f.runs.push((seq.clone(), std::mem::take(&mut f.records), Vec::new()));
        }
        ncc_runs.push((seq, ncc, Vec::new()));
    }
    let ahm = followers
        .into_iter()
        .map(|mut f| {
            #[allow(clippy::cast_precision_loss)]
            let projection_us = 1e6 * f.spent_s / f.frames.max(1) as f64;
            Check {
                spearman: crate::vision::ahm::spearman(&f.expected, &f.real),
                error_median: crate::stats::pct(&mut f.real.clone(), 50.0),
                error_p95: crate::stats::pct(&mut f.real, 95.0),
                report: turn_eval::measure(&f.runs),
                name: f.name,
                projection_us,
            }
        })
        .collect();
    Ok(AhmRuns { ncc: turn_eval::measure(&ncc_runs), ahm })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A labelled sequence's first frontal open-eyed frame becomes a face
    /// for the generated head, its points those of the labels; a sequence
    /// without one is named.
    #[test]
    fn a_face_is_taken_from_a_sequences_first_frontal_frame() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut cfg = SynthConfig::demo();
        cfg.duration_s = 1.0;
        cfg.motion_px = (0.0, 0.0);
        cfg.roll_deg = 0.0;
        cfg.scale_var = 0.0;
        synth::write_sequence(FaceAsset::load(&synth::default_photo()).expect("photo"), &cfg, dir.path()).expect("write");
        let face = face_from_sequence(dir.path()).expect("a face");
        let seq = Sequence::load(dir.path()).expect("labels");
        let row = &seq.rows[0];
        assert_eq!((Some(face.landmarks.le), Some(face.landmarks.re), Some(face.landmarks.mid)), (row.le, row.re, row.mid));
        assert_eq!((face.photo.cols(), face.photo.rows()), (640, 480));
        let k = crate::events::dist(face.landmarks.le, face.landmarks.re) / synth::ASTRONAUT_LANDMARKS.iod();
        assert!((face.landmarks.eye_half_w - 11.0 * k).abs() < 1e-9, "the portrait's eye size, scaled");
        // No frontal frame: every row turned.
        let labels = dir.path().join("labels.csv");
        let text = std::fs::read_to_string(&labels).expect("csv");
        let mut lines = text.lines();
        let header = lines.next().expect("header").to_string();
        let yaw = header.split(',').position(|c| c == "yaw").expect("yaw column");
        let turned: Vec<String> = lines
            .map(|l| l.split(',').enumerate().map(|(i, c)| if i == yaw { "30.0".to_string() } else { c.to_string() }).collect::<Vec<_>>().join(","))
            .collect();
        std::fs::write(&labels, format!("{header}\n{}\n", turned.join("\n"))).expect("write");
        let e = face_from_sequence(dir.path()).err().expect("no frontal frame").to_string();
        assert!(e.contains("no frontal frame"), "{e}");
    }
}
