//! Zoned (ZNS), Flexible Data Placement and key-value helpers on [`Device`].

use std::ffi::c_void;

use xnvme_sys as sys;

use crate::buffer::Buffer;
use crate::device::{cmd_dwords, Completion, Device};
use crate::error::{Error, Result};

/// State of a zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneState {
    /// Empty.
    Empty,
    /// Implicitly opened.
    ImplicitlyOpened,
    /// Explicitly opened.
    ExplicitlyOpened,
    /// Closed.
    Closed,
    /// Read only.
    ReadOnly,
    /// Full.
    Full,
    /// Offline.
    Offline,
    /// A value the specification reserves.
    Other(u8),
}

impl ZoneState {
    fn from_raw(v: u8) -> Self {
        match v {
            1 => ZoneState::Empty,
            2 => ZoneState::ImplicitlyOpened,
            3 => ZoneState::ExplicitlyOpened,
            4 => ZoneState::Closed,
            0xD => ZoneState::ReadOnly,
            0xE => ZoneState::Full,
            0xF => ZoneState::Offline,
            v => ZoneState::Other(v),
        }
    }
}

/// One zone descriptor of a zone report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Zone {
    /// Zone type (2: sequential write required).
    pub zone_type: u8,
    /// State.
    pub state: ZoneState,
    /// Zone attributes.
    pub attributes: u8,
    /// Capacity in LBAs.
    pub zcap: u64,
    /// First LBA.
    pub zslba: u64,
    /// Write pointer.
    pub wp: u64,
}

/// Zone Management Send actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneAction {
    /// Close.
    Close,
    /// Finish.
    Finish,
    /// Open.
    Open,
    /// Reset.
    Reset,
    /// Offline.
    Offline,
}

/// Reclaim unit handle status of FDP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuhStatus {
    /// Placement identifier.
    pub pid: u16,
    /// Reclaim unit handle identifier.
    pub ruhid: u16,
    /// Estimated active reclaim unit time remaining.
    pub earutr: u32,
    /// Reclaim unit available media writes (LBAs left in the current reclaim unit).
    pub ruamw: u64,
}

/// How a key-value Store treats existing keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KvStoreMode {
    /// Add or replace.
    #[default]
    Any,
    /// Only replace an existing key (else status 0x87 KV Key Does Not Exist).
    OnlyUpdate,
    /// Only add a new key (else status 0x89 Key Exists).
    OnlyAdd,
}

fn check_key(key: &[u8]) -> Result<u8> {
    if key.is_empty() || key.len() > 16 {
        return Err(Error::Errno(libc::EINVAL));
    }
    Ok(key.len() as u8)
}

impl Device {
    /// Zone report from the zone containing `slba`, at most `limit` zones (every zone when
    /// `limit` is 0).
    ///
    /// ```
    /// let dev = xnvme::Device::open("1GB?csi=zoned")?;
    /// let zones = dev.zone_report(0, 4)?;
    /// assert_eq!(zones.len(), 4);
    /// assert_eq!(zones[1].zslba, zones[0].zslba + dev.geometry().nsect);
    /// # Ok::<(), xnvme::Error>(())
    /// ```
    pub fn zone_report(&self, slba: u64, limit: usize) -> Result<Vec<Zone>> {
        let geo = self.geometry();
        let total = usize::try_from(geo.nzone).unwrap_or(usize::MAX).max(1);
        let limit = if limit == 0 || limit > total { total } else { limit };
        // One report per transfer of at most MDTS bytes (and at most 1 MiB).
        let max_xfer = match geo.mdts_nbytes {
            0 => 1 << 20,
            n => (n as usize).min(1 << 20),
        };
        let per = (max_xfer / 64).saturating_sub(1).max(1);
        let nsid = self.nsid();
        let mut zones: Vec<Zone> = Vec::with_capacity(limit);
        let mut next = slba;
        while zones.len() < limit {
            let want = per.min(limit - zones.len());
            let nbytes = 64 * (want + 1);
            let mut buf = self.alloc_buffer(nbytes)?;
            let len = u32::try_from(nbytes).map_err(|_| Error::Errno(libc::EINVAL))?;
            // SAFETY: the transfer length is the buffer's length.
            self.sync_cmd(|ctx| unsafe {
                sys::xnvme_znd_mgmt_recv(
                    ctx,
                    nsid,
                    next,
                    sys::XNVME_SPEC_ZND_CMD_MGMT_RECV_ACTION_REPORT,
                    sys::XNVME_SPEC_ZND_CMD_MGMT_RECV_SF_ALL,
                    1,
                    buf.as_mut_ptr() as *mut c_void,
                    len,
                )
            })?;
            let nr = u64::from_le_bytes(buf[0..8].try_into().unwrap());
            let n = usize::try_from(nr).unwrap_or(usize::MAX).min(want);
            for i in 0..n {
                let d = &buf[64 * (i + 1)..64 * (i + 2)];
                let u = |o: usize| u64::from_le_bytes(d[o..o + 8].try_into().unwrap());
                zones.push(Zone {
                    zone_type: d[0] & 0xF,
                    state: ZoneState::from_raw(d[1] >> 4),
                    attributes: d[2],
                    zcap: u(8),
                    zslba: u(16),
                    wp: u(24),
                });
            }
            if n < want || geo.nsect == 0 {
                break;
            }
            next = zones[zones.len() - 1].zslba + geo.nsect;
        }
        Ok(zones)
    }

