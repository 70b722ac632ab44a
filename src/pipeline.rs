//! The pipeline: one frame in, one trace record and a list of commands out.
//!
//! `tick` reads top to bottom as the data flow of `ARCHITECTURE.md`:
//! observe → estimate pose → map pointer → decide switches → emit.
//! Each stage is a value with a narrow interface; none reaches into another.

use std::time::Instant;

use crate::capture::Frame;
use crate::models::Models;
use crate::output::Command;
use crate::pointer::PointerMapper;
use crate::pose::PoseEstimator;
use crate::profile::Settings;
use crate::switch::{Intents, SwitchDecider};
use crate::trace::TraceRecord;
use crate::vision::{Observation, Vision};

/// The stages, owned together.
pub struct Pipeline {
    settings: Settings,
    vision: Vision,
    pose: PoseEstimator,
    pointer: PointerMapper,
    switch: SwitchDecider,
    /// What the switch stage asked of the pointer stage last frame.
    intents: Intents,
    // Buffers reused across ticks.
    obs: Observation,
    commands: Vec<Command>,
    record: TraceRecord,
    /// Events from requests between frames (pause from the window), for the next record.
    pending_events: Vec<crate::events::Event>,
    /// Presses of the external switch since the last frame.
    external_presses: u32,
    /// The window asked for point scanning since the last frame.
    point_scan_asked: bool,
    /// The desktop dwell counting this frame (where, how far).
    dwell_ring: Option<(crate::events::Point, f64)>,
    /// The size of the frames seen so far: a frame of another size starts
    /// tracking again (positions from one size mean nothing in another).
    frame_size: Option<(i32, i32)>,
}

impl Pipeline {
    /// The stages for `settings`, running `models` (found and checked once
    /// by [`Models::load`]; a missing one leaves its stage without it).
    #[must_use]
    pub fn new(settings: &Settings, models: &Models) -> Self {
        Self {
            settings: settings.clone(),
            vision: Vision::with_models(settings.vision.clone(), models.face_detector(), models.eye_confirmer()),
            pose: PoseEstimator::new(models.pose.clone()),
            pointer: PointerMapper::new(&settings.pointer),
            switch: new_switch(settings),
            intents: Intents::default(),
            obs: Observation::default(),
            commands: Vec::with_capacity(8),
            record: TraceRecord { events: Vec::with_capacity(8), ..TraceRecord::default() },
            pending_events: Vec::new(),
            external_presses: 0,
            point_scan_asked: false,
            dwell_ring: None,
            frame_size: None,
        }
    }

    /// The last frame's observation (for plots and diagnostics).
    #[must_use]
    pub fn observation(&self) -> &Observation {
        &self.obs
    }

    /// Commands that leave no button pressed (on exit); the caller performs them.
    pub fn shutdown(&mut self) -> Vec<Command> {
        let mut commands = Vec::new();
        let mut events = Vec::new();
        self.switch.release_all(&mut commands, &mut events);
        commands
    }

    /// Whether frames come at their own pace (a camera, a recording played
    /// in real time): then nothing in the pipeline waits for a helper
    /// thread's answer (AHM's model is taken when it is ready); otherwise
    /// (a replay) it waits, so that the trace is the same every time.
    pub fn set_live(&mut self, live: bool) {
        self.vision.set_live(live);
    }

    /// Starts afresh for another source (a camera change, a recording that
    /// starts again) without loading the models again: vision looks for the
    /// face anew and every stage's clock starts over. The pointer stays where
    /// it is, and a pause stays. Returns the commands that leave nothing pressed.
    pub fn restart(&mut self) -> Vec<Command> {
        let commands = self.shutdown();
        self.frame_size = None;
        self.vision.restart();
        let paused = self.switch.paused();
        self.switch = new_switch(&self.settings);
        let mut events = Vec::new();
        let mut ignored = Vec::new();
        self.switch.set_paused(paused, &mut ignored, &mut events);
        let at = self.pointer.position();
        self.pointer = PointerMapper::new(&self.settings.pointer);
        self.pointer.set_position(at);
        self.intents = Intents { hold_pointer: paused, ..Intents::default() };
        self.pending_events.clear();
        commands
    }

