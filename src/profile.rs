//! Per-user profiles: a folder per user in the OS config directory.
//!
//! `<config>/profiles/<NAME>/settings.toml` holds one table per stage. The file
//! is lenient about what it leaves out (every field has a default) and strict
//! about what it says (unknown fields and bad values are errors that name the
//! file, line and field). A profile that does not exist yet runs on defaults.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::pointer::PointerSettings;
use crate::switch::SwitchSettings;
use crate::vision::VisionSettings;

/// The environment variable that moves the config directory (tests, portable installs).
pub const CONFIG_DIR_ENV: &str = "FACEMOUSE_CONFIG_DIR";

/// The profile used when none is named.
pub const DEFAULT_PROFILE: &str = "default";

/// Everything a profile sets.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    pub vision: VisionSettings,
    pub pointer: PointerSettings,
    pub switch: SwitchSettings,
}

/// Profile failures.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("invalid profile name {0:?} (use letters, digits, '-' and '_')")]
    BadName(String),
    #[error("no config directory on this system; set {CONFIG_DIR_ENV} to a writable folder")]
    NoConfigDir,
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {message} (fix or delete the file; defaults are used when it is absent)")]
    Parse { path: PathBuf, message: String },
}

/// A loaded profile.
#[derive(Debug, Clone)]
pub struct Profile {
    pub name: String,
    pub dir: PathBuf,
    pub settings: Settings,
    /// Whether `settings.toml` existed (otherwise these are the defaults).
    pub from_file: bool,
}

/// The folder that holds the profiles.
///
/// # Errors
/// When the system has no config directory and the override is not set.
pub fn config_root() -> Result<PathBuf, ProfileError> {
    if let Some(dir) = std::env::var_os(CONFIG_DIR_ENV) {
        return Ok(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("org", "Facemouse", "facemouse")
        .map(|d| d.config_dir().to_path_buf())
        .ok_or(ProfileError::NoConfigDir)
}

fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= 64 && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Parses settings text; errors name the file, the line and the field.
///
/// # Errors
/// [`ProfileError::Parse`].
pub fn parse_settings(path: &Path, text: &str) -> Result<Settings, ProfileError> {
    toml::from_str(text).map_err(|e| {
        let msg = e.message().trim().to_string();
        let message = match e.span() {
            Some(span) => {
                let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                match field_at(text, line) {
                    Some(field) if !msg.contains(&field) => format!("line {line}, field `{field}`: {msg}"),
                    _ => format!("line {line}: {msg}"),
                }
            }
            None => msg,
        };
        ProfileError::Parse { path: path.to_path_buf(), message }
    })
}

/// The dotted name (`table.key`) of the key assigned on 1-based `line`, if any.
fn field_at(text: &str, line: usize) -> Option<String> {
    let mut table = String::new();
    for (i, l) in text.lines().enumerate() {
        let t = l.trim();
        if i + 1 == line {
            let key = t.split_once('=')?.0.trim();
            return Some(if table.is_empty() { key.to_string() } else { format!("{table}.{key}") });
        }
        if t.starts_with('[') {
            table = t.trim_matches(|c| c == '[' || c == ']').trim().to_string();
        }
    }
    None
}

/// Loads profile `name` from `root`.
///
/// # Errors
/// A bad name, or a settings file that cannot be read or parsed.
pub fn load_from(root: &Path, name: &str) -> Result<Profile, ProfileError> {
    if !valid_name(name) {
        return Err(ProfileError::BadName(name.to_string()));
    }
    let dir = root.join("profiles").join(name);
    let path = dir.join("settings.toml");
    if !path.exists() {
        return Ok(Profile { name: name.to_string(), dir, settings: Settings::default(), from_file: false });
    }
    let text = std::fs::read_to_string(&path).map_err(|source| ProfileError::Read { path: path.clone(), source })?;
    let settings = parse_settings(&path, &text)?;
    Ok(Profile { name: name.to_string(), dir, settings, from_file: true })
}

/// Loads profile `name` from the config directory.
///
/// # Errors
/// See [`load_from`] and [`config_root`].
pub fn load(name: &str) -> Result<Profile, ProfileError> {
    load_from(&config_root()?, name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, name: &str, text: &str) {
        let d = root.join("profiles").join(name);
        std::fs::create_dir_all(&d).expect("mkdir");
        std::fs::write(d.join("settings.toml"), text).expect("write");
    }

    #[test]
    fn a_missing_profile_runs_on_defaults() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = load_from(dir.path(), "alice").expect("load");
        assert!(!p.from_file);
        assert_eq!(p.settings, Settings::default());
    }

    #[test]
    fn partial_settings_keep_other_defaults() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(dir.path(), "bob", "[pointer]\nscreen_width = 1280\n");
        let p = load_from(dir.path(), "bob").expect("load");
        assert!(p.from_file);
        assert_eq!(p.settings.pointer.screen_width, 1280);
        assert_eq!(p.settings.pointer.screen_height, PointerSettings::default().screen_height);
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(dir.path(), "carol", "[pointer]\nscreen_width = 1280\nscren_height = 3\n");
        let msg = load_from(dir.path(), "carol").expect_err("unknown field").to_string();
        assert!(msg.contains("settings.toml"), "{msg}");
        assert!(msg.contains("line 3"), "{msg}");
        assert!(msg.contains("scren_height"), "{msg}");

        write(dir.path(), "dave", "[pointer\n");
        let msg = load_from(dir.path(), "dave").expect_err("corrupt").to_string();
        assert!(msg.contains("line 1"), "{msg}");
    }

    #[test]
    fn the_pointer_feature_can_be_chosen() {
        use crate::vision::FeaturePoint;
        let p = Path::new("settings.toml");
        let s = parse_settings(p, "[vision]\nfeature = \"nose_tip\"\n").expect("nose tip");
        assert_eq!(s.vision.feature, FeaturePoint::NoseTip);
        let s = parse_settings(p, "[vision]\nfeature = { picked = { dx = 0.1, dy = 0.5 } }\n").expect("picked");
        assert_eq!(s.vision.feature, FeaturePoint::Picked { dx: 0.1, dy: 0.5 });
    }

    #[test]
    fn bad_names_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(matches!(load_from(dir.path(), "../etc"), Err(ProfileError::BadName(_))));
    }
}
