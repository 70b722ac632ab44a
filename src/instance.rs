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

/// Takes the lock of the one Facemouse that drives the pointer of this
/// display (see [`driver_lock_path`]). Only a run that drives takes it: one
/// that shows a recording, or evaluates, never stops a driver from starting.
///
/// # Errors
/// Another instance drives this display, or the folder cannot be written.
pub fn acquire_driver() -> Result<InstanceLock, InstanceError> {
    let path = driver_lock_path();
    #[cfg(unix)]
    if std::env::var_os("XDG_RUNTIME_DIR").is_none_or(|d| d.is_empty())
        && let Some(dir) = path.parent()
    {
        // The shared temporary folder: the lock's folder must be this
        // user's own folder, not one (or a link) another user put there.
        use std::os::unix::fs::{DirBuilderExt, MetadataExt};
        let io = |source| InstanceError::Io { path: dir.to_path_buf(), source };
        match std::fs::DirBuilder::new().mode(0o700).create(dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(io(e)),
        }
        let m = std::fs::symlink_metadata(dir).map_err(io)?;
        let mine = std::fs::metadata("/proc/self").map_or(m.uid(), |s| s.uid());
        if !m.is_dir() || m.uid() != mine {
            return Err(io(std::io::Error::new(std::io::ErrorKind::PermissionDenied, "it is not a folder of this user's (set XDG_RUNTIME_DIR)")));
        }
    }
    acquire_at(&path)
}

/// Takes the lock file at `path`.
///
/// # Errors
/// Another instance holds it, or its folder cannot be written.
pub fn acquire_at(path: &Path) -> Result<InstanceLock, InstanceError> {
    match try_lock(path)? {
        Ok(file) => Ok(InstanceLock { _file: file }),
        Err(pid) => Err(InstanceError::Running { path: path.to_path_buf(), pid }),
    }
}

/// The driver's lock: in the user's runtime folder (`XDG_RUNTIME_DIR`, else
/// a folder of this user's under the system's temporary folder), one per
/// display, whatever config folder each run uses. Two Facemouse runs with
/// two config folders on one display would both move the pointer; on two
/// displays (two seats, a test's private X server) each drives its own.
#[must_use]
pub fn driver_lock_path() -> PathBuf {
    let dir = std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty() && Path::new(d).is_absolute()).map_or_else(
        || std::env::temp_dir().join(format!("facemouse-{}", user_id())),
        PathBuf::from,
    );
    let display = display_key(std::env::var("WAYLAND_DISPLAY").ok().as_deref(), std::env::var("DISPLAY").ok().as_deref());
    dir.join(format!("facemouse-drive-{display}.lock"))
}

/// The user's id, for a per-user folder where there is no runtime folder.
fn user_id() -> String {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let Ok(m) = std::fs::metadata("/proc/self") {
            return m.uid().to_string();
        }
    }
    std::env::var("USER").unwrap_or_else(|_| "user".into())
}

/// A file-name-safe key for the display the pointer belongs to: the Wayland
/// socket when there is one (what the session's pointer is), else the X11
/// display without its screen number (`:0` and `:0.0` are one pointer),
/// else `console`.
#[must_use]
pub fn display_key(wayland: Option<&str>, x11: Option<&str>) -> String {
    let safe = |s: &str| s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' { c } else { '_' }).collect::<String>();
    if let Some(w) = wayland.map(str::trim).filter(|w| !w.is_empty()) {
        let socket = Path::new(w).file_name().map_or_else(|| w.to_string(), |n| n.to_string_lossy().to_string());
        return format!("wayland-{}", safe(socket.trim_start_matches("wayland-")));
    }
    if let Some(x) = x11.map(str::trim).filter(|x| !x.is_empty()) {
        let (host, rest) = x.rsplit_once(':').unwrap_or(("", x));
        let number = rest.split('.').next().unwrap_or(rest);
        let host = if host.is_empty() || host == "unix" { String::new() } else { format!("{}_", safe(host)) };
        return format!("x11-{host}{}", safe(number));
    }
    "console".into()
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
    /// The profile cannot be saved (its folder cannot be written, or a file
    /// of it is not a regular file): why, in words.
    Unwritable(String),
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
            Self::Unwritable(why) => Some(why.clone()),
        }
    }

    /// Opens profile `name` under `root` for a window, as [`open_profile`]
    /// and [`crate::profile::open_from`] do, and never fails for want of a
    /// writable folder: a profile that cannot be saved (a read-only or full
    /// config folder, a settings file that is not a file) is used read-only,
    /// on the defaults where it has none, and the returned access says why.
    ///
    /// # Errors
    /// A bad name, or a file that exists but cannot be read.
    pub fn open(root: &Path, name: &str) -> Result<(Self, crate::profile::Profile, crate::profile::OpenNotes), crate::profile::ProfileError> {
        let access = match open_profile(root, name) {
            Ok(a) => a,
            Err(e) => Self::Unwritable(format!("{e}; running read-only: no change will be saved")),
        };
        let (profile, notes) = if access.read_only().is_some() { crate::profile::open_read_only(root, name)? } else { crate::profile::open_from(root, name)? };
        let access = match &notes.read_only {
            Some(why) if access.read_only().is_none() => Self::Unwritable(why.clone()),
            _ => access,
        };
        Ok((access, profile, notes))
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
        let path = dir.path().join("run").join("facemouse-drive-x11-0.lock");
        let first = acquire_at(&path).expect("first");
        let e = acquire_at(&path).expect_err("second");
        assert!(matches!(e, InstanceError::Running { pid: Some(p), .. } if p == std::process::id()), "{e:?}");
        assert!(e.to_string().contains("already running"), "{e}");
        drop(first);
        acquire_at(&path).expect("free again");
    }

    #[test]
    fn the_driver_lock_is_one_per_display_whatever_the_screen_number() {
        assert_eq!(display_key(None, Some(":0")), "x11-0");
        assert_eq!(display_key(None, Some(":0.0")), "x11-0", "one pointer for every screen of a display");
        assert_eq!(display_key(Some(""), Some(":97")), "x11-97");
        assert_eq!(display_key(None, Some("localhost:10.0")), "x11-localhost_10");
        assert_eq!(display_key(Some("wayland-0"), Some(":0")), "wayland-0", "Wayland's pointer, not XWayland's");
        assert_eq!(display_key(Some("/run/user/1000/wayland-1"), None), "wayland-1");
        assert_eq!(display_key(Some("../x"), None), "wayland-x");
        assert_eq!(display_key(None, None), "console");
        assert!(driver_lock_path().file_name().is_some_and(|n| n.to_string_lossy().starts_with("facemouse-drive-")));
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
