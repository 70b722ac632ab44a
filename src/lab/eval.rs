//! Scoring a trace against a labelled sequence, exactly as the reference
//! scorer `../shared/tools/score.py` does (its definitions are normative; see
//! `../shared/data/README.md`, "Metrics"), and the `facemouse eval` table.

use std::fmt::Write as _;
use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use crate::events::{Event, TrackState, dist};
use crate::lab::labels::{LabelRow, Sequence};
use crate::trace::TraceRecord;

/// Event scores of one kind (blinks or brow raises).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EventScores {
    pub gt: usize,
    pub detected: usize,
    pub tp: usize,
    pub fp: usize,
    #[serde(rename = "fn")]
    pub fn_: usize,
    pub precision: Option<f64>,
    pub recall: Option<f64>,
    pub f1: Option<f64>,
    pub false_per_min: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subtle: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subtle_detected: Option<usize>,
}

/// Per-frame precision / recall / F1.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FrameScores {
    pub precision: Option<f64>,
    pub recall: Option<f64>,
    pub f1: Option<f64>,
    pub gt_frames: usize,
    pub pred_frames: usize,
}

/// Position error in inter-ocular distances.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PositionError {
    pub median: Option<f64>,
    pub p95: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub median_swapped: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p95_swapped: Option<f64>,
    /// Frames (eyes, feature) counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frames: Option<usize>,
    /// Samples (brows: each side counts) counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<usize>,
}

/// When tracking started.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct InitLatency {
    pub frame: Option<usize>,
    pub t_ms: Option<f64>,
    pub after_first_blink_ms: Option<f64>,
    pub first_tracking_frame: Option<usize>,
}

/// Yaw, pitch and roll errors in degrees.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PoseError {
    pub yaw: Option<f64>,
    pub pitch: Option<f64>,
    pub roll: Option<f64>,
    pub frames: usize,
}

/// Unmatched detections per minute.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FalsePerMin {
    pub blink: Option<f64>,
    pub brow: Option<f64>,
}

/// Processing-time percentiles.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ProcUs {
    pub p50: Option<f64>,
    pub p99: Option<f64>,
    pub max: Option<f64>,
    pub frames: usize,
}

/// Everything `score.py` reports for one sequence.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Scores {
    pub sequence: String,
    /// The person group (meta.json `person`; every ZJU clip is the group `zju`).
    pub group: String,
    pub frames: usize,
    pub trace_frames: usize,
    /// Always 0: records come from the pipeline, not from a file.
    pub bad_trace_lines: usize,
    pub duration_min: f64,
    pub fps: f64,
    pub tol_s: f64,
    pub tol_frames: usize,
    pub blink: EventScores,
    pub blink_from_state: EventScores,
    pub brow: EventScores,
    pub brow_from_state: EventScores,
    pub eyes_closed_frame: FrameScores,
    pub false_events_per_min: FalsePerMin,
    pub eye_error: PositionError,
    pub brow_error: PositionError,
    pub feature_error_vs_nose: PositionError,
    pub feature_error_vs_mid: PositionError,
    pub init_latency: InitLatency,
    pub pose_mae: PoseError,
    pub pose_mae_debiased: PoseError,
    pub proc_us: ProcUs,
}

fn rnd(x: Option<f64>, n: i32) -> Option<f64> {
    let k = 10f64.powi(n);
    x.map(|v| (v * k).round() / k)
}

/// Python's `round()` to an integer: halves go to the even neighbour.
fn round_half_even(x: f64) -> f64 {
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 && r % 2.0 != 0.0 { r - x.signum() } else { r }
}

pub(crate) use crate::stats::pct;

fn prf(tp: usize, n_det: usize, n_gt: usize) -> (Option<f64>, Option<f64>, Option<f64>) {
    let p = (n_det > 0).then(|| tp as f64 / n_det as f64);
    let r = (n_gt > 0).then(|| tp as f64 / n_gt as f64);
    let f = match (p, r) {
        (Some(p), Some(r)) => Some(if p + r > 0.0 { 2.0 * p * r / (p + r) } else { 0.0 }),
        (None, Some(_)) => Some(0.0),
        _ => None,
    };
    (p, r, f)
}

