//! Speaking the typed text aloud, for a user who cannot speak: through a
//! speech engine already on the system (espeak-ng, speech-dispatcher's
//! `spd-say`, or espeak), started without a shell and without waiting, so
//! the menu stays in use while it speaks.

use std::path::{Path, PathBuf};

/// The engines looked for, in order, when the profile names none.
pub const ENGINES: [&str; 3] = ["espeak-ng", "spd-say", "espeak"];

/// Why nothing was spoken.
#[derive(Debug, thiserror::Error)]
pub enum SpeechError {
    #[error("nothing to speak with: install espeak-ng (sudo apt install espeak-ng) or speech-dispatcher; typing goes on")]
    NoEngine,
    #[error("the speech program {0} was not found: install it, or set [ui] speech = \"\" in the profile to use espeak-ng or spd-say; typing goes on")]
    Missing(String),
    #[error("cannot start {program}: {source}; typing goes on")]
    Start {
        program: String,
        #[source]
        source: std::io::Error,
    },
}

/// The program `name` on `path` (a `PATH`-like list), or `name` itself when
/// it is a path to a file.
fn find(name: &str, path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    let p = Path::new(name);
    if p.components().count() > 1 {
        return p.is_file().then(|| p.to_path_buf());
    }
    std::env::split_paths(path?).map(|d| d.join(name)).find(|c| c.is_file())
}

/// The engine to speak with: `configured` (a program name or path; empty:
/// the first of [`ENGINES`] found on `PATH`).
///
/// # Errors
/// No engine found, or the configured one is missing.
pub fn engine(configured: &str) -> Result<PathBuf, SpeechError> {
    let path = std::env::var_os("PATH");
    let configured = configured.trim();
    if !configured.is_empty() {
        return find(configured, path.as_deref()).ok_or_else(|| SpeechError::Missing(configured.to_string()));
    }
    ENGINES.iter().find_map(|e| find(e, path.as_deref())).ok_or(SpeechError::NoEngine)
}

/// The command that speaks `text` with `program`: the text is one argument
/// after `--` (never read by a shell, never taken for an option).
#[must_use]
pub fn command(program: &Path, text: &str) -> std::process::Command {
    let mut c = std::process::Command::new(program);
    c.arg("--").arg(text);
    c.stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configured_engine_that_is_missing_or_none_at_all_is_said_in_words() {
        let e = engine("/no/such/speaker").expect_err("missing").to_string();
        assert!(e.contains("/no/such/speaker") && e.contains("typing goes on"), "{e}");
        // An empty PATH: none of the engines.
        assert!(find("espeak-ng", Some(std::ffi::OsStr::new(""))).is_none());
        assert!(SpeechError::NoEngine.to_string().contains("espeak-ng"));
    }

    #[test]
    fn the_text_is_one_argument_never_read_by_a_shell() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("said");
        let script = dir.path().join("speaker");
        std::fs::write(&script, format!("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > {}\n", out.display())).expect("script");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        let program = engine(script.to_str().expect("utf-8")).expect("found by its path");
        let status = command(&program, "-v it's $HOME; rm -rf /").status().expect("ran");
        assert!(status.success());
        assert_eq!(std::fs::read_to_string(&out).expect("said"), "--\n-v it's $HOME; rm -rf /\n", "the text as one argument, after --");
    }
}
