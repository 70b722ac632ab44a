//! Switch: from gestures to actions, with the safety rules that keep a
//! hands-free user from stray clicks and stuck buttons.
//!
//! Each trigger (`brow_raise`, `long_blink`, `wink_left`, `wink_right`,
//! `dwell`) is bound in the profile to one [`Action`]. This stage only returns
//! [`Command`]s; the output stage performs them.
//!
//! Safety, every rule tested below:
//! - no action unless tracking, not paused, and past a startup grace after
//!   tracking (re)started (nobody is clicked for while sitting down);
//! - a cooldown ignores repeats, and a maximum click rate caps bursts;
//! - a long eyebrow raise (1.5 s by default) pauses, and the same gesture
//!   resumes; it always works, and a raise long enough to pause never clicks
//!   (a brow click fires when the brows come down, so the two cannot mix);
//! - while paused, tracking goes on but the pointer and clicks stop;
//! - a held button (drag) is released on pause, on loss, and on exit
//!   (see [`crate::output::ReleaseGuard`] for exits, signals and panics).

pub mod point_scan;

use std::collections::VecDeque;

use crate::events::{Event, Point, TrackState};
use crate::output::{Button, Command};
use crate::vision::Observation;

pub use crate::settings::{Action, SwitchSettings};
use crate::settings::ScreenArea;

/// What the switch stage decided besides the commands.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Intents {
    /// The pointer mapper should recentre.
    pub recenter: bool,
    /// The pointer should move on to the next monitor.
    pub next_monitor: bool,
    /// The pointer must not move (paused).
    pub hold_pointer: bool,
    /// Put the pointer back here (scroll mode keeps it where scrolling began).
    pub pointer_to: Option<Point>,
}

/// Scroll mode scrolls at most this many steps a second on each axis.
pub const SCROLL_MAX_STEPS_PER_S: f64 = 15.0;
/// The pointer resting at the scroll's anchor this long ends scroll mode.
pub const SCROLL_REST_END_MS: f64 = 1000.0;
/// Where scrolling ended, no dwell acts until the pointer has moved this
/// far (pixels): the rest that ended it would start it again.
pub const DWELL_SPENT_RADIUS: f64 = 40.0;

/// The switch stage.
#[derive(Debug)]
pub struct SwitchDecider {
    s: SwitchSettings,
    paused: bool,
    tracking_since: Option<f64>,
    raise_since: Option<f64>,
    raise_paused: bool,
    /// A frame of the raise under way was doubtful (`Observation::doubtful`):
    /// it neither clicks nor pauses.
    raise_doubtful: bool,
    last_action: Option<f64>,
    clicks: VecDeque<f64>,
    dragging: bool,
    scroll_anchor: Option<Point>,
    scroll_acc: Point,
    /// Scrolling: the last frame's time, and since when the pointer has
    /// rested at the anchor (no step taken).
    scroll_last_t: Option<f64>,
    scroll_rest_since: Option<f64>,
    last_pos: Option<Point>,
    /// The window's scanning menu takes the switch: no desktop clicks.
    to_scanner: bool,
    /// No action before this time (a start at login).
    quiet_until: Option<f64>,
    /// Facemouse's own windows: a dwell there is theirs (they fire their
    /// own targets), so the desktop dwell does nothing there.
    own_areas: Vec<ScreenArea>,
    /// The desktop the pointer maps onto (left, top, width, height): what point scanning covers.
    area: [f64; 4],
    /// A dwell is spent here until the pointer leaves (where scrolling ended).
    dwell_spent_at: Option<Point>,
    /// Point scanning under way, and when a press last acted on it.
    point_scan: Option<point_scan::PointScan>,
    point_scan_pressed: Option<f64>,
}

impl SwitchDecider {
    #[must_use]
    pub fn new(settings: &SwitchSettings) -> Self {
        Self {
            s: settings.clone(),
            paused: false,
            tracking_since: None,
            raise_since: None,
            raise_paused: false,
            raise_doubtful: false,
            last_action: None,
            clicks: VecDeque::new(),
            dragging: false,
            scroll_anchor: None,
            scroll_acc: [0.0, 0.0],
            scroll_last_t: None,
            scroll_rest_since: None,
            last_pos: None,
            to_scanner: false,
            area: [0.0, 0.0, 1920.0, 1080.0],
            dwell_spent_at: None,
            point_scan: None,
            point_scan_pressed: None,
            quiet_until: None,
            own_areas: Vec::new(),
        }
    }

    /// Where Facemouse's own windows are on the desktop (pixels).
    pub fn set_own_areas(&mut self, areas: &[ScreenArea]) {
        self.own_areas.clear();
        self.own_areas.extend_from_slice(areas);
    }

    /// Whether a dwell with the pointer at `pointer` would act on the
    /// desktop: a dwell action is bound, nothing is paused, and the pointer
    /// is not on one of Facemouse's own windows.
    #[must_use]
    pub fn dwell_acts(&self, pointer: Point) -> bool {
        self.s.dwell != Action::None && !self.paused && !self.own_areas.iter().any(|a| a.contains(pointer))
    }

    /// No action before `t_ms` (the frames' clock): the grace after a start
    /// at login, while the user settles in front of the camera.
    pub fn set_quiet_until(&mut self, t_ms: f64) {
        self.quiet_until = Some(t_ms);
    }

    /// While the window's scanning menu takes the switch, a click action
    /// gives its event (the scanning select) and presses nothing on the
    /// desktop. A drag under way can still be ended.
    pub fn set_to_scanner(&mut self, to_scanner: bool) {
        self.to_scanner = to_scanner;
    }

    /// Whether the user has paused.
    #[must_use]
    pub fn paused(&self) -> bool {
        self.paused
    }

    /// Whether head motion scrolls instead of moving the pointer.
    #[must_use]
    pub fn scrolling(&self) -> bool {
        self.scroll_anchor.is_some()
    }

    /// Whether a button is held down (a drag in progress).
    #[must_use]
    pub fn dragging(&self) -> bool {
        self.dragging
    }