/// Greedy matching, closest pairs first; returns the matched detection indices and the count.
fn matched(gt: &[usize], det: &[usize], tol: usize) -> (usize, Vec<bool>) {
    let mut pairs = Vec::new();
    for (gi, g) in gt.iter().enumerate() {
        for (di, d) in det.iter().enumerate() {
            let dist = g.abs_diff(*d);
            if dist <= tol {
                pairs.push((dist, gi, di));
            }
        }
    }
    pairs.sort_unstable();
    let mut used_g = vec![false; gt.len()];
    let mut used_d = vec![false; det.len()];
    let mut tp = 0;
    for (_, gi, di) in pairs {
        if !used_g[gi] && !used_d[di] {
            used_g[gi] = true;
            used_d[di] = true;
            tp += 1;
        }
    }
    (tp, used_d)
}

fn event_scores(gt_runs: &[(usize, usize)], det: &[usize], tol: usize, minutes: f64, subtle: &[[u64; 2]]) -> EventScores {
    let gt: Vec<usize> = gt_runs.iter().map(|r| r.0).collect();
    let (tp, used) = matched(&gt, det, tol);
    let (p, r, f) = prf(tp, det.len(), gt.len());
    let fp: Vec<usize> = (0..det.len()).filter(|i| !used[*i]).collect();
    let mut out = EventScores {
        gt: gt.len(),
        detected: det.len(),
        tp,
        fp: fp.len(),
        fn_: gt.len() - tp,
        precision: rnd(p, 4),
        recall: rnd(r, 4),
        f1: rnd(f, 4),
        false_per_min: rnd((minutes > 0.0).then(|| fp.len() as f64 / minutes), 3),
        subtle: None,
        subtle_detected: None,
    };
    if !subtle.is_empty() {
        let mut hit = vec![false; subtle.len()];
        for i in &fp {
            for (k, s) in subtle.iter().enumerate() {
                if det[*i].abs_diff(usize::try_from(s[0]).unwrap_or(usize::MAX)) <= tol {
                    hit[k] = true;
                }
            }
        }
        out.subtle = Some(subtle.len());
        out.subtle_detected = Some(hit.iter().filter(|h| **h).count());
    }
    out
}

fn error_stats(mut v: Vec<f64>) -> PositionError {
    let n = v.len();
    PositionError { median: rnd(pct(&mut v, 50.0), 4), p95: rnd(pct(&mut v, 95.0), 4), frames: Some(n), ..PositionError::default() }
}

