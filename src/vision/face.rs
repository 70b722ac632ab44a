//! The face detector: YuNet (`models/face_detection_yunet_2022mar.onnx`, MIT)
//! through OpenCV's `FaceDetectorYN`, run on a small copy of the frame.
//!
//! It finds the face where the Haar eye cascade fails (glasses, low light,
//! eye distances of 30 px), and gives five coarse landmarks: both eyes, the
//! nose tip and the mouth corners. The eye points are only about a tenth of
//! the eye distance accurate, so vision uses them as a search region and
//! finds the eyes themselves in the full frame. Without the model file (or
//! with a damaged one) the user is warned once and vision falls back to
//! blinks and the eye cascade alone.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use opencv::core::{Mat, Ptr, Rect, Size};
use opencv::imgproc;
use opencv::objdetect::FaceDetectorYN;
use opencv::prelude::*;

use super::params::{FACE_CROP_IODS, FACE_CROP_SIZE, FACE_MIN_INPUT, FACE_MIN_SCORE, FACE_WORK_SIZE};
use crate::events::{Point, dist};

/// The model's file name.
pub const FACE_MODEL: &str = "face_detection_yunet_2022mar.onnx";
/// The environment variable that names another model file (tests point it at a missing or broken one).
pub const FACE_MODEL_ENV: &str = "FACEMOUSE_FACE_MODEL";

/// A face found in a frame, in full-resolution pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Face {
    /// The box: left, top, width, height.
    pub bbox: [f64; 4],
    /// The subject's left eye (image right) and right eye (image left).
    pub le: Point,
    pub re: Point,
    pub nose: Point,
    pub score: f64,
}

impl Face {
    /// The distance between the two eye points.
    #[must_use]
    pub fn iod(&self) -> f64 {
        dist(self.le, self.re)
    }

    /// The nose tip from the midpoint of the eyes, in eye distances: along
    /// the eye line and down across it (`vision::nose_offset`).
    #[must_use]
    pub fn nose_offset(&self) -> [f64; 2] {
        super::nose_offset(self.re, self.le, self.nose, crate::events::midpoint(self.le, self.re))
    }

    /// Whether `p` lies inside the box, grown by `margin` of its size on each side.
    #[must_use]
    pub fn contains(&self, p: Point, margin: f64) -> bool {
        let [x, y, w, h] = self.bbox;
        p[0] >= x - margin * w && p[0] <= x + w + margin * w && p[1] >= y - margin * h && p[1] <= y + h + margin * h
    }
}

/// Why the model could not be used.
#[derive(Debug, thiserror::Error)]
pub enum FaceModelError {
    #[error("face model {0} not found (looked in {1}); blinks and the eye cascade alone will find the eyes. Reinstall Facemouse or set {FACE_MODEL_ENV}.")]
    Missing(String, String),
    #[error("cannot load the face model {path}: {message}; blinks and the eye cascade alone will find the eyes. Reinstall Facemouse or set {FACE_MODEL_ENV}.")]
    Damaged { path: PathBuf, message: String },
}

/// Where the model is looked for, in order.
#[must_use]
pub fn search_path() -> Vec<PathBuf> {
    let mut paths = Vec::new();
    if let Some(p) = std::env::var_os(FACE_MODEL_ENV) {
        paths.push(PathBuf::from(p));
    }
    paths.push(crate::data_dir().join("models").join(FACE_MODEL));
    paths
}

/// (Part of) a frame scaled for the model, and how to map its points back.
pub struct Prepared {
    bgr: Mat,
    origin: Point,
    scale: f64,
}

