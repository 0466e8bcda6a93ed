//! Fast fading of a UE's serving link, sans-IO (lte-cell.md §2.2): a power gain g with mean 1
//! that multiplies the wideband SINR each TTI. Interferers stay at their mean.
//!
//! - `None`: g = 1 (Vienna / ns-3 with fading off).
//! - i.i.d. block Rayleigh: g ~ Exp(1), drawn each TTI (one draw per UE per TTI).
//! - Jakes sum of sinusoids: h(t) = M^-1/2 Σ_m exp(j(2π f_D cos α_m t + φ_m)), g = |h|², with
//!   the angles α_m and phases φ_m drawn once per UE (Simu5G's `jakesFading` recipe, M = 16
//!   by default as lte-cell.md recommends). Deterministic in time once drawn: g at any TTI
//!   costs M sin/cos and no random draw.

use crate::engine::RngStream;
use crate::error::ParamError;

#[derive(Debug, Clone, PartialEq)]
pub enum FadingModel {
    None,
    IidRayleigh,
    /// `sinusoids` M (8-16 usual), maximum Doppler shift f_D in Hz (v/λ: 5.55 Hz at 3 km/h
    /// and 2 GHz).
    Jakes {
        sinusoids: u32,
        doppler_hz: f64,
    },
}

impl FadingModel {
    pub fn validate(&self) -> Result<(), ParamError> {
        if let FadingModel::Jakes {
            sinusoids,
            doppler_hz,
        } = *self
        {
            if !(1..=256).contains(&sinusoids) {
                return Err(ParamError::new("sinusoids", sinusoids, "1..=256"));
            }
            if !(doppler_hz.is_finite() && doppler_hz > 0.0 && doppler_hz <= 10_000.0) {
                return Err(ParamError::new(
                    "doppler_hz",
                    doppler_hz,
                    "a Doppler shift in (0, 10000] Hz",
                ));
            }
        }
        Ok(())
    }
}

/// The maximum Doppler shift f_D = v f_c / c of a UE at `speed_kmh` on carrier `carrier_hz`.
pub fn doppler_hz(speed_kmh: f64, carrier_hz: f64) -> f64 {
    speed_kmh / 3.6 * carrier_hz / 299_792_458.0
}

/// One UE's fading process. In this order, so that what a Jakes reading reads here (the
/// process's block, norm and M, and the readers' TTIs and step counts: 64 bytes) is contiguous,
/// the i.i.d. model's stream after it.
#[derive(Debug, Clone)]
#[repr(C)]
pub struct Fading {
    kind: Kind,
    /// Jakes: where each reader's phasors are (`gain_tti`): their TTI, and the steps taken by
    /// rotation since their last exact evaluation ([`REFRESH`] when there are none yet, which
    /// asks for one). Kept here, in the UE's own record, rather than beside the phasors, so
    /// that the choice of a reading's path needs no load from the heap; two arrays rather
    /// than an `Option` per reader, so that a `Fading` is no larger than with its earlier
    /// list of cursors (the UE record's size is laid out in cache lines).
    tti: [u64; READERS],
    rotated: [u32; READERS],
    rng: RngStream,
}

/// Readers of [`Fading::gain_tti`]: the CQI report (0) and the transmission (1).
const READERS: usize = 2;

/// Four sinusoids' complex values, real and imaginary parts apart ([`LANE`] sinusoids in
/// fixed-width arrays, which the compiler turns into packed multiplies; a loop over a flat
/// slice stayed scalar). Both halves are read together by every rotation and sum, so they
/// share one 64-byte cache line.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(64))]
struct Pair {
    re: Lane,
    im: Lane,
}

/// TTI length of [`Fading::gain_tti`], seconds.
const TTI_S: f64 = 1e-3;
/// Further than this many TTIs ahead, a cursor is evaluated exactly rather than rotated.
const MAX_ROTATE: u64 = (1 << POW2) - 1;
/// Powers of two of the one-TTI rotation kept per sinusoid.
const POW2: usize = 5;
/// Rotations between exact evaluations (bounds the rounding drift of the phasors).
const REFRESH: u32 = 4096;
/// Sinusoids rotated together.
const LANE: usize = 4;
type Lane = [f64; LANE];

/// `values` in lanes, the last one padded with `pad`.
fn lanes(values: impl Iterator<Item = f64>, pad: f64) -> Vec<Lane> {
    let mut out: Vec<Lane> = Vec::new();
    for (j, v) in values.enumerate() {
        if j % LANE == 0 {
            out.push([pad; LANE]);
        }
        out[j / LANE][j % LANE] = v;
    }
    out
}

