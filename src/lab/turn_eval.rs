//! Tracking through head turns (#28), per bin of the labelled yaw (frames
//! within 15° of frontal pitch) and of the labelled pitch (within 15° of
//! frontal yaw): how often the point between the eyes is tracked, how far
//! off it is, and how many switch events come; and how long tracking takes
//! to come back after a turn past 60°.
//!
//! The error is in eye distances of the **frontal** face (the median label
//! eye distance of the sequence's frames within 15° of frontal): a turned
//! face's projected eye distance shrinks with the cosine of the turn, and an
//! error measured against it would grow for no fault of the tracker.
//! `facemouse eval --turns` prints it under the usual table.
//!
//! It also runs the face detector alone on every frame and says per bin
//! how often it finds the face and how far its eyes' midpoint is from the
//! point between the eyes: whether the detector could check another
//! tracker (AHM) where the templates are lost.

use serde::Serialize;

use crate::events::{Event, Point, TrackState, dist};
use crate::lab::labels::Sequence;
use crate::stats::pct;
use crate::trace::TraceRecord;

/// The bins' edges in degrees (the last one takes 90° too).
pub const YAW_BINS: [(f64, f64); 5] = [(0.0, 15.0), (15.0, 30.0), (30.0, 45.0), (45.0, 60.0), (60.0, 90.0)];
pub const PITCH_BINS: [(f64, f64); 4] = [(0.0, 15.0), (15.0, 30.0), (30.0, 45.0), (45.0, 60.0)];

/// On the point means an error under this (frontal eye distances): the
/// tracker is where it should be, not merely running.
pub const ON_POINT: f64 = 0.1;
/// The detector's eye points are about a tenth of the eye distance off each
/// (`vision::face`): its eyes' midpoint within this is on the face.
pub const DETECTOR_NEAR: f64 = 0.2;

/// One bin.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Bin {
    pub axis: &'static str,
    pub from_deg: f64,
    pub to_deg: f64,
    /// Frames whose point between the eyes is labelled.
    pub frames: usize,
    /// Share of them with a feature reported while tracking.
    pub coverage: Option<f64>,
    /// Share of them with the feature within [`ON_POINT`] of it.
    pub on_point: Option<f64>,
    /// The feature's error where one is reported (median, 95th percentile).
    pub error_median: Option<f64>,
    pub error_p95: Option<f64>,
    /// Blinks, long blinks, winks and raises the switch saw in the bin.
    pub switch_events: usize,
    /// Share of the frames on which the face detector alone found a face,
    /// and one whose eyes' midpoint is within [`DETECTOR_NEAR`] of the point
    /// between the eyes, and that midpoint's median error where it found one.
    pub detector_found: Option<f64>,
    pub detector_near: Option<f64>,
    pub detector_error_median: Option<f64>,
    /// Clicks and drags it made of them.
    pub clicks: usize,
}

/// The whole report.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct TurnReport {
    pub bins: Vec<Bin>,
    /// Turns past 60° of yaw or 45° of pitch, and back.
    pub returns: usize,
    /// The longest time from being back within 15° of frontal to the feature
    /// on the point again ([`ON_POINT`]; ms); `None` if it never came back.
    pub regain_worst_ms: Option<f64>,
    pub regained: usize,
}

/// The bin of `bins` that holds `angle` (each from its lower edge; the last
/// one takes its upper edge too).
fn bin_of(bins: &[(f64, f64)], angle: f64) -> Option<usize> {
    let last = bins.len().checked_sub(1)?;
    bins.iter().enumerate().position(|(k, &(a, b))| angle >= a && (angle < b || (k == last && angle <= b)))
}

/// A sequence, its trace, and per frame the midpoint of the eyes the face
/// detector alone found on it (empty: not run).
pub type TurnRun = (Sequence, Vec<TraceRecord>, Vec<Option<Point>>);

