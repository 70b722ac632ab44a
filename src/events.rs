//! The names of everything that can happen on a frame, as they appear in the trace.

use serde::{Deserialize, Serialize};

/// One event of the trace's `events` list (see `docs/trace.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    Blink,
    LongBlink,
    WinkLeft,
    WinkRight,
    BrowRaise,
    Dwell,
    ClickLeft,
    ClickRight,
    ClickMiddle,
    ClickDouble,
    DragStart,
    DragEnd,
    Pause,
    Resume,
    Init,
    Lost,
    /// A gesture bound to `open_menu` asked for the navigation menu.
    OpenMenu,
    /// The pointer moved on to the next monitor (a gesture or the menu).
    NextMonitor,
    /// Scroll mode began (the pointer's motion scrolls) ...
    ScrollStart,
    /// ... and ended (a dwell, the switch, a rest at its anchor, a pause or a loss).
    ScrollEnd,
    /// A press of the switch did nothing: too soon after the last action,
    /// in the start-up grace, or past the click rate (the window says so).
    SwitchIgnored,
    /// Point scanning began (its line sweeps across) ...
    PointScanStart,
    /// ... and ended: with its click, or after its sweeps without a press, a pause or a press of Pause.
    PointScanEnd,
}

impl Event {
    /// Whether this event is a click the switch made (the scanning menu's select, the click sound).
    #[must_use]
    pub fn is_click(self) -> bool {
        matches!(self, Self::ClickLeft | Self::ClickRight | Self::ClickMiddle | Self::ClickDouble)
    }

    /// Every event, in the order of `docs/trace.md`.
    pub const ALL: [Self; 23] = [
        Self::Blink,
        Self::LongBlink,
        Self::WinkLeft,
        Self::WinkRight,
        Self::BrowRaise,
        Self::Dwell,
        Self::ClickLeft,
        Self::ClickRight,
        Self::ClickMiddle,
        Self::ClickDouble,
        Self::DragStart,
        Self::DragEnd,
        Self::Pause,
        Self::Resume,
        Self::Init,
        Self::Lost,
        Self::OpenMenu,
        Self::NextMonitor,
        Self::ScrollStart,
        Self::ScrollEnd,
        Self::SwitchIgnored,
        Self::PointScanStart,
        Self::PointScanEnd,
    ];
}

/// The tracker's condition on a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrackState {
    /// No eye pair yet: waiting for the user's natural blinks.
    #[default]
    Searching,
    /// A candidate eye pair was found; templates are being taken.
    Initializing,
    /// Eyes, brows and the pointer feature are tracked.
    Tracking,
    /// Tracking failed its checks; recovering without the user's hands.
    Lost,
    /// The head is turned past what the templates follow (or the switch can
    /// judge): Active Hidden Models carry the pointer; no gesture, dwell or
    /// switch acts until the face is tracked again.
    Carried,
}

impl TrackState {
    /// Whether switch actions may fire in this state.
    #[must_use]
    pub fn allows_clicks(self) -> bool {
        self == Self::Tracking
    }
}

/// A point `[x, y]` in pixels.
pub type Point = [f64; 2];

/// The distance between two points.
#[must_use]
pub fn dist(a: Point, b: Point) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

/// The point halfway between two points.
#[must_use]
pub fn midpoint(a: Point, b: Point) -> Point {
    [a[0].midpoint(b[0]), a[1].midpoint(b[1])]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_names_match_the_trace_contract() {
        let names: Vec<String> =
            Event::ALL.iter().map(|e| serde_json::to_string(e).expect("serialize").trim_matches('"').to_string()).collect();
        assert_eq!(
            names,
            [
                "blink", "long_blink", "wink_left", "wink_right", "brow_raise", "dwell", "click_left", "click_right",
                "click_middle", "click_double", "drag_start", "drag_end", "pause", "resume", "init", "lost", "open_menu",
                "next_monitor", "scroll_start", "scroll_end", "switch_ignored", "point_scan_start", "point_scan_end"
            ]
        );
    }

    #[test]
    fn only_tracking_allows_clicks() {
        assert!(TrackState::Tracking.allows_clicks());
        for s in [TrackState::Searching, TrackState::Initializing, TrackState::Lost, TrackState::Carried] {
            assert!(!s.allows_clicks());
        }
    }
}