    /// Zone Management Send `action` on the zone starting at `zslba` (or on every zone with
    /// `all`).
    pub fn zone_mgmt(&self, zslba: u64, action: ZoneAction, all: bool) -> Result<Completion> {
        let zsa = match action {
            ZoneAction::Close => sys::XNVME_SPEC_ZND_CMD_MGMT_SEND_CLOSE,
            ZoneAction::Finish => sys::XNVME_SPEC_ZND_CMD_MGMT_SEND_FINISH,
            ZoneAction::Open => sys::XNVME_SPEC_ZND_CMD_MGMT_SEND_OPEN,
            ZoneAction::Reset => sys::XNVME_SPEC_ZND_CMD_MGMT_SEND_RESET,
            ZoneAction::Offline => sys::XNVME_SPEC_ZND_CMD_MGMT_SEND_OFFLINE,
        };
        let nsid = self.nsid();
        // SAFETY: no data buffer (no descriptor extension).
        self.sync_cmd(|ctx| unsafe {
            sys::xnvme_znd_mgmt_send(ctx, nsid, zslba, all, zsa, 0, std::ptr::null_mut())
        })
    }

    /// Zone Append of `nblocks` LBAs from `buf` to the zone starting at `zslba`; returns the
    /// LBA the data was written to.
    pub fn zone_append(&self, zslba: u64, nblocks: u32, buf: &Buffer) -> Result<u64> {
        let nlb = self.check_blocks(nblocks, buf.len())?;
        self.check_own(buf)?;
        let nsid = self.nsid();
        // SAFETY: the buffer holds the LBAs transferred; it is only read.
        let c = self.sync_cmd(|ctx| unsafe {
            sys::xnvme_znd_append(
                ctx,
                nsid,
                zslba,
                nlb,
                buf.as_ptr() as *const c_void,
                std::ptr::null(),
            )
        })?;
        Ok(c.result)
    }

    /// Whether Flexible Data Placement is enabled (Get Features 0x1D, endurance group 1).
    pub fn fdp_enabled(&self) -> Result<bool> {
        Ok(self.get_feature(0x1D, 0, 1)?.cdw0 & 1 == 1)
    }

    /// Reclaim Unit Handle Status (I/O Management Receive, operation 1).
    pub fn fdp_ruh_status(&self) -> Result<Vec<RuhStatus>> {
        let nbytes = 16 + 32 * 128;
        let mut buf = self.alloc_buffer(nbytes)?;
        let nsid = self.nsid();
        // SAFETY: the transfer length is the buffer's length.
        self.sync_cmd(|ctx| unsafe {
            sys::xnvme_nvm_mgmt_recv(
                ctx,
                nsid,
                1,
                0,
                buf.as_mut_ptr() as *mut c_void,
                nbytes as u32,
            )
        })?;
        let n = usize::from(u16::from_le_bytes([buf[14], buf[15]])).min(128);
        Ok((0..n)
            .map(|i| {
                let d = &buf[16 + 32 * i..16 + 32 * (i + 1)];
                RuhStatus {
                    pid: u16::from_le_bytes([d[0], d[1]]),
                    ruhid: u16::from_le_bytes([d[2], d[3]]),
                    earutr: u32::from_le_bytes(d[4..8].try_into().unwrap()),
                    ruamw: u64::from_le_bytes(d[8..16].try_into().unwrap()),
                }
            })
            .collect())
    }

    /// Write with data placement directive (type 2) for placement identifier `pid`.
    pub fn write_placed(
        &self,
        slba: u64,
        nblocks: u32,
        buf: &Buffer,
        pid: u16,
    ) -> Result<Completion> {
        let nlb = self.check_blocks(nblocks, buf.len())?;
        self.check_own(buf)?;
        let nsid = self.nsid();
        let nbytes = nblocks as usize * self.geometry().lba_nbytes as usize;
        self.sync_cmd(|ctx| {
            // SAFETY: ctx is valid; the buffer holds the LBAs transferred and is only read.
            unsafe {
                sys::xnvme_prep_nvm(ctx, 0x01, nsid, slba, nlb);
                let d = cmd_dwords(&mut *ctx);
                d[12] |= 2 << 20;
                d[13] = (d[13] & 0xFFFF) | (u32::from(pid) << 16);
                sys::xnvme_cmd_pass(
                    ctx,
                    buf.as_ptr() as *mut c_void,
                    nbytes,
                    std::ptr::null_mut(),
                    0,
                )
            }
        })
    }

