//! Mutation fuzzing of everything Facemouse reads from the user's profile:
//! `settings.toml`, `calibration.toml` and the menu files. Each case mutates
//! a valid file (bytes flipped, inserted, deleted, lines repeated, values
//! swapped for `nan`, `inf`, huge numbers, other types), writes it in place
//! and opens the profile as the app does. The invariants:
//! - no panic;
//! - nothing lost: a file that did not load is kept as `.bak`, byte for
//!   byte, and a file that loaded is untouched;
//! - a file that did not load is named in the message the user sees.
//!
//! `cargo test --test all fuzz::` runs a few hundred cases per file;
//! `make fuzz` runs 100 000 in all (`FACEMOUSE_FUZZ_CASES`).

use std::path::{Path, PathBuf};

use facemouse::{menus, profile};

/// xorshift64*: a small, reproducible generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const TOKENS: &[&[u8]] = &[
    b"nan", b"-nan", b"inf", b"-inf", b"1e999", b"-1e308", b"0", b"-1", b"18446744073709551616", b"\"\"", b"\"x\"", b"true", b"[", b"]", b"{", b"}",
    b"=", b"\n", b"[[items]]", b"[pointer]", b"[ui]", b"[switch]", b"\xff", b"\xc3", b"\0", b"#", b"'", b"\"\"\"", b"{ key = \"ctrl+nosuch\" }",
    b"{ picked = { dx = nan, dy = 1 } }", b"zoom = 1e9", b"submenu = \"nowhere\"",
];

/// One random mutation of `src`.
fn mutate(rng: &mut Rng, src: &[u8]) -> Vec<u8> {
    let mut b = src.to_vec();
    for _ in 0..=rng.below(3) {
        let at = rng.below(b.len() + 1);
        match rng.below(6) {
            0 if !b.is_empty() => {
                let i = at.min(b.len() - 1);
                b[i] ^= 1 << rng.below(8);
            }
            1 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                b.splice(at..at, t.iter().copied());
            }
            2 if !b.is_empty() => {
                let end = (at + 1 + rng.below(12)).min(b.len());
                b.drain(at.min(end)..end);
            }
            3 => b.truncate(at),
            4 => {
                // A value replaced: after the next '=' up to the end of its line.
                if let Some(eq) = b[at.min(b.len())..].iter().position(|c| *c == b'=').map(|p| p + at) {
                    let end = b[eq..].iter().position(|c| *c == b'\n').map_or(b.len(), |p| p + eq);
                    let t = TOKENS[rng.below(TOKENS.len())];
                    b.splice(eq + 1..end, t.iter().copied());
                }
            }
            _ => {
                // A line repeated.
                let start = b[..at.min(b.len())].iter().rposition(|c| *c == b'\n').map_or(0, |p| p + 1);
                let end = b[start..].iter().position(|c| *c == b'\n').map_or(b.len(), |p| p + start + 1);
                let line = b[start..end].to_vec();
                b.splice(start..start, line);
            }
        }
    }
    b
}

