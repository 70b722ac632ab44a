//! Every integration test, built as one binary: each file of `tests/` is a
//! module here (`Cargo.toml`: `autotests = false`). Ten binaries took ten
//! links against the library and `OpenCV` (with the library built, the
//! tests' build took 17.8 s; as one binary, 11.9 s). `scripts/test.sh` runs
//! the modules in groups by their names (`vision::`, `handsfree::`, …);
//! `cargo test --release --test all vision::` runs one file's tests.

mod common;

mod cli;
mod desktop;
mod fuzz;
mod handsfree;
mod layers;
mod package;
mod shared_data;
mod ui;
mod vision;
mod window;

/// With `autotests = false`, a new file in `tests/` that is not a module
/// here would never be built, and its tests never run.
#[test]
fn every_test_file_is_a_module_of_the_test_binary() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let this = std::fs::read_to_string(dir.join("all.rs")).expect("tests/all.rs");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("tests/") {
        let path = entry.expect("an entry of tests/").path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else { continue };
        // A module is a file `NAME.rs` or a folder `NAME/mod.rs`.
        let module = path.extension().is_some_and(|e| e == "rs") || path.join("mod.rs").is_file();
        if module && stem != "all" && !this.lines().any(|l| l.trim() == format!("mod {stem};")) {
            missing.push(stem.to_string());
        }
    }
    assert!(missing.is_empty(), "tests/ files that tests/all.rs does not build: {missing:?} (add `mod NAME;`)");
}
