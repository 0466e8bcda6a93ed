//! Downlink geometry of the multi-UE LTE cell (issue 12): the 3GPP "Case 1" macro layout of
//! lte-cell.md §1 (7 sites x 3 sectors, ISD 500 m, no wrap-around) and the full-buffer
//! large-scale abstraction of lte-cell.md §2.1.
//!
//! Per UE u and sector c the received power per PRB is
//! `P_PRB + G_bs + A(θ_uc) − L(d_uc) − L_pen − X[u, site(c)]` (dBm), the serving sector is the
//! argmax over all 21 sectors, and the wideband SINR counts the 20 other sectors as always
//! transmitting on every PRB (the 3GPP calibration assumption, lte-cell.md §2.1) plus thermal
//! noise kTB·NF. Geometry is drawn once per drop and is then a per-UE constant.
//!
//! Pure functions over [`CellParams`] and an [`RngStream`]; the LTE cell drops its UEs with
//! them.

use crate::engine::RngStream;
use crate::error::ParamError;
use crate::radio::{db_to_lin, lin_to_db};

/// Sites of the layout: the centre (serving) site and its first tier (lte-cell.md §0, seed §II.B).
pub const N_SITES: usize = 7;
/// Sectors per site (lte-cell.md §1, "3 sectors/site").
pub const SECTORS_PER_SITE: usize = 3;
/// All sectors of the layout.
pub const N_SECTORS: usize = N_SITES * SECTORS_PER_SITE;
/// Width of one PRB in Hz (TS 36.211: 12 subcarriers x 15 kHz).
pub const PRB_HZ: f64 = 180e3;
/// Thermal noise density kT at 290 K in dBm/Hz (lte-cell.md §1 "noise": −174 dBm/Hz).
pub const THERMAL_NOISE_DBM_PER_HZ: f64 = -174.0;

/// Parameters of the Case-1 layout. Every default is from the table of lte-cell.md §1 (3GPP TR
/// 36.814 Annex A.2.1 / TR 36.942 as found in the cited simulators).
#[derive(Clone, Debug, PartialEq)]
pub struct CellParams {
    /// Inter-site distance in m. Case 1: 500 m (lte-cell.md §1 "layout"; TR 36.814).
    pub isd_m: f64,
    /// Downlink bandwidth in PRBs. Case 1 is 10 MHz = 50 PRB; Ohta et al.'s Table I implies
    /// 100 PRB (lte-cell.md §3). Sets the noise bandwidth and, in [`CellParams::case1`], the
    /// eNB power. The SINR does not depend on it when the power per PRB is the same.
    pub n_prb: u32,
    /// eNB total transmit power in dBm, spread evenly over the PRBs: 46 dBm @10 MHz, 49 @20 MHz,
    /// 43 @5 MHz (lte-cell.md §1 "eNB power", Vienna `LTE_load_params.m`). All three give
    /// 29 dBm per PRB.
    pub enb_power_dbm: f64,
    /// BS antenna boresight gain in dBi: 14 dBi (lte-cell.md §1 "BS antenna", 2-D pattern) [R].
    pub antenna_gain_dbi: f64,
    /// Horizontal half-power beamwidth θ3dB in degrees: 70° (TR 36.814 Tab. A.2.1.1-2 via
    /// QuaDRiGa `gen_arrayant_3gpp_macro`, lte-cell.md §1).
    pub theta_3db_deg: f64,
    /// Front-to-back ratio A_m in dB: 20 dB for the 2-D pattern (lte-cell.md §1).
    pub front_to_back_db: f64,
    /// Path loss at 1 km in dB: 128.1 (L = 128.1 + 37.6 log10(R/km), TR 36.942 macro;
    /// lte-cell.md §1 "path loss").
    pub pathloss_at_1km_db: f64,
    /// Path-loss slope in dB per decade of distance: 37.6 (lte-cell.md §1).
    pub pathloss_slope_db: f64,
    /// Building penetration loss in dB, applied to every link: 20 dB (lte-cell.md §1,
    /// triangular3site.jl). It scales signal and interference alike, so it only matters
    /// against noise.
    pub penetration_loss_db: f64,
    /// Log-normal shadowing standard deviation in dB: 8 dB (lte-cell.md §1 "shadowing").
    pub shadowing_sigma_db: f64,
    /// Correlation of the shadowing between the links of one UE to different sites: 0.5;
    /// the three sectors of a site share one value (correlation 1) (lte-cell.md §1, §2.1).
    pub shadowing_site_correlation: f64,
    /// Minimum UE–site distance in m: 35 m (lte-cell.md §1 "min distance",
    /// triangular3site.jl `guard_distance`).
    pub min_distance_m: f64,
    /// UE receiver noise figure in dB: 9 dB (lte-cell.md §1 "noise", Vienna / ns-3 `LteUePhy`).
    pub ue_noise_figure_db: f64,
    /// UE antenna gain in dBi: 0 dBi, omni (lte-cell.md §1 "UE antenna").
    pub ue_antenna_gain_dbi: f64,
}

