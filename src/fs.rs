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

/// A new, hidden file beside `path` that keeps its extension
/// (`.STEM.TAG-PID-N.EXT`), for writers that choose a format by the name
/// (OpenCV's video writer): created empty, for this process only.
///
/// # Errors
/// The folder cannot be written.
pub fn create_beside_keeping_extension(path: &Path, tag: &str) -> std::io::Result<PathBuf> {
    let dir = folder_of(path);
    let stem = path.file_stem().map_or_else(|| "file".into(), |n| n.to_string_lossy().to_string());
    let ext = path.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    for attempt in 0..100 {
        let tmp = dir.join(format!(".{stem}.{tag}-{}-{attempt}{ext}", std::process::id()));
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(_) => return Ok(tmp),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::new(std::io::ErrorKind::AlreadyExists, "no free temporary name"))
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


/// `file.bak`, or `file.bak.2`, … if that exists: an older backup is never
/// overwritten either. Past `file.bak.9999` (a folder that is not what it
/// seems, or years of damaged files) the name takes the time instead of
/// counting on.
#[must_use]
pub fn backup_path(path: &Path) -> PathBuf {
    let base = PathBuf::from(format!("{}.bak", path.display()));
    if !base.exists() {
        return base;
    }
    first_free(2, |tag| PathBuf::from(format!("{}.bak.{tag}", path.display())), |p| !p.exists())
}

/// The first of `name(from)`, `name(from + 1)`, … up to `name(9999)` (each number as text)
/// that is `free`, and past that `name` of the time (`t` and the time in
/// nanoseconds, which no earlier name has taken): a search for a free name
/// with a bound (a folder that is not what it seems, or years of damaged
/// files, made an unbounded one run on).
pub fn first_free<T>(from: u32, name: impl Fn(&str) -> T, free: impl Fn(&T) -> bool) -> T {
    (from..=9999).map(|n| name(&n.to_string())).find(|c| free(c)).unwrap_or_else(|| name(&time_tag()))
}

/// A name's last part when counting found no free one: `t` and the time in
/// nanoseconds.
fn time_tag() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("t{nanos}")
}

/// The most a profile file (settings, calibration, a menu, the learned
/// words) may hold: far more than any real one, and little enough that a
/// file gone wrong (a link to `/dev/zero`, a log pasted in) is refused at
/// once instead of filling the memory.
pub const PROFILE_FILE_LIMIT: u64 = 1 << 20;

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{path} is {kind}, not a regular file (replace it with a file, or remove it to use the defaults)")]
    NotAFile { path: PathBuf, kind: &'static str },
    #[error("{path} is {size} bytes, more than the {limit} bytes such a file may hold (is it the right file? remove or shorten it)")]
    TooLarge { path: PathBuf, size: u64, limit: u64 },
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// What a file that is not a regular file is, in words.
#[cfg(unix)]
fn kind_of(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a named pipe (FIFO)"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

#[cfg(not(unix))]
fn kind_of(t: std::fs::FileType) -> &'static str {
    if t.is_dir() { "a folder" } else if t.is_symlink() { "a symbolic link" } else { "not a regular file" }
}

/// Opens `path` for reading without ever blocking on it: a named pipe with
/// no writer would otherwise hang the open for ever.
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK (the same value on every Linux architecture but alpha,
        // sparc and parisc): it only changes how the open of a FIFO or a
        // device behaves; a regular file reads as ever.
        const O_NONBLOCK: i32 = 0o4000;
        o.custom_flags(O_NONBLOCK);
    }
    o.open(path)
}

/// Reads the regular file at `path`, at most `limit` bytes: `None` when it
/// does not exist. A folder, a named pipe, a device (also behind a link) or
/// a larger file is refused at once, and nothing of it is read.
///
/// # Errors
/// See [`ReadError`].
pub fn read_regular(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, ReadError> {
    use std::io::Read;
    let io = |source| ReadError::Io { path: path.to_path_buf(), source };
    let file = match open_nonblocking(path) {
        Ok(f) => f,
        // A missing file, or a file where a folder of its path should be.
        Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory) => return Ok(None),
        // A folder opens on Linux; elsewhere it may fail here.
        Err(e) if e.kind() == std::io::ErrorKind::IsADirectory => return Err(ReadError::NotAFile { path: path.to_path_buf(), kind: "a folder" }),
        Err(e) => return Err(io(e)),
    };
    let meta = file.metadata().map_err(io)?;
    if !meta.file_type().is_file() {
        return Err(ReadError::NotAFile { path: path.to_path_buf(), kind: kind_of(meta.file_type()) });
    }
    let too_large = |size| ReadError::TooLarge { path: path.to_path_buf(), size, limit };
    if meta.len() > limit {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        // It grew while it was read.
        return Err(too_large(bytes.len() as u64));
    }
    Ok(Some(bytes))
}

