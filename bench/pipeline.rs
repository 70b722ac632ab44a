//! Benchmarks of the hot path at 640×480 (`make bench`): BlinkLink on a frame
//! pair, one NCC tracking step, the face detector (on its thread) and what
//! the frame itself pays for it, finding the eyes near the detector's points,
//! the talk guard's mouth measure, a whole pipeline tick while tracking, and
//! rendering a generated frame.

use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use nalgebra::DVector;
use facemouse::capture::Frame;
use facemouse::pipeline::Pipeline;
use facemouse::profile::Settings;
use facemouse::lab::synth::{FaceAsset, Generator, SynthConfig, default_photo};
use facemouse::vision::ahm::{Ahm, Kernel};
use facemouse::vision::blinklink::BlinkLink;
use facemouse::vision::face::{FaceDetector, Prepared};
use facemouse::vision::locate::GenericEyes;
use facemouse::vision::ncc;
use opencv::core::Mat;
use opencv::prelude::*;

fn frames(n: usize) -> Vec<Frame> {
    let asset = FaceAsset::load(&default_photo()).expect("the shipped photo");
    let mut generator = Generator::new(asset, SynthConfig::demo()).expect("generator");
    (0..n)
        .map(|i| {
            let mut f = Frame::empty();
            let _ = generator.render(i, &mut f.color).expect("render");
            f.update_gray().expect("gray");
            f.index = i as u64;
            f.t_ms = generator.t_ms(i);
            f
        })
        .collect()
}

