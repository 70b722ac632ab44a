//! The `facemouse` command as a user runs it: replay, the trace contract, and
//! every bad-input path. Each test gets its own temporary folder.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use facemouse::lab::labels::Sequence;
use facemouse::trace::TRACE_KEYS;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_facemouse"));
    c.env("RUST_BACKTRACE", "1");
    c
}

fn demo_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/clip")
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("run facemouse")
}

/// A fatal error: exit code 2, exactly one line on stderr that contains every
/// `needle`, and no panic or backtrace.
fn assert_one_line_error(out: &Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "exit code; stderr: {err}");
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line: {err}");
    for n in needles {
        assert!(lines[0].contains(n), "{n:?} in {err}");
    }
    assert!(!err.contains("panicked") && !err.contains("backtrace"), "{err}");
}

fn read_trace(path: &Path) -> Vec<serde_json::Map<String, serde_json::Value>> {
    std::fs::read_to_string(path)
        .expect("trace written")
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("valid JSON").as_object().expect("object").clone())
        .collect()
}

fn assert_trace_contract(lines: &[serde_json::Map<String, serde_json::Value>], expected_frames: usize) {
    assert_eq!(lines.len(), expected_frames, "one line per decoded frame");
    for (i, o) in lines.iter().enumerate() {
        assert_eq!(o.len(), TRACE_KEYS.len(), "line {i} has exactly the documented keys");
        for k in TRACE_KEYS {
            assert!(o.contains_key(k), "line {i} lacks {k}");
        }
        assert_eq!(o["frame"].as_u64(), Some(i as u64), "indices are contiguous from 0");
        let state = o["state"].as_str().expect("state is a string");
        assert!(["searching", "initializing", "tracking", "lost"].contains(&state), "{state}");
        assert!(o["events"].is_array());
        assert!(o["proc_us"].is_u64());
    }
    let t: Vec<f64> = lines.iter().map(|o| o["t_ms"].as_f64().expect("t_ms")).collect();
    assert!(t.windows(2).all(|w| w[1] > w[0]), "time increases");
}

#[test]
fn replaying_the_demo_clip_writes_one_complete_line_per_frame() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let trace = tmp.path().join("t.jsonl");
    let out = run(bin().arg("replay").arg(demo_dir().join("video.avi")).arg("--trace").arg(&trace));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let seq = Sequence::load(&demo_dir()).expect("the demo clip's labels");
    assert_trace_contract(&read_trace(&trace), seq.rows.len());
}

#[test]
fn the_shipped_demo_clip_is_what_the_generator_makes() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = run(bin().args(["synth", "--demo", "--out"]).arg(tmp.path()));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let shipped = std::fs::read_to_string(demo_dir().join("labels.csv")).expect("shipped labels");
    let made = std::fs::read_to_string(tmp.path().join("labels.csv")).expect("generated labels");
    assert_eq!(shipped, made, "regenerate with: facemouse synth --demo --out assets/demo/clip");
    let seq = Sequence::load(tmp.path()).expect("generated sequence");
    assert!((10.0..=20.0).contains(&(seq.rows.len() as f64 / seq.meta.fps)), "a 10-20 s clip");
    let blinks = Sequence::runs(seq.rows.iter().map(|r| r.eyes_closed));
    assert!(blinks.len() >= 5, "blinks: {blinks:?}");
    let longest = blinks.iter().map(|(a, b)| b - a + 1).max().unwrap_or(0) as f64 / seq.meta.fps;
    assert!(longest >= 0.6, "one long blink, longest {longest} s");
    assert!(seq.meta.synthetic_brow_raises.len() >= 2);
}

