//! Every threshold of vision, in one place.
//!
//! Sizes are in inter-ocular distances (IOD), so they hold for a face 30 px
//! or 100 px across; times are in milliseconds of the frames' own clock
//! (`t_ms`), so they hold at 6 fps as at 30; correlations are normalized
//! (−1..1). Nothing here counts frames. Where a level differs from person to
//! person (how open an eye is, how far a brow sits above it), it is learned
//! online and these constants only bound it.

// ---------------------------------------------------------------------------
// Finding the face (`face.rs`, `search.rs`, drift checks in `track.rs`)

/// The face detector works on a copy of the frame at least this large (width, height).
pub const FACE_WORK_SIZE: (i32, i32) = (160, 120);
/// Near a known face, the detector looks at a square this many eye distances
/// across, at this many pixels (the face then fills most of its input) ...
pub const FACE_CROP_IODS: f64 = 3.2;
pub const FACE_CROP_SIZE: i32 = 96;
/// ... and never at an input smaller than this (the model fails on tiny inputs).
pub const FACE_MIN_INPUT: i32 = 64;
/// The detector's confidence below which a face is ignored.
pub const FACE_MIN_SCORE: f64 = 0.6;
/// Tracking starts from a detected face only at this score or more (a face
/// whose eyes a patterned cover hides scored 0.61 to 0.91; a start on every
/// development clip, 0.97 or more) ...
pub const FACE_START_SCORE: f64 = 0.8;
/// ... and where its eyes correlate with the generic eye this much, the mean
/// of the two (a patterned cover the detector scored 0.8 or more: at most
/// 0.35; the development clips: at least 0.505).
pub const GENERIC_EYE_FLOOR: f64 = 0.42;
/// The smallest eye distance (pixels) that is tracked.
pub const MIN_IOD_PX: f64 = 12.0;
/// The generic eye (width, height) that finds the eyes near the detector's
/// points, scaled to their distance, and how far from them it looks.
pub const GENERIC_EYE: (f64, f64) = (0.6, 0.4);
pub const EYE_FIND_REACH: f64 = 0.15;
/// The eyes found near the detector's eye points must be this far apart, relative to its points.
pub const FACE_IOD_RATIO: (f64, f64) = (0.75, 1.3);
/// A drift check asked on one frame is answered on the first frame this much later.
pub const FACE_ANSWER_MS: f64 = 150.0;
/// While tracking, the detector checks the trackers this often ...
pub const DRIFT_CHECK_MS: f64 = 1000.0;
/// ... a tracked eye farther than this from the detector's is drifting ...
pub const DRIFT_MAX: f64 = 0.35;
/// ... and this many drifting checks in a row start the trackers again on the detected face
pub const DRIFT_STRIKES: u32 = 2;
/// (after a blink, but after this many whatever the eyes look like: eyes
/// that stay "closed" through four checks, over four seconds, are trackers
/// on something else. Back from a 90° turn of a generated head, the
/// trackers started again on the turned face were 0.35–0.58 eye distances
/// off the detector's for 27 s, the eye state read them as shut, and
/// nothing started them again.)
pub const DRIFT_STRIKES_ANYWAY: u32 = 4;
/// One eye farther than this from the detector's (the other nearer) on this
/// many checks in a row is looked for again beside the other eye. On every
/// development clip and copy it was so on at most two checks in a row; on
/// the eyes placed on a glasses rim (moving p1-c, generated black frames),
/// on 7 to 56.
pub const EYE_ASTRAY: f64 = 0.2;
pub const ASTRAY_CHECKS: u32 = 4;
/// Both eyes that far off, their offsets from the detector's within this of
/// each other (eye distances), are off the same way: a pair on something
/// else. On every development clip, copy, moving, talking and glasses set,
/// never two checks in a row; on eyes placed on the brows (p1-b lit from
/// behind, p1-a at 0.4 of its size), 59 and 11.
pub const PAIR_ASTRAY_AGREE: f64 = 0.15;
/// Eyes closed or brows raised delay the check, never past this.
pub const UNSURE_CHECK_MS: f64 = 2500.0;
/// A feature that has stayed within `STILL_REACH` eye distances for
/// `STILL_MS`, while the scene outside the face changed, is checked on the
/// whole frame (`vision::still`) ...
pub const STILL_REACH: f64 = 0.05;
pub const STILL_MS: f64 = 1500.0;
/// ... the scene being a thumbnail `THUMB_WIDTH` pixels across, taken every
/// `THUMB_MS`, ...
pub const THUMB_WIDTH: i32 = 32;
pub const THUMB_MS: f64 = 250.0;
/// ... without the face: a box about the eyes' midpoint, in eye distances to
/// the left, right, up and down (the hair above, the chin and neck below) ...
pub const SCENE_FACE_BOX: (f64, f64, f64, f64) = (1.6, 1.6, 1.6, 2.6);
/// ... changed where this share of its cells moved by more than
/// `SCENE_CELL_CHANGE` grey levels beyond the median change (exposure).
pub const SCENE_CELL_CHANGE: f64 = 12.0;
pub const SCENE_CHANGED_SHARE: f64 = 0.05;

