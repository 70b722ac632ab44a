//! `facemouse eval-ahm`: Active Hidden Models alone against the NCC trackers
//! alone on generated turning heads, per bin of yaw and pitch (#28; a lab
//! measurement, not yet the pipeline's).
//!
//! AHM's training set is made of generated views: a face (the shipped
//! portrait, or with `--face` a sequence's frontal frame) on the 3D head
//! at every 10° of yaw from −90° to 90° and every 15° of pitch from −45° to
//! 45°, each seen through five windows (centred on where the
//! head turns about, and shifted by 0.15 eye distances each way), 665 pairs.
//! An observation is the window, 2.6 eye distances square, resampled to
//! 24×24 and normalized for light. The hidden state is the window's offset
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
use opencv::core::{Mat, Rect, Size};
use opencv::imgproc;
use opencv::prelude::*;

use crate::capture::Frame;
use crate::events::{Point, TrackState};
use crate::lab::labels::{Meta, Sequence};
use crate::lab::synth::{self, FaceAsset, Generator, HeadView, SynthConfig, Turn};
use crate::lab::turn_eval::{self, TurnReport};
use crate::trace::TraceRecord;
use crate::vision::ahm::{Ahm, AhmError, Kernel};

/// The window's side, in eye distances, and the observation's side in pixels.
const WINDOW_IODS: f64 = 2.6;
const SIDE: i32 = 24;
/// The training windows' shifts from the pivot (eye distances).
const SHIFT: f64 = 0.15;
/// The subset projection's size.
const SUBSET: usize = 40;

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
    let a = synth::ASTRONAUT_LANDMARKS;
    let get = |p: Option<Point>| p.unwrap_or_default();
    let (le, re) = (get(row.le), get(row.re));
    let k = crate::events::dist(le, re) / a.iod();
    let lm = synth::PhotoLandmarks {
        le,
        re,
        lb: get(row.lb),
        rb: get(row.rb),
        nose: get(row.nose),
        mid: get(row.mid),
        eye_half_w: a.eye_half_w * k,
        eye_half_h: a.eye_half_h * k,
        brow_half_len: a.brow_half_len * k,
        forehead_span: a.forehead_span * k,
        ..a
    };
    Ok(FaceAsset::new(photo, lm)?)
}

/// The window round `centre` (`iod` px between the eyes), 24×24, zero mean and unit length.
fn observe(gray: &Mat, centre: Point, iod: f64, small: &mut Mat) -> Result<DVector<f64>, AhmEvalError> {
    let half = WINDOW_IODS * iod / 2.0;
    #[allow(clippy::cast_possible_truncation)]
    let (x0, y0, side) = ((centre[0] - half).round() as i32, (centre[1] - half).round() as i32, (2.0 * half).round().max(2.0) as i32);
    // Clamped to the frame (a window half outside sees what is inside).
    let (x, y) = (x0.clamp(0, (gray.cols() - side).max(0)), y0.clamp(0, (gray.rows() - side).max(0)));
    let roi = Rect::new(x, y, side.min(gray.cols()), side.min(gray.rows()));
    let view = Mat::roi(gray, roi)?;
    imgproc::resize(&view, small, Size::new(SIDE, SIDE), 0.0, 0.0, imgproc::INTER_AREA)?;
    let bytes = small.data_bytes()?;
    let mut v = DVector::from_iterator(bytes.len(), bytes.iter().map(|b| f64::from(*b)));
    let mean = v.mean();
    v.add_scalar_mut(-mean);
    let n = v.norm().max(1e-9);
    Ok(v / n)
}

fn gray_of(bgr: &Mat) -> Result<Mat, AhmEvalError> {
    let mut gray = Mat::default();
    imgproc::cvt_color_def(bgr, &mut gray, imgproc::COLOR_BGR2GRAY)?;
    Ok(gray)
}

/// The generic training set and the model (see the module's text).
///
/// # Errors
/// Rendering or `OpenCV` failures.
pub fn train_generic(asset: &FaceAsset, iod: f64) -> Result<Ahm, AhmEvalError> {
    let view = HeadView { size: Size::new(640, 480), origin: [320.0, 201.6], iod_px: iod };
    let mut head = synth::Head3d::default();
    let (mut img, mut small) = (Mat::default(), Mat::default());
    let pivot = synth::head_pivot(view);
    let mut pairs = Vec::new();
    for yi in -9..=9 {
        for pi in -3..=3 {
            let pose = (f64::from(yi) * 10.0, f64::from(pi) * 15.0);
            head.render(&asset.photo, &asset.landmarks, pose, view, 0.0, &mut img)?;
            let gray = gray_of(&img)?;
            let mid = synth::head_project(&asset.landmarks, pose, view, asset.landmarks.mid).unwrap_or(pivot);
            for (sx, sy) in [(0.0, 0.0), (SHIFT, 0.0), (-SHIFT, 0.0), (0.0, SHIFT), (0.0, -SHIFT)] {
                let centre = [pivot[0] + sx * iod, pivot[1] + sy * iod];
                let x = observe(&gray, centre, iod, &mut small)?;
                let h = DVector::from_vec(vec![-sx, -sy, (mid[0] - pivot[0]) / iod, (mid[1] - pivot[1]) / iod, pose.0 / 90.0, pose.1 / 45.0]);
                pairs.push((x, h));
            }
        }
    }
    let obs: Vec<DVector<f64>> = pairs.iter().map(|p| p.0.clone()).collect();
    Ok(Ahm::train(Kernel::gaussian_for(&obs, 1.0), 1e-3, &pairs)?)
}

