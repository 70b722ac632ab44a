//! Per-user profiles: a folder per user in the OS config directory.
//!
//! `<config>/profiles/<NAME>/settings.toml` holds one table per stage. The file
//! is lenient about what it leaves out (every field has a default) and strict
//! about what it says (unknown fields and bad values are errors that name the
//! file, line and field). A profile that does not exist yet runs on defaults.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The environment variable that moves the config directory (tests, portable installs).
pub const CONFIG_DIR_ENV: &str = "FACEMOUSE_CONFIG_DIR";

/// The profile used when none is named.
pub const DEFAULT_PROFILE: &str = "default";

pub use crate::settings::Settings;

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
    #[error("cannot write {path}: {source} (check that the folder exists, is writable and the disk is not full)")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {message} (fix or delete the file; defaults are used when it is absent)")]
    Parse { path: PathBuf, message: String },
    /// A profile file that is not a regular file, or far too large (why, in
    /// words, naming it): the caller may run on the defaults.
    #[error("{0}")]
    Unusable(String),
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

/// The longest a profile's name may be.
const NAME_MAX: usize = 64;

/// Whether `name` can name a profile (a folder name that stays in the config folder).
#[must_use]
pub fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= NAME_MAX && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Parses settings text; errors name the file, the line and the field.
///
/// # Errors
/// [`ProfileError::Parse`].
pub fn parse_settings(path: &Path, text: &str) -> Result<Settings, ProfileError> {
    let settings: Settings = toml::from_str(text).map_err(|e| {
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
    })?;
    if let Err((field, why)) = settings.validate() {
        let (table, key) = field.split_once('.').unwrap_or(("", field.as_str()));
        let line = line_of(text, table, key);
        let at = line.map_or_else(String::new, |l| format!("line {l}, "));
        return Err(ProfileError::Parse { path: path.to_path_buf(), message: format!("{at}field `{field}`: {why}") });
    }
    Ok(settings)
}

/// Every `key = …` line of a TOML text: (1-based line, table, key).
fn assignments(text: &str) -> impl Iterator<Item = (usize, String, &str)> {
    let mut table = String::new();
    text.lines().enumerate().filter_map(move |(i, l)| {
        let t = l.trim();
        if t.starts_with('[') {
            table = t.trim_matches(|c| c == '[' || c == ']').trim().to_string();
            return None;
        }
        t.split_once('=').map(|(k, _)| (i + 1, table.clone(), k.trim()))
    })
}

/// The 1-based line where `key` is set inside `[table]`.
fn line_of(text: &str, table: &str, key: &str) -> Option<usize> {
    assignments(text).find(|(_, t, k)| t == table && *k == key).map(|(l, _, _)| l)
}

/// The shipped default profile (settings, menus, calibration) a new profile is copied from.
#[must_use]
pub fn shipped_defaults() -> PathBuf {
    crate::data_dir()
}

/// What the calibration wizard records (`calibration.toml` in the profile).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Calibration {
    pub mapping: crate::pointer::Mapping,
    pub range: crate::pointer::Range,
    pub brow_on: f64,
    pub brow_off: f64,
}

impl Calibration {
    /// The calibration in `s`.
    #[must_use]
    pub fn of(s: &Settings) -> Self {
        Self { mapping: s.pointer.mapping, range: s.pointer.range, brow_on: s.vision.brow_on, brow_off: s.vision.brow_off }
    }

    /// Applies it onto `s`.
    pub fn apply(&self, s: &mut Settings) {
        s.pointer.mapping = self.mapping;
        s.pointer.range = self.range;
        s.vision.brow_on = self.brow_on;
        s.vision.brow_off = self.brow_off;
    }

    /// Writes `calibration.toml` in `dir` atomically.
    ///
    /// # Errors
    /// A folder that cannot be written.
    pub fn save(&self, dir: &Path) -> Result<(), ProfileError> {
        let path = dir.join("calibration.toml");
        let text = toml::to_string_pretty(self).map_err(|e| ProfileError::Parse { path: path.clone(), message: e.to_string() })?;
        write_atomic(&path, &text)
    }
}

/// What [`open_from`] had to do.
#[derive(Debug, Clone, Default)]
pub struct OpenNotes {
    /// The profile was created from the shipped defaults.
    pub created: bool,
    /// Files that could not be read, kept beside as `.bak`, and why (the user is told).
    pub recovered: Vec<String>,
    /// Why nothing of this profile may be saved, when so: its folder cannot
    /// be written (read-only, a full disk), or a file of it is not a regular
    /// file. The window then runs read-only and shows this in a banner.
    pub read_only: Option<String>,
}