fn benches(c: &mut Criterion) {
    let clip = frames(450);

    // BlinkLink on the frame pair of the first blink (frames 36 → 37 of the demo clip).
    let mut blink = BlinkLink::default();
    c.bench_function("blinklink_frame_pair_640x480", |b| {
        b.iter(|| {
            blink.reset();
            let _ = blink.feed(&clip[36].gray).expect("feed");
            blink.feed(&clip[37].gray).expect("feed")
        });
    });

    // One NCC step: an eye template searched in its window.
    let eye = [351.0, 198.0];
    let mut tmpl = Mat::default();
    assert!(ncc::extract(&clip[20].gray, eye, 35, 23, &mut tmpl).expect("extract"));
    let mut buf = Mat::default();
    c.bench_function("ncc_track_step_eye", |b| {
        b.iter(|| ncc::search(&clip[21].gray, &tmpl, eye, 10, 8, &mut buf).expect("search"));
    });

    // The correlation at the eye state's sizes and the feature's (31×31,
    // ±21 px at 640×480): at every place, direct and through OpenCV's DFT,
    // and at the best place only (what `ncc::search` computes).
    for (tw, th, r) in [(22, 12, 3), (48, 24, 5), (35, 23, 10), (31, 31, 21)] {
        let mut t = Mat::default();
        assert!(ncc::extract(&clip[20].gray, eye, tw, th, &mut t).expect("extract"));
        let mut w = Mat::default();
        assert!(ncc::extract(&clip[21].gray, eye, tw + 2 * r, th + 2 * r, &mut w).expect("extract"));
        c.bench_function(&format!("ncc_direct_{tw}x{th}_r{r}"), |b| b.iter(|| ncc::ncc_direct(&w, &t, &mut buf).expect("direct")));
        // The search tracking makes: the best place only (bounded partial correlation).
        c.bench_function(&format!("ncc_search_{tw}x{th}_r{r}"), |b| b.iter(|| ncc::search(&clip[21].gray, &t, eye, r, r, &mut buf).expect("search")));
        c.bench_function(&format!("ncc_opencv_{tw}x{th}_r{r}"), |b| {
            b.iter(|| opencv::imgproc::match_template_def(&w, &t, &mut buf, opencv::imgproc::TM_CCOEFF_NORMED).expect("opencv"));
        });
    }

    // The face detector: what the frame pays (a small copy for the detector's
    // thread), and the detector's own work on the whole frame and near the face.
    let gray = &clip[20].gray;
    c.bench_function("face_prepare_full_640x480", |b| b.iter(|| Prepared::full(gray).expect("prepare")));
    let mut detector = FaceDetector::load();
    if detector.active() {
        c.bench_function("face_detect_full_640x480", |b| b.iter(|| detector.detect(gray).expect("detect")));
        let face = detector.detect(gray).expect("detect").expect("the demo face");
        let centre = facemouse::events::midpoint(face.le, face.re);
        c.bench_function("face_detect_near_640x480", |b| b.iter(|| detector.detect_near(gray, centre, face.iod()).expect("detect")));
        let mut eyes = GenericEyes::load();
        c.bench_function("eyes_near_the_face_points", |b| b.iter(|| eyes.find(gray, face.le, face.re).expect("find")));
    }

    // The talk guard's share of a tick: the lower face and the nose taken
    // in the face's frame and matched against an earlier look (`vision::mouth`).
    let mut speech = facemouse::vision::mouth::Speech::default();
    let (le, re) = ([383.0, 198.0], [319.0, 198.0]);
    let mut k = 20;
    c.bench_function("speech_update_640x480", |b| {
        b.iter(|| {
            speech.update(&clip[k % clip.len()].gray, le, re, k as f64 * 33.3, true).expect("speech");
            k += 1;
        });
    });

    // A whole tick while tracking: the pipeline initializes on the clip's first
    // blink, then the benchmark cycles through the tracked part of the clip.
    let mut pipeline = Pipeline::new(&Settings::default(), &facemouse::models::Models::load());
    for f in &clip[..60] {
        let _ = pipeline.tick(f, Instant::now());
    }
    let mut i = 60;
    c.bench_function("pipeline_tick_640x480_tracking", |b| {
        b.iter(|| {
            let (rec, _) = pipeline.tick(&clip[i], Instant::now());
            i = if i + 1 < clip.len() { i + 1 } else { 60 };
            rec.proc_us
        });
    });

    let asset = FaceAsset::load(&default_photo()).expect("the shipped photo");
    let mut generator = Generator::new(asset, SynthConfig::demo()).expect("generator");
    let mut img = Mat::default();
    let mut k = 0;
    c.bench_function("synth_render_640x480", |b| {
        b.iter(|| {
            let _ = generator.render(k % 450, &mut img).expect("render");
            k += 1;
        });
    });
    let _ = img.cols();

    // A camera's MJPEG frame (the generated face, as a webcam sends it) to
    // the grey the vision reads: straight from the luma, and as before
    // (decoded to RGB by nokhwa, then to BGR, then to grey).
    let mut jpeg = opencv::core::Vector::<u8>::new();
    opencv::imgcodecs::imencode_def(".jpg", &clip[100].color, &mut jpeg).expect("encode");
    let bytes = jpeg.to_vec();
    let (w, h) = (clip[100].color.cols(), clip[100].color.rows());
    let mut frame = Frame::empty();
    c.bench_function("camera_mjpeg_to_grey_straight_640x480", |b| {
        b.iter(|| facemouse::capture::raw::to_gray(facemouse::capture::raw::RawFormat::Mjpeg, &bytes, w, h, &mut frame.gray).expect("grey"));
    });
    let buffer = nokhwa::Buffer::new(nokhwa::utils::Resolution::new(w as u32, h as u32), &bytes, nokhwa::utils::FrameFormat::MJPEG);
    let mut rgb = Mat::new_rows_cols_with_default(h, w, opencv::core::CV_8UC3, opencv::core::Scalar::all(0.0)).expect("rgb");
    c.bench_function("camera_mjpeg_to_grey_through_rgb_640x480", |b| {
        b.iter(|| {
            buffer.decode_image_to_buffer::<nokhwa::pixel_format::RgbFormat>(rgb.data_bytes_mut().expect("bytes")).expect("decode");
            opencv::imgproc::cvt_color_def(&rgb, &mut frame.color, opencv::imgproc::COLOR_RGB2BGR).expect("bgr");
            frame.update_gray().expect("grey");
        });
    });

    // Active Hidden Models: the full projection onto 400 training
    // observations of 24×24 against the subset projection onto the 20 whose
    // hidden states are nearest the last estimate.
    let mut rng = facemouse::lab::synth::Rng::new(9);
    let pairs: Vec<(DVector<f64>, DVector<f64>)> = (0..400)
        .map(|_| (DVector::from_fn(576, |_, _| rng.gauss()), DVector::from_fn(10, |_, _| rng.gauss())))
        .collect();
    let obs: Vec<DVector<f64>> = pairs.iter().map(|p| p.0.clone()).collect();
    let model = Ahm::train(Kernel::gaussian_for(&obs, 1.0), 1e-3, &pairs).expect("train");
    let x = &pairs[17].0 + DVector::from_fn(576, |_, _| 0.1 * rng.gauss());
    let near = model.nearest(&pairs[17].1, 20);
    c.bench_function("ahm_full_projection_n400_24x24", |b| b.iter(|| model.project(&x).expect("full")));
    c.bench_function("ahm_subset_projection_m20_of_400", |b| b.iter(|| model.project_subset(&x, &near).expect("subset")));
}

criterion_group!(all, benches);
criterion_main!(all);
