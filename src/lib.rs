//! Facemouse: a hands-free pointer driven by the face.
//!
//! See `ARCHITECTURE.md` for the data flow and which module owns what.

pub mod autostart;
pub mod capture;
pub mod command;
pub mod events;
pub mod face_model;
pub mod fs;
pub mod head3d;
pub mod instance;
pub mod lab;
pub mod menus;
pub mod models;
pub mod output;
pub mod pipeline;
pub mod pointer;
pub mod pose;
pub mod predict;
pub mod profile;
pub mod replay;
pub mod session;
pub mod settings;
pub mod speech;
pub mod stats;
pub mod switch;
pub mod trace;
pub mod ui;
pub mod vision;

/// Where the project's own files (assets, models, menus) are found.
///
/// The `FACEMOUSE_DATA_DIR` environment variable wins; then the folder of the
/// running executable and its ancestors (a build in the source tree's
/// `target/`); then `../share/facemouse` beside the executable (installed:
/// `/usr/bin/facemouse` finds `/usr/share/facemouse`); then the source tree
/// this crate was built from.
#[must_use]
pub fn data_dir() -> std::path::PathBuf {
    if let Some(d) = std::env::var_os("FACEMOUSE_DATA_DIR") {
        return d.into();
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| data_dir_for(&exe))
        .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

/// The data folder of an executable at `exe` (see [`data_dir`]), if it has one.
#[must_use]
pub fn data_dir_for(exe: &std::path::Path) -> Option<std::path::PathBuf> {
    let has_data = |dir: &std::path::Path| dir.join("assets").join("demo").is_dir();
    if let Some(dir) = exe.ancestors().skip(1).find(|d| has_data(d)) {
        return Some(dir.to_path_buf());
    }
    let installed = exe.parent()?.parent()?.join("share").join("facemouse");
    has_data(&installed).then_some(installed)
}

/// The bundled demo clip, shown when there is no camera.
#[must_use]
pub fn demo_clip() -> std::path::PathBuf {
    data_dir().join("assets").join("demo").join("clip").join("video.avi")
}

#[cfg(test)]
mod tests {
    use super::data_dir_for;

    #[test]
    fn the_data_is_found_in_the_tree_and_where_the_package_installs_it() {
        let root = tempfile::tempdir().expect("tempdir");
        let r = root.path();
        // A build in the source tree: target/release/facemouse, data at the tree's top.
        std::fs::create_dir_all(r.join("tree/assets/demo")).expect("tree");
        std::fs::create_dir_all(r.join("tree/target/release")).expect("target");
        assert_eq!(data_dir_for(&r.join("tree/target/release/facemouse")), Some(r.join("tree")));
        // Installed: /usr/bin/facemouse and /usr/share/facemouse.
        std::fs::create_dir_all(r.join("usr/bin")).expect("bin");
        assert_eq!(data_dir_for(&r.join("usr/bin/facemouse")), None, "no data installed yet");
        std::fs::create_dir_all(r.join("usr/share/facemouse/assets/demo")).expect("share");
        assert_eq!(data_dir_for(&r.join("usr/bin/facemouse")), Some(r.join("usr/share/facemouse")));
    }
}