#[test]
fn replaying_an_image_folder_reads_every_image_in_name_order() {
    use facemouse::lab::synth::{default_photo, FaceAsset, Generator, SynthConfig};
    use opencv::core::{Mat, Vector};
    let tmp = tempfile::tempdir().expect("tempdir");
    let frames = tmp.path().join("frames");
    std::fs::create_dir(&frames).expect("mkdir");
    let mut g = Generator::new(FaceAsset::load(&default_photo()).expect("photo"), SynthConfig::demo()).expect("gen");
    let mut img = Mat::default();
    for i in 0..7 {
        g.render(i, &mut img).expect("render");
        let p = frames.join(format!("f{i:03}.png"));
        opencv::imgcodecs::imwrite(p.to_str().expect("utf8"), &img, &Vector::new()).expect("write png");
    }
    std::fs::write(frames.join("notes.txt"), "not an image").expect("write");
    let trace = tmp.path().join("t.jsonl");
    let out = run(bin().arg("replay").arg(&frames).arg("--trace").arg(&trace));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_trace_contract(&read_trace(&trace), 7);
}

#[test]
fn a_missing_video_is_one_clear_line() {
    let out = run(bin().args(["replay", "/no/such/clip.avi"]));
    assert_one_line_error(&out, &["/no/such/clip.avi", "not found"]);
}

#[test]
fn a_missing_sequence_folder_is_one_clear_line_that_says_things_once() {
    let out = run(bin().args(["eval", "/no/such/sequence"]));
    assert_one_line_error(&out, &["/no/such/sequence/labels.csv", "labels.csv and meta.json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("No such file or directory").count(), 1, "the cause once: {err}");
}

#[test]
fn a_file_that_is_not_a_video_is_one_clear_line() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let f = tmp.path().join("notes.avi");
    std::fs::write(&f, "these are not frames").expect("write");
    let out = run(bin().arg("replay").arg(&f));
    assert_one_line_error(&out, &["notes.avi", "cannot open", "as a video"]);
}

#[test]
fn an_empty_folder_is_one_clear_line() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = run(bin().arg("replay").arg(tmp.path()));
    assert_one_line_error(&out, &["no images in folder"]);
}

#[test]
fn a_camera_that_does_not_exist_is_one_clear_line() {
    let config = tempfile::tempdir().expect("tempdir");
    let out = run(bin().args(["--camera", "57"]).env("FACEMOUSE_CONFIG_DIR", config.path()));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_one_line_error(&out, &["camera 57 not found", "facemouse cameras"]);
    assert!(!err.contains("not built yet"));
}

#[test]
fn listing_cameras_never_fails() {
    let out = run(bin().arg("cameras"));
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    if facemouse::capture::list_cameras().is_empty() {
        assert!(text.contains("No camera found") && text.contains("facemouse replay"), "{text}");
    } else {
        assert!(!text.trim().is_empty());
    }
}

#[test]
fn an_unwritable_trace_is_one_clear_line() {
    let out = run(bin().arg("replay").arg(demo_dir().join("video.avi")).args(["--trace", "/no/such/dir/t.jsonl"]));
    assert_one_line_error(&out, &["/no/such/dir/t.jsonl"]);
}

#[test]
fn a_corrupt_profile_is_one_clear_line_and_is_not_touched() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("profiles/ann");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let text = "[pointer]\nscreen_width = \"wide\"\n";
    std::fs::write(dir.join("settings.toml"), text).expect("write");
    let out = run(bin()
        .env(facemouse::profile::CONFIG_DIR_ENV, tmp.path())
        .args(["--profile", "ann", "replay"])
        .arg(demo_dir().join("video.avi")));
    assert_one_line_error(&out, &["settings.toml", "line 2", "screen_width"]);
    assert_eq!(std::fs::read_to_string(dir.join("settings.toml")).expect("still there"), text);
}

#[test]
fn a_truncated_video_replays_what_decodes_and_says_so() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let bytes = std::fs::read(demo_dir().join("video.avi")).expect("demo clip");
    let cut = tmp.path().join("cut.avi");
    std::fs::write(&cut, &bytes[..bytes.len() / 3]).expect("write");
    let trace = tmp.path().join("t.jsonl");
    let out = run(bin().arg("replay").arg(&cut).arg("--trace").arg(&trace));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("truncated or damaged"), "{err}");
    let lines = read_trace(&trace);
    assert!(!lines.is_empty() && lines.len() < 450);
    assert_trace_contract(&lines, lines.len());
}

