//! The `facemouse` command: a thin `run()` and one place that prints errors.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use facemouse::capture::{self, CameraSelector, SourceSpec};
use facemouse::profile;
use facemouse::replay;
use facemouse::session::RunSummary;
use facemouse::lab::synth::{self, FaceAsset, SynthConfig};

#[derive(Parser)]
#[allow(clippy::struct_excessive_bools)] // command-line flags
#[command(name = "facemouse", version, about = "A hands-free pointer driven by head motion, blinks and eyebrow raises.")]
struct Cli {
    /// The user profile (a folder in the config directory); without it,
    /// "default" (with --autostart: the profile used last).
    #[arg(long, global = true)]
    profile: Option<String>,
    /// Started at login (see `facemouse autostart`): the last profile, and no
    /// clicks for the first seconds (the profile's `ui.login_grace_s`).
    #[arg(long)]
    autostart: bool,
    /// The camera to use, by index or by (part of) its name.
    #[arg(long)]
    camera: Option<String>,
    /// Run without the window, printing what Facemouse sees.
    #[arg(long)]
    headless: bool,
    /// Open the window with the navigation menu showing.
    #[arg(long)]
    show_menu: bool,
    /// Open the window in the hands-free calibration wizard.
    #[arg(long)]
    calibrate: bool,
    /// Use a recording (video file or image folder) instead of the camera, in
    /// the window or with --headless. It loops, and does not move the pointer
    /// unless --drive is given.
    #[arg(long, value_name = "PATH")]
    source: Option<PathBuf>,
    /// With --source: play the recording once, then stop.
    #[arg(long, requires = "source")]
    once: bool,
    /// With --source: move the real pointer and click, as with a camera.
    #[arg(long, requires = "source")]
    drive: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// List the cameras.
    Cameras,
    /// Start Facemouse at login, or not: an XDG autostart entry.
    Autostart {
        #[arg(value_enum)]
        state: AutostartState,
    },
    /// Run the whole pipeline headless on a video file or image folder and write the trace.
    Replay {
        /// A video file, or a folder of images read in name order.
        input: PathBuf,
        /// Write one JSON line per frame here (see docs/trace.md).
        #[arg(long)]
        trace: Option<PathBuf>,
        /// Pace frames at the file's frame rate instead of as fast as possible.
        #[arg(long)]
        realtime: bool,
        /// Send the pointer motion and clicks to the real desktop (without it, replay touches nothing).
        #[arg(long)]
        drive: bool,
    },
    /// Replay labelled sequences (folders with video.avi, labels.csv, meta.json) and print their scores.
    Eval {
        /// Sequence folders, in the format of ../shared/data.
        #[arg(required = true)]
        sequences: Vec<PathBuf>,
        /// Print JSON instead of the table.
        #[arg(long)]
        json: bool,
        /// Also write each sequence's trace into this folder.
        #[arg(long)]
        trace_dir: Option<PathBuf>,
        /// Override the event tolerance in seconds.
        #[arg(long)]
        tol_s: Option<f64>,
        /// Replay each sequence this many times and take each frame's median
        /// time (every run must see the same): pauses of the machine fall on
        /// other frames in each run.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=20))]
        repeat: u32,
        /// Also measure tracking per bin of head yaw and pitch (for turning heads: `synth --turning`).
        #[arg(long)]
        turns: bool,
        /// Move each frame's time by up to this many ms either way (at random, from --jitter-seed), as a camera's clock
        /// jitters: a rule that turns on a time's last digits shows as a row that moves with the seed.
        #[arg(long, value_name = "MS")]
        jitter: Option<f64>,
        /// The seed of --jitter.
        #[arg(long, default_value_t = 1)]
        jitter_seed: u64,
    },
    /// Active Hidden Models alone against the NCC trackers alone on generated turning heads, per bin of yaw and pitch.
    EvalAhm {
        /// Generated heads, one per seed (1 to N).
        #[arg(long, default_value_t = 2)]
        heads: u64,
        #[arg(long, default_value_t = 30.0)]
        fps: f64,
        /// The heads also drift about the frame.
        #[arg(long)]
        moving: bool,
        /// Wear this labelled sequence's first frontal face instead of the shipped portrait (AHM is then also trained on it).
        #[arg(long)]
        face: Option<PathBuf>,
    },
    /// Simulate a user with a small range of motion and measure pointing (Fitts' law throughput) per mode.
    EvalPointer {
        #[arg(long)]
        json: bool,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Measure the on-screen keyboard: dwells, switch presses and scan steps per character on a phrase set, with and without word prediction.
    EvalKeyboard {
        /// A phrase set, one phrase a line (e.g. MacKenzie and Soukoreff's phrases2.txt).
        phrases: PathBuf,
        /// Also the cost of typing this one phrase (scan steps to type it).
        #[arg(long)]
        phrase: Option<String>,
        /// Print the measurement as JSON.
        #[arg(long)]
        json: bool,
        /// The profile whose dwell time and scan step the time model uses.
        #[arg(long, default_value = "default")]
        profile: String,
        /// The keyboard menu to measure ("keyboard-qwerty" for QWERTY).
        #[arg(long, default_value = "keyboard")]
        keyboard: String,
    },
    /// Train the head-pose model (SMA) on generated data and write models/sma-head-pose.json.
    TrainPose {
        /// Where to write the model (default: the shipped one).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Measure head pose: SMA (K=1, chosen K, refined) against solvePnP on generated test sets, and on sequences.
    EvalPose {
        /// Sequence folders with pose labels (e.g. ../shared/data/*).
        sequences: Vec<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Generate a labelled face sequence (video.avi, labels.csv, meta.json) from the shipped photo.
    Synth {
        /// Output folder.
        #[arg(long)]
        out: PathBuf,
        /// Make the bundled demo clip's script instead of a random one.
        #[arg(long)]
        demo: bool,
        /// A person talking, nodding and turning (up to 30°), blinking, and never raising the brows on purpose.
        #[arg(long, conflicts_with = "demo")]
        talking: bool,
        /// The person wears black-framed glasses.
        #[arg(long)]
        glasses: bool,
        /// With --talking: the person also smiles now and then (the cheeks push the lower lids up).
        #[arg(long, requires = "talking")]
        smiling: bool,
        /// With --talking: the brows lift with speech as far and as long as a meant raise (labelled 0), and a raise is meant in every third pause (labelled 1).
        #[arg(long, requires = "talking", conflicts_with = "smiling")]
        expressive: bool,
        /// A 3D head that turns to 90° of yaw each way and 45° of pitch up and down (38 s), blinking and raising its brows.
        #[arg(long, conflicts_with_all = ["demo", "talking", "glasses"])]
        turning: bool,
        /// With --turning: seconds of frontal face before the first turn.
        #[arg(long, requires = "turning", default_value_t = 2.0)]
        lead: f64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value_t = 20.0)]
        seconds: f64,
        #[arg(long, default_value_t = 30.0)]
        fps: f64,
    },
    /// Make a labelled sequence slower or smaller (every Nth frame, scaled), to measure cheaper cameras.
    Resample {
        /// Sequence folder (video.avi, labels.csv, meta.json).
        sequence: PathBuf,
        /// Output folder.
        #[arg(long)]
        out: PathBuf,
        /// Keep every Nth frame (2 turns 30 fps into 15); a kept frame is labelled closed or raised when any frame since the last kept one was.
        #[arg(long, default_value_t = 1)]
        every: usize,
        /// Scale the frames by this (0.5 turns 640×480 into 320×240).
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
        /// Move each frame as a talking, nodding head moves (shift, roll, size, turn), with this seed.
        #[arg(long = "move", value_name = "SEED")]
        motion: Option<u64>,
        /// Light the face from behind (dark, flat, noisy, exposure that drifts, a lamp in view), with this seed.
        #[arg(long = "backlight", value_name = "SEED")]
        light: Option<u64>,
        /// Compress each frame as a cheap webcam's Motion-JPEG at this quality (1 to 100).
        #[arg(long = "jpeg", value_name = "QUALITY")]
        jpeg: Option<i32>,
        /// Drop this share of the frames at random (0 to 0.9), as a webcam does in low light or on a busy machine; the frames left keep their own times.
        #[arg(long = "drop", value_name = "SHARE")]
        drop_share: Option<f64>,
        /// The seed that picks the frames --drop drops.
        #[arg(long, default_value_t = 1)]
        drop_seed: u64,
        /// A hand passes over the upper face every 4 s from 10 s on (it slides in for 0.5 s, rests 1.5 s, slides out), with this seed.
        #[arg(long = "hand", value_name = "SEED")]
        hand: Option<u64>,
    },
}

/// A line on standard output. Output that cannot be written (a closed pipe,
/// a full disk) is an error that ends the command cleanly, never a panic.
macro_rules! say {
    ($($t:tt)*) => { say(format_args!($($t)*), true) };
}

/// Text on standard output, as it is (see [`say!`]).
macro_rules! say_raw {
    ($($t:tt)*) => { say(format_args!($($t)*), false) };
}

/// Whether `e` comes from writing to a pipe whose reader has gone.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}

fn say(args: std::fmt::Arguments<'_>, newline: bool) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_fmt(args).and_then(|()| if newline { out.write_all(b"\n") } else { Ok(()) }).and_then(|()| out.flush()).context("cannot write to standard output")
}

fn main() -> ExitCode {
    use std::io::IsTerminal;
    use tracing_subscriber::prelude::*;
    // Our own messages from INFO up (FACEMOUSE_LOG=debug or trace for more);
    // libraries' (enigo, nokhwa) only when they are errors.
    let ours = std::env::var("FACEMOUSE_LOG").ok().and_then(|v| v.parse::<tracing::Level>().ok()).unwrap_or(tracing::Level::INFO);
    let filter = tracing_subscriber::filter::Targets::new()
        .with_target("facemouse", ours)
        .with_default(tracing::Level::ERROR);
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_target(false)
                .without_time()
                .with_ansi(std::io::stderr().is_terminal()),
        )
        .with(filter)
        .init();
    // OpenCV's own warnings (backends it tried and gave up on) are noise for the
    // user; its failures reach them as our one-line errors.
    let _ = opencv::core::set_log_level(opencv::core::LogLevel::LOG_LEVEL_SILENT);
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`| head`): stop quietly, as other tools do.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("facemouse: {}", one_line(&e));
            ExitCode::from(2)
        }
    }
}

