//! Block-error channel models for radio links (see `docs/models/channel.md`).
//!
//! A [`Channel`] decides, block by block (one TTI, RLC PDU group or RLP frame), whether the block
//! is lost. Three models:
//!
//! * [`ChannelModel::ErrorFree`]: nothing is ever lost and no random number is drawn;
//! * [`ChannelModel::Iid`]: each block is lost independently with probability `fer`;
//! * [`ChannelModel::Markov`]: the first-order Markov (Gilbert) model of a Rayleigh-fading
//!   channel of Zorzi, Rao & Milstein (ICUPC'95; IEEE Trans. Commun. 46(11), 1998), as used by
//!   Chockalingam & Zorzi (ICC'99), parameterised by the average block error rate ε and the
//!   normalised Doppler frequency f_dT (`/work/shared/design/model-specs.md` §1).
//!
//! The module is sans-IO and deterministic: randomness comes only from the [`RngStream`] the
//! channel owns. The special functions needed once at set-up (Bessel J0, Marcum Q1) are
//! implemented here in pure Rust; they favour accuracy over speed.

use std::f64::consts::PI;

use crate::engine::RngStream;

// ---------------------------------------------------------------------------------------------
// Markov parameters (spec §1.2)
// ---------------------------------------------------------------------------------------------

/// Transition probabilities of the two-state block-error chain derived from (ε, f_dT).
///
/// `p = P(block k fails | block k-1 succeeded)`, `r = P(block k succeeds | block k-1 failed)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MarkovParams {
    /// Average block error rate ε (stationary probability of the BAD state).
    pub fer: f64,
    /// Normalised Doppler frequency f_d·T (maximum Doppler times block duration).
    pub fd_t: f64,
    /// P(failure | previous success).
    pub p: f64,
    /// P(success | previous failure).
    pub r: f64,
}

impl MarkovParams {
    /// Zorzi et al.'s mapping (spec §1.2): fading margin F = -1/ln(1-ε), Gaussian one-block
    /// correlation ρ = |J0(2π f_dT)|, θ = sqrt((2/F)/(1-ρ²)),
    ///
    /// ```text
    ///   r = [Q1(θ, ρθ) - Q1(ρθ, θ)] / (e^{1/F} - 1),      p = r·ε/(1-ε).
    /// ```
    ///
    /// The Marcum-Q expression is r, the success-after-failure probability, not p (spec §1.2,
    /// "Notation warning"). Since e^{1/F} - 1 = ε/(1-ε), the Q1 difference in the numerator is
    /// itself equal to p; r follows by dividing it by ε/(1-ε).
    ///
    /// The numerator is computed without cancellation (see [`marcum_difference`]), so the result
    /// stays accurate for slow fading (θ of 20 and more) where both Q1 terms are close to 1.
    pub fn from_fer_doppler(fer: f64, fd_t: f64) -> Result<Self, String> {
        if !(fer.is_finite() && fer > 0.0 && fer < 1.0) {
            return Err(format!("fer must be in (0, 1), got {fer}"));
        }
        if !(fd_t.is_finite() && fd_t > 0.0) {
            return Err(format!("fd_t must be finite and > 0, got {fd_t}"));
        }
        let (rho, one_minus_rho) = correlation(fd_t);
        if one_minus_rho <= 0.0 {
            return Err(format!(
                "fd_t = {fd_t} is too small: the one-block correlation rounds to 1"
            ));
        }
        let inv_f = -(-fer).ln_1p(); // 1/F = -ln(1-ε), spec §1.2 step 1
        let p = marcum_difference(inv_f, rho, one_minus_rho);
        // r = p / (e^{1/F} - 1) = p (1-ε)/ε  (stationarity, spec §1.2 step 5).
        let r = p * (1.0 - fer) / fer;
        if !(p > 0.0 && r > 0.0 && p <= 1.0 && r <= 1.0) {
            return Err(format!(
                "fer = {fer}, fd_t = {fd_t} give unusable transition probabilities p = {p}, r = {r}"
            ));
        }
        Ok(Self { fer, fd_t, p, r })
    }

    /// Mean error-burst length in blocks, 1/r.
    pub fn mean_burst(&self) -> f64 {
        1.0 / self.r
    }

    /// Mean error-free run in blocks, 1/p.
    pub fn mean_gap(&self) -> f64 {
        1.0 / self.p
    }

    /// Fading margin F = -1/ln(1-ε) (linear, not dB).
    pub fn fading_margin(&self) -> f64 {
        -1.0 / (-self.fer).ln_1p()
    }

    /// One-block correlation of the complex Gaussian fading samples, ρ = |J0(2π f_dT)|.
    pub fn rho(&self) -> f64 {
        correlation(self.fd_t).0
    }

    /// θ = sqrt((2/F)/(1-ρ²)), the normalised threshold in the Marcum-Q expression.
    pub fn theta(&self) -> f64 {
        let (rho, one_minus_rho) = correlation(self.fd_t);
        let inv_f = -(-self.fer).ln_1p();
        (2.0 * inv_f / (one_minus_rho * (1.0 + rho))).sqrt()
    }