/// Measures sequences with their traces (and the detector's finds).
#[must_use]
pub fn measure(runs: &[TurnRun]) -> TurnReport {
    let mut errors: Vec<Vec<f64>> = vec![Vec::new(); YAW_BINS.len() + PITCH_BINS.len()];
    let mut detector: Vec<(usize, Vec<f64>)> = vec![(0, Vec::new()); YAW_BINS.len() + PITCH_BINS.len()];
    let mut bins: Vec<Bin> = YAW_BINS
        .iter()
        .map(|b| ("yaw", b))
        .chain(PITCH_BINS.iter().map(|b| ("pitch", b)))
        .map(|(axis, &(from_deg, to_deg))| Bin { axis, from_deg, to_deg, ..Bin::default() })
        .collect();
    let mut report = TurnReport::default();
    for (seq, trace, detected) in runs {
        let frontal = |y: f64, p: f64| y.abs() < 15.0 && p.abs() < 15.0;
        let mut iods: Vec<f64> = seq
            .rows
            .iter()
            .filter(|r| frontal(r.yaw.unwrap_or(0.0), r.pitch.unwrap_or(0.0)))
            .filter_map(|r| Some(dist(r.le?, r.re?)))
            .collect();
        let Some(iod) = pct(&mut iods, 50.0).filter(|i| *i > 0.0) else { continue };
        let by_frame: std::collections::HashMap<u64, &TraceRecord> = trace.iter().map(|r| (r.frame, r)).collect();
        // Per frame: on the face?
        let mut good = Vec::with_capacity(seq.rows.len());
        for (i, row) in seq.rows.iter().enumerate() {
            let (yaw, pitch) = (row.yaw.unwrap_or(0.0).abs(), row.pitch.unwrap_or(0.0).abs());
            let found = match (row.mid, detected.get(i)) {
                (Some(mid), Some(Some(d))) => Some(dist(mid, *d) / iod),
                _ => None,
            };
            let rec = by_frame.get(&row.frame);
            let err = match (row.mid, rec.and_then(|r| r.feature.filter(|_| matches!(r.state, TrackState::Tracking | TrackState::Carried)))) {
                (Some(mid), Some(f)) => Some(dist(mid, f) / iod),
                _ => None,
            };
            good.push(err.is_some_and(|e| e < ON_POINT));
            let count = |f: &dyn Fn(&Event) -> bool| rec.map_or(0, |r| r.events.iter().filter(|e| f(e)).count());
            let events = count(&|e| matches!(e, Event::Blink | Event::LongBlink | Event::WinkLeft | Event::WinkRight | Event::BrowRaise));
            let clicks = count(&|e| matches!(e, Event::ClickLeft | Event::ClickRight | Event::ClickMiddle | Event::ClickDouble | Event::DragStart));
            let yaw_bin = if pitch < 15.0 { bin_of(&YAW_BINS, yaw) } else { None };
            let pitch_bin = if yaw < 15.0 { bin_of(&PITCH_BINS, pitch).map(|k| YAW_BINS.len() + k) } else { None };
            for k in yaw_bin.into_iter().chain(pitch_bin) {
                bins[k].switch_events += events;
                bins[k].clicks += clicks;
                if row.mid.is_some() {
                    bins[k].frames += 1;
                    errors[k].extend(err);
                    if !detected.is_empty() {
                        detector[k].0 += 1;
                        detector[k].1.extend(found);
                    }
                }
            }
        }
        // Returns: a turn past 60° of yaw or 45° of pitch, then back within 15°.
        let mut far = false;
        let mut back_at: Option<usize> = None;
        for (i, row) in seq.rows.iter().enumerate() {
            let (yaw, pitch) = (row.yaw.unwrap_or(0.0).abs(), row.pitch.unwrap_or(0.0).abs());
            if yaw >= 60.0 || pitch >= 45.0 {
                far = true;
                back_at = None;
            } else if far && frontal(yaw, pitch) {
                far = false;
                back_at = Some(i);
                report.returns += 1;
            }
            if let Some(b) = back_at
                && good[i]
            {
                let ms = row.t_ms - seq.rows[b].t_ms;
                report.regain_worst_ms = Some(report.regain_worst_ms.map_or(ms, |w: f64| w.max(ms)));
                report.regained += 1;
                back_at = None;
            }
        }
    }
    for (k, bin) in bins.iter_mut().enumerate() {
        #[allow(clippy::cast_precision_loss)]
        {
            bin.coverage = (bin.frames > 0).then(|| errors[k].len() as f64 / bin.frames as f64);
            bin.on_point = (bin.frames > 0).then(|| errors[k].iter().filter(|e| **e < ON_POINT).count() as f64 / bin.frames as f64);
        }
        bin.error_median = pct(&mut errors[k], 50.0);
        bin.error_p95 = pct(&mut errors[k], 95.0);
        let (frames, found) = &mut detector[k];
        #[allow(clippy::cast_precision_loss)]
        {
            bin.detector_found = (*frames > 0).then(|| found.len() as f64 / *frames as f64);
            bin.detector_near = (*frames > 0).then(|| found.iter().filter(|e| **e < DETECTOR_NEAR).count() as f64 / *frames as f64);
        }
        bin.detector_error_median = pct(found, 50.0);
    }
    report.bins = bins;
    report
}

/// The report as Markdown.
#[must_use]
pub fn table(r: &TurnReport) -> String {
    use std::fmt::Write;
    let f = |x: Option<f64>, n: usize| x.map_or_else(|| "–".to_string(), |v| format!("{v:.n$}"));
    let mut s = String::from(
        "| turn | frames | coverage | on the point (error < 0.1) | feature error median (p95), frontal eye distances | switch events | clicks | face detector alone: found, on the face (< 0.2), error median |\n|---|---|---|---|---|---|---|---|\n",
    );
    for b in &r.bins {
        let _ = writeln!(
            s,
            "| {} {:.0}–{:.0}° | {} | {} | {} | {} ({}) | {} | {} | {}, {}, {} |",
            b.axis,
            b.from_deg,
            b.to_deg,
            b.frames,
            f(b.coverage, 2),
            f(b.on_point, 2),
            f(b.error_median, 3),
            f(b.error_p95, 3),
            b.switch_events,
            b.clicks,
            f(b.detector_found, 2),
            f(b.detector_near, 2),
            f(b.detector_error_median, 3)
        );
    }
    let _ = writeln!(
        s,
        "\nTurns past 60° of yaw or 45° of pitch and back: {}; the feature back on the point (error < 0.1) after {} of them, at worst {} ms after the head was back within 15°.",
        r.returns,
        r.regained,
        f(r.regain_worst_ms, 0)
    );
    s
}