/// Why an output file may not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("{path} is a symbolic link: Facemouse writes its output only to a new or regular file, never through a link (give another path)")]
    Link { path: PathBuf },
    #[error("{path} is {kind}: Facemouse writes its output only to a new or regular file (give another path)")]
    NotAFile { path: PathBuf, kind: &'static str },
    #[error("{path} is the input {input}: writing it would destroy what is being read (give another path)")]
    IsInput { path: PathBuf, input: PathBuf },
    #[error("cannot check {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The same file or folder (device and inode), when both exist.
#[cfg(unix)]
fn same_node(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_node(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
}

/// Checks that `path` may take an output (a file, or with `folder` a folder
/// of outputs): it does not exist, or it is a regular file (a folder), not a
/// link, and not one of `inputs` (files or folders; a missing input is no
/// match). Only then may it be written, or renamed over.
///
/// # Errors
/// See [`OutputError`].
pub fn check_output(path: &Path, folder: bool, inputs: &[&Path]) -> Result<(), OutputError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => return Err(OutputError::Io { path: path.to_path_buf(), source }),
    };
    let t = meta.file_type();
    if t.is_symlink() {
        return Err(OutputError::Link { path: path.to_path_buf() });
    }
    if (folder && !t.is_dir()) || (!folder && !t.is_file()) {
        return Err(OutputError::NotAFile { path: path.to_path_buf(), kind: kind_of(t) });
    }
    for input in inputs {
        // An input given through a link is the file it names.
        if let Ok(m) = std::fs::metadata(input)
            && same_node(&meta, &m)
        {
            return Err(OutputError::IsInput { path: path.to_path_buf(), input: input.to_path_buf() });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A backup never takes the name of an older one: `.bak`, then `.bak.2`,
    /// …, and past `.bak.9999` a name of its own time.
    #[test]
    fn a_backup_never_takes_an_older_ones_name() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("words.txt");
        let name = |b: &Path| b.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        assert_eq!(name(&backup_path(&p)), "words.txt.bak");
        std::fs::write(dir.path().join("words.txt.bak"), "").expect("write");
        assert_eq!(name(&backup_path(&p)), "words.txt.bak.2");
        for n in 2..=9999 {
            std::fs::write(dir.path().join(format!("words.txt.bak.{n}")), "").expect("write");
        }
        let last = backup_path(&p);
        assert!(name(&last).starts_with("words.txt.bak.t") && !last.exists(), "{last:?}");
    }

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

    #[cfg(unix)]
    #[test]
    fn only_regular_files_of_bounded_size_are_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("settings.toml");
        assert!(read_regular(&p, 10).expect("missing").is_none());
        std::fs::write(&p, "zoom = 1").expect("write");
        assert_eq!(read_regular(&p, 10).expect("read").expect("some"), b"zoom = 1");
        let e = read_regular(&p, 4).expect_err("too large");
        assert!(matches!(e, ReadError::TooLarge { size: 8, limit: 4, .. }), "{e}");
        // A folder, a named pipe with no writer (which used to hang the
        // read for ever) and a device behind a link are refused at once.
        let folder = dir.path().join("folder");
        std::fs::create_dir(&folder).expect("mkdir");
        assert!(matches!(read_regular(&folder, 10), Err(ReadError::NotAFile { kind: "a folder", .. })));
        let fifo = dir.path().join("fifo");
        if std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success()) {
            let e = read_regular(&fifo, 10).expect_err("fifo");
            assert!(e.to_string().contains("named pipe") && e.to_string().contains("fifo"), "{e}");
        }
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).expect("link");
        let e = read_regular(&zero, PROFILE_FILE_LIMIT).expect_err("device");
        assert!(matches!(e, ReadError::NotAFile { kind: "a device", .. }), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn outputs_go_only_to_new_or_regular_files_never_links_devices_or_inputs() {
        let dir = tempfile::tempdir().expect("tempdir");
        let input = dir.path().join("seq");
        std::fs::create_dir(&input).expect("mkdir");
        std::fs::write(input.join("video.avi"), "frames").expect("write");
        let new = dir.path().join("trace.jsonl");
        check_output(&new, false, &[&input]).expect("a new file");
        std::fs::write(&new, "old").expect("write");
        check_output(&new, false, &[&input]).expect("a regular file");
        write_atomic(&new, b"new").expect("written");
        assert_eq!(std::fs::read_to_string(&new).expect("read"), "new");
        // A link, even to a harmless file, is refused and left alone.
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&new, &link).expect("link");
        assert!(matches!(check_output(&link, false, &[]), Err(OutputError::Link { .. })));
        assert_eq!(std::fs::read_to_string(&new).expect("read"), "new");
        assert!(std::fs::symlink_metadata(&link).expect("still a link").file_type().is_symlink());
        // A device is never replaced.
        let e = check_output(Path::new("/dev/null"), false, &[]).expect_err("device");
        assert!(e.to_string().contains("a device"), "{e}");
        // The input itself, as a folder or as a file, also through a link to it.
        assert!(matches!(check_output(&input, true, &[&input]), Err(OutputError::IsInput { .. })));
        let via = dir.path().join("via");
        std::os::unix::fs::symlink(input.join("video.avi"), &via).expect("link");
        assert!(matches!(check_output(&input.join("video.avi"), false, &[&via]), Err(OutputError::IsInput { .. })));
        check_output(&dir.path().join("other"), true, &[&input]).expect("another folder");
        assert!(matches!(check_output(&new, true, &[]), Err(OutputError::NotAFile { .. })), "a file where a folder goes");
    }
}
