//! Small statistics shared by the product (run summaries) and the lab.

/// Linear-interpolation percentile `q` (0–100) of `v` (sorted in place), as
/// the reference scorer (`numpy.percentile`) computes it; `None` when empty.
#[must_use]
pub fn pct(v: &mut [f64], q: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let k = (v.len() - 1) as f64 * q / 100.0;
    let (lo, hi) = (k.floor() as usize, k.ceil() as usize);
    Some(v[lo] + (v[hi] - v[lo]) * (k - lo as f64))
}

#[cfg(test)]
mod tests {
    #[test]
    fn percentiles_interpolate_between_ranks() {
        let mut v = vec![4.0, 1.0, 3.0, 2.0];
        assert_eq!(super::pct(&mut v, 50.0), Some(2.5));
        assert_eq!(super::pct(&mut v, 100.0), Some(4.0));
        assert_eq!(super::pct(&mut v, 0.0), Some(1.0));
        assert_eq!(super::pct(&mut [], 50.0), None);
    }
}