    /// Memory parameter λ = 1 - p - r: the lag-n correlation of the loss indicator is λⁿ.
    pub fn memory(&self) -> f64 {
        1.0 - self.p - self.r
    }
}

/// (ρ, 1-ρ) with ρ = |J0(2π f_dT)|; 1-ρ is computed without cancellation for slow fading.
fn correlation(fd_t: f64) -> (f64, f64) {
    let x = 2.0 * PI * fd_t;
    let j = bessel_j0(x);
    if j >= 0.0 {
        (j, one_minus_j0(x))
    } else {
        (-j, 1.0 + j)
    }
}

/// p = Q1(θ, ρθ) - Q1(ρθ, θ) for θ² = 2/(F(1-ρ²)), given 1/F, ρ and 1-ρ.
///
/// From the finite-range integral of Q1 (Simon & Alouini, "Digital Communication over Fading
/// Channels", ch. 4) the difference is `1 - (1/2π)∫ P_ρ(φ) exp(-(θ²/2) g(φ)) dφ` with the
/// Poisson kernel P_ρ = (1-ρ²)/g, g = 1 + 2ρ sin φ + ρ². The Möbius change of variable that
/// turns P_ρ(φ)dφ/2π into a uniform measure gives
///
/// ```text
///   Q1(θ, ρθ) - Q1(ρθ, θ) = (1/π) ∫_0^π [1 - exp(-(1/F)(1-ρ²)/h(t))] dt,
///   h(t) = 1 - 2ρ cos t + ρ² = (1-ρ)² + 4ρ sin²(t/2),
/// ```
///
/// an integral of a positive function, free of the cancellation between two Q1 values close to
/// 1 (slow fading) and of exp(θ²) overflow. The integrand peaks at t = 0 with width ~(1-ρ), so
/// the interval is split geometrically towards 0 and each piece integrated adaptively.
fn marcum_difference(inv_f: f64, rho: f64, one_minus_rho: f64) -> f64 {
    let c = inv_f * one_minus_rho * (1.0 + rho);
    let a2 = one_minus_rho * one_minus_rho;
    let f = |t: f64| {
        let s = (0.5 * t).sin();
        -(-c / (a2 + 4.0 * rho * s * s)).exp_m1()
    };
    integrate_peaked_at_zero(&f, PI, one_minus_rho) / PI
}

// ---------------------------------------------------------------------------------------------
// Special functions
// ---------------------------------------------------------------------------------------------

/// Bessel function of the first kind of order zero, J0(x); absolute error about 1e-15·max(1, |x|)
/// (the rounding of x itself).
///
/// |x| <= 100: trapezoidal rule on the periodic integral J0(x) = (1/2π)∫_0^{2π} cos(x sin t) dt.
/// With M points the rule returns J0 + 2 Σ_{m>=1} J_{mM}(x), and J_M(x) is negligible (below
/// 1e-17) for M >= |x| + 8|x|^{1/3} + 64. Beyond: Hankel's asymptotic expansion.
pub fn bessel_j0(x: f64) -> f64 {
    let x = x.abs();
    if x <= 100.0 {
        j0_trapezoid(x)
    } else {
        j0_hankel(x)
    }
}

/// Trapezoidal rule on the periodic integral (see [`bessel_j0`]).
fn j0_trapezoid(x: f64) -> f64 {
    let m = 2 * ((x + 8.0 * x.cbrt()).ceil() as usize / 2 + 32);
    let h = 2.0 * PI / m as f64;
    (0..m)
        .map(|i| (x * (i as f64 * h).sin()).cos())
        .sum::<f64>()
        / m as f64
}

/// Hankel's asymptotic expansion, used for x > 100 (error far below 1e-15 there).
fn j0_hankel(x: f64) -> f64 {
    // J0(x) ~ sqrt(2/(πx)) [P cos(x - π/4) - Q sin(x - π/4)], with
    // P = Σ (-1)^k a_{2k} / x^{2k}, Q = Σ (-1)^k a_{2k+1} / x^{2k+1},
    // a_k = a_k(0) = (-1)^k Π_{j=1..k} (2j-1)² / (8 j) (Abramowitz & Stegun 9.2.5,
    // 9.2.9, 9.2.10); `term` below is |a_k| / x^k.
    let (mut p, mut q) = (0.0, 0.0);
    let mut term = 1.0; // |a_k| / x^k
    for k in 0..30 {
        let sign = if (k / 2) % 2 == 0 { 1.0 } else { -1.0 };
        if k % 2 == 0 {
            p += sign * term;
        } else {
            q -= sign * term; // a_k(ν=0) carries (-1)^k: Q ~ -1/(8x)
        }
        let j = (k + 1) as f64;
        term *= (2.0 * j - 1.0) * (2.0 * j - 1.0) / (8.0 * j * x);
        if term < 1e-17 {
            break;
        }
    }
    let phase = x - 0.25 * PI;
    (2.0 / (PI * x)).sqrt() * (p * phase.cos() - q * phase.sin())
}

