//! Active Hidden Models (AHM; Epstein and Betke, "Active Hidden Models for
//! Tracking with Kernel Projections", BU-CS-2009-006): a deformable object
//! is tracked by projecting each new appearance observation, in a kernel's
//! feature space, onto the span of training observations; the hidden state
//! (the shape: feature points, pose) is read off the same coefficients.
//!
//! With training pairs (x_i, h_i), Gram matrix K (K_ij = k(x_i, x_j)) and a
//! new observation x with kernel values k (k_i = k(x_i, x)), the projection
//! coefficients are the regularized least-squares solution
//!
//! ```text
//! α = argmin ‖φ(x) − Σ α_i φ(x_i)‖² + λ‖α‖²  =  (K + λI)⁻¹ k,
//! ```
//!
//! and the hidden state is ĥ = Σ α_i h_i. The **subset projection** solves
//! the same problem over the m training pairs whose hidden states are nearest
//! the last estimate (the head moves little between frames): m kernel values
//! and an m×m system instead of n of each, with the Gram matrix kept from
//! training.
//!
//! **Accuracy.** If the hidden state is linear in feature space up to noise
//! of variance σ² per value, ĥ has variance σ²‖α‖², and an observation
//! off the training span adds a bias that grows with its squared distance
//! r = ‖φ(x) − Σ α_i φ(x_i)‖². Projecting each training observation onto the
//! others (leave one out, in closed form from (K + λI)⁻¹) gives errors with
//! known ‖α‖² and r, from which the model's own error, e² ≈ c + s‖α‖² + b r,
//! is fitted by least squares (c, s, b ≥ 0): an estimate of the error of
//! each projection, made only from the training set. It also shows why a
//! kernel that makes the training observations linearly dependent is the
//! better tracker: the weight spreads over the similar observations, ‖α‖²
//! falls, and so does the variance (`tests::a_kernel_that_makes_the_observations_dependent_has_lower_variance`).
//!
//! **The kernel** is Gaussian, exp(−‖x − y‖² / (2s²)), with s the median
//! distance between training observations (a linear kernel is there to
//! compare): a face's appearance is far from linear in its pose, and a
//! Gaussian of that width makes neighbouring poses' observations nearly
//! collinear in feature space, the dependent case above, while far ones stay
//! apart.

use nalgebra::{DMatrix, DVector};

/// What can go wrong building or using a model.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum AhmError {
    #[error("an AHM needs at least {need} training pairs; it was given {got}")]
    TooFew { need: usize, got: usize },
    #[error("an observation has {got} values where the model's have {want}")]
    ObservationSize { want: usize, got: usize },
    #[error("a hidden state has {got} values where the model's have {want}")]
    HiddenSize { want: usize, got: usize },
    #[error("an observation or hidden state is not a finite number")]
    NotFinite,
    #[error("the regularization must be more than 0 (it was {0})")]
    Regularization(f64),
}

/// The fewest training pairs a model is built from (the accuracy fit needs some left out).
pub const MIN_PAIRS: usize = 4;

/// The kernel that compares two observations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kernel {
    /// exp(−‖x − y‖² / (2 width²)).
    Gaussian { width: f64 },
    /// x · y.
    Linear,
}

impl Kernel {
    /// A Gaussian as wide as the median distance between the observations
    /// (times `scale`), the usual choice when nothing else is known.
    #[must_use]
    pub fn gaussian_for(observations: &[DVector<f64>], scale: f64) -> Self {
        let mut d: Vec<f64> = Vec::new();
        for (i, a) in observations.iter().enumerate() {
            for b in &observations[i + 1..] {
                d.push(squared_distance(a, b));
            }
        }
        Self::Gaussian { width: median_width(d, scale) }
    }

    /// k(x, y).
    #[must_use]
    pub fn eval(&self, x: &DVector<f64>, y: &DVector<f64>) -> f64 {
        match *self {
            Self::Gaussian { width } => gaussian(squared_distance(x, y), width),
            Self::Linear => x.dot(y),
        }
    }
}

/// One projection's result.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// The hidden state read off the projection.
    pub hidden: DVector<f64>,
    /// The model's estimate of its error here (root mean square over the hidden values).
    pub expected_error: f64,
    /// ‖α‖²: the estimate's variance over the noise variance.
    pub weight_norm: f64,
    /// The squared distance in feature space from the observation to its projection.
    pub residual: f64,
}

/// The buffers of [`Ahm::track`], kept by a tracker from frame to frame.
#[derive(Debug, Clone)]
pub struct Scratch {
    near: Vec<(f64, usize)>,
    subset: Vec<usize>,
    k: DVector<f64>,
    reg: DMatrix<f64>,
    alpha: DVector<f64>,
}