fn stop_flag() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let s = Arc::clone(&stop);
    // If the handler cannot be set (already set), Ctrl-C still ends the process.
    let _ = ctrlc::set_handler(move || s.store(true, Ordering::Relaxed));
    // SIGQUIT (Ctrl-\) too: stop, releasing first, instead of dumping core with a button held.
    #[cfg(unix)]
    let _ = signal_hook::flag::register(signal_hook::consts::SIGQUIT, Arc::clone(&stop));
    stop
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum AutostartState {
    On,
    Off,
    Status,
}

fn run() -> Result<()> {
    let cli = Cli::parse();
    // The profile named, else (started at login) the one used last, else "default".
    let profile_name = match (&cli.profile, cli.autostart) {
        (Some(p), _) => p.clone(),
        (None, true) => profile::config_root().ok().and_then(|r| profile::last_used(&r)).unwrap_or_else(|| profile::DEFAULT_PROFILE.into()),
        (None, false) => profile::DEFAULT_PROFILE.into(),
    };
    match cli.command {
        Some(Command::Cameras) => {
            cameras()
        }
        Some(Command::Autostart { state }) => autostart(state),
        Some(Command::Replay { input, trace, realtime, drive }) => {
            if let Some(t) = &trace
                && same_file(t, &input)
            {
                anyhow::bail!("the trace {} would overwrite the input: give --trace another file name", t.display());
            }
            let prof = load_profile(&profile_name)?;
            // Driving the desktop: one instance at a time.
            let _lock = if drive { Some(facemouse::instance::acquire_driver()?) } else { None };
            if drive {
                // Fail early, in one line, when there is no desktop to drive:
                // through the backend the window and headless use (uinput on
                // Wayland, XTest on X11, or the profile's choice).
                let s = &prof.settings.pointer;
                drop(facemouse::output::open_desktop(s.output, (s.screen_width, s.screen_height)).context("cannot drive the desktop")?);
            }
            let stop = stop_flag();
            let summary = replay::run(SourceSpec::from_path(&input, realtime), &prof.settings, trace.as_deref(), drive, &stop, &mut |m| {
                eprintln!("facemouse: {m}");
            })?;
            print_summary(&summary, trace.as_deref())
        }
        Some(Command::Eval { sequences, json, trace_dir, tol_s, repeat, turns, jitter, jitter_seed }) => {
            let jitter = jitter.map(|ms| (ms, jitter_seed));
            eval(&sequences, &EvalOptions { json, trace_dir, tol_s, repeat, turns, jitter }, &profile_name)
        }
        Some(Command::TrainPose { out }) => {
            let path = out.unwrap_or_else(facemouse::pose::default_model_path);
            let started = std::time::Instant::now();
            let m = facemouse::lab::pose_train::train(&facemouse::lab::pose_train::TrainConfig::default());
            facemouse::pose::save(&m, &path)?;
            say!(
                "wrote {} (K = {}, validation MAE by K: {:?}) in {:.1} s",
                path.display(),
                m.meta.chosen_k,
                m.meta.k_validation_mae.iter().map(|(k, e)| format!("{k}: {e:.2}°")).collect::<Vec<_>>(),
                started.elapsed().as_secs_f64()
            )?;
            Ok(())
        }
        Some(Command::EvalPose { sequences, json }) => {
            let model = facemouse::pose::load(&facemouse::pose::default_model_path())?;
            let report = facemouse::lab::pose_eval::run(&model, &sequences, &settings_for(&profile_name)?)?;
            if json {
                say!("{}", serde_json::to_string(&report)?)?;
            } else {
                say_raw!("{}", facemouse::lab::pose_eval::table(&report))?;
            }
            Ok(())
        }
        Some(Command::EvalKeyboard { phrases, phrase, json, profile, keyboard }) => {
            use facemouse::lab::keyboard_eval;
            let menus = facemouse::data_dir().join("menus");
            let set = keyboard_eval::load_phrases(&phrases)?;
            // The pointer's speed: eval-pointer's throughput of the default
            // (relative) and the calibrated (absolute) mapping, selecting by
            // a menu's dwell (a key fires once the pointer has stayed on it
            // for the dwell, counted from its arrival: `ui::activate`), over
            // the movement alone (the time model adds the dwell of each
            // selection itself).
            let pointing = facemouse::lab::pointer_eval::evaluate(1);
            let throughputs: Vec<keyboard_eval::Throughput> = ["relative (feature)", "absolute (feature, 20×10 px)"]
                .iter()
                .filter_map(|mode| pointing.iter().find(|r| r.mode == *mode && r.click == facemouse::lab::pointer_eval::ClickMethod::DwellOnTarget))
                .map(|r| keyboard_eval::Throughput { mode: r.mode.clone(), bits_per_s: r.movement_throughput })
                .collect();
            let settings = settings_for(&profile)?;
            let timing = keyboard_eval::Timing { dwell_s: settings.pointer.dwell_ms / 1000.0, scan_step_s: settings.ui.scan_step_ms / 1000.0 };
            let report = keyboard_eval::report(&set, &menus, &keyboard, &throughputs, timing)?;
            if json {
                say!("{}", serde_json::to_string(&report)?)?;
                return Ok(());
            }
            say_raw!("{}", keyboard_eval::table(&report))?;
            if let Some(p) = phrase {
                for (name, size) in keyboard_eval::PANELS {
                    for predict in [false, true] {
                        let c = keyboard_eval::measure_keyboard(std::slice::from_ref(&p), &menus, &keyboard, size, predict)?;
                        say!("{p:?}, {name}, prediction {}: {} selections ({} switch presses), {} scan steps", if predict { "on" } else { "off" }, c.selections, 2 * c.selections, c.scan_steps)?;
                    }
                }
            }
            Ok(())
        }
        Some(Command::EvalAhm { heads, fps, moving, face }) => {
            let seeds: Vec<u64> = (1..=heads.clamp(1, 20)).collect();
            let face = face.map(|d| facemouse::lab::ahm_eval::face_from_sequence(&d)).transpose()?;
            let r = facemouse::lab::ahm_eval::run(&seeds, fps, moving, face.as_ref())?;
            let table = facemouse::lab::turn_eval::table;
            say_raw!("NCC trackers alone:\n\n{}", table(&r.ncc))?;
            let f = |x: Option<f64>| x.map_or_else(|| "–".to_string(), |v| format!("{v:.3}"));
            for c in &r.ahm {
                say_raw!(
                    "\nAHM alone, {}: error median {} (p95 {}) frontal eye distances; Spearman of its expected error with the real one {:.2}; the projections {:.0} µs a frame\n\n{}",
                    c.name,
                    f(c.error_median),
                    f(c.error_p95),
                    c.spearman,
                    c.projection_us,
                    table(&c.report)
                )?;
            }
            Ok(())
        }
        Some(Command::EvalPointer { json, seed }) => {
            let rows = facemouse::lab::pointer_eval::evaluate(seed);
            let corners = facemouse::lab::pointer_eval::corners_reached(&facemouse::lab::pointer_eval::SimUser::default());
            if json {
                say!("{}", serde_json::json!({ "modes": rows, "corners_reached": corners }))?;
            } else {
                say_raw!("{}", facemouse::lab::pointer_eval::table(&rows, corners))?;
            }
            Ok(())
        }
        Some(Command::Resample { sequence, out, every, scale, motion, light, jpeg, drop_share, drop_seed, hand }) => {
            use facemouse::lab::resample::{Drops, Hand, Light, Motion, Options};
            let (motion, light) = (motion.map(Motion::new), light.map(Light::new));
            let drops = drop_share.map(|share| Drops { share, seed: drop_seed });
            let hand = hand.map(Hand::every_four_seconds);
            let opts = Options { every, scale, motion: motion.as_ref(), light: light.as_ref(), jpeg, drops, hand: hand.as_ref() };
            let meta = facemouse::lab::resample::resample(&sequence, &out, &opts)?;
            say!("wrote {} frames at {:.1} fps, {}×{}, to {}", meta.frames, meta.fps, meta.width, meta.height, out.display())?;
            Ok(())
        }
        Some(Command::Synth { out, demo, talking, glasses, smiling, expressive, turning, lead, seed, seconds, fps }) => {
            let mut cfg = if demo {
                SynthConfig::demo()
            } else if turning {
                SynthConfig::turning_after(seed, fps, lead)
            } else if talking && expressive {
                SynthConfig::talking_expressive(seed, seconds, fps)
            } else if talking {
                SynthConfig::talking(seed, seconds, fps)
            } else {
                SynthConfig::random(seed, seconds, fps)
            };
            cfg.glasses = glasses.then(facemouse::lab::synth::Glasses::black);
            if smiling {
                cfg.talk = Some(facemouse::lab::synth::Talk::smiling());
            }
            let asset = FaceAsset::load(&synth::default_photo())?;
            let meta = synth::write_sequence(asset, &cfg, &out)?;
            say!(
                "wrote {} frames to {} ({} brow raises, {} subtle)",
                meta.frames,
                out.display(),
                meta.synthetic_brow_raises.len(),
                meta.subtle_raises.len()
            )?;
            Ok(())
        }
        None => {
            let recording = cli.source.as_deref().map(|p| {
                if p.exists() {
                    Ok(facemouse::ui::SourceChoice::recording(p, !cli.once, cli.drive))
                } else {
                    Err(anyhow::anyhow!("{} does not exist: give a video file or a folder of images to --source", p.display()))
                }
            });
            let recording = recording.transpose()?;
            let no_display = std::env::var_os("DISPLAY").is_none() && cfg!(target_os = "linux") && std::env::var_os("WAYLAND_DISPLAY").is_none();
            if cli.headless || no_display {
                live(cli.camera.as_deref(), recording, &profile_name, cli.autostart)
            } else {
                gui(cli.camera.as_deref(), recording, &profile_name, cli.show_menu, cli.calibrate, cli.autostart)
            }
        }
    }
}

