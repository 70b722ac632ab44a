//! Sequences in the format of `../shared/data/README.md`: `labels.csv` + `meta.json`.
//!
//! The project's generator writes this format and the evaluation reads it, so
//! generated and real sequences go through the same code.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::events::Point;

/// The header of `labels.csv`.
pub const HEADER: &str = "frame,t_ms,eyes_closed,brows_raised,le_x,le_y,re_x,re_y,lb_x,lb_y,rb_x,rb_y,nose_x,nose_y,mid_x,mid_y,yaw,pitch,roll,peer_blink,peer_brow";

/// One labelled frame. Positions are `None` where the cell is empty.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LabelRow {
    pub frame: u64,
    pub t_ms: f64,
    pub eyes_closed: bool,
    pub brows_raised: bool,
    pub le: Option<Point>,
    pub re: Option<Point>,
    pub lb: Option<Point>,
    pub rb: Option<Point>,
    pub nose: Option<Point>,
    pub mid: Option<Point>,
    pub yaw: Option<f64>,
    pub pitch: Option<f64>,
    pub roll: Option<f64>,
    pub peer_blink: Option<f64>,
    pub peer_brow: Option<f64>,
}

/// The fields of `meta.json` the project reads and writes; others are kept as they are.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    #[serde(default)]
    pub source: String,
    #[serde(default)]
    pub license: String,
    #[serde(default)]
    pub fps: f64,
    #[serde(default)]
    pub frames: u64,
    #[serde(default)]
    pub width: u32,
    #[serde(default)]
    pub height: u32,
    #[serde(default)]
    pub synthetic_brow_raises: Vec<[u64; 2]>,
    #[serde(default)]
    pub subtle_raises: Vec<[u64; 2]>,
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// Label failures.
#[derive(Debug, thiserror::Error)]
pub enum LabelError {
    #[error("cannot read {path}: {source} (a sequence folder holds labels.csv and meta.json)")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Parse { path: PathBuf, line: usize, message: String },
}

fn cell(v: Option<f64>, prec: usize) -> String {
    v.map_or_else(String::new, |x| format!("{x:.prec$}"))
}

fn pt(p: Option<Point>) -> String {
    format!("{},{}", cell(p.map(|p| p[0]), 2), cell(p.map(|p| p[1]), 2))
}

/// Renders rows as `labels.csv` text.
#[must_use]
pub fn to_csv(rows: &[LabelRow]) -> String {
    let mut s = String::with_capacity(rows.len() * 140);
    s.push_str(HEADER);
    s.push('\n');
    for r in rows {
        let _ = writeln!(
            s,
            "{},{:.1},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.frame,
            r.t_ms,
            u8::from(r.eyes_closed),
            u8::from(r.brows_raised),
            pt(r.le),
            pt(r.re),
            pt(r.lb),
            pt(r.rb),
            pt(r.nose),
            pt(r.mid),
            cell(r.yaw, 2),
            cell(r.pitch, 2),
            cell(r.roll, 2),
            cell(r.peer_blink, 4),
            cell(r.peer_brow, 4)
        );
    }
    s
}

fn parse_opt(s: &str) -> Result<Option<f64>, String> {
    let s = s.trim();
    if s.is_empty() {
        return Ok(None);
    }
    s.parse::<f64>().map(Some).map_err(|_| format!("not a number: {s:?}"))
}

fn parse_pt(x: &str, y: &str) -> Result<Option<Point>, String> {
    Ok(match (parse_opt(x)?, parse_opt(y)?) {
        (Some(x), Some(y)) => Some([x, y]),
        _ => None,
    })
}

/// Parses `labels.csv` text.
///
/// # Errors
/// A wrong header or a malformed row, with its line number.
pub fn parse_csv(path: &Path, text: &str) -> Result<Vec<LabelRow>, LabelError> {
    let err = |line: usize, message: String| LabelError::Parse { path: path.to_path_buf(), line, message };
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default().trim();
    if header != HEADER {
        return Err(err(1, format!("unexpected header (expected {HEADER})")));
    }
    let mut rows = Vec::new();
    for (i, line) in lines.enumerate() {
        let n = i + 2;
        if line.trim().is_empty() {
            continue;
        }
        let c: Vec<&str> = line.split(',').collect();
        if c.len() != 21 {
            return Err(err(n, format!("expected 21 columns, found {}", c.len())));
        }
        let row = (|| -> Result<LabelRow, String> {
            Ok(LabelRow {
                frame: c[0].trim().parse().map_err(|_| format!("bad frame {:?}", c[0]))?,
                t_ms: parse_opt(c[1])?.ok_or("empty t_ms")?,
                eyes_closed: c[2].trim() == "1",
                brows_raised: c[3].trim() == "1",
                le: parse_pt(c[4], c[5])?,
                re: parse_pt(c[6], c[7])?,
                lb: parse_pt(c[8], c[9])?,
                rb: parse_pt(c[10], c[11])?,
                nose: parse_pt(c[12], c[13])?,
                mid: parse_pt(c[14], c[15])?,
                yaw: parse_opt(c[16])?,
                pitch: parse_opt(c[17])?,
                roll: parse_opt(c[18])?,
                peer_blink: parse_opt(c[19])?,
                peer_brow: parse_opt(c[20])?,
            })
        })()
        .map_err(|m| err(n, m))?;
        rows.push(row);
    }
    Ok(rows)
}