/// Scores `trace` (one record per processed frame) against `seq`.
#[must_use]
pub fn score(seq: &Sequence, trace: &[TraceRecord], tol_s: Option<f64>) -> Scores {
    let rows: &[LabelRow] = &seq.rows;
    let n = rows.len();
    let t: Vec<f64> = rows.iter().map(|r| r.t_ms).collect();
    let span = if n > 1 { t[n - 1] - t[0] } else { 0.0 };
    let dur_ms = span + if n > 1 { span / (n - 1) as f64 } else { 0.0 };
    let minutes = dur_ms / 60000.0;
    let fps = if n > 1 && span > 0.0 { (n - 1) as f64 / (span / 1000.0) } else if seq.meta.fps > 0.0 { seq.meta.fps } else { 30.0 };
    let name = seq.dir.file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    let zju = format!("{} {}", seq.meta.source, name).to_lowercase().contains("zju");
    let tol_s = tol_s.unwrap_or(if zju { 0.5 } else { 0.25 });
    let group = if zju {
        "zju".to_string()
    } else {
        seq.meta.extra.get("person").and_then(serde_json::Value::as_str).unwrap_or("unknown").to_string()
    };
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let tol = (round_half_even(tol_s * fps) as usize).max(1);

    let mut tr: HashMap<usize, &TraceRecord> = HashMap::new();
    for r in trace {
        if let Ok(f) = usize::try_from(r.frame)
            && f < n {
                tr.insert(f, r);
            }
    }
    let ec_gt: Vec<bool> = rows.iter().map(|r| r.eyes_closed).collect();
    let br_gt: Vec<bool> = rows.iter().map(|r| r.brows_raised).collect();
    let ec_tr: Vec<bool> = (0..n).map(|i| tr.get(&i).is_some_and(|r| r.eyes_closed)).collect();
    let br_tr: Vec<bool> = (0..n).map(|i| tr.get(&i).is_some_and(|r| r.brows_raised)).collect();
    let has = |i: usize, f: &dyn Fn(&Event) -> bool| tr.get(&i).is_some_and(|r| r.events.iter().any(f));
    let blink_det: Vec<usize> = (0..n).filter(|&i| has(i, &|e| matches!(e, Event::Blink | Event::LongBlink))).collect();
    let brow_det: Vec<usize> = (0..n).filter(|&i| has(i, &|e| matches!(e, Event::BrowRaise))).collect();
    let subtle = &seq.meta.subtle_raises;
    let ec_runs = Sequence::runs(ec_gt.iter().copied());
    let br_runs = Sequence::runs(br_gt.iter().copied());
    let onsets = |v: &[bool]| -> Vec<usize> { Sequence::runs(v.iter().copied()).into_iter().map(|r| r.0).collect() };

    let tp = ec_gt.iter().zip(&ec_tr).filter(|(a, b)| **a && **b).count();
    let (p, r, f) = prf(tp, ec_tr.iter().filter(|x| **x).count(), ec_gt.iter().filter(|x| **x).count());

    // Positions.
    let (mut e, mut es, mut fnose, mut fmid, mut eb) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut lab_frames, mut cov) = (0usize, 0usize);
    for (i, row) in rows.iter().enumerate() {
        let (Some(le), Some(re)) = (row.le, row.re) else { continue };
        let iod = dist(le, re);
        if iod <= 0.0 {
            continue;
        }
        lab_frames += 1;
        let rec = tr.get(&i);
        if let (Some(tle), Some(tre)) = (rec.and_then(|r| r.le), rec.and_then(|r| r.re)) {
            cov += 1;
            e.extend([dist(tle, le) / iod, dist(tre, re) / iod]);
            es.extend([dist(tre, le) / iod, dist(tle, re) / iod]);
        }
        if let (Some(lb), Some(tlb)) = (row.lb, rec.and_then(|r| r.lb)) {
            eb.push(dist(tlb, lb) / iod);
        }
        if let (Some(rb), Some(trb)) = (row.rb, rec.and_then(|r| r.rb)) {
            eb.push(dist(trb, rb) / iod);
        }
        if let Some(f) = rec.and_then(|r| r.feature) {
            if let Some(nose) = row.nose {
                fnose.push(dist(f, nose) / iod);
            }
            if let Some(mid) = row.mid {
                fmid.push(dist(f, mid) / iod);
            }
        }
    }
    let mut eye_error = error_stats(e);
    let mut swapped = es;
    eye_error.coverage = rnd((lab_frames > 0).then(|| cov as f64 / lab_frames as f64), 4);
    eye_error.median_swapped = rnd(pct(&mut swapped, 50.0), 4);
    eye_error.p95_swapped = rnd(pct(&mut swapped, 95.0), 4);
    eye_error.frames = Some(cov);
    let mut brow_error = error_stats(eb);
    brow_error.samples = brow_error.frames.take();

    let init = (0..n).find(|i| tr.get(i).is_some_and(|r| r.le.is_some() && r.re.is_some()));
    let first_blink = ec_runs.first().map(|r| t[r.0]);
    let trk = (0..n).find(|i| tr.get(i).is_some_and(|r| r.state == TrackState::Tracking));

    // Pose.
    let mut diffs: [Vec<f64>; 3] = Default::default();
    for (i, row) in rows.iter().enumerate() {
        let Some(pose) = tr.get(&i).and_then(|r| r.pose) else { continue };
        for (k, (gt, est)) in [(row.yaw, pose.yaw), (row.pitch, pose.pitch), (row.roll, pose.roll)].into_iter().enumerate() {
            if let Some(g) = gt {
                diffs[k].push(est - g);
            }
        }
    }
    let mae = |d: &[f64]| rnd((!d.is_empty()).then(|| d.iter().map(|x| x.abs()).sum::<f64>() / d.len() as f64), 3);
    let debiased = |d: &[f64]| {
        let mut c = d.to_vec();
        pct(&mut c, 50.0).and_then(|m| rnd(Some(d.iter().map(|x| (x - m).abs()).sum::<f64>() / d.len() as f64), 3))
    };

    let mut pu: Vec<f64> = (0..n).filter_map(|i| tr.get(&i).map(|r| r.proc_us as f64)).collect();
    let max = pu.iter().copied().fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));

    let blink = event_scores(&ec_runs, &blink_det, tol, minutes, &[]);
    let brow = event_scores(&br_runs, &brow_det, tol, minutes, subtle);
    Scores {
        sequence: name,
        group,
        frames: n,
        trace_frames: tr.len(),
        bad_trace_lines: 0,
        false_events_per_min: FalsePerMin { blink: blink.false_per_min, brow: brow.false_per_min },
        duration_min: rnd(Some(minutes), 3).unwrap_or(0.0),
        fps: rnd(Some(fps), 3).unwrap_or(0.0),
        tol_s,
        tol_frames: tol,
        blink,
        blink_from_state: event_scores(&ec_runs, &onsets(&ec_tr), tol, minutes, &[]),
        brow,
        brow_from_state: event_scores(&br_runs, &onsets(&br_tr), tol, minutes, subtle),
        eyes_closed_frame: FrameScores {
            precision: rnd(p, 4),
            recall: rnd(r, 4),
            f1: rnd(f, 4),
            gt_frames: ec_gt.iter().filter(|x| **x).count(),
            pred_frames: ec_tr.iter().filter(|x| **x).count(),
        },
        eye_error,
        brow_error,
        feature_error_vs_nose: error_stats(fnose),
        feature_error_vs_mid: error_stats(fmid),
        init_latency: InitLatency {
            frame: init,
            t_ms: init.map(|i| t[i]),
            after_first_blink_ms: init.zip(first_blink).and_then(|(i, b)| rnd(Some(t[i] - b), 1)),
            first_tracking_frame: trk,
        },
        pose_mae: PoseError { yaw: mae(&diffs[0]), pitch: mae(&diffs[1]), roll: mae(&diffs[2]), frames: diffs[0].len() },
        pose_mae_debiased: PoseError { yaw: debiased(&diffs[0]), pitch: debiased(&diffs[1]), roll: debiased(&diffs[2]), frames: diffs[0].len() },
        proc_us: ProcUs { p50: rnd(pct(&mut pu, 50.0), 1), p99: rnd(pct(&mut pu, 99.0), 1), max, frames: pu.len() },
    }
}

