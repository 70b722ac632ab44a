//! The layers of ARCHITECTURE.md, checked on the source: the product never
//! calls into the lab, vision does not use pose (both use `face_model`), the
//! profile does not use the UI, and `settings`, `command` and `head3d` are leaves.
//! Only code outside `#[cfg(test)]` counts: tests may use anything.

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("src").filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Each source file (relative to `src/`) and its code before its first `#[cfg(test)]`.
fn product_code() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("read");
            let code = text.split("#[cfg(test)]").next().unwrap_or_default().to_string();
            (p.strip_prefix(&src).expect("under src").to_string_lossy().replace('\\', "/"), code)
        })
        .collect()
}

fn uses(code: &str, module: &str) -> bool {
    let needle = format!("crate::{module}");
    code.match_indices(&needle).any(|(i, _)| !code[i + needle.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_'))
}

#[test]
fn the_layers_hold() {
    let code = product_code();
    assert!(code.len() > 30, "the sources were not found");
    let mut broken = Vec::new();
    for (file, text) in &code {
        let lab = file.starts_with("lab/") || file == "main.rs";
        if !lab && uses(text, "lab") {
            broken.push(format!("{file} calls into the lab"));
        }
        if file.starts_with("vision/") && uses(text, "pose") {
            broken.push(format!("{file} uses pose (use face_model)"));
        }
        if file == "profile.rs" && uses(text, "ui") {
            broken.push(format!("{file} uses the UI"));
        }
        if file.starts_with("settings/") || file == "command.rs" || file == "head3d.rs" {
            for m in ["vision", "pose", "pointer", "switch", "ui", "profile", "session", "pipeline", "output", "capture", "menus", "lab"] {
                if uses(text, m) {
                    broken.push(format!("{file} (a leaf) uses {m}"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "{broken:#?}");
}

#[test]
fn the_check_sees_a_use() {
    assert!(uses("use crate::lab::eval;", "lab"));
    assert!(!uses("use crate::labels;", "lab"));
    assert!(uses("crate::ui::UiSettings", "ui"));
}
