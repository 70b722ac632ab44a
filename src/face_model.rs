//! The generic face that vision and pose both use: a generic 3D face of the
//! points the trackers give, the pose convention, and the camera that projects
//! it; and the shipped portrait (`assets/demo/astronaut.png`) with its
//! landmarks, from which vision cuts its generic eye templates.
//!
//! Coordinates in millimetres, head frame = camera frame at zero pose: x to the
//! image right (the subject's left), y up, z towards the camera. The origin is
//! the midpoint of the two eye centres (each the midpoint of its eye corners,
//! as the labels define them).
//!
//! Where the figures come from: the landmarks of MediaPipe's canonical face
//! mesh (`canonical_face_model.obj`, Apache-2.0; a metric average face, in
//! centimetres), the same landmarks the labels of `../shared/data` use, so
//! that the zero pose here is the zero pose there. Rounded to 0.1 mm:
//! - eye centres ±31.5 mm (each the midpoint of its corners, landmarks
//!   33/133 and 263/362; an eye distance of 63 mm, as Farkas's
//!   *Anthropometry of the Head and Face* (1994) gives for adults);
//! - the point between the eyes (landmark 168) 6.5 mm above the eye line and
//!   17.7 mm in front of it;
//! - the nose tip (landmark 1) 37.5 mm below the eye line and 40.1 mm in front;
//! - eyebrow centres (the mean of the ten brow landmarks a side) 36.3 mm out,
//!   19.4 mm above and 8.7 mm in front.
//!
//! An earlier version guessed the nose from nasal height and protrusion
//! (46 mm below, 30 mm in front); against the labels' own landmarks that read
//! every pose about 6–7° too high in pitch.

use nalgebra::{Matrix3, Rotation3, Unit, Vector3};
use serde::{Deserialize, Serialize};

use crate::events::{Point, dist, midpoint};

/// Head pose in degrees, with the signs of `../shared/data/README.md`:
/// yaw > 0 turns the nose to the image right, pitch > 0 is nose up,
/// roll > 0 tilts the head clockwise on screen.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Pose {
    pub yaw: f64,
    pub pitch: f64,
    pub roll: f64,
}

/// The points the pose uses, in this order.
pub const POINTS: [&str; 4] = ["le", "re", "mid", "nose"];

/// The generic face: `POINTS` in millimetres.
pub const FACE_MM: [[f64; 3]; 4] = [[31.5, 0.0, 0.0], [-31.5, 0.0, 0.0], [0.0, 6.5, 17.7], [0.0, -37.5, 40.1]];

/// R = Ry(yaw)·Rx(−pitch)·Rz(−roll), the decomposition of the labels.
#[must_use]
pub fn rotation(p: &Pose) -> Matrix3<f64> {
    let (y, x, z) = (p.yaw.to_radians(), -p.pitch.to_radians(), -p.roll.to_radians());
    let ry = Matrix3::new(y.cos(), 0.0, y.sin(), 0.0, 1.0, 0.0, -y.sin(), 0.0, y.cos());
    let rx = Matrix3::new(1.0, 0.0, 0.0, 0.0, x.cos(), -x.sin(), 0.0, x.sin(), x.cos());
    let rz = Matrix3::new(z.cos(), -z.sin(), 0.0, z.sin(), z.cos(), 0.0, 0.0, 0.0, 1.0);
    ry * rx * rz
}

/// A pinhole camera: focal length and principal point in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    pub f: f64,
    pub cx: f64,
    pub cy: f64,
}

impl Camera {
    /// The usual webcam: a focal length about the image width (≈ 53° horizontal field of view).
    #[must_use]
    pub fn for_image(width: f64, height: f64) -> Self {
        Self { f: width, cx: width / 2.0, cy: height / 2.0 }
    }

    /// Projects head-frame points rotated by `r`, with the head at `t` (mm, camera frame:
    /// the camera at the origin looking along −z, so a head in front has t.z < 0).
    #[must_use]
    pub fn project(&self, face: &[[f64; 3]], r: &Matrix3<f64>, t: &Vector3<f64>) -> Vec<Point> {
        face.iter()
            .map(|p| {
                let q = r * Vector3::new(p[0], p[1], p[2]) + t;
                let depth = -q.z;
                [self.cx + self.f * q.x / depth, self.cy - self.f * q.y / depth]
            })
            .collect()
    }
}

