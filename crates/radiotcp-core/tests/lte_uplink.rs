//! The LTE cell's uplink and control-channel physics (issue 22), end to end through the real
//! wiring:
//!
//! - the PDCCH budget: with CFI 1 (17 CCEs) and every UE at aggregation level 8, a sector
//!   issues at most two DCIs per TTI, and the priority decides which direction is blocked;
//! - the per-TTI UE cap;
//! - per-grant power control: UEs beyond the headroom are counted power-limited, none in the
//!   reference-PRB mode; a larger ISD makes more of them;
//! - the IoT follows the configured neighbour load, or stays at the constant one;
//! - PHRs are sent, at most one per grant.

#[path = "common/lte.rs"]
mod common_lte;

use common_lte::{lte, preset};
use radiotcp_core::config::{
    DciPriorityKind, ScenarioConfig, UlInterferenceKind, UlPowerControlKind,
};
use radiotcp_core::results::LteCellStats;
use radiotcp_core::{run, RunOptions};

fn cell(c: &ScenarioConfig) -> LteCellStats {
    c.validate().expect("a valid scenario");
    let r = run(c, 7, 0, &RunOptions::default()).expect("the run completes");
    r.lte().cloned().unwrap().cell
}

fn short(ues: u32) -> ScenarioConfig {
    let mut c = preset(ues);
    c.simulation.duration_s = 6.0;
    c.simulation.warmup_s = 0.0;
    c
}

/// 17 CCEs, every DCI 8 CCEs: two DCIs per sector and TTI at most, whatever the load.
#[test]
fn the_cce_budget_caps_dcis_per_tti_and_the_priority_picks_who_waits() {
    let mut c = short(30);
    let l = lte(&mut c);
    l.pdcch.cfi = 1;
    l.pdcch.aggregation_sinr_db = [50.0, 50.0, 50.0];
    let ttis = 6000u64;
    let dl_first = cell(&c);
    assert_eq!(dl_first.pdcch_cces, 17);
    assert!(dl_first.dl_dcis + dl_first.ul_dcis <= 2 * 3 * ttis);
    assert!(dl_first.ul_dci_blocked > 0, "{dl_first:?}");
    // Per UE, the same passes-over (and the UE cap blocks none here).
    let per_ue = |c: &ScenarioConfig| {
        c.validate().unwrap();
        let r = run(c, 7, 0, &RunOptions::default())
            .unwrap()
            .lte()
            .cloned()
            .unwrap();
        let ul: u64 = r.ues.iter().map(|u| u.ul_dci_blocked).sum();
        let dl: u64 = r.ues.iter().map(|u| u.dl_dci_blocked).sum();
        (dl, ul, r.cell)
    };
    let (dl, ul, again) = per_ue(&c);
    assert_eq!((dl, ul), (again.dl_dci_blocked, again.ul_dci_blocked));
    assert!(dl_first.pdcch_cce_utilization > 0.5 && dl_first.pdcch_cce_utilization <= 1.0);
    lte(&mut c).pdcch.priority = DciPriorityKind::UlFirst;
    let ul_first = cell(&c);
    assert!(ul_first.dl_dcis + ul_first.ul_dcis <= 2 * 3 * ttis);
    // UL grants first: fewer UL blocks, more DL ones, than when DL goes first.
    assert!(
        ul_first.ul_dci_blocked < dl_first.ul_dci_blocked
            && ul_first.dl_dci_blocked > dl_first.dl_dci_blocked,
        "ul first {ul_first:?} dl first {dl_first:?}"
    );
    // The budget off: nothing blocked, no utilisation.
    let l = lte(&mut c);
    l.pdcch.enabled = false;
    let off = cell(&c);
    assert_eq!(
        (off.dl_dci_blocked, off.ul_dci_blocked, off.pdcch_cces),
        (0, 0, 0)
    );
    assert!(off.pdcch_cce_utilization.is_nan());
}

#[test]
fn the_per_tti_cap_limits_ues_per_sector() {
    let mut c = short(30);
    let l = lte(&mut c);
    l.pdcch.max_ul_ues_per_tti = Some(1);
    l.pdcch.max_dl_ues_per_tti = Some(1);
    let r = cell(&c);
    assert!(r.ul_dcis <= 3 * 6000 && r.dl_dcis <= 3 * 6000, "{r:?}");
    assert!(r.ul_ue_cap_blocked > 0 && r.dl_ue_cap_blocked > 0);
}