/// Micro-averaged results over several sequences (the README's group rows).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Summary {
    pub sequences: usize,
    pub blink_precision: Option<f64>,
    pub blink_recall: Option<f64>,
    pub blink_f1: Option<f64>,
    /// Over the sequences with labelled raises.
    pub brow_precision: Option<f64>,
    pub brow_recall: Option<f64>,
    pub brow_f1: Option<f64>,
    pub subtle: usize,
    pub subtle_detected: usize,
    /// Unmatched brow detections per minute over the sequences without raises.
    pub false_brow_per_min_without_raises: Option<f64>,
    pub false_blink_per_min: Option<f64>,
    pub false_brow_per_min: Option<f64>,
    pub eye_error_median_worst: Option<f64>,
    /// The mean over the sequences of the share of labelled frames with tracked eyes.
    pub coverage_mean: Option<f64>,
    /// Sequences that never tracked the eyes.
    pub never_initialized: usize,
    pub init_after_first_blink_ms_worst: Option<f64>,
    pub proc_us_p50_worst: Option<f64>,
    pub proc_us_p99_worst: Option<f64>,
}

/// Sums the sequences' event counts.
#[must_use]
pub fn summarize(all: &[Scores]) -> Summary {
    let sum = |f: &dyn Fn(&Scores) -> usize| all.iter().map(f).sum::<usize>();
    let minutes: f64 = all.iter().map(|s| s.duration_min).sum();
    let (bp, br, bf) = prf(sum(&|s| s.blink.tp), sum(&|s| s.blink.detected), sum(&|s| s.blink.gt));
    let with: Vec<&Scores> = all.iter().filter(|s| s.brow.gt > 0).collect();
    let without: Vec<&Scores> = all.iter().filter(|s| s.brow.gt == 0).collect();
    let (wp, wr, wf) = prf(
        with.iter().map(|s| s.brow.tp).sum(),
        with.iter().map(|s| s.brow.detected).sum(),
        with.iter().map(|s| s.brow.gt).sum(),
    );
    let min_without: f64 = without.iter().map(|s| s.duration_min).sum();
    let worst = |f: &dyn Fn(&Scores) -> Option<f64>| all.iter().filter_map(f).fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));
    Summary {
        sequences: all.len(),
        blink_precision: rnd(bp, 4),
        blink_recall: rnd(br, 4),
        blink_f1: rnd(bf, 4),
        brow_precision: rnd(wp, 4),
        brow_recall: rnd(wr, 4),
        brow_f1: rnd(wf, 4),
        subtle: all.iter().filter_map(|s| s.brow.subtle).sum(),
        subtle_detected: all.iter().filter_map(|s| s.brow.subtle_detected).sum(),
        false_brow_per_min_without_raises: rnd(
            (min_without > 0.0).then(|| without.iter().map(|s| s.brow.fp).sum::<usize>() as f64 / min_without),
            3,
        ),
        false_blink_per_min: rnd((minutes > 0.0).then(|| sum(&|s| s.blink.fp) as f64 / minutes), 3),
        false_brow_per_min: rnd((minutes > 0.0).then(|| sum(&|s| s.brow.fp) as f64 / minutes), 3),
        eye_error_median_worst: worst(&|s| s.eye_error.median),
        coverage_mean: rnd(
            (!all.is_empty()).then(|| all.iter().map(|s| s.eye_error.coverage.unwrap_or(0.0)).sum::<f64>() / all.len() as f64),
            4,
        ),
        never_initialized: all.iter().filter(|s| s.init_latency.frame.is_none()).count(),
        init_after_first_blink_ms_worst: worst(&|s| s.init_latency.after_first_blink_ms),
        proc_us_p50_worst: worst(&|s| s.proc_us.p50),
        proc_us_p99_worst: worst(&|s| s.proc_us.p99),
    }
}