/// `facemouse eval`'s options (its arguments).
struct EvalOptions {
    json: bool,
    trace_dir: Option<PathBuf>,
    tol_s: Option<f64>,
    repeat: u32,
    turns: bool,
    /// Each frame's time moved by up to this many ms, from this seed.
    jitter: Option<(f64, u64)>,
}

fn eval(sequences: &[PathBuf], opts: &EvalOptions, profile_name: &str) -> Result<()> {
    let EvalOptions { json, ref trace_dir, tol_s, repeat, turns, jitter } = *opts;
    if let Some((ms, _)) = jitter.filter(|(ms, _)| !(ms.is_finite() && *ms >= 0.0)) {
        anyhow::bail!("--jitter is a time in ms, 0 or more, not {ms}");
    }
    let prof = load_profile(profile_name)?;
    let mut all = Vec::new();
    let mut turned = Vec::new();
    // Found once: a missing model is reported once, not for every sequence.
    let models = facemouse::models::Models::load();
    // The face detector alone, for the turn table (loaded once).
    let mut detector = turns.then(|| models.face_detector());
    for dir in sequences {
        let seq = facemouse::lab::labels::Sequence::load(dir)?;
        let source = jitter.map_or_else(|| seq.source(), |(ms, seed)| seq.source_jittered(ms, seed));
        let run = || replay::collect_with(source.clone(), &prof.settings, models.clone()).with_context(|| format!("cannot replay {}", dir.display()));
        let mut runs = Vec::with_capacity(repeat as usize);
        for _ in 0..repeat {
            runs.push(run()?.0);
        }
        let records = facemouse::lab::eval::merge_runs(runs).with_context(|| format!("cannot repeat {}", dir.display()))?;
        if let Some(td) = trace_dir.as_deref() {
            std::fs::create_dir_all(td).with_context(|| format!("cannot create {}", td.display()))?;
            let name = dir.file_name().map_or_else(|| "trace".into(), |n| n.to_string_lossy().to_string());
            let mut w = facemouse::trace::TraceWriter::create(&td.join(format!("{name}.jsonl")))?;
            for r in &records {
                w.write(r)?;
            }
            w.finish()?;
        }
        all.push(facemouse::lab::eval::score(&seq, &records, tol_s));
        if let Some(detector) = detector.as_mut() {
            let detected = facemouse::lab::turn_eval::detect_all(&seq.video(), detector).with_context(|| format!("cannot read {}", seq.video().display()))?;
            turned.push((seq, records, detected));
        }
    }
    let summary = facemouse::lab::eval::summarize(&all);
    let turn_report = turns.then(|| facemouse::lab::turn_eval::measure(&turned));
    if json {
        let groups: serde_json::Map<String, serde_json::Value> = facemouse::lab::eval::groups(&all)
            .into_iter()
            .map(|(g, s)| (g, serde_json::to_value(s).unwrap_or_default()))
            .collect();
        say!("{}", serde_json::json!({ "sequences": all, "groups": groups, "summary": summary, "turns": turn_report }))?;
    } else {
        say_raw!("{}", facemouse::lab::eval::table(&all, &summary))?;
        if let Some(r) = &turn_report {
            say_raw!("\n{}", facemouse::lab::turn_eval::table(r))?;
        }
    }
    Ok(())
}

