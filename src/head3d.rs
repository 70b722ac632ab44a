//! A textured 3D head (#28): a face photo (the generator's edited portrait,
//! or AHM's frame of the user: `vision::carry`) mapped onto a generic head, an
//! ellipsoid 156 mm wide, 250 mm high and 200 mm deep with a nose on it, and
//! rendered at any yaw and pitch by casting a ray through every output pixel
//! the head can cover (an orthographic camera: the head is far from the
//! lens). The front half of the head takes the portrait, seen straight on;
//! the back half is hair. The head turns about the ellipsoid's centre, 85 mm
//! behind the eyes.
//!
//! Landmarks are points on the same surface, projected the same way; one the
//! head hides from the camera (the far eye past about 60° of yaw) gets no
//! label.

use opencv::core::{self, Mat, Scalar, Size};
use opencv::imgproc;
use opencv::prelude::*;

use crate::events::Point;
use crate::face_model::{PhotoLandmarks, Pose, rotation};

/// The head's half width, half height and half depth (mm).
const A: f64 = 78.0;
const B: f64 = 125.0;
const CZ: f64 = 100.0;
/// The ellipsoid's centre: 10 mm above the eye line, 85 mm behind it.
const CY: f64 = 10.0;
const CZ0: f64 = -85.0;
/// The eye distance the portrait's is taken for (mm; `face_model`).
const IOD_MM: f64 = 63.0;
/// The hair on the back of the head (BGR).
const HAIR: [f64; 3] = [32.0, 28.0, 30.0];
/// The scene behind the head (grey).
const SCENE: f64 = 92.0;

/// The nose on the ellipsoid: a ridge from the bridge (3 mm out, at the
/// point between the eyes) to the tip (33 mm out, 37.5 mm below the eye
/// line), 9 mm wide, gone 10 mm below the tip; with the ellipsoid it puts
/// the point between the eyes 17.7 mm and the tip 40.1 mm in front of the
/// eye line, as `face_model` has them.
fn nose(x: f64, y: f64) -> f64 {
    let height = if (-37.5..=6.5).contains(&y) {
        2.8 + 29.8 * (6.5 - y) / 44.0
    } else if (-48.0..-37.5).contains(&y) {
        32.6 * (1.0 - (-37.5 - y) / 10.5)
    } else {
        return 0.0;
    };
    height * (-(x * x) / (2.0 * 9.0 * 9.0)).exp()
}

/// The front surface's depth at (x, y) in the head's frame (mm), if the point is on the head.
fn surface(x: f64, y: f64) -> Option<f64> {
    let q = 1.0 - (x / A).powi(2) - ((y - CY) / B).powi(2);
    (q >= 0.0).then(|| CZ * q.sqrt() + CZ0 + nose(x, y))
}

