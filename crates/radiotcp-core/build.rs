//! Fingerprint of the simulator's source: the results store keys every run by it (with the
//! version), so a changed model never serves results computed by an older one. FNV-1a over
//! the paths and contents of `src/` and `Cargo.toml`, in sorted order: the same tree gives
//! the same fingerprint on every machine.

use std::fs;
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn fnv1a(h: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *h ^= b as u64;
        *h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let mut list = Vec::new();
    files(&root.join("src"), &mut list);
    list.push(root.join("Cargo.toml"));
    list.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in &list {
        let rel = p.strip_prefix(&root).unwrap_or(p);
        fnv1a(&mut h, rel.to_string_lossy().replace('\\', "/").as_bytes());
        fnv1a(&mut h, &fs::read(p).unwrap_or_default());
    }
    println!("cargo:rustc-env=RADIOTCP_SOURCE_HASH={h:016x}");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
}