/// `facemouse autostart on|off|status`.
fn autostart(state: AutostartState) -> Result<()> {
    let dir = facemouse::autostart::default_dir()?;
    match state {
        AutostartState::On => {
            let path = facemouse::autostart::enable_this_program(&dir)?;
            say!("Facemouse starts at login ({})", path.display())
        }
        AutostartState::Off => {
            let removed = facemouse::autostart::disable(&dir)?;
            say!("{}", if removed { "Facemouse no longer starts at login" } else { "Facemouse was not set to start at login" })
        }
        AutostartState::Status => match facemouse::autostart::status(&dir) {
            Some(p) => say!("on ({})", p.display()),
            None => say!("off"),
        },
    }
}

fn settings_for(profile_name: &str) -> Result<facemouse::profile::Settings> {
    Ok(load_profile(profile_name)?.settings)
}

/// The profile for a replay or an evaluation: a settings file that does not
/// parse stops it (its numbers would mean nothing), but one that is not a
/// regular file (a folder, a pipe, a device) is named and the defaults are used.
fn load_profile(profile_name: &str) -> Result<profile::Profile> {
    let root = profile::config_root()?;
    match profile::load_from(&root, profile_name) {
        Err(profile::ProfileError::Unusable(why)) => {
            eprintln!("facemouse: {why}; using the defaults");
            Ok(profile::Profile { name: profile_name.to_string(), dir: root.join("profiles").join(profile_name), settings: profile::Settings::default(), from_file: false })
        }
        other => other.context("cannot load the profile"),
    }
}