/// Where the ray of camera point (qx, qy) meets the head: the parameter w
/// along the ray (larger is nearer the camera) and the point in the head's
/// frame, or `None` past the head.
fn cast(r: &nalgebra::Matrix3<f64>, qx: f64, qy: f64) -> Option<(f64, [f64; 3])> {
    // In the ellipsoid's frame the ray is b + w·d, d = Rᵀ e_z.
    let rt = r.transpose();
    let b = rt * nalgebra::Vector3::new(qx, qy - CY, 0.0);
    let d = rt * nalgebra::Vector3::new(0.0, 0.0, 1.0);
    let s = [A, B, CZ];
    let (mut qa, mut qb, mut qc) = (0.0, 0.0, -1.0);
    for k in 0..3 {
        qa += (d[k] / s[k]).powi(2);
        qb += 2.0 * b[k] * d[k] / (s[k] * s[k]);
        qc += (b[k] / s[k]).powi(2);
    }
    let disc = qb * qb - 4.0 * qa * qc;
    let at = |w: f64| [b[0] + w * d[0], b[1] + w * d[1] + CY, b[2] + w * d[2] + CZ0];
    let ellipsoid = (disc >= 0.0 && qa > 0.0).then(|| (-qb + disc.sqrt()) / (2.0 * qa));
    // The nose stands out of the ellipsoid (past its outline, in profile):
    // where the ray passes near it, step in from 40 mm in front of its
    // closest approach to the nose's middle to where it enters the surface.
    let middle = nalgebra::Vector3::new(0.0, -20.0 - CY, 25.0 - CZ0);
    let w0 = (middle - b).dot(&d);
    let closest = at(w0);
    if closest[0].abs() < 25.0 && (-52.0..12.0).contains(&closest[1]) {
        let inside = |w: f64| {
            let p = at(w);
            p[2] >= CZ0 && surface(p[0], p[1]).is_some_and(|z| p[2] <= z)
        };
        let floor = ellipsoid.unwrap_or(f64::NEG_INFINITY).max(w0 - 40.0);
        let mut w = w0 + 40.0;
        while w > floor {
            if inside(w) {
                // Entered between w + 1.5 and w: halve down to 0.1 mm.
                let (mut lo, mut hi) = (w, w + 1.5);
                for _ in 0..4 {
                    let mid = 0.5 * (lo + hi);
                    if inside(mid) { lo = mid } else { hi = mid }
                }
                return Some((lo, at(lo)));
            }
            w -= 1.5;
        }
    }
    ellipsoid.map(|w| (w, at(w)))
}

/// The renderer's buffers, kept from frame to frame.
#[derive(Default)]
pub struct Head3d {
    map_x: Mat,
    map_y: Mat,
    hair: Mat,
}

/// What a rendered frame's labels are: le, re, lb, rb, nose, mid (None: hidden).
pub type Points = [Option<Point>; 6];

/// Where the camera sees the head: the frame's size, where the eyes'
/// midpoint is when the head is frontal, and the eye distance in pixels.
#[derive(Debug, Clone, Copy)]
pub struct View {
    pub size: Size,
    pub origin: Point,
    pub iod_px: f64,
}

impl Head3d {
    /// Renders `photo` (the portrait with this frame's lids and brows) on
    /// the head at `yaw`, `pitch` (degrees) into `out` as `view` sees it,
    /// and returns where the landmarks are. `brow_lift` (photo pixels) is
    /// how far the brows were lifted.
    pub fn render(&mut self, photo: &Mat, lm: &PhotoLandmarks, pose: (f64, f64), view: View, brow_lift: f64, out: &mut Mat) -> Result<Points, opencv::Error> {
        self.render_within(photo, lm, pose, view, brow_lift, core::Rect::new(0, 0, view.size.width, view.size.height), out)
    }

