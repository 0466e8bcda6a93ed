//! A router: forwards by destination. It may run the base-station ACK controller (Zeng) on
//! one of its links: data it forwards onto that link and ACKs that arrive over it pass through
//! the controller (docs/models/bs-ack-controller.md).

use crate::ack::{BsAckController, BsAckParams, DataVerdict};
use crate::engine::{mean_wait_ms, to_millis, to_secs, TimerSlot};
use crate::link::Dir;
use crate::net::{LinkId, Net, Port};
use crate::packet::{Packet, PacketKind};
use crate::results::{BsAckResult, RunResult};

use super::{Ctx, NodeEvent};

#[derive(Debug, Clone)]
pub enum RouterEvent {
    /// The BS controller's txTimer.
    BsTimer { generation: u32 },
}

/// The BS ACK controller and the link to the mobile host it watches.
struct BaseStation {
    link: LinkId,
    ctrl: BsAckController,
    timer: TimerSlot,
}

#[derive(Default)]
pub struct Router {
    bs: Option<Box<BaseStation>>,
}

impl Router {
    pub fn new() -> Self {
        Self::default()
    }

    /// Run the BS ACK controller on `link` (this router is the node before it).
    pub fn with_bs_ack(link: LinkId, p: BsAckParams) -> Self {
        Self {
            bs: Some(Box::new(BaseStation {
                link,
                ctrl: BsAckController::new(p),
                timer: TimerSlot::default(),
            })),
        }
    }

    /// The BS ACK controller this router runs, if any (its state after a run: held
    /// duplicates, queue).
    pub fn bs_ack(&self) -> Option<&BsAckController> {
        self.bs.as_ref().map(|b| &b.ctrl)
    }

    pub fn handle(&mut self, ctx: &mut Ctx, ev: RouterEvent) {
        match ev {
            RouterEvent::BsTimer { generation } => {
                if self.bs.as_mut().is_some_and(|b| b.timer.fire(generation)) {
                    self.bs_release(ctx);
                }
            }
        }
    }

    /// A packet to forward. Inlined into the node's dispatch: a router without the BS ACK
    /// controller (all but the base station of a scenario that enables it) only looks the
    /// route up, and as one function with the controller's path it paid that path's frame
    /// (six registers saved and restored) on every packet.
    #[inline(always)]
    pub fn receive(&mut self, ctx: &mut Ctx, pkt: &Packet, from: Option<(LinkId, Dir)>) {
        // The handshake passes the controller untouched: it paces and repairs the ACK stream
        // of data in flight, and there is none yet.
        if self.bs.is_some() && !pkt.opt.syn {
            self.receive_bs(ctx, pkt, from);
        } else {
            ctx.forward(pkt);
        }
    }

    /// [`Self::receive`] at the router that runs the BS controller.
    #[inline(never)]
    fn receive_bs(&mut self, ctx: &mut Ctx, pkt: &Packet, from: Option<(LinkId, Dir)>) {
        let now = ctx.now;
        if let Some(b) = self.bs.as_mut() {
            // Only ACKs from the mobile host and data towards it are the controller's (an
            // emulated UE's requests and uploads, and their ACKs, pass).
            if from == Some((b.link, Dir::Ack)) && pkt.kind == PacketKind::Ack {
                // An ACK from the mobile host.
                b.ctrl.on_ack(now, *pkt);
                self.bs_release(ctx);
                return;
            }
            let port = ctx.route(pkt);
            if port == Port::Link(b.link, Dir::Data) && pkt.kind == PacketKind::Data {
                match b.ctrl.on_data(now, *pkt) {
                    DataVerdict::Forward => ctx.send_on(port, pkt),
                    DataVerdict::Drop { reply } => {
                        // Already acknowledged by the MH: not forwarded (Zeng, case 3).
                        ctx.probe.drop(now, pkt);
                        if let Some(r) = reply {
                            ctx.send(r);
                        }
                    }
                }
                return;
            }
        }
        ctx.forward(pkt);
    }