fn cameras() -> Result<()> {
    let cams = capture::list_cameras();
    if cams.is_empty() {
        say!("No camera found. Connect a webcam, or run on a video: facemouse replay VIDEO --trace trace.jsonl")?;
        return Ok(());
    }
    for c in cams {
        say!("{}\t{}\t{}", c.index, c.name, c.description)?;
    }
    Ok(())
}

/// The window: the profile opened leniently (a broken file is kept as .bak and
/// the user is told), and a recording, the camera named, the remembered
/// camera, the first camera, or the demo clip without one.
///
/// One Facemouse drives the pointer: a window that would drive it while
/// another does is refused. A window that only shows a recording may open
/// beside it; if another window has its profile open, it uses the profile
/// read-only and says so.
fn gui(camera: Option<&str>, recording: Option<facemouse::ui::SourceChoice>, profile_name: &str, show_menu: bool, calibrate: bool, at_login: bool) -> Result<()> {
    let root = profile::config_root()?;
    // The profile's lock before its files are read: only the window that
    // may save a profile moves a broken file aside.
    if !profile::valid_name(profile_name) {
        return Err(profile::ProfileError::BadName(profile_name.into())).context("cannot open the profile");
    }
    let (access, prof, notes) = facemouse::instance::ProfileAccess::open(&root, profile_name).context("cannot open the profile")?;
    let mut messages = notes.recovered.clone();
    messages.extend(access.read_only());
    let source = match recording {
        Some(r) => r,
        None => camera_or_demo(camera, &prof.settings.ui.camera, &mut messages)?,
    };
    let drive_lock = drive_lock(&source)?;
    for m in &messages {
        eprintln!("facemouse: {m}");
    }
    let autostart_dir = facemouse::autostart::default_dir().ok();
    facemouse::ui::run(facemouse::ui::Launch { profile: prof, notes: messages, source, show_menu, calibrate, access, drive_lock, at_login, autostart_dir })
}

