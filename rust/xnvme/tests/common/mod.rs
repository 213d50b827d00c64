#![allow(dead_code)]
use std::path::PathBuf;

use xnvme::{Device, Error, OpenOptions};

/// A regular file of `nbytes`, removed on drop.
pub struct TempFile(pub PathBuf);

impl TempFile {
    pub fn new(tag: &str, nbytes: u64) -> TempFile {
        let dir = std::env::var_os("XNVME_RUST_TMPDIR")
            .map(PathBuf::from)
            .unwrap_or_else(std::env::temp_dir);
        let path = dir.join(format!("xnvme-rs-{}-{}", tag, std::process::id()));
        let f = std::fs::File::create(&path).expect("create temp file");
        f.set_len(nbytes).expect("size temp file");
        TempFile(path)
    }
    pub fn uri(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Errors meaning "this build or kernel has no such mechanism".
pub fn unavailable(e: &Error) -> bool {
    matches!(
        e,
        Error::Errno(n) if [libc::ENOSYS, libc::EPERM, libc::EOPNOTSUPP, libc::ENOTSUP, libc::EACCES].contains(n)
    )
}

pub fn skip(what: &str, why: &dyn std::fmt::Display) {
    println!("SKIP: {what}: {why}");
}

/// Opens `uri` with queue mechanism `mech`, or None (with a SKIP line) when unavailable.
pub fn open_mech(uri: &str, mech: &str) -> Option<Device> {
    match Device::open_with(uri, &OpenOptions::new().async_mechanism(mech)) {
        Ok(d) => Some(d),
        Err(e) if unavailable(&e) => {
            skip(&format!("{uri} with {mech}"), &e);
            None
        }
        Err(e) => panic!("open {uri} with {mech}: {e}"),
    }
}

pub fn pattern(buf: &mut [u8], seed: u8) {
    for (i, b) in buf.iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(31).wrapping_add(seed);
    }
}

pub const RAMDISK_MECHS: &[&str] = &["thrpool", "emu", "nil"];
pub const FILE_MECHS: &[&str] = &["emu", "thrpool", "posix", "io_uring", "libaio", "nil"];