/// The rotation that turns the camera's optical axis towards the image point
/// `at`. A face off the axis is seen from the side: its pose relative to this
/// viewing ray (its apparent pose) is what the 2D pattern of its points shows.
#[must_use]
pub fn ray_rotation(cam: &Camera, at: Point) -> Matrix3<f64> {
    let d = Vector3::new((at[0] - cam.cx) / cam.f, -(at[1] - cam.cy) / cam.f, -1.0).normalize();
    let axis = Vector3::new(0.0, 0.0, -1.0);
    let cross = axis.cross(&d);
    let (s, c) = (cross.norm(), axis.dot(&d));
    if s < 1e-12 {
        return Matrix3::identity();
    }
    Rotation3::from_axis_angle(&Unit::new_normalize(cross), s.atan2(c)).into_inner()
}

/// Yaw, pitch, roll of R = Ry(yaw)·Rx(−pitch)·Rz(−roll).
#[must_use]
pub fn decompose(r: &Matrix3<f64>) -> Pose {
    let b = (-r[(1, 2)]).clamp(-1.0, 1.0).asin();
    let c = r[(1, 0)].atan2(r[(1, 1)]);
    let a = r[(0, 2)].atan2(r[(2, 2)]);
    Pose { yaw: a.to_degrees(), pitch: -b.to_degrees(), roll: -c.to_degrees() }
}

/// The pose relative to the camera from the apparent pose of a face seen at `at`.
#[must_use]
pub fn from_apparent(apparent: &Pose, cam: &Camera, at: Point) -> Pose {
    decompose(&(ray_rotation(cam, at) * rotation(apparent)))
}

/// The apparent pose (relative to the viewing ray) of a face with `pose` seen at `at`.
#[must_use]
pub fn to_apparent(pose: &Pose, cam: &Camera, at: Point) -> Pose {
    decompose(&(ray_rotation(cam, at).transpose() * rotation(pose)))
}

/// Where the generic face shows the point between the eyes and the nose tip
/// when the head is upright and faces the screen (pose zero in the camera's
/// frame), with its eye midpoint seen at `at` and its eyes `iod_px` apart:
/// offsets from the eye midpoint in eye distances, along the eye line (to the
/// image right) and up across it, for the point between the eyes and the nose.
/// Perspective shows the nearer nose a little lower than its proportions say,
/// and a face off the optical axis a little from the side.
#[must_use]
pub fn neutral_offsets(cam: &Camera, at: Point, iod_px: f64) -> [[f64; 2]; 2] {
    let iod_mm = FACE_MM[0][0] - FACE_MM[1][0];
    let plain = [[0.0, FACE_MM[2][1] / iod_mm], [0.0, FACE_MM[3][1] / iod_mm]];
    let ray = Vector3::new((at[0] - cam.cx) / cam.f, -(at[1] - cam.cy) / cam.f, -1.0);
    let depth = cam.f * iod_mm / iod_px.max(1.0);
    if depth <= 2.0 * FACE_MM[3][2] {
        return plain;
    }
    let pts = cam.project(&FACE_MM, &Matrix3::identity(), &(ray * depth));
    let (le, re) = (pts[0], pts[1]);
    let c = midpoint(le, re);
    let d = dist(le, re);
    if !d.is_finite() || d < 1e-6 {
        return plain;
    }
    let (e, up) = ([(le[0] - re[0]) / d, (le[1] - re[1]) / d], [(le[1] - re[1]) / d, -(le[0] - re[0]) / d]);
    let rel = |p: Point| {
        let v = [p[0] - c[0], p[1] - c[1]];
        [(v[0] * e[0] + v[1] * e[1]) / d, (v[0] * up[0] + v[1] * up[1]) / d]
    };
    [rel(pts[2]), rel(pts[3])]
}

/// The points as a camera turned to look straight at the eye midpoint would
/// see them. A face off the optical axis is not only seen from the side (see
/// [`ray_rotation`]) but also stretched by the slanted image plane; turning
/// the camera virtually removes both, so the pattern depends on the apparent
/// pose alone, wherever the face is in the image.
#[must_use]
pub fn on_axis(cam: &Camera, points: &[Point]) -> Option<Vec<Point>> {
    let (le, re) = (points.first()?, points.get(1)?);
    let rt = ray_rotation(cam, midpoint(*le, *re)).transpose();
    points
        .iter()
        .map(|p| {
            let d = rt * Vector3::new((p[0] - cam.cx) / cam.f, -(p[1] - cam.cy) / cam.f, -1.0);
            (d.z < -1e-9).then(|| [cam.cx + cam.f * d.x / -d.z, cam.cy - cam.f * d.y / -d.z])
        })
        .collect()
}