// ---------------------------------------------------------------------------
// Self-initialization from blinks without a face (`blinklink.rs`, `haar.rs`, `search.rs`)

/// The width BlinkLink works at (larger frames are reduced to it).
pub const BLINK_WORK_WIDTH: i32 = 320;
/// Grey-level change that counts as motion.
pub const DIFF_THRESHOLD: f64 = 12.0;
/// A frame where more than this share of pixels changed is global motion.
pub const MAX_CHANGED_SHARE: f64 = 0.02;
/// Blob pairs: largest area ratio, steepest slope, spacing in blob widths.
pub const MAX_AREA_RATIO: f64 = 3.0;
pub const MAX_SLOPE: f64 = 0.36;
pub const MIN_SPACING_WIDTHS: f64 = 1.5;
pub const MAX_SPACING_WIDTHS: f64 = 16.0;
/// Inter-ocular distance as a share of the frame width.
pub const MIN_IOD_SHARE: f64 = 0.05;
pub const MAX_IOD_SHARE: f64 = 0.45;
/// Mirror symmetry the two eye regions must show.
pub const MIN_MIRROR_NCC: f64 = 0.35;
/// Eye regions are scaled so the IOD is about this many pixels for the eye
/// cascade (its smallest eye is 20 pixels).
pub const HAAR_NORMALIZED_IOD: f64 = 50.0;
/// Eye distances, relative to a blob pair's spacing, at which a pair the
/// cascade does not confirm is looked at again (a half-seen blink).
pub const NARROWER_PAIR: [f64; 2] = [0.85, 0.72];
/// How much an eye must look like the mirror image of the other to stand in for the cascade.
pub const MIRROR_EYE_NCC: f64 = 0.7;
/// Eyebrows sit about this far above the eyes.
pub const BROW_ABOVE_EYE: f64 = 0.35;
/// Upward shift of the brows' profiles (both brows added) that says they went up.
pub const BROWS_UP_MIN_SHIFT: f64 = 0.02;
/// Initializing: wait this long after the blink for the eyes to reopen ...
pub const INIT_WAIT_MS: f64 = 300.0;
/// ... and give up when they have not reopened after this long.
pub const INIT_GIVE_UP_MS: f64 = 2500.0;
/// Iris size (the scale of the dark-blob filter) and how far the iris may be from a guess (x, y).
pub const IRIS_SIGMA: f64 = 0.07;
pub const IRIS_REACH: (f64, f64) = (0.16, 0.12);
/// Mirror-likeness given up per IOD that a refined eye moves from its guess.
pub const WANDER_COST: f64 = 0.5;

// ---------------------------------------------------------------------------
// Tracking (`track.rs`)