/// 1 - J0(x) without cancellation for small x (power series below |x| = 1).
fn one_minus_j0(x: f64) -> f64 {
    if x.abs() >= 1.0 {
        return 1.0 - bessel_j0(x);
    }
    // 1 - J0(x) = -Σ_{k>=1} (-x²/4)^k / (k!)², alternating with decreasing terms.
    let y = 0.25 * x * x;
    let mut term = 1.0;
    let mut sum = 0.0;
    for k in 1..30 {
        term *= -y / (k * k) as f64;
        sum -= term;
        if term.abs() < 1e-18 * sum.abs() {
            break;
        }
    }
    sum
}

/// First-order Marcum Q function Q1(a, b) = ∫_b^∞ x exp(-(x²+a²)/2) I0(ax) dx for a, b >= 0,
/// i.e. the survival function of a Rice variable (scipy: `ncx2.sf(b*b, 2, a*a)`).
///
/// Computed from the finite-range integrals (Simon & Alouini, ch. 4) after the same Möbius change
/// of variable as [`marcum_difference`]; with ζ = min(a,b)/max(a,b), s = max(a,b)²,
/// h(t) = (1-ζ)² + 4ζ sin²(t/2),
///
/// ```text
///   J = (1/π)∫_0^π exp(-(s/2) h(t)) dt           = exp(-(a²+b²)/2) I0(ab),
///   K = (1/π)∫_0^π exp(-(s/2)(1-ζ²)²/h(t)) dt,
///   Q1(a, b) = (J + K)/2 for a < b,   1 + (J - K)/2 for a >= b.
/// ```
///
/// Accuracy is about 1e-13 absolute. Only used at set-up and in cross-checks.
pub fn marcum_q1(a: f64, b: f64) -> f64 {
    debug_assert!(a >= 0.0 && b >= 0.0, "Q1 needs a, b >= 0");
    if b == 0.0 {
        return 1.0;
    }
    if a == 0.0 {
        return (-0.5 * b * b).exp();
    }
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    let z = lo / hi;
    let s = hi * hi;
    let one_minus_z = (hi - lo) / hi;
    let a2 = one_minus_z * one_minus_z;
    let j_int = integrate_peaked_at_zero(
        &|t: f64| {
            let sn = (0.5 * t).sin();
            (-0.5 * s * (a2 + 4.0 * z * sn * sn)).exp()
        },
        PI,
        1.0 / s.sqrt().max(1.0),
    ) / PI;
    let w = 0.5 * s * (one_minus_z * (1.0 + z)).powi(2);
    if a == b {
        return 0.5 * (1.0 + j_int); // K = 1 when ζ = 1
    }
    let k_int = integrate_peaked_at_zero(
        &|t: f64| {
            let sn = (0.5 * t).sin();
            (-w / (a2 + 4.0 * z * sn * sn)).exp()
        },
        PI,
        one_minus_z,
    ) / PI;
    if a < b {
        0.5 * (j_int + k_int)
    } else {
        1.0 + 0.5 * (j_int - k_int)
    }
}

// ---------------------------------------------------------------------------------------------
// Quadrature
// ---------------------------------------------------------------------------------------------

const GL_ORDER: usize = 20;

/// Gauss-Legendre nodes and weights on [-1, 1] (Newton iteration on P_n).
fn gauss_legendre(n: usize) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(n);
    for i in 1..=n {
        let mut x = (PI * (i as f64 - 0.25) / (n as f64 + 0.5)).cos();
        let mut dp = 1.0;
        for _ in 0..100 {
            let (mut p0, mut p1) = (1.0, x);
            for j in 2..=n {
                let jf = j as f64;
                let p2 = ((2.0 * jf - 1.0) * x * p1 - (jf - 1.0) * p0) / jf;
                p0 = p1;
                p1 = p2;
            }
            dp = n as f64 * (x * p1 - p0) / (x * x - 1.0);
            let dx = p1 / dp;
            x -= dx;
            if dx.abs() < 1e-16 {
                break;
            }
        }
        out.push((x, 2.0 / ((1.0 - x * x) * dp * dp)));
    }
    out
}

fn gl_panel(f: &dyn Fn(f64) -> f64, rule: &[(f64, f64)], a: f64, b: f64) -> f64 {
    let (mid, half) = (0.5 * (a + b), 0.5 * (b - a));
    half * rule
        .iter()
        .map(|&(x, w)| w * f(mid + half * x))
        .sum::<f64>()
}

