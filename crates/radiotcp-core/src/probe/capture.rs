//! pcap export: what a packet sniffer would record at chosen points of the simulated network
//! (`radiotcp run ... --pcap DIR`). Each simulated TCP packet becomes an IPv4/TCP header with
//! the fields a real stack would put there (`crate::wire` encodes them, `crate::pcap` writes the file); the payload is not
//! captured (records are headers only, with the true length), as `tcpdump -s 128` does.
//!
//! Capture points: the server host (everything it sends and receives), the UE side (every UE
//! host), and the transmitter of a named link (both directions, each packet when its
//! serialisation starts, including those the wire then loses). Off unless asked for: the nodes
//! check one `Option` per packet.
//!
//! Addresses and numbers: the server is 10.0.0.1, UE host k is 10.1.x.y with x.y = k; the
//! server listens on port 5001, flow f's client uses port 40000 + f mod 20000. Sequence
//! numbers start from a per-flow initial sequence number (a SYN takes one, modelled or not);
//! TSval is the sender's 1 ms clock, TSecr what it last received; the window field is scaled
//! by the shift the receive buffer needs (RFC 7323 §2.3).

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::PathBuf;

use crate::engine::Time;
use crate::packet::{HostId, Packet, PacketKind};
use crate::pcap::PcapWriter;
use crate::results::CaptureFile;
use crate::wire::{self, Ipv4TcpRepr, SackBlocks, TcpOptions, TcpRepr};

/// Where to capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CapturePoint {
    /// The server host: the data it sends and the ACKs it receives.
    Server,
    /// The UE hosts (the client): the data they receive and the ACKs they send.
    Ue,
    /// The transmitter of the link of this name, both directions.
    Link(String),
}

impl CapturePoint {
    /// The point as named on the command line and in file names.
    pub fn name(&self) -> String {
        match self {
            CapturePoint::Server => "server".into(),
            CapturePoint::Ue => "ue".into(),
            CapturePoint::Link(l) => format!("link-{l}"),
        }
    }
}

/// What to capture, and where the files go: `<dir>/<point>-run<i>.pcap`.
#[derive(Debug, Clone, PartialEq)]
pub struct CaptureSpec {
    pub dir: PathBuf,
    pub points: Vec<CapturePoint>,
    /// Captured bytes per record (at least the headers; see `crate::pcap::MIN_SNAPLEN`).
    pub snaplen: u32,
}

/// What the encoder needs to know of the scenario's TCP.
#[derive(Debug, Clone)]
pub struct WireParams {
    pub mss: u16,
    pub sack: bool,
    pub timestamps: bool,
    /// RFC 7323 window scale shift; `None` without window scaling.
    pub wscale: Option<u8>,
    /// The receive buffer (what a data segment's own window field advertises).
    pub rcv_buf: u32,
}

const SERVER: HostId = 0;
const SERVER_PORT: u16 = 5001;

struct Sink {
    point: CapturePoint,
    path: PathBuf,
    w: PcapWriter<BufWriter<File>>,
}

/// The open capture of one run.
pub struct Capture {
    wire: WireParams,
    /// The host that receives each flow (its ACKs come from there).
    flow_client: Vec<HostId>,
    /// Per flow: the TSval of the last ACK its sender received (the sender's TS.Recent).
    sender_ts_recent: Vec<u32>,
    /// Per host: the next IPv4 identification.
    ip_id: Vec<u16>,
    server: Option<usize>,
    ue: Option<usize>,
    /// Per link: its sink, if captured.
    links: Vec<Option<usize>>,
    sinks: Vec<Sink>,
    error: Option<io::Error>,
}

/// The window-scale shift that lets `buf` be advertised in 16 bits (RFC 7323 §2.3: at most
/// 14).
pub fn wscale_for(buf: u32) -> u8 {
    let mut s = 0;
    while s < 14 && (buf >> s) > 65_535 {
        s += 1;
    }
    s
}

fn ip(host: HostId) -> [u8; 4] {
    if host == SERVER {
        [10, 0, 0, 1]
    } else {
        [10, 1, (host >> 8) as u8, host as u8]
    }
}

fn client_port(flow: u32) -> u16 {
    40_000 + (flow % 20_000) as u16
}

/// A per-flow, per-direction initial sequence number: fixed, so runs are reproducible, and
/// spread over the 32-bit space, so wrap-around shows up in long captures.
fn isn(flow: u32, from_client: bool) -> u32 {
    flow.wrapping_mul(0x9E37_79B1)
        .wrapping_add(from_client as u32 * 0x6A09_E667)
        .wrapping_add(1)
}

impl Capture {
    /// Open one file per point. `links` are the scenario's link names, in order.
    pub fn open(
        spec: &CaptureSpec,
        run_index: u64,
        wire: WireParams,
        flow_client: Vec<HostId>,
        hosts: usize,
        links: &[String],
    ) -> io::Result<Self> {
        std::fs::create_dir_all(&spec.dir)?;
        let mut c = Capture {
            wire,
            sender_ts_recent: vec![0; flow_client.len()],
            flow_client,
            ip_id: vec![1; hosts],
            server: None,
            ue: None,
            links: vec![None; links.len()],
            sinks: Vec::new(),
            error: None,
        };
        for point in &spec.points {
            let path = spec
                .dir
                .join(format!("{}-run{}.pcap", point.name(), run_index));
            let w = PcapWriter::new(BufWriter::new(File::create(&path)?), spec.snaplen)?;
            let i = c.sinks.len();
            match point {
                CapturePoint::Server => c.server = Some(i),
                CapturePoint::Ue => c.ue = Some(i),
                CapturePoint::Link(name) => {
                    let l = links.iter().position(|n| n == name).ok_or_else(|| {
                        io::Error::new(io::ErrorKind::NotFound, format!("no link named {name}"))
                    })?;
                    c.links[l] = Some(i);
                }
            }
            c.sinks.push(Sink {
                point: point.clone(),
                path,
                w,
            });
        }
        Ok(c)
    }