/// `detector` alone on every frame of `video`: the midpoint of the eyes of
/// the face it finds, if it finds one (`None` in every place when the model
/// is missing).
///
/// # Errors
/// A video that cannot be read, or an OpenCV failure.
pub fn detect_all(video: &std::path::Path, detector: &mut crate::vision::face::FaceDetector) -> Result<Vec<Option<Point>>, crate::capture::CaptureError> {
    use crate::capture::{Frame, FrameSource, ReadOutcome, VideoFileSource};
    let mut source = VideoFileSource::open(video)?;
    let mut frame = Frame::empty();
    let mut out = Vec::new();
    while let ReadOutcome::Frame = source.read(&mut frame)? {
        let face = detector.detect(&frame.gray).ok().flatten();
        out.push(face.map(|f| [f64::midpoint(f.le[0], f.re[0]), f64::midpoint(f.le[1], f.re[1])]));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::labels::{LabelRow, Meta};

    /// A head that turns to 70° of yaw and back at 10 fps: tracked on the
    /// point while frontal, lost past 45°, and back on the point 0.5 s after
    /// it is frontal again; a click while turned far counts in its bin.
    #[test]
    fn bins_count_coverage_error_clicks_and_the_regain() {
        let yaw = |i: u32| match i {
            10..20 => 7.0 * f64::from(i - 10),
            20..30 => 70.0 - 7.0 * f64::from(i - 20),
            _ => 0.0,
        };
        let mut rows = Vec::new();
        let mut trace = Vec::new();
        let mut detected = Vec::new();
        for i in 0..40u32 {
            let y: f64 = yaw(i);
            let mid = [320.0 + 100.0 * y.to_radians().sin(), 200.0];
            rows.push(LabelRow {
                frame: u64::from(i),
                t_ms: 100.0 * f64::from(i),
                le: Some([mid[0] + 32.0, 200.0]),
                re: Some([mid[0] - 32.0, 200.0]),
                mid: Some(mid),
                yaw: Some(y),
                pitch: Some(0.0),
                ..LabelRow::default()
            });
            // The detector finds the face 0.1 eye distances off up to 60°, none past.
            detected.push((y <= 60.0).then_some([mid[0] + 6.4, mid[1]]));
            let lost = y > 45.0 || (28..33).contains(&i);
            let off = if i >= 33 { 0.0 } else { 3.2 };
            trace.push(TraceRecord {
                frame: u64::from(i),
                t_ms: 100.0 * f64::from(i),
                state: if lost { TrackState::Lost } else { TrackState::Tracking },
                feature: (!lost).then_some([mid[0] + off, mid[1]]),
                events: if i == 16 { vec![Event::BrowRaise, Event::ClickLeft] } else { Vec::new() },
                ..TraceRecord::default()
            });
        }
        let seq = Sequence { dir: "t".into(), rows, meta: Meta::default() };
        let r = measure(&[(seq.clone(), trace.clone(), detected)]);
        let bin = |axis: &str, from: f64| r.bins.iter().find(|b| b.axis == axis && (b.from_deg - from).abs() < 1e-9).expect("bin").clone();
        let frontal = bin("yaw", 0.0);
        // 10 frames before the turn, 3 on the way out, 2 on the way back, 10 after; lost on 5.
        assert_eq!((frontal.frames, frontal.coverage, frontal.on_point), (25, Some(0.8), Some(0.8)), "{frontal:?}");
        assert!((frontal.error_median.expect("error") - 0.05).abs() < 1e-9, "3.2 px of 64: {frontal:?}");
        let far = bin("yaw", 60.0);
        assert_eq!((far.coverage, far.on_point), (Some(0.0), Some(0.0)), "{far:?}");
        assert_eq!((bin("yaw", 30.0).switch_events, bin("yaw", 30.0).clicks), (1, 1), "the raise and click of frame 16, at 42°");
        assert_eq!(bin("yaw", 45.0).clicks, 0);
        assert_eq!((r.returns, r.regained), (1, 1));
        assert_eq!(r.regain_worst_ms, Some(500.0), "frontal again at frame 28, on the point at 33");
        assert!(table(&r).contains("| yaw 60–90° |"), "{}", table(&r));
        assert_eq!((frontal.detector_found, frontal.detector_near, far.detector_found), (Some(1.0), Some(1.0), Some(0.0)));
        assert!((frontal.detector_error_median.expect("error") - 0.1).abs() < 1e-9);
        // Without the detector's run, no figure for it.
        assert_eq!(measure(&[(seq, trace, Vec::new())]).bins[0].detector_near, None);
    }
}
