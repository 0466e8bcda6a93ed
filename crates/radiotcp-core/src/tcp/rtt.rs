//! The retransmission timeout estimator of RFC 6298: SRTT, RTTVAR, the RTO with its bounds,
//! and exponential backoff.

use crate::engine::Time;

#[derive(Debug, Clone)]
pub struct RttEstimator {
    srtt: Option<Time>,
    rttvar: Time,
    /// Current RTO including backoff.
    rto: Time,
    /// Consecutive expiries without a valid RTT sample since (RFC 6298 §5.5, Karn).
    backoffs: u32,
    min_rto: Time,
    max_rto: Time,
    granularity: Time,
}

impl RttEstimator {
    pub fn new(initial_rto: Time, min_rto: Time, max_rto: Time, granularity: Time) -> Self {
        Self {
            srtt: None,
            rttvar: 0,
            rto: initial_rto,
            backoffs: 0,
            min_rto,
            max_rto,
            granularity,
        }
    }

    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    pub fn rto(&self) -> Time {
        self.rto
    }

    /// Expiries since the last valid sample.
    pub fn backoffs(&self) -> u32 {
        self.backoffs
    }

    /// A valid RTT measurement.
    pub fn on_sample(&mut self, sample: Time) {
        match self.srtt {
            None => {
                // RFC 6298 §2.2.
                self.srtt = Some(sample);
                self.rttvar = sample / 2;
            }
            Some(srtt) => {
                // RFC 6298 §2.3, beta = 1/4 then alpha = 1/8, in that order.
                let err = srtt.abs_diff(sample);
                self.rttvar = (3 * self.rttvar + err) / 4;
                self.srtt = Some((7 * srtt + sample) / 8);
            }
        }
        // A valid sample ends any backoff (RFC 6298 §5.7 and Karn).
        self.backoffs = 0;
        let srtt = self.srtt.unwrap_or(sample);
        let rto = srtt + self.granularity.max(4 * self.rttvar);
        // §2.4 lower bound, §2.5 upper bound.
        self.rto = rto.clamp(self.min_rto, self.max_rto);
    }

    /// RFC 6298 §5.5: the timer expired; double the RTO (bounded).
    pub fn on_expiry(&mut self) {
        self.backoffs += 1;
        self.rto = (self.rto * 2).min(self.max_rto);
    }
}
