//! A Linux TUN device (Documentation/networking/tuntap.rst): `/dev/net/tun` opened, the
//! interface created with `TUNSETIFF` as a layer-3 device without packet information
//! (`IFF_TUN | IFF_NO_PI`), non-blocking. Each read returns one IP packet, each write sends
//! one. The interface exists while the device is open; it can be moved to another network
//! namespace (`ip link set NAME netns NS`) and the descriptor keeps working.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// `_IOW('T', 202, int)`.
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;

#[repr(C)]
struct IfReq {
    name: [libc::c_char; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

pub struct Tun {
    fd: OwnedFd,
    name: String,
}

impl Tun {
    /// Create the interface `name` (at most 15 bytes). Fails with the OS error: no
    /// `/dev/net/tun`, no CAP_NET_ADMIN, or the name is taken.
    pub fn create(name: &str) -> io::Result<Tun> {
        if name.is_empty() || name.len() >= libc::IFNAMSIZ || name.contains('/') {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("TUN name {name:?}: 1 to 15 bytes, no '/'"),
            ));
        }
        let path = CString::new("/dev/net/tun").expect("no NUL");
        // SAFETY: a valid NUL-terminated path; the result is checked.
        let raw = unsafe {
            libc::open(
                path.as_ptr(),
                libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
            )
        };
        if raw < 0 {
            let e = io::Error::last_os_error();
            return Err(io::Error::new(e.kind(), format!("/dev/net/tun: {e}")));
        }
        // SAFETY: `raw` is a descriptor we just opened and own.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut req = IfReq {
            name: [0; libc::IFNAMSIZ],
            flags: IFF_TUN | IFF_NO_PI,
            _pad: [0; 22],
        };
        for (d, s) in req.name.iter_mut().zip(name.bytes()) {
            *d = s as libc::c_char;
        }
        // SAFETY: TUNSETIFF reads a struct ifreq (40 bytes), which `IfReq` lays out.
        let rc = unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF as _, &mut req) };
        if rc < 0 {
            let e = io::Error::last_os_error();
            return Err(io::Error::new(e.kind(), format!("TUNSETIFF {name}: {e}")));
        }
        Ok(Tun {
            fd,
            name: name.to_string(),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Read one packet into `buf`: its length, or `WouldBlock` when none is waiting.
    pub fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        // SAFETY: `buf` is valid for writes of its length.
        let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        }
    }

    /// Write one packet.
    pub fn write(&self, packet: &[u8]) -> io::Result<usize> {
        // SAFETY: `packet` is valid for reads of its length.
        let n = unsafe { libc::write(self.fd.as_raw_fd(), packet.as_ptr().cast(), packet.len()) };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        }
    }
}

impl AsRawFd for Tun {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}