/// Template sizes (width, height).
pub const EYE_TEMPLATE: (f64, f64) = (0.55, 0.36);
pub const FEATURE_TEMPLATE: (f64, f64) = (0.45, 0.45);
pub const BROW_TEMPLATE: (f64, f64) = (0.6, 0.24);
/// The brow's template is centred this far above the brow (into the forehead, away from the lid).
pub const BROW_TEMPLATE_RISE: f64 = 0.1;
pub const POSE_TEMPLATES: [(f64, f64); 2] = [(0.4, 0.4), (0.45, 0.4)];
/// The feature's search radius: at least this ...
pub const FEATURE_SEARCH_MIN: f64 = 0.3;
/// ... and as far as a head moving this fast (IOD per second) goes in one frame interval ...
pub const HEAD_SPEED: f64 = 5.0;
/// ... but no farther than this.
pub const FEATURE_SEARCH_MAX: f64 = 1.2;
/// Eyes, brows and pose points are searched this far around where the feature puts them.
pub const EYE_SEARCH: (f64, f64) = (0.15, 0.12);
pub const BROW_SEARCH: (f64, f64) = (0.06, 0.16);
pub const POSE_POINT_SEARCH: f64 = 0.12;
/// The feature's correlation floor: below it for `LOST_AFTER_MS`, tracking is lost ...
pub const FEATURE_FLOOR: f64 = 0.45;
pub const LOST_AFTER_MS: f64 = 150.0;
/// ... or this far below its usual match.
pub const FEATURE_DROP: f64 = 0.3;
/// Neither eye matching its template this well means no eyes are there.
pub const EYES_FLOOR: f64 = 0.45;
/// An eye patch whose grey levels spread less than this (standard
/// deviation, grey levels) shows nothing: a hand or a card over the eye,
/// not a closed eye. Real eyes, open or shut, spread at least 9.2 on every
/// development clip (FOCUS and ZJU, 320x240 to 640x480); a flat block under
/// a webcam's noise about 3.
pub const UNIFORM_EYE_SPREAD: f64 = 5.0;
/// The time constant of the eye distance the brows' height is measured in
/// (slower than a head turn, as fast as a change of posture).
pub const BROW_SCALE_TAU_MS: f64 = 4000.0;
/// A frame is reliable for eye and brow decisions when the feature matches at least this well
/// (and not far below its usual match).
pub const RELIABLE_FEATURE: f64 = 0.7;
pub const RELIABLE_DROP: f64 = 0.15;
/// The time constant of the feature's usual match.
pub const FEATURE_SCORE_TAU_MS: f64 = 2000.0;
/// The eye distance may change by this factor, and the eye line tilt by this much.
pub const IOD_RATIO: (f64, f64) = (0.65, 1.5);
pub const MAX_TILT_DEG: f64 = 40.0;
/// Below this correlation an eye, brow or pose point is not trusted for its position (it follows the feature).
pub const POSITION_FLOOR: f64 = 0.5;
pub const BROW_POSITION_FLOOR: f64 = 0.3;
/// Offsets from the feature follow the tracked points with this time constant.
pub const OFFSET_TAU_MS: f64 = 150.0;
/// The feature's velocity is smoothed with this time constant.
pub const VELOCITY_TAU_MS: f64 = 50.0;
/// Feature template refresh: how often, and the drift guard against the first template.
pub const REFRESH_MS: f64 = 1000.0;
pub const DRIFT_GUARD_NCC: f64 = 0.6;
/// Eye templates taken from closed eyes (tracking started during a blink)
/// match the person's blinks better than their open eyes: when both eyes'
/// best match during a closure beats their usual match with the eyes open
/// (an average over `OPEN_MATCH_TAU_MS`, once `OPEN_MATCH_MS` of open eyes
/// were seen) by this much, the templates are taken again from open eyes.
/// Templates of open eyes match a blink less than the open eyes.
pub const CLOSED_TEMPLATE_MARGIN: f64 = 0.1;
pub const OPEN_MATCH_TAU_MS: f64 = 1000.0;
pub const OPEN_MATCH_MS: f64 = 300.0;

// ---------------------------------------------------------------------------
// Recovery (`recover.rs`)