impl Prepared {
    /// The whole grey frame, its smaller side at least the working size (the model fails on tiny inputs).
    ///
    /// # Errors
    /// OpenCV failures.
    pub fn full(gray: &Mat) -> Result<Option<Self>, opencv::Error> {
        let (w, h) = (gray.cols(), gray.rows());
        if w < 16 || h < 16 {
            return Ok(None);
        }
        let s = (f64::from(FACE_WORK_SIZE.0) / f64::from(w)).max(f64::from(FACE_WORK_SIZE.1) / f64::from(h));
        Self::of(gray, Rect::new(0, 0, w, h), s)
    }

    /// Near a face already known: the square of side `FACE_CROP_IODS` eye
    /// distances around `centre`, at `FACE_CROP_SIZE` pixels (cheaper than
    /// the whole frame).
    ///
    /// # Errors
    /// OpenCV failures.
    pub fn near(gray: &Mat, centre: Point, iod: f64) -> Result<Option<Self>, opencv::Error> {
        let side = (FACE_CROP_IODS * iod).round() as i32;
        let r = crate::vision::ncc::patch_rect(centre, side, side);
        let x0 = r.x.max(0);
        let y0 = r.y.max(0);
        let x1 = (r.x + r.width).min(gray.cols());
        let y1 = (r.y + r.height).min(gray.rows());
        if side < 16 || x1 - x0 < side / 2 || y1 - y0 < side / 2 {
            return Ok(None);
        }
        Self::of(gray, Rect::new(x0, y0, x1 - x0, y1 - y0), f64::from(FACE_CROP_SIZE) / f64::from(side))
    }

    fn of(gray: &Mat, roi: Rect, s: f64) -> Result<Option<Self>, opencv::Error> {
        if gray.channels() != 1 {
            return Ok(None);
        }
        let size = Size::new((f64::from(roi.width) * s).round() as i32, (f64::from(roi.height) * s).round() as i32);
        if size.width < FACE_MIN_INPUT || size.height < FACE_MIN_INPUT {
            return Ok(None);
        }
        let mut small = Mat::default();
        imgproc::resize(&Mat::roi(gray, roi)?, &mut small, size, 0.0, 0.0, imgproc::INTER_AREA)?;
        let mut bgr = Mat::default();
        imgproc::cvt_color_def(&small, &mut bgr, imgproc::COLOR_GRAY2BGR)?;
        Ok(Some(Self { bgr, origin: [f64::from(roi.x), f64::from(roi.y)], scale: s }))
    }
}

/// The face detector.
pub struct FaceDetector {
    net: Option<Ptr<FaceDetectorYN>>,
    input: Size,
    faces: Mat,
}

impl Default for FaceDetector {
    fn default() -> Self {
        Self::load()
    }
}

impl FaceDetector {
    /// Loads the model from the search path; logs one warning when it is missing or damaged.
    #[must_use]
    pub fn load() -> Self {
        Self::find().and_then(|p| Self::from_path(&p)).unwrap_or_else(|e| {
            tracing::warn!("{e}");
            Self::unavailable()
        })
    }