    /// Point scanning starts (or, under way, ends) with the next frame (the window's "Point scan").
    pub fn point_scan(&mut self) {
        self.point_scan_asked = true;
    }

    /// The point scan's lines at the last frame (the vertical line's x,
    /// and the horizontal one's y once the first has stopped), while one is under way.
    #[must_use]
    pub fn point_scan_lines(&self) -> Option<(f64, Option<f64>)> {
        self.switch.point_scan_lines(self.record.t_ms)
    }

    /// The external switch was pressed: its action comes with the next frame.
    pub fn press_external_switch(&mut self) {
        self.external_presses = self.external_presses.saturating_add(1);
    }

    /// No action before `t_ms` (the frames' clock; see [`SwitchDecider::set_quiet_until`]).
    pub fn set_quiet_until(&mut self, t_ms: f64) {
        self.switch.set_quiet_until(t_ms);
    }

    /// While the window's scanning menu takes the switch, its clicks press
    /// nothing on the desktop (see [`SwitchDecider::set_to_scanner`]).
    pub fn set_switch_to_scanner(&mut self, to_scanner: bool) {
        self.switch.set_to_scanner(to_scanner);
    }

    /// Where Facemouse's own windows are: the desktop dwell does nothing there.
    pub fn set_own_areas(&mut self, areas: &[crate::settings::ScreenArea]) {
        self.switch.set_own_areas(areas);
    }

    /// The desktop dwell counting at the last frame: where the pointer
    /// is and how far the count has gone (0 to 1). `None` when a dwell
    /// would do nothing there (none bound, paused, not tracked, on one of
    /// Facemouse's own windows).
    #[must_use]
    pub fn dwell_ring(&self) -> Option<(crate::events::Point, f64)> {
        self.dwell_ring
    }

    /// Pauses or resumes (from the window); returns the commands that leave nothing pressed.
    pub fn set_paused(&mut self, paused: bool) -> Vec<Command> {
        let mut commands = Vec::new();
        self.switch.set_paused(paused, &mut commands, &mut self.pending_events);
        self.intents.hold_pointer = paused;
        commands
    }

    /// The head's displacement from its neutral position, in the pointer's input units.
    #[must_use]
    pub fn displacement(&self) -> Option<crate::events::Point> {
        self.pointer.displacement()
    }

    /// Replaces the settings of every stage (after a calibration, a profile
    /// switch, an edit); they apply from the next frame. The pointer stays
    /// where it is, and what the switch has under way (a held button, a
    /// pause) stays as it is.
    pub fn set_settings(&mut self, settings: &Settings) {
        // The monitor moved to with "next monitor" stays, unless the profile chose another.
        let chosen = (settings.pointer.monitor == self.settings.pointer.monitor).then(|| self.pointer.monitor());
        // What the pointer stage learned (the head's neutral pose) stays too.
        self.pointer.set_settings(&settings.pointer);
        if let Some(m) = chosen {
            self.pointer.set_monitor(m);
        }
        self.vision.set_settings(settings.vision.clone());
        self.switch.set_settings(&settings.switch);
        self.switch.set_area(desktop_area(settings));
        self.settings = settings.clone();
    }

    /// The settings in force.
    #[must_use]
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Makes the current head position the neutral one (from the window).
    pub fn recenter(&mut self) {
        self.intents.recenter = true;
    }

    /// Moves the pointer on to the next monitor at the next frame (from the window's menu).
    pub fn next_monitor(&mut self) {
        self.intents.next_monitor = true;
    }

    /// The last frame's trace record.
    #[must_use]
    pub fn record(&self) -> &TraceRecord {
        &self.record
    }

    /// The last frame's latency: from its arrival to its commands handed to
    /// the output (the session measures it once it has handed them over).
    pub fn set_latency_us(&mut self, us: u64) {
        self.record.latency_us = us;
    }

    /// Whether the user has paused.
    #[must_use]
    pub fn paused(&self) -> bool {
        self.switch.paused()
    }

