//! `facemouse resample`: a labelled sequence at a lower frame rate or a smaller
//! size, to measure how the trackers fare with slower or cheaper cameras than
//! the ones a sequence was recorded with (`docs/accuracy.md`).
//!
//! Every `every`-th frame is kept (the first, then every `every`-th), resized
//! by `scale` (area averaging, as a camera's smaller mode would). A kept frame
//! is labelled closed or raised when any frame it stands for is, so a short
//! blink between kept frames still counts: some such blinks are not visible
//! in any kept frame, which makes the recall a pessimistic figure.

use std::path::{Path, PathBuf};

use opencv::core::{Mat, Size};
use opencv::imgproc;
use opencv::prelude::*;
use opencv::videoio::{self, VideoWriter};

use crate::capture::{Frame, FrameSource, ReadOutcome, VideoFileSource};
use crate::lab::labels::{self, LabelRow, Meta, Sequence};

/// Resampling failures.
#[derive(Debug, thiserror::Error)]
pub enum ResampleError {
    #[error(transparent)]
    Labels(#[from] labels::LabelError),
    #[error(transparent)]
    Capture(#[from] crate::capture::CaptureError),
    #[error("cannot write {path}: {reason}")]
    Write { path: PathBuf, reason: String },
    #[error("resample needs a step of at least 1 and a scale in (0, 1], not {every} and {scale}")]
    Arguments { every: usize, scale: f64 },
    #[error("OpenCV failed while resampling: {0}")]
    OpenCv(#[from] opencv::Error),
    #[error("cannot write the sequence: {0}")]
    Output(#[from] crate::fs::OutputError),
}

/// Writes `src` kept every `every` frames and scaled by `scale` to `out`
/// (`video.avi`, `labels.csv`, `meta.json`); returns the new metadata.
///
/// # Errors
/// A sequence that cannot be read, or an output that cannot be written.
pub fn resample(src: &Path, out: &Path, every: usize, scale: f64) -> Result<Meta, ResampleError> {
    if every == 0 || !(scale > 0.0 && scale <= 1.0) {
        return Err(ResampleError::Arguments { every, scale });
    }
    let seq = Sequence::load(src)?;
    let werr = |path: &Path, reason: String| ResampleError::Write { path: path.to_path_buf(), reason };
    // Never onto the sequence it reads (that turned 450 frames into 2), nor through a link.
    let (path, csv, mj) = labels::sequence_outputs(out, &[src])?;
    let mut video = VideoFileSource::open(&seq.video())?;
    let (width, height) = (scaled(seq.meta.width, scale), scaled(seq.meta.height, scale));
    let size = Size::new(i32::try_from(width).unwrap_or(i32::MAX), i32::try_from(height).unwrap_or(i32::MAX));
    let fps = seq.meta.fps / every as f64;
    let tmp = crate::fs::create_beside_keeping_extension(&path, "part").map_err(|e| werr(&path, e.to_string()))?;
    let mut kept = Vec::new();
    let written = (|| {
        let name = tmp.to_str().ok_or_else(|| werr(&path, "the path is not UTF-8".into()))?;
        let mut writer = VideoWriter::new_with_backend(name, videoio::CAP_FFMPEG, VideoWriter::fourcc('M', 'J', 'P', 'G')?, fps, size, true)?;
        if !writer.is_opened()? {
            return Err(werr(&path, "OpenCV's FFmpeg backend cannot write Motion-JPEG AVI here".into()));
        }
        let (mut frame, mut small) = (Frame::empty(), Mat::default());
        let mut index = 0usize;
        while let ReadOutcome::Frame = video.read(&mut frame)? {
            if index.is_multiple_of(every) {
                imgproc::resize(&frame.color, &mut small, size, 0.0, 0.0, imgproc::INTER_AREA)?;
                writer.write(&small)?;
                kept.push(index);
            }
            index += 1;
        }
        writer.release()?;
        std::fs::rename(&tmp, &path).map_err(|e| werr(&path, e.to_string()))
    })();
    written.inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })?;

    let rows: Vec<LabelRow> = kept
        .iter()
        .enumerate()
        .filter_map(|(k, &i)| {
            let span = seq.rows.get(i..(i + every).min(seq.rows.len()))?;
            let first = span.first()?;
            let p = |q: Option<crate::events::Point>| q.map(|q| [q[0] * scale, q[1] * scale]);
            Some(LabelRow {
                frame: k as u64,
                eyes_closed: span.iter().any(|r| r.eyes_closed),
                brows_raised: span.iter().any(|r| r.brows_raised),
                le: p(first.le),
                re: p(first.re),
                lb: p(first.lb),
                rb: p(first.rb),
                nose: p(first.nose),
                mid: p(first.mid),
                ..first.clone()
            })
        })
        .collect();
    // A range of original frames becomes the kept frames inside it.
    let ranges = |rs: &[[u64; 2]]| -> Vec<[u64; 2]> {
        rs.iter()
            .filter_map(|[a, b]| {
                let inside: Vec<u64> = kept.iter().enumerate().filter(|(_, i)| (*a..=*b).contains(&(**i as u64))).map(|(k, _)| k as u64).collect();
                Some([*inside.first()?, *inside.last()?])
            })
            .collect()
    };
    let mut meta = seq.meta.clone();
    meta.synthetic_brow_raises = ranges(&seq.meta.synthetic_brow_raises);
    meta.subtle_raises = ranges(&seq.meta.subtle_raises);
    meta.fps = fps;
    meta.frames = rows.len() as u64;
    meta.width = width;
    meta.height = height;
    meta.extra.insert("resampled_from".into(), serde_json::json!({ "sequence": src.display().to_string(), "every": every, "scale": scale }));
    crate::profile::write_atomic(&csv, &labels::to_csv(&rows)).map_err(|e| werr(&csv, e.to_string()))?;
    let text = serde_json::to_string_pretty(&meta).map_err(|e| werr(&mj, e.to_string()))?;
    crate::profile::write_atomic(&mj, &(text + "\n")).map_err(|e| werr(&mj, e.to_string()))?;
    Ok(meta)
}

fn scaled(v: u32, scale: f64) -> u32 {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let s = (f64::from(v) * scale).round().max(1.0) as u32;
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::synth::{self, FaceAsset, SynthConfig};

    #[test]
    fn resampling_keeps_every_nth_frame_and_every_blink() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (src, out) = (tmp.path().join("src"), tmp.path().join("out"));
        let mut cfg = SynthConfig::random(5, 6.0, 30.0);
        cfg.width = 320;
        cfg.height = 240;
        cfg.iod_px = 40.0;
        synth::write_sequence(FaceAsset::load(&synth::default_photo()).expect("photo"), &cfg, &src).expect("generate");
        let meta = resample(&src, &out, 3, 0.5).expect("resample");
        let (a, b) = (Sequence::load(&src).expect("source"), Sequence::load(&out).expect("resampled"));
        assert_eq!(b.rows.len(), a.rows.len().div_ceil(3));
        assert_eq!((meta.width, meta.height), (160, 120));
        assert!((meta.fps - 10.0).abs() < 1e-9);
        let frames = opencv::videoio::VideoCapture::from_file(b.video().to_str().expect("utf-8"), opencv::videoio::CAP_ANY)
            .and_then(|c| c.get(opencv::videoio::CAP_PROP_FRAME_COUNT))
            .expect("the video opens");
        assert!((frames - b.rows.len() as f64).abs() < 0.5, "{frames} frames for {} rows", b.rows.len());
        let blinks = |s: &Sequence| Sequence::runs(s.rows.iter().map(|r| r.eyes_closed)).len();
        assert_eq!(blinks(&a), blinks(&b), "every blink survives");
        let (ra, rb) = (&a.rows[9], &b.rows[3]);
        let (le_a, le_b) = (ra.le.expect("eye"), rb.le.expect("eye"));
        assert!((le_a[0] * 0.5 - le_b[0]).abs() < 0.01 && (ra.t_ms - rb.t_ms).abs() < 0.1);
        assert!(resample(&src, &out, 0, 0.5).is_err() && resample(&src, &out, 2, 1.5).is_err());
    }
}