impl Default for CellParams {
    /// Case 1 at its own 10 MHz (50 PRB).
    fn default() -> Self {
        Self::case1(50)
    }
}

impl CellParams {
    /// Case 1 with the eNB power that goes with `n_prb` (lte-cell.md §1 "eNB power": 43 dBm at
    /// 5 MHz and below, 46 dBm at 10 MHz, 49 dBm at 20 MHz; in between, the 10 MHz value scaled
    /// to keep 29 dBm per PRB [A]). An `n_prb` that [`CellParams::validate`] refuses is kept
    /// as given so the error names it.
    pub fn case1(n_prb: u32) -> Self {
        let enb_power_dbm = match n_prb {
            0..=25 => 43.0,
            50 => 46.0,
            100 => 49.0,
            n => 29.0 + 10.0 * f64::from(n).log10(),
        };
        Self {
            isd_m: 500.0,
            n_prb,
            enb_power_dbm,
            antenna_gain_dbi: 14.0,
            theta_3db_deg: 70.0,
            front_to_back_db: 20.0,
            pathloss_at_1km_db: 128.1,
            pathloss_slope_db: 37.6,
            penetration_loss_db: 20.0,
            shadowing_sigma_db: 8.0,
            shadowing_site_correlation: 0.5,
            min_distance_m: 35.0,
            ue_noise_figure_db: 9.0,
            ue_antenna_gain_dbi: 0.0,
        }
    }

    /// Checks every field's domain; the error names the field.
    pub fn validate(&self) -> Result<(), ParamError> {
        fn finite(field: &str, v: f64) -> Result<(), ParamError> {
            if v.is_finite() {
                Ok(())
            } else {
                Err(ParamError::new(field, v, "a finite number"))
            }
        }
        if !(self.isd_m.is_finite() && self.isd_m > 0.0) {
            return Err(ParamError::new(
                "isd_m",
                self.isd_m,
                "a finite distance > 0",
            ));
        }
        // The channel bandwidths of TS 36.101 Table 5.6-1 (1.4..20 MHz).
        if ![6, 15, 25, 50, 75, 100].contains(&self.n_prb) {
            return Err(ParamError::new(
                "n_prb",
                self.n_prb,
                "one of 6, 15, 25, 50, 75, 100 (TS 36.101 channel bandwidths)",
            ));
        }
        finite("enb_power_dbm", self.enb_power_dbm)?;
        finite("antenna_gain_dbi", self.antenna_gain_dbi)?;
        if !(self.theta_3db_deg > 0.0 && self.theta_3db_deg <= 360.0) {
            return Err(ParamError::new(
                "theta_3db_deg",
                self.theta_3db_deg,
                "a beamwidth in (0, 360] degrees",
            ));
        }
        if !(self.front_to_back_db.is_finite() && self.front_to_back_db >= 0.0) {
            return Err(ParamError::new(
                "front_to_back_db",
                self.front_to_back_db,
                "a finite value >= 0 dB",
            ));
        }
        finite("pathloss_at_1km_db", self.pathloss_at_1km_db)?;
        if !(self.pathloss_slope_db.is_finite() && self.pathloss_slope_db > 0.0) {
            return Err(ParamError::new(
                "pathloss_slope_db",
                self.pathloss_slope_db,
                "a finite slope > 0 dB/decade",
            ));
        }
        finite("penetration_loss_db", self.penetration_loss_db)?;
        if !(self.shadowing_sigma_db.is_finite() && self.shadowing_sigma_db >= 0.0) {
            return Err(ParamError::new(
                "shadowing_sigma_db",
                self.shadowing_sigma_db,
                "a finite value >= 0 dB",
            ));
        }
        if !(0.0..=1.0).contains(&self.shadowing_site_correlation) {
            return Err(ParamError::new(
                "shadowing_site_correlation",
                self.shadowing_site_correlation,
                "a correlation in [0, 1]",
            ));
        }
        // The drop area is the centre site's hexagon, whose inscribed radius is ISD/2: a guard
        // distance at or beyond it would leave no room to drop a UE.
        if !(self.min_distance_m >= 0.0 && self.min_distance_m < self.isd_m / 2.0) {
            return Err(ParamError::new(
                "min_distance_m",
                self.min_distance_m,
                format!("a distance in [0, isd_m / 2 = {}) m", self.isd_m / 2.0),
            ));
        }
        finite("ue_noise_figure_db", self.ue_noise_figure_db)?;
        finite("ue_antenna_gain_dbi", self.ue_antenna_gain_dbi)?;
        Ok(())
    }