    /// [`Self::render`], the head drawn only inside `within` (the scene
    /// elsewhere): for a reader of part of the frame, a ray a pixel it reads.
    #[allow(clippy::too_many_arguments)]
    pub fn render_within(&mut self, photo: &Mat, lm: &PhotoLandmarks, (yaw, pitch): (f64, f64), view: View, brow_lift: f64, within: core::Rect, out: &mut Mat) -> Result<Points, opencv::Error> {
        let View { size, origin, iod_px } = view;
        let r = rotation(&Pose { yaw, pitch, roll: 0.0 });
        let k = lm.iod() / IOD_MM;
        let c = lm.eye_mid();
        let s = iod_px / IOD_MM;
        let (w, h) = (size.width, size.height);
        // The buffers are kept from frame to frame, made again only for another size.
        if (self.hair.cols(), self.hair.rows()) == (w, h) {
            self.map_x.set_to_def(&Scalar::all(-10.0))?;
            self.map_y.set_to_def(&Scalar::all(-10.0))?;
            self.hair.set_to_def(&Scalar::all(0.0))?;
        } else {
            self.map_x = Mat::new_rows_cols_with_default(h, w, core::CV_32FC1, Scalar::all(-10.0))?;
            self.map_y = Mat::new_rows_cols_with_default(h, w, core::CV_32FC1, Scalar::all(-10.0))?;
            self.hair = Mat::new_rows_cols_with_default(h, w, core::CV_8UC1, Scalar::all(0.0))?;
        }
        // No ray beyond the head's reach from its centre can meet it.
        let cast_on = within & head_box(view) & core::Rect::new(0, 0, w, h);
        // Each row's three buffers taken once (not a checked call per pixel).
        let (x0, x1) = (usize::try_from(cast_on.x).unwrap_or(0), usize::try_from(cast_on.x + cast_on.width).unwrap_or(0));
        for v in cast_on.y..cast_on.y + cast_on.height {
            let qy = -(f64::from(v) - origin[1]) / s;
            let map_x = &mut self.map_x.at_row_mut::<f32>(v)?[x0..x1];
            let map_y = &mut self.map_y.at_row_mut::<f32>(v)?[x0..x1];
            let hair = &mut self.hair.at_row_mut::<u8>(v)?[x0..x1];
            for (i, u) in (cast_on.x..cast_on.x + cast_on.width).enumerate() {
                let qx = (f64::from(u) - origin[0]) / s;
                let Some((_, p)) = cast(&r, qx, qy) else { continue };
                if p[2] > CZ0 {
                    #[allow(clippy::cast_possible_truncation)]
                    {
                        map_x[i] = (c[0] + p[0] * k) as f32;
                        map_y[i] = (c[1] - p[1] * k) as f32;
                    }
                } else {
                    hair[i] = 255;
                }
            }
        }
        *out = Mat::new_rows_cols_with_default(h, w, core::CV_8UC3, Scalar::all(SCENE))?;
        imgproc::remap(photo, out, &self.map_x, &self.map_y, imgproc::INTER_LINEAR, core::BORDER_TRANSPARENT, Scalar::default())?;
        out.set_to(&Scalar::new(HAIR[0], HAIR[1], HAIR[2], 0.0), &self.hair)?;
        // The landmarks: on the surface under their place in the portrait,
        // hidden if the ray there meets the head more than 4 mm nearer the camera.
        let place = |q: Point, lift: f64| -> Option<Point> {
            let p = on_head(&r, lm, [q[0], q[1] - lift])?;
            let (hit, _) = cast(&r, p[0], p[1])?;
            (hit - p[2] < 4.0).then(|| to_pixel(view, p))
        };
        Ok([place(lm.le, 0.0), place(lm.re, 0.0), place(lm.lb, brow_lift), place(lm.rb, brow_lift), place(lm.nose, 0.0), place(lm.mid, 0.0)])
    }
}

/// How far any point of the head lies from the ellipsoid's centre (mm): at
/// most its largest half axis (`B`) plus the nose's height over the surface
/// (32.6), with a margin. The head turns about that centre, so at every pose
/// its picture lies within this distance of the centre's.
const REACH_MM: f64 = 160.0;

/// The pixels the head can cover in `view`, at any pose (see [`REACH_MM`]).
fn head_box(view: View) -> core::Rect {
    let (c, r) = (pivot(view), REACH_MM * view.iod_px / IOD_MM);
    #[allow(clippy::cast_possible_truncation)]
    let (x0, y0, x1, y1) = ((c[0] - r).floor() as i32 - 1, (c[1] - r).floor() as i32 - 1, (c[0] + r).ceil() as i32 + 2, (c[1] + r).ceil() as i32 + 2);
    core::Rect::new(x0, y0, x1 - x0, y1 - y0)
}

/// Where the head turns about (the ellipsoid's centre) appears: the same
/// point at every pose.
#[must_use]
pub fn pivot(view: View) -> Point {
    [view.origin[0], view.origin[1] - view.iod_px / IOD_MM * CY]
}

/// Where the portrait's point `q` (on the head's surface) appears at `pose`,
/// seen or hidden.
#[must_use]
pub fn project(lm: &PhotoLandmarks, (yaw, pitch): (f64, f64), view: View, q: Point) -> Option<Point> {
    on_head(&rotation(&Pose { yaw, pitch, roll: 0.0 }), lm, q).map(|p| to_pixel(view, p))
}

