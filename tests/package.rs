//! The installable package (`make deb`): built from this test run's release
//! binary by `scripts/deb.sh` (uncompressed: xz took 10 of its 11 s), validated, unpacked into a temporary root with
//! `dpkg-deb -x`, and the unpacked binary run on the unpacked demo clip. It
//! must find its models under `../share/facemouse` (the pose proves the pose
//! model was found), and nothing of the source tree.
//!
//! Skips with a message when dpkg-deb or dpkg-shlibdeps is missing (`make
//! test` installs dpkg-dev).

use std::path::{Path, PathBuf};
use std::process::Command;

fn have(program: &str, arg: &str) -> bool {
    Command::new(program).arg(arg).output().is_ok_and(|o| o.status.success())
}

/// Builds the package from the binary cargo built for this test run, into `out`.
fn build_deb(out: &Path) -> PathBuf {
    let status = Command::new("scripts/deb.sh")
        .args(["--no-strip", "--uncompressed", "--output"])
        .arg(out)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::null())
        .status()
        .expect("run scripts/deb.sh");
    assert!(status.success(), "scripts/deb.sh failed");
    std::fs::read_dir(out)
        .expect("output folder")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "deb"))
        .expect("a .deb in the output folder")
}

/// The files the package holds, as `dpkg-deb -c` lists them (paths from `./`).
fn contents(deb: &Path) -> Vec<String> {
    let out = Command::new("dpkg-deb").arg("-c").arg(deb).output().expect("dpkg-deb -c");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| l.split_whitespace().last()).map(|p| p.trim_start_matches('.').to_string()).collect()
}

/// Replays the unpacked demo clip with the unpacked binary; returns (frames, tracking, with a pose).
fn replay_unpacked(root: &Path, trace: &Path) -> (usize, usize, usize) {
    let exe = root.join("usr/bin/facemouse");
    let clip = root.join("usr/share/facemouse/assets/demo/clip/video.avi");
    let config = root.join("home-config");
    let out = Command::new(&exe)
        .arg("replay")
        .arg(&clip)
        .arg("--trace")
        .arg(trace)
        .env_remove("FACEMOUSE_DATA_DIR")
        .env_remove("FACEMOUSE_FACE_MODEL")
        .env("XDG_CONFIG_HOME", &config)
        .env("HOME", root)
        .current_dir(root)
        .output()
        .expect("run the unpacked binary");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(trace).expect("trace");
    let mut n = (0, 0, 0);
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("trace line");
        n.0 += 1;
        n.1 += usize::from(v["state"] == "tracking");
        n.2 += usize::from(!v["pose"].is_null());
    }
    n
}