    /// eNB transmit power per PRB in dBm (total power spread evenly, lte-cell.md §2.1 `P_PRB`).
    pub fn power_per_prb_dbm(&self) -> f64 {
        self.enb_power_dbm - 10.0 * f64::from(self.n_prb).log10()
    }

    /// Thermal noise over the whole band at the UE in dBm: kTB + NF with B = n_prb x 180 kHz
    /// (lte-cell.md §2.1; −112.4 dBm per PRB at NF 9 dB).
    pub fn noise_dbm(&self) -> f64 {
        THERMAL_NOISE_DBM_PER_HZ
            + 10.0 * (f64::from(self.n_prb) * PRB_HZ).log10()
            + self.ue_noise_figure_db
    }

    /// Distance-dependent path loss in dB at `d_m` metres (TR 36.942 macro, lte-cell.md §1).
    /// Distances below the guard distance are clamped to it: the model is not meant for the
    /// near field, and the drop never places a UE closer to its own site.
    pub fn pathloss_db(&self, d_m: f64) -> f64 {
        let d = d_m.max(self.min_distance_m).max(1e-3);
        self.pathloss_at_1km_db + self.pathloss_slope_db * (d / 1000.0).log10()
    }

    /// Horizontal BS antenna attenuation A(θ) = −min(12 (θ/θ3dB)², A_m) in dB, θ in degrees
    /// off boresight, wrapped to [−180, 180] (TR 36.814 Tab. A.2.1.1-2, lte-cell.md §1).
    pub fn antenna_pattern_db(&self, theta_deg: f64) -> f64 {
        let t = wrap_deg(theta_deg);
        -(12.0 * (t / self.theta_3db_deg).powi(2)).min(self.front_to_back_db)
    }
}

/// Angle in degrees wrapped to [−180, 180).
fn wrap_deg(a: f64) -> f64 {
    (a + 180.0).rem_euclid(360.0) - 180.0
}

/// Site positions in m: site 0 at the origin, sites 1..=6 at distance ISD in directions
/// 0°, 60°, …, 300° (the first tier of a hexagonal grid).
pub fn site_positions(isd_m: f64) -> [(f64, f64); N_SITES] {
    let mut out = [(0.0, 0.0); N_SITES];
    for (k, p) in out.iter_mut().enumerate().skip(1) {
        let a = ((k - 1) as f64 * 60.0).to_radians();
        *p = (isd_m * a.cos(), isd_m * a.sin());
    }
    out
}

/// Boresight azimuths in degrees of a site's three sectors: 0°, 120°, 240°, i.e. each sector
/// points at a neighbouring site (sites at 0°, 60°, … of [`site_positions`]). This is the
/// 3GPP "clover-leaf" layout (TR 36.814 Annex A.2.1 [R]): with sector hexagons of radius R
/// = ISD/3 around the site's boresights, the hexagonal lattice puts the six nearest sites at
/// distance 3R = ISD in the boresight directions and midway between them (checked by
/// enumerating the lattice). Pointing the sectors at the site hexagon's corners instead
/// (30°, 150°, 270° here) makes the SINR percentiles depend on shadowing far more than
/// lte-cell.md §2.1 reports ("shadowing barely moves this"): the measured comparison is in
/// docs/models/lte-cell-geometry.md.
pub const SECTOR_BORESIGHT_DEG: [f64; SECTORS_PER_SITE] = [0.0, 120.0, 240.0];