/// `--trace` never destroys a file: not the input named again as the trace,
/// nor a file that was there when the run fails.
#[test]
fn a_trace_never_destroys_a_file() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let video = tmp.path().join("clip.avi");
    std::fs::copy(demo_dir().join("video.avi"), &video).expect("copy");
    let size = std::fs::metadata(&video).expect("meta").len();
    let out = run(bin().arg("replay").arg(&video).arg("--trace").arg(&video));
    assert_one_line_error(&out, &["would overwrite the input"]);
    assert_eq!(std::fs::metadata(&video).expect("meta").len(), size, "the video is untouched");

    let notes = tmp.path().join("notes.txt");
    std::fs::write(&notes, "keep me").expect("write");
    let out = run(bin().arg("replay").arg(tmp.path().join("missing.avi")).arg("--trace").arg(&notes));
    assert_one_line_error(&out, &["missing.avi"]);
    assert_eq!(std::fs::read_to_string(&notes).expect("read"), "keep me");
    let left: Vec<_> = std::fs::read_dir(tmp.path()).expect("dir").map(|e| e.expect("entry").file_name()).collect();
    assert_eq!(left.len(), 2, "no partial trace is left behind: {left:?}");
}

/// `facemouse --headless --source DEMO` with its own config folder, once it
/// has printed its first line ("Running headless …"); the rest of its
/// output is in the returned reader, whose end closes the pipe.
fn headless_demo(config: &Path, stderr: Stdio) -> (std::process::Child, std::io::BufReader<std::process::ChildStdout>) {
    let mut child = bin()
        .args(["--headless", "--source"])
        .arg(demo_dir().join("video.avi"))
        .env("FACEMOUSE_CONFIG_DIR", config)
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("spawn");
    let mut reader = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    std::io::BufRead::read_line(&mut reader, &mut first).expect("line");
    assert!(first.starts_with("Running headless"), "{first}");
    (child, reader)
}

/// Output that cannot be written ends the command without a panic: a full
/// disk with one line, a reader that went away (`| head`) quietly.
#[test]
fn output_that_cannot_be_written_is_one_clear_line() {
    if std::path::Path::new("/dev/full").exists() {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
        let out = run(bin().arg("cameras").stdout(full));
        assert_one_line_error(&out, &["cannot write to standard output"]);
    }
    let config = tempfile::tempdir().expect("tempdir");
    let (child, reader) = headless_demo(config.path(), Stdio::piped());
    // The first line was read: close the pipe, as `| head -1` does.
    drop(reader);
    let out = child.wait_with_output().expect("wait");
    // The reader has gone, as with `| head`: it ends quietly.
    assert!(out.status.success(), "{:?}", out.status);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
}

/// A sequence that cannot be made is one line, at once: `--seconds inf`
/// tried to allocate gigabytes and aborted.
#[test]
fn synth_refuses_what_it_cannot_make() {
    let tmp = tempfile::tempdir().expect("tempdir");
    for args in [["--seconds", "inf"], ["--seconds", "nan"], ["--seconds", "1e9"], ["--fps", "0"], ["--fps", "inf"]] {
        let out = run(bin().arg("synth").arg("--out").arg(tmp.path().join("s")).args(args));
        assert_one_line_error(&out, &["cannot make this sequence", args[0]]);
        assert!(!tmp.path().join("s").exists(), "{args:?}: nothing written");
    }
}

/// A named pipe given as the video is refused at once (the decoder blocked
/// on it for ever, deaf to Ctrl-C).
#[cfg(unix)]
#[test]
fn a_named_pipe_is_refused_not_waited_on() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let fifo = tmp.path().join("fifo.avi");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    let out = run(bin().arg("replay").arg(&fifo));
    assert_one_line_error(&out, &["fifo.avi", "not a regular file"]);
}