/// Adaptive bisection with a 20-point Gauss-Legendre rule. A panel is accepted when the
/// two-halves estimate differs from the one-panel estimate by at most `tol` (absolute) or
/// `rel` times the panel value. The relative floor keeps the recursion from chasing the
/// rounding noise of the integrand (exp(-u) with u ~ 700 carries ~1e-13 relative noise); a NaN
/// also stops, and propagates, instead of recursing to full depth.
fn adaptive(
    f: &dyn Fn(f64) -> f64,
    rule: &[(f64, f64)],
    (a, b): (f64, f64),
    whole: f64,
    (tol, rel): (f64, f64),
    depth: u32,
) -> f64 {
    let m = 0.5 * (a + b);
    let left = gl_panel(f, rule, a, m);
    let right = gl_panel(f, rule, m, b);
    let halves = left + right;
    let err = (halves - whole).abs();
    if depth == 0 || err.is_nan() || err <= tol.max(rel * halves.abs()) {
        return halves;
    }
    adaptive(f, rule, (a, m), left, (tol, rel), depth - 1)
        + adaptive(f, rule, (m, b), right, (tol, rel), depth - 1)
}

/// ∫_0^len f for an integrand that may vary on the scale `width` near 0: panels
/// [len/2^{k+1}, len/2^k] down to ~width/1000, then adaptive Gauss-Legendre on each panel.
/// Target: relative accuracy ~1e-13 of the integral of |f|.
fn integrate_peaked_at_zero(f: &dyn Fn(f64) -> f64, len: f64, width: f64) -> f64 {
    integrate_peaked_at_zero_tol(f, len, width, 1e-13)
}

/// [`integrate_peaked_at_zero`] with a chosen relative tolerance (an integrand that is itself
/// computed by quadrature carries noise that a tight target would chase).
fn integrate_peaked_at_zero_tol(f: &dyn Fn(f64) -> f64, len: f64, width: f64, rel: f64) -> f64 {
    let rule = gauss_legendre(GL_ORDER);
    let mut edges = vec![len];
    let mut e = len;
    while e > 1e-3 * width && edges.len() < 1100 {
        e *= 0.5;
        edges.push(e);
    }
    edges.push(0.0);
    let panels: Vec<(f64, f64, f64)> = edges
        .windows(2)
        .map(|w| (w[1], w[0], gl_panel(f, &rule, w[1], w[0])))
        .collect();
    // Absolute tolerance from a first estimate of the whole integral, so that panels where f is
    // negligible are not refined to their own relative accuracy.
    let tol = rel * panels.iter().map(|p| p.2.abs()).sum::<f64>() + f64::MIN_POSITIVE;
    panels
        .iter()
        .map(|&(a, b, whole)| adaptive(f, &rule, (a, b), whole, (tol, rel), 40))
        .sum()
}

// ---------------------------------------------------------------------------------------------
// The channel (spec §1.3)
// ---------------------------------------------------------------------------------------------

/// Which block-error process a link direction uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ChannelModel {
    /// No block is ever lost.
    ErrorFree,
    /// Each block lost independently with probability `fer`.
    Iid { fer: f64 },
    /// First-order Markov model of Rayleigh fading (Zorzi et al.; spec §1).
    Markov(MarkovParams),
}

impl ChannelModel {
    /// Checks the parameters: `fer` in [0, 1] for `Iid`; for `Markov`, probabilities in (0, 1].
    /// Errors name the offending parameter.
    pub fn validate(&self) -> Result<(), String> {
        match *self {
            ChannelModel::ErrorFree => Ok(()),
            ChannelModel::Iid { fer } => {
                if (0.0..=1.0).contains(&fer) {
                    Ok(())
                } else {
                    Err(format!("fer must be in [0, 1], got {fer}"))
                }
            }
            ChannelModel::Markov(m) => {
                if !(m.fer > 0.0 && m.fer < 1.0) {
                    Err(format!("fer must be in (0, 1), got {}", m.fer))
                } else if !(m.p > 0.0 && m.p <= 1.0) {
                    Err(format!("p must be in (0, 1], got {}", m.p))
                } else if !(m.r > 0.0 && m.r <= 1.0) {
                    Err(format!("r must be in (0, 1], got {}", m.r))
                } else {
                    Ok(())
                }
            }
        }
    }
}

/// One direction of a radio link's block-error process with its own random stream. Uplink and
/// downlink get independent `Channel`s (spec §1.3).
#[derive(Debug, Clone)]
pub struct Channel {
    model: ChannelModel,
    state_bad: bool,
    rng: RngStream,
}

impl Channel {
    /// A channel in its stationary regime: for the Markov model the initial state is BAD with
    /// probability ε (one draw from `rng`); the other models draw nothing here.
    pub fn new(model: ChannelModel, mut rng: RngStream) -> Self {
        debug_assert!(model.validate().is_ok(), "{:?}", model.validate());
        let state_bad = match model {
            ChannelModel::Markov(m) => rng.bernoulli(m.fer),
            _ => false,
        };
        Self {
            model,
            state_bad,
            rng,
        }
    }