/// The stored templates must match this well to take tracking up again ...
pub const REDETECT_NCC: f64 = 0.7;
/// ... first near where the face was (this many IOD), after this long anywhere.
pub const REDETECT_NEAR: f64 = 1.5;
pub const REDETECT_EVERYWHERE_MS: f64 = 500.0;
/// A start after a loss keeps the anchor's feature (`search::keep_feature`)
/// where its template matches this well, this near the start's own feature
/// (in the anchor's eye distances).
pub const KEEP_FEATURE_NCC: f64 = 0.9;
pub const KEEP_FEATURE_NEAR: f64 = 0.25;

// ---------------------------------------------------------------------------
// Eye state (`eyes.rs`)

/// Each eye's patch (width, height) compared with the eye's recent open look,
/// and how far it is aligned.
pub const EYE_PATCH: (f64, f64) = (0.6, 0.3);
/// ... but never less than this many pixels high (a small face's patch is mostly noise otherwise).
pub const EYE_PATCH_MIN_PX: f64 = 12.0;
pub const EYE_ALIGN: f64 = 0.06;
/// Below this correlation with its open look, an eye (shut) is taken where the tracker puts it, not where it matches best.
pub const ALIGNED_NCC: f64 = 0.5;
/// The open look follows the eye with this time constant (gaze, lids, light)
/// while no blink is under way.
pub const OPEN_TAU_MS: f64 = 300.0;
/// The rest level of the departure from the open look: its median and spread
/// over this long of open frames, and how many frames it needs before deciding.
pub const EYE_WINDOW_MS: f64 = 4000.0;
/// ... but only the latter half of the time since the eyes' looks were
/// taken, and never less than this.
pub const EYE_REST_MIN_MS: f64 = 600.0;
pub const EYE_MIN_SAMPLES: usize = 3;
/// A blink starts when both eyes depart from their open look by more than the
/// span: this many spreads of the rest level, never less than `EYE_MIN_SPAN` ...
pub const EYE_SPAN_SIGMAS: f64 = 6.0;
pub const EYE_MIN_SPAN: f64 = 0.05;
/// ... nor less than this share of the person's own blinks (once two were seen).
pub const EYE_DEPTH_SHARE: f64 = 0.25;
/// ... and never more than this share of the person's blinks once one was
/// seen: a head that moves as the person talks widens the rest's spread,
/// and on a small face six of it came to more than the blinks depart
/// (moving ZJU people at 192×144: 0.64 of their blinks; 0.5 to 0.75 here
/// all give 0.75 to 0.78).
pub const EYE_SPAN_DEPTH_CAP: f64 = 0.6;
/// Closure in spans: a blink starts at `EYE_ON` (each eye at least half of it) ...
pub const EYE_ON: f64 = 1.0;
/// A blink from a held look (lids lowered to look down, read as closed) is
/// given as it turns back below this share of its deepest, as a blink from
/// open eyes is given as the eyes start to reopen. Given when the lids were
/// back, p2's blinks inside her looks down came a frame or more past the
/// scorer's tolerance at 0.4 of the size: a miss and a false blink each.
pub const HELD_DIP_TURN: f64 = 0.85;
/// ... and the eyes have come back when closure falls below this, or below this share of its peak ...
pub const EYE_RETURN: f64 = 0.4;
pub const EYE_RETURN_SHARE: f64 = 0.5;
/// A closure that turns back within `EARLY_TURN_MS` of its start (a lid
/// closes and turns in about a tenth to a fifth of a second) is given as a
/// blink as soon as it falls below this share of its deepest: at the turn,
/// not at the slow end of the reopening (lids can take a quarter of a second
/// to be back). A later turn (a glance that comes half way back) waits for
/// the usual end.
pub const EARLY_RETURN_SHARE: f64 = 0.75;
pub const EARLY_TURN_MS: f64 = 250.0;
/// ... a long blink's once closure falls below this share of its deepest (the eyes look as before) ...
pub const LONG_RETURN_SHARE: f64 = 0.15;
/// ... after which closure must fall below this before the next blink can start.
pub const EYE_REARM: f64 = 0.5;
/// A camera whose frames come this far apart or more (below 11 fps) sees a
/// blink on one frame, often part way (the lids close and open in a fifth
/// of a second): a frame on which both eyes' closures rise from rest to
/// `GLIMPSE_ON` of the threshold is a blink if their mean closure falls to
/// `GLIMPSE_BACK` of its deepest or less within `BLINK_MAX_MS` (a look that
/// stays is no blink). A fixation outlasts such a frame; a blink does not.
/// At higher rates a blink shows on several frames and the threshold holds.
pub const GLIMPSE_FRAME_MS: f64 = 90.0;
pub const GLIMPSE_ON: f64 = 0.45;
pub const GLIMPSE_BACK: f64 = 0.5;
/// A departure that has not come back after this long is a blink only if the
/// eyes look like the person's own closed eyes; otherwise it is the new open
/// look (a gaze shift, lids lowered while looking up).
pub const BLINK_MAX_MS: f64 = 400.0;
/// While a departure holds: a further change from how the eyes look in the
/// hold that reaches this share of the hold's own depth (against the open
/// look) is the eyes leaving the look through a blink.
pub const LEAVE_BLINK_SHARE: f64 = 1.2;
/// A closure that has not reopened after this long is not a long blink: the
/// eyes look like this now.
pub const LONG_BLINK_MAX_MS: f64 = 3000.0;
/// An eye looks closed when it is at least this share of the person's blinks
/// away from its open look, once this many blinks were seen.
pub const CLOSED_DEPTH_SHARE: f64 = 0.5;
pub const MIN_BLINKS: u32 = 1;
/// A long blink's eyes must also, on a frame of its hold, both be this many
/// spans past their rest level (closure; 1 is the blink threshold), whatever
/// the blinks taught. Closed eyes are far past the threshold: unless its
/// floor (`EYE_MIN_SPAN`) is larger, the span is at most `EYE_SPAN_DEPTH_CAP`
/// of the person's blinks, so an eye shut as deep as they go is 1.67 spans
/// away or more (generated long blinks: 2.4 to 7.8). (Eyes that, shut,
/// depart less than 1.5 floors, 0.075, from their rest level give no long
/// blink: no right click rather than a false one.) The
/// first blink alone teaches the closed level, and when it was a closure that
/// only just crossed the threshold, half of it was within the eyes' noise: a
/// second's look at 1.0–1.2 spans then held "shut" and was a long blink, a
/// right click (a 0.6-scale copy of focus-p1-a).
pub const SHUT_CLOSURE: f64 = 1.5;
/// Eyes held shut stay this near the closure's own deepest point (lids that
/// reopen half way and stay there are not held shut).
pub const HOLD_SHARE: f64 = 0.65;
/// A blink seen in the lids alone (`EyeState::dip_blink`): both eyes'
/// openness down by this much or more, with no closure under way ...
pub const DIP_FALL: f64 = 0.4;
/// ... and back, within `BLINK_MAX_MS`, to under this share of the dip's
/// deepest on either eye. (Chosen from a sweep: on the development clips and
/// their moved, lit and slower copies it may add no more than a false blink
/// a group, and it finds most on real people talking; the real clips of
/// people pulling faces, held out, agree. docs/accuracy.md.)
pub const DIP_BACK: f64 = 0.6;
/// A closure stops being one after the eyes have not looked closed for this long.
pub const NOT_CLOSED_MS: f64 = 150.0;
/// A blink teaches the closed level only if the eyes are back at rest this soon after it.
pub const CONFIRM_MS: f64 = 400.0;
/// The closed level follows the person's blinks as an exponential average at
/// this rate per blink (each confirmed blink moves it 1 − e^−0.3 ≈ 26 % of the way).
pub const CLOSED_LEARN: f64 = 0.3;
/// Two blink events closer than this are one blink seen twice. A double
/// blink is two blinks about a third of a second apart, so this stays below
/// that (400 ms lost the second blink of zju-s18's pair).
pub const BLINK_DEDUPE_MS: f64 = 250.0;
/// A wink: one eye closed this much, and at least `CLOSED_DEPTH_SHARE` as far
/// as the person's blinks close it; the other open below `WINK_OTHER_MAX`.
pub const WINK_CLOSED: f64 = 1.0;
pub const WINK_OTHER_MAX: f64 = 0.4;
/// ... and it starts from its eye open for at least `WINK_FROM_OPEN_MS`,
/// `WINK_AFTER_BOTH_MS` or more after both eyes were last away together (a
/// blink), shut within `WINK_ONSET_MS` (or two frames) of being open. (On
/// p1-a, p2-a and zju-s03 a wink may start on 0.60 to 0.66 of the frames,
/// against 0.71 to 0.94 with none of this; most of the rest is a blink's
/// half second.)
pub const WINK_FROM_OPEN_MS: f64 = 300.0;
pub const WINK_AFTER_BOTH_MS: f64 = 500.0;
pub const WINK_ONSET_MS: f64 = 200.0;
/// An eye departed this long without a blink under way looks like this now.
pub const ADOPT_MS: f64 = 600.0;
/// Tracking that starts while the eyes are shut (a clip, or a session, that
/// begins in a blink) takes its first looks of closed eyes, and their
/// opening is only a departure that stays. Within this long of the start,
/// eyes that depart from their first looks and open up are a blink: ...
pub const START_BLINK_MS: f64 = 600.0;
/// ... their openness (see `eyes::openness`) risen by this much over the
/// least open they were since (the first look's to begin with), on the mean
/// of both eyes and by half of it on each ... (development clips, every
/// frame as a start: of starts on shut eyes, 0.83 rise so far within 0.6 s;
/// of starts on open eyes with no blink near, 0.020; FOCUS 0.78 and 0.021,
/// ZJU 0.83 and 0.020; at 0.2, 0.72 and 0.010) ...
pub const START_OPENING: f64 = 0.15;
/// ... and each eye departed from its first look by at least this, plus
/// this many times the look's own noise (see `eyes::look_noise`: 0.002 to
/// 0.02 on the development clips, 0.03 to 0.07 on them lit from behind,
/// where noise alone departs 0.1 to 0.2 from any one frame and gave 7 false
/// blinks on the 18 ZJU starts; 3 times lost more blinks of the slower
/// copies).
pub const START_DEPARTURE: f64 = 0.1;
pub const START_NOISE_FACTOR: f64 = 2.0;