/// Whether a reader whose phasors stand at TTI `t`, `rotated` steps after their last exact
/// evaluation, reaches TTI `tti` by rotation: forward, by at most [`MAX_ROTATE`] TTIs, and
/// before [`REFRESH`] asks for an exact evaluation again.
#[inline(always)]
fn rotatable(t: u64, rotated: u32, tti: u64) -> bool {
    t <= tti && tti - t <= MAX_ROTATE && rotated < REFRESH
}

/// The set bits of `k` < 2^[`POW2`], from a table.
#[inline]
fn steps_in(k: u64) -> u32 {
    const BITS: [u8; 1 << POW2] = {
        let mut t = [0u8; 1 << POW2];
        let mut i = 0;
        while i < t.len() {
            t[i] = (i as u32).count_ones() as u8;
            i += 1;
        }
        t
    };
    u32::from(BITS[k as usize])
}

/// The sums of the real and of the imaginary parts, each in sinusoid order.
#[inline]
fn sums(ph: &[Pair]) -> (f64, f64) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: AVX is present (checked just above).
        return unsafe { sums_avx(ph) };
    }
    // Lane by lane (a flattened iterator's fold kept a nested-loop state per element).
    let (mut sr, mut si) = (0.0, 0.0);
    for p in ph {
        for &x in &p.re {
            sr += x;
        }
    }
    for p in ph {
        for &y in &p.im {
            si += y;
        }
    }
    (sr, si)
}

/// One lane's rotation: (x + iy)(sr + i si), the products and sums in the order of
/// `rotate_by_bits`'s scalar code, so the same bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
fn rotate_lane(
    x: std::arch::x86_64::__m256d,
    y: std::arch::x86_64::__m256d,
    sr: std::arch::x86_64::__m256d,
    si: std::arch::x86_64::__m256d,
) -> (std::arch::x86_64::__m256d, std::arch::x86_64::__m256d) {
    use std::arch::x86_64::{_mm256_add_pd, _mm256_mul_pd, _mm256_sub_pd};
    (
        _mm256_sub_pd(_mm256_mul_pd(x, sr), _mm256_mul_pd(y, si)),
        _mm256_add_pd(_mm256_mul_pd(x, si), _mm256_mul_pd(y, sr)),
    )
}

/// A lane's two halves in two AVX registers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
fn load_pair(p: &Pair) -> (std::arch::x86_64::__m256d, std::arch::x86_64::__m256d) {
    use std::arch::x86_64::_mm256_load_pd;
    // SAFETY: each pointer is to a whole `[f64; 4]` at a multiple of 32 bytes (a `Pair` is
    // 64-byte aligned and its halves are at offsets 0 and 32).
    unsafe { (_mm256_load_pd(p.re.as_ptr()), _mm256_load_pd(p.im.as_ptr())) }
}

/// [`load_pair`]'s inverse.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
fn store_pair(p: &mut Pair, x: std::arch::x86_64::__m256d, y: std::arch::x86_64::__m256d) {
    use std::arch::x86_64::_mm256_store_pd;
    // SAFETY: as in `load_pair`.
    unsafe {
        _mm256_store_pd(p.re.as_mut_ptr(), x);
        _mm256_store_pd(p.im.as_mut_ptr(), y);
    }
}

/// [`rotate_lane`] on a lane in memory: loaded, rotated by the power `s` and stored back; the
/// rotated lane is returned for a caller that sums it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
fn rotate_stored_lane(
    p: &mut Pair,
    s: &Pair,
) -> (std::arch::x86_64::__m256d, std::arch::x86_64::__m256d) {
    let (x, y) = load_pair(p);
    let (sr, si) = load_pair(s);
    let (r, i) = rotate_lane(x, y, sr, si);
    store_pair(p, r, i);
    (r, i)
}