impl Default for Scratch {
    fn default() -> Self {
        Self { near: Vec::new(), subset: Vec::new(), k: DVector::zeros(0), reg: DMatrix::zeros(0, 0), alpha: DVector::zeros(0) }
    }
}

/// A trained model: the training pairs, their Gram matrix and its regularized inverse.
#[derive(Debug, Clone)]
pub struct Ahm {
    kernel: Kernel,
    lambda: f64,
    observations: Vec<DVector<f64>>,
    /// Hidden states, one column per training pair.
    hidden: DMatrix<f64>,
    gram: DMatrix<f64>,
    /// (K + λI)⁻¹.
    inverse: DMatrix<f64>,
    /// The error model e² ≈ c + s‖α‖² + b r, fitted to the left-out projections.
    error_model: [f64; 3],
}

impl Ahm {
    /// Builds a model from training pairs (observation, hidden state).
    ///
    /// # Errors
    /// Fewer than [`MIN_PAIRS`] pairs, sizes that differ, values that are
    /// not finite, or a regularization that is not positive.
    pub fn train(kernel: Kernel, lambda: f64, pairs: &[(DVector<f64>, DVector<f64>)]) -> Result<Self, AhmError> {
        Self::check_pairs(lambda, pairs)?;
        let n = pairs.len();
        // Symmetric: each pair's kernel value computed once.
        let mut gram = DMatrix::zeros(n, n);
        for i in 0..n {
            for j in i..n {
                let k = kernel.eval(&pairs[i].0, &pairs[j].0);
                gram[(i, j)] = k;
                gram[(j, i)] = k;
            }
        }
        Ok(Self::with_gram(kernel, lambda, pairs, gram))
    }

    /// [`Ahm::train`] with [`Kernel::gaussian_for`] the observations at
    /// `scale`: the same model, each distance between two observations
    /// worked out once for both the kernel's width and the Gram matrix.
    ///
    /// # Errors
    /// As [`Ahm::train`].
    pub fn train_gaussian(scale: f64, lambda: f64, pairs: &[(DVector<f64>, DVector<f64>)]) -> Result<Self, AhmError> {
        Self::check_pairs(lambda, pairs)?;
        let n = pairs.len();
        // The squared distances first, above the diagonal, then each made
        // its kernel value as `Kernel::eval` makes it.
        let mut gram = DMatrix::zeros(n, n);
        let mut off = Vec::with_capacity(n * n.saturating_sub(1) / 2);
        for i in 0..n {
            for j in i + 1..n {
                let d = squared_distance(&pairs[i].0, &pairs[j].0);
                gram[(i, j)] = d;
                off.push(d);
            }
        }
        let width = median_width(off, scale);
        for i in 0..n {
            gram[(i, i)] = gaussian(0.0, width);
            for j in i + 1..n {
                let k = gaussian(gram[(i, j)], width);
                gram[(i, j)] = k;
                gram[(j, i)] = k;
            }
        }
        Ok(Self::with_gram(Kernel::Gaussian { width }, lambda, pairs, gram))
    }

    /// The pairs' count, sizes and values, and the regularization, checked.
    fn check_pairs(lambda: f64, pairs: &[(DVector<f64>, DVector<f64>)]) -> Result<(), AhmError> {
        if pairs.len() < MIN_PAIRS {
            return Err(AhmError::TooFew { need: MIN_PAIRS, got: pairs.len() });
        }
        if !(lambda > 0.0 && lambda.is_finite()) {
            return Err(AhmError::Regularization(lambda));
        }
        let (dx, dh) = (pairs[0].0.len(), pairs[0].1.len());
        for (x, h) in pairs {
            if x.len() != dx {
                return Err(AhmError::ObservationSize { want: dx, got: x.len() });
            }
            if h.len() != dh {
                return Err(AhmError::HiddenSize { want: dh, got: h.len() });
            }
            if !(x.iter().all(|v| v.is_finite()) && h.iter().all(|v| v.is_finite())) {
                return Err(AhmError::NotFinite);
            }
        }
        Ok(())
    }

    /// The model of checked `pairs` whose Gram matrix under `kernel` is `gram`.
    fn with_gram(kernel: Kernel, lambda: f64, pairs: &[(DVector<f64>, DVector<f64>)], gram: DMatrix<f64>) -> Self {
        let (n, dh) = (pairs.len(), pairs[0].1.len());
        let observations: Vec<DVector<f64>> = pairs.iter().map(|(x, _)| x.clone()).collect();
        let hidden = DMatrix::from_fn(dh, n, |r, c| pairs[c].1[r]);
        let regularized = &gram + DMatrix::identity(n, n) * lambda;
        // K is positive semi-definite, so K + λI is positive definite: Cholesky holds.
        let inverse = regularized.clone().cholesky().map_or_else(|| regularized.pseudo_inverse(1e-12).unwrap_or_else(|_| DMatrix::identity(n, n)), |c| spd_inverse(c.l_dirty()));
        let mut model = Self { kernel, lambda, observations, hidden, gram, inverse, error_model: [0.0; 3] };
        model.error_model = model.fit_error_model();
        model
    }