    /// Processes one frame that arrived at `arrived`. Returns the trace record
    /// and the commands for the output stage.
    pub fn tick(&mut self, frame: &Frame, arrived: Instant) -> (&TraceRecord, &[Command]) {
        self.commands.clear();
        let (w, h) = frame.size();
        // A frame of another size (a folder of mixed images, a camera that
        // changed its mode): the trackers' places and the pointer's
        // reference mean nothing any more, so tracking starts again, as for
        // a new source, and nothing stays pressed.
        if self.frame_size.is_some_and(|s| s != (w, h)) {
            tracing::debug!("pipeline: frame {} is {w}x{h}, not {:?}: tracking starts again", frame.index, self.frame_size);
            let released = self.restart();
            self.commands.extend(released);
        }
        self.frame_size = Some((w, h));
        self.vision.observe(frame, &mut self.obs);
        // While AHM carries the pointer, the pose is AHM's (there are no points to estimate it from).
        let pose = self.pose.estimate(&self.obs, f64::from(w), f64::from(h)).or_else(|| self.obs.carried.map(|c| crate::pose::Pose { yaw: c.yaw, pitch: c.pitch, roll: 0.0 }));
        if self.intents.recenter {
            self.pointer.recenter();
        }
        if std::mem::take(&mut self.intents.next_monitor) && self.pointer.next_monitor().is_some() {
            self.pending_events.push(crate::events::Event::NextMonitor);
        }
        let pointer = self.pointer.map(&self.obs, pose.as_ref(), frame.t_ms, self.intents.hold_pointer);
        let rec = &mut self.record;
        rec.events.clear();
        rec.events.append(&mut self.pending_events);
        rec.events.extend_from_slice(&self.obs.events);
        self.intents = self.switch.decide(&self.obs, pointer.pos, pointer.dwell, frame.t_ms, &mut self.commands, &mut rec.events);
        let tracked = self.obs.state == crate::events::TrackState::Tracking;
        // The ring goes round the pointer (which may wander within the dwell's radius).
        self.dwell_ring = pointer.dwelling.filter(|_| tracked && self.switch.dwell_acts(pointer.pos)).map(|(_, frac)| (pointer.pos, frac));
        if std::mem::take(&mut self.point_scan_asked) {
            self.switch.start_point_scan(frame.t_ms, &mut rec.events);
        }
        for _ in 0..std::mem::take(&mut self.external_presses) {
            self.switch.external_press(pointer.pos, frame.t_ms, &mut self.commands, &mut rec.events, &mut self.intents);
        }
        if let Some(p) = self.intents.pointer_to {
            self.pointer.set_position(p);
        }

        rec.frame = frame.index;
        rec.t_ms = frame.t_ms;
        rec.state = self.obs.state;
        rec.le = self.obs.le;
        rec.re = self.obs.re;
        rec.lb = self.obs.lb;
        rec.rb = self.obs.rb;
        rec.feature = self.obs.feature;
        rec.eyes_closed = self.obs.eyes_closed;
        rec.brows_raised = self.obs.brows_raised;
        rec.talking = self.obs.talking;
        rec.pose = pose;
        rec.pointer = Some(self.pointer.position());
        // Less what a replay's frame waited for the face model's training,
        // which a live frame never does: the figure is the pipeline's work.
        rec.proc_us = u64::try_from(arrived.elapsed().as_micros()).unwrap_or(u64::MAX).saturating_sub(self.obs.model_wait_us);
        (&self.record, &self.commands)
    }
}

/// The switch stage for `settings`, sweeping the desktop the pointer maps onto.
fn new_switch(settings: &Settings) -> SwitchDecider {
    let mut s = SwitchDecider::new(&settings.switch);
    s.set_area(desktop_area(settings));
    s
}

/// The desktop the pointer maps onto: left, top, width, height.
fn desktop_area(settings: &Settings) -> [f64; 4] {
    let p = &settings.pointer;
    [f64::from(p.screen_x), f64::from(p.screen_y), f64::from(p.screen_width), f64::from(p.screen_height)]
}