/// One Facemouse drives a display's pointer: the lock lives in the user's
/// runtime folder and is keyed by the display, so a second driver is
/// refused even with another config folder, a run that only shows a
/// recording takes no lock (it used to keep the driver out), and a driver
/// on another display is not refused.
#[test]
fn the_driver_lock_is_one_per_display_and_only_a_driver_takes_it() {
    let runtime = tempfile::tempdir().expect("tempdir");
    let (config_a, config_b) = (tempfile::tempdir().expect("tempdir"), tempfile::tempdir().expect("tempdir"));
    let on = |c: &mut Command, display: &str, config: &Path| {
        c.env("XDG_RUNTIME_DIR", runtime.path()).env("DISPLAY", display).env_remove("WAYLAND_DISPLAY").env("FACEMOUSE_CONFIG_DIR", config);
    };
    // A run that only shows a recording, still running...
    let mut showing = bin();
    on(&mut showing, ":4242", config_a.path());
    let mut showing = showing.args(["--headless", "--source"]).arg(demo_dir().join("video.avi")).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("spawn");
    let mut reader = std::io::BufReader::new(showing.stdout.take().expect("stdout"));
    let mut first = String::new();
    std::io::BufRead::read_line(&mut reader, &mut first).expect("line");
    // ... holds no lock: the driver's lock of that display is free.
    let lock = runtime.path().join("facemouse-drive-x11-4242.lock");
    let held = facemouse::instance::acquire_at(&lock);
    let _ = showing.kill();
    let _ = showing.wait();
    assert!(first.starts_with("Running headless") && first.contains("not driving"), "{first}");
    let held = held.expect("a run that does not drive must not take the driver's lock");
    // While a driver holds it (this test), a driver with another config folder is refused.
    let mut driving = bin();
    on(&mut driving, ":4242.0", config_b.path());
    let out = run(driving.args(["--headless", "--drive", "--once", "--source"]).arg(demo_dir().join("video.avi")));
    assert_one_line_error(&out, &["already running", &format!("process {}", std::process::id()), "facemouse-drive-x11-4242.lock"]);
    // A driver of another display is not refused by it.
    let mut elsewhere = bin();
    on(&mut elsewhere, ":4243", config_b.path());
    let out = run(elsewhere.args(["--headless", "--drive", "--once", "--source"]).arg(demo_dir().join("video.avi")));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("already running"), "{}", String::from_utf8_lossy(&out.stderr));
    drop(held);
}

/// A broken settings file does not stop a headless run (it drives the
/// pointer as the window does): it is named, the defaults are used, and the
/// file is left as it is (headless never writes the profile).
#[test]
fn headless_runs_on_defaults_over_a_broken_profile_and_leaves_it_as_it_is() {
    let config = tempfile::tempdir().expect("tempdir");
    let dir = config.path().join("profiles/default");
    std::fs::create_dir_all(&dir).expect("profile");
    let broken = b"[ui]\n# gr\xfc\xdfe\nzoom = 2.0\n";
    std::fs::write(dir.join("settings.toml"), broken).expect("settings");
    let out = run(bin().args(["--headless", "--once", "--source"]).arg(demo_dir().join("video.avi")).env("FACEMOUSE_CONFIG_DIR", config.path()));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("settings.toml") && err.contains("not UTF-8") && err.contains("using the defaults"), "{err}");
    assert_eq!(std::fs::read(dir.join("settings.toml")).expect("kept"), broken);
    assert!(!dir.join("settings.toml.bak").exists());
}