    /// Key-value Store of the whole of `value` under `key` (1..=16 bytes).
    pub fn kv_store(&self, key: &[u8], value: &Buffer, mode: KvStoreMode) -> Result<Completion> {
        let klen = check_key(key)?;
        self.check_own(value)?;
        let vlen = u32::try_from(value.len()).map_err(|_| Error::Errno(libc::EINVAL))?;
        let opt = match mode {
            KvStoreMode::Any => 0,
            KvStoreMode::OnlyUpdate => sys::XNVME_KVS_STORE_OPT_DONT_STORE_IF_KEY_NOT_EXISTS as u8,
            KvStoreMode::OnlyAdd => sys::XNVME_KVS_STORE_OPT_DONT_STORE_IF_KEY_EXISTS as u8,
        };
        let nsid = self.nsid();
        // SAFETY: key and value are valid for their lengths; the value is only read.
        self.sync_cmd(|ctx| unsafe {
            sys::xnvme_kvs_store(
                ctx,
                nsid,
                key.as_ptr() as *const c_void,
                klen,
                value.as_ptr() as *const c_void,
                vlen,
                opt,
            )
        })
    }

    /// Key-value Retrieve into `buf` (a shorter buffer gets the start of the value); returns
    /// the value's full size.
    pub fn kv_retrieve(&self, key: &[u8], buf: &mut Buffer) -> Result<usize> {
        let klen = check_key(key)?;
        self.check_own(buf)?;
        let vlen = u32::try_from(buf.len()).map_err(|_| Error::Errno(libc::EINVAL))?;
        let nsid = self.nsid();
        // SAFETY: the transfer is bounded by the buffer's length.
        let c = self.sync_cmd(|ctx| unsafe {
            sys::xnvme_kvs_retrieve(
                ctx,
                nsid,
                key.as_ptr() as *const c_void,
                klen,
                buf.as_mut_ptr() as *const c_void,
                vlen,
                0,
            )
        })?;
        Ok(c.cdw0 as usize)
    }

    /// Key-value Delete.
    pub fn kv_delete(&self, key: &[u8]) -> Result<Completion> {
        let klen = check_key(key)?;
        let nsid = self.nsid();
        // SAFETY: the key is valid for its length.
        self.sync_cmd(|ctx| unsafe {
            sys::xnvme_kvs_delete(ctx, nsid, key.as_ptr() as *const c_void, klen)
        })
    }

    /// Key-value Exist: `Ok(false)` for status 0x87 (KV Key Does Not Exist).
    pub fn kv_exists(&self, key: &[u8]) -> Result<bool> {
        let klen = check_key(key)?;
        let nsid = self.nsid();
        // SAFETY: the key is valid for its length.
        match self.sync_cmd(|ctx| unsafe {
            sys::xnvme_kvs_exist(ctx, nsid, key.as_ptr() as *const c_void, klen)
        }) {
            Ok(_) => Ok(true),
            Err(e) if e.is_status(0, 0x87) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Key-value List: the keys >= `start` in byte order (an empty `start` lists from the
    /// first), as many as fit in a 64 KiB answer.
    pub fn kv_list(&self, start: &[u8]) -> Result<Vec<Vec<u8>>> {
        if start.len() > 16 {
            return Err(Error::Errno(libc::EINVAL));
        }
        let nbytes = 64 * 1024;
        let mut buf = self.alloc_buffer(nbytes)?;
        let nsid = self.nsid();
        // SAFETY: the transfer is bounded by the buffer's length; the key is valid.
        self.sync_cmd(|ctx| unsafe {
            sys::xnvme_kvs_list(
                ctx,
                nsid,
                start.as_ptr() as *const c_void,
                start.len() as u8,
                buf.as_mut_ptr() as *const c_void,
                nbytes as u32,
            )
        })?;
        let count = u32::from_le_bytes(buf[0..4].try_into().unwrap()) as usize;
        let mut keys = Vec::with_capacity(count.min(4096));
        let mut off = 4;
        for _ in 0..count {
            if off + 2 > nbytes {
                break;
            }
            // Each entry: a 2-byte length and the key, padded to a multiple of 4 bytes.
            let klen = usize::from(u16::from_le_bytes([buf[off], buf[off + 1]]));
            if klen > 16 || off + 2 + klen > nbytes {
                break;
            }
            keys.push(buf[off + 2..off + 2 + klen].to_vec());
            off += (2 + klen).div_ceil(4) * 4;
        }
        Ok(keys)
    }
}