/// Where the head turns about, from where its point between the eyes is
/// while it is frontal (`mid`), for a face with landmarks `lm` and `iod` px
/// between the eyes: where AHM starts tracking.
fn pivot_from_mid(lm: &synth::PhotoLandmarks, iod: f64, mid: Point) -> Point {
    let v = HeadView { size: Size::default(), origin: [0.0, 0.0], iod_px: iod };
    let piv = synth::head_pivot(v);
    let frontal = synth::head_project(lm, (0.0, 0.0), v, lm.mid).unwrap_or(piv);
    [mid[0] - (frontal[0] - piv[0]), mid[1] - (frontal[1] - piv[1])]
}

/// Tracks one frame: returns the point between the eyes, the pose (yaw,
/// pitch in degrees), the model's expected error and the time the two
/// projections took (s); moves `pivot` and `last`. `subset`: the subset
/// projection's size, or `None` for the full projection.
fn track(model: &Ahm, gray: &Mat, iod: f64, pivot: &mut Point, last: &mut DVector<f64>, small: &mut Mat, subset: Option<usize>) -> Result<(Point, (f64, f64), f64, f64), AhmEvalError> {
    let mut est = None;
    let mut spent = 0.0;
    for _ in 0..2 {
        let x = observe(gray, *pivot, iod, small)?;
        let started = std::time::Instant::now();
        let e = match subset {
            Some(m) => model.project_subset(&x, &model.nearest(last, m))?,
            None => model.project(&x)?,
        };
        spent += started.elapsed().as_secs_f64();
        *pivot = [pivot[0] + e.hidden[0] * iod, pivot[1] + e.hidden[1] * iod];
        *last = e.hidden.clone();
        est = Some(e);
    }
    let e = est.expect("two passes");
    let feature = [pivot[0] + e.hidden[2] * iod, pivot[1] + e.hidden[3] * iod];
    Ok((feature, (e.hidden[4] * 90.0, e.hidden[5] * 45.0), e.expected_error, spent))
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
    let model = train_generic(&portrait, iod)?;
    let own_model = face.map(|f| train_generic(f, iod)).transpose()?;
    let mut followers = Vec::new();
    let mut models: Vec<(&str, &Ahm)> = vec![("trained on the shipped portrait", &model)];
    if let Some(m) = &own_model {
        models.push(("trained on this face's own views", m));
    }
    for (name, m) in models {
        for subset in [Some(SUBSET), None] {
            let how = subset.map_or_else(|| "full projection".to_string(), |k| format!("subset projection ({k} of {})", m.len()));
            followers.push(Follower { name: format!("{name}, {how}"), model: m, subset, pivot: None, last: DVector::zeros(6), records: Vec::new(), runs: Vec::new(), expected: Vec::new(), real: Vec::new(), spent_s: 0.0, frames: 0 });
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
        let mut small = Mat::default();
        let (mut rows, mut ncc) = (Vec::new(), Vec::new());
        for f in &mut followers {
            f.pivot = None;
            f.last = DVector::zeros(6);
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
            let start = || row.mid.map_or_else(|| synth::head_pivot(HeadView { size: Size::default(), origin: [0.0, 0.0], iod_px: iod }), |m| pivot_from_mid(&asset.landmarks, iod, m));
            for f in &mut followers {
                let p = f.pivot.get_or_insert_with(start);
                let (feature, (yaw, pitch), expected, spent) = track(f.model, &frame.gray, iod, p, &mut f.last, &mut small, f.subset)?;
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

    /// Trained on the generated head's views, AHM follows a generated head
    /// that drifts about the frame as it turns 60° and nods 30°, where the
    /// NCC templates of a frontal face do not reach: the point between the
    /// eyes within 0.1 eye distances on 95 % of the frames and 0.2 on all,
    /// and the pose within 10°.
    #[test]
    fn a_generic_ahm_follows_a_moving_head_through_a_turn() {
        let asset = FaceAsset::load(&synth::default_photo()).expect("photo");
        let started = std::time::Instant::now();
        let model = train_generic(&asset, 64.0).expect("train");
        let trained_s = started.elapsed().as_secs_f64();
        let mut cfg = SynthConfig::turning(5, 10.0);
        cfg.turn = Some(Turn { yaw_deg: 60.0, pitch_deg: 30.0, moving: true });
        cfg.script.clear();
        let mut generator = Generator::new(FaceAsset::load(&synth::default_photo()).expect("photo"), cfg.clone()).expect("generator");
        let (mut img, mut small) = (Mat::default(), Mat::default());
        let mut last = DVector::zeros(6);
        let mut pivot = None;
        let (mut errors, mut worst_pose): (Vec<f64>, f64) = (Vec::new(), 0.0);
        for i in 0..cfg.frames() {
            let row = generator.render(i, &mut img).expect("render");
            let gray = gray_of(&img).expect("gray");
            let p = pivot.get_or_insert_with(|| pivot_from_mid(&asset.landmarks, 64.0, row.mid.expect("frontal at the start")));
            let (f, (yaw, pitch), _, _) = track(&model, &gray, 64.0, p, &mut last, &mut small, Some(SUBSET)).expect("track");
            if let Some(m) = row.mid {
                errors.push(crate::events::dist(f, m) / 64.0);
            }
            worst_pose = worst_pose.max((yaw - row.yaw.unwrap_or(0.0)).abs()).max((pitch - row.pitch.unwrap_or(0.0)).abs());
        }
        let worst = errors.iter().copied().fold(0.0, f64::max);
        let within = errors.iter().filter(|e| **e < 0.1).count() as f64 / errors.len() as f64;
        assert!(within >= 0.95 && worst < 0.2, "the point between the eyes: {within:.3} of the frames within 0.1, worst {worst:.3} eye distances (trained in {trained_s:.1} s)");
        assert!(worst_pose < 10.0, "the pose, worst {worst_pose:.1}°");
    }

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
