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

/// Takes the lock `facemouse.lock` in `dir` (the config folder).
///
/// # Errors
/// Another instance holds it, or the folder cannot be written.
pub fn acquire(dir: &Path) -> Result<InstanceLock, InstanceError> {
    let path = dir.join("facemouse.lock");
    let io = |source| InstanceError::Io { path: path.clone(), source };
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut file = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).map_err(io)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            return Err(InstanceError::Running { path, pid: text.trim().parse().ok() });
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
    }
    // The holder's process number, for the message a second instance gives.
    let _ = file.set_len(0).and_then(|()| file.rewind()).and_then(|()| writeln!(file, "{}", std::process::id())).and_then(|()| file.flush());
    Ok(InstanceLock { _file: file })
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
}
