//! Every setting a profile holds, one module per stage, each with its
//! validation next to its fields. A leaf: it depends only on the leaf types
//! it names (`events::Point`, `command::Chord`), so the profile that reads
//! these and the stages that use them never import each other, nor the UI.

mod pointer;
mod switch;
mod ui;
mod vision;

use serde::{Deserialize, Serialize};

pub use pointer::{Input, Mapping, OutputBackend, PointerSettings, Range, ScreenArea};
pub use switch::{Action, SwitchSettings};
pub use ui::{Dock, KeyboardLayout, MENU_DEPTH, UiSettings};
pub use vision::{FeaturePoint, VisionSettings};

/// Everything a profile sets.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    pub vision: VisionSettings,
    pub pointer: PointerSettings,
    pub switch: SwitchSettings,
    pub ui: UiSettings,
}

impl Settings {
    /// Checks every value against its valid range; the error names the field.
    ///
    /// # Errors
    /// The first field out of range, and why.
    pub fn validate(&self) -> Result<(), (String, String)> {
        // Not a number, or infinite, anywhere: a pointer at (0,0), a window that cannot start.
        if let Some(field) = toml::Value::try_from(self).ok().and_then(|v| non_finite(&v, "")) {
            return Err((field, "must be a finite number".into()));
        }
        self.vision.validate()?;
        self.pointer.validate()?;
        self.switch.validate()?;
        self.ui.validate()
    }
}

fn check(ok: bool, field: &str, why: &str) -> Result<(), (String, String)> {
    if ok { Ok(()) } else { Err((field.to_string(), why.to_string())) }
}

/// The first number in `v` that is not finite (`nan`, `inf` are valid TOML),
/// as its dotted path.
fn non_finite(v: &toml::Value, path: &str) -> Option<String> {
    let join = |k: &str| if path.is_empty() { k.to_string() } else { format!("{path}.{k}") };
    match v {
        toml::Value::Float(f) if !f.is_finite() => Some(path.to_string()),
        toml::Value::Table(t) => t.iter().find_map(|(k, v)| non_finite(v, &join(k))),
        toml::Value::Array(a) => a.iter().find_map(|v| non_finite(v, path)),
        _ => None,
    }
}