/// The lock of the one Facemouse that drives this display's pointer, taken
/// only by a run that drives (a camera, or `--drive`); one that only shows a
/// recording takes none, so it never keeps a driver from starting.
fn drive_lock(source: &facemouse::ui::SourceChoice) -> Result<Option<facemouse::instance::InstanceLock>> {
    Ok(if source.drive { Some(facemouse::instance::acquire_driver()?) } else { None })
}

/// The camera the user names (it must exist: one clear line, not a window
/// that waits for it), else the remembered one, the first one, or the demo
/// clip (shown, never driving) when there is none.
fn camera_or_demo(camera: Option<&str>, remembered: &str, messages: &mut Vec<String>) -> Result<facemouse::ui::SourceChoice> {
    use facemouse::ui::SourceChoice;
    Ok(match camera {
        Some(sel) => SourceChoice::camera(CameraSelector::Index(capture::resolve_camera(&CameraSelector::parse(sel))?.index)),
        None if !remembered.is_empty() && capture::resolve_camera(&CameraSelector::Name(remembered.to_string())).is_ok() => {
            SourceChoice::camera(CameraSelector::Name(remembered.to_string()))
        }
        None if !capture::list_cameras().is_empty() => SourceChoice::camera(CameraSelector::Index(0)),
        None => {
            messages.push("No camera found: showing the bundled demo clip (the pointer is not driven).".into());
            SourceChoice::recording(&facemouse::demo_clip(), true, false)
        }
    })
}