/// Opens profile `name` for the app: creates it from the shipped defaults if
/// new; a settings file that does not parse or validate is never overwritten:
/// it is moved aside to `settings.toml.bak`, the defaults are used, and the
/// notes say so.
///
/// # Errors
/// A bad name, or a config folder that cannot be written.
pub fn open_from(root: &Path, name: &str) -> Result<(Profile, OpenNotes), ProfileError> {
    open_with(root, name, true)
}

/// Opens profile `name` as [`open_from`] does, but writes nothing: for a
/// window whose profile another window has open (and may save). A new
/// profile gets the defaults in memory; a broken file is reported, left
/// where it is, and the defaults are used.
///
/// # Errors
/// A bad name, or a file that exists but cannot be read.
pub fn open_read_only(root: &Path, name: &str) -> Result<(Profile, OpenNotes), ProfileError> {
    open_with(root, name, false)
}

fn open_with(root: &Path, name: &str, may_write: bool) -> Result<(Profile, OpenNotes), ProfileError> {
    if !valid_name(name) {
        return Err(ProfileError::BadName(name.to_string()));
    }
    let dir = root.join("profiles").join(name);
    let mut notes = OpenNotes::default();
    let mut may_write = may_write;
    // A folder that cannot be written: the defaults, read-only, and the user is told why.
    let unwritable = |notes: &mut OpenNotes, may_write: &mut bool, e: &dyn std::fmt::Display| {
        notes.read_only.get_or_insert_with(|| format!("{e}; running read-only: no change will be saved"));
        *may_write = false;
    };
    if may_write && std::fs::symlink_metadata(&dir).is_err() {
        match create_new_profile(&dir) {
            Ok(()) => notes.created = true,
            Err(e) => unwritable(&mut notes, &mut may_write, &e),
        }
    }
    let path = dir.join("settings.toml");
    let mut settings = Settings::default();
    let mut from_file = false;
    match read_text(&path)? {
        Text::Missing => {}
        Text::Unusable(why) => {
            // Not a regular file (a folder, a pipe, a device) or far too
            // large: left exactly as it is, and never saved over.
            notes.recovered.push(format!("{why}; using the defaults"));
            notes.read_only.get_or_insert_with(|| format!("{} is not a settings file; running read-only: no change will be saved", path.display()));
            may_write = false;
        }
        Text::Read(text) => {
            from_file = true;
            match text.map_err(|why| ProfileError::Parse { path: path.clone(), message: why }).and_then(|t| parse_settings(&path, &t)) {
                Ok(s) => settings = s,
                Err(e) if !may_write => notes.recovered.push(format!("{e}; using the defaults")),
                Err(e) => {
                    let bak = backup_path(&path);
                    match std::fs::rename(&path, &bak) {
                        Ok(()) => notes.recovered.push(format!("{e}; kept as {} and using the defaults", bak.display())),
                        Err(err) => {
                            notes.recovered.push(format!("{e}; using the defaults"));
                            unwritable(&mut notes, &mut may_write, &ProfileError::Write { path: bak, source: err });
                        }
                    }
                }
            }
        }
    }
    let cal_path = dir.join("calibration.toml");
    let cal_text = match read_text(&cal_path)? {
        Text::Missing => None,
        Text::Unusable(why) => Some(Err(why)),
        Text::Read(text) => Some(text),
    };
    if let Some(text) = cal_text {
        let parsed = text.and_then(|text| toml::from_str::<Calibration>(&text).map_err(|e| e.message().to_string())).and_then(|c| {
            let mut s = settings.clone();
            c.apply(&mut s);
            s.validate().map(|()| s).map_err(|(f, why)| format!("field `{f}`: {why}"))
        });
        match parsed {
            Ok(s) => settings = s,
            Err(why) if !may_write || !std::fs::symlink_metadata(&cal_path).is_ok_and(|m| m.is_file()) => {
                notes.recovered.push(format!("{}: {why}; not used", cal_path.display()));
            }
            Err(why) => {
                let bak = backup_path(&cal_path);
                match std::fs::rename(&cal_path, &bak) {
                    Ok(()) => notes.recovered.push(format!("{}: {why}; kept as {} and not used", cal_path.display(), bak.display())),
                    Err(err) => {
                        notes.recovered.push(format!("{}: {why}; not used", cal_path.display()));
                        unwritable(&mut notes, &mut may_write, &ProfileError::Write { path: bak, source: err });
                    }
                }
            }
        }
    }
    Ok((Profile { name: name.to_string(), dir, settings, from_file }, notes))
}

