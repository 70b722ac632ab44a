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
/// Specification asks: a literal `%` is `%%` (else it reads as a field
/// code, and the entry does not start); an argument with a reserved
/// character goes inside double quotes, where `"`, `` ` ``, `$` and `\` are
/// escaped with a backslash; then the file format's string escapes apply to
/// the whole value (every backslash doubled, a newline `\n`, a tab `\t`, a
/// carriage return `\r`).
fn quote_exec(arg: &str) -> String {
    let plain = !arg.is_empty() && arg.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%".contains(c));
    let mut quoted = String::new();
    if !plain {
        quoted.push('"');
    }
    for c in arg.chars() {
        match c {
            '%' => quoted.push_str("%%"),
            '"' | '`' | '$' | '\\' => {
                quoted.push('\\');
                quoted.push(c);
            }
            _ => quoted.push(c),
        }
    }
    if !plain {
        quoted.push('"');
    }
    let mut out = String::with_capacity(quoted.len());
    for c in quoted.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            _ => out.push(c),
        }
    }
    out
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
        // A literal percent is not a field code; a newline is a string escape.
        assert_eq!(quote_exec("/opt/100%/facemouse"), "/opt/100%%/facemouse");
        assert_eq!(quote_exec("/opt/a\nb/facemouse"), "\"/opt/a\\nb/facemouse\"");
    }

    /// `desktop-file-validate` (desktop-file-utils) accepts the entry, where
    /// it is installed, for odd program paths too: a `%` made an entry that
    /// did not start, and a newline one that did not validate.
    #[test]
    fn the_entry_validates() {
        for exe in ["/opt/face mouse/facemouse", "/opt/100% sure/facemouse", "/opt/a\nb/face\tmouse", "/opt/q\"u`o$t\\e/facemouse"] {
            let dir = tempfile::tempdir().expect("tempdir");
            let p = enable(dir.path(), Path::new(exe)).expect("on");
            match std::process::Command::new("desktop-file-validate").arg(&p).output() {
                Ok(out) => assert!(out.status.success() && out.stdout.is_empty(), "{exe:?}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)),
                Err(_) => eprintln!("skipped: desktop-file-validate is not installed (make test installs desktop-file-utils)"),
            }
            assert_eq!(exec_program(&std::fs::read_to_string(&p).expect("entry")).as_deref(), Some(exe), "the entry starts this very program");
        }
    }

    /// The program an entry's `Exec` starts, read back as a desktop would:
    /// the string escapes, then the quoting, then `%%`.
    fn exec_program(entry: &str) -> Option<String> {
        let value = entry.lines().find_map(|l| l.strip_prefix("Exec="))?;
        let mut unescaped = String::new();
        let mut chars = value.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                match chars.next()? {
                    'n' => unescaped.push('\n'),
                    't' => unescaped.push('\t'),
                    'r' => unescaped.push('\r'),
                    's' => unescaped.push(' '),
                    other => unescaped.push(other),
                }
            } else {
                unescaped.push(c);
            }
        }
        let mut arg = String::new();
        let mut chars = unescaped.chars().peekable();
        if chars.peek() == Some(&'"') {
            chars.next();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => arg.push(chars.next()?),
                    '"' => break,
                    _ => arg.push(c),
                }
            }
        } else {
            arg = chars.take_while(|c| *c != ' ').collect();
        }
        Some(arg.replace("%%", "%"))
    }
}