fn cases() -> usize {
    std::env::var("FACEMOUSE_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(900)
}

/// Every `.bak` in `dir` is removed (between cases).
fn clear_backups(dir: &Path) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.file_name().to_string_lossy().contains(".bak") {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// The `.bak` of `file`, if one was made.
fn backup_of(file: &Path) -> Option<PathBuf> {
    let b = PathBuf::from(format!("{}.bak", file.display()));
    b.exists().then_some(b)
}

#[derive(Default, Debug)]
struct Tally {
    cases: usize,
    refused: usize,
    panics: usize,
    bytes_lost: usize,
}

#[test]
fn profile_files_never_panic_and_never_lose_a_byte() {
    let root = tempfile::tempdir().expect("tempdir");
    let (p, _) = profile::open_from(root.path(), "fuzz").expect("create the profile");
    let settings = p.dir.join("settings.toml");
    let calibration = p.dir.join("calibration.toml");
    profile::Calibration::of(&p.settings).save(&p.dir).expect("calibration");
    let sources = [(settings.clone(), std::fs::read(&settings).expect("read")), (calibration.clone(), std::fs::read(&calibration).expect("read"))];
    let menus_dir = p.dir.join("menus");
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("menus");
    let menu_files: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&menus_dir)
        .expect("menus")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| {
            let b = std::fs::read(&p).expect("read");
            (p, b)
        })
        .collect();
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let mut t = Tally::default();
    let n = cases();
    let started = std::time::Instant::now();
    for i in 0..n {
        // Settings and calibration in turn, then the menus.
        let kind = i % 3;
        let (file, original) = if kind < 2 { &sources[kind] } else { &menu_files[rng.below(menu_files.len())] };
        let bytes = mutate(&mut rng, original);
        std::fs::write(file, &bytes).expect("write the case");
        t.cases += 1;
        let outcome = std::panic::catch_unwind(|| {
            if kind < 2 {
                profile::open_from(root.path(), "fuzz").map(|(_, notes)| notes.recovered).map_err(|e| e.to_string())
            } else {
                menus::load_user_dir(&menus_dir, &shipped).map(|(_, notes)| notes).map_err(|e| e.to_string())
            }
        });
        let Ok(result) = outcome else {
            t.panics += 1;
            eprintln!("panic on {}: {:?}", file.display(), String::from_utf8_lossy(&bytes));
            std::fs::write(file, original).expect("restore");
            continue;
        };
        let name = file.file_name().expect("name").to_string_lossy().to_string();
        match (std::fs::read(file).ok(), backup_of(file)) {
            // Loaded: the file is as it was written.
            (Some(now), None) => {
                if now != bytes {
                    t.bytes_lost += bytes.len();
                    eprintln!("{name} changed although it loaded");
                }
            }
            // Refused: the .bak is the file, byte for byte, and the user is told which file.
            (None, Some(bak)) => {
                t.refused += 1;
                if std::fs::read(&bak).expect("bak") != bytes {
                    t.bytes_lost += bytes.len();
                    eprintln!("{name}.bak differs from what was there");
                }
                let told = match &result {
                    Ok(notes) => notes.iter().any(|m| m.contains(&name)),
                    Err(e) => e.contains(&name),
                };
                assert!(told, "{name} was set aside without a word: {result:?}");
            }
            (now, bak) => panic!("{name}: file {:?}, backup {bak:?}", now.map(|b| b.len())),
        }
        std::fs::write(file, original).expect("restore");
        clear_backups(&p.dir);
        clear_backups(&menus_dir);
    }
    eprintln!(
        "fuzz: {} cases in {:.1} s, {} refused and kept as .bak, {} panics, {} bytes lost",
        t.cases,
        started.elapsed().as_secs_f64(),
        t.refused,
        t.panics,
        t.bytes_lost
    );
    assert_eq!((t.panics, t.bytes_lost), (0, 0), "{t:?}");
    assert!(t.refused > 0 && t.refused < t.cases, "the mutations both break and keep files: {t:?}");
}

/// What a profile file may be instead of a file.
#[cfg(unix)]
#[derive(Debug, Clone, Copy)]
enum Odd {
    Fifo,
    Zero,
    Folder,
    Dangling,
    Huge,
}

