//! Writing files so that nothing of the user's is lost: a file is either the
//! old one or the whole new one, even if the power goes in between.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically: a temporary file in the same folder
/// (created new, never through an existing file or link), synced to disk,
/// then renamed over `path`, and the folder synced. On failure the temporary
/// file is removed and `path` is untouched.
///
/// # Errors
/// The folder cannot be written (permissions, a full disk, a missing folder).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let (tmp, mut file) = create_beside(path, "tmp")?;
    let dir = folder_of(path);
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    drop(file);
    if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, path)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    // The rename itself reaches the disk once the folder is synced (best effort:
    // not every system can open a folder for that).
    if let Ok(d) = std::fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// The folder `path` is in (`.` for a bare file name).
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A new, hidden file beside `path` (`.NAME.TAG-PID-N`), created for this
/// process only: never an existing file, nor through a link planted there.
/// Returns its path and the file, open for writing.
///
/// # Errors
/// The folder cannot be written.
pub fn create_beside(path: &Path, tag: &str) -> std::io::Result<(PathBuf, std::fs::File)> {
    let dir = folder_of(path);
    let name = path.file_name().map_or_else(|| "file".into(), |n| n.to_string_lossy().to_string());
    let mut attempt = 0u32;
    loop {
        let tmp = dir.join(format!(".{name}.{tag}-{}-{attempt}", std::process::id()));
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_new_text_replaces_the_old_and_no_temporary_file_is_left() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("settings.toml");
        std::fs::write(&p, "old").expect("write");
        write_atomic(&p, b"new").expect("atomic");
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "new");
        let names: Vec<_> = std::fs::read_dir(dir.path()).expect("dir").map(|e| e.expect("entry").file_name()).collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn a_folder_that_cannot_be_written_leaves_the_file_as_it_was() {
        let dir = tempfile::tempdir().expect("tempdir");
        let missing = dir.path().join("no-such-folder").join("settings.toml");
        assert!(write_atomic(&missing, b"new").is_err());
        assert!(!missing.exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_temporary_link_is_not_followed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep").expect("write");
        let p = dir.path().join("settings.toml");
        std::os::unix::fs::symlink(&victim, dir.path().join(format!(".settings.toml.tmp-{}-0", std::process::id()))).expect("link");
        write_atomic(&p, b"new").expect("atomic");
        assert_eq!(std::fs::read_to_string(&victim).expect("read"), "keep");
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "new");
    }
}
