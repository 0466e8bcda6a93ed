//! The real-time driver: the emulator's clock is the monotonic wall clock since the start,
//! packets are read from and written to two TUN devices, and the loop sleeps in `ppoll`
//! until the next model event is due or a packet arrives (with the thread's timer slack set
//! to 1 ns, so that the kernel wakes it when asked rather than up to 50 µs later).
//!
//! The clock's lag, wall time minus the due time of each event when it is processed, is
//! recorded for every event: the emulation is faithful only while it stays small against the
//! model's time scales (a 10 ms TTI, a 1.2 ms packet at 10 Mbit/s).

use std::fs::File;
use std::io::{self, BufWriter};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::tun::Tun;
use super::{EmulationResult, Emulator, Side};
use crate::engine::{Time, NS_PER_MS};
use crate::pcap::PcapWriter;

/// The longest sleep without a look at the stop flag.
const MAX_WAIT: Time = 50 * NS_PER_MS;

/// How far behind real time the model ran.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LagStats {
    pub events: u64,
    pub mean_us: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

/// A pcap file written by the emulation.
#[derive(Debug, Clone, Serialize)]
pub struct PcapFile {
    pub side: Side,
    pub path: PathBuf,
    pub packets: u64,
}

#[derive(Debug, Serialize)]
pub struct RealTimeReport {
    #[serde(flatten)]
    pub emulation: EmulationResult,
    pub lag: LagStats,
    /// Packets the kernel refused to take from a write (dropped).
    pub write_errors: u64,
    pub pcap: Vec<PcapFile>,
}

pub struct RealTime {
    emu: Emulator,
    /// Server side, UE side.
    tuns: [Tun; 2],
    pcap: Option<[(PathBuf, PcapWriter<BufWriter<File>>); 2]>,
}

impl RealTime {
    /// The driver of `emu` between the two TUN devices; with `pcap_dir`, every packet read
    /// from or written to each device is recorded in `server.pcap` and `ue.pcap` there.
    pub fn new(emu: Emulator, server: Tun, ue: Tun, pcap_dir: Option<&Path>) -> io::Result<Self> {
        let pcap = match pcap_dir {
            None => None,
            Some(dir) => {
                std::fs::create_dir_all(dir)?;
                let open = |name: &str| -> io::Result<(PathBuf, PcapWriter<BufWriter<File>>)> {
                    let path = dir.join(name);
                    let w = PcapWriter::new(BufWriter::new(File::create(&path)?), 65535)?;
                    Ok((path, w))
                };
                Some([open("server.pcap")?, open("ue.pcap")?])
            }
        };
        Ok(RealTime {
            emu,
            tuns: [server, ue],
            pcap,
        })
    }

    /// Run until `stop` is set (or `max` has passed), then report.
    pub fn run(mut self, stop: &AtomicBool, max: Option<Duration>) -> io::Result<RealTimeReport> {
        // SAFETY: prctl(PR_SET_TIMERSLACK) takes an integer argument; it affects only this
        // thread. A failure leaves the default slack (up to 50 µs late wake-ups).
        unsafe {
            libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
        }
        let t0 = Instant::now();
        let now = || t0.elapsed().as_nanos() as Time;
        let limit = max.map(|d| d.as_nanos() as Time);
        let mut lags: Vec<u32> = Vec::with_capacity(1 << 16);
        let mut buf = vec![0u8; 65536];
        let mut write_errors = 0u64;
        let mut fds = [
            libc::pollfd {
                fd: self.tuns[0].as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: self.tuns[1].as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        loop {
            let t = now();
            if stop.load(Ordering::Relaxed) || limit.is_some_and(|l| t >= l) {
                break;
            }
            // Model events due now, each one's lag measured when it is processed.
            while let Some(due) = self.emu.step(t) {
                lags.push((now() - due).min(u32::MAX as Time) as u32);
            }
            for (side, bytes) in self.emu.take_output() {
                if let Some(p) = self.pcap.as_mut() {
                    p[side as usize].1.write_raw(now(), &bytes)?;
                }
                if self.tuns[side as usize].write(&bytes).is_err() {
                    write_errors += 1;
                }
            }
            for side in [Side::Server, Side::Ue] {
                loop {
                    match self.tuns[side as usize].read(&mut buf) {
                        Ok(n) => {
                            let at = now();
                            if let Some(p) = self.pcap.as_mut() {
                                p[side as usize].1.write_raw(at, &buf[..n])?;
                            }
                            self.emu.receive(at, side, buf[..n].to_vec());
                        }
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => return Err(e),
                    }
                }
            }
            // Packets just injected may have made events due already.
            let t = now();
            let wait = match self.emu.next_event_time() {
                Some(due) if due <= t => continue,
                Some(due) => (due - t).min(MAX_WAIT),
                None => MAX_WAIT,
            };
            let ts = libc::timespec {
                tv_sec: (wait / 1_000_000_000) as libc::time_t,
                tv_nsec: (wait % 1_000_000_000) as libc::c_long,
            };
            // SAFETY: two valid pollfds, a valid timespec, no signal mask.
            let rc = unsafe { libc::ppoll(fds.as_mut_ptr(), 2, &ts, std::ptr::null()) };
            if rc < 0 {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
        let end = now();
        let mut files = Vec::new();
        if let Some(p) = self.pcap.take() {
            for (side, (path, w)) in [Side::Server, Side::Ue].into_iter().zip(p) {
                let packets = w.packets();
                w.into_inner()?;
                files.push(PcapFile {
                    side,
                    path,
                    packets,
                });
            }
        }
        Ok(RealTimeReport {
            emulation: self.emu.finish(end),
            lag: lag_stats(&mut lags),
            write_errors,
            pcap: files,
        })
    }
}

fn lag_stats(lags: &mut [u32]) -> LagStats {
    if lags.is_empty() {
        return LagStats::default();
    }
    lags.sort_unstable();
    let q = |p: f64| lags[((lags.len() - 1) as f64 * p).round() as usize] as f64 / 1000.0;
    LagStats {
        events: lags.len() as u64,
        mean_us: lags.iter().map(|&l| l as f64).sum::<f64>() / lags.len() as f64 / 1000.0,
        p50_us: q(0.5),
        p99_us: q(0.99),
        max_us: *lags.last().unwrap() as f64 / 1000.0,
    }
}