fn f(x: Option<f64>, prec: usize) -> String {
    x.map_or_else(|| "–".to_string(), |v| format!("{v:.prec$}"))
}

/// A precision / recall / F1 cell.
fn prf_cell(p: Option<f64>, r: Option<f64>, f1: Option<f64>) -> String {
    format!("{}/{}/{}", f(p, 2), f(r, 2), f(f1, 2))
}

/// The sequences' summaries per person group, in the order the groups first appear.
#[must_use]
pub fn groups(all: &[Scores]) -> Vec<(String, Summary)> {
    let mut names: Vec<&str> = Vec::new();
    for s in all {
        if !names.contains(&s.group.as_str()) {
            names.push(&s.group);
        }
    }
    names
        .into_iter()
        .map(|g| {
            let members: Vec<Scores> = all.iter().filter(|s| s.group == g).cloned().collect();
            (g.to_string(), summarize(&members))
        })
        .collect()
}

/// One summary row of the table: a person group or all sequences.
fn summary_row(label: &str, sum: &Summary) -> String {
    let init = if sum.never_initialized > 0 {
        format!("{} never", sum.never_initialized)
    } else {
        format!("worst {}", f(sum.init_after_first_blink_ms_worst, 0))
    };
    format!(
        "| **{label} ({})** | | | {} | {} | {}/{} | {}/{} | worst {} | mean {} | | {init} | worst {}/{} |\n",
        sum.sequences,
        prf_cell(sum.blink_precision, sum.blink_recall, sum.blink_f1),
        prf_cell(sum.brow_precision, sum.brow_recall, sum.brow_f1),
        sum.subtle_detected,
        sum.subtle,
        f(sum.false_blink_per_min, 2),
        f(sum.false_brow_per_min_without_raises, 2),
        f(sum.eye_error_median_worst, 3),
        f(sum.coverage_mean, 2),
        f(sum.proc_us_p50_worst, 0),
        f(sum.proc_us_p99_worst, 0),
    )
}