    /// Send what the BS controller releases towards the fixed host and keep its txTimer in
    /// step.
    fn bs_release(&mut self, ctx: &mut Ctx) {
        let Some(b) = self.bs.as_mut() else {
            return;
        };
        let now = ctx.now;
        let out = b.ctrl.poll_transmit(now);
        ctx.sync(&mut b.timer, b.ctrl.poll_timeout(), |generation| {
            NodeEvent::Router(RouterEvent::BsTimer { generation })
        });
        let queued = b.ctrl.ack_queue_len() as f64;
        if let Some(t) = ctx.probe.traces.as_mut() {
            if t.ack_queue.value.last() != Some(&queued) {
                t.ack_queue.push(to_secs(now), 0, queued);
            }
        }
        for pkt in out {
            ctx.send(pkt);
        }
    }

    pub fn finish(&mut self, r: &mut RunResult, net: &Net) {
        let Some(b) = self.bs.as_ref() else {
            return;
        };
        let st = b.ctrl.stats();
        r.bs_ack = Some(BsAckResult {
            link: net.links[b.link as usize].name.clone(),
            drops: [("already_acked".to_string(), st.data_dropped_already_acked)].into(),
            data_in: st.data_in,
            data_forwarded: st.data_forwarded,
            acks_in: st.acks_in,
            acks_sent: st.acks_sent,
            dup_acks_in: st.dup_acks_in,
            dup_acks_held: st.dup_acks_held,
            dup_acks_forwarded: st.dup_acks_forwarded,
            dup_acks_dropped: st.dup_acks_dropped,
            acks_generated: st.acks_generated,
            replies_suppressed: st.replies_suppressed,
            rtt_samples: st.rtt_samples,
            acks_delayed: st.acks_delayed,
            ack_delay_mean_ms: mean_wait_ms(st.total_ack_delay, st.acks_delayed),
            max_ack_queue: st.max_ack_queue as u64,
            final_srtt_ms: b.ctrl.srtt().map_or(f64::NAN, to_millis),
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{
        BsAckConfig, DelayDirections, DelayProcessKind, PacingRuleKind, ScenarioConfig,
        VariableDelayConfig,
    };
    use crate::node::Node;
    use crate::{topology, RunOptions};

    /// The controller's deadline (`poll_timeout`) is never without an event on the queue to
    /// serve it: after every event of a run, the router's timer slot is armed at or before
    /// it. The UMTS node's ACK rate control once set a deadline in a TTI without scheduling
    /// it; here every change of the deadline (an ACK from the MH queued, ACKs released) goes
    /// through `bs_release`, which syncs the slot, and forwarding data leaves it unchanged.
    /// Reordering, pacing by SRTT per window and the maximum wait make the deadline move
    /// both ways.
    #[test]
    fn the_bs_timer_is_armed_whenever_the_controller_has_a_deadline() {
        for (pacing_rule, max_wait) in [
            (PacingRuleKind::SrttPerWindow, None),
            (PacingRuleKind::SrttFraction, Some(150.0)),
        ] {
            let mut cfg = ScenarioConfig::default();
            cfg.simulation.duration_s = 30.0;
            cfg.flows.count = 2;
            cfg.links[1].variable_delay = Some(VariableDelayConfig {
                process: DelayProcessKind::Uniform,
                mean_ms: 120.0,
                half_width_ms: 80.0,
                fifo: false,
                start_s: 0.5,
                directions: DelayDirections::Both,
                ..VariableDelayConfig::default()
            });
            cfg.bs_ack = BsAckConfig {
                enabled: true,
                link: cfg.links[1].name.clone(),
                dup_ack_thresh: 5,
                pacing: true,
                pacing_rule,
                max_ack_wait_ms: max_wait,
                ..BsAckConfig::default()
            };
            cfg.validate().expect("a valid scenario");
            let mut sim = topology::build(&cfg, 1, 0, &RunOptions::default());
            let end = sim.end();
            let (mut events, mut with_deadline) = (0u64, 0u64);
            while sim.step(end) {
                events += 1;
                for n in 0..sim.node_count() {
                    let Node::Router(r) = sim.node(n as u32) else {
                        continue;
                    };
                    let Some(b) = r.bs.as_ref() else { continue };
                    if let Some(d) = b.ctrl.poll_timeout() {
                        with_deadline += 1;
                        assert!(
                            b.timer.armed().is_some_and(|a| a <= d),
                            "event {events}: deadline {d} but the slot is armed at {:?}",
                            b.timer.armed()
                        );
                    }
                }
            }
            assert!(
                with_deadline > 100,
                "the controller paced ({with_deadline} events)"
            );
        }
    }
}