    /// Commands that leave nothing pressed (for exits); also forgets the drag.
    pub fn release_all(&mut self, commands: &mut Vec<Command>, events: &mut Vec<Event>) {
        if self.dragging {
            self.dragging = false;
            commands.push(Command::Release(Button::Left));
            events.push(Event::DragEnd);
        }
        self.end_scroll(events);
    }

    /// Leaves scroll mode, if on.
    /// Whether `pointer` rests where scrolling began: within half a scroll
    /// step of `anchor` on each axis (no step taken).
    fn at_anchor(&self, anchor: Point, pointer: Point) -> bool {
        let half = 0.5 * self.s.scroll_px_per_step.max(1.0);
        (pointer[0] - anchor[0]).abs() < half && (pointer[1] - anchor[1]).abs() < half
    }

    fn end_scroll(&mut self, events: &mut Vec<Event>) {
        if let Some(anchor) = self.scroll_anchor.take() {
            events.push(Event::ScrollEnd);
            // The user still rests there: that rest ended the scrolling, and
            // must not start it again a dwell later.
            self.dwell_spent_at = Some(anchor);
        }
        self.scroll_last_t = None;
        self.scroll_rest_since = None;
    }

    /// Decides this frame's commands (appended to `commands`) and action events
    /// (appended to `events`). `pointer` is where the pointer stage put the pointer.
    pub fn decide(&mut self, obs: &Observation, pointer: Point, dwell: bool, t_ms: f64, commands: &mut Vec<Command>, events: &mut Vec<Event>) -> Intents {
        let mut intents = Intents::default();
        let tracking = obs.state == TrackState::Tracking;
        if tracking {
            self.tracking_since.get_or_insert(t_ms);
        } else {
            self.tracking_since = None;
            self.raise_since = None;
            self.raise_doubtful = false;
            // Loss: nothing stays pressed.
            self.release_all(commands, events);
        }

        // The pause gesture: a long raise toggles pause; a short one is a brow trigger on release.
        // A gesture seen while the trackers may be on something else
        // (`Observation::doubtful`: a start the face detector has not yet
        // agreed with, an answer of its that disagreed, a feature that does
        // not match as the face does) does nothing: a start on a face a
        // hand was passing over took the hand for eyes.
        let mut brow_trigger = false;
        if tracking && obs.brows_raised {
            let since = *self.raise_since.get_or_insert(t_ms);
            self.raise_doubtful |= obs.doubtful;
            if !self.raise_paused && !self.raise_doubtful && t_ms - since >= self.s.pause_raise_ms {
                self.raise_paused = true;
                self.toggle_pause(commands, events);
            }
        } else if let Some(since) = self.raise_since.take() {
            let was_pause = std::mem::replace(&mut self.raise_paused, false);
            let doubtful = std::mem::replace(&mut self.raise_doubtful, false) || obs.doubtful;
            brow_trigger = tracking && !was_pause && !doubtful && t_ms - since < self.s.pause_raise_ms;
        }

        if self.paused {
            self.end_point_scan(events);
        }
        if !self.paused && tracking {
            let mut triggers: Vec<Action> = Vec::new();
            if brow_trigger {
                triggers.push(self.s.brow_raise.clone());
            }
            for e in obs.events.iter().filter(|_| !obs.doubtful) {
                match e {
                    Event::LongBlink => triggers.push(self.s.long_blink.clone()),
                    Event::WinkLeft => triggers.push(self.s.wink_left.clone()),
                    Event::WinkRight => triggers.push(self.s.wink_right.clone()),
                    _ => {}
                }
            }
            // While point scanning, the pointer is the scan's: no dwell. While
            // scrolling, the head held away from where scrolling began is
            // scrolling, not a rest: a dwell there ended it after a second
            // (the rest at the anchor ends it, below).
            let scrolling_away = self.scroll_anchor.is_some_and(|a| !self.at_anchor(a, pointer));
            if self.dwell_spent_at.is_some_and(|p| crate::events::dist(p, pointer) > DWELL_SPENT_RADIUS) {
                self.dwell_spent_at = None;
            }
            if dwell && self.point_scan.is_none() && !scrolling_away && self.dwell_spent_at.is_none() && self.dwell_acts(pointer) {
                events.push(Event::Dwell);
                triggers.push(self.s.dwell.clone());
            }
            for action in triggers {
                if action == Action::Pause {
                    self.toggle_pause(commands, events);
                    continue;
                }
                // While point scanning, a gesture that clicks is a press of the scan.
                if self.point_scan.is_some() && (action.clicks() || action == Action::PointScan) {
                    self.point_scan_press(t_ms, commands, events, &mut intents);
                    continue;
                }
                if action != Action::None && self.allowed(&action, t_ms) {
                    self.perform(&action, pointer, t_ms, commands, events, &mut intents);
                }
            }
        }

        if self.point_scan.as_ref().is_some_and(|p| p.expired(t_ms)) {
            self.end_point_scan(events);
        }
        if self.paused {
            intents.hold_pointer = true;
        } else if let Some(scan) = &self.point_scan {
            // The pointer shows the scan (with the face tracked or not: a
            // switch user may have no face to track).
            let p = scan.point(t_ms);
            if self.last_pos != Some(p) {
                commands.push(Command::MoveTo { x: p[0], y: p[1] });
                self.last_pos = Some(p);
            }
            intents.pointer_to = Some(p);
        } else if let Some(anchor) = self.scroll_anchor {
            // Scroll mode: each frame, the pointer's displacement from where
            // scrolling began adds to the scroll; the pointer goes back there.
            // At most `SCROLL_MAX_STEPS_PER_S` steps a second on each axis
            // (a head turned far gave 250 wheel steps a second).
            let px = self.s.scroll_px_per_step.max(1.0);
            let dt = self.scroll_last_t.map_or(33.3, |l| (t_ms - l).clamp(0.0, 200.0));
            self.scroll_last_t = Some(t_ms);
            let cap = SCROLL_MAX_STEPS_PER_S * dt / 1000.0 * px;
            let moved = [pointer[0] - anchor[0], pointer[1] - anchor[1]];
            for (acc, m) in self.scroll_acc.iter_mut().zip(moved) {
                *acc = (*acc + m.clamp(-cap, cap)).clamp(-2.0 * px, 2.0 * px);
            }
            #[allow(clippy::cast_possible_truncation)]
            let (dx, dy) = ((self.scroll_acc[0] / px).trunc() as i32, (self.scroll_acc[1] / px).trunc() as i32);
            self.scroll_acc[0] -= f64::from(dx) * px;
            self.scroll_acc[1] -= f64::from(dy) * px;
            if dx != 0 || dy != 0 {
                commands.push(Command::Scroll { dx, dy });
            }
            intents.pointer_to = Some(anchor);
            // The pointer at rest where scrolling began for a while ends it
            // by itself: a pinned pointer cannot reach "No click", and a
            // dwell there fires once per stay only.
            if !self.at_anchor(anchor, pointer) || !tracking {
                self.scroll_rest_since = None;
            } else if t_ms - *self.scroll_rest_since.get_or_insert(t_ms) >= SCROLL_REST_END_MS {
                self.end_scroll(events);
                intents.pointer_to = None;
            }
        } else if tracking && intents.pointer_to.is_none() && self.last_pos != Some(pointer) {
            commands.push(Command::MoveTo { x: pointer[0], y: pointer[1] });
            self.last_pos = Some(pointer);
        }
        intents
    }