/// `acc` (the real and imaginary running sums side by side) plus one lane's sinusoids 0 to 3,
/// in order: (x0, y0, x2, y2) and (x1, y1, x3, y3) taken apart pair by pair.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
fn add_lane(
    acc: std::arch::x86_64::__m128d,
    x: std::arch::x86_64::__m256d,
    y: std::arch::x86_64::__m256d,
) -> std::arch::x86_64::__m128d {
    use std::arch::x86_64::{_mm256_castpd256_pd128, _mm256_extractf128_pd};
    use std::arch::x86_64::{_mm256_unpackhi_pd, _mm256_unpacklo_pd, _mm_add_pd};
    let (even, odd) = (_mm256_unpacklo_pd(x, y), _mm256_unpackhi_pd(x, y));
    let acc = _mm_add_pd(acc, _mm256_castpd256_pd128(even));
    let acc = _mm_add_pd(acc, _mm256_castpd256_pd128(odd));
    let acc = _mm_add_pd(acc, _mm256_extractf128_pd::<1>(even));
    _mm_add_pd(acc, _mm256_extractf128_pd::<1>(odd))
}

/// [`sums`] with the two running sums side by side in one register: each addition adds a
/// sinusoid's real part to the one and its imaginary part to the other, in the same order
/// as the two scalar loops, so both sums are the same bit for bit.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn sums_avx(ph: &[Pair]) -> (f64, f64) {
    use std::arch::x86_64::{_mm_cvtsd_f64, _mm_setzero_pd, _mm_unpackhi_pd};
    let mut acc = _mm_setzero_pd();
    for p in ph {
        let (x, y) = load_pair(p);
        acc = add_lane(acc, x, y);
    }
    (_mm_cvtsd_f64(acc), _mm_cvtsd_f64(_mm_unpackhi_pd(acc, acc)))
}

/// The power 2^`i` of the one-TTI rotation of the fading whose phasors have `n` lanes:
/// `steps` holds the powers one after the other, lowest first.
#[inline]
fn power(steps: &[Pair], i: usize, n: usize) -> &[Pair] {
    &steps[i * n..(i + 1) * n]
}

/// [`rotate_by_bits`] with a lane in one AVX register. Written with the intrinsics: the
/// compiler's own vectorisation of the lane loop interleaved lanes through the stack and cost
/// more than the two-wide code.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn rotate_avx(ph: &mut [Pair], steps: &[Pair], k: u64) {
    let n = ph.len();
    let mut bits = k;
    while bits != 0 {
        let s = power(steps, bits.trailing_zeros() as usize, n);
        bits &= bits - 1;
        // Zipped: no index to bound-check (the lists have the same length).
        for (p, s) in ph.iter_mut().zip(s) {
            rotate_stored_lane(p, s);
        }
    }
}

/// Rotates the phasors `ph` by `k` TTIs: by the powers of two of the set bits of `k` only,
/// lowest first (the powers in the same order as a scan of all of them); then their [`sums`].
///
/// Where the processor has AVX the same multiplies and additions run four sinusoids to an
/// instruction instead of two: each lane's arithmetic is element by element, IEEE-exact in
/// either width and never fused, so the phasors are the same bit for bit; and the sums are
/// taken in the pass of the last rotation, from the registers (one call and one pass over the
/// phasors fewer per reading), the same additions in the same order.
///
/// # Safety
/// `steps` holds [`POW2`] powers of as many lanes as `ph` (`POW2 * ph.len()` pairs) and
/// `k` <= [`MAX_ROTATE`]: the in-register rotation reads the powers without a length check
/// (one per set bit was measurable in a cell run), so this is not checked in release builds.
/// A `Fading`'s phasors and powers are all sized from its M (`Fading::new`), which is how
/// every caller pairs them.
#[inline]
unsafe fn rotate_sums(ph: &mut [Pair], steps: &[Pair], k: u64) -> (f64, f64) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: AVX is present (checked just above); `steps` holds POW2 powers of as many
        // lanes as the phasors (this function's contract).
        return unsafe {
            match ph.len() {
                1 => rotate_sums_in_registers::<1>(ph, steps, k),
                2 => rotate_sums_in_registers::<2>(ph, steps, k),
                3 => rotate_sums_in_registers::<3>(ph, steps, k),
                4 => rotate_sums_in_registers::<4>(ph, steps, k),
                _ => rotate_sums_avx(ph, steps, k),
            }
        };
    }
    rotate_sums_portable(ph, steps, k)
}

/// [`rotate_sums`] without AVX. Out of line, so that the AVX path, which only dispatches,
/// saves and restores no registers for the portable loops it does not run.
#[inline(never)]
fn rotate_sums_portable(ph: &mut [Pair], steps: &[Pair], k: u64) -> (f64, f64) {
    rotate_by_bits(ph, steps, k);
    sums(ph)
}