/// The table `facemouse eval` prints (Markdown): a row per sequence, a row
/// per person group (when there is more than one) and a row for all.
#[must_use]
pub fn table(all: &[Scores], sum: &Summary) -> String {
    let mut s = String::from(
        "| sequence | frames | fps | blink P/R/F1 | brow P/R/F1 | subtle det. | false blink/brow per min | eye err. median (p95) | coverage | brow err. | init after 1st blink (ms) | proc_us p50/p99 |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for x in all {
        let _ = writeln!(
            s,
            "| {} | {} | {:.1} | {} ({}/{}) | {} ({}/{}) | {} | {}/{} | {} ({}) | {} | {} | {} | {}/{} |",
            x.sequence,
            x.frames,
            x.fps,
            prf_cell(x.blink.precision, x.blink.recall, x.blink.f1),
            x.blink.tp,
            x.blink.gt,
            prf_cell(x.brow.precision, x.brow.recall, x.brow.f1),
            x.brow.tp,
            x.brow.gt,
            x.brow.subtle.map_or_else(|| "–".into(), |n| format!("{}/{n}", x.brow.subtle_detected.unwrap_or(0))),
            f(x.blink.false_per_min, 2),
            f(x.brow.false_per_min, 2),
            f(x.eye_error.median, 3),
            f(x.eye_error.p95, 3),
            f(x.eye_error.coverage, 2),
            f(x.brow_error.median, 3),
            if x.init_latency.frame.is_none() { "never".to_string() } else { f(x.init_latency.after_first_blink_ms, 0) },
            f(x.proc_us.p50, 0),
            f(x.proc_us.p99, 0),
        );
    }
    let groups = groups(all);
    if groups.len() > 1 {
        for (g, gs) in &groups {
            s.push_str(&summary_row(g, gs));
        }
    }
    s.push_str(&summary_row("all", sum));
    s
}

/// Why repeated runs of one sequence cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RepeatError {
    #[error("run {run} gave {got} frames, the first {want}: the replay is not deterministic")]
    Length { run: usize, got: usize, want: usize },
    #[error("run {run} differs from the first at frame {frame}: the replay is not deterministic")]
    Differs { run: usize, frame: u64 },
}

/// Merges repeated runs of one sequence (`facemouse eval --repeat`) into
/// the first: each frame's `proc_us` becomes its median over the runs (the
/// upper one of an even count). A frame's own work takes about the same
/// time in every run; a pause of the machine (a virtual machine's host,
/// another program) lands on other frames in each run, so the median drops
/// it where the mean or one run would not, and unlike the shortest time it
/// does not favour the lucky run. The runs must agree on everything else,
/// frame by frame: a replay is deterministic.
///
/// # Errors
/// A run differs from the first in length or in any field but `proc_us`.
pub fn merge_runs(mut runs: Vec<Vec<TraceRecord>>) -> Result<Vec<TraceRecord>, RepeatError> {
    if runs.is_empty() {
        return Ok(Vec::new());
    }
    let first = runs.remove(0);
    for (k, other) in runs.iter().enumerate() {
        let run = k + 2;
        if first.len() != other.len() {
            return Err(RepeatError::Length { run, got: other.len(), want: first.len() });
        }
        if let Some((a, _)) = first.iter().zip(other).find(|(a, b)| TraceRecord { proc_us: a.proc_us, latency_us: a.latency_us, ..(*b).clone() } != **a) {
            return Err(RepeatError::Differs { run, frame: a.frame });
        }
    }
    let mut times = Vec::with_capacity(runs.len() + 1);
    let mut merged = first;
    for (i, r) in merged.iter_mut().enumerate() {
        times.clear();
        times.push(r.proc_us);
        times.extend(runs.iter().map(|o| o[i].proc_us));
        times.sort_unstable();
        r.proc_us = times[times.len() / 2];
    }
    Ok(merged)
}