/// The three files of a sequence folder `dir` that is about to be written
/// (`video.avi`, `labels.csv`, `meta.json`), once the folder exists and each
/// may take an output: the folder is not one of `inputs` (a sequence is
/// never written onto the one it is made from), and no file is a link, a
/// device or a file of `inputs`.
///
/// # Errors
/// What [`crate::fs::check_output`] refuses, or a folder that cannot be made.
pub fn sequence_outputs(dir: &Path, inputs: &[&Path]) -> Result<(PathBuf, PathBuf, PathBuf), crate::fs::OutputError> {
    crate::fs::check_output(dir, true, inputs)?;
    std::fs::create_dir_all(dir).map_err(|source| crate::fs::OutputError::Io { path: dir.to_path_buf(), source })?;
    let files: Vec<PathBuf> = inputs.iter().flat_map(|i| SEQUENCE_FILES.iter().map(move |f| i.join(f))).collect();
    let files: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let [video, csv, meta] = SEQUENCE_FILES.map(|f| dir.join(f));
    for out in [&video, &csv, &meta] {
        crate::fs::check_output(out, false, &files)?;
    }
    Ok((video, csv, meta))
}

/// The files of a sequence folder.
pub const SEQUENCE_FILES: [&str; 3] = ["video.avi", "labels.csv", "meta.json"];

/// A sequence folder: its labels and metadata.
#[derive(Debug, Clone)]
pub struct Sequence {
    pub dir: PathBuf,
    pub rows: Vec<LabelRow>,
    pub meta: Meta,
}

/// Labelled frame times this close to the container's even rate (ms) are
/// that rate, rounded: the labels give times to a tenth of a millisecond.
const EVEN_WITHIN_MS: f64 = 0.5;

impl Sequence {
    /// Reads `dir/labels.csv` and `dir/meta.json`.
    ///
    /// # Errors
    /// Missing or malformed files.
    pub fn load(dir: &Path) -> Result<Self, LabelError> {
        let read = |name: &str| {
            let p = dir.join(name);
            std::fs::read_to_string(&p).map_err(|source| LabelError::Io { path: p, source })
        };
        let csv_path = dir.join("labels.csv");
        let rows = parse_csv(&csv_path, &read("labels.csv")?)?;
        let meta_path = dir.join("meta.json");
        let meta: Meta = serde_json::from_str(&read("meta.json")?).map_err(|e| LabelError::Parse {
            path: meta_path,
            line: e.line(),
            message: e.to_string(),
        })?;
        Ok(Self { dir: dir.to_path_buf(), rows, meta })
    }

    /// The video file of the sequence.
    #[must_use]
    pub fn video(&self) -> PathBuf {
        self.dir.join("video.avi")
    }

    /// The video as the camera gave it: each frame at its labelled time
    /// (`t_ms`), not at the container's average rate, when the two differ
    /// (a webcam's uneven intervals: 18 to 87 ms in the FOCUS clips at 30
    /// fps). Times within `EVEN_WITHIN_MS` of the container's rate are
    /// that rate, rounded (generated clips and their copies): played at it.
    #[must_use]
    pub fn source(&self) -> crate::capture::SourceSpec {
        match self.recorded_times() {
            Some(times_ms) => crate::capture::SourceSpec::Recorded { path: self.video(), times_ms },
            None => crate::capture::SourceSpec::Video { path: self.video(), realtime: false },
        }
    }

    /// The labelled frame times, where the video is to be played at them
    /// (see [`Self::source`]); `None`: at the container's even rate.
    fn recorded_times(&self) -> Option<Vec<f64>> {
        let t0 = self.rows.first().map_or(0.0, |r| r.t_ms);
        let even = self.meta.fps > 0.0 && (0..).zip(&self.rows).all(|(i, r)| (r.t_ms - t0 - crate::capture::even_time(i, self.meta.fps)).abs() <= EVEN_WITHIN_MS);
        // Times that stand still or go back are no recording's clock.
        let increasing = self.rows.windows(2).all(|w| w[1].t_ms > w[0].t_ms);
        if !increasing && !even {
            tracing::warn!("{}: the labelled frame times (t_ms) do not increase; the frames are played at the video's own rate", self.dir.display());
        }
        (increasing && !even).then(|| self.rows.iter().map(|r| r.t_ms).collect())
    }

    /// [`Self::source`] with each frame's time moved by up to `jitter_ms`
    /// either way (uniform, from `seed`), as a camera's clock jitters; a
    /// time never goes before the one before it.
    #[must_use]
    pub fn source_jittered(&self, jitter_ms: f64, seed: u64) -> crate::capture::SourceSpec {
        if jitter_ms <= 0.0 {
            return self.source();
        }
        let mut rng = crate::lab::synth::Rng::new(seed);
        let fps = self.meta.fps.max(1e-3);
        let base = self.recorded_times().unwrap_or_else(|| (0..self.rows.len() as u64).map(|i| crate::capture::even_time(i, fps)).collect());
        let times_ms = base.iter().map(|t| t + rng.uniform(-jitter_ms, jitter_ms)).collect();
        crate::capture::SourceSpec::Recorded { path: self.video(), times_ms }
    }