    /// Advance one block (TTI or frame) and return true if that block is LOST.
    ///
    /// Call it on every block period whether or not anything is sent, so the fading process
    /// does not depend on the traffic (spec §1.3). Every transmission unit mapped to the block
    /// shares its fate. `ErrorFree` draws nothing; `Iid` and `Markov` draw one uniform per block
    /// (`Iid` with fer = 0 draws nothing).
    pub fn advance(&mut self) -> bool {
        match self.model {
            ChannelModel::ErrorFree => false,
            ChannelModel::Iid { fer } => {
                self.state_bad = self.rng.bernoulli(fer);
                self.state_bad
            }
            ChannelModel::Markov(m) => {
                let flip = if self.state_bad { m.r } else { m.p };
                if self.rng.bernoulli(flip) {
                    self.state_bad = !self.state_bad;
                }
                self.state_bad
            }
        }
    }

    /// The model this channel runs.
    pub fn model(&self) -> &ChannelModel {
        &self.model
    }

    /// Whether the last block advanced was lost (for the Markov model: the chain is BAD).
    /// Before the first `advance`, the Markov model's stationary initial state.
    pub fn is_bad(&self) -> bool {
        self.state_bad
    }
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    /// Spec §1.4, analytical table (verbatim output of the verification script):
    /// eps, fdT, F, F[dB], rho, theta, p, r, 1/r, 1/p.
    const TABLE: [[f64; 10]; 12] = [
        [
            0.01, 0.01, 99.499, 19.98, 0.99901, 3.192, 0.00248, 0.24570, 4.070, 402.94,
        ],
        [
            0.01, 0.10, 99.499, 19.98, 0.90371, 0.331, 0.00957, 0.94779, 1.055, 104.45,
        ],
        [
            0.01, 1.00, 99.499, 19.98, 0.22028, 0.145, 0.00999, 0.98950, 1.011, 100.05,
        ],
        [
            0.05, 0.01, 19.496, 12.90, 0.99901, 7.212, 0.00566, 0.10762, 9.292, 176.55,
        ],
        [
            0.05, 0.10, 19.496, 12.90, 0.90371, 0.748, 0.04097, 0.77839, 1.285, 24.41,
        ],
        [
            0.05, 1.00, 19.496, 12.90, 0.22028, 0.328, 0.04987, 0.94758, 1.055, 20.05,
        ],
        [
            0.10, 0.01, 9.491, 9.77, 0.99901, 10.336, 0.00813, 0.07315, 13.671, 123.04,
        ],
        [
            0.10, 0.10, 9.491, 9.77, 0.90371, 1.072, 0.06998, 0.62979, 1.588, 14.29,
        ],
        [
            0.10, 1.00, 9.491, 9.77, 0.22028, 0.471, 0.09949, 0.89544, 1.117, 10.05,
        ],
        [
            0.30, 0.01, 2.804, 4.48, 0.99901, 19.017, 0.01497, 0.03492, 28.636, 66.82,
        ],
        [
            0.30, 0.10, 2.804, 4.48, 0.90371, 1.973, 0.14500, 0.33833, 2.956, 6.90,
        ],
        [
            0.30, 1.00, 2.804, 4.48, 0.22028, 0.866, 0.29553, 0.68958, 1.450, 3.38,
        ],
    ];

    /// Half a unit in the third significant digit of `x`.
    fn three_sig(x: f64) -> f64 {
        0.5 * 10f64.powf(x.abs().log10().floor() - 2.0)
    }

    fn close(name: &str, got: f64, want: f64, tol: f64) {
        assert!(
            (got - want).abs() <= tol,
            "{name}: got {got}, want {want} (tolerance {tol})"
        );
    }

    #[test]
    fn reference_table_spec_1_4() {
        // Each column to 3 significant digits (the brief), and in fact to the printed digits.
        // Printed decimals per column: F 3, F[dB] 2, rho 5, theta 3, p 5, r 5, 1/r 3, 1/p 2.
        let decimals = [3, 2, 5, 3, 5, 5, 3, 2];
        for row in TABLE {
            let m = MarkovParams::from_fer_doppler(row[0], row[1]).unwrap();
            let f = m.fading_margin();
            let got = [
                f,
                10.0 * f.log10(),
                m.rho(),
                m.theta(),
                m.p,
                m.r,
                m.mean_burst(),
                m.mean_gap(),
            ];
            let names = ["F", "F[dB]", "rho", "theta", "p", "r", "1/r", "1/p"];
            for i in 0..8 {
                let want = row[i + 2];
                let label = format!("{} (eps {}, fdT {})", names[i], row[0], row[1]);
                close(&label, got[i], want, three_sig(want));
                let printed = 0.5 * 10f64.powi(-decimals[i]) + 1e-12;
                close(&label, got[i], want, printed);
            }
            // Stationarity, spec §1.2 step 5.
            close("eps r = (1-eps) p", m.fer * m.r, (1.0 - m.fer) * m.p, 1e-15);
        }
    }

