//! Runs the pipeline on a source: the loop shared by `facemouse replay`, the
//! headless live run and the tests.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::capture::{self, CaptureError, CaptureHandle, SourceSpec, SourceStatus, Taken};
use crate::output::{OutputError, PointerSink};
use crate::pipeline::Pipeline;
use crate::profile::Settings;
use crate::trace::{TraceError, TraceRecord, TraceWriter};

/// How long the loop waits for a frame before it checks on the source.
const TAKE_TIMEOUT: Duration = Duration::from_millis(500);

/// Replay failures.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Capture(#[from] CaptureError),
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("{source_name} stopped: {reason}")]
    SourceFailed { source_name: String, reason: String },
}

/// What a run did.
#[derive(Debug, Clone, Default)]
pub struct RunSummary {
    pub source: String,
    pub frames: u64,
    pub dropped: u64,
    pub proc_us_p50: u64,
    pub proc_us_p99: u64,
    pub tracking_frames: u64,
}

/// Runs `spec` through the pipeline until the source ends or `stop` is set.
///
/// Every trace line is written to `trace` (if given); every command goes to
/// `sink`; `report` receives one-line status messages (a camera lost or back).
///
/// # Errors
/// A source that cannot be opened or fails for good, or a trace that cannot be written.
pub fn run(
    spec: SourceSpec,
    settings: &Settings,
    trace: Option<&Path>,
    sink: &mut dyn PointerSink,
    stop: &AtomicBool,
    report: &mut dyn FnMut(&str),
) -> Result<RunSummary, ReplayError> {
    let mut writer = trace.map(TraceWriter::create).transpose()?;
    let handle = capture::spawn(spec)?;
    let summary = run_handle(
        &handle,
        settings,
        &mut |rec| {
            if let Some(w) = writer.as_mut() {
                w.write(rec)?;
            }
            Ok(())
        },
        sink,
        stop,
        report,
    )?;
    if let Some(w) = writer {
        w.finish()?;
    }
    Ok(summary)
}

/// Runs `spec` as fast as possible and returns every frame's record, rounded as
/// a trace file would hold it (for evaluation in memory).
///
/// # Errors
/// See [`run`].
pub fn collect(spec: SourceSpec, settings: &Settings) -> Result<(Vec<TraceRecord>, RunSummary), ReplayError> {
    let handle = capture::spawn(spec)?;
    let mut records = Vec::new();
    let stop = AtomicBool::new(false);
    let summary = run_handle(
        &handle,
        settings,
        &mut |rec| {
            records.push(rec.rounded());
            Ok(())
        },
        &mut crate::output::NullSink,
        &stop,
        &mut |m| tracing::warn!("{m}"),
    )?;
    Ok((records, summary))
}