/// Builds a new profile at `dir` from the shipped defaults: whole in a
/// temporary folder beside it, then renamed into place, so that a full disk
/// or a failure half way leaves no profile at all rather than a broken one
/// (a menu file of 0 bytes that would never be repaired).
fn create_new_profile(dir: &Path) -> Result<(), ProfileError> {
    let write = |path: &Path, e: std::io::Error| ProfileError::Write { path: path.to_path_buf(), source: e };
    let parent = dir.parent().unwrap_or(dir);
    std::fs::create_dir_all(parent).map_err(|e| write(parent, e))?;
    let name = dir.file_name().map_or_else(|| "profile".into(), |n| n.to_string_lossy().to_string());
    let tmp = parent.join(format!(".{name}.new-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let built = (|| {
        std::fs::create_dir_all(tmp.join("menus")).map_err(|e| write(&tmp, e))?;
        if let Ok(entries) = std::fs::read_dir(shipped_defaults().join("menus")) {
            for e in entries.filter_map(Result::ok) {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "toml")
                    && let Some(file) = p.file_name()
                {
                    let to = tmp.join("menus").join(file);
                    let bytes = std::fs::read(&p).map_err(|e| ProfileError::Read { path: p.clone(), source: e })?;
                    crate::fs::write_atomic(&to, &bytes).map_err(|e| write(&to, e))?;
                }
            }
        }
        save_settings(&tmp.join("settings.toml"), &Settings::default())?;
        std::fs::rename(&tmp, dir).map_err(|e| write(dir, e))
    })();
    if built.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    built
}

/// Makes profile `to` as a copy of profile `from` under `root`: its
/// settings, calibration and menus (each file written atomically). A
/// profile of that name that exists already is never written over.
///
/// # Errors
/// A bad name, `to` exists, or a file that cannot be read or written.
pub fn copy(root: &Path, from: &str, to: &str) -> Result<PathBuf, ProfileError> {
    for n in [from, to] {
        if !valid_name(n) {
            return Err(ProfileError::BadName(n.to_string()));
        }
    }
    let (src, dst) = (root.join("profiles").join(from), root.join("profiles").join(to));
    let exists = std::io::Error::new(std::io::ErrorKind::AlreadyExists, "a profile of that name exists");
    if dst.exists() {
        return Err(ProfileError::Write { path: dst, source: exists });
    }
    let read = |path: &Path, e: std::io::Error| ProfileError::Read { path: path.to_path_buf(), source: e };
    let write = |path: &Path, e: std::io::Error| ProfileError::Write { path: path.to_path_buf(), source: e };
    std::fs::create_dir_all(dst.join("menus")).map_err(|e| write(&dst, e))?;
    let mut files: Vec<(PathBuf, PathBuf)> = ["settings.toml", "calibration.toml"].iter().map(|f| (src.join(f), dst.join(f))).collect();
    if let Ok(entries) = std::fs::read_dir(src.join("menus")) {
        for e in entries.filter_map(Result::ok) {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "toml")
                && let Some(name) = p.file_name()
            {
                files.push((p.clone(), dst.join("menus").join(name)));
            }
        }
    }
    for (from_file, to_file) in files {
        // Read as every profile file is (a pipe would hang the copy): a file
        // that is not a regular one, or far too large, is not copied, and
        // the copy runs on the defaults there, as the original does.
        match crate::fs::read_regular(&from_file, crate::fs::PROFILE_FILE_LIMIT) {
            Ok(Some(bytes)) => crate::fs::write_atomic(&to_file, &bytes).map_err(|e| write(&to_file, e))?,
            Ok(None) | Err(crate::fs::ReadError::NotAFile { .. } | crate::fs::ReadError::TooLarge { .. }) => {}
            Err(crate::fs::ReadError::Io { source, .. }) => return Err(read(&from_file, source)),
        }
    }
    Ok(dst)
}

