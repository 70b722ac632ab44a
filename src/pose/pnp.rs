//! The baseline: OpenCV `solvePnP` (iterative and EPnP) on the same points and camera.

use opencv::calib3d;
use opencv::core::{Mat, Point2d, Point3d, Vector};
use opencv::prelude::*;

use crate::face_model::{Camera, FACE_MM, Pose};
use crate::events::Point;

/// Which solver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Iterative,
    Epnp,
}

/// Yaw, pitch, roll of R = Ry(yaw)·Rx(−pitch)·Rz(−roll).
#[must_use]
pub fn decompose(r: &[[f64; 3]; 3]) -> Pose {
    crate::face_model::decompose(&nalgebra::Matrix3::from_fn(|i, j| r[i][j]))
}

/// The pose from pixel points (in the order of [`crate::face_model::POINTS`]).
///
/// # Errors
/// OpenCV failures; `Ok(None)` when the solver finds nothing.
pub fn solve(px: &[Point], cam: &Camera, method: Method) -> Result<Option<Pose>, opencv::Error> {
    let object: Vector<Point3d> = FACE_MM.iter().take(px.len()).map(|p| Point3d::new(p[0], p[1], p[2])).collect();
    let image: Vector<Point2d> = px.iter().map(|p| Point2d::new(p[0], p[1])).collect();
    let k = Mat::from_slice_2d(&[[cam.f, 0.0, cam.cx], [0.0, cam.f, cam.cy], [0.0, 0.0, 1.0]])?;
    let (mut rvec, mut tvec) = (Mat::default(), Mat::default());
    // EPnP first; the iterative (Levenberg–Marquardt) solver needs a starting
    // pose with only four points, and starts from EPnP's.
    if !calib3d::solve_pnp(&object, &image, &k, &Mat::default(), &mut rvec, &mut tvec, false, calib3d::SOLVEPNP_EPNP)? {
        return Ok(None);
    }
    if method == Method::Iterative
        && !calib3d::solve_pnp(&object, &image, &k, &Mat::default(), &mut rvec, &mut tvec, true, calib3d::SOLVEPNP_ITERATIVE)?
    {
        return Ok(None);
    }
    let mut rm = Mat::default();
    calib3d::rodrigues_def(&rvec, &mut rm)?;
    // OpenCV's camera has y down and z forward: R_cv = diag(1, −1, −1)·R.
    let mut r = [[0.0; 3]; 3];
    for (i, row) in r.iter_mut().enumerate() {
        let s = if i == 0 { 1.0 } else { -1.0 };
        for (j, v) in row.iter_mut().enumerate() {
            *v = s * *rm.at_2d::<f64>(i as i32, j as i32)?;
        }
    }
    Ok(Some(decompose(&r)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face_model::rotation;

    #[test]
    fn decomposition_inverts_the_convention() {
        let p = Pose { yaw: 20.0, pitch: -12.0, roll: 7.0 };
        let m = rotation(&p);
        let r = [[m[(0, 0)], m[(0, 1)], m[(0, 2)]], [m[(1, 0)], m[(1, 1)], m[(1, 2)]], [m[(2, 0)], m[(2, 1)], m[(2, 2)]]];
        let back = decompose(&r);
        assert!((back.yaw - 20.0).abs() < 1e-9 && (back.pitch + 12.0).abs() < 1e-9 && (back.roll - 7.0).abs() < 1e-9, "{back:?}");
    }

    #[test]
    fn solvepnp_recovers_a_clean_pose_roughly() {
        // Noise-free, but the person's face differs from the generic one, and four
        // points are few for PnP: the baseline is only roughly right.
        let cam = Camera::for_image(640.0, 480.0);
        for s in &crate::lab::pose_train::generate(20, 3, 0.0) {
            let p = solve(&s.px, &cam, Method::Iterative).expect("solve").expect("a pose");
            assert!((p.roll - s.y[2]).abs() < 6.0, "{p:?} vs {:?}", s.y);
            assert!((p.yaw - s.y[0]).abs() < 25.0 && (p.pitch - s.y[1]).abs() < 25.0, "{p:?} vs {:?}", s.y);
        }
    }
}