    #[test]
    fn closed_form_matches_marcum_q1_and_quadrature_of_the_joint_law() {
        for row in TABLE {
            let m = MarkovParams::from_fer_doppler(row[0], row[1]).unwrap();
            let (rho, theta) = (m.rho(), m.theta());
            let inv_f = 1.0 / m.fading_margin();
            // r = [Q1(θ,ρθ) - Q1(ρθ,θ)] / (e^{1/F} - 1) with Q1 evaluated term by term.
            let diff = marcum_q1(theta, rho * theta) - marcum_q1(rho * theta, theta);
            close("r via Q1", diff / inv_f.exp_m1(), m.r, 1e-10);
            // Spec §1.4 cross-check: P(E1, S2) = ∫_0^{1/F} e^{-x} Q1(sqrt(2ρ²x/(1-ρ²)), θ) dx
            // must equal P(E1) r = ε r.
            let k = 2.0 * rho * rho / (1.0 - rho * rho);
            let joint = integrate_peaked_at_zero_tol(
                &|y: f64| {
                    let x = inv_f - y; // the integrand varies fastest near x = 1/F
                    (-x).exp() * marcum_q1((k * x).sqrt(), theta)
                },
                inv_f,
                inv_f * (1.0 - rho),
                1e-10,
            );
            close("P(E1,S2)/eps", joint / m.fer, m.r, 1e-9 * m.r.max(1e-3));
        }
    }

    /// I_k(z) by its power series (positive terms, no cancellation), for the independent Q1.
    fn bessel_i(k: u32, z: f64) -> f64 {
        let y = 0.25 * z * z;
        let mut term = (0..k).fold(1.0, |t, j| t * 0.5 * z / (j + 1) as f64);
        let mut sum = term;
        for m in 1..2000 {
            term *= y / (m as f64 * (m + k) as f64);
            sum += term;
            if term < 1e-18 * sum {
                break;
            }
        }
        sum
    }

    /// Q1(a, b) = exp(-(a²+b²)/2) Σ_{k>=0} (a/b)^k I_k(ab) for a < b, with the complementary
    /// series for a > b.
    fn marcum_q1_series(a: f64, b: f64) -> f64 {
        let e = (-0.5 * (a * a + b * b)).exp();
        let (ratio, start) = if a < b { (a / b, 0) } else { (b / a, 1) };
        let mut sum = 0.0;
        for k in start..400 {
            let t = ratio.powi(k as i32) * bessel_i(k, a * b);
            sum += t;
            if k > 5 && t < 1e-17 * sum {
                break;
            }
        }
        if a < b {
            e * sum
        } else {
            1.0 - e * sum
        }
    }

    #[test]
    fn marcum_q1_matches_series_and_identities() {
        let grid = [0.0, 0.1, 0.5, 1.0, 1.7, 2.5, 3.2, 4.0, 5.5, 7.0];
        for &a in &grid {
            for &b in &grid {
                let q = marcum_q1(a, b);
                if a > 0.0 && b > 0.0 {
                    close(&format!("Q1({a},{b})"), q, marcum_q1_series(a, b), 1e-12);
                    // Q1(a,b) + Q1(b,a) = 1 + exp(-(a²+b²)/2) I0(ab).
                    let lhs = q + marcum_q1(b, a);
                    let rhs = 1.0 + (-0.5 * (a * a + b * b)).exp() * bessel_i(0, a * b);
                    close("Q1 symmetry identity", lhs, rhs, 1e-12);
                }
                assert!((0.0..=1.0 + 1e-15).contains(&q), "Q1({a},{b}) = {q}");
            }
            close("Q1(0,b)", marcum_q1(0.0, a), (-0.5 * a * a).exp(), 1e-15);
            assert_eq!(marcum_q1(a, 0.0), 1.0);
        }
    }

    #[test]
    fn bessel_j0_reference_values() {
        // Abramowitz & Stegun table 9.1 and zeros (9.5).
        let cases = [
            (0.0, 1.0),
            (1.0, 0.765_197_686_557_966_6),
            (2.0, 0.223_890_779_141_235_7),
            (5.0, -0.177_596_771_314_338_3),
            (10.0, -0.245_935_764_451_348_3),
            (2.404_825_557_695_773, 0.0),
            (5.520_078_110_286_311, 0.0),
        ];
        for (x, want) in cases {
            close(&format!("J0({x})"), bessel_j0(x), want, 2e-15);
            close("J0 even", bessel_j0(-x), want, 2e-15);
        }
        // A&S 9.1: J0(100) = 0.019985850304223122. Both branches agree there and beyond.
        close(
            "J0(100) trapezoid",
            j0_trapezoid(100.0),
            0.019_985_850_304_223_122,
            2e-15,
        );
        close(
            "J0(100) Hankel",
            j0_hankel(100.0),
            0.019_985_850_304_223_122,
            2e-15,
        );
        close(
            "J0(1000) Hankel",
            j0_hankel(1000.0),
            0.024_786_686_152_420_17,
            2e-15,
        );
        for x in [100.5, 150.0, 333.3, 1000.0] {
            close(
                &format!("J0({x}) branches"),
                j0_trapezoid(x),
                j0_hankel(x),
                1e-15 * x,
            );
        }
        // The small-x series for 1 - J0 joins the direct form.
        close(
            "1-J0 at 1",
            one_minus_j0(0.999_999),
            1.0 - bessel_j0(0.999_999),
            1e-14,
        );
        close(
            "1-J0 small",
            one_minus_j0(1e-4),
            0.25e-8 - 1e-16 / 64.0,
            1e-24,
        );
    }