/// The site of a global sector index (sector `c` = site `c / 3`, sector `c % 3` within it).
pub const fn site_of(sector: usize) -> usize {
    sector / SECTORS_PER_SITE
}

/// One standard normal draw by Box–Muller on two uniforms; the engine's stream only offers
/// uniforms. One value per call (the sine branch is dropped) so the number of draws per value
/// is fixed and easy to reason about.
pub fn standard_normal(rng: &mut RngStream) -> f64 {
    // 1 − U is in (0, 1], so the logarithm is finite.
    let u1 = 1.0 - rng.uniform();
    let u2 = rng.uniform();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// Whether (x, y) lies in the centre site's hexagon: inscribed radius ISD/2, flat sides facing
/// the six neighbours (the Voronoi cell of site 0 in the grid of [`site_positions`]).
pub fn in_centre_hexagon(isd_m: f64, x: f64, y: f64) -> bool {
    let h = isd_m / 2.0;
    (0..3).all(|k| {
        let a = (k as f64 * 60.0).to_radians();
        (x * a.cos() + y * a.sin()).abs() <= h
    })
}

/// Shadowing of one UE towards each site in dB, following lte-cell.md §2.1:
/// X[site] = σ (√ρ·Z_u + √(1−ρ)·Z_{u,site}), Z ~ N(0,1); the sectors of a site share it.
/// Draws 1 + 7 normals in a fixed order (common part first, then sites 0..=6).
pub fn draw_shadowing(params: &CellParams, rng: &mut RngStream) -> [f64; N_SITES] {
    let rho = params.shadowing_site_correlation;
    let common = standard_normal(rng);
    let mut x = [0.0; N_SITES];
    for v in x.iter_mut() {
        let own = standard_normal(rng);
        *v = params.shadowing_sigma_db * (rho.sqrt() * common + (1.0 - rho).sqrt() * own);
    }
    x
}

/// Where a UE is and what it gets from the layout.
#[derive(Clone, Debug, PartialEq)]
pub struct UePlacement {
    /// Position in m (site 0 at the origin).
    pub x: f64,
    pub y: f64,
    /// Serving sector, global index 0..21 (site = sector / 3).
    pub sector: usize,
    /// Distance to the serving site in m.
    pub distance_m: f64,
    /// Received power per PRB from the serving sector in dBm.
    pub rx_power_prb_dbm: f64,
    /// Coupling loss to the serving sector in dB (path loss + penetration + shadowing −
    /// antenna gains), positive; what uplink power control will need (lte-cell.md §2.5).
    pub coupling_loss_db: f64,
    /// Wideband downlink SINR in dB, full-buffer interference from the other 20 sectors.
    pub sinr_db: f64,
    /// Shadowing towards each site in dB (kept for the uplink and for tests).
    pub shadowing_db: [f64; N_SITES],
}

impl UePlacement {
    /// Site of the serving sector.
    pub fn site(&self) -> usize {
        site_of(self.sector)
    }
}

/// Attach a UE at (x, y) with the given per-site shadowing: received power per PRB from every
/// sector, serving sector = the strongest (lte-cell.md §2.1 `s = argmax_c G`), SINR against the
/// sum of all others plus noise per PRB.
pub fn place_ue(params: &CellParams, x: f64, y: f64, shadowing_db: [f64; N_SITES]) -> UePlacement {
    let (rx_dbm, dist) = rx_per_sector_dbm(params, x, y, &shadowing_db);
    // First maximum wins on exact ties, so the choice is deterministic.
    let best = strongest(&rx_dbm);
    let p_prb = params.power_per_prb_dbm();
    let noise_prb_mw = db_to_lin(params.noise_dbm() - 10.0 * f64::from(params.n_prb).log10());
    let interference_mw: f64 = (0..N_SECTORS)
        .filter(|&c| c != best)
        .map(|c| db_to_lin(rx_dbm[c]))
        .sum();
    let sinr_db = rx_dbm[best] - lin_to_db(interference_mw + noise_prb_mw);
    UePlacement {
        x,
        y,
        sector: best,
        distance_m: dist[site_of(best)],
        rx_power_prb_dbm: rx_dbm[best],
        coupling_loss_db: p_prb - rx_dbm[best],
        sinr_db,
        shadowing_db,
    }
}

fn strongest(rx_dbm: &[f64; N_SECTORS]) -> usize {
    let mut best = 0;
    for c in 1..N_SECTORS {
        if rx_dbm[c] > rx_dbm[best] {
            best = c;
        }
    }
    best
}

/// Received power per PRB (dBm) from every sector at (x, y), and the distance to every site.
/// Its difference to the power per PRB is the coupling loss, the same in the uplink
/// (reciprocity).
fn rx_per_sector_dbm(
    params: &CellParams,
    x: f64,
    y: f64,
    shadowing_db: &[f64; N_SITES],
) -> ([f64; N_SECTORS], [f64; N_SITES]) {
    let sites = site_positions(params.isd_m);
    let p_prb = params.power_per_prb_dbm();
    let mut rx_dbm = [0.0; N_SECTORS];
    let mut dist = [0.0; N_SITES];
    for (s, &(sx, sy)) in sites.iter().enumerate() {
        let (dx, dy) = (x - sx, y - sy);
        let d = dx.hypot(dy);
        dist[s] = d;
        let az = dy.atan2(dx).to_degrees();
        let common = p_prb + params.antenna_gain_dbi + params.ue_antenna_gain_dbi
            - params.pathloss_db(d)
            - params.penetration_loss_db
            - shadowing_db[s];
        for (k, bore) in SECTOR_BORESIGHT_DEG.iter().enumerate() {
            rx_dbm[s * SECTORS_PER_SITE + k] = common + params.antenna_pattern_db(az - bore);
        }
    }
    (rx_dbm, dist)
}

/// Uplink interference at full load (issue 22): the mean interference per PRB, over the
/// noise `noise_prb_dbm`, that each centre-site sector receives when every other sector of the
/// layout (its two siblings included) has one UE transmitting on that PRB. Each sector's UEs
/// are a Monte-Carlo sample of `per_site` UEs dropped uniformly in every site's hexagon (with
/// shadowing, attached to their strongest sector); a UE transmits one PRB at
/// `tx_prb_dbm(coupling loss to its own sector)` (its power control) and is received through
/// its coupling loss to the centre sector. Linear I/N per centre sector; the IoT at a load L
/// (fraction of PRBs in use next door) is then 1 + L·I/N.
pub fn ul_full_load_inr(
    params: &CellParams,
    tx_prb_dbm: impl Fn(f64) -> f64,
    noise_prb_dbm: f64,
    per_site: usize,
    rng: &mut RngStream,
) -> [f64; SECTORS_PER_SITE] {
    let sites = site_positions(params.isd_m);
    let p_prb = params.power_per_prb_dbm();
    let r = params.isd_m / 3f64.sqrt();
    let h = params.isd_m / 2.0;
    // Per serving sector: Σ received mW at each centre sector, and the UE count.
    let mut sum = [[0.0; SECTORS_PER_SITE]; N_SECTORS];
    let mut count = [0usize; N_SECTORS];
    for &(sx, sy) in &sites {
        for _ in 0..per_site {
            let (x, y) = loop {
                let x = (2.0 * rng.uniform() - 1.0) * r;
                let y = (2.0 * rng.uniform() - 1.0) * h;
                if in_centre_hexagon(params.isd_m, x, y) && x.hypot(y) >= params.min_distance_m {
                    break (x + sx, y + sy);
                }
            };
            let shadowing = draw_shadowing(params, rng);
            let (rx, _) = rx_per_sector_dbm(params, x, y, &shadowing);
            let own = strongest(&rx);
            let tx = tx_prb_dbm(p_prb - rx[own]);
            count[own] += 1;
            for (k, acc) in sum[own].iter_mut().enumerate() {
                *acc += db_to_lin(tx - (p_prb - rx[k]));
            }
        }
    }
    let noise_mw = db_to_lin(noise_prb_dbm);
    std::array::from_fn(|k| {
        (0..N_SECTORS)
            .filter(|&c| c != k && count[c] > 0)
            .map(|c| sum[c][k] / count[c] as f64)
            .sum::<f64>()
            / noise_mw
    })
}

/// One UE dropped uniformly in the centre site's hexagon at least `min_distance_m` from the
/// centre site (lte-cell.md §2.1, "dropped uniformly in the centre hexagon"), with fresh
/// shadowing. It may attach to a neighbour site (≈ 25 % do, lte-cell.md §2.1).
///
/// Draws: position by rejection from the bounding box (2 uniforms per try), then the
/// shadowing of [`draw_shadowing`].
pub fn drop_one(params: &CellParams, rng: &mut RngStream) -> UePlacement {
    let r = params.isd_m / 3f64.sqrt(); // circumradius of the hexagon
    let h = params.isd_m / 2.0;
    let (x, y) = loop {
        let x = (2.0 * rng.uniform() - 1.0) * r;
        let y = (2.0 * rng.uniform() - 1.0) * h;
        if in_centre_hexagon(params.isd_m, x, y) && x.hypot(y) >= params.min_distance_m {
            break (x, y);
        }
    };
    let shadowing = draw_shadowing(params, rng);
    place_ue(params, x, y, shadowing)
}

/// Result of [`drop_ues`].
#[derive(Clone, Debug, PartialEq)]
pub struct Drop {
    /// The `n` UEs served by the centre site (sectors 0, 1, 2), in drop order.
    pub ues: Vec<UePlacement>,
    /// UEs drawn in the centre hexagon but attached to a neighbour site and so redrawn.
    pub rejected: usize,
}

/// Drop `n` UEs "randomly placed in the serving cell" (Ohta et al. §II.B): uniform in the
/// centre site's hexagon, and, as in the reference Monte-Carlo of lte-cell.md §2.1, keeping only
/// those whose best sector belongs to the centre site (the others are redrawn). Deterministic
/// given the stream.
pub fn drop_ues(params: &CellParams, n: usize, rng: &mut RngStream) -> Result<Drop, ParamError> {
    drop_ues_by_sector(params, n, None, rng)
}

/// [`drop_ues`] with `per_sector` UEs in each centre-site sector (e.g. Table I's 2 / 4 / 4):
/// UEs are drawn as there and kept only while their sector has room, so each sector's UEs are
/// uniform over the part of the hexagon it serves. `None`: as [`drop_ues`].
pub fn drop_ues_by_sector(
    params: &CellParams,
    n: usize,
    per_sector: Option<[u32; SECTORS_PER_SITE]>,
    rng: &mut RngStream,
) -> Result<Drop, ParamError> {
    params.validate()?;
    if let Some(c) = per_sector {
        if c.iter().map(|&x| x as usize).sum::<usize>() != n {
            return Err(ParamError::new(
                "per_sector",
                format!("{c:?}"),
                format!("counts that sum to {n}"),
            ));
        }
    }
    let mut room = per_sector.unwrap_or([u32::MAX; SECTORS_PER_SITE]);
    let mut ues = Vec::with_capacity(n);
    let mut rejected = 0;
    while ues.len() < n {
        let ue = drop_one(params, rng);
        if ue.site() == 0 && room[ue.sector] > 0 {
            room[ue.sector] -= 1;
            ues.push(ue);
        } else {
            rejected += 1;
        }
    }
    Ok(Drop { ues, rejected })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_case1_and_valid() {
        let p = CellParams::default();
        p.validate().unwrap();
        assert_eq!(p.n_prb, 50);
        assert_eq!(p.enb_power_dbm, 46.0);
        for n in [25, 50, 100] {
            let p = CellParams::case1(n);
            p.validate().unwrap();
            // 43/46/49 dBm over 25/50/100 PRB are all 29 dBm per PRB, to the 0.021 dB by which
            // 10 log10 2 differs from 3 dB (25 PRB: 43 − 13.98 = 29.02).
            assert!((p.power_per_prb_dbm() - 29.0).abs() < 0.03, "{n}");
            // Noise per PRB is −112.4 dBm at NF 9 dB (lte-cell.md §2.1).
            let per_prb = p.noise_dbm() - 10.0 * f64::from(n).log10();
            assert!((per_prb - (-112.45)).abs() < 0.01, "{per_prb}");
        }
    }

    #[test]
    fn validate_names_the_field() {
        let d = CellParams::default;
        let cases = [
            (CellParams { n_prb: 40, ..d() }, "n_prb"),
            (
                CellParams {
                    shadowing_site_correlation: 1.5,
                    ..d()
                },
                "shadowing_site_correlation",
            ),
            (
                CellParams {
                    min_distance_m: 250.0,
                    ..d()
                },
                "min_distance_m",
            ),
            (
                CellParams {
                    isd_m: f64::NAN,
                    ..d()
                },
                "isd_m",
            ),
        ];
        for (p, field) in cases {
            assert_eq!(p.validate().unwrap_err().field, field);
        }
        let mut rng = RngStream::new(1, 0, 0);
        let p = CellParams {
            theta_3db_deg: 0.0,
            ..d()
        };
        assert_eq!(
            drop_ues(&p, 1, &mut rng).unwrap_err().field,
            "theta_3db_deg"
        );
    }

    #[test]
    fn sites_form_a_hexagonal_first_tier() {
        let s = site_positions(500.0);
        assert_eq!(s.len(), 7);
        assert_eq!(s[0], (0.0, 0.0));
        for (i, a) in s.iter().enumerate().skip(1) {
            assert!((a.0.hypot(a.1) - 500.0).abs() < 1e-9);
            // Neighbouring tier sites are also one ISD apart (a hexagon of side ISD).
            let b = s[if i == 6 { 1 } else { i + 1 }];
            assert!(((a.0 - b.0).hypot(a.1 - b.1) - 500.0).abs() < 1e-9);
        }
        assert!(in_centre_hexagon(500.0, 249.0, 0.0));
        assert!(!in_centre_hexagon(500.0, 251.0, 0.0));
        // The corner at 30° is at the circumradius ISD/√3 = 288.7 m.
        let c = 500.0 / 3f64.sqrt();
        let a = 30f64.to_radians();
        assert!(in_centre_hexagon(
            500.0,
            0.99 * c * a.cos(),
            0.99 * c * a.sin()
        ));
        assert!(!in_centre_hexagon(
            500.0,
            1.01 * c * a.cos(),
            1.01 * c * a.sin()
        ));
    }

    #[test]
    fn antenna_pattern_values() {
        let p = CellParams::default();
        assert_eq!(p.antenna_pattern_db(0.0), 0.0);
        assert!((p.antenna_pattern_db(70.0) + 12.0).abs() < 1e-12);
        assert!(
            (p.antenna_pattern_db(-35.0) + 3.0).abs() < 1e-12,
            "half-power at θ3dB/2"
        );
        assert_eq!(
            p.antenna_pattern_db(180.0),
            -20.0,
            "back lobe capped at A_m"
        );
        assert_eq!(p.antenna_pattern_db(100.0), -20.0);
        // Wrapping: 350° off is 10° off.
        assert!((p.antenna_pattern_db(350.0) - p.antenna_pattern_db(10.0)).abs() < 1e-12);
    }

    #[test]
    fn pathloss_reference_distances() {
        let p = CellParams::default();
        assert!((p.pathloss_db(1000.0) - 128.1).abs() < 1e-9);
        assert!((p.pathloss_db(100.0) - (128.1 - 37.6)).abs() < 1e-9);
        // lte-cell.md §1's metre form: 15.3 + 37.6 log10(d/m).
        let d: f64 = 250.0;
        assert!((p.pathloss_db(d) - (15.3 + 37.6 * d.log10())).abs() < 1e-9);
        // Clamped at the guard distance.
        assert_eq!(p.pathloss_db(1.0), p.pathloss_db(35.0));
    }

    #[test]
    fn normal_draws_have_unit_moments() {
        let mut rng = RngStream::new(7, 0, 3);
        let n = 20_000;
        let v: Vec<f64> = (0..n).map(|_| standard_normal(&mut rng)).collect();
        let mean = v.iter().sum::<f64>() / n as f64;
        let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        // 5 standard errors: 5/√n = 0.035 for the mean, 5·√(2/n) = 0.05 for the variance.
        assert!(mean.abs() < 0.035, "{mean}");
        assert!((var - 1.0).abs() < 0.05, "{var}");
    }

    #[test]
    fn boresight_ue_near_its_site_is_served_by_that_sector() {
        let p = CellParams::default();
        for (k, b) in SECTOR_BORESIGHT_DEG.iter().enumerate() {
            let a = b.to_radians();
            let ue = place_ue(&p, 100.0 * a.cos(), 100.0 * a.sin(), [0.0; N_SITES]);
            assert_eq!(ue.sector, k);
            assert!((ue.distance_m - 100.0).abs() < 1e-9);
            assert!(ue.sinr_db > 10.0, "{}", ue.sinr_db);
        }
    }
}
