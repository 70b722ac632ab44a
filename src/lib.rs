//! Facemouse: a hands-free pointer driven by the face.
//!
//! See `ARCHITECTURE.md` for the data flow and which module owns what.

pub mod autostart;
pub mod capture;
pub mod command;
pub mod events;
pub mod face_model;
pub mod fs;
pub mod instance;
pub mod lab;
pub mod menus;
pub mod models;
pub mod output;
pub mod pipeline;
pub mod pointer;
pub mod pose;
pub mod profile;
pub mod replay;
pub mod session;
pub mod settings;
pub mod stats;
pub mod switch;
pub mod trace;
pub mod ui;
pub mod vision;

/// Where the project's own files (assets, models, menus) are found.
///
/// The `FACEMOUSE_DATA_DIR` environment variable wins; then the folder of the
/// running executable and its ancestors (an installed or `target/` build);
/// then the source tree this crate was built from.
#[must_use]
pub fn data_dir() -> std::path::PathBuf {
    if let Some(d) = std::env::var_os("FACEMOUSE_DATA_DIR") {
        return d.into();
    }
    if let Ok(exe) = std::env::current_exe() {
        for dir in exe.ancestors().skip(1) {
            if dir.join("assets").join("demo").is_dir() {
                return dir.to_path_buf();
            }
        }
    }
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The bundled demo clip, shown when there is no camera.
#[must_use]
pub fn demo_clip() -> std::path::PathBuf {
    data_dir().join("assets").join("demo").join("clip").join("video.avi")
}