    #[test]
    fn limits() {
        // Fast fading: ρ -> 0 gives the i.i.d. channel, p -> ε and r -> 1-ε (spec §1.2).
        // At a zero of J0 the limit is exact.
        let zero = 2.404_825_557_695_773 / (2.0 * PI);
        for fer in [0.01, 0.1, 0.3] {
            let m = MarkovParams::from_fer_doppler(fer, zero).unwrap();
            close("p at J0 zero", m.p, fer, 1e-12);
            close("r at J0 zero", m.r, 1.0 - fer, 1e-12);
            // f_dT = 1000: ρ ~ 0.01, the chain is i.i.d. to ~1e-4.
            let m = MarkovParams::from_fer_doppler(fer, 1000.0).unwrap();
            assert!(m.rho() < 0.011, "rho {}", m.rho());
            close("p at fdT 1000", m.p, fer, 1e-4 * fer);
            close("r at fdT 1000", m.r, 1.0 - fer, 1e-4);
            assert!(m.memory().abs() < 1e-4);
        }
        // Slow fading: 1/r tends to the continuous-time average fade duration in blocks,
        // AFD/T = (e^{1/F} - 1)/(f_dT sqrt(2π/F)) (spec §1.2; §1.4 prints 13.656 vs 13.671 at
        // ε = 0.1, f_dT = 0.01).
        for (fd_t, rel) in [(0.01, 0.013), (0.001, 1.5e-4), (1e-5, 2e-8)] {
            for fer in [0.01, 0.1, 0.3] {
                let m = MarkovParams::from_fer_doppler(fer, fd_t).unwrap();
                let inv_f = 1.0 / m.fading_margin();
                let afd = inv_f.exp_m1() / (fd_t * (2.0 * PI * inv_f).sqrt());
                close("1/r vs AFD/T", m.mean_burst(), afd, rel * afd);
                assert!(m.mean_burst() >= afd, "1/r below AFD/T");
            }
        }
        let m = MarkovParams::from_fer_doppler(0.1, 0.01).unwrap();
        assert!((m.mean_burst() - 13.671).abs() < 5e-4);
    }

