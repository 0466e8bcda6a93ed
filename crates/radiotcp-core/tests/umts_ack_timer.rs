//! The ACK rate control's timer is always on the event queue when it is set (issue 26
//! follow-up): a TTI that releases no ACK may still set the next ACK's deadline, and before
//! the fix only a later uplink arrival scheduled it, by then in the past. The engine now
//! refuses an event in the past in release builds too, so these runs would panic.

#[path = "common/umts.rs"]
mod common_umts;

use common_umts::umts_bearer;
use radiotcp_core::config::AckControlMode;
use radiotcp_core::{run, RunOptions};

/// The configuration that exposed it (`ackrate-table`'s "alpha 1, maxd 1 s, minth 0"), one
/// and four flows, several replications: every run completes.
#[test]
fn ack_rate_control_never_schedules_its_timer_in_the_past() {
    for flows in [1, 4] {
        let mut c = umts_bearer();
        c.simulation.duration_s = 60.0;
        c.flows.count = flows;
        c.flows.start_jitter_s = 1.0;
        let u = c.access.umts_mut().expect("a UMTS bearer");
        let a = &mut u.ack_control;
        a.mode = AckControlMode::Rate;
        a.alpha = 1.0;
        a.maxd_ms = 1000.0;
        a.minth_sdus = 0.0;
        a.maxth_sdus = 50.0;
        a.mind_ms = 0.0;
        c.validate().expect("a valid scenario");
        for r in 0..6 {
            run(&c, 1, r, &RunOptions::default()).expect("the run completes");
        }
    }
}
