//! Start at login: an XDG autostart entry (`$XDG_CONFIG_HOME/autostart/
//! facemouse.desktop`, by default `~/.config/autostart/`) that starts
//! Facemouse with `--autostart`: on the last profile and its camera, straight
//! to searching, with no clicks for the first seconds (`ui.login_grace_s`).

use std::path::{Path, PathBuf};

/// The entry's file name.
pub const ENTRY: &str = "facemouse.desktop";

/// Why start at login cannot be set.
#[derive(Debug, thiserror::Error)]
pub enum AutostartError {
    #[error("no config folder for the autostart entry: set XDG_CONFIG_HOME or HOME")]
    NoConfigDir,
    #[error("cannot write {path}: {source} (check that the folder is writable)")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot find the facemouse program to start at login: {0}")]
    NoProgram(#[source] std::io::Error),
    #[error("cannot remove {path}: {source}")]
    Remove {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The autostart folder: `$XDG_CONFIG_HOME/autostart`, else `~/.config/autostart`.
///
/// # Errors
/// Neither variable is set.
pub fn default_dir() -> Result<PathBuf, AutostartError> {
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".config")))
        .ok_or(AutostartError::NoConfigDir)?;
    Ok(config.join("autostart"))
}

/// The entry that starts `exe` at login.
#[must_use]
pub fn entry_text(exe: &Path) -> String {
    format!(
        "[Desktop Entry]\nType=Application\nName=Facemouse\nComment=Hands-free pointer: head motion moves it, eyebrow raises and blinks click\nExec={} --autostart\nTerminal=false\nX-GNOME-Autostart-enabled=true\n",
        quote_exec(&exe.to_string_lossy())
    )
}

/// An argument of an `Exec` key, quoted as the Desktop Entry
/// Specification asks (inside double quotes, `"`, `` ` ``, `$` and `\` are
/// escaped with a backslash; the file format then doubles every backslash).
fn quote_exec(arg: &str) -> String {
    let plain = !arg.is_empty() && arg.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+,:@".contains(c));
    if plain {
        return arg.to_string();
    }
    let mut out = String::from("\"");
    for c in arg.chars() {
        if matches!(c, '"' | '`' | '$' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out.replace('\\', "\\\\")
}

/// Whether start at login is on: the entry in `dir`, if there is one.
#[must_use]
pub fn status(dir: &Path) -> Option<PathBuf> {
    let p = dir.join(ENTRY);
    p.is_file().then_some(p)
}

/// Turns start at login on: writes the entry for `exe` into `dir` (atomically).
///
/// # Errors
/// The folder cannot be written.
pub fn enable(dir: &Path, exe: &Path) -> Result<PathBuf, AutostartError> {
    let path = dir.join(ENTRY);
    let write = |source| AutostartError::Write { path: path.clone(), source };
    std::fs::create_dir_all(dir).map_err(write)?;
    crate::fs::write_atomic(&path, entry_text(exe).as_bytes()).map_err(write)?;
    Ok(path)
}

/// Turns start at login on for the program that is running now.
///
/// # Errors
/// The running program cannot be found, or the folder cannot be written.
pub fn enable_this_program(dir: &Path) -> Result<PathBuf, AutostartError> {
    enable(dir, &std::env::current_exe().map_err(AutostartError::NoProgram)?)
}

/// Turns start at login off; whether there was an entry to remove.
///
/// # Errors
/// The entry exists but cannot be removed.
pub fn disable(dir: &Path) -> Result<bool, AutostartError> {
    let path = dir.join(ENTRY);
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(source) => Err(AutostartError::Remove { path, source }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_status_off() {
        let dir = tempfile::tempdir().expect("tempdir");
        let auto = dir.path().join("autostart");
        assert!(status(&auto).is_none());
        let p = enable(&auto, Path::new("/usr/bin/facemouse")).expect("on");
        assert_eq!(status(&auto), Some(p.clone()));
        let text = std::fs::read_to_string(&p).expect("entry");
        assert!(text.starts_with("[Desktop Entry]\n") && text.contains("\nExec=/usr/bin/facemouse --autostart\n"), "{text}");
        enable(&auto, Path::new("/usr/bin/facemouse")).expect("on again");
        assert!(disable(&auto).expect("off"));
        assert!(status(&auto).is_none());
        assert!(!disable(&auto).expect("off again"), "nothing to remove");
    }

    #[test]
    fn an_odd_program_path_is_quoted_as_the_specification_asks() {
        assert_eq!(quote_exec("/opt/face mouse/facemouse"), "\"/opt/face mouse/facemouse\"");
        assert_eq!(quote_exec("/tmp/a$b"), "\"/tmp/a\\\\$b\"");
        assert_eq!(quote_exec("/usr/bin/facemouse"), "/usr/bin/facemouse");
    }

    /// `desktop-file-validate` (desktop-file-utils) accepts the entry, where it is installed.
    #[test]
    fn the_entry_validates() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = enable(dir.path(), Path::new("/opt/face mouse/facemouse")).expect("on");
        match std::process::Command::new("desktop-file-validate").arg(&p).output() {
            Ok(out) => assert!(out.status.success() && out.stdout.is_empty(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)),
            Err(_) => eprintln!("skipped: desktop-file-validate is not installed (make test installs desktop-file-utils)"),
        }
    }
}