/// The input of the pose mappings for points seen by `cam`: [`normalize`] of
/// [`on_axis`], with the perspective of the face's depth taken out. A near
/// face shows its nose, nearer still, larger than a far one does; the
/// distance, judged from the eye distance, and the generic face's depths undo
/// that, so the input is the same near and far.
#[must_use]
pub fn features(cam: &Camera, points: &[Point]) -> Option<Vec<f64>> {
    let mut p = on_axis(cam, points)?;
    let iod_px = dist(p[0], p[1]);
    let depth = cam.f * (FACE_MM[0][0] - FACE_MM[1][0]) / iod_px.max(1e-9);
    if depth.is_finite() && depth > 2.0 * FACE_MM[3][2] {
        for (q, m) in p.iter_mut().zip(&FACE_MM) {
            let s = (depth - m[2]) / depth;
            *q = [cam.cx + (q[0] - cam.cx) * s, cam.cy + (q[1] - cam.cy) * s];
        }
    }
    normalize(&p)
}

/// The input of the pose mappings: the points relative to the eye midpoint,
/// in eye distances (invariant to where the face is and how big).
#[must_use]
pub fn normalize(points: &[Point]) -> Option<Vec<f64>> {
    let (le, re) = (points.first()?, points.get(1)?);
    let c = midpoint(*le, *re);
    let iod = dist(*le, *re);
    if !iod.is_finite() || iod < 1.0 {
        return None;
    }
    Some(points.iter().flat_map(|p| [(p[0] - c[0]) / iod, (p[1] - c[1]) / iod]).collect())
}

/// The shipped portrait (`assets/demo/astronaut.png`, 512×512), whose
/// landmarks are [`ASTRONAUT_LANDMARKS`].
#[must_use]
pub fn default_photo() -> std::path::PathBuf {
    crate::data_dir().join("assets").join("demo").join("astronaut.png")
}

/// Landmarks of a face photo, in the photo's pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PhotoLandmarks {
    /// Subject's left eye centre (image right), midpoint of its corners.
    pub le: Point,
    pub re: Point,
    /// Eyebrow centres (middle of each brow's visible arc).
    pub lb: Point,
    pub rb: Point,
    pub nose: Point,
    /// Between the eyes, on the bridge of the nose.
    pub mid: Point,
    /// Half the width and half the height of the eye opening.
    pub eye_half_w: f64,
    pub eye_half_h: f64,
    /// Horizontal spread (σ) of a brow lift.
    pub brow_half_len: f64,
    /// Height of the forehead band above the brows that a lift compresses.
    pub forehead_span: f64,
    /// Colour of the upper-lid skin (BGR), sampled from the photo when loaded.
    pub lid_skin_left: [f64; 3],
    pub lid_skin_right: [f64; 3],
}

impl PhotoLandmarks {
    /// Inter-ocular distance.
    #[must_use]
    pub fn iod(&self) -> f64 {
        dist(self.le, self.re)
    }

    /// Midpoint of the eye centres.
    #[must_use]
    pub fn eye_mid(&self) -> Point {
        [f64::midpoint(self.le[0], self.re[0]), f64::midpoint(self.le[1], self.re[1])]
    }

    /// Another face's points (the subject's left and right eye, brows, nose
    /// tip and the point between the eyes), with the shipped portrait's eye
    /// and brow sizes scaled to its eye distance: a face to put on the
    /// generic 3D head.
    #[must_use]
    pub fn with_portrait_sizes(le: Point, re: Point, lb: Point, rb: Point, nose: Point, mid: Point) -> Self {
        let a = ASTRONAUT_LANDMARKS;
        let k = dist(le, re) / a.iod();
        Self {
            le,
            re,
            lb,
            rb,
            nose,
            mid,
            eye_half_w: a.eye_half_w * k,
            eye_half_h: a.eye_half_h * k,
            brow_half_len: a.brow_half_len * k,
            forehead_span: a.forehead_span * k,
            ..a
        }
    }
}

/// The landmarks of `assets/demo/astronaut.png` (512×512), read by hand from
/// 8× zooms of the photo (see `assets/demo/README.md`).
pub const ASTRONAUT_LANDMARKS: PhotoLandmarks = PhotoLandmarks {
    le: [247.5, 103.5],
    re: [203.0, 101.0],
    lb: [250.0, 92.5],
    rb: [203.0, 90.5],
    nose: [224.0, 125.0],
    mid: [225.0, 100.0],
    eye_half_w: 11.0,
    eye_half_h: 5.0,
    brow_half_len: 12.0,
    forehead_span: 20.0,
    lid_skin_left: [0.0; 3],
    lid_skin_right: [0.0; 3],
};


#[cfg(test)]
mod tests {
    use super::*;