    /// Runs of `true` as inclusive `(start, end)` frame ranges.
    #[must_use]
    pub fn runs(flags: impl IntoIterator<Item = bool>) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut start = None;
        let mut n = 0;
        for (i, f) in flags.into_iter().enumerate() {
            n = i + 1;
            match (f, start) {
                (true, None) => start = Some(i),
                (false, Some(s)) => {
                    out.push((s, i - 1));
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(s) = start {
            out.push((s, n - 1));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sequence_plays_at_its_recorded_times_when_they_are_uneven() {
        use crate::capture::SourceSpec;
        let seq = |times: &[f64]| Sequence {
            dir: PathBuf::from("s"),
            rows: times.iter().enumerate().map(|(i, &t)| LabelRow { frame: i as u64, t_ms: t, ..LabelRow::default() }).collect(),
            meta: Meta { fps: 30.0, ..Meta::default() },
        };
        // 30 fps rounded to a tenth of a millisecond: the container's even rate.
        assert_eq!(seq(&[0.0, 33.3, 66.7, 100.0, 133.3]).source(), SourceSpec::Video { path: PathBuf::from("s/video.avi"), realtime: false });
        // A webcam's uneven intervals (the FOCUS clips: 18 to 87 ms at 30 fps): as recorded.
        let uneven = [0.0, 19.6, 78.8, 100.1, 133.0];
        assert_eq!(seq(&uneven).source(), SourceSpec::Recorded { path: PathBuf::from("s/video.avi"), times_ms: uneven.to_vec() });
        // Times that stand still or go back are no clock: the video's own rate.
        assert_eq!(seq(&[0.0, 0.0, 0.0, 0.0, 0.0]).source(), SourceSpec::Video { path: PathBuf::from("s/video.avi"), realtime: false });
        assert_eq!(seq(&[0.0, 40.0, 20.0, 100.0, 133.0]).source(), SourceSpec::Video { path: PathBuf::from("s/video.avi"), realtime: false });
    }

    #[test]
    fn a_jittered_clock_stays_within_its_bound_and_follows_its_seed() {
        use crate::capture::SourceSpec;
        let seq = Sequence {
            dir: PathBuf::from("s"),
            rows: (0..200).map(|i| LabelRow { frame: i, t_ms: (i as f64 * 100.0 / 3.0 * 10.0).round() / 10.0, ..LabelRow::default() }).collect(),
            meta: Meta { fps: 30.0, ..Meta::default() },
        };
        let times = |seed| match seq.source_jittered(2.0, seed) {
            SourceSpec::Recorded { times_ms, .. } => times_ms,
            other => panic!("{other:?}"),
        };
        let (a, b) = (times(1), times(2));
        assert!(a.iter().enumerate().all(|(i, t)| (t - i as f64 * 1000.0 / 30.0).abs() <= 2.0 + 1e-9), "within 2 ms of the even clock");
        assert!(a.iter().enumerate().any(|(i, t)| (t - i as f64 * 1000.0 / 30.0).abs() > 1.0), "it moves them");
        assert_eq!(a, times(1), "the same seed, the same clock");
        assert_ne!(a, b, "another seed, another");
        assert_eq!(seq.source_jittered(0.0, 1), seq.source(), "no jitter: the clock as it is");
    }

    #[test]
    fn csv_round_trips() {
        let rows = vec![
            LabelRow { frame: 0, t_ms: 0.0, le: Some([352.45, 205.1]), re: Some([285.22, 204.12]), yaw: Some(0.6), ..LabelRow::default() },
            LabelRow { frame: 1, t_ms: 33.3, eyes_closed: true, ..LabelRow::default() },
        ];
        let text = to_csv(&rows);
        let back = parse_csv(Path::new("x.csv"), &text).expect("parse");
        assert_eq!(back, rows);
    }

    #[test]
    fn malformed_rows_name_the_line() {
        let text = format!("{HEADER}\n0,0.0,0,0\n");
        let e = parse_csv(Path::new("labels.csv"), &text).expect_err("must fail");
        assert!(e.to_string().contains("labels.csv:2"), "{e}");
    }

    #[test]
    fn runs_are_inclusive() {
        let v = [false, true, true, false, true];
        assert_eq!(Sequence::runs(v), vec![(1, 2), (4, 4)]);
    }

    #[test]
    fn reads_the_shared_format_when_present() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/focus-p1-brows-a");
        if !dir.exists() {
            eprintln!("skipped: ../shared/data is absent (the development data is not shipped)");
            return;
        }
        let s = Sequence::load(&dir).expect("load");
        assert_eq!(s.rows.len(), 1793);
        assert_eq!(s.meta.synthetic_brow_raises.len(), 10);
        assert_eq!(s.meta.subtle_raises.len(), 3);
    }
}