/// `facemouse autostart on|status|off` writes and removes the XDG entry;
/// `--autostart` opens the profile used last.
#[test]
fn autostart_on_status_off_and_the_last_profile() {
    let home = tempfile::tempdir().expect("tempdir");
    let xdg = home.path().join("xdg");
    let cmd = |state: &str| run(bin().args(["autostart", state]).env("XDG_CONFIG_HOME", &xdg));
    let out = cmd("status");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "off");
    let out = cmd("on");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let entry = xdg.join("autostart/facemouse.desktop");
    let text = std::fs::read_to_string(&entry).expect("entry");
    assert!(text.contains("Exec=") && text.contains(" --autostart\n"), "{text}");
    assert!(String::from_utf8_lossy(&cmd("status").stdout).starts_with("on ("));
    assert!(cmd("off").status.success());
    assert!(!entry.exists());
    // Started at login: the profile used last.
    let config = home.path().join("config");
    std::fs::create_dir_all(config.join("profiles/ada")).expect("profile");
    std::fs::write(config.join("last-profile"), "ada\n").expect("last");
    let mut child = bin()
        .args(["--headless", "--autostart", "--once", "--source"])
        .arg(demo_dir().join("video.avi"))
        .env("FACEMOUSE_CONFIG_DIR", &config)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut reader = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    std::io::BufRead::read_line(&mut reader, &mut first).expect("line");
    let _ = child.kill();
    let _ = child.wait();
    assert!(first.contains("profile \"ada\""), "{first}");
}

/// Outputs go only to new or regular files: `resample SEQ --out SEQ` turned
/// 450 frames into 2 and said nothing; `synth` wrote through links planted
/// in its folder; `--trace` at a device node replaced the device.
#[cfg(unix)]
#[test]
fn outputs_never_go_onto_their_input_through_links_or_over_devices() {
    use std::os::unix::fs::FileTypeExt;
    let tmp = tempfile::tempdir().expect("tempdir");
    let seq = tmp.path().join("seq");
    let out = run(bin().args(["synth", "--seconds", "2", "--fps", "10", "--out"]).arg(&seq));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let before: Vec<Vec<u8>> = ["video.avi", "labels.csv", "meta.json"].iter().map(|f| std::fs::read(seq.join(f)).expect("file")).collect();
    // Onto itself, also named another way.
    for target in [seq.clone(), seq.join(".").join("..").join("seq")] {
        let out = run(bin().arg("resample").arg(&seq).arg("--out").arg(&target).args(["--every", "3"]));
        assert_one_line_error(&out, &["is the input", "another path"]);
    }
    let after: Vec<Vec<u8>> = ["video.avi", "labels.csv", "meta.json"].iter().map(|f| std::fs::read(seq.join(f)).expect("file")).collect();
    assert!(before == after, "the input sequence is untouched");
    // Links planted where synth writes: refused, and what they point at is untouched.
    let planted = tmp.path().join("planted");
    std::fs::create_dir(&planted).expect("mkdir");
    let victim = tmp.path().join("victim.txt");
    std::fs::write(&victim, "keep").expect("write");
    std::os::unix::fs::symlink(&victim, planted.join("labels.csv")).expect("link");
    let out = run(bin().args(["synth", "--seconds", "1", "--fps", "10", "--out"]).arg(&planted));
    assert_one_line_error(&out, &["labels.csv", "symbolic link"]);
    assert_eq!(std::fs::read_to_string(&victim).expect("victim"), "keep");
    assert!(!planted.join("video.avi").exists() && !planted.join("meta.json").exists(), "nothing written beside the link");
    // A trace at a device node (a copy of /dev/null: made here, as root can)
    // is refused and the node stays a device; without root, /dev/null itself.
    let node = tmp.path().join("null");
    let device = if Command::new("mknod").arg(&node).args(["c", "1", "3"]).status().is_ok_and(|s| s.success()) { node } else { PathBuf::from("/dev/null") };
    let out = run(bin().arg("replay").arg(seq.join("video.avi")).arg("--trace").arg(&device));
    assert_one_line_error(&out, &["a device", "another path"]);
    assert!(std::fs::symlink_metadata(&device).expect("device").file_type().is_char_device());
}