/// Per-grant power control at ISD 500 m (α = 1, P0 = −106 dBm): some UEs are power-limited
/// on wide grants. At ISD 1732 m (Case 3) more are; in the reference-PRB mode none is
/// counted (the SINR does not depend on the grant).
#[test]
fn power_limits_grow_with_the_cell_and_vanish_in_the_reference_mode() {
    let mut c = short(20);
    let near = cell(&c);
    lte(&mut c).cell.isd_m = 1732.0;
    let far = cell(&c);
    assert!(
        far.ul_power_limited_fraction > near.ul_power_limited_fraction,
        "ISD 1732: {} vs 500: {}",
        far.ul_power_limited_fraction,
        near.ul_power_limited_fraction
    );
    assert!(far.phrs > 0 && far.phrs <= far.ul_blocks);
    lte(&mut c).uplink.power_control = UlPowerControlKind::ReferencePrb;
    let reference = cell(&c);
    assert_eq!(reference.ul_power_limited_fraction, 0.0);
    assert_eq!(reference.phrs, 0);
}

/// The IoT is 1 + load · I/N at full load: 0 dB with no neighbour load, more at full load,
/// the configured constant in the constant mode.
#[test]
fn the_iot_follows_the_neighbour_load() {
    let mut c = short(10);
    let iot = |c: &ScenarioConfig| cell(c).ul_iot_mean_db;
    lte(&mut c).uplink.neighbour_load = Some(0.0);
    assert!(iot(&c).abs() < 1e-12);
    lte(&mut c).uplink.neighbour_load = Some(1.0);
    let full = iot(&c);
    lte(&mut c).uplink.neighbour_load = Some(0.2);
    let some = iot(&c);
    assert!(full > some && some > 0.0, "full {full} dB, 20 %: {some} dB");
    let mirrored = {
        lte(&mut c).uplink.neighbour_load = None;
        cell(&c)
    };
    assert!(mirrored.ul_iot_mean_db > 0.0 && mirrored.ul_iot_mean_db < full);
    assert!(mirrored.ul_prb_utilization > 0.0 && mirrored.ul_prb_utilization < 1.0);
    let l = lte(&mut c);
    l.uplink.interference = UlInterferenceKind::Constant;
    l.uplink.iot_db = 2.0;
    assert!((iot(&c) - 2.0).abs() < 1e-9);
}

/// UEs given by SINR with a coupling loss each: the uplink MCS falls with the headroom (the
/// eNB measures the SINR at the power the UE sends), and even the UE 32 dB short of headroom
/// at one PRB still gets its ACKs through (at a low MCS), so its download runs.
#[test]
fn listed_coupling_losses_set_the_headroom_and_the_uplink_mcs() {
    let mut c = short(4);
    let l = lte(&mut c);
    l.cell.ue_sinr_db = Some(vec![20.0; 4]);
    l.cell.ue_coupling_loss_db = Some(vec![100.0, 120.0, 130.0, 135.0]);
    l.cell.sectors = 1;
    l.uplink.p0_dbm = -80.0;
    // A single cell: with P0 = −80 dBm, neighbours under the same control would be received
    // 36 dB over noise, so the interference is held at the constant 2 dB here.
    l.uplink.interference = UlInterferenceKind::Constant;
    l.fading.model = radiotcp_core::config::FadingKind::None;
    c.validate().unwrap();
    let r = run(&c, 3, 0, &RunOptions::default())
        .unwrap()
        .lte()
        .cloned()
        .unwrap();
    let h: Vec<f64> = r.ues.iter().map(|u| u.ul_headroom_db).collect();
    // P_CMAX − P0 − PL at one PRB: 23 + 80 − PL.
    for (got, want) in h.iter().zip([3.0, -17.0, -27.0, -32.0]) {
        assert!((got - want).abs() < 1e-9, "{h:?}");
    }
    let mcs: Vec<f64> = r.ues.iter().map(|u| u.ul_mean_mcs).collect();
    assert!(mcs.windows(2).all(|w| w[0] > w[1]), "{mcs:?}");
    assert!(r.ues.iter().all(|u| u.goodput_kbps > 1000.0), "{:?}", r.ues);
    // A loss without listed SINRs is refused.
    let mut bad = short(2);
    lte(&mut bad).cell.ue_coupling_loss_db = Some(vec![100.0, 100.0]);
    assert_eq!(
        bad.validate().unwrap_err().key,
        "access.cell.ue_coupling_loss_db"
    );
}
