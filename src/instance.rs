//! One Facemouse at a time: two instances would fight over the pointer (both
//! move it and both click) and overwrite each other's settings.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// Why this instance cannot run.
#[derive(Debug, thiserror::Error)]
pub enum InstanceError {
    #[error("Facemouse is already running{} (it holds {path}); close it first, or wait for it to end", .pid.map(|p| format!(" as process {p}")).unwrap_or_default())]
    Running { path: PathBuf, pid: Option<u32> },
    #[error("cannot take the lock {path}: {source} (check that the folder is writable)")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Held while this instance runs; the system releases it when the process
/// ends, however it ends.
#[derive(Debug)]
pub struct InstanceLock {
    _file: File,
}

/// Takes the lock `facemouse.lock` in `dir` (the config folder): held by
/// whichever Facemouse drives the pointer.
///
/// # Errors
/// Another instance holds it, or the folder cannot be written.
pub fn acquire(dir: &Path) -> Result<InstanceLock, InstanceError> {
    let path = dir.join("facemouse.lock");
    match try_lock(&path)? {
        Ok(file) => Ok(InstanceLock { _file: file }),
        Err(pid) => Err(InstanceError::Running { path, pid }),
    }
}

/// How a window holds its profile: the first window to open a profile may
/// save it; another window on the same profile uses it read-only, so the two
/// never overwrite each other's settings and menus.
#[derive(Debug)]
pub enum ProfileAccess {
    /// This window saves the profile (the lock is held while it lives).
    Writable(InstanceLock),
    /// Another window has the profile open.
    ReadOnly { name: String, pid: Option<u32> },
}

impl ProfileAccess {
    /// Why changes are not saved, in words, or `None` when they are.
    #[must_use]
    pub fn read_only(&self) -> Option<String> {
        match self {
            Self::Writable(_) => None,
            Self::ReadOnly { name, pid } => Some(format!(
                "Profile \"{name}\" is open in another Facemouse window{}: this window uses it read-only and saves no change to it",
                pid.map(|p| format!(" (process {p})")).unwrap_or_default()
            )),
        }
    }
}

/// Opens profile `name` (a valid profile name) for a window under the config
/// folder `root`. The lock lives in `root/locks`, not in the profile's folder,
/// so that taking it never makes a profile seem to exist.
///
/// # Errors
/// The folder cannot be written.
pub fn open_profile(root: &Path, name: &str) -> Result<ProfileAccess, InstanceError> {
    let path = root.join("locks").join(format!("profile-{name}.lock"));
    Ok(match try_lock(&path)? {
        Ok(file) => ProfileAccess::Writable(InstanceLock { _file: file }),
        Err(pid) => ProfileAccess::ReadOnly { name: name.to_string(), pid },
    })
}

/// Locks the file at `path` and writes our process number into it; when
/// another process holds it, `Ok(Err(its process number))`.
fn try_lock(path: &Path) -> Result<Result<File, Option<u32>>, InstanceError> {
    let io = |source| InstanceError::Io { path: path.to_path_buf(), source };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let mut file = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path).map_err(io)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            return Ok(Err(text.trim().parse().ok()));
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
    }
    // The holder's process number, for the message a second instance gives.
    let _ = file.set_len(0).and_then(|()| file.rewind()).and_then(|()| writeln!(file, "{}", std::process::id())).and_then(|()| file.flush());
    Ok(Ok(file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().expect("tempdir");
        let first = acquire(dir.path()).expect("first");
        let e = acquire(dir.path()).expect_err("second");
        assert!(matches!(e, InstanceError::Running { pid: Some(p), .. } if p == std::process::id()), "{e:?}");
        assert!(e.to_string().contains("already running"), "{e}");
        drop(first);
        acquire(dir.path()).expect("free again");
    }

    #[test]
    fn a_profile_open_in_one_window_is_read_only_in_another_and_only_that_profile() {
        let dir = tempfile::tempdir().expect("tempdir");
        let first = open_profile(dir.path(), "default").expect("first");
        assert!(first.read_only().is_none());
        let second = open_profile(dir.path(), "default").expect("second");
        let why = second.read_only().expect("read-only");
        assert!(why.contains("\"default\"") && why.contains(&format!("process {}", std::process::id())), "{why}");
        assert!(open_profile(dir.path(), "other").expect("other").read_only().is_none());
        assert!(!dir.path().join("profiles").exists(), "taking the lock must not create the profile");
        drop(first);
        assert!(open_profile(dir.path(), "default").expect("again").read_only().is_none());
    }
}