// ---------------------------------------------------------------------------
// Brows (`brows.rs`)

/// The brow is the nearest dark band above the eye at least this deep, relative to the deepest.
pub const BROW_BAND_SHARE: f64 = 0.5;
/// The brow is looked for this far above the eye (from, to, and the top of the profile).
pub const BROW_RANGE: (f64, f64, f64) = (0.15, 0.5, 0.62);
/// Where no thick band is found, a thin dip is taken for the brow only this
/// far above the eye (eye distances) and higher: below it lies the lid's
/// crease, dark in many faces (brows sit about 0.35 above, `BROW_ABOVE_EYE`).
pub const BROW_THIN_FROM: f64 = 0.25;
/// And only a dip this many grey levels deep: the profile averages a row
/// of 2 × `BROW_PROFILE_HALF_WIDTH` eye distances, so the sensor's noise
/// (2–3 levels a pixel) is under one level in it.
pub const BROW_THIN_DEPTH: f64 = 4.0;
/// Half the width of the brow's profile, and the smoothing over a brow's thickness.
pub const BROW_PROFILE_HALF_WIDTH: f64 = 0.22;
pub const BROW_THICKNESS: f64 = 0.08;
/// The rest level of the brows: the median over this long, and how much of it is needed.
pub const BROW_WINDOW_MS: f64 = 4000.0;
pub const BROW_WARMUP_MS: f64 = 500.0;
/// A raise rises from the rest level to the threshold within this long ...
pub const BROW_ONSET_MS: f64 = 400.0;
/// ... and a raise held longer than this is how the face rests now.
pub const BROW_RAISE_MAX_MS: f64 = 8000.0;
/// A raise is over once its lift falls below `off`, or below the `on`
/// threshold and this share of its own peak (most of the way down).
pub const BROW_RELEASE_SHARE: f64 = 0.4;
/// A raise must also lift the brows against the feature between the eyes by
/// this share of the threshold. The brows' height above the tracked eye
/// moves when only the eye does (a glance down on p2: 0.035 above rest, and
/// 0.002 against the feature); a raise lifts the brows against both (the
/// development clips' raises: at least 0.035 against the feature).
pub const SKULL_LIFT_SHARE: f64 = 0.5;
/// A raise lifts both brows: the lesser brow's lift (above its tracked eye,
/// against its own rest level) at least this share of the greater's, when
/// the raise fires. Set from the development clips' raises (17, the
/// lesser at 0.86 of the greater at least) with room for the copies' noise;
/// on every check set's copies of them (160 raises) the least was 0.71, on
/// generated expressive talking (15) 0.96.
/// Two false raises there were one-sided: a brow tracked onto the hair
/// line of a small moving face (0.51) and a face-maker's cocked brow (0.0).
pub const BROWS_TOGETHER: f64 = 0.6;
/// The brows are not measured while either eye's closure is above this
/// (a blink or a gaze shift moves the brow measure). Below the blink
/// threshold (1), because the reopening of a shallow blink still moves it.
pub const BROW_EYES_BUSY: f64 = 0.6;
/// While the eyes are away, the look they hold is the same while each eye's
/// closure stays within this of the look's (absolute in closure spans, or as
/// a share of it); beyond, the brows' rest level for the look starts afresh.
pub const LOOK_STEADY: (f64, f64) = (0.5, 0.25);
/// A raise during a look must rise this many times the profile's `brow_on`
/// above the look's level, and this many spreads of the look's own measure
/// (with one eye shut at 320×240, the brow template can flip between two
/// places 0.15 eye distances apart; p2's look up wanders by 0.004).
pub const LOOK_BROW_ON_FACTOR: f64 = 2.0;
pub const LOOK_NOISE_SIGMAS: f64 = 5.0;
/// The time constant of an open eye's openness level (`EyeState::lids_fell`).
pub const LIDS_TAU_MS: f64 = 300.0;
/// How far below that level an eye's openness must fall for lids that came
/// down. On the development clips, at the first frames of a closure past
/// `BROW_EYES_BUSY`: in a labelled blink the eye that departed more fell by
/// at least 0.1 in 91 % of 106 (median 0.30); in a labelled raise (whose
/// lid stretch departs from the open look too), by at most 0.08 (14). At
/// 0.06 p1's raise at 42.8 s was lost. A wink's eye must also fall by it.
pub const LIDS_FELL: f64 = 0.1;

