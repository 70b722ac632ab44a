//! The trace: one JSON object per processed frame (JSON Lines). See `docs/trace.md`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::events::{Event, Point, TrackState};
use crate::pose::Pose;

/// One line of the trace. Every key is written on every line (`null` where unknown).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceRecord {
    pub frame: u64,
    pub t_ms: f64,
    pub state: TrackState,
    pub le: Option<Point>,
    pub re: Option<Point>,
    pub lb: Option<Point>,
    pub rb: Option<Point>,
    pub feature: Option<Point>,
    pub eyes_closed: bool,
    pub brows_raised: bool,
    /// The mouth moves as in talking: no face gesture acts (`vision::mouth`).
    #[serde(default)]
    pub talking: bool,
    pub pose: Option<Pose>,
    pub pointer: Option<Point>,
    pub events: Vec<Event>,
    pub proc_us: u64,
    /// Microseconds from the frame's arrival (its capture, or its decoding)
    /// to its commands handed to the output.
    #[serde(default)]
    pub latency_us: u64,
}

/// The keys of a trace line, in order.
pub const TRACE_KEYS: [&str; 16] = [
    "frame",
    "t_ms",
    "state",
    "le",
    "re",
    "lb",
    "rb",
    "feature",
    "eyes_closed",
    "brows_raised",
    "talking",
    "pose",
    "pointer",
    "events",
    "proc_us",
    "latency_us",
];

/// Trace failures.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("cannot write the trace {path}: {source} (check the folder exists and is writable)")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot encode a trace line: {0}")]
    Encode(#[from] serde_json::Error),
    #[error("cannot write the trace: {0}")]
    Output(#[from] crate::fs::OutputError),
}

fn round2(p: Option<Point>) -> Option<Point> {
    p.map(|[x, y]| [(x * 100.0).round() / 100.0, (y * 100.0).round() / 100.0])
}

impl TraceRecord {
    /// The same record with positions and angles rounded to 0.01, as written to disk.
    #[must_use]
    pub fn rounded(&self) -> Self {
        let r = |v: f64| (v * 100.0).round() / 100.0;
        Self {
            t_ms: (self.t_ms * 1000.0).round() / 1000.0,
            le: round2(self.le),
            re: round2(self.re),
            lb: round2(self.lb),
            rb: round2(self.rb),
            feature: round2(self.feature),
            pointer: round2(self.pointer),
            pose: self.pose.map(|p| Pose { yaw: r(p.yaw), pitch: r(p.pitch), roll: r(p.roll) }),
            events: self.events.clone(),
            ..*self
        }
    }
}

/// Writes trace lines to a file.
pub struct TraceWriter {
    path: PathBuf,
    /// The file being written: beside `path`, renamed over it by `finish`.
    tmp: PathBuf,
    out: Option<BufWriter<File>>,
    line: Vec<u8>,
}

impl TraceWriter {
    /// Starts a trace that will replace `path` once it is finished. Nothing
    /// is written to `path` before then: a run that fails leaves whatever
    /// was there as it was.
    ///
    /// # Errors
    /// When the file cannot be created (a missing or read-only folder), or
    /// `path` is a link or not a regular file.
    pub fn create(path: &Path) -> Result<Self, TraceError> {
        // Only a new or regular file: never through a link, nor a device
        // (renaming over `/dev/full` would replace the device).
        crate::fs::check_output(path, false, &[])?;
        let (tmp, f) = crate::fs::create_beside(path, "part").map_err(|source| TraceError::Io { path: path.to_path_buf(), source })?;
        Ok(Self { path: path.to_path_buf(), tmp, out: Some(BufWriter::new(f)), line: Vec::with_capacity(512) })
    }

    /// Appends one record.
    ///
    /// # Errors
    /// When the record cannot be written.
    pub fn write(&mut self, rec: &TraceRecord) -> Result<(), TraceError> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, &rec.rounded())?;
        self.line.push(b'\n');
        let Some(out) = self.out.as_mut() else { return Ok(()) };
        out.write_all(&self.line).map_err(|source| TraceError::Io { path: self.path.clone(), source })
    }

    /// Flushes the trace to disk and puts it in place.
    ///
    /// # Errors
    /// When the data cannot be written.
    pub fn finish(mut self) -> Result<(), TraceError> {
        let io = |source| TraceError::Io { path: self.path.clone(), source };
        if let Some(out) = self.out.take() {
            let f = out.into_inner().map_err(|e| io(e.into_error()))?;
            f.sync_all().map_err(io)?;
        }
        std::fs::rename(&self.tmp, &self.path).map_err(|e| {
            let _ = std::fs::remove_file(&self.tmp);
            io(e)
        })
    }
}

impl Drop for TraceWriter {
    /// A trace that was not finished (the run failed) leaves nothing behind.
    fn drop(&mut self) {
        if self.out.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> TraceRecord {
        TraceRecord {
            frame: 3,
            t_ms: 100.123_456,
            state: TrackState::Tracking,
            le: Some([352.456, 205.1]),
            re: None,
            lb: None,
            rb: None,
            feature: None,
            eyes_closed: true,
            brows_raised: false,
            talking: true,
            pose: Some(Pose { yaw: 1.234, pitch: -2.0, roll: 0.0 }),
            pointer: Some([960.0, 540.0]),
            events: vec![Event::Blink, Event::ClickLeft],
            proc_us: 812,
            latency_us: 900,
        }
    }

    #[test]
    fn every_key_is_present_and_null_where_unknown() {
        let v = serde_json::to_value(sample().rounded()).expect("encode");
        let obj = v.as_object().expect("an object");
        assert_eq!(obj.len(), TRACE_KEYS.len());
        for k in TRACE_KEYS {
            assert!(obj.contains_key(k), "missing {k}");
        }
        assert!(obj["re"].is_null());
        assert_eq!(obj["state"], "tracking");
        assert_eq!(obj["le"][0], 352.46);
        assert_eq!(obj["events"], serde_json::json!(["blink", "click_left"]));
        assert_eq!(obj["pose"]["yaw"], 1.23);
    }

    #[test]
    fn writer_round_trips() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("t.jsonl");
        let mut w = TraceWriter::create(&p).expect("create");
        w.write(&sample()).expect("write");
        w.write(&sample()).expect("write");
        w.finish().expect("finish");
        let text = std::fs::read_to_string(&p).expect("read");
        let lines: Vec<_> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        let back: TraceRecord = serde_json::from_str(lines[0]).expect("decode");
        assert_eq!(back, sample().rounded());
    }

    #[test]
    fn unwritable_path_names_the_file() {
        let err = TraceWriter::create(Path::new("/nonexistent-dir/t.jsonl")).err().expect("must fail");
        assert!(err.to_string().contains("/nonexistent-dir/t.jsonl"));
    }
}
