//! `facemouse replay`, the evaluation and the tests: a [`Session`] on a
//! recording that runs once and writes its trace.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use crate::capture::SourceSpec;
use crate::profile::Settings;
use crate::session::{Observer, Session, SessionError, Tick};
use crate::trace::{TraceRecord, TraceWriter};

pub use crate::session::{RunSummary, SessionError as ReplayError};

/// Writes the trace and passes status lines on.
struct Writer<'a> {
    trace: Option<TraceWriter>,
    records: Option<&'a mut Vec<TraceRecord>>,
    report: &'a mut dyn FnMut(&str),
}

impl Observer for Writer<'_> {
    fn frame(&mut self, tick: &Tick<'_>) -> Result<(), SessionError> {
        if let Some(w) = self.trace.as_mut() {
            w.write(tick.record)?;
        }
        if let Some(r) = self.records.as_mut() {
            r.push(tick.record.rounded());
        }
        Ok(())
    }

    fn status(&mut self, message: &str) {
        (self.report)(message);
    }
}

/// Runs `spec` through a session until the source ends or `stop` is set.
///
/// Every trace line is written to `trace` (if given); with `drive` the
/// pointer and clicks go to the desktop, otherwise nowhere; `report` receives
/// one-line status messages (a camera lost or back).
///
/// # Errors
/// A source that cannot be opened or fails for good, or a trace that cannot be written.
pub fn run(spec: SourceSpec, settings: &Settings, trace: Option<&Path>, drive: bool, stop: &AtomicBool, report: &mut dyn FnMut(&str)) -> Result<RunSummary, ReplayError> {
    let writer = trace.map(TraceWriter::create).transpose()?;
    let (_tx, rx) = crossbeam_channel::bounded(1);
    let mut w = Writer { trace: writer, records: None, report };
    let summary = Session::new(settings.clone(), spec, false, drive).run(&rx, stop, &mut w)?;
    if let Some(t) = w.trace.take() {
        t.finish()?;
    }
    Ok(summary)
}

/// Runs `spec` as fast as possible and returns every frame's record, rounded as
/// a trace file would hold it (for evaluation in memory).
///
/// # Errors
/// See [`run`].
pub fn collect(spec: SourceSpec, settings: &Settings) -> Result<(Vec<TraceRecord>, RunSummary), ReplayError> {
    collect_with(spec, settings, crate::models::Models::load())
}

/// [`collect`] with `models` found once beforehand (an evaluation over many
/// recordings finds them, and warns of a missing one, once).
///
/// # Errors
/// See [`run`].
pub fn collect_with(spec: SourceSpec, settings: &Settings, models: crate::models::Models) -> Result<(Vec<TraceRecord>, RunSummary), ReplayError> {
    let mut records = Vec::new();
    let stop = AtomicBool::new(false);
    let (_tx, rx) = crossbeam_channel::bounded(1);
    let mut report = |m: &str| tracing::warn!("{m}");
    let mut w = Writer { trace: None, records: Some(&mut records), report: &mut report };
    let summary = Session::new(settings.clone(), spec, false, false).with_models(models).run(&rx, &stop, &mut w)?;
    Ok((records, summary))
}