/// [`rotate_sums_avx`] for `N` <= 4 lanes (up to 16 sinusoids, the usual M): the phasors
/// stay in 2 `N` registers through all the rotations of the jump and are stored once, instead
/// of loaded and stored again for each set bit of `k`. Each element still goes through the
/// same multiplies and additions in the same order (the set bits lowest first, then the sums
/// in sinusoid order), so the phasors and the sums are the same bit for bit.
///
/// # Safety
///
/// AVX is present, and `steps` holds [`POW2`] powers of `N` lanes each (as `Fading::new`
/// builds them, like the phasors): the powers are read without a length check per set bit.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn rotate_sums_in_registers<const N: usize>(
    ph: &mut [Pair],
    steps: &[Pair],
    k: u64,
) -> (f64, f64) {
    use std::arch::x86_64::{_mm256_setzero_pd, _mm_cvtsd_f64, _mm_setzero_pd, _mm_unpackhi_pd};
    let ph: &mut [Pair; N] = ph.try_into().expect("N lanes");
    debug_assert!(steps.len() == POW2 * N);
    // SAFETY: `POW2 * N` pairs (the caller's promise), as POW2 powers of N lanes.
    let steps = unsafe { &*steps.as_ptr().cast::<[[Pair; N]; POW2]>() };
    let (mut x, mut y) = ([_mm256_setzero_pd(); N], [_mm256_setzero_pd(); N]);
    for q in 0..N {
        (x[q], y[q]) = load_pair(&ph[q]);
    }
    let mut bits = k;
    while bits != 0 {
        let s = &steps[bits.trailing_zeros() as usize];
        bits &= bits - 1;
        for q in 0..N {
            let (sr, si) = load_pair(&s[q]);
            (x[q], y[q]) = rotate_lane(x[q], y[q], sr, si);
        }
    }
    let mut acc = _mm_setzero_pd();
    for q in 0..N {
        store_pair(&mut ph[q], x[q], y[q]);
        acc = add_lane(acc, x[q], y[q]);
    }
    (_mm_cvtsd_f64(acc), _mm_cvtsd_f64(_mm_unpackhi_pd(acc, acc)))
}

/// [`rotate_avx`] then [`sums_avx`], the last rotation's lanes summed as they are stored.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn rotate_sums_avx(ph: &mut [Pair], steps: &[Pair], k: u64) -> (f64, f64) {
    use std::arch::x86_64::{_mm_cvtsd_f64, _mm_setzero_pd, _mm_unpackhi_pd};
    if k == 0 {
        return sums_avx(ph);
    }
    // All but the highest set bit as `rotate_avx` takes them (lowest first), then that one.
    let last = 63 - k.leading_zeros() as usize;
    rotate_avx(ph, steps, k & !(1 << last));
    let s = power(steps, last, ph.len());
    let mut acc = _mm_setzero_pd();
    for (p, s) in ph.iter_mut().zip(s) {
        let (r, i) = rotate_stored_lane(p, s);
        acc = add_lane(acc, r, i);
    }
    (_mm_cvtsd_f64(acc), _mm_cvtsd_f64(_mm_unpackhi_pd(acc, acc)))
}

#[inline(always)]
fn rotate_by_bits(ph: &mut [Pair], steps: &[Pair], k: u64) {
    let n = ph.len();
    let mut bits = k;
    while bits != 0 {
        let s = power(steps, bits.trailing_zeros() as usize, n);
        bits &= bits - 1;
        for (p, s) in ph.iter_mut().zip(s) {
            let (x, y, sr, si) = (p.re, p.im, s.re, s.im);
            p.re = std::array::from_fn(|j| x[j] * sr[j] - y[j] * si[j]);
            p.im = std::array::from_fn(|j| x[j] * si[j] + y[j] * sr[j]);
        }
    }
}

#[derive(Debug, Clone)]
enum Kind {
    None,
    Iid,
    /// (2π f_D cos α_m, φ_m) per sinusoid; M^-1/2; and one block with all that a reading
    /// touches, so that it is one allocation and a few adjacent cache lines instead of six
    /// lists apart: the phasors of reader 0, then of reader 1 (n = ⌈M / 4⌉ lanes each; the
    /// Jakes sum at one TTI, e^{j(w_m t + φ_m)}, kept so that the next TTI costs one complex
    /// multiply per sinusoid instead of a sine and a cosine; the padding past the M-th
    /// sinusoid 0), then the powers e^{j 2π f_D cos α_m · 2^i ms} for i < POW2 (by i, then
    /// lane; the padding the identity rotation: a jump of k TTIs is one multiply per sinusoid
    /// and set bit of k).
    Jakes {
        paths: Box<[(f64, f64)]>,
        norm: f64,
        block: Box<[Pair]>,
    },
}