/// The portrait's point `q` on the head's surface, turned by `r`, in the
/// camera's frame (mm: x to the right, y up, z towards the camera; the
/// eyes' midpoint at the origin when frontal). Its z is the ray parameter
/// of [`cast`] (larger is nearer).
fn on_head(r: &nalgebra::Matrix3<f64>, lm: &PhotoLandmarks, q: Point) -> Option<nalgebra::Vector3<f64>> {
    let k = lm.iod() / IOD_MM;
    let c = lm.eye_mid();
    let (x, y) = ((q[0] - c[0]) / k, -(q[1] - c[1]) / k);
    let z = surface(x, y)?;
    let cam = r * nalgebra::Vector3::new(x, y - CY, z - CZ0);
    Some(nalgebra::Vector3::new(cam[0], cam[1] + CY, cam[2]))
}

/// Where the camera-frame point `p` (mm, as [`on_head`] gives it) is in the image.
fn to_pixel(view: View, p: nalgebra::Vector3<f64>) -> Point {
    let s = view.iod_px / IOD_MM;
    [view.origin[0] + s * p[0], view.origin[1] - s * p[1]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generic_head_has_the_face_models_depths() {
        let z = |x, y| surface(x, y).expect("on the head");
        assert!((z(0.0, 6.5) - 17.7).abs() < 0.3, "between the eyes: {}", z(0.0, 6.5));
        assert!((z(0.0, -37.5) - 40.1).abs() < 0.3, "the nose tip: {}", z(0.0, -37.5));
        assert!(z(31.5, 0.0) > 0.0 && z(31.5, 0.0) < 10.0, "the eyes a little in front of the eye line: {}", z(31.5, 0.0));
        assert!(surface(90.0, 0.0).is_none(), "beside the head");
    }

    /// A ray straight at the nose from the front meets the tip; turned 90°
    /// the near side of the head faces the camera, and its far eye is hidden.
    #[test]
    fn rays_meet_the_nose_first_and_a_profile_hides_the_far_eye() {
        let front = rotation(&Pose { yaw: 0.0, pitch: 0.0, roll: 0.0 });
        let (_, p) = cast(&front, 0.0, -37.5).expect("the nose");
        assert!((p[2] - 40.1).abs() < 0.5, "the tip: {p:?}");
        let side = rotation(&Pose { yaw: 90.0, pitch: 0.0, roll: 0.0 });
        // Turned to the image right, the nose tip is furthest right of the face.
        let (_, p) = cast(&side, 85.0 + 40.0 - 1.0, -37.5).expect("the nose in profile");
        assert!(p[0].abs() < 12.0 && p[2] > 20.0, "the profile's edge is the nose: {p:?}");
        assert!(cast(&side, 85.0 + 60.0, -37.5).is_none(), "past the nose, the scene");
    }

    #[test]
    fn a_frontal_render_keeps_the_eyes_where_the_labels_say_and_a_profile_hides_one() {
        let asset = crate::lab::synth::FaceAsset::load(&crate::lab::synth::default_photo()).expect("photo");
        let mut head = Head3d::default();
        let mut out = Mat::default();
        let size = Size::new(320, 240);
        let view = View { size, origin: [160.0, 100.0], iod_px: 40.0 };
        let front = head.render(&asset.photo, &asset.landmarks, (0.0, 0.0), view, 0.0, &mut out).expect("render");
        let (le, re) = (front[0].expect("le"), front[1].expect("re"));
        assert!((le[0] - re[0] - 40.0).abs() < 1.5 && (le[1] - re[1]).abs() < 3.0, "frontal: the eyes 40 px apart, as level as the portrait's: {le:?} {re:?}");
        assert!((0.5 * (le[0] + re[0]) - 160.0).abs() < 1.5, "centred on the origin");
        // The eye is darker than the skin below it, in the rendered image.
        let mut gray = Mat::default();
        imgproc::cvt_color_def(&out, &mut gray, imgproc::COLOR_BGR2GRAY).expect("gray");
        let px = |p: Point| f64::from(*gray.at_2d::<u8>(p[1].round() as i32, p[0].round() as i32).expect("px"));
        assert!(px(le) + 15.0 < px([le[0], le[1] + 12.0]), "the eye {} against the cheek {}", px(le), px([le[0], le[1] + 12.0]));
        let side = head.render(&asset.photo, &asset.landmarks, (80.0, 0.0), view, 0.0, &mut out).expect("render");
        assert!(side[0].is_some() != side[1].is_some(), "one eye hidden at 80° of yaw: {side:?}");
        assert!(side[5].is_some(), "the point between the eyes still seen");
    }

    /// Drawn only inside a rectangle, the head is the same there, pixel for
    /// pixel, as drawn whole, at a turn with the nose in the rectangle; the
    /// scene is all that is outside it; the landmarks are the same.
    #[test]
    fn a_head_drawn_within_a_rectangle_is_the_whole_heads_there() {
        let asset = crate::lab::synth::FaceAsset::load(&crate::lab::synth::default_photo()).expect("photo");
        let mut head = Head3d::default();
        let view = View { size: Size::new(192, 192), origin: [96.0, 90.0], iod_px: 48.0 };
        let within = core::Rect::new(30, 26, 131, 140);
        for pose in [(0.0, 0.0), (40.0, -15.0), (-80.0, 30.0)] {
            let (mut whole, mut part) = (Mat::default(), Mat::default());
            let a = head.render(&asset.photo, &asset.landmarks, pose, view, 0.0, &mut whole).expect("render");
            let b = head.render_within(&asset.photo, &asset.landmarks, pose, view, 0.0, within, &mut part).expect("render");
            assert_eq!(a, b, "{pose:?}: the landmarks");
            let (mut inside, mut scene) = (0, 0);
            for y in 0..192 {
                for x in 0..192 {
                    let (p, q) = (*whole.at_2d::<core::Vec3b>(y, x).expect("px"), *part.at_2d::<core::Vec3b>(y, x).expect("px"));
                    if within.contains(core::Point::new(x, y)) {
                        assert_eq!(p, q, "{pose:?}: ({x}, {y}) inside");
                        inside += usize::from(p != core::Vec3b::all(92));
                    } else {
                        assert_eq!(q, core::Vec3b::all(92), "{pose:?}: ({x}, {y}) outside is the scene");
                        scene += 1;
                    }
                }
            }
            assert!(inside > 5000 && scene > 5000, "{pose:?}: {inside} head pixels inside, {scene} outside");
        }
    }

    /// No ray outside the head's box meets the head, at poses up to 90° of
    /// yaw and 45° of pitch: drawing only inside it draws the whole head.
    #[test]
    fn no_ray_beyond_the_heads_reach_meets_it() {
        // A pixel a millimetre: the box's rounding adds little to its reach.
        let view = View { size: Size::new(400, 400), origin: [200.0, 190.0], iod_px: IOD_MM };
        let reach = head_box(view);
        assert!(reach.area() < view.size.area() * 7 / 10, "{reach:?}: the box spares a third of this frame");
        let s = view.iod_px / IOD_MM;
        let mut hits = 0;
        for (yaw, pitch) in [(0.0, 0.0), (90.0, 0.0), (-90.0, 45.0), (60.0, -45.0), (-30.0, 30.0), (90.0, -45.0)] {
            let r = rotation(&Pose { yaw, pitch, roll: 0.0 });
            for v in 0..400 {
                for u in 0..400 {
                    let (qx, qy) = ((f64::from(u) - view.origin[0]) / s, -(f64::from(v) - view.origin[1]) / s);
                    let hit = cast(&r, qx, qy).is_some();
                    hits += usize::from(hit);
                    assert!(!hit || reach.contains(core::Point::new(u, v)), "({yaw}, {pitch}): the ray at ({u}, {v}) meets the head outside {reach:?}");
                }
            }
        }
        assert!(hits > 6 * 3000, "{hits} rays met the head");
    }
}