    /// How many training pairs.
    #[must_use]
    pub fn len(&self) -> usize {
        self.observations.len()
    }

    /// Whether there are none (never, once trained).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.observations.is_empty()
    }

    /// The kernel in use.
    #[must_use]
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// The Gram matrix of the training observations.
    #[must_use]
    pub fn gram(&self) -> &DMatrix<f64> {
        &self.gram
    }

    fn check(&self, x: &DVector<f64>) -> Result<(), AhmError> {
        let want = self.observations[0].len();
        if x.len() != want {
            return Err(AhmError::ObservationSize { want, got: x.len() });
        }
        if !x.iter().all(|v| v.is_finite()) {
            return Err(AhmError::NotFinite);
        }
        Ok(())
    }

    /// The full projection of `x` onto every training observation.
    ///
    /// # Errors
    /// An observation of the wrong size or not finite.
    pub fn project(&self, x: &DVector<f64>) -> Result<Estimate, AhmError> {
        self.check(x)?;
        let k = DVector::from_iterator(self.len(), self.observations.iter().map(|o| self.kernel.eval(o, x)));
        let alpha = &self.inverse * &k;
        let residual = span_residual(self.kernel.eval(x, x), alpha.dot(&k), (alpha.transpose() * &self.gram * &alpha)[(0, 0)]);
        Ok(self.estimate(&self.hidden * &alpha, &alpha, residual))
    }

    /// The subset projection: onto the training observations `subset` only
    /// (indices; see [`Ahm::nearest`]), solving the small system there.
    ///
    /// # Errors
    /// An observation of the wrong size or not finite.
    pub fn project_subset(&self, x: &DVector<f64>, subset: &[usize]) -> Result<Estimate, AhmError> {
        self.check(x)?;
        let mut s = Scratch::default();
        s.subset.extend(subset.iter().copied().filter(|&i| i < self.len()));
        if s.subset.is_empty() {
            return self.project(x);
        }
        let mut hidden = DVector::zeros(0);
        let (expected_error, residual, weight_norm) = self.onto_subset(x, &mut s, &mut hidden);
        Ok(Estimate { hidden, expected_error, weight_norm, residual })
    }

    /// One frame of tracking: the subset projection of `x` onto the `m`
    /// pairs nearest `last` (as `project_subset(x, &nearest(last, m))`, to
    /// the bit), its hidden state written into `hidden`, with every buffer
    /// kept in `s` between frames: nothing is allocated once they have
    /// their sizes. Returns the expected error and the residual.
    ///
    /// # Errors
    /// An observation of the wrong size or not finite.
    pub fn track(&self, x: &DVector<f64>, last: &DVector<f64>, m: usize, s: &mut Scratch, hidden: &mut DVector<f64>) -> Result<(f64, f64), AhmError> {
        self.check(x)?;
        self.nearest_into(last, m, &mut s.near, &mut s.subset);
        let (expected_error, residual, _) = self.onto_subset(x, s, hidden);
        Ok((expected_error, residual))
    }

    /// The projection of `x` onto the pairs `s.subset` (checked, not
    /// empty), solving the small system in `s`'s buffers: the hidden state
    /// into `hidden`; the expected error, the residual and ‖α‖².
    fn onto_subset(&self, x: &DVector<f64>, s: &mut Scratch, hidden: &mut DVector<f64>) -> (f64, f64, f64) {
        let m = s.subset.len();
        if s.k.len() != m {
            s.k = DVector::zeros(m);
            s.alpha = DVector::zeros(m);
        }
        for (j, &i) in s.subset.iter().enumerate() {
            s.k[j] = self.kernel.eval(&self.observations[i], x);
        }
        if s.reg.shape() != (m, m) {
            s.reg = DMatrix::zeros(m, m);
        }
        for (b, &j) in s.subset.iter().enumerate() {
            for (a, &i) in s.subset.iter().enumerate() {
                s.reg[(a, b)] = self.gram[(i, j)];
            }
            s.reg[(b, b)] += self.lambda;
        }
        // The factor is made in the buffer itself and handed back.
        let reg = std::mem::replace(&mut s.reg, DMatrix::zeros(0, 0));
        match reg.cholesky() {
            Some(c) => {
                s.alpha.copy_from(&s.k);
                c.solve_mut(&mut s.alpha);
                s.reg = c.unpack();
            }
            None => s.alpha.fill(0.0),
        }
        let dh = self.hidden.nrows();
        if hidden.len() != dh {
            *hidden = DVector::zeros(dh);
        }
        for r in 0..dh {
            hidden[r] = s.subset.iter().zip(s.alpha.iter()).map(|(&i, a)| self.hidden[(r, i)] * a).sum();
        }
        // αᵀKα over the subset, from the Gram matrix.
        let quad: f64 = s.subset.iter().zip(s.alpha.iter()).map(|(&i, a)| a * s.subset.iter().zip(s.alpha.iter()).map(|(&j, b)| self.gram[(i, j)] * b).sum::<f64>()).sum();
        let residual = span_residual(self.kernel.eval(x, x), s.alpha.dot(&s.k), quad);
        let weight_norm = s.alpha.norm_squared();
        (self.expected(weight_norm, residual), residual, weight_norm)
    }

    /// The `m` training pairs whose hidden states are nearest `h` (the last
    /// estimate, when tracking): the subset to project onto next.
    #[must_use]
    pub fn nearest(&self, h: &DVector<f64>, m: usize) -> Vec<usize> {
        let (mut d, mut out) = (Vec::new(), Vec::new());
        self.nearest_into(h, m, &mut d, &mut out);
        out
    }

    /// [`Ahm::nearest`] into `out`, with `d` for the distances (both reused).
    fn nearest_into(&self, h: &DVector<f64>, m: usize, d: &mut Vec<(f64, usize)>, out: &mut Vec<usize>) {
        out.clear();
        if h.len() != self.hidden.nrows() {
            out.extend(0..self.len());
            return;
        }
        d.clear();
        d.extend((0..self.len()).map(|i| (self.hidden.column(i).iter().zip(h.iter()).map(|(a, b)| (a - b) * (a - b)).sum(), i)));
        let m = m.clamp(1, d.len());
        let order = |a: &(f64, usize), b: &(f64, usize)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
        if m < d.len() {
            d.select_nth_unstable_by(m - 1, order);
            d.truncate(m);
        }
        d.sort_by(order);
        out.extend(d.iter().map(|&(_, i)| i));
    }

    fn estimate(&self, hidden: DVector<f64>, alpha: &DVector<f64>, residual: f64) -> Estimate {
        let weight_norm = alpha.norm_squared();
        Estimate { hidden, expected_error: self.expected(weight_norm, residual), weight_norm, residual }
    }

    /// The error model's estimate for a projection of ‖α‖² `weight_norm` and residual `residual`.
    fn expected(&self, weight_norm: f64, residual: f64) -> f64 {
        let [c, s, b] = self.error_model;
        (c + s * weight_norm + b * residual).max(0.0).sqrt()
    }

    /// Each training observation projected onto the others: (mean squared
    /// error over the hidden values, ‖α‖², residual), in closed form from
    /// (K + λI)⁻¹ (removing one pair from the system is a rank-one change).
    fn left_out(&self) -> Vec<(f64, f64, f64)> {
        let n = self.len();
        let a = &self.inverse;
        let dh = self.hidden.nrows() as f64;
        // (K₋ᵢ + λI)⁻¹ = A₋ᵢ₋ᵢ − A₋ᵢ,ᵢ Aᵢ,₋ᵢ / Aᵢᵢ, so the left-out weights,
        // (K₋ᵢ + λI)⁻¹ k₋ᵢ, are the column i of V = A K̃ (K̃: K without its
        // diagonal) less A's column i times Vᵢᵢ / Aᵢᵢ, their entry i 0. And
        // A K̃ = A (K + λI) − A D = I − A D (D: the diagonal of K + λI), so
        // V's column i is eᵢ − Aᵢ Dᵢ and the weights are −Aᵢ / Aᵢᵢ (entry i
        // 0): no matrix product, and no matrix built per pair.
        let estimates_of = |alpha: &DVector<f64>| &self.hidden * alpha;
        (0..n)
            .map(|i| {
                let mut alpha = a.column(i) * (-1.0 / a[(i, i)]);
                alpha[i] = 0.0;
                let ak = alpha.dot(&self.gram.column(i)); // (entry i is 0: K̃'s column)
                let norm2 = alpha.norm_squared();
                // (K₋ᵢ + λI) α = k₋ᵢ, so αᵀK₋ᵢα = αᵀk₋ᵢ − λ‖α‖²: the
                // squared distance from the span is Kᵢᵢ − αᵀk − λ‖α‖².
                let residual = (self.gram[(i, i)] - ak - self.lambda * norm2).max(0.0);
                let est = estimates_of(&alpha);
                let err: f64 = (0..self.hidden.nrows()).map(|r| (est[r] - self.hidden[(r, i)]).powi(2)).sum();
                (err / dh, norm2, residual)
            })
            .collect()
    }

    /// Fits e² ≈ c + s‖α‖² + b r to the left-out projections by least
    /// squares with every coefficient at least 0 (a negative one is dropped
    /// and the rest fitted again).
    fn fit_error_model(&self) -> [f64; 3] {
        let rows = self.left_out();
        let mut active = [true; 3];
        for _ in 0..3 {
            let cols: Vec<usize> = (0..3).filter(|&c| active[c]).collect();
            if cols.is_empty() {
                break;
            }
            let feature = |r: &(f64, f64, f64), c: usize| match c {
                0 => 1.0,
                1 => r.1,
                _ => r.2,
            };
            let x = DMatrix::from_fn(rows.len(), cols.len(), |i, j| feature(&rows[i], cols[j]));
            let y = DVector::from_iterator(rows.len(), rows.iter().map(|r| r.0));
            let xtx = x.transpose() * &x + DMatrix::identity(cols.len(), cols.len()) * 1e-12;
            let Some(chol) = xtx.cholesky() else { break };
            let w = chol.solve(&(x.transpose() * y));
            let mut out = [0.0; 3];
            for (j, &c) in cols.iter().enumerate() {
                out[c] = w[j];
            }
            if let Some(neg) = (0..3).find(|&c| active[c] && out[c] < 0.0) {
                active[neg] = false;
                continue;
            }
            return out;
        }
        // Nothing fits: the mean left-out error, whatever the projection.
        [rows.iter().map(|r| r.0).sum::<f64>() / rows.len().max(1) as f64, 0.0, 0.0]
    }
}