impl Fading {
    /// The process of one UE, drawing its state from the UE's own stream. Panics on an
    /// invalid model (validated by the configuration layer first).
    pub fn new(model: &FadingModel, mut rng: RngStream) -> Self {
        if let Err(e) = model.validate() {
            panic!("invalid fading model: {e:?}");
        }
        let kind = match *model {
            FadingModel::None => Kind::None,
            FadingModel::IidRayleigh => Kind::Iid,
            FadingModel::Jakes {
                sinusoids,
                doppler_hz,
            } => {
                let tau = std::f64::consts::TAU;
                let paths: Box<[(f64, f64)]> = (0..sinusoids)
                    .map(|_| {
                        let alpha = tau * rng.uniform();
                        let phi = tau * rng.uniform();
                        (tau * doppler_hz * alpha.cos(), phi)
                    })
                    .collect();
                let n = (sinusoids as usize).div_ceil(LANE);
                let mut block = vec![Pair::default(); (READERS + POW2) * n];
                for i in 0..POW2 {
                    let (c, s): (Vec<f64>, Vec<f64>) = paths
                        .iter()
                        .map(|&(w, _)| {
                            let (s, c) = (w * TTI_S * (1u64 << i) as f64).sin_cos();
                            (c, s)
                        })
                        .unzip();
                    let (c, s) = (lanes(c.into_iter(), 1.0), lanes(s.into_iter(), 0.0));
                    let at = (READERS + i) * n;
                    for (q, (c, s)) in c.into_iter().zip(s).enumerate() {
                        block[at + q] = Pair { re: c, im: s };
                    }
                }
                Kind::Jakes {
                    paths,
                    norm: 1.0 / (sinusoids as f64).sqrt(),
                    block: block.into_boxed_slice(),
                }
            }
        };
        Self {
            kind,
            rng,
            tti: [0; READERS],
            rotated: [REFRESH; READERS],
        }
    }

    /// The power gain at TTI `tti` (of 1 ms, t = tti · 1 ms) as read by `reader` (0 or 1:
    /// the CQI report and the transmission, each moving forward in time). Equal to
    /// [`Fading::gain`] at that time up to rounding; a Jakes reader moving a few TTIs at a time
    /// rotates its phasors (one complex multiply per sinusoid and TTI) instead of evaluating
    /// sines, and re-evaluates exactly every few thousand steps and after a jump.
    pub fn gain_tti(&mut self, reader: usize, tti: u64) -> f64 {
        let Kind::Jakes { paths, norm, block } = &mut self.kind else {
            return self.gain(tti as f64 * TTI_S);
        };
        // The usual reading, this reader's own phasors a few TTIs behind, here; the rest out
        // of line, so that this path saves and restores few registers.
        if let (Some(&t), Some(&rotated)) = (self.tti.get(reader), self.rotated.get(reader)) {
            if rotatable(t, rotated, tti) {
                let k = tti - t;
                // The steps taken (the set bits of k; no popcount instruction in the
                // baseline x86-64 the crate is built for).
                self.rotated[reader] = rotated + steps_in(k);
                self.tti[reader] = tti;
                let n = paths.len().div_ceil(LANE);
                let (phasors, steps) = block.split_at_mut(READERS * n);
                let ph = &mut phasors[reader * n..(reader + 1) * n];
                // SAFETY: the block holds POW2 powers of the phasors' n lanes after the
                // phasors (`Fading::new`), and k <= MAX_ROTATE.
                let (re, im) = unsafe { rotate_sums(ph, steps, k) };
                return (re * re + im * im) * *norm * *norm;
            }
        }
        self.gain_tti_from_elsewhere(reader, tti)
    }