/// Profile files that are not files (a named pipe, a link to `/dev/zero`,
/// a folder, a link to nothing) or are far too large: opening the profile
/// as the window does, its menus and its learned words never hangs, never
/// panics, never reads the device, names the file, and leaves it exactly
/// as it was. `make fuzz` runs one such case in 20.
#[cfg(unix)]
#[test]
fn profile_files_that_are_not_files_are_named_and_left_alone() {
    use std::os::unix::fs::FileTypeExt;
    let n = (cases() / 20).max(60);
    let kinds = [Odd::Fifo, Odd::Zero, Odd::Folder, Odd::Dangling, Odd::Huge];
    let mut rng = Rng(0x00dd_f11e_5eed_0001);
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("menus");
    let started = std::time::Instant::now();
    for case in 0..n {
        let root = tempfile::tempdir().expect("tempdir");
        let (p, _) = profile::open_from(root.path(), "odd").expect("create the profile");
        let menus_dir = p.dir.join("menus");
        let mut menu_files: Vec<PathBuf> = std::fs::read_dir(&menus_dir).expect("menus").flatten().map(|e| e.path()).collect();
        menu_files.sort();
        let targets = [p.dir.join("settings.toml"), p.dir.join("calibration.toml"), p.dir.join("words.txt"), menu_files[rng.below(menu_files.len())].clone()];
        let file = targets[rng.below(targets.len())].clone();
        let kind = kinds[rng.below(kinds.len())];
        if file.exists() {
            std::fs::remove_file(&file).expect("remove");
        }
        match kind {
            Odd::Fifo => {
                if !std::process::Command::new("mkfifo").arg(&file).status().is_ok_and(|s| s.success()) {
                    continue;
                }
            }
            Odd::Zero => std::os::unix::fs::symlink("/dev/zero", &file).expect("link"),
            Odd::Folder => std::fs::create_dir(&file).expect("mkdir"),
            Odd::Dangling => std::os::unix::fs::symlink(root.path().join("nowhere"), &file).expect("link"),
            Odd::Huge => std::fs::write(&file, vec![b'#'; (2 << 20) + rng.below(1000)]).expect("write"),
        }
        let type_before = std::fs::symlink_metadata(&file).expect("there").file_type();
        let len_before = std::fs::symlink_metadata(&file).expect("there").len();
        // On its own thread: a hang is a failure, not a stuck test run.
        let (tx, rx) = std::sync::mpsc::channel();
        let (root_path, dir, words) = (root.path().to_path_buf(), menus_dir.clone(), p.dir.join("words.txt"));
        let shipped_dir = shipped.clone();
        std::thread::spawn(move || {
            let said = std::panic::catch_unwind(|| {
                let mut said = Vec::new();
                match facemouse::instance::ProfileAccess::open(&root_path, "odd") {
                    Ok((access, _, notes)) => {
                        said.extend(notes.recovered);
                        said.extend(access.read_only());
                    }
                    Err(e) => said.push(e.to_string()),
                }
                match menus::load_user_dir(&dir, &shipped_dir) {
                    Ok((_, notes)) => said.extend(notes),
                    Err(e) => said.push(e.to_string()),
                }
                let mut words_model = facemouse::predict::Predictor::default();
                match words_model.load_user(&words) {
                    Ok(note) => said.extend(note),
                    Err(e) => said.push(e.to_string()),
                }
                said
            });
            let _ = tx.send(said);
        });
        let said = match rx.recv_timeout(std::time::Duration::from_secs(10)) {
            Ok(Ok(said)) => said,
            Ok(Err(_)) => panic!("case {case}: {kind:?} at {}: a panic", file.display()),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout | std::sync::mpsc::RecvTimeoutError::Disconnected) => panic!("case {case}: {kind:?} at {}: it hung", file.display()),
        };
        let name = file.file_name().expect("name").to_string_lossy().to_string();
        if !matches!(kind, Odd::Dangling) {
            assert!(said.iter().any(|m| m.contains(&name)), "case {case}: {kind:?} {name} without a word: {said:?}");
        }
        // Left exactly as it was, or (a huge regular file that did not load)
        // kept whole beside it as .bak.
        if let Ok(m) = std::fs::symlink_metadata(&file) {
            let t = m.file_type();
            assert!(t.is_symlink() == type_before.is_symlink() && t.is_dir() == type_before.is_dir() && t.is_fifo() == type_before.is_fifo(), "case {case}: {kind:?} {name} changed type");
            if matches!(kind, Odd::Huge) {
                assert_eq!(m.len(), len_before, "case {case}: {name} changed");
            }
        } else {
            let bak = backup_of(&file).unwrap_or_else(|| panic!("case {case}: {kind:?} {name} is gone and not kept: {said:?}"));
            assert!(matches!(kind, Odd::Huge), "case {case}: {kind:?} {name} was moved aside");
            assert_eq!(std::fs::metadata(&bak).expect("bak").len(), len_before, "case {case}: {name}.bak is not the whole file");
        }
    }
    eprintln!("fuzz: {n} odd-file cases in {:.1} s", started.elapsed().as_secs_f64());
}