// ---------------------------------------------------------------------------
// Speech (`mouth.rs`): while the mouth moves, no face gesture clicks

/// The lower face (mouth and chin) and the nose beside it, in the face's own
/// frame: across and down from the point between the eyes, in eye
/// distances; the patch's size in pixels; how far it may shift since the
/// earlier look. The mouth's region reaches 1.8 eye distances down: a head
/// turned 30° narrows the eye distance, and a region to 1.5 held only the
/// upper lip of a man turned so (public interview clip; his raises while
/// talking were then not seen as talking).
pub const SPEECH_MOUTH: super::mouth::Region = super::mouth::Region { across: (-0.55, 0.55), down: (0.7, 1.8), size: (44, 44), shift: 4 };
pub const SPEECH_NOSE: super::mouth::Region = super::mouth::Region { across: (-0.4, 0.4), down: (0.15, 0.65), size: (32, 20), shift: 3 };
/// The earlier look is the newest one at least this old (at 30 fps three
/// frames back, at 8 fps the last one) ...
pub const SPEECH_LAG_MS: f64 = 100.0;
/// ... and none older than this (after a gap there is nothing to compare with).
pub const SPEECH_STALE_MS: f64 = 400.0;
/// The mouth moved on a frame when its patch changed this much more than the
/// nose's (1 less the correlation). Development clips (nobody talks; 24
/// clips, 30 and 17 fps): at most 0.05 on 99 % of frames. Public clips of
/// 21 people talking: above it on 8 to 96 % of frames (median about 60 %).
pub const SPEECH_ACTIVE: f64 = 0.08;
/// Talking: the mouth moved on at least this many frames, and this share of
/// the frames, in the last `SPEECH_WINDOW_MS`. The development clips: never
/// (p1's and p2's lips part now and then, one or two frames at a time).
pub const SPEECH_WINDOW_MS: f64 = 1000.0;
pub const SPEECH_SHARE: f64 = 0.2;
pub const SPEECH_MIN_FRAMES: usize = 2;