    /// [`Fading::gain_tti`] for a reader whose own phasors are not a few TTIs behind: from
    /// another reader's, or evaluated exactly.
    #[cold]
    #[inline(never)]
    fn gain_tti_from_elsewhere(&mut self, reader: usize, tti: u64) -> f64 {
        let Kind::Jakes { paths, norm, block } = &mut self.kind else {
            unreachable!("only a Jakes process has phasors")
        };
        assert!(reader < READERS, "fading reader {reader} of {READERS}");
        let n = paths.len().div_ceil(LANE);
        let (ttis, steps_taken) = (&mut self.tti, &mut self.rotated);
        // Start from this reader's state, or from another reader's a few TTIs behind (the
        // transmission at n follows the CQI report read at n - k), or evaluate exactly.
        let near = |t: u64, rotated: u32| rotatable(t, rotated, tti);
        if !near(ttis[reader], steps_taken[reader]) {
            let best = (0..READERS)
                .filter(|&r| near(ttis[r], steps_taken[r]))
                .max_by_key(|&r| ttis[r]);
            if let Some(r) = best {
                ttis[reader] = ttis[r];
                steps_taken[reader] = steps_taken[r];
                block.copy_within(r * n..(r + 1) * n, reader * n);
            }
        }
        let (phasors, steps) = block.split_at_mut(READERS * n);
        let ph = &mut phasors[reader * n..(reader + 1) * n];
        let rotated = if near(ttis[reader], steps_taken[reader]) {
            let k = tti - ttis[reader];
            // The steps taken (the set bits of k; no popcount instruction in the baseline
            // x86-64 the crate is built for).
            steps_taken[reader] += steps_in(k);
            // SAFETY: as in `gain_tti`, the phasors and the powers have this fading's M, and
            // k <= MAX_ROTATE.
            Some(unsafe { rotate_sums(ph, steps, k) })
        } else {
            None
        };
        ttis[reader] = tti;
        let (re, im) = if let Some(sums) = rotated {
            sums
        } else {
            let t_s = tti as f64 * TTI_S;
            ph.fill(Pair::default());
            for (j, &(w, phi)) in paths.iter().enumerate() {
                let (s, co) = (w * t_s + phi).sin_cos();
                ph[j / LANE].re[j % LANE] = co;
                ph[j / LANE].im[j % LANE] = s;
            }
            steps_taken[reader] = 0;
            // In sinusoid order, then the padding, which adds +0.0: bit for bit the sums over
            // the M sinusoids alone (also those of `rotate_sums`).
            sums(ph)
        };
        (re * re + im * im) * *norm * *norm
    }