    /// Where point scanning sweeps: the desktop (left, top, width, height).
    pub fn set_area(&mut self, area: [f64; 4]) {
        self.area = area;
    }

    /// Starts point scanning (the window's "Point scan", or a gesture bound
    /// to it); a second start while one is under way ends it.
    pub fn start_point_scan(&mut self, t_ms: f64, events: &mut Vec<Event>) {
        if self.point_scan.is_some() {
            self.end_point_scan(events);
            return;
        }
        if self.paused {
            return;
        }
        if self.scroll_anchor.is_some() {
            self.end_scroll(events);
        }
        self.point_scan = Some(point_scan::PointScan::new(self.area, self.s.point_scan_sweep_ms, t_ms));
        self.point_scan_pressed = Some(t_ms);
        events.push(Event::PointScanStart);
    }

    /// The point scan's lines at `t_ms` (the vertical line's x, and the
    /// horizontal one's y once the first has stopped), while one is under way.
    #[must_use]
    pub fn point_scan_lines(&self, t_ms: f64) -> Option<(f64, Option<f64>)> {
        self.point_scan.as_ref().map(|p| p.lines(t_ms))
    }

    fn end_point_scan(&mut self, events: &mut Vec<Event>) {
        if self.point_scan.take().is_some() {
            events.push(Event::PointScanEnd);
        }
    }

    /// A press while point scanning: the first stops the vertical line, the
    /// second clicks at the crossing, with the click the dwell makes (the
    /// toolbar's choice), or a left click where the dwell makes none. A
    /// press within the cooldown of the last one is ignored with a sign (a
    /// tremor's double press must not click where the line was a moment before).
    fn point_scan_press(&mut self, t_ms: f64, commands: &mut Vec<Command>, events: &mut Vec<Event>, intents: &mut Intents) {
        if self.point_scan_pressed.is_some_and(|p| t_ms - p < self.s.cooldown_ms) {
            events.push(Event::SwitchIgnored);
            return;
        }
        let Some(scan) = self.point_scan.as_mut() else { return };
        self.point_scan_pressed = Some(t_ms);
        let point_scan::Press::Click(p) = scan.press(t_ms) else { return };
        let click = if self.s.dwell.clicks() { self.s.dwell.clone() } else { Action::ClickLeft };
        self.point_scan = None;
        if self.allowed_when(&click, t_ms, false) {
            // The pointer stays where it clicked.
            self.last_pos = Some(p);
            intents.pointer_to = Some(p);
            // The click lands on the desktop even while the window's scanning menu takes the switch.
            let to_scanner = std::mem::replace(&mut self.to_scanner, false);
            self.perform(&click, p, t_ms, commands, events, intents);
            self.to_scanner = to_scanner;
        } else {
            events.push(Event::SwitchIgnored);
        }
        events.push(Event::PointScanEnd);
    }

    /// Pauses or resumes on request (the window's button).
    /// The settings in force.
    #[must_use]
    pub fn settings(&self) -> &SwitchSettings {
        &self.s
    }

    /// Replaces the settings; they apply from the next frame. What is under
    /// way (a held button, a pause) stays as it is.
    pub fn set_settings(&mut self, settings: &SwitchSettings) {
        self.s = settings.clone();
    }

    pub fn set_paused(&mut self, paused: bool, commands: &mut Vec<Command>, events: &mut Vec<Event>) {
        if self.paused != paused {
            self.toggle_pause(commands, events);
        }
    }

    fn toggle_pause(&mut self, commands: &mut Vec<Command>, events: &mut Vec<Event>) {
        self.paused = !self.paused;
        if self.paused {
            self.release_all(commands, events);
            // And whatever else the desktop reports held (a killed run's drag).
            commands.push(Command::ReleaseHeld);
            events.push(Event::Pause);
        } else {
            events.push(Event::Resume);
        }
    }

    /// The external switch (a key, a switch mouse button) was pressed: its
    /// action, under the same cooldown, click rate and quiet time as the
    /// face's gestures, but without needing the face tracked (the press is
    /// deliberate; in scanning it selects). Nothing while paused.
    pub fn external_press(&mut self, pointer: Point, t_ms: f64, commands: &mut Vec<Command>, events: &mut Vec<Event>, intents: &mut Intents) {
        // While paused, the switch resumes: a switch user has no other way
        // back (the face's pause gesture may be what they cannot make).
        if self.paused {
            self.toggle_pause(commands, events);
            return;
        }
        // While point scanning, the switch stops a line, then clicks.
        if self.point_scan.is_some() {
            self.point_scan_press(t_ms, commands, events, intents);
            return;
        }
        // While scrolling, the switch ends the scrolling, and does nothing else.
        if self.scroll_anchor.is_some() {
            self.end_scroll(events);
            return;
        }
        let action = self.s.external.clone();
        if action == Action::None {
            return;
        }
        if !self.allowed_when(&action, t_ms, false) {
            // Not without a sign: the user pressed, and should know why nothing came.
            events.push(Event::SwitchIgnored);
            return;
        }
        self.perform(&action, pointer, t_ms, commands, events, intents);
    }