    /// The model file on the search path (the first one that exists, or the
    /// one the environment names).
    ///
    /// # Errors
    /// None is found.
    pub fn find() -> Result<PathBuf, FaceModelError> {
        let paths = search_path();
        let found = if std::env::var_os(FACE_MODEL_ENV).is_some() { paths.first() } else { paths.iter().find(|p| p.is_file()) };
        found.cloned().ok_or_else(|| FaceModelError::Missing(FACE_MODEL.into(), paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")))
    }

    /// Loads the model file at `path`.
    ///
    /// # Errors
    /// A missing or damaged file.
    pub fn from_path(path: &Path) -> Result<Self, FaceModelError> {
        if !path.is_file() {
            let parent = path.parent().map_or_else(String::new, |d| d.display().to_string());
            return Err(FaceModelError::Missing(path.display().to_string(), parent));
        }
        let damaged = |message: String| FaceModelError::Damaged { path: path.to_path_buf(), message };
        let name = path.to_str().ok_or_else(|| damaged("the path is not valid UTF-8".into()))?;
        let input = Size::new(FACE_WORK_SIZE.0, FACE_WORK_SIZE.1);
        // OpenCV's own NMS threshold and candidate count; the score threshold is applied here.
        let mut net = FaceDetectorYN::create(name, "", input, 0.3, 0.3, 50, 0, 0).map_err(|e| damaged(e.message))?;
        // A model that loads but cannot run (a truncated file) fails here, once, instead of on every frame.
        let probe = Mat::new_rows_cols_with_default(input.height, input.width, opencv::core::CV_8UC3, opencv::core::Scalar::all(128.0))
            .map_err(|e| damaged(e.message))?;
        let mut faces = Mat::default();
        net.detect(&probe, &mut faces).map_err(|e| damaged(e.message))?;
        Ok(Self { net: Some(net), input, faces })
    }

    /// A detector without a model: finds nothing.
    #[must_use]
    pub fn unavailable() -> Self {
        Self { net: None, input: Size::new(0, 0), faces: Mat::default() }
    }

    /// Whether a model is loaded.
    #[must_use]
    pub fn active(&self) -> bool {
        self.net.is_some()
    }

    /// The largest confident face in the whole grey frame, if any.
    ///
    /// # Errors
    /// OpenCV failures.
    pub fn detect(&mut self, gray: &Mat) -> Result<Option<Face>, opencv::Error> {
        match Prepared::full(gray)? {
            Some(p) => self.run(&p),
            None => Ok(None),
        }
    }

    /// The largest confident face near `centre` (see [`Prepared::near`]).
    ///
    /// # Errors
    /// OpenCV failures.
    pub fn detect_near(&mut self, gray: &Mat, centre: Point, iod: f64) -> Result<Option<Face>, opencv::Error> {
        match Prepared::near(gray, centre, iod)? {
            Some(p) => self.run(&p),
            None => Ok(None),
        }
    }

    /// The largest confident face in a prepared image, in the frame's pixels.
    ///
    /// # Errors
    /// OpenCV failures.
    pub fn run(&mut self, p: &Prepared) -> Result<Option<Face>, opencv::Error> {
        let Some(net) = self.net.as_mut() else {
            return Ok(None);
        };
        let size = p.bgr.size()?;
        if size != self.input {
            net.set_input_size(size)?;
            self.input = size;
        }
        net.detect(&p.bgr, &mut self.faces)?;
        let ([ox, oy], s) = (p.origin, p.scale);
        let mut best: Option<Face> = None;
        for r in 0..self.faces.rows() {
            let v = |c: i32| -> Result<f64, opencv::Error> { Ok(f64::from(*self.faces.at_2d::<f32>(r, c)?) / s) };
            let score = f64::from(*self.faces.at_2d::<f32>(r, 14)?);
            if !score.is_finite() || score < FACE_MIN_SCORE {
                continue;
            }
            let face = Face {
                bbox: [ox + v(0)?, oy + v(1)?, v(2)?, v(3)?],
                re: [ox + v(4)?, oy + v(5)?],
                le: [ox + v(6)?, oy + v(7)?],
                nose: [ox + v(8)?, oy + v(9)?],
                score,
            };
            if face.le[0] <= face.re[0] || !face.bbox.iter().all(|x| x.is_finite()) {
                continue;
            }
            if best.is_none_or(|b| face.bbox[2] * face.bbox[3] > b.bbox[2] * b.bbox[3]) {
                best = Some(face);
            }
        }
        Ok(best)
    }
}

/// The face detector on its own thread (named "face"), so that a frame that
/// asks never waits for the model: a question is asked on one frame and its
/// answer taken on a later one, chosen by the frames' clock (so a replay
/// gives the same answers on the same frames however fast it runs). A live
/// camera's next frame comes long after the model is done.
pub struct FaceWorker {
    requests: Option<SyncSender<Prepared>>,
    answers: Receiver<Result<Option<Face>, String>>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// When the question now under way was asked.
    asked: Option<f64>,
}

impl FaceWorker {
    /// Starts the thread with `detector` (none without a model).
    #[must_use]
    pub fn spawn(mut detector: FaceDetector) -> Self {
        // OpenCV's worker threads would let the model take every core while
        // the pipeline's frame waits; one thread each keeps the frame's time steady.
        let _ = opencv::core::set_num_threads(1);
        let (requests, inbox) = sync_channel::<Prepared>(1);
        let (outbox, answers) = sync_channel(1);
        let thread = if detector.active() {
            std::thread::Builder::new()
                .name("face".into())
                .spawn(move || {
                    for p in inbox {
                        let answer = detector.run(&p).map_err(|e| e.message);
                        if outbox.send(answer).is_err() {
                            break;
                        }
                    }
                })
                .map_err(|e| tracing::warn!("cannot start the face detector's thread: {e}; blinks and the eye cascade alone will find the eyes"))
                .ok()
        } else {
            None
        };
        Self { requests: thread.as_ref().map(|_| requests), answers, thread, asked: None }
    }

    /// Whether the detector is running.
    #[must_use]
    pub fn active(&self) -> bool {
        self.requests.is_some()
    }

    /// Whether a question is under way.
    #[must_use]
    pub fn busy(&self) -> bool {
        self.asked.is_some()
    }

    /// Asks about `p` at frame time `t_ms`, unless a question is under way. Returns whether it was asked.
    pub fn ask(&mut self, p: Prepared, t_ms: f64) -> bool {
        if self.asked.is_some() {
            return false;
        }
        let Some(tx) = &self.requests else { return false };
        if tx.send(p).is_err() {
            self.stopped();
            return false;
        }
        self.asked = Some(t_ms);
        true
    }

    /// The answer to the question under way, once `after_ms` have passed on
    /// the frames' clock since it was asked (waiting for the thread if it is
    /// not done yet): `Some(face or none)`; `None` before then.
    pub fn answer(&mut self, t_ms: f64, after_ms: f64) -> Option<Option<Face>> {
        let asked = self.asked?;
        if t_ms - asked < after_ms {
            return None;
        }
        Some(self.wait())
    }

    /// The face in `p`, now: asks and waits (a question under way is answered first and dropped).
    pub fn detect_now(&mut self, p: Prepared) -> Option<Face> {
        if self.asked.is_some() {
            let _ = self.wait();
        }
        if self.ask(p, 0.0) { self.wait() } else { None }
    }

    /// Drops the question under way, if any (its frame belonged to another source).
    pub fn forget(&mut self) {
        if self.asked.is_some() {
            let _ = self.wait();
        }
    }

    fn wait(&mut self) -> Option<Face> {
        self.asked = None;
        match self.answers.recv() {
            Ok(Ok(face)) => face,
            Ok(Err(e)) => {
                tracing::warn!("face detector: {e}");
                None
            }
            Err(_) => {
                self.stopped();
                None
            }
        }
    }

    fn stopped(&mut self) {
        tracing::warn!("the face detector stopped; blinks and the eye cascade alone will find the eyes");
        self.requests = None;
        self.asked = None;
    }
}

impl Drop for FaceWorker {
    fn drop(&mut self) {
        // Closing the request channel ends the thread's loop.
        self.requests = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::params::FACE_ANSWER_MS;
    use crate::lab::synth::{FaceAsset, Generator, SynthConfig, default_photo, gray_frame};

    /// A generated grey frame and its labels.
    fn rendered(cfg: SynthConfig, i: usize) -> (Mat, crate::lab::labels::LabelRow) {
        gray_frame(&mut Generator::new(FaceAsset::load(&default_photo()).expect("photo"), cfg).expect("generator"), i)
    }

    #[test]
    fn the_shipped_model_finds_the_generated_face_and_its_eyes() {
        let mut d = FaceDetector::from_path(&crate::data_dir().join("models").join(FACE_MODEL)).expect("the shipped model loads");
        for (w, h, iod) in [(640, 480, 64.0), (320, 240, 32.0)] {
            let mut cfg = SynthConfig::demo();
            (cfg.width, cfg.height, cfg.iod_px) = (w, h, iod);
            let (img, row) = rendered(cfg, 0);
            let face = d.detect(&img).expect("detect").expect("a face");
            let (le, re) = (row.le.expect("le"), row.re.expect("re"));
            let iod = dist(le, re);
            assert!(dist(face.le, le) < 0.2 * iod && dist(face.re, re) < 0.2 * iod, "{w}x{h}: {face:?} vs {le:?} {re:?}");
            assert!(face.contains(row.nose.expect("nose"), 0.0));
            let near = d.detect_near(&img, crate::events::midpoint(le, re), iod).expect("detect").expect("the face near its eyes");
            assert!(dist(near.le, le) < 0.15 * iod && dist(near.re, re) < 0.15 * iod, "{w}x{h} near: {near:?} vs {le:?} {re:?}");
        }
    }

    #[test]
    fn an_empty_scene_has_no_face() {
        let mut d = FaceDetector::from_path(&crate::data_dir().join("models").join(FACE_MODEL)).expect("the shipped model loads");
        let grey = Mat::new_rows_cols_with_default(240, 320, opencv::core::CV_8UC1, opencv::core::Scalar::all(90.0)).expect("mat");
        assert!(d.detect(&grey).expect("detect").is_none());
    }

    #[test]
    fn a_missing_or_damaged_model_is_reported_and_finds_nothing() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let missing = tmp.path().join("none.onnx");
        let e = FaceDetector::from_path(&missing).err().expect("missing");
        assert!(e.to_string().contains("none.onnx") && e.to_string().contains("not found"), "{e}");
        let broken = tmp.path().join("broken.onnx");
        std::fs::write(&broken, b"not a model").expect("write");
        let e = FaceDetector::from_path(&broken).err().expect("damaged");
        assert!(e.to_string().contains("broken.onnx") && e.to_string().contains("cannot load"), "{e}");
        let mut off = FaceDetector::unavailable();
        assert!(!off.active());
        let (img, _) = rendered(SynthConfig::demo(), 0);
        assert!(off.detect(&img).expect("detect").is_none());
    }

    #[test]
    fn the_worker_answers_a_drift_check_a_fixed_time_later_on_the_frames_clock() {
        let d = FaceDetector::from_path(&crate::data_dir().join("models").join(FACE_MODEL)).expect("the shipped model loads");
        let mut w = FaceWorker::spawn(d);
        assert!(w.active());
        let (img, row) = rendered(SynthConfig::demo(), 0);
        let (le, re) = (row.le.expect("le"), row.re.expect("re"));
        let p = Prepared::near(&img, crate::events::midpoint(le, re), dist(le, re)).expect("prepare").expect("inside");
        assert!(w.ask(p, 1000.0));
        let again = Prepared::full(&img).expect("prepare").expect("inside");
        assert!(!w.ask(again, 1010.0), "one question at a time");
        assert!(w.answer(1000.0 + FACE_ANSWER_MS - 1.0, FACE_ANSWER_MS).is_none(), "not before its time");
        let face = w.answer(1000.0 + FACE_ANSWER_MS, FACE_ANSWER_MS).expect("answered").expect("a face");
        assert!(dist(face.le, le) < 0.25 * dist(le, re));
        assert!(!w.busy());
        let now = w.detect_now(Prepared::full(&img).expect("prepare").expect("inside"));
        assert!(now.is_some());
        let mut off = FaceWorker::spawn(FaceDetector::unavailable());
        assert!(!off.active());
        assert!(off.detect_now(Prepared::full(&img).expect("prepare").expect("inside")).is_none());
    }
}
