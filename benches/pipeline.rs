//! Benchmarks of the hot path at 640×480: one pipeline tick, and rendering a
//! generated frame (which bounds how fast tests can make data).

use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use facemouse::capture::Frame;
use facemouse::pipeline::Pipeline;
use facemouse::profile::Settings;
use facemouse::synth::{FaceAsset, Generator, SynthConfig, default_photo};
use opencv::core::Mat;

fn benches(c: &mut Criterion) {
    let asset = FaceAsset::load(&default_photo()).expect("the shipped photo");
    let mut generator = Generator::new(asset, SynthConfig::demo()).expect("generator");
    let mut img = Mat::default();
    c.bench_function("synth_render_640x480", |b| {
        let mut i = 0;
        b.iter(|| {
            generator.render(i % 450, &mut img).expect("render");
            i += 1;
        });
    });

    let mut frames = Vec::new();
    for i in 0..60 {
        let mut f = Frame::empty();
        generator.render(i, &mut f.color).expect("render");
        f.update_gray().expect("gray");
        f.index = i as u64;
        f.t_ms = i as f64 * 33.3;
        frames.push(f);
    }
    let mut pipeline = Pipeline::new(&Settings::default());
    c.bench_function("pipeline_tick_640x480", |b| {
        let mut i = 0;
        b.iter(|| {
            let (rec, _) = pipeline.tick(&frames[i % frames.len()], Instant::now());
            i += 1;
            rec.proc_us
        });
    });
}

criterion_group!(all, benches);
criterion_main!(all);