#[test]
fn the_package_installs_a_binary_that_finds_its_models_and_demo() {
    if !have("dpkg-deb", "--version") || !have("dpkg-shlibdeps", "--version") {
        eprintln!("SKIP: dpkg-deb or dpkg-shlibdeps is missing (not a Debian system, or no dpkg-dev: `make test` installs it)");
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let deb = build_deb(&tmp.path().join("out"));

    let files = contents(&deb);
    for want in [
        "/usr/bin/facemouse",
        "/usr/share/facemouse/models/face_detection_yunet_2022mar.onnx",
        "/usr/share/facemouse/models/face_detection_yunet_2022mar.LICENSE",
        "/usr/share/facemouse/models/sma-head-pose.json",
        "/usr/share/facemouse/menus/main.toml",
        "/usr/share/facemouse/menus/keyboard.toml",
        "/usr/share/facemouse/assets/demo/clip/video.avi",
        "/usr/share/facemouse/assets/demo/astronaut.png",
        "/usr/share/facemouse/assets/words/en.tsv",
        "/usr/share/facemouse/assets/words/README.md",
        "/usr/share/applications/io.github.facemouse.Facemouse.desktop",
        "/usr/share/metainfo/io.github.facemouse.Facemouse.metainfo.xml",
        "/usr/share/icons/hicolor/scalable/apps/facemouse.svg",
        "/usr/share/icons/hicolor/48x48/apps/facemouse.png",
        "/usr/share/icons/hicolor/256x256/apps/facemouse.png",
        "/usr/lib/udev/rules.d/70-facemouse-uinput.rules",
        "/usr/lib/modules-load.d/facemouse-uinput.conf",
        "/usr/share/doc/facemouse/copyright",
    ] {
        assert!(files.iter().any(|f| f == want), "{want} is not in the package: {files:?}");
    }
    // Every shipped menu is in it.
    for menu in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("menus")).expect("menus") {
        let name = menu.expect("entry").file_name().to_string_lossy().into_owned();
        assert!(files.iter().any(|f| *f == format!("/usr/share/facemouse/menus/{name}")), "menu {name} is not in the package");
    }

    // The control file: this crate's version, the machine's architecture.
    let field = |name: &str| {
        let out = Command::new("dpkg-deb").arg("-f").arg(&deb).arg(name).output().expect("dpkg-deb -f");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    assert_eq!(field("Package"), "facemouse");
    assert_eq!(field("Version"), format!("{}-1", env!("CARGO_PKG_VERSION")));
    let arch = Command::new("dpkg").arg("--print-architecture").output().expect("dpkg --print-architecture");
    assert_eq!(field("Architecture"), String::from_utf8_lossy(&arch.stdout).trim());

    // The runtime dependencies are declared: OpenCV (found from the binary), and the eye cascade and window libraries it loads.
    let depends = field("Depends");
    for want in ["libopencv-core", "libopencv-videoio", "opencv-data", "libgl1", "libxkbcommon-x11-0", "libwayland-client0"] {
        assert!(depends.contains(want), "Depends lacks {want}: {depends}");
    }

    // The udev rule gives the seat's user /dev/uinput (for Wayland), and the install makes it usable at once.
    let info = Command::new("dpkg-deb").arg("-I").arg(&deb).arg("postinst").output().expect("postinst");
    let postinst = String::from_utf8_lossy(&info.stdout);
    assert!(postinst.contains("modprobe uinput") && postinst.contains("udevadm"), "{postinst}");

    let root = tmp.path().join("root");
    let status = Command::new("dpkg-deb").arg("-x").arg(&deb).arg(&root).status().expect("dpkg-deb -x");
    assert!(status.success());

    // Every file is as the package's md5sums says.
    let control = tmp.path().join("control");
    assert!(Command::new("dpkg-deb").arg("-e").arg(&deb).arg(&control).status().expect("dpkg-deb -e").success());
    let check = Command::new("md5sum").args(["--check", "--quiet"]).arg(control.join("md5sums")).current_dir(&root).output().expect("md5sum");
    assert!(check.status.success(), "md5sums: {}", String::from_utf8_lossy(&check.stdout));
    let listed = std::fs::read_to_string(control.join("md5sums")).expect("md5sums").lines().count();
    assert_eq!(listed, files.iter().filter(|f| root.join(f.trim_start_matches('/')).is_file()).count(), "md5sums lists every file");

    let rule = std::fs::read_to_string(root.join("usr/lib/udev/rules.d/70-facemouse-uinput.rules")).expect("udev rule");
    assert!(rule.lines().any(|l| !l.starts_with('#') && l.contains("KERNEL==\"uinput\"") && l.contains("TAG+=\"uaccess\"")), "{rule}");

    // The launcher and the metainfo pass their validators, where those are installed.
    if have("desktop-file-validate", "--help") {
        let out = Command::new("desktop-file-validate").arg(root.join("usr/share/applications/io.github.facemouse.Facemouse.desktop")).output().expect("validate");
        assert!(out.status.success() && out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    } else {
        eprintln!("desktop-file-validate is missing: the launcher was not validated");
    }
    if have("appstreamcli", "--version") {
        let out = Command::new("appstreamcli")
            .args(["validate", "--no-net"])
            .arg(root.join("usr/share/metainfo/io.github.facemouse.Facemouse.metainfo.xml"))
            .output()
            .expect("validate");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    } else {
        eprintln!("appstreamcli is missing: the metainfo was not validated");
    }

    // The unpacked binary on the unpacked demo: it tracks, and has a pose (the pose model was found).
    let (frames, tracking, posed) = replay_unpacked(&root, &tmp.path().join("trace.jsonl"));
    assert!(frames >= 400, "{frames} frames");
    assert!(tracking * 10 >= frames * 9, "tracking on {tracking} of {frames} frames");
    assert!(posed * 10 >= frames * 9, "a pose on {posed} of {frames} frames");

    // And it is the unpacked models it uses, not the source tree's: without them, no pose.
    std::fs::rename(root.join("usr/share/facemouse/models"), root.join("models-moved")).expect("move the models away");
    let (_, _, posed) = replay_unpacked(&root, &tmp.path().join("trace-without-models.jsonl"));
    assert_eq!(posed, 0, "a pose without the unpacked pose model: the binary found another copy");
}