    fn view(p: Pose) -> Vec<Point> {
        let cam = Camera::for_image(640.0, 480.0);
        cam.project(&FACE_MM, &rotation(&p), &Vector3::new(0.0, 0.0, -600.0))
    }

    #[test]
    fn signs_follow_the_labels() {
        let zero = view(Pose { yaw: 0.0, pitch: 0.0, roll: 0.0 });
        assert!(zero[0][0] > zero[1][0], "the subject's left eye is on the image's right");
        let yaw = view(Pose { yaw: 20.0, pitch: 0.0, roll: 0.0 });
        assert!(yaw[3][0] > zero[3][0] + 5.0, "yaw > 0: the nose turns to the image right");
        let pitch = view(Pose { yaw: 0.0, pitch: 20.0, roll: 0.0 });
        assert!(pitch[3][1] < zero[3][1] - 5.0, "pitch > 0: the nose goes up (image y down)");
        let roll = view(Pose { yaw: 0.0, pitch: 0.0, roll: 15.0 });
        assert!(roll[0][1] > roll[1][1] + 5.0, "roll > 0: the image-right eye is lower");
    }

    #[test]
    fn apparent_pose_round_trips() {
        let cam = Camera::for_image(640.0, 480.0);
        let p = Pose { yaw: 25.0, pitch: -10.0, roll: 5.0 };
        let at = [520.0, 120.0];
        let back = from_apparent(&to_apparent(&p, &cam, at), &cam, at);
        assert!((back.yaw - p.yaw).abs() < 1e-9 && (back.pitch - p.pitch).abs() < 1e-9 && (back.roll - p.roll).abs() < 1e-9, "{back:?}");
        let centre = to_apparent(&p, &cam, [320.0, 240.0]);
        assert!((centre.yaw - p.yaw).abs() < 1e-9);
    }

    #[test]
    fn normalized_inputs_ignore_position_and_size() {
        let cam = Camera::for_image(640.0, 480.0);
        let r = rotation(&Pose { yaw: 10.0, pitch: -5.0, roll: 3.0 });
        let near = normalize(&cam.project(&FACE_MM, &r, &Vector3::new(-40.0, 20.0, -500.0))).expect("input");
        let far = normalize(&cam.project(&FACE_MM, &r, &Vector3::new(-48.0, 24.0, -600.0))).expect("input");
        for (a, b) in near.iter().zip(&far) {
            assert!((a - b).abs() < 0.01, "{near:?} vs {far:?}");
        }
    }

    #[test]
    fn features_depend_on_the_apparent_pose_not_on_where_the_face_is() {
        let cam = Camera::for_image(640.0, 480.0);
        let apparent = Pose { yaw: 12.0, pitch: -8.0, roll: 4.0 };
        let centred = features(&cam, &cam.project(&FACE_MM, &rotation(&apparent), &Vector3::new(0.0, 0.0, -550.0))).expect("input");
        for at in [[90.0, 60.0], [600.0, 400.0], [330.0, 470.0]] {
            // The same face turned towards the camera along the ray through `at`.
            let ray = ray_rotation(&cam, at);
            let t = ray * Vector3::new(0.0, 0.0, -550.0);
            let px = cam.project(&FACE_MM, &(ray * rotation(&apparent)), &t);
            let seen = features(&cam, &px).expect("input");
            let plain = normalize(&px).expect("input");
            let worst = |v: &[f64]| v.iter().zip(&centred).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            assert!(worst(&seen) < 1e-3, "at {at:?}: {seen:?} vs {centred:?}");
            assert!(worst(&plain) > 0.01, "without turning the camera the pattern changes at {at:?}");
        }
    }

    #[test]
    fn features_are_the_same_near_and_far() {
        let cam = Camera::for_image(640.0, 480.0);
        for pose in [Pose { yaw: 0.0, pitch: 0.0, roll: 0.0 }, Pose { yaw: 20.0, pitch: -10.0, roll: 5.0 }] {
            let at = |depth: f64| cam.project(&FACE_MM, &rotation(&pose), &Vector3::new(0.0, 0.0, -depth));
            let (near, far) = (at(350.0), at(900.0));
            let (fa, fb) = (features(&cam, &near).expect("input"), features(&cam, &far).expect("input"));
            let (na, nb) = (normalize(&near).expect("input"), normalize(&far).expect("input"));
            let worst = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
            assert!(worst(&fa, &fb) < 0.01, "{pose:?}: {fa:?} vs {fb:?}");
            assert!(worst(&na, &nb) > 0.04, "{pose:?}: perspective should show without the correction");
        }
    }
}