// --- Carrying the pointer through large head turns (`carry`, Active Hidden Models) ---
/// AHM is taught from, started on and put back on a frame where the face
/// detector's eyes are within this of the trackers' (eye distances; its
/// points are about a tenth off) ...
pub const AHM_AGREE: f64 = 0.15;
/// ... on a frontal face: the detector's nose tip within this share of its
/// eye distance of the point between its eyes, along the eye line (about 6°
/// of yaw) ...
pub const AHM_FRONTAL: f64 = 0.05;
/// ... and the nose tip as far below them as on the first such face, within
/// this (about 9° of pitch) ...
pub const AHM_FRONTAL_NOD: f64 = 0.08;
/// ... with the eyes open and the mouth still (AHM_LEARN_AFTER_MS after
/// tracking started, for the model).
pub const AHM_LEARN_AFTER_MS: f64 = 1000.0;
/// The model is taken this long after it was asked, on the frames' clock
/// (its thread needs about 0.45 s alone on the 2-core development machine;
/// live, a frame never waits for it, a replay does).
pub const AHM_ANSWER_MS: f64 = 1500.0;
/// AHM carries the pointer at most this long without the templates (ms).
pub const CARRY_MAX_MS: f64 = 8000.0;
/// While AHM reads the head turned further than this (degrees of yaw or
/// pitch), the face detector's face does not start the templates again,
/// unless it is itself frontal (its nose within `AHM_RESTART_SHARE` eye
/// distances of where a frontal face has it, across and down, about 11°
/// of yaw and pitch): templates taken from
/// a face turned 35° were 0.2 eye distances off for the next 15 s
/// (generated turning heads).
pub const AHM_RESTART_DEG: f64 = 20.0;
pub const AHM_RESTART_SHARE: f64 = 0.1;
/// AHM follows and carries only while its window is like a view of the
/// face: the observation's squared distance from the training span (in the
/// kernel's feature space) at most this. Generated turning heads, followed
/// and carried to 90°: median 0.02, at most 0.087; real faces followed
/// (p1, p2, a model of their own frame on the generic head): median 0.07,
/// 95 % under 0.11; a generated face covered (a flat or patterned block, a
/// blank frame): 0.16–0.53.
pub const CARRY_MAX_RESIDUAL: f64 = 0.12;
/// While the templates track, AHM follows with one projection a frame
/// where it reads the head within this of frontal (degrees), two beyond.
pub const AHM_ONE_PASS_DEG: f64 = 8.0;
/// On a confirmed frontal face, AHM is put back on the templates' face
/// where it reads the head turned further than this (degrees) or puts the
/// point between the eyes this far from theirs (eye distances).
pub const AHM_RESYNC_DEG: f64 = 25.0;
pub const AHM_RESYNC: f64 = 0.15;
/// Where AHM, following the head, reads it turned or nodded further than
/// this (degrees), and the trackers' nose tip is `SWITCH_NOD` eye distances
/// nearer or further below the point between the eyes than on the first
/// confirmed frontal frame (about 11° of pitch), face gestures wait as while
/// talking: no raise starts, a long blink is a blink, a wink nothing.
pub const SWITCH_POSE_DEG: f64 = 25.0;
pub const SWITCH_NOD: f64 = 0.1;
/// A face lost this long (ms) takes AHM's model with it: whoever is tracked
/// next may be someone else (a carer, the next user), and gets their own.
pub const AHM_FORGET_MS: f64 = 20000.0;
/// A face the detector finds does not start the templates where AHM, sure
/// of the head (its window within `AHM_SURE_RESIDUAL` of the training
/// span), put the point between the eyes more than `AHM_RESTART_AGREE` eye
/// distances from theirs.
pub const AHM_RESTART_AGREE: f64 = 0.15;
pub const AHM_SURE_RESIDUAL: f64 = 0.06;