/// Prints what a headless session sees: state changes and numbered events.
struct Printer {
    last_state: Option<facemouse::events::TrackState>,
    /// The reader of standard output has gone (`| head`): the run ends quietly.
    reader_gone: bool,
}

impl facemouse::session::Observer for Printer {
    fn frame(&mut self, tick: &facemouse::session::Tick<'_>) -> Result<(), facemouse::session::SessionError> {
        let rec = tick.record;
        let gone = &mut self.reader_gone;
        let mut closed = |e: anyhow::Error| {
            *gone = is_broken_pipe(&e);
            facemouse::session::SessionError::Observer(one_line(&e))
        };
        if self.last_state != Some(rec.state) {
            say!("state: {}", serde_json::to_string(&rec.state).unwrap_or_default().trim_matches('"')).map_err(&mut closed)?;
            self.last_state = Some(rec.state);
        }
        for (n, e) in tick.events {
            say!("{:>9.1} s  #{n} {}", rec.t_ms / 1000.0, serde_json::to_string(e).unwrap_or_default().trim_matches('"')).map_err(&mut closed)?;
        }
        Ok(())
    }

    fn status(&mut self, message: &str) {
        eprintln!("facemouse: {message}");
    }
}

/// Without a display (or with --headless): the live session, printing what it sees.
fn live(camera: Option<&str>, recording: Option<facemouse::ui::SourceChoice>, profile_name: &str, at_login: bool) -> Result<()> {
    // As the window does, a broken file does not stop the pointer: it is
    // reported and the defaults are used. Headless never writes the profile,
    // so it is opened without writing (the window moves a broken file aside).
    let (prof, notes) = profile::open_read_only(&profile::config_root()?, profile_name).context("cannot open the profile")?;
    for n in &notes.recovered {
        eprintln!("facemouse: {n}");
    }
    let mut messages = Vec::new();
    let source = match recording {
        Some(r) => r,
        None => camera_or_demo(camera, "", &mut messages)?,
    };
    let _lock = drive_lock(&source)?;
    for m in &messages {
        say!("{m}")?;
    }
    say!(
        "Running headless (profile \"{}\"{}); press Ctrl-C to stop.",
        prof.name,
        if source.drive { ", driving the pointer" } else { ", not driving the pointer" }
    )?;
    let stop = stop_flag();
    let (tx, rx) = crossbeam_channel::bounded(8);
    // Started at login: no action while the user settles, as in the window.
    let grace_s = if at_login { prof.settings.ui.login_grace_s } else { 0.0 };
    if grace_s > 0.0 {
        let _ = tx.try_send(facemouse::session::Intent::QuietFor(grace_s * 1000.0));
        say!("Started at login: no click for the first {grace_s:.0} s.")?;
    }
    // A key or switch button as the switch, besides the face (if set).
    let (_external, problem) = facemouse::capture::switch_input::SwitchInput::for_settings(&prof.settings.switch, move || {
        let _ = tx.try_send(facemouse::session::Intent::ExternalSwitch);
    });
    if let Some(p) = problem {
        eprintln!("facemouse: {p}");
    }
    let mut session = facemouse::session::Session::new(prof.settings.clone(), source.spec, source.looping, source.drive);
    let mut printer = Printer { last_state: None, reader_gone: false };
    let summary = match session.run(&rx, &stop, &mut printer) {
        Err(_) if printer.reader_gone => return Ok(()),
        r => r?,
    };
    print_summary(&summary, None)
}

/// Whether `a` and `b` name the same existing file.
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

fn print_summary(s: &RunSummary, trace: Option<&std::path::Path>) -> Result<()> {
    say!(
        "{}: {} frames ({} tracking, {} dropped), proc_us p50 {} p99 {}, latency_us p50 {} p99 {}{}",
        s.source,
        s.frames,
        s.tracking_frames,
        s.dropped,
        s.proc_us_p50,
        s.proc_us_p99,
        s.latency_us_p50,
        s.latency_us_p99,
        trace.map(|t| format!(", trace {}", t.display())).unwrap_or_default()
    )?;
    Ok(())
}

/// An error and its causes on one line, each cause once: an error whose
/// message already quotes its cause does not repeat it.
fn one_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain().map(ToString::to_string) {
        if line.contains(&cause) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&cause);
    }
    line
}