    #[test]
    fn invalid_inputs_name_the_parameter() {
        for fer in [0.0, 1.0, -0.1, 1.5, f64::NAN, f64::INFINITY] {
            let e = MarkovParams::from_fer_doppler(fer, 0.1).unwrap_err();
            assert!(e.contains("fer"), "{e}");
        }
        for fd_t in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e-300] {
            let e = MarkovParams::from_fer_doppler(0.1, fd_t).unwrap_err();
            assert!(e.contains("fd_t"), "{e}");
        }
        let e = ChannelModel::Iid { fer: 1.5 }.validate().unwrap_err();
        assert!(e.contains("fer"), "{e}");
        let mut m = MarkovParams::from_fer_doppler(0.1, 0.1).unwrap();
        m.r = 0.0;
        let e = ChannelModel::Markov(m).validate().unwrap_err();
        assert!(e.starts_with("r "), "{e}");
    }

    /// Long-run statistics of the chain over `n` blocks.
    struct RunStats {
        loss_rate: f64,
        n_after_success: u64,
        p_hat: f64,
        p_ee: f64,
        bursts: u64,
        mean_burst: f64,
    }

    fn run_chain(model: ChannelModel, seed: u64, n: u64) -> RunStats {
        let mut ch = Channel::new(model, RngStream::new(seed, 0, 7));
        let (mut lost, mut after_s, mut s_to_e, mut after_e, mut e_to_e) = (0u64, 0, 0, 0, 0);
        let (mut bursts, mut burst_blocks, mut cur) = (0u64, 0u64, 0u64);
        let mut prev = ch.advance();
        let mut seen_success = !prev; // count only bursts that start after a success
        lost += prev as u64;
        for _ in 1..n {
            let now = ch.advance();
            lost += now as u64;
            if prev {
                after_e += 1;
                e_to_e += now as u64;
            } else {
                after_s += 1;
                s_to_e += now as u64;
            }
            if now {
                cur += 1;
            } else {
                if prev && seen_success {
                    bursts += 1;
                    burst_blocks += cur;
                }
                cur = 0;
                seen_success = true;
            }
            prev = now;
        }
        RunStats {
            loss_rate: lost as f64 / n as f64,
            n_after_success: after_s,
            p_hat: s_to_e as f64 / after_s as f64,
            p_ee: e_to_e as f64 / after_e as f64,
            bursts,
            mean_burst: burst_blocks as f64 / bursts as f64,
        }
    }

    #[test]
    fn markov_long_run_statistics() {
        // ε = 0.1, 2·10⁶ blocks per case. Tolerances are 5 standard errors:
        // * loss rate: a two-state chain's sample mean has variance
        //   ε(1-ε)/n · (1+λ)/(1-λ), λ = 1-p-r (lag-one correlation of the indicator);
        // * P(E|S): binomial over the blocks that follow a success, sqrt(p(1-p)/n_S);
        // * mean burst: burst lengths are geometric(r), sd sqrt(1-r)/r, over the observed
        //   number of complete bursts.
        let n = 2_000_000u64;
        for (i, fd_t) in [0.01, 0.1, 1.0].into_iter().enumerate() {
            let m = MarkovParams::from_fer_doppler(0.1, fd_t).unwrap();
            let s = run_chain(ChannelModel::Markov(m), 2024 + i as u64, n);
            let lam = m.memory();
            let se_eps = (m.fer * (1.0 - m.fer) / n as f64 * (1.0 + lam) / (1.0 - lam)).sqrt();
            let se_p = (m.p * (1.0 - m.p) / s.n_after_success as f64).sqrt();
            let se_burst = (1.0 - m.r).sqrt() / m.r / (s.bursts as f64).sqrt();
            println!(
                "fdT {fd_t}: loss {:.5} (eps 0.1, 5se {:.5}); P(E|S) {:.5} (p {:.5}, 5se {:.5}); \
                 P(E|E) {:.4} (1-r {:.4}); bursts {} mean {:.3} (1/r {:.3}, 5se {:.3})",
                s.loss_rate,
                5.0 * se_eps,
                s.p_hat,
                m.p,
                5.0 * se_p,
                s.p_ee,
                1.0 - m.r,
                s.bursts,
                s.mean_burst,
                m.mean_burst(),
                5.0 * se_burst
            );
            close("loss rate", s.loss_rate, m.fer, 5.0 * se_eps);
            close("P(E|S)", s.p_hat, m.p, 5.0 * se_p);
            close("mean burst", s.mean_burst, m.mean_burst(), 5.0 * se_burst);
        }
    }

    #[test]
    fn iid_error_rate() {
        let n = 1_000_000u64;
        let fer = 0.05;
        let s = run_chain(ChannelModel::Iid { fer }, 99, n);
        let se = (fer * (1.0 - fer) / n as f64).sqrt();
        println!(
            "iid: loss {:.5} (fer {fer}, 5se {:.5})",
            s.loss_rate,
            5.0 * se
        );
        close("iid loss rate", s.loss_rate, fer, 5.0 * se);
        // No memory: P(E|E) = P(E|S) = fer.
        close("iid P(E|S)", s.p_hat, fer, 5.0 * se / 0.95f64.sqrt());
        close(
            "iid P(E|E)",
            s.p_ee,
            fer,
            5.0 * (fer * (1.0 - fer) / (fer * n as f64)).sqrt(),
        );
    }

    #[test]
    fn deterministic_and_error_free() {
        let m = ChannelModel::Markov(MarkovParams::from_fer_doppler(0.1, 0.1).unwrap());
        let seq = |seed: u64| {
            let mut ch = Channel::new(m, RngStream::new(seed, 3, 11));
            (0..10_000).map(|_| ch.advance()).collect::<Vec<_>>()
        };
        assert_eq!(seq(5), seq(5));
        assert_ne!(seq(5), seq(6));

        let mut ch = Channel::new(ChannelModel::ErrorFree, RngStream::new(1, 0, 0));
        assert!((0..100_000).all(|_| !ch.advance()));
        // ErrorFree and Iid{0} draw nothing from the stream.
        let mut fresh = RngStream::new(1, 0, 0);
        assert_eq!(ch.rng.next_u64(), fresh.next_u64());
        let mut ch = Channel::new(ChannelModel::Iid { fer: 0.0 }, RngStream::new(1, 0, 0));
        assert!((0..1000).all(|_| !ch.advance()));
        let mut fresh = RngStream::new(1, 0, 0);
        assert_eq!(ch.rng.next_u64(), fresh.next_u64());
    }

    #[test]
    fn stationary_start() {
        // The first block is BAD with probability ε over many independent channels.
        let m = ChannelModel::Markov(MarkovParams::from_fer_doppler(0.3, 0.01).unwrap());
        let n = 20_000;
        let bad = (0..n)
            .filter(|&i| Channel::new(m, RngStream::new(8, i, 0)).advance())
            .count();
        let se = (0.3f64 * 0.7 / n as f64).sqrt();
        close("first-block loss", bad as f64 / n as f64, 0.3, 5.0 * se);
    }
}