/// Runs the pipeline on an already started capture thread (see [`run`]).
///
/// # Errors
/// A source that fails for good, or a trace that cannot be written.
pub fn run_handle(
    handle: &CaptureHandle,
    settings: &Settings,
    on_record: &mut dyn FnMut(&TraceRecord) -> Result<(), ReplayError>,
    sink: &mut dyn PointerSink,
    stop: &AtomicBool,
    report: &mut dyn FnMut(&str),
) -> Result<RunSummary, ReplayError> {
    let slot = handle.slot();
    let mut pipeline = Pipeline::new(settings);
    let mut summary = RunSummary { source: handle.name().to_string(), ..RunSummary::default() };
    let mut proc = Vec::with_capacity(4096);
    let mut seen_status = 0;
    while !stop.load(Ordering::Relaxed) {
        match slot.take(TAKE_TIMEOUT) {
            Taken::Frame(frame) => {
                let arrived = Instant::now();
                let (rec, cmds) = pipeline.tick(&frame, arrived);
                for c in cmds {
                    sink.apply(c)?;
                }
                on_record(rec)?;
                proc.push(rec.proc_us);
                summary.frames += 1;
                if rec.state == crate::events::TrackState::Tracking {
                    summary.tracking_frames += 1;
                }
                slot.recycle(frame);
            }
            Taken::Timeout => {}
            Taken::Finished(SourceStatus::Failed(reason)) => {
                return Err(ReplayError::SourceFailed { source_name: summary.source, reason });
            }
            Taken::Finished(_) => break,
        }
        let (n, status) = slot.status();
        if n != seen_status {
            seen_status = n;
            match status {
                SourceStatus::Lost(why) => {
                    report(&format!("{} lost ({why}); retrying every second — check the cable", summary.source));
                }
                SourceStatus::Running => report(&format!("{} is back", summary.source)),
                SourceStatus::Ended | SourceStatus::Failed(_) => {}
            }
        }
    }
    // Whatever ended the run (the input, Ctrl-C, SIGTERM), leave nothing pressed.
    for c in pipeline.shutdown() {
        sink.apply(&c)?;
    }
    summary.dropped = slot.dropped();
    // The same percentiles as `facemouse eval` and the reference scorer.
    let mut proc: Vec<f64> = proc.into_iter().map(|v| v as f64).collect();
    summary.proc_us_p50 = crate::eval::pct(&mut proc, 50.0).unwrap_or(0.0).round() as u64;
    summary.proc_us_p99 = crate::eval::pct(&mut proc, 99.0).unwrap_or(0.0).round() as u64;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::{Frame, FrameSource, ReadOutcome};
    use crate::output::RecordingSink;
    use opencv::core::{Mat, Scalar, CV_8UC3};

    /// A camera that delivers `before` frames, vanishes, comes back after two
    /// reopen attempts, and ends after `after` more frames.
    struct FlakyCamera {
        before: u64,
        after: u64,
        n: u64,
        lost: bool,
        attempts: u32,
    }

    impl FrameSource for FlakyCamera {
        fn name(&self) -> String {
            "camera 0: flaky".into()
        }
        fn fps(&self) -> Option<f64> {
            Some(30.0)
        }
        fn is_live(&self) -> bool {
            // Lossless, so the test sees every frame; the lost/back logic is the same.
            false
        }
        fn read(&mut self, frame: &mut Frame) -> Result<ReadOutcome, CaptureError> {
            if self.n == self.before && !self.lost && self.attempts == 0 {
                self.lost = true;
                return Ok(ReadOutcome::Lost("device unplugged".into()));
            }
            if self.n >= self.before + self.after {
                return Ok(ReadOutcome::End);
            }
            frame.color = Mat::new_rows_cols_with_default(48, 64, CV_8UC3, Scalar::all(90.0)).expect("mat");
            frame.update_gray().expect("gray");
            frame.index = self.n;
            frame.t_ms = self.n as f64 * 33.3;
            self.n += 1;
            Ok(ReadOutcome::Frame)
        }
        fn reopen(&mut self) -> Result<bool, CaptureError> {
            self.attempts += 1;
            if self.attempts >= 2 {
                self.lost = false;
                return Ok(true);
            }
            Ok(false)
        }
    }

    #[test]
    fn a_lost_camera_is_reported_and_reopened_without_exiting() {
        let handle = capture::spawn_with(|| {
            let cam: Box<dyn FrameSource> = Box::new(FlakyCamera { before: 5, after: 5, n: 0, lost: false, attempts: 0 });
            Ok((cam, false))
        })
        .expect("spawn");
        let mut sink = RecordingSink::default();
        let mut messages = Vec::new();
        let stop = AtomicBool::new(false);
        let s = run_handle(&handle, &Settings::default(), &mut |_| Ok(()), &mut sink, &stop, &mut |m| messages.push(m.to_string()))
            .expect("run");
        assert_eq!(s.frames, 10, "frames before and after the loss are processed");
        assert!(messages.iter().any(|m| m.contains("lost") && m.contains("device unplugged")), "{messages:?}");
        assert!(messages.iter().any(|m| m.contains("is back")), "{messages:?}");
        assert_eq!(sink.presses(), 0, "the placeholder stages never click");
    }
}
