//! Prints the per-frame vision signals of a video as CSV (for tuning and plots):
//! `cargo run --release --example signals -- VIDEO > signals.csv`
//! (with `FACEMOUSE_LOG=trace`, the eye state's reasoning on standard error).

use std::time::Instant;

use facemouse::capture::{Frame, FrameSource, ReadOutcome, VideoFileSource};
use facemouse::pipeline::Pipeline;
use facemouse::profile::Settings;

fn main() -> anyhow::Result<()> {
    // FACEMOUSE_LOG=trace shows the eye state's reasoning on standard error.
    if let Some(level) = std::env::var("FACEMOUSE_LOG").ok().and_then(|v| v.parse::<tracing::Level>().ok()) {
        tracing_subscriber::fmt().with_writer(std::io::stderr).with_max_level(level).without_time().init();
    }
    let path = std::env::args().nth(1).ok_or_else(|| anyhow::anyhow!("usage: signals VIDEO"))?;
    let mut src = VideoFileSource::open(std::path::Path::new(&path))?;
    let mut p = Pipeline::new(&Settings::default(), &facemouse::models::Models::load());
    let mut f = Frame::empty();
    println!("frame,state,closure_l,closure_r,eyes_closed,brow_lift,brows_raised,confidence,events");
    while let ReadOutcome::Frame = src.read(&mut f)? {
        let (rec, _) = p.tick(&f, Instant::now());
        let (state, ev) = (rec.state, rec.events.clone());
        let o = p.observation();
        println!(
            "{},{:?},{:.3},{:.3},{},{:.4},{},{:.3},{:?}",
            f.index, state, o.closure.0, o.closure.1, o.eyes_closed, o.brow_lift, o.brows_raised, o.confidence, ev
        );
    }
    Ok(())
}