/// (L Lᵀ)⁻¹ from the Cholesky factor `l` (lower; what lies above its
/// diagonal is ignored): M = L⁻¹ by forward substitution, each column from
/// its diagonal down (column j of M is zero above row j), then Mᵀ M as one
/// matrix product. A sixth of the multiplications of solving L Lᵀ X = I
/// column by column, and the product blocked; the same matrix to rounding.
fn spd_inverse(l: &DMatrix<f64>) -> DMatrix<f64> {
    let n = l.nrows();
    let (l, mut m) = (l.as_slice(), DMatrix::<f64>::zeros(n, n));
    for (j, col) in m.as_mut_slice().chunks_exact_mut(n.max(1)).enumerate() {
        col[j] = 1.0;
        for k in j..n {
            let mk = col[k] / l[k * n + k];
            col[k] = mk;
            for (c, lv) in col[k + 1..].iter_mut().zip(&l[k * n + k + 1..(k + 1) * n]) {
                *c -= mk * lv;
            }
        }
    }
    m.transpose() * m
}

/// The Gaussian kernel's value at squared distance `d2`: exp(−d2 / (2 width²)).
fn gaussian(d2: f64, width: f64) -> f64 {
    (-d2 / (2.0 * width * width)).exp()
}

/// [`Kernel::gaussian_for`]'s width from the squared distances between
/// every two observations (in any order): their median root times `scale`.
fn median_width(mut d: Vec<f64>, scale: f64) -> f64 {
    for v in &mut d {
        *v = v.sqrt();
    }
    let half = d.len() / 2;
    let median = if d.is_empty() { None } else { Some(*d.select_nth_unstable_by(half, f64::total_cmp).1) };
    median.filter(|m| *m > 0.0).unwrap_or(1.0) * scale
}