/// Reads a trace file written by `facemouse replay`.
///
/// # Errors
/// A missing or malformed file.
pub fn read_trace(path: &Path) -> Result<Vec<TraceRecord>, crate::lab::labels::LabelError> {
    let text = std::fs::read_to_string(path).map_err(|source| crate::lab::labels::LabelError::Io { path: path.to_path_buf(), source })?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| crate::lab::labels::LabelError::Parse { path: path.to_path_buf(), line: i + 1, message: e.to_string() })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_rounding_and_percentiles() {
        assert!((round_half_even(7.5) - 8.0).abs() < 1e-12);
        assert!((round_half_even(8.5) - 8.0).abs() < 1e-12);
        assert!((round_half_even(7.4958) - 7.0).abs() < 1e-12);
        let mut v = vec![4.0, 1.0, 3.0, 2.0];
        assert_eq!(pct(&mut v, 50.0), Some(2.5));
        assert_eq!(pct(&mut v, 100.0), Some(4.0));
    }

    #[test]
    fn matching_is_closest_first_and_one_to_one() {
        // GT onsets 10 and 20; detections 12, 13 and 19 with tolerance 3.
        let (tp, used) = matched(&[10, 20], &[12, 13, 19], 3);
        assert_eq!(tp, 2);
        assert_eq!(used, vec![true, false, true]);
        let s = event_scores(&[(10, 12), (20, 22)], &[12, 13, 19], 3, 1.0, &[[40, 45]]);
        assert_eq!((s.tp, s.fp, s.fn_), (2, 1, 0));
        assert_eq!(s.precision, Some(0.6667));
        assert_eq!(s.subtle_detected, Some(0));
        let s = event_scores(&[], &[41], 3, 0.5, &[[40, 45]]);
        assert_eq!(s.subtle_detected, Some(1));
        assert_eq!(s.false_per_min, Some(2.0));
        assert_eq!(s.recall, None);
    }

    #[test]
    fn repeated_runs_keep_each_frames_median_time_and_must_agree() {
        let rec = |frame: u64, proc_us: u64, events: Vec<Event>| TraceRecord { frame, events, proc_us, ..TraceRecord::default() };
        let run = |t: [u64; 3]| vec![rec(0, t[0], vec![]), rec(1, t[1], vec![Event::Blink]), rec(2, t[2], vec![])];
        // A pause of the machine in one run (9000, 7000) is dropped; a slow frame in every run stays.
        let merged = merge_runs(vec![run([900, 9000, 2500]), run([950, 1000, 2600]), run([700, 1100, 7000])]);
        assert_eq!(merged.map(|m| m.iter().map(|r| r.proc_us).collect::<Vec<_>>()), Ok(vec![900, 1100, 2600]));
        // Two runs: the slower of the two.
        assert_eq!(merge_runs(vec![run([900, 9000, 800]), run([950, 1000, 700])]).map(|m| m[1].proc_us), Ok(9000));
        // A run that saw something else, or fewer frames, is refused.
        let other = vec![rec(0, 1, vec![]), rec(1, 1, vec![]), rec(2, 1, vec![])];
        assert_eq!(merge_runs(vec![run([1, 1, 1]), run([1, 1, 1]), other]), Err(RepeatError::Differs { run: 3, frame: 1 }));
        assert_eq!(merge_runs(vec![run([1, 1, 1]), run([1, 1, 1])[..2].to_vec()]), Err(RepeatError::Length { run: 2, got: 2, want: 3 }));
    }

    #[test]
    fn groups_pool_their_own_sequences_in_order_of_appearance() {
        let seq = |name: &str, group: &str, tp: usize, det: usize, gt: usize, cov: f64| Scores {
            sequence: name.into(),
            group: group.into(),
            duration_min: 1.0,
            blink: EventScores { gt, detected: det, tp, fp: det - tp, fn_: gt - tp, ..EventScores::default() },
            eye_error: PositionError { coverage: Some(cov), ..PositionError::default() },
            init_latency: InitLatency { frame: Some(3), ..InitLatency::default() },
            ..Scores::default()
        };
        let all = [seq("a", "p1", 4, 4, 5, 1.0), seq("z1", "zju", 1, 2, 2, 0.5), seq("b", "p1", 5, 5, 5, 0.9)];
        let g = groups(&all);
        assert_eq!(g.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["p1", "zju"]);
        assert_eq!(g[0].1.sequences, 2);
        assert_eq!(g[0].1.blink_precision, Some(1.0));
        assert_eq!(g[0].1.blink_recall, Some(0.9));
        assert_eq!(g[1].1.blink_precision, Some(0.5));
        assert_eq!(g[0].1.coverage_mean, Some(0.95));
        let t = table(&all, &summarize(&all));
        assert!(t.contains("| **p1 (2)** |") && t.contains("| **zju (1)** |") && t.contains("| **all (3)** |"), "{t}");
    }
}