    /// The click rules: startup grace, cooldown, rate limit.
    fn allowed(&mut self, action: &Action, t_ms: f64) -> bool {
        self.allowed_when(action, t_ms, true)
    }

    /// The click rules; `needs_face`: only while tracked, after the startup grace.
    fn allowed_when(&mut self, action: &Action, t_ms: f64, needs_face: bool) -> bool {
        if needs_face {
            let Some(since) = self.tracking_since else { return false };
            if t_ms - since < self.s.startup_grace_ms {
                return false;
            }
        }
        if self.quiet_until.is_some_and(|q| t_ms < q) {
            return false;
        }
        if self.last_action.is_some_and(|l| t_ms - l < self.s.cooldown_ms) {
            return false;
        }
        if action.clicks() {
            while self.clicks.front().is_some_and(|c| t_ms - c >= 60_000.0) {
                self.clicks.pop_front();
            }
            if self.clicks.len() >= self.s.max_clicks_per_minute as usize {
                return false;
            }
        }
        true
    }

    fn perform(&mut self, action: &Action, pointer: Point, t_ms: f64, commands: &mut Vec<Command>, events: &mut Vec<Event>, intents: &mut Intents) {
        self.last_action = Some(t_ms);
        if action.clicks() {
            self.clicks.push_back(t_ms);
            if self.to_scanner && !(matches!(action, Action::DragToggle) && self.dragging) {
                // The scanning menu selects with it: the event only (a drag
                // under way can still be ended below).
                events.push(match action {
                    Action::ClickRight => Event::ClickRight,
                    Action::ClickMiddle => Event::ClickMiddle,
                    Action::DoubleClick => Event::ClickDouble,
                    _ => Event::ClickLeft,
                });
                return;
            }
            // Every click lands where the pointer is (a drag ended from the
            // scanning menu is released where it is).
            if !self.to_scanner {
                commands.push(Command::MoveTo { x: pointer[0], y: pointer[1] });
            }
        }
        match action {
            Action::ClickLeft => {
                commands.push(Command::Click(Button::Left));
                events.push(Event::ClickLeft);
            }
            Action::ClickRight => {
                commands.push(Command::Click(Button::Right));
                events.push(Event::ClickRight);
            }
            Action::ClickMiddle => {
                commands.push(Command::Click(Button::Middle));
                events.push(Event::ClickMiddle);
            }
            Action::DoubleClick => {
                commands.push(Command::DoubleClick(Button::Left));
                events.push(Event::ClickDouble);
            }
            Action::DragToggle => {
                if self.dragging {
                    commands.push(Command::Release(Button::Left));
                    events.push(Event::DragEnd);
                } else {
                    commands.push(Command::Press(Button::Left));
                    events.push(Event::DragStart);
                }
                self.dragging = !self.dragging;
            }
            Action::ScrollMode => {
                if self.scroll_anchor.is_some() {
                    self.end_scroll(events);
                } else {
                    self.scroll_anchor = Some(pointer);
                    self.scroll_last_t = Some(t_ms);
                    self.scroll_rest_since = None;
                    events.push(Event::ScrollStart);
                }
                self.scroll_acc = [0.0, 0.0];
            }
            Action::OpenMenu => {
                commands.push(Command::OpenMenu);
                events.push(Event::OpenMenu);
            }
            Action::PointScan => self.start_point_scan(t_ms, events),
            Action::Recenter => intents.recenter = true,
            Action::NextMonitor => intents.next_monitor = true,
            Action::Key(chord) => commands.push(Command::Key(chord.clone())),
            Action::Pause | Action::None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chord(s: &str) -> crate::command::Chord {
        crate::command::Chord::parse(s).expect("chord")
    }

    fn tracked() -> Observation {
        Observation { state: TrackState::Tracking, ..Observation::default() }
    }

    /// A tracked frame that ends a long blink.
    fn long_blink() -> Observation {
        Observation { events: vec![Event::LongBlink], ..tracked() }
    }

    struct Run {
        d: SwitchDecider,
        t: f64,
        commands: Vec<Command>,
        events: Vec<Event>,
    }

    impl Run {
        fn new(s: SwitchSettings) -> Self {
            Self { d: SwitchDecider::new(&s), t: 0.0, commands: Vec::new(), events: Vec::new() }
        }
        /// `n` frames of 33 ms with `obs`.
        fn frames(&mut self, n: usize, obs: &Observation) {
            for _ in 0..n {
                self.d.decide(obs, [100.0, 100.0], false, self.t, &mut self.commands, &mut self.events);
                self.t += 33.3;
            }
        }
        /// A brow raise held for `ms`.
        fn raise(&mut self, ms: f64) {
            let mut up = tracked();
            up.brows_raised = true;
            self.frames((ms / 33.3).round() as usize, &up);
            self.frames(1, &tracked());
        }
        fn presses(&self) -> usize {
            self.commands.iter().filter(|c| matches!(c, Command::Click(_) | Command::DoubleClick(_) | Command::Press(_))).count()
        }
    }

    #[test]
    fn a_brow_raise_clicks_once_when_the_brows_come_down() {
        let mut r = Run::new(SwitchSettings::default());
        r.frames(90, &tracked());
        r.raise(500.0);
        assert_eq!(r.presses(), 1);
        assert_eq!(r.events.iter().filter(|e| **e == Event::ClickLeft).count(), 1);
    }

    /// Gestures seen while the trackers may be on something else
    /// (`Observation::doubtful`) do nothing: a long blink, a raise begun or
    /// ended on such a frame, or held through one. A clear raise after
    /// them still clicks.
    #[test]
    fn gestures_on_doubtful_frames_do_nothing() {
        let mut r = Run::new(SwitchSettings::default());
        r.frames(90, &tracked());
        let doubtful = |o: Observation| Observation { doubtful: true, ..o };
        r.frames(1, &doubtful(long_blink()));
        let up = Observation { brows_raised: true, ..tracked() };
        // Begun on a doubtful frame.
        r.frames(1, &doubtful(up.clone()));
        r.frames(12, &up);
        r.frames(1, &tracked());
        r.frames(60, &tracked());
        // Held through one.
        r.frames(6, &up);
        r.frames(1, &doubtful(up.clone()));
        r.frames(6, &up);
        r.frames(1, &tracked());
        r.frames(60, &tracked());
        // Ended on one.
        r.frames(12, &up);
        r.frames(1, &doubtful(tracked()));
        r.frames(60, &tracked());
        assert_eq!(r.presses(), 0, "{:?}", r.commands);
        r.raise(500.0);
        assert_eq!(r.presses(), 1);
    }

    #[test]
    fn a_gesture_bound_to_open_menu_asks_for_the_menu_and_clicks_nothing() {
        let mut r = Run::new(SwitchSettings { brow_raise: Action::OpenMenu, ..SwitchSettings::default() });
        r.frames(90, &tracked());
        r.raise(500.0);
        assert_eq!(r.presses(), 0);
        assert_eq!(r.events.iter().filter(|e| **e == Event::OpenMenu).count(), 1, "{:?}", r.events);
    }

    /// While the scanning menu takes the switch, a raise selects there (the
    /// click event) and presses nothing on the desktop; afterwards it clicks again.
    #[test]
    fn while_scanning_takes_the_switch_a_raise_clicks_nothing_on_the_desktop() {
        let mut r = Run::new(SwitchSettings::default());
        r.frames(90, &tracked());
        r.d.set_to_scanner(true);
        r.raise(500.0);
        assert_eq!(r.presses(), 0, "{:?}", r.commands);
        assert_eq!(r.events.iter().filter(|e| **e == Event::ClickLeft).count(), 1, "the scanning select still comes: {:?}", r.events);
        r.d.set_to_scanner(false);
        r.frames(30, &tracked());
        r.raise(500.0);
        assert_eq!(r.presses(), 1);
    }

    #[test]
    fn nothing_clicks_in_the_grace_after_a_start_at_login() {
        let mut r = Run::new(SwitchSettings::default());
        r.d.set_quiet_until(10_000.0);
        r.frames(90, &tracked());
        r.raise(500.0);
        assert_eq!(r.presses(), 0, "a raise 3.5 s after the start");
        while r.t < 10_000.0 {
            r.frames(1, &tracked());
        }
        r.raise(500.0);
        assert_eq!(r.presses(), 1, "after the grace");
    }

    /// A key or switch button clicks as the external switch is bound, with
    /// the face lost too, under the cooldown; nothing while paused.
    #[test]
    fn the_external_switch_acts_without_the_face_under_the_same_rules() {
        let mut r = Run::new(SwitchSettings::default());
        let mut intents = Intents::default();
        let lost = Observation::default();
        r.frames(10, &lost);
        r.d.external_press([10.0, 20.0], r.t, &mut r.commands, &mut r.events, &mut intents);
        assert_eq!(r.presses(), 1, "{:?}", r.commands);
        assert!(r.commands.contains(&Command::MoveTo { x: 10.0, y: 20.0 }), "at the pointer");
        r.d.external_press([10.0, 20.0], r.t + 100.0, &mut r.commands, &mut r.events, &mut intents);
        assert_eq!(r.presses(), 1, "the cooldown holds");
        let (mut c, mut e) = (Vec::new(), Vec::new());
        r.d.set_paused(true, &mut c, &mut e);
        r.d.external_press([10.0, 20.0], r.t + 5000.0, &mut r.commands, &mut r.events, &mut intents);
        assert_eq!(r.presses(), 1, "nothing while paused");
    }

    #[test]
    fn every_click_is_an_event_the_middle_one_too() {
        for (action, event) in [(Action::ClickLeft, Event::ClickLeft), (Action::ClickRight, Event::ClickRight), (Action::ClickMiddle, Event::ClickMiddle), (Action::DoubleClick, Event::ClickDouble)] {
            let mut r = Run::new(SwitchSettings { brow_raise: action.clone(), ..SwitchSettings::default() });
            r.frames(90, &tracked());
            r.raise(500.0);
            assert_eq!(r.presses(), 1, "{action:?}");
            assert_eq!(r.events.iter().filter(|e| e.is_click()).copied().collect::<Vec<_>>(), vec![event], "{action:?}");
        }
    }

    #[test]
    fn new_switch_settings_take_effect_on_the_next_raise() {
        let mut r = Run::new(SwitchSettings::default());
        r.frames(90, &tracked());
        r.raise(500.0);
        r.frames(30, &tracked());
        r.d.set_settings(&SwitchSettings { brow_raise: Action::ClickRight, ..SwitchSettings::default() });
        r.raise(500.0);
        assert_eq!(r.events.iter().filter(|e| e.is_click()).copied().collect::<Vec<_>>(), vec![Event::ClickLeft, Event::ClickRight]);
    }

    #[test]
    fn nothing_clicks_while_lost_searching_or_in_the_startup_grace() {
        let mut r = Run::new(SwitchSettings::default());
        let mut lost = Observation { state: TrackState::Lost, brows_raised: true, events: vec![Event::LongBlink], ..Observation::default() };
        r.frames(60, &lost);
        lost.state = TrackState::Searching;
        r.frames(60, &lost);
        // Tracking starts: a raise within the first 2 s does nothing.
        r.frames(10, &tracked());
        r.raise(400.0);
        let lb = long_blink();
        r.frames(1, &lb);
        assert_eq!(r.presses(), 0);
        r.frames(60, &tracked());
        r.raise(400.0);
        assert_eq!(r.presses(), 1, "after the grace it works");
    }

    #[test]
    fn a_cooldown_ignores_repeats_and_the_rate_is_capped() {
        let s = SwitchSettings { long_blink: Action::ClickLeft, max_clicks_per_minute: 3, ..SwitchSettings::default() };
        let mut r = Run::new(s);
        r.frames(90, &tracked());
        let lb = long_blink();
        r.frames(1, &lb);
        r.frames(3, &tracked());
        r.frames(1, &lb); // 130 ms later: within the cooldown
        assert_eq!(r.presses(), 1);
        for _ in 0..5 {
            r.frames(30, &tracked());
            r.frames(1, &lb);
        }
        assert_eq!(r.presses(), 3, "at most 3 per minute");
        r.frames(1800, &tracked()); // a minute later
        r.frames(1, &lb);
        assert_eq!(r.presses(), 4);
    }

    #[test]
    fn a_long_raise_pauses_without_clicking_and_the_same_gesture_resumes() {
        let mut r = Run::new(SwitchSettings::default());
        r.frames(90, &tracked());
        r.raise(1800.0);
        assert!(r.d.paused());
        assert_eq!(r.presses(), 0, "a pause raise never clicks");
        assert!(r.events.contains(&Event::Pause));
        // While paused: triggers do nothing and the pointer does not move.
        let n = r.commands.len();
        r.raise(400.0);
        let lb = long_blink();
        r.frames(1, &lb);
        assert_eq!(r.commands.len(), n, "no commands while paused");
        r.raise(1800.0);
        assert!(!r.d.paused());
        assert!(r.events.contains(&Event::Resume));
        r.frames(30, &tracked());
        r.raise(400.0);
        assert_eq!(r.presses(), 1);
    }

    #[test]
    fn the_pause_gesture_works_even_during_the_grace_and_cooldown() {
        let mut r = Run::new(SwitchSettings::default());
        r.frames(5, &tracked());
        r.raise(1700.0);
        assert!(r.d.paused());
    }

    #[test]
    fn a_held_button_is_released_on_pause_and_on_loss() {
        let s = SwitchSettings { long_blink: Action::DragToggle, ..SwitchSettings::default() };
        let mut r = Run::new(s.clone());
        r.frames(90, &tracked());
        let lb = long_blink();
        r.frames(1, &lb);
        assert!(r.d.dragging());
        r.raise(1700.0); // pause
        assert!(!r.d.dragging());
        assert_eq!(r.commands.iter().filter(|c| matches!(c, Command::Release(Button::Left))).count(), 1);
        assert!(r.events.contains(&Event::DragEnd));

        let mut r = Run::new(s);
        r.frames(90, &tracked());
        r.frames(1, &lb);
        assert!(r.d.dragging());
        r.frames(1, &Observation { state: TrackState::Lost, ..Observation::default() });
        assert!(!r.d.dragging());
        assert!(matches!(r.commands.last(), Some(Command::Release(Button::Left))));
    }

    #[test]
    fn bindings_choose_the_action() {
        let s = SwitchSettings {
            wink_left: Action::Key(chord("ctrl+z")),
            wink_right: Action::DoubleClick,
            dwell: Action::ClickRight,
            ..SwitchSettings::default()
        };
        let mut r = Run::new(s);
        r.frames(90, &tracked());
        let mut w = tracked();
        w.events = vec![Event::WinkLeft];
        r.frames(1, &w);
        r.frames(20, &tracked());
        w.events = vec![Event::WinkRight];
        r.frames(1, &w);
        r.frames(20, &tracked());
        r.d.decide(&tracked(), [5.0, 5.0], true, r.t, &mut r.commands, &mut r.events);
        assert!(r.commands.contains(&Command::Key(chord("ctrl+z"))));
        assert!(r.commands.contains(&Command::DoubleClick(Button::Left)));
        assert!(r.commands.contains(&Command::Click(Button::Right)));
        assert!(r.events.contains(&Event::Dwell));
    }

    #[test]
    fn a_dwell_on_facemouses_own_windows_clicks_nothing_on_the_desktop() {
        let s = SwitchSettings { dwell: Action::ClickLeft, ..SwitchSettings::default() };
        let mut r = Run::new(s);
        r.frames(90, &tracked());
        r.d.set_own_areas(&[ScreenArea { x: 0, y: 500, width: 1280, height: 300 }]);
        assert!(!r.d.dwell_acts([640.0, 600.0]) && r.d.dwell_acts([640.0, 400.0]));
        r.d.decide(&tracked(), [640.0, 600.0], true, r.t, &mut r.commands, &mut r.events);
        assert_eq!(r.presses(), 0, "on the menu window: {:?}", r.commands);
        assert!(!r.events.contains(&Event::Dwell));
        r.t += 2000.0;
        r.d.decide(&tracked(), [640.0, 400.0], true, r.t, &mut r.commands, &mut r.events);
        assert_eq!(r.presses(), 1, "on the desktop: {:?}", r.commands);
        r.d.set_paused(true, &mut r.commands, &mut r.events);
        assert!(!r.d.dwell_acts([640.0, 400.0]), "paused: no dwell");
    }

    /// A decider in scroll mode (started by a long blink at [500, 500]) at 3 s.
    fn scrolling() -> (SwitchDecider, Vec<Command>, Vec<Event>) {
        let s = SwitchSettings { long_blink: Action::ScrollMode, ..SwitchSettings::default() };
        let mut d = SwitchDecider::new(&s);
        let (mut c, mut e) = (Vec::new(), Vec::new());
        for i in 0..90 {
            d.decide(&tracked(), [500.0, 500.0], false, f64::from(i) * 33.3, &mut c, &mut e);
        }
        d.decide(&long_blink(), [500.0, 500.0], false, 3000.0, &mut c, &mut e);
        assert!(d.scrolling() && e.contains(&Event::ScrollStart));
        c.clear();
        e.clear();
        (d, c, e)
    }

    fn steps(c: &[Command]) -> (i32, i32) {
        c.iter().fold((0, 0), |(x, y), c| if let Command::Scroll { dx, dy } = c { (x + dx.abs(), y + dy.abs()) } else { (x, y) })
    }

    #[test]
    fn scroll_mode_turns_motion_into_scrolling() {
        let (mut d, mut c, mut e) = scrolling();
        // A small displacement scrolls slowly and the pointer goes back to the anchor.
        let mut t = 3000.0;
        for _ in 0..30 {
            t += 33.3;
            let i = d.decide(&tracked(), [500.0, 510.0], false, t, &mut c, &mut e);
            assert_eq!(i.pointer_to, Some([500.0, 500.0]));
        }
        // 10 px a frame at 40 px a step: a step every 4 frames, the remainders adding up.
        assert_eq!(steps(&c), (0, 7), "{c:?}");
        assert!(c.iter().all(|c| matches!(c, Command::Scroll { dy, .. } if *dy > 0)), "down: {c:?}");
    }

    /// A head turned far away scrolled 100 steps a second down and 250
    /// across; at most `SCROLL_MAX_STEPS_PER_S` a second on each axis now.
    #[test]
    fn scrolling_has_a_top_speed() {
        let (mut d, mut c, mut e) = scrolling();
        let mut t = 3000.0;
        for _ in 0..60 {
            t += 33.3;
            d.decide(&tracked(), [1800.0, 1000.0], false, t, &mut c, &mut e);
        }
        let (x, y) = steps(&c);
        let most = (SCROLL_MAX_STEPS_PER_S * 2.0).ceil() as i32 + 1;
        assert!(x <= most && y <= most && x >= most - 3, "2 s far away: {x} across and {y} down, at most {most}");
    }

    /// The pointer is pinned while scrolling, so "No click" on the toolbar
    /// could never be reached: resting at the anchor for a second ends
    /// scrolling by itself, and the pointer is free again.
    /// The head held away to scroll a long page: the pointer stays still
    /// there (a dwell), which must not end the scrolling.
    #[test]
    fn a_head_held_away_keeps_scrolling_whatever_the_dwell() {
        let (mut d, mut c, mut e) = scrolling();
        // Scrolling by dwell, as the toolbar's "Scroll" sets it.
        d.set_settings(&SwitchSettings { dwell: Action::ScrollMode, long_blink: Action::ScrollMode, ..SwitchSettings::default() });
        let mut t = 3000.0;
        for _ in 0..150 {
            t += 33.3;
            d.decide(&tracked(), [500.0, 700.0], true, t, &mut c, &mut e);
        }
        assert!(d.scrolling(), "still scrolling after 5 s held away: {e:?}");
        assert!(steps(&c).1 >= 60, "about 15 steps a second all along: {}", steps(&c).1);
    }

    #[test]
    fn a_rest_at_the_anchor_ends_scrolling_and_frees_the_pointer() {
        let (mut d, mut c, mut e) = scrolling();
        let mut t = 3000.0;
        for _ in 0..20 {
            t += 33.3;
            d.decide(&tracked(), [500.0, 700.0], false, t, &mut c, &mut e);
        }
        assert!(d.scrolling() && steps(&c).1 > 0);
        let mut ended = None;
        for _ in 0..45 {
            t += 33.3;
            let i = d.decide(&tracked(), [500.0, 505.0], false, t, &mut c, &mut e);
            if !d.scrolling() && ended.is_none() {
                ended = Some(t);
                assert_eq!(i.pointer_to, None, "free again");
            }
        }
        let ended = ended.expect("scrolling ended by the rest");
        assert!((ended - 3666.0 - SCROLL_REST_END_MS).abs() < 70.0, "after a second's rest: {ended}");
        assert_eq!(e.iter().filter(|e| **e == Event::ScrollEnd).count(), 1);
        c.clear();
        t += 33.3;
        d.decide(&tracked(), [900.0, 300.0], false, t, &mut c, &mut e);
        assert_eq!(c, vec![Command::MoveTo { x: 900.0, y: 300.0 }], "the pointer moves again");
    }

    /// Scrolling by dwell ended by the rest at its anchor: the user still
    /// resting there must not start it again a dwell later.
    #[test]
    fn the_rest_that_ended_scrolling_does_not_start_it_again() {
        let s = SwitchSettings { dwell: Action::ScrollMode, ..SwitchSettings::default() };
        let mut d = SwitchDecider::new(&s);
        let (mut c, mut e) = (Vec::new(), Vec::new());
        let mut t = 0.0;
        for _ in 0..90 {
            t += 33.3;
            d.decide(&tracked(), [500.0, 500.0], false, t, &mut c, &mut e);
        }
        d.decide(&tracked(), [500.0, 500.0], true, t, &mut c, &mut e);
        assert!(d.scrolling());
        // Resting at the anchor: ended after a second; the dwell keeps coming, nothing starts again.
        for _ in 0..150 {
            t += 33.3;
            d.decide(&tracked(), [502.0, 503.0], true, t, &mut c, &mut e);
        }
        assert!(!d.scrolling(), "{e:?}");
        assert_eq!(e.iter().filter(|e| **e == Event::ScrollStart).count(), 1, "{e:?}");
        // Away and back: a new dwell starts it again.
        t += 33.3;
        d.decide(&tracked(), [800.0, 500.0], false, t, &mut c, &mut e);
        t += 700.0;
        d.decide(&tracked(), [800.0, 500.0], true, t, &mut c, &mut e);
        assert!(d.scrolling(), "a new rest elsewhere scrolls");
    }

    /// A second press within the cooldown was dropped without a sign.
    #[test]
    fn a_press_too_soon_is_ignored_with_a_sign() {
        let mut r = Run::new(SwitchSettings::default());
        r.frames(90, &tracked());
        let mut intents = Intents::default();
        r.d.external_press([100.0, 100.0], r.t, &mut r.commands, &mut r.events, &mut intents);
        r.d.external_press([100.0, 100.0], r.t + 200.0, &mut r.commands, &mut r.events, &mut intents);
        assert_eq!(r.presses(), 1);
        assert_eq!(r.events.last(), Some(&Event::SwitchIgnored), "{:?}", r.events);
    }

    #[test]
    fn the_switch_ends_scrolling_and_does_nothing_else() {
        let (mut d, mut c, mut e) = scrolling();
        let mut intents = Intents::default();
        d.external_press([520.0, 700.0], 3100.0, &mut c, &mut e, &mut intents);
        assert!(!d.scrolling());
        assert!(c.is_empty() && e == vec![Event::ScrollEnd], "no click: {c:?} {e:?}");
        // The next press is the switch's own action again.
        d.external_press([520.0, 700.0], 4200.0, &mut c, &mut e, &mut intents);
        assert!(c.contains(&Command::Click(Button::Left)), "{c:?}");
    }

    /// While paused the switch was ignored (six presses selected nothing),
    /// and a switch user may be unable to make the face's pause gesture: a
    /// press resumes, and only resumes.
    #[test]
    fn while_paused_the_switch_resumes() {
        let mut r = Run::new(SwitchSettings::default());
        r.frames(90, &tracked());
        r.d.set_paused(true, &mut r.commands, &mut r.events);
        r.commands.clear();
        let mut intents = Intents::default();
        r.d.external_press([100.0, 100.0], r.t, &mut r.commands, &mut r.events, &mut intents);
        assert!(!r.d.paused(), "resumed");
        assert_eq!(r.presses(), 0, "a resume clicks nothing: {:?}", r.commands);
        assert_eq!(r.events.last(), Some(&Event::Resume));
        r.t += 1500.0;
        r.d.external_press([100.0, 100.0], r.t, &mut r.commands, &mut r.events, &mut intents);
        assert_eq!(r.presses(), 1, "then the switch clicks again");
    }

    /// The switch alone, with no face at all: a press starts point
    /// scanning, the next stops the line across, the next clicks at the
    /// crossing with the dwell's click type, on the desktop even while the
    /// window's scanning menu takes the switch.
    #[test]
    fn point_scanning_clicks_where_the_lines_cross_by_the_switch_alone() {
        let s = SwitchSettings { external: Action::PointScan, dwell: Action::ClickRight, point_scan_sweep_ms: 4000.0, ..SwitchSettings::default() };
        let mut r = Run::new(s);
        r.d.set_area([0.0, 0.0, 1001.0, 401.0]);
        r.d.set_to_scanner(true);
        let nobody = Observation::default();
        let mut intents = Intents::default();
        r.d.external_press([5.0, 5.0], 0.0, &mut r.commands, &mut r.events, &mut intents);
        assert_eq!(r.events, vec![Event::PointScanStart]);
        r.frames(30, &nobody);
        assert!(r.commands.iter().all(|c| matches!(c, Command::MoveTo { .. })), "the pointer shows the line: {:?}", r.commands);
        let (x, y) = r.d.point_scan_lines(1000.0).expect("scanning");
        assert!((x - 250.0).abs() < 1e-6 && y.is_none());
        r.d.external_press([5.0, 5.0], 1000.0, &mut r.commands, &mut r.events, &mut intents);
        assert_eq!(r.d.point_scan_lines(2000.0), Some((250.0, Some(100.0))));
        // A press too soon after the last is ignored with a sign.
        r.d.external_press([5.0, 5.0], 1200.0, &mut r.commands, &mut r.events, &mut intents);
        assert_eq!(r.events.last(), Some(&Event::SwitchIgnored));
        r.commands.clear();
        r.d.external_press([5.0, 5.0], 3000.0, &mut r.commands, &mut r.events, &mut intents);
        assert_eq!(r.commands, vec![Command::MoveTo { x: 250.0, y: 200.0 }, Command::Click(Button::Right)]);
        assert_eq!(&r.events[r.events.len() - 2..], &[Event::ClickRight, Event::PointScanEnd]);
        assert!(r.d.point_scan_lines(3000.0).is_none());
    }

    #[test]
    fn point_scanning_ends_by_itself_and_on_pause_and_a_gesture_that_clicks_presses_it() {
        let s = SwitchSettings { point_scan_sweep_ms: 2000.0, ..SwitchSettings::default() };
        let mut r = Run::new(s.clone());
        r.d.set_area([0.0, 0.0, 1000.0, 500.0]);
        r.frames(90, &tracked());
        r.d.start_point_scan(r.t, &mut r.events);
        r.frames(125, &tracked());
        assert!(r.d.point_scan_lines(r.t).is_none(), "two sweeps without a press end it");
        assert_eq!(r.events.last(), Some(&Event::PointScanEnd));
        assert_eq!(r.presses(), 0);
        // A pause ends it too.
        r.d.start_point_scan(r.t, &mut r.events);
        r.d.set_paused(true, &mut r.commands, &mut r.events);
        r.frames(1, &tracked());
        assert!(r.d.point_scan_lines(r.t).is_none());
        r.d.set_paused(false, &mut r.commands, &mut r.events);
        // The brow raise (a left click) stops the line, then clicks at the crossing, not at the face's pointer.
        r.d.start_point_scan(r.t, &mut r.events);
        r.frames(20, &tracked());
        r.raise(300.0);
        assert!(r.d.point_scan_lines(r.t).is_some_and(|(_, y)| y.is_some()), "stopped across");
        r.frames(20, &tracked());
        r.commands.clear();
        r.raise(300.0);
        assert_eq!(r.presses(), 1, "{:?} {:?}", r.commands, r.events);
        assert!(!r.commands.contains(&Command::MoveTo { x: 100.0, y: 100.0 }), "{:?}", r.commands);
    }

    #[test]
    fn bindings_read_from_toml() {
        let s: SwitchSettings = toml::from_str("brow_raise = \"double_click\"\nwink_left = { key = \"alt+tab\" }\n").expect("toml");
        assert_eq!(s.brow_raise, Action::DoubleClick);
        assert_eq!(s.wink_left, Action::Key(chord("alt+tab")));
    }
}