    /// The power gain at time `t_s` (seconds; one call per TTI for the i.i.d. model, whose
    /// draws are consumed in call order).
    pub fn gain(&mut self, t_s: f64) -> f64 {
        match &self.kind {
            Kind::None => 1.0,
            // Exp(1) by inversion; 1 - U is in (0, 1], so the log is finite.
            Kind::Iid => -(1.0 - self.rng.uniform()).ln(),
            Kind::Jakes { paths, norm, .. } => {
                let (mut re, mut im) = (0.0, 0.0);
                for &(w, phi) in paths {
                    let (s, c) = (w * t_s + phi).sin_cos();
                    re += c;
                    im += s;
                }
                (re * re + im * im) * norm * norm
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jakes(fd: f64) -> FadingModel {
        FadingModel::Jakes {
            sinusoids: 16,
            doppler_hz: fd,
        }
    }

    /// Mean of g and of 10 log10 g over `ues` processes and `ttis` 1-ms TTIs each.
    fn moments(model: &FadingModel, ues: u64, ttis: u64) -> (f64, f64) {
        let (mut sum, mut sum_db, mut n) = (0.0, 0.0, 0.0);
        for ue in 0..ues {
            let mut f = Fading::new(model, RngStream::new(3, 0, ue));
            for t in 0..ttis {
                let g = f.gain(t as f64 * 1e-3);
                sum += g;
                sum_db += 10.0 * g.max(1e-30).log10();
                n += 1.0;
            }
        }
        (sum / n, sum_db / n)
    }

    #[test]
    fn rayleigh_gains_have_mean_1_and_a_log_mean_of_minus_2_5_db() {
        // E[10 log10 g] for g ~ Exp(1) is -10 γ / ln 10 = -2.507 dB (lte-cell.md: "-2.5 dB
        // log-mean of fading"). 200,000 i.i.d. draws: standard errors 0.0022 and 0.012 dB.
        let (m, db) = moments(&FadingModel::IidRayleigh, 20, 10_000);
        assert!((m - 1.0).abs() < 0.01, "{m}");
        assert!((db + 2.507).abs() < 0.05, "{db}");
        // Jakes, 5.55 Hz, over 200 UEs x 2 s: correlated in time, so wider bounds.
        let (m, db) = moments(&jakes(5.55), 200, 2_000);
        assert!((m - 1.0).abs() < 0.05, "{m}");
        assert!((db + 2.5).abs() < 0.3, "{db}");
        assert_eq!(moments(&FadingModel::None, 1, 10), (1.0, 0.0));
    }

    #[test]
    fn iid_rayleigh_has_the_exponential_distribution() {
        let mut f = Fading::new(&FadingModel::IidRayleigh, RngStream::new(1, 0, 0));
        let n = 100_000;
        let below = |x: f64, gs: &[f64]| gs.iter().filter(|&&g| g < x).count() as f64 / n as f64;
        let gs: Vec<f64> = (0..n).map(|t| f.gain(t as f64 * 1e-3)).collect();
        // P(g < x) = 1 - exp(-x); standard error <= 0.0016.
        for x in [0.1_f64, 1.0, 3.0] {
            let want = 1.0 - (-x).exp();
            assert!((below(x, &gs) - want).abs() < 0.006, "x = {x}");
        }
    }

    /// The autocorrelation of g = |h|² under Jakes is J0²(2π f_D τ): near 1 over a TTI at
    /// 3 km/h, and near 0 where J0 first vanishes (2π f_D τ = 2.405).
    #[test]
    fn jakes_gains_decorrelate_at_the_first_zero_of_j0() {
        let fd = 5.55;
        let first_zero_s = 2.405 / (std::f64::consts::TAU * fd);
        let corr = |lag_s: f64| {
            let (mut sxy, mut sx, mut sy, mut sxx, mut syy, mut n) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
            for ue in 0..400 {
                let mut f = Fading::new(&jakes(fd), RngStream::new(9, 0, ue));
                for k in 0..20 {
                    let t = k as f64 * 0.5;
                    let (x, y) = (f.gain(t), f.gain(t + lag_s));
                    sxy += x * y;
                    sx += x;
                    sy += y;
                    sxx += x * x;
                    syy += y * y;
                    n += 1.0;
                }
            }
            let cov = sxy / n - sx / n * sy / n;
            cov / ((sxx / n - (sx / n).powi(2)) * (syy / n - (sy / n).powi(2))).sqrt()
        };
        assert!(corr(1e-3) > 0.99);
        // 8,000 pairs: a standard error of about 0.011 for a true correlation of 0.
        assert!(corr(first_zero_s).abs() < 0.06, "{}", corr(first_zero_s));
        assert!((doppler_hz(3.0, 2e9) - 5.56).abs() < 0.01);
    }

    #[test]
    fn the_same_stream_gives_the_same_fading() {
        let a: Vec<f64> = {
            let mut f = Fading::new(&jakes(50.0), RngStream::new(5, 2, 7));
            (0..10).map(|t| f.gain(t as f64 * 1e-3)).collect()
        };
        let mut f = Fading::new(&jakes(50.0), RngStream::new(5, 2, 7));
        let b: Vec<f64> = (0..10).map(|t| f.gain(t as f64 * 1e-3)).collect();
        assert_eq!(a, b);
        assert!(jakes(0.0).validate().is_err());
    }

    #[test]
    fn reading_by_tti_equals_the_exact_gain() {
        // 16 sinusoids fill whole lanes; 7 leave a padded one.
        for sinusoids in [16, 7] {
            reading_by_tti_matches(FadingModel::Jakes {
                sinusoids,
                doppler_hz: doppler_hz(30.0, 2e9),
            });
        }
    }

    fn reading_by_tti_matches(model: FadingModel) {
        let mut a = Fading::new(&model, RngStream::new(9, 0, 1));
        let mut b = a.clone();
        // Reader 0 steps one TTI at a time past several refreshes; reader 1 lags by 6 and
        // sometimes jumps.
        for tti in 0..10_000u64 {
            let exact = b.gain(tti as f64 * 1e-3);
            let g = a.gain_tti(0, tti);
            assert!(
                (g - exact).abs() <= 1e-9 * exact.max(1.0),
                "tti {tti}: {g} vs {exact}"
            );
            if tti >= 6 && tti % 97 != 0 {
                let lag = tti - 6 + (tti % 3 == 0) as u64 * 3;
                let e = b.gain(lag as f64 * 1e-3);
                let g = a.gain_tti(1, lag);
                assert!((g - e).abs() <= 1e-9 * e.max(1.0));
            }
        }
    }

    /// The AVX sums are the portable ones bit for bit, whole and padded lanes, signed zeros.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx_sums_equal_the_portable_ones() {
        if !std::arch::is_x86_feature_detected!("avx") {
            return;
        }
        let portable = |ph: &[Pair]| {
            let (mut a, mut b) = (0.0, 0.0);
            ph.iter().flat_map(|p| p.re).for_each(|x| a += x);
            ph.iter().flat_map(|p| p.im).for_each(|y| b += y);
            (a, b)
        };
        let mut rng = RngStream::new(5, 0, 2);
        for n in [1, 4, 7, 16, 33] {
            for _ in 0..200 {
                let mut v =
                    || (rng.uniform() - 0.5) * 10f64.powi((rng.uniform() * 40.0) as i32 - 20);
                let re = lanes((0..n).map(|_| v()), 0.0);
                let im = lanes((0..n).map(|_| v()), 0.0);
                let ph = pairs(re, im);
                // SAFETY: AVX is present (checked above).
                let (a, b) = unsafe { sums_avx(&ph) };
                let (pa, pb) = portable(&ph);
                assert_eq!((a.to_bits(), b.to_bits()), (pa.to_bits(), pb.to_bits()));
            }
        }
        let z = lanes([-0.0, -0.0].into_iter(), 0.0);
        let z = pairs(z.clone(), z);
        // SAFETY: AVX is present (checked above).
        let (a, _) = unsafe { sums_avx(&z) };
        assert_eq!(a.to_bits(), portable(&z).0.to_bits());
    }

    /// Real and imaginary lanes side by side.
    fn pairs(re: Vec<Lane>, im: Vec<Lane>) -> Vec<Pair> {
        re.into_iter()
            .zip(im)
            .map(|(re, im)| Pair { re, im })
            .collect()
    }

    /// The AVX rotation leaves the phasors bit for bit where the portable one does, for
    /// every jump of up to [`MAX_ROTATE`] TTIs, on whole and padded lanes.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx_rotation_equals_the_portable_one() {
        if !std::arch::is_x86_feature_detected!("avx") {
            return;
        }
        // 1 to 4 lanes (in registers), whole or padded, and 5 lanes (pass by pass).
        for sinusoids in [16, 7, 1, 8, 10, 20] {
            let model = FadingModel::Jakes {
                sinusoids,
                doppler_hz: doppler_hz(30.0, 2e9),
            };
            let f = Fading::new(&model, RngStream::new(3, 0, 1));
            let Kind::Jakes { paths, block, .. } = &f.kind else {
                unreachable!()
            };
            let steps = &block[READERS * paths.len().div_ceil(LANE)..];
            let start = pairs(
                lanes((0..sinusoids).map(|j| (j as f64 * 0.7).cos()), 0.0),
                lanes((0..sinusoids).map(|j| (j as f64 * 0.7).sin()), 0.0),
            );
            let (mut a, mut b, mut c, mut d) = (start.clone(), start.clone(), start.clone(), start);
            for k in (0..=MAX_ROTATE).chain((0..=MAX_ROTATE).rev()) {
                rotate_by_bits(&mut a, steps, k);
                // SAFETY: AVX is present (checked above).
                unsafe { rotate_avx(&mut b, steps, k) };
                // The fused rotation and sums: the same phasors and the portable sums.
                // SAFETY: as above.
                let (sr, si) = unsafe { rotate_sums_avx(&mut c, steps, k) };
                let (pr, pi) = {
                    let (mut x, mut y) = (0.0, 0.0);
                    a.iter().flat_map(|p| p.re).for_each(|v| x += v);
                    a.iter().flat_map(|p| p.im).for_each(|v| y += v);
                    (x, y)
                };
                assert_eq!((sr.to_bits(), si.to_bits()), (pr.to_bits(), pi.to_bits()));
                // And as `gain_tti` takes them (the phasors in registers up to 4 lanes).
                // SAFETY: AVX is present; `steps` holds POW2 powers of the phasors' lanes.
                let (dr, di) = unsafe { rotate_sums(&mut d, steps, k) };
                assert_eq!((dr.to_bits(), di.to_bits()), (pr.to_bits(), pi.to_bits()));
                let bits = |p: &Pair| (p.re.map(f64::to_bits), p.im.map(f64::to_bits));
                for (q, a) in a.iter().enumerate() {
                    assert_eq!(bits(a), bits(&b[q]), "jump {k}");
                    assert_eq!(bits(a), bits(&c[q]), "jump {k}, fused");
                    assert_eq!(bits(a), bits(&d[q]), "jump {k}, in registers");
                }
            }
        }
    }
}