/// ‖x − y‖², without a vector for the difference (the hot loop's kernel values).
/// Eight sums side by side, so that the compiler can keep them in vector registers.
fn squared_distance(x: &DVector<f64>, y: &DVector<f64>) -> f64 {
    let (x, y) = (x.as_slice(), y.as_slice());
    let mut acc = [0.0_f64; 8];
    let (xc, yc) = (x.chunks_exact(8), y.chunks_exact(8));
    let tail: f64 = xc.remainder().iter().zip(yc.remainder()).map(|(a, b)| (a - b) * (a - b)).sum();
    for (a, b) in xc.zip(yc) {
        for k in 0..8 {
            let d = a[k] - b[k];
            acc[k] += d * d;
        }
    }
    acc.iter().sum::<f64>() + tail
}

/// ‖φ(x) − Σ αᵢ φ(xᵢ)‖² from k(x, x), αᵀk (k: the kernel values kᵢ =
/// k(xᵢ, x)) and αᵀKα (K: the Gram matrix of the xᵢ); never below 0.
fn span_residual(kxx: f64, ak: f64, quad: f64) -> f64 {
    (kxx - 2.0 * ak + quad).max(0.0)
}

/// Spearman's rank correlation of two equally long series (ties share their mean rank).
#[must_use]
pub fn spearman(a: &[f64], b: &[f64]) -> f64 {
    fn ranks(v: &[f64]) -> Vec<f64> {
        let mut idx: Vec<usize> = (0..v.len()).collect();
        idx.sort_by(|&i, &j| v[i].total_cmp(&v[j]));
        let mut r = vec![0.0; v.len()];
        let mut i = 0;
        while i < idx.len() {
            let mut j = i;
            while j + 1 < idx.len() && v[idx[j + 1]].total_cmp(&v[idx[i]]).is_eq() {
                j += 1;
            }
            let mean = (i + j) as f64 / 2.0;
            for &k in &idx[i..=j] {
                r[k] = mean;
            }
            i = j + 1;
        }
        r
    }
    let n = a.len().min(b.len());
    if n < 2 {
        return f64::NAN;
    }
    let (ra, rb) = (ranks(&a[..n]), ranks(&b[..n]));
    let mean = (n as f64 - 1.0) / 2.0;
    let (mut num, mut da, mut db) = (0.0, 0.0, 0.0);
    for i in 0..n {
        num += (ra[i] - mean) * (rb[i] - mean);
        da += (ra[i] - mean).powi(2);
        db += (rb[i] - mean).powi(2);
    }
    num / (da * db).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::synth::Rng;

    /// The toy deformable object: a bump on a line of 32 pixels, its place
    /// (8 to 24) and width (1.5 to 4) hidden; the observation is normalized
    /// for light (zero mean, unit length), as a face patch will be.
    fn bump(place: f64, width: f64, noise: f64, rng: &mut Rng) -> DVector<f64> {
        let mut v = DVector::from_fn(32, |i, _| (-((i as f64 - place).powi(2)) / (2.0 * width * width)).exp() + noise * rng.gauss());
        let mean = v.mean();
        v.add_scalar_mut(-mean);
        let n = v.norm().max(1e-12);
        v / n
    }

    fn grid(noise_h: f64, rng: &mut Rng) -> Vec<(DVector<f64>, DVector<f64>)> {
        let mut out = Vec::new();
        for p in 0..=16 {
            for w in 0..=5 {
                let (place, width) = (8.0 + f64::from(p), 1.5 + 0.5 * f64::from(w));
                let x = bump(place, width, 0.0, rng);
                out.push((x, DVector::from_vec(vec![place + noise_h * rng.gauss(), width + noise_h * rng.gauss()])));
            }
        }
        out
    }

    fn model(kernel_scale: f64, pairs: &[(DVector<f64>, DVector<f64>)]) -> Ahm {
        let obs: Vec<DVector<f64>> = pairs.iter().map(|p| p.0.clone()).collect();
        Ahm::train(Kernel::gaussian_for(&obs, kernel_scale), 1e-3, pairs).expect("train")
    }

    #[test]
    fn the_projection_reads_the_hidden_state_of_an_unseen_shape() {
        let mut rng = Rng::new(5);
        let m = model(1.0, &grid(0.0, &mut rng));
        let mut worst: f64 = 0.0;
        for (place, width) in [(10.5, 2.25), (15.3, 3.1), (21.7, 1.8), (12.2, 3.7)] {
            let e = m.project(&bump(place, width, 0.0, &mut rng)).expect("project");
            worst = worst.max((e.hidden[0] - place).abs()).max((e.hidden[1] - width).abs());
        }
        assert!(worst < 0.35, "between the training shapes, the hidden state comes within 0.35 px: {worst}");
    }

    /// The paper's claim: the kernel that makes the training observations
    /// linearly dependent gives the estimate of least variance. With noisy
    /// hidden labels, and a shape both kernels represent exactly (one of the
    /// training shapes), a wide Gaussian (its Gram matrix numerically of low
    /// rank) spreads the weight over neighbouring shapes; a narrow one (Gram
    /// matrix near the identity: the observations independent) takes that
    /// shape's noisy label alone. Both are unbiased here; the first varies less.
    #[test]
    fn a_kernel_that_makes_the_observations_dependent_has_lower_variance() {
        let mut rng = Rng::new(11);
        let x = bump(14.0, 2.5, 0.0, &mut rng);
        let spread = |scale: f64, rng: &mut Rng| {
            let mut places = Vec::new();
            let mut gram_ratio = 0.0;
            for _ in 0..60 {
                let m = model(scale, &grid(0.5, rng));
                let eig = m.gram().clone().symmetric_eigen().eigenvalues;
                gram_ratio = eig.min() / eig.max();
                places.push(m.project(&x).expect("project").hidden[0]);
            }
            let mean = places.iter().sum::<f64>() / places.len() as f64;
            (mean, places.iter().map(|p| (p - mean).powi(2)).sum::<f64>() / (places.len() - 1) as f64, gram_ratio)
        };
        let (wide_mean, wide, wide_ratio) = spread(1.0, &mut rng);
        let (narrow_mean, narrow, narrow_ratio) = spread(0.05, &mut rng);
        assert!(wide_ratio < 1e-6, "the wide kernel makes the observations dependent: λmin/λmax {wide_ratio}");
        assert!(narrow_ratio > 0.3, "the narrow kernel keeps them independent: λmin/λmax {narrow_ratio}");
        assert!((wide_mean - 14.0).abs() < 0.15 && (narrow_mean - 14.0).abs() < 0.15, "both unbiased: {wide_mean:.3}, {narrow_mean:.3}");
        assert!(wide < 0.5 * narrow, "variance of the place: dependent {wide:.4} against independent {narrow:.4}");
    }

    /// Tracking with kept buffers reads what the subset projection over
    /// the nearest pairs reads, frame after frame (the buffers' sizes change once).
    #[test]
    fn tracking_with_kept_buffers_is_the_subset_projection() {
        let mut rng = Rng::new(5);
        let m = model(1.0, &grid(0.0, &mut rng));
        let (mut scratch, mut hidden) = (Scratch::default(), DVector::zeros(0));
        let mut last = DVector::from_vec(vec![9.0, 2.0]);
        for k in 0..20 {
            let x = bump(9.0 + 0.4 * f64::from(k), 2.0 + 0.05 * f64::from(k), 0.01, &mut rng);
            let size = if k < 10 { 16 } else { 9 };
            let want = m.project_subset(&x, &m.nearest(&last, size)).expect("subset");
            let (expected, residual) = m.track(&x, &last, size, &mut scratch, &mut hidden).expect("track");
            assert_eq!(hidden, want.hidden, "frame {k}");
            assert!((expected - want.expected_error).abs() < 1e-9 && (residual - want.residual).abs() < 1e-9, "frame {k}");
            last.clone_from(&hidden);
        }
        assert!(m.track(&DVector::zeros(3), &last, 16, &mut scratch, &mut hidden).is_err(), "a wrong size is named");
    }

    #[test]
    fn the_subset_projection_is_the_full_one_over_all_and_as_good_over_the_nearest() {
        let mut rng = Rng::new(3);
        let pairs = grid(0.0, &mut rng);
        let m = model(1.0, &pairs);
        let all: Vec<usize> = (0..m.len()).collect();
        let x = bump(17.6, 2.9, 0.0, &mut rng);
        let (full, sub) = (m.project(&x).expect("full"), m.project_subset(&x, &all).expect("subset"));
        assert!((full.hidden.clone() - sub.hidden).norm() < 1e-9, "over every pair the subset projection is the full one");
        // Tracking: the subset is the 16 pairs nearest the last estimate (a frame ago).
        let (mut err_full, mut err_sub) = (0.0, 0.0);
        let mut last = DVector::from_vec(vec![9.0, 2.0]);
        for k in 0..40 {
            let (place, width) = (9.0 + 0.35 * f64::from(k), 2.0 + 0.04 * f64::from(k));
            let x = bump(place, width, 0.01, &mut rng);
            let truth = DVector::from_vec(vec![place, width]);
            let f = m.project(&x).expect("full");
            let s = m.project_subset(&x, &m.nearest(&last, 16)).expect("subset");
            err_full += (f.hidden - &truth).norm();
            err_sub += (s.hidden.clone() - &truth).norm();
            last = s.hidden;
        }
        assert!(err_sub <= 1.1 * err_full + 0.05, "subset {err_sub:.3} against full {err_full:.3}, summed over 40 frames");
    }

    /// The accuracy estimate, made from the training set alone, ranks the
    /// real errors: shapes between the training ones, noisy ones, and ones
    /// beyond what it was trained on (wider, further to the side).
    #[test]
    fn the_accuracy_estimate_ranks_the_real_errors() {
        let mut rng = Rng::new(7);
        let m = model(1.0, &grid(0.05, &mut rng));
        let (mut expected, mut real) = (Vec::new(), Vec::new());
        for k in 0..120 {
            let t = f64::from(k);
            // A third in range, a third noisy, a third beyond the training range.
            let (place, width, noise) = match k % 3 {
                0 => (8.5 + (t * 0.37) % 15.0, 1.6 + (t * 0.11) % 2.3, 0.0),
                1 => (8.5 + (t * 0.53) % 15.0, 1.6 + (t * 0.07) % 2.3, 0.08),
                _ => (if k % 2 == 0 { 3.0 + (t * 0.05) % 4.5 } else { 25.0 + (t * 0.05) % 4.5 }, 4.0 + (t * 0.03) % 2.0, 0.0),
            };
            let e = m.project(&bump(place, width, noise, &mut rng)).expect("project");
            expected.push(e.expected_error);
            real.push(((e.hidden[0] - place).powi(2) + (e.hidden[1] - width).powi(2)).sqrt());
        }
        let rho = spearman(&expected, &real);
        assert!(rho >= 0.7, "Spearman of the expected and the real error: {rho:.3}");
    }

    #[test]
    fn bad_training_and_observations_are_named() {
        let mut rng = Rng::new(1);
        let pairs = grid(0.0, &mut rng);
        assert_eq!(Ahm::train(Kernel::Linear, 1e-3, &pairs[..2]).expect_err("too few"), AhmError::TooFew { need: MIN_PAIRS, got: 2 });
        assert_eq!(Ahm::train(Kernel::Linear, 0.0, &pairs).expect_err("λ"), AhmError::Regularization(0.0));
        let mut odd = pairs.clone();
        odd[3].1 = DVector::from_vec(vec![1.0]);
        assert_eq!(Ahm::train(Kernel::Linear, 1e-3, &odd).expect_err("size"), AhmError::HiddenSize { want: 2, got: 1 });
        odd = pairs.clone();
        odd[5].0[2] = f64::NAN;
        assert_eq!(Ahm::train(Kernel::Linear, 1e-3, &odd).expect_err("NaN"), AhmError::NotFinite);
        let m = model(1.0, &pairs);
        let e = m.project(&DVector::zeros(7)).expect_err("size");
        assert_eq!(e, AhmError::ObservationSize { want: 32, got: 7 });
        assert!(e.to_string().contains("7 values") && e.to_string().contains("32"), "{e}");
    }

    /// The inverse from the Cholesky factor is the inverse, and each
    /// left-out projection (−Aᵢ / Aᵢᵢ) is the projection of a model trained
    /// without that pair.
    #[test]
    fn the_inverse_and_the_left_out_projections_are_what_retraining_gives() {
        let mut rng = Rng::new(11);
        let pairs = grid(0.05, &mut rng);
        let m = model(1.0, &pairs);
        let n = m.len();
        let direct = (&m.gram + DMatrix::identity(n, n) * m.lambda).try_inverse().expect("invertible");
        let worst = (&m.inverse - &direct).abs().max() / direct.abs().max();
        assert!(worst < 1e-9, "relative difference {worst:e}");
        let rows = m.left_out();
        for i in [0, 17, n / 2, n - 1] {
            let mut rest = pairs.clone();
            let (x, h) = rest.remove(i);
            let without = Ahm::train(m.kernel, m.lambda, &rest).expect("train");
            let est = without.project(&x).expect("project");
            let err = (0..h.len()).map(|r| (est.hidden[r] - h[r]).powi(2)).sum::<f64>() / h.len() as f64;
            assert!((err - rows[i].0).abs() <= 1e-8 * err.max(1e-6), "pair {i}: left out {} against retrained {err}", rows[i].0);
        }
    }

    /// Training with the Gaussian's width found on the way is training with
    /// `gaussian_for`'s kernel: the same model to the bit.
    #[test]
    #[allow(clippy::float_cmp)] // the same model to the bit, not a near one
    fn the_gaussian_trained_in_one_pass_is_the_same_model() {
        let mut rng = Rng::new(12);
        let pairs = grid(0.05, &mut rng);
        for scale in [0.5, 1.0] {
            let (one, two) = (Ahm::train_gaussian(scale, 1e-3, &pairs).expect("train"), model(scale, &pairs));
            assert_eq!(one.kernel, two.kernel);
            assert_eq!(one.gram, two.gram);
            assert_eq!(one.inverse, two.inverse);
            assert_eq!(one.error_model, two.error_model);
        }
        assert!(matches!(Ahm::train_gaussian(1.0, 1e-3, &pairs[..2]), Err(AhmError::TooFew { .. })));
    }

    #[test]
    fn spearman_is_one_for_the_same_order_and_minus_one_reversed() {
        assert!((spearman(&[1.0, 2.0, 3.0, 4.0], &[10.0, 20.0, 25.0, 90.0]) - 1.0).abs() < 1e-12);
        assert!((spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]) + 1.0).abs() < 1e-12);
        assert!(spearman(&[1.0], &[1.0]).is_nan());
    }
}