    /// A host sent or received `pkt` at `now`.
    #[inline]
    pub fn at_host(&mut self, now: Time, host: HostId, pkt: &Packet) {
        let sink = if host == SERVER { self.server } else { self.ue };
        if let Some(i) = sink {
            self.write(i, now, pkt);
        }
    }

    /// `pkt` starts its serialisation on `link` at `now`.
    #[inline]
    pub fn on_link(&mut self, now: Time, link: u32, pkt: &Packet) {
        if let Some(i) = self.links.get(link as usize).copied().flatten() {
            self.write(i, now, pkt);
        }
    }

    /// The sender of `flow` received an ACK sent at `ack_sent_at` (its TS.Recent, echoed in
    /// the TSecr of the data it sends next).
    #[inline]
    pub fn sender_got_ack(&mut self, flow: u32, ack: &Packet) {
        if let Some(t) = self.sender_ts_recent.get_mut(flow as usize) {
            *t = ack.ts_val();
        }
    }

    fn write(&mut self, sink: usize, now: Time, pkt: &Packet) {
        if self.error.is_some() {
            return;
        }
        let flow = pkt.flow;
        let client = self.flow_client[flow as usize];
        let (src, dst) = match pkt.kind {
            PacketKind::Data => (SERVER, client),
            PacketKind::Ack => (client, SERVER),
        };
        let id = &mut self.ip_id[src as usize];
        let ip_id = *id;
        *id = id.wrapping_add(1);
        let (isn_s, isn_c) = (isn(flow, false), isn(flow, true));
        let w = &self.wire;
        let o = &pkt.opt;
        let ts = w.timestamps.then_some(());
        let scaled = |win: u64| (win >> w.wscale.unwrap_or(0)).min(65_535) as u16;
        let mut sack = SackBlocks::default();
        let syn_opts = |tsecr: u32| TcpOptions {
            mss: Some(w.mss),
            wscale: w.wscale,
            sack_permitted: w.sack,
            timestamps: ts.map(|_| (pkt.ts_val(), tsecr)),
            sack: SackBlocks::default(),
        };
        let (seq, ack, flags, window, options) = match (pkt.kind, o.syn) {
            (PacketKind::Data, true) => (isn_s, 0, wire::SYN, 65_535, syn_opts(0)),
            (PacketKind::Ack, true) => (
                isn_c,
                isn_s.wrapping_add(1),
                wire::SYN | wire::ACK,
                pkt.rwnd.min(65_535) as u16,
                syn_opts(o.ts_ecr),
            ),
            (PacketKind::Data, false) => (
                isn_s.wrapping_add(1).wrapping_add(pkt.seq as u32),
                isn_c.wrapping_add(1),
                wire::ACK | wire::PSH,
                scaled(w.rcv_buf as u64),
                TcpOptions {
                    timestamps: ts.map(|_| (pkt.ts_val(), self.sender_ts_recent[flow as usize])),
                    ..TcpOptions::default()
                },
            ),
            (PacketKind::Ack, false) => {
                let base = isn_s.wrapping_add(1);
                for (l, r) in o.sack_blocks(pkt.seq) {
                    sack.push((base.wrapping_add(l as u32), base.wrapping_add(r as u32)));
                }
                (
                    isn_c.wrapping_add(1),
                    base.wrapping_add(pkt.seq as u32),
                    wire::ACK,
                    scaled(pkt.rwnd as u64),
                    TcpOptions {
                        timestamps: ts.map(|_| (pkt.ts_val(), o.ts_ecr)),
                        ..TcpOptions::default()
                    },
                )
            }
        };
        let packet = Ipv4TcpRepr {
            src: ip(src),
            dst: ip(dst),
            // A Linux stack's segments: DF set (path MTU discovery, RFC 1191 §3), TTL 64, no
            // DSCP or ECN.
            ident: ip_id,
            ttl: 64,
            tos: 0,
            dont_frag: true,
            tcp: TcpRepr {
                src_port: if src == SERVER {
                    SERVER_PORT
                } else {
                    client_port(flow)
                },
                dst_port: if dst == SERVER {
                    SERVER_PORT
                } else {
                    client_port(flow)
                },
                seq,
                ack,
                flags,
                window,
                urgent: 0,
                options: TcpOptions { sack, ..options },
            },
            payload_len: pkt.len,
        };
        if let Err(e) = self.sinks[sink].w.write(now, &packet) {
            self.error = Some(e);
        }
    }

    /// Flush and close every file; the first write error, if any.
    pub fn close(self) -> io::Result<Vec<CaptureFile>> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let mut out = Vec::new();
        for s in self.sinks {
            let packets = s.w.packets();
            s.w.into_inner()?;
            out.push(CaptureFile {
                point: s.point.name(),
                path: s.path,
                packets,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_scale_is_the_smallest_shift_that_fits() {
        assert_eq!(wscale_for(65_535), 0);
        assert_eq!(wscale_for(65_536), 1);
        assert_eq!(wscale_for(6_291_456), 7);
        assert_eq!(wscale_for(u32::MAX), 14);
    }

    #[test]
    fn addresses_and_ports_are_distinct_per_host_and_flow() {
        assert_eq!(ip(0), [10, 0, 0, 1]);
        assert_eq!(ip(1), [10, 1, 0, 1]);
        assert_eq!(ip(300), [10, 1, 1, 44]);
        assert_ne!(client_port(0), client_port(1));
        assert_ne!(isn(0, false), isn(0, true));
        assert_ne!(isn(0, false), isn(1, false));
    }
}
