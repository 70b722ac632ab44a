//! A small deterministic random generator (`SplitMix64`), so generated data do
//! not change when a dependency does.

/// `SplitMix64`.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Self(seed ^ 0x2545_f491_4f6c_dd1d)
    }

    /// The generator `draws` draws on: its state is a counter, so this is
    /// one multiply-add, whatever `draws` is.
    #[must_use]
    pub fn ahead(&self, draws: u64) -> Self {
        Self(self.0.wrapping_add(draws.wrapping_mul(GOLDEN)))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN);
        mix(self.0)
    }

    /// Uniform in `[0, 1)`.
    pub fn next_f64(&mut self) -> f64 {
        #[allow(clippy::cast_precision_loss)]
        let x = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        x
    }

    /// Uniform in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next_f64()
    }

    /// Standard normal (Box–Muller).
    pub fn gauss(&mut self) -> f64 {
        let u = self.next_f64().max(1e-300);
        let v = self.next_f64();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// Approximately standard normal, cheap: the sum of four uniforms from one draw.
    pub fn gauss_fast(&mut self) -> f64 {
        gauss_of(self.next_u64())
    }

    /// Sensor gain, bias and noise on grey levels, in place: each byte
    /// becomes `v · gain + bias + sigma · g` rounded to the nearest and
    /// clamped (`grey_u8`), `g` drawn by [`Rng::gauss_fast`] for each byte
    /// in order, so exactly what that loop gives. A generated frame's 0.9
    /// million bytes took half its time; the generator's state is a counter,
    /// so the loop runs in vector registers, also compiled for AVX2 and
    /// AVX-512 (chosen at run time; integers exact and f64 multiplies and
    /// adds never fused, so every target gives the same bytes).
    pub fn add_noise(&mut self, data: &mut [u8], gain: f64, bias: f64, sigma: f64) {
        self.0 = noise_kernel::add(data, self.0, gain, bias, sigma);
    }
}

const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// [`Rng::next_u64`]'s output for the state `z`.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Four U(0, 65536) sum to mean 131070, variance 4·65536²/12: its root.
const SPREAD: f64 = 37_837.2;

/// The sum of the four 16-bit parts of `r`, less their mean: a whole number
/// within ±131070 (it converts through 32 bits exactly).
#[inline]
fn centred_sum(r: u64) -> f64 {
    let s = ((r & 0xffff) + ((r >> 16) & 0xffff) + ((r >> 32) & 0xffff) + (r >> 48)) as u32;
    f64::from(s) - 131_070.0
}

/// [`Rng::gauss_fast`] of the 64 bits `r`.
#[inline]
fn gauss_of(r: u64) -> f64 {
    centred_sum(r) / SPREAD
}

/// `x / SPREAD` by a multiply and one correction step, where fused
/// multiply-adds are cheap and a division is not: for each of the 262141
/// values `centred_sum` can take, exactly the division's result
/// (`tests::the_quotient_by_multiplication_is_the_division`).
#[inline]
fn by_spread(x: f64) -> f64 {
    const R: f64 = 1.0 / SPREAD;
    let q = x * R;
    (-q).mul_add(SPREAD, x).mul_add(R, q)
}

/// `multiversion` names `core`; kept apart as in `vision::ncc`.
mod noise_kernel {
    /// [`super::Rng::add_noise`] from the state `state`; the state after.
    #[multiversion::multiversion(targets("x86_64+avx512f+avx512dq+avx512vl+avx512bw+fma", "x86_64+avx2+fma"))]
    pub(super) fn add(data: &mut [u8], state: u64, gain: f64, bias: f64, sigma: f64) -> u64 {
        // The same numbers either way. Without these instructions in
        // hardware `mul_add` and `trunc` are calls: the division and the
        // scalar rounding are cheaper.
        #[multiversion::target::target_cfg(target_feature = "fma")]
        #[multiversion::inherit_target]
        #[inline]
        fn noisy(v: u8, gain: f64, bias: f64, sigma: f64, centred: f64) -> u8 {
            crate::lab::synth::grey_u8_lanes(f64::from(v) * gain + bias + super::by_spread(centred) * sigma)
        }
        #[multiversion::target::target_cfg(not(target_feature = "fma"))]
        #[inline]
        fn noisy(v: u8, gain: f64, bias: f64, sigma: f64, centred: f64) -> u8 {
            crate::lab::synth::grey_u8(f64::from(v) * gain + bias + centred / super::SPREAD * sigma)
        }
        let mut st = state;
        for v in data.iter_mut() {
            st = st.wrapping_add(super::GOLDEN);
            *v = noisy(*v, gain, bias, sigma, super::centred_sum(super::mix(st)));
        }
        st
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quotient_by_multiplication_is_the_division() {
        for s in 0..=262_140_u32 {
            let x = f64::from(s) - 131_070.0;
            assert_eq!(by_spread(x).to_bits(), (x / SPREAD).to_bits(), "at {s}");
        }
    }

    /// The sensor's loop, whichever target runs it, changes the bytes as
    /// `gauss_fast` drawn a byte at a time does, and leaves the generator
    /// where those draws do.
    #[test]
    fn noise_added_in_bulk_is_the_draws_one_by_one() {
        let mut img: Vec<u8> = (0..100_003_u32).map(|k| (k * 7 % 256) as u8).collect();
        let mut want = img.clone();
        let (gain, bias, sigma) = (1.03, -2.5, 4.0);
        let (mut a, mut b) = (Rng::new(9), Rng::new(9));
        for v in &mut want {
            let n = b.gauss_fast() * sigma;
            *v = crate::lab::synth::grey_u8(f64::from(*v) * gain + bias + n);
        }
        a.add_noise(&mut img, gain, bias, sigma);
        assert!(img == want, "the bytes differ");
        assert_eq!(a.next_u64(), b.next_u64());
    }

    #[test]
    fn ahead_is_that_many_draws() {
        for n in [0_u64, 1, 7, 921_600, 3 * 921_600 + 5] {
            let mut drawn = Rng::new(4);
            for _ in 0..n {
                drawn.next_u64();
            }
            assert_eq!(Rng::new(4).ahead(n).next_u64(), drawn.next_u64(), "after {n} draws");
        }
    }

    #[test]
    fn deterministic_and_roughly_normal() {
        let mut a = Rng::new(1);
        let mut b = Rng::new(1);
        assert_eq!(a.next_u64(), b.next_u64());
        let n = 20_000;
        let xs: Vec<f64> = (0..n).map(|_| a.gauss_fast()).collect();
        let mean = xs.iter().sum::<f64>() / f64::from(n);
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / f64::from(n);
        assert!(mean.abs() < 0.03, "{mean}");
        assert!((var - 1.0).abs() < 0.05, "{var}");
        let ys: Vec<f64> = (0..n).map(|_| a.gauss()).collect();
        let m2 = ys.iter().sum::<f64>() / f64::from(n);
        assert!(m2.abs() < 0.03);
    }
}