/// Renames profile `from` to `to` under `root` (one rename of its folder:
/// all or nothing). The caller makes sure no window has `from` open.
///
/// # Errors
/// A bad name, no profile `from`, a profile `to` that exists (never written
/// over), or a folder that cannot be renamed.
pub fn rename(root: &Path, from: &str, to: &str) -> Result<PathBuf, ProfileError> {
    for n in [from, to] {
        if !valid_name(n) {
            return Err(ProfileError::BadName(n.to_string()));
        }
    }
    let (src, dst) = (root.join("profiles").join(from), root.join("profiles").join(to));
    if !src.is_dir() {
        return Err(ProfileError::Read { path: src, source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such profile") });
    }
    if dst.exists() {
        return Err(ProfileError::Write { path: dst, source: std::io::Error::new(std::io::ErrorKind::AlreadyExists, "a profile of that name exists") });
    }
    let was_last = last_used(root).as_deref() == Some(from);
    std::fs::rename(&src, &dst).map_err(|source| ProfileError::Write { path: dst.clone(), source })?;
    if was_last {
        let _ = remember_last(root, to);
    }
    Ok(dst)
}

/// Where deleted profiles are kept, under the config folder.
pub const DELETED_DIR: &str = "deleted-profiles";

/// Deletes profile `name` under `root`, keeping it: its folder moves to
/// `deleted-profiles/NAME-SECONDS` (seconds since 1970), where it can be
/// moved back by hand. The caller makes sure no window has it open.
///
/// # Errors
/// A bad name, no such profile, or a folder that cannot be moved.
pub fn delete(root: &Path, name: &str) -> Result<PathBuf, ProfileError> {
    if !valid_name(name) {
        return Err(ProfileError::BadName(name.to_string()));
    }
    let src = root.join("profiles").join(name);
    if !src.is_dir() {
        return Err(ProfileError::Read { path: src, source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such profile") });
    }
    let bin = root.join(DELETED_DIR);
    std::fs::create_dir_all(&bin).map_err(|source| ProfileError::Write { path: bin.clone(), source })?;
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let dst = (0..1000).map(|k| bin.join(if k == 0 { format!("{name}-{secs}") } else { format!("{name}-{secs}-{k}") })).find(|p| !p.exists()).unwrap_or_else(|| bin.join(format!("{name}-{secs}-last")));
    std::fs::rename(&src, &dst).map_err(|source| ProfileError::Write { path: dst.clone(), source })?;
    Ok(dst)
}

/// The file under the config folder that names the profile used last.
const LAST_PROFILE: &str = "last-profile";

/// The profile the window used last (for a start at login), if it still exists.
#[must_use]
pub fn last_used(root: &Path) -> Option<String> {
    let bytes = crate::fs::read_regular(&root.join(LAST_PROFILE), 4096).ok()??;
    let name = String::from_utf8(bytes).ok()?.trim().to_string();
    (valid_name(&name) && root.join("profiles").join(&name).is_dir()).then_some(name)
}

/// Remembers `name` as the profile used last (atomically).
///
/// # Errors
/// The config folder cannot be written.
pub fn remember_last(root: &Path, name: &str) -> Result<(), ProfileError> {
    let path = root.join(LAST_PROFILE);
    crate::fs::write_atomic(&path, format!("{name}\n").as_bytes()).map_err(|source| ProfileError::Write { path, source })
}

/// The first name `stem-2`, `stem-3`, … that no profile under `root` has
/// (past `stem-9999`, a name of the time: `stem-t…`), the stem cut short
/// where the whole would be longer than a name may be ([`valid_name`]).
#[must_use]
pub fn free_name(root: &Path, stem: &str) -> String {
    let named = |suffix: &str| {
        // A valid stem is ASCII: any cut is at a character's edge.
        let keep = stem.len().min(NAME_MAX.saturating_sub(suffix.len() + 1));
        format!("{}-{suffix}", stem.get(..keep).unwrap_or(stem))
    };
    crate::fs::first_free(2, named, |n| !root.join("profiles").join(n).exists())
}

/// The profiles that exist under `root`, by name.
#[must_use]
pub fn list(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root.join("profiles"))
        .map(|d| d.filter_map(Result::ok).filter(|e| e.path().is_dir()).map(|e| e.file_name().to_string_lossy().to_string()).filter(|n| valid_name(n)).collect())
        .unwrap_or_default();
    names.sort();
    names
}

/// A profile file, as far as it could be read.
enum Text {
    /// There is none.
    Missing,
    /// It is there but cannot be used as it stands: not a regular file, or
    /// far too large (why, in words); it is left exactly as it is.
    Unusable(String),
    /// Its text, or why it is not UTF-8 text (a parse failure: the file is
    /// kept, never overwritten).
    Read(Result<String, String>),
}

/// Reads a profile file: only a regular file, opened without blocking, of
/// at most [`crate::fs::PROFILE_FILE_LIMIT`] bytes.
///
/// # Errors
/// A file that exists but cannot be read (permissions).
fn read_text(path: &Path) -> Result<Text, ProfileError> {
    match crate::fs::read_regular(path, crate::fs::PROFILE_FILE_LIMIT) {
        Ok(None) => Ok(Text::Missing),
        Ok(Some(bytes)) => Ok(Text::Read(String::from_utf8(bytes).map_err(|e| {
            format!("not UTF-8 text (byte {} is not valid UTF-8; save the file as UTF-8)", e.utf8_error().valid_up_to() + 1)
        }))),
        Err(crate::fs::ReadError::Io { path, source }) => Err(ProfileError::Read { path, source }),
        Err(e) => Ok(Text::Unusable(e.to_string())),
    }
}

pub(crate) use crate::fs::backup_path;

/// Writes settings atomically: a temporary file beside it, then a rename.
///
/// # Errors
/// A folder that cannot be written.
pub fn save_settings(path: &Path, settings: &Settings) -> Result<(), ProfileError> {
    let text = toml::to_string_pretty(settings).map_err(|e| ProfileError::Parse { path: path.to_path_buf(), message: e.to_string() })?;
    write_atomic(path, &text)
}

/// Writes `text` to `path` atomically (see [`crate::fs::write_atomic`]).
///
/// # Errors
/// [`ProfileError::Write`]: a folder that cannot be written.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), ProfileError> {
    crate::fs::write_atomic(path, text.as_bytes()).map_err(|source| ProfileError::Write { path: path.to_path_buf(), source })
}

/// The dotted name (`table.key`) of the key assigned on 1-based `line`, if any.
fn field_at(text: &str, line: usize) -> Option<String> {
    assignments(text)
        .find(|(l, _, _)| *l == line)
        .map(|(_, table, key)| if table.is_empty() { key.to_string() } else { format!("{table}.{key}") })
}

/// Loads profile `name` from `root`.
///
/// # Errors
/// A bad name, or a settings file that cannot be read or parsed
/// ([`ProfileError::Unusable`] when it is not a regular file, or far too large).
pub fn load_from(root: &Path, name: &str) -> Result<Profile, ProfileError> {
    if !valid_name(name) {
        return Err(ProfileError::BadName(name.to_string()));
    }
    let dir = root.join("profiles").join(name);
    let path = dir.join("settings.toml");
    let text = match read_text(&path)? {
        Text::Missing => return Ok(Profile { name: name.to_string(), dir, settings: Settings::default(), from_file: false }),
        Text::Unusable(why) => return Err(ProfileError::Unusable(why)),
        Text::Read(text) => text.map_err(|message| ProfileError::Parse { path: path.clone(), message })?,
    };
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

    #[test]
    fn a_profile_is_renamed_whole_and_never_over_another() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(root, "default-2", "[pointer]\ndwell_ms = 1500\n");
        write(root, "bob", "");
        remember_last(root, "default-2").expect("last");
        rename(root, "default-2", "alice").expect("rename");
        assert_eq!(list(root), vec!["alice".to_string(), "bob".to_string()]);
        assert!((load_from(root, "alice").expect("load").settings.pointer.dwell_ms - 1500.0).abs() < 1e-9, "its settings came along");
        assert_eq!(last_used(root).as_deref(), Some("alice"), "the last-used name follows");
        assert!(rename(root, "alice", "bob").is_err(), "never over another profile");
        assert!(rename(root, "alice", "no good").is_err(), "a bad name");
        assert!(rename(root, "carol", "dave").is_err(), "no such profile");
        assert!(root.join("profiles/alice/settings.toml").is_file());
    }

    #[test]
    fn a_deleted_profile_is_kept_aside_not_lost() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(root, "alice", "[pointer]\ndwell_ms = 1500\n");
        let kept = delete(root, "alice").expect("delete");
        assert!(list(root).is_empty(), "gone from the list");
        assert!(kept.starts_with(root.join(DELETED_DIR)) && kept.join("settings.toml").is_file(), "kept at {}", kept.display());
        assert!(delete(root, "alice").is_err(), "no such profile any more");
    }

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
        assert_eq!(p.settings.pointer.screen_height, crate::settings::PointerSettings::default().screen_height);
    }

    #[test]
    fn a_monitor_and_the_next_monitor_gesture_are_profile_settings() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(dir.path(), "erin", "[pointer]\nmapping = \"absolute\"\nmonitor = 2\n[switch]\nwink_left = \"next_monitor\"\n");
        let p = load_from(dir.path(), "erin").expect("load");
        assert_eq!(p.settings.pointer.monitor, 2);
        assert_eq!(p.settings.switch.wink_left, crate::settings::Action::NextMonitor);
        write(dir.path(), "fred", "[pointer]\nmonitor = 17\n");
        let msg = load_from(dir.path(), "fred").expect_err("out of range").to_string();
        assert!(msg.contains("pointer.monitor"), "{msg}");
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

    /// Values that parse but cannot work are refused, naming the field: a
    /// pointer at (0,0) clicking there, a window that panics at every start,
    /// a key that fails at the first raise.
    #[test]
    fn values_that_cannot_work_are_refused_with_their_field() {
        let p = Path::new("settings.toml");
        for (text, field) in [
            ("[pointer]\nrange = { left = -inf, right = inf, top = -1.0, bottom = 1.0 }\n", "pointer.range.left"),
            ("[pointer]\nrange = { left = -1.0, right = 1.0, top = -1.0, bottom = nan }\n", "pointer.range.bottom"),
            ("[pointer]\nrange = { left = -1e9, right = 1e9, top = -1.0, bottom = 1.0 }\n", "pointer.range"),
            ("[pointer]\nmax_speed = inf\n", "pointer.max_speed"),
            ("[vision]\nfeature = { picked = { dx = nan, dy = nan } }\n", "vision.feature.picked.dx"),
            ("[vision]\nfeature = { picked = { dx = 40.0, dy = 0.0 } }\n", "vision.feature"),
            ("[ui]\nzoom = nan\n", "ui.zoom"),
            ("[ui]\nzoom = 50.0\n", "ui.zoom"),
            ("[ui]\nmenu_columns = 0\n", "ui.menu_columns"),
            ("[switch]\nbrow_raise = { key = \"ctrl+nosuchkey\" }\n", "switch.brow_raise"),
            ("[switch]\nscroll_px_per_step = inf\n", "switch.scroll_px_per_step"),
        ] {
            let msg = parse_settings(p, text).expect_err(text).to_string();
            assert!(msg.contains(&format!("`{field}`")), "{text} -> {msg}");
        }
        let ok = "[switch]\nbrow_raise = { key = \"ctrl+shift+t\" }\n[ui]\nzoom = 2.0\n";
        assert!(parse_settings(p, ok).is_ok(), "{:?}", parse_settings(p, ok));
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
    fn out_of_range_values_name_the_file_line_and_field() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(dir.path(), "erin", "[pointer]\ndead_band = 0.0\ndwell_ms = 50\n");
        let msg = load_from(dir.path(), "erin").expect_err("out of range").to_string();
        assert!(msg.contains("settings.toml") && msg.contains("line 3") && msg.contains("pointer.dwell_ms"), "{msg}");
    }

    #[test]
    fn a_new_profile_is_made_from_the_shipped_defaults() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (p, notes) = open_from(dir.path(), "fay").expect("open");
        assert!(notes.created && notes.recovered.is_empty());
        assert_eq!(p.settings, Settings::default());
        let text = std::fs::read_to_string(p.dir.join("settings.toml")).expect("written");
        assert_eq!(parse_settings(Path::new("x"), &text).expect("parses"), Settings::default());
        assert!(p.dir.join("menus").read_dir().expect("menus").count() >= 1, "the default menus are copied");
    }

    #[test]
    fn a_broken_settings_file_is_kept_as_bak_and_defaults_are_used() {
        let dir = tempfile::tempdir().expect("tempdir");
        for (name, text) in [("gus", "[pointer\n"), ("hal", "[pointer]\nwobble = 1\n"), ("ivy", "[switch]\ncooldown_ms = -5\n")] {
            write(dir.path(), name, text);
            let (p, notes) = open_from(dir.path(), name).expect("open");
            assert_eq!(p.settings, Settings::default());
            assert_eq!(notes.recovered.len(), 1, "{notes:?}");
            assert!(notes.recovered[0].contains("settings.toml.bak"), "{notes:?}");
            let kept = std::fs::read_to_string(p.dir.join("settings.toml.bak")).expect("the original is kept");
            assert_eq!(kept, text);
        }
        // A second failure does not overwrite the first backup.
        write(dir.path(), "gus", "also broken [");
        let (p, _) = open_from(dir.path(), "gus").expect("open");
        assert_eq!(std::fs::read_to_string(p.dir.join("settings.toml.bak")).expect("first"), "[pointer\n");
        assert!(p.dir.join("settings.toml.bak.2").exists());
    }

    #[test]
    fn the_profile_used_last_is_remembered_while_it_exists() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert_eq!(last_used(dir.path()), None);
        open_from(dir.path(), "bea").expect("open");
        remember_last(dir.path(), "bea").expect("remember");
        assert_eq!(last_used(dir.path()).as_deref(), Some("bea"));
        std::fs::remove_dir_all(dir.path().join("profiles/bea")).expect("remove");
        assert_eq!(last_used(dir.path()), None, "a profile that is gone is not used");
    }

    #[test]
    fn a_profile_is_copied_whole_and_never_over_another() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (p, _) = open_from(dir.path(), "ann").expect("open");
        let mut s = p.settings.clone();
        s.ui.zoom = 2.0;
        save_settings(&p.dir.join("settings.toml"), &s).expect("save");
        let name = free_name(dir.path(), "ann");
        assert_eq!(name, "ann-2");
        copy(dir.path(), "ann", &name).expect("copy");
        let (q, notes) = open_from(dir.path(), &name).expect("open the copy");
        assert!(notes.recovered.is_empty() && !notes.created);
        assert!((q.settings.ui.zoom - 2.0).abs() < 1e-6, "the settings came along");
        assert_eq!(std::fs::read_dir(q.dir.join("menus")).expect("menus").count(), std::fs::read_dir(p.dir.join("menus")).expect("menus").count());
        assert!(copy(dir.path(), "ann", &name).is_err(), "an existing profile is never written over");
        assert_eq!(free_name(dir.path(), "ann"), "ann-3");
        // A name as long as a name may be gives a copy that is a name too.
        let long = "a".repeat(NAME_MAX);
        let (p, _) = open_from(dir.path(), &long).expect("open");
        let copied = free_name(dir.path(), &long);
        assert!(valid_name(&copied) && copied.ends_with("-2"), "{copied}");
        copy(dir.path(), &long, &copied).expect("copy of the longest name");
        assert!(p.dir.exists());
    }

    #[test]
    fn a_read_only_open_writes_nothing_and_moves_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (p, notes) = open_read_only(dir.path(), "new").expect("open");
        assert_eq!(p.settings, Settings::default());
        assert!(!notes.created && !p.dir.exists(), "a read-only open must not create the profile");
        write(dir.path(), "kim", "[pointer\n");
        std::fs::write(dir.path().join("profiles/kim/calibration.toml"), "range = 3\n").expect("calibration");
        let (p, notes) = open_read_only(dir.path(), "kim").expect("open");
        assert_eq!(p.settings, Settings::default());
        assert_eq!(notes.recovered.len(), 2, "both problems are reported: {notes:?}");
        assert_eq!(std::fs::read_to_string(p.dir.join("settings.toml")).expect("left in place"), "[pointer\n");
        assert!(p.dir.join("calibration.toml").exists() && !p.dir.join("settings.toml.bak").exists() && !p.dir.join("calibration.toml.bak").exists());
    }

    #[test]
    fn calibration_is_saved_apart_and_applied_when_opened() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (p, _) = open_from(dir.path(), "jo").expect("open");
        let mut s = p.settings.clone();
        s.pointer.mapping = crate::pointer::Mapping::Absolute;
        s.pointer.range = crate::pointer::Range { left: -0.1, right: 0.2, top: -0.05, bottom: 0.1 };
        s.vision.brow_on = 0.05;
        s.vision.brow_off = 0.03;
        Calibration::of(&s).save(&p.dir).expect("save");
        let (again, notes) = open_from(dir.path(), "jo").expect("open");
        assert!(notes.recovered.is_empty());
        assert_eq!(Calibration::of(&again.settings), Calibration::of(&s));
        assert_eq!(list(dir.path()), vec!["jo".to_string()]);
        std::fs::write(p.dir.join("calibration.toml"), "brow_on = \"high\"").expect("write");
        let (_, notes) = open_from(dir.path(), "jo").expect("open");
        assert!(notes.recovered[0].contains("calibration.toml.bak"), "{notes:?}");
    }

    #[test]
    fn saves_are_atomic_and_round_trip() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("settings.toml");
        let mut s = Settings::default();
        s.pointer.dwell_ms = 1500.0;
        s.switch.wink_left = crate::switch::Action::Key(crate::command::Chord::parse("ctrl+z").expect("chord"));
        save_settings(&path, &s).expect("save");
        let back = parse_settings(&path, &std::fs::read_to_string(&path).expect("read")).expect("parse");
        assert_eq!(back, s);
        assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 1, "no temporary file is left");
    }

    #[test]
    fn a_failed_save_says_it_could_not_write() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("gone").join("settings.toml");
        let e = save_settings(&path, &Settings::default()).expect_err("no folder");
        assert!(matches!(e, ProfileError::Write { .. }), "{e:?}");
        assert!(e.to_string().starts_with("cannot write "), "{e}");
    }

    /// A Latin-1 "ü" in a comment: the file is kept as .bak and the user told,
    /// never quietly overwritten by the next save.
    #[test]
    fn a_settings_file_that_is_not_utf8_is_kept_and_reported() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (p, _) = open_from(dir.path(), "lea").expect("create");
        let original: &[u8] = b"# Einstellungen f\xfcr Lea\n[pointer]\ndwell_ms = 1500.0\n";
        std::fs::write(p.dir.join("settings.toml"), original).expect("write");
        let (p, notes) = open_from(dir.path(), "lea").expect("open");
        assert!(notes.recovered.iter().any(|n| n.contains("not UTF-8") && n.contains("settings.toml.bak")), "{notes:?}");
        assert_eq!(std::fs::read(p.dir.join("settings.toml.bak")).expect("bak"), original);
        assert_eq!(p.settings, Settings::default());
        // The strict loader of the tools says the same, and touches nothing.
        std::fs::write(p.dir.join("settings.toml"), original).expect("write");
        let msg = load_from(dir.path(), "lea").map(|_| ()).expect_err("strict").to_string();
        assert!(msg.contains("not UTF-8"), "{msg}");
        std::fs::remove_file(p.dir.join("settings.toml")).expect("remove");
        std::fs::write(p.dir.join("calibration.toml"), b"brow_on = 0.05 # \xe9\n").expect("write");
        let (_, notes) = open_from(dir.path(), "lea").expect("open");
        assert!(notes.recovered.iter().any(|n| n.contains("calibration.toml") && n.contains("not UTF-8")), "{notes:?}");
    }

    #[test]
    fn bad_names_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(matches!(load_from(dir.path(), "../etc"), Err(ProfileError::BadName(_))));
    }

    #[cfg(unix)]
    #[test]
    fn a_settings_file_that_is_a_folder_a_pipe_or_a_device_is_named_and_left_and_nothing_is_saved() {
        for kind in ["folder", "fifo", "device"] {
            let dir = tempfile::tempdir().expect("tempdir");
            let profile = dir.path().join("profiles/kai");
            std::fs::create_dir_all(profile.join("menus")).expect("mkdir");
            let settings = profile.join("settings.toml");
            match kind {
                "folder" => std::fs::create_dir(&settings).expect("mkdir"),
                "fifo" => {
                    if !std::process::Command::new("mkfifo").arg(&settings).status().is_ok_and(|s| s.success()) {
                        continue;
                    }
                }
                _ => std::os::unix::fs::symlink("/dev/zero", &settings).expect("link"),
            }
            // The window's open (it may write) and headless's: neither hangs,
            // neither reads the device, both run on the defaults.
            for (p, notes) in [open_from(dir.path(), "kai").expect(kind), open_read_only(dir.path(), "kai").expect(kind)] {
                assert_eq!(p.settings, Settings::default(), "{kind}");
                let said = notes.recovered.join(" ");
                assert!(said.contains("settings.toml") && said.contains("not a regular file") && said.contains("using the defaults"), "{kind}: {said}");
                assert!(notes.read_only.is_some(), "{kind}: nothing may be saved over it");
            }
            let t = std::fs::symlink_metadata(&settings).expect("still there").file_type();
            assert!(if kind == "folder" { t.is_dir() } else if kind == "fifo" { !t.is_file() && !t.is_symlink() } else { t.is_symlink() }, "{kind} left as it was");
            assert!(!profile.join("settings.toml.bak").exists());
            assert!(matches!(load_from(dir.path(), "kai"), Err(ProfileError::Unusable(why)) if why.contains("settings.toml")), "{kind}");
        }
    }

    #[test]
    fn a_config_folder_that_cannot_be_written_runs_on_the_defaults_read_only() {
        // A file where the profiles folder goes: no profile can be made
        // there, even by root (as a read-only or full disk would refuse it).
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("profiles"), "not a folder").expect("write");
        let (p, notes) = open_from(dir.path(), "ada").expect("runs");
        assert_eq!(p.settings, Settings::default());
        assert!(!notes.created);
        let why = notes.read_only.expect("read-only, and why");
        assert!(why.contains("profiles") && why.contains("read-only"), "{why}");
        assert_eq!(std::fs::read_to_string(dir.path().join("profiles")).expect("untouched"), "not a folder");
    }

    #[test]
    fn a_new_profile_appears_whole_or_not_at_all() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (p, notes) = open_from(dir.path(), "new").expect("open");
        assert!(notes.created && notes.read_only.is_none());
        let menus = std::fs::read_dir(p.dir.join("menus")).expect("menus").count();
        assert_eq!(menus, std::fs::read_dir(shipped_defaults().join("menus")).expect("shipped").filter(|e| e.as_ref().is_ok_and(|e| e.path().extension().is_some_and(|x| x == "toml"))).count());
        for e in std::fs::read_dir(p.dir.join("menus")).expect("menus") {
            let path = e.expect("entry").path();
            assert!(std::fs::metadata(&path).expect("menu").len() > 0, "{} is empty", path.display());
        }
        let left: Vec<_> = std::fs::read_dir(dir.path().join("profiles")).expect("profiles").map(|e| e.expect("entry").file_name()).collect();
        assert_eq!(left, vec![std::ffi::OsString::from("new")], "no temporary folder is left");
    }

    /// "New profile" copies the open one: a settings file that is a named
    /// pipe would have hung the copy; it is left out, as it is unused.
    #[cfg(unix)]
    #[test]
    fn a_profile_whose_settings_are_a_pipe_is_copied_without_hanging() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (p, _) = open_from(dir.path(), "pia").expect("open");
        let settings = p.dir.join("settings.toml");
        std::fs::remove_file(&settings).expect("remove");
        if !std::process::Command::new("mkfifo").arg(&settings).status().is_ok_and(|s| s.success()) {
            return;
        }
        let copy_dir = copy(dir.path(), "pia", "pia-2").expect("copied");
        assert!(!copy_dir.join("settings.toml").exists(), "the pipe is not copied");
        assert!(copy_dir.join("menus").join("main.toml").is_file(), "the menus are");
    }
}