/// A settings file that is a named pipe, a link to `/dev/zero` or a folder:
/// the window, headless and replay hung with no message, read 2.1 GB, or
/// exited. Each now says what it is in one line and runs on the defaults.
#[cfg(unix)]
#[test]
fn a_settings_file_that_is_a_pipe_a_device_or_a_folder_is_named_and_the_defaults_are_used() {
    // The three kinds side by side: each headless run plays the demo clip in real time.
    std::thread::scope(|scope| {
        for kind in ["fifo", "zero", "folder"] {
            scope.spawn(move || {
                let config = tempfile::tempdir().expect("tempdir");
                let dir = config.path().join("profiles/default");
                std::fs::create_dir_all(&dir).expect("profile");
                let settings = dir.join("settings.toml");
                match kind {
                    "fifo" => {
                        if !Command::new("mkfifo").arg(&settings).status().is_ok_and(|s| s.success()) {
                            return;
                        }
                    }
                    "zero" => std::os::unix::fs::symlink("/dev/zero", &settings).expect("link"),
                    _ => std::fs::create_dir(&settings).expect("mkdir"),
                }
                let trace = config.path().join("t.jsonl");
                let replay = run(bin().arg("replay").arg(demo_dir().join("video.avi")).arg("--trace").arg(&trace).env("FACEMOUSE_CONFIG_DIR", config.path()));
                let err = String::from_utf8_lossy(&replay.stderr);
                assert!(replay.status.success(), "{kind}: {err}");
                assert!(err.contains("settings.toml") && err.contains("not a regular file") && err.contains("using the defaults"), "{kind}: {err}");
                let headless = run(bin().args(["--headless", "--once", "--source"]).arg(demo_dir().join("video.avi")).env("FACEMOUSE_CONFIG_DIR", config.path()));
                let err = String::from_utf8_lossy(&headless.stderr);
                assert!(headless.status.success(), "{kind}: {err}");
                assert!(err.contains("not a regular file") && err.contains("using the defaults"), "{kind}: {err}");
                assert!(!std::fs::symlink_metadata(&settings).expect("left").file_type().is_file(), "{kind}: left as it was");
            });
        }
    });
}

/// Started at login, headless holds the same grace as the window: the demo
/// clip's raise at 4.2 s clicked at 5.0 s, inside the 10 s grace.
#[test]
fn the_grace_after_a_start_at_login_holds_headless_too() {
    let clicks = |autostart: bool| -> Vec<f64> {
        let config = tempfile::tempdir().expect("tempdir");
        let mut c = bin();
        c.args(["--headless", "--once", "--source"]).arg(demo_dir().join("video.avi")).env("FACEMOUSE_CONFIG_DIR", config.path());
        if autostart {
            c.arg("--autostart");
        }
        let out = run(&mut c);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.contains("click_"))
            .filter_map(|l| l.split_whitespace().next()?.parse::<f64>().ok())
            .collect()
    };
    // Both runs side by side (each plays the demo clip in real time).
    let (normal, at_login) = std::thread::scope(|scope| {
        let normal = scope.spawn(|| clicks(false));
        let at_login = clicks(true);
        (normal.join().expect("the run without the grace"), at_login)
    });
    assert!(normal.iter().any(|t| *t < 10.0), "the demo clicks early without the grace: {normal:?}");
    assert!(!at_login.is_empty() && at_login.iter().all(|t| *t >= 10.0), "no click in the first 10 s: {at_login:?}");
}

/// `replay --drive` opens the backend the window and headless open: in a
/// Wayland session that is uinput, not XTest ("DISPLAY must name an X
/// server" was all it said there).
#[test]
fn replay_drive_opens_the_same_backend_as_the_window() {
    let config = tempfile::tempdir().expect("tempdir");
    let out = run(bin()
        .args(["replay", "--drive"])
        .arg(demo_dir().join("video.avi"))
        .env_remove("DISPLAY")
        .env("WAYLAND_DISPLAY", "wayland-facemouse-test")
        .env("XDG_SESSION_TYPE", "wayland")
        .env("XDG_RUNTIME_DIR", config.path())
        .env("FACEMOUSE_CONFIG_DIR", config.path()));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("X server") && !err.contains("DISPLAY"), "{err}");
    if !out.status.success() {
        assert_one_line_error(&out, &["uinput"]);
    }
}
