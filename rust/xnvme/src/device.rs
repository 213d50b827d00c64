//! Devices, open options, geometry, identify data and synchronous commands.

use std::ffi::{c_void, CStr, CString};
use std::ptr::NonNull;
use std::sync::Arc;

use xnvme_sys as sys;

use crate::buffer::Buffer;
use crate::error::{Error, Result};

/// The open C handle, shared by [`Device`], its [`Buffer`]s and [`crate::Queue`]s: the handle is
/// closed when the last of them is dropped, so none of them can outlive it.
pub(crate) struct DevInner {
    pub(crate) ptr: NonNull<sys::xnvme_dev>,
    // The option strings given to xnvme_dev_open, kept for the handle's lifetime.
    _names: Vec<CString>,
}

// SAFETY: libxnvme_dev.h: a handle may be used from many threads at once (synchronous
// commands with one context per thread, queues, getters, buffer allocation); only
// xnvme_dev_close() must not overlap other use, and it runs in Drop when no other owner is
// left.
unsafe impl Send for DevInner {}
// SAFETY: as above.
unsafe impl Sync for DevInner {}

impl Drop for DevInner {
    fn drop(&mut self) {
        // SAFETY: last owner; every queue and buffer holding this handle is gone.
        unsafe { sys::xnvme_dev_close(self.ptr.as_ptr()) }
    }
}

/// How to open a device: backend and mechanism names, access mode, file creation.
///
/// Every name left unset is chosen by the library for the device type (see the project's
/// README). A mechanism named explicitly is used or the open fails (`ENOSYS`, `EINVAL`...).
///
/// ```
/// let opts = xnvme::OpenOptions::new().async_mechanism("thrpool");
/// let dev = xnvme::Device::open_with("1GB", &opts)?;
/// assert_eq!(dev.mechanisms().async_mechanism.as_deref(), Some("thrpool"));
/// # Ok::<(), xnvme::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct OpenOptions {
    be: Option<String>,
    mem: Option<String>,
    sync: Option<String>,
    async_: Option<String>,
    admin: Option<String>,
    rdonly: bool,
    create: bool,
    truncate: bool,
    direct: bool,
    create_mode: Option<u32>,
}

impl OpenOptions {
    /// Defaults: read-write, everything chosen automatically.
    pub fn new() -> Self {
        Self::default()
    }
    /// Backend (`"linux"`, `"ramdisk"`).
    pub fn backend(mut self, name: &str) -> Self {
        self.be = Some(name.into());
        self
    }
    /// Buffer allocator (`"posix"`, `"hugepage"`).
    pub fn mem_mechanism(mut self, name: &str) -> Self {
        self.mem = Some(name.into());
        self
    }
    /// Synchronous command mechanism (`"psync"`, `"nvme"`, `"block"`, `"ramdisk"`).
    pub fn sync_mechanism(mut self, name: &str) -> Self {
        self.sync = Some(name.into());
        self
    }
    /// Queue mechanism (`"io_uring"`, `"io_uring_cmd"`, `"libaio"`, `"posix"`, `"thrpool"`,
    /// `"emu"`, `"nil"`).
    pub fn async_mechanism(mut self, name: &str) -> Self {
        self.async_ = Some(name.into());
        self
    }
    /// Admin command mechanism (`"nvme"`, `"block"`, `"file_as_ns"`, `"ramdisk"`).
    pub fn admin_mechanism(mut self, name: &str) -> Self {
        self.admin = Some(name.into());
        self
    }
    /// Open read-only.
    pub fn read_only(mut self, yes: bool) -> Self {
        self.rdonly = yes;
        self
    }
    /// Create a regular file that does not exist.
    pub fn create(mut self, yes: bool) -> Self {
        self.create = yes;
        self
    }
    /// Truncate a regular file.
    pub fn truncate(mut self, yes: bool) -> Self {
        self.truncate = yes;
        self
    }
    /// `O_DIRECT`.
    pub fn direct(mut self, yes: bool) -> Self {
        self.direct = yes;
        self
    }
    /// Permission bits of a created file.
    pub fn create_mode(mut self, mode: u32) -> Self {
        self.create_mode = Some(mode);
        self
    }
}

/// The mechanisms a device actually uses (fixed at open).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mechanisms {
    /// Backend name.
    pub backend: Option<String>,
    /// Buffer allocator.
    pub mem: Option<String>,
    /// Synchronous command mechanism.
    pub sync: Option<String>,
    /// Queue mechanism.
    pub async_mechanism: Option<String>,
    /// Admin command mechanism.
    pub admin: Option<String>,
}

/// Kind of a device's geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GeometryKind {
    /// Could not be derived.
    Unknown,
    /// Conventional block device / NVM namespace.
    Conventional,
    /// Zoned namespace.
    Zoned,
    /// Key-value namespace.
    KeyValue,
}

/// Device geometry (a copy of `struct xnvme_geo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Geometry kind.
    pub kind: GeometryKind,
    /// Parallel unit groups.
    pub npugrp: u32,
    /// Parallel units per group.
    pub npunit: u32,
    /// Zones per parallel unit (1 for conventional namespaces).
    pub nzone: u32,
    /// LBAs per zone (all LBAs for conventional namespaces).
    pub nsect: u64,
    /// Data bytes per LBA.
    pub nbytes: u32,
    /// Metadata bytes per LBA.
    pub nbytes_oob: u32,
    /// Capacity in bytes.
    pub tbytes: u64,
    /// Shift converting LBAs to byte offsets.
    pub ssw: u64,
    /// Largest transfer in bytes.
    pub mdts_nbytes: u32,
    /// Bytes per LBA on the wire (with metadata when extended).
    pub lba_nbytes: u32,
    /// Metadata interleaved with data.
    pub lba_extended: bool,
    /// Protection information type (0: none).
    pub pi_type: u8,
    /// PI location.
    pub pi_loc: u8,
    /// PI format.
    pub pi_format: u8,
}

impl Geometry {
    /// Number of LBAs of the namespace (`tbytes / nbytes`).
    pub fn nlbas(&self) -> u64 {
        if self.nbytes == 0 {
            0
        } else {
            self.tbytes / u64::from(self.nbytes)
        }
    }
}

/// Identifiers of a device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ident {
    /// The URI it was opened with.
    pub uri: String,
    /// Device type (`XNVME_DEV_TYPE_*`).
    pub dtype: u32,
    /// Namespace identifier.
    pub nsid: u32,
    /// Command set identifier (0 NVM, 1 key-value, 2 zoned).
    pub csi: u8,
}

/// Selected fields of the Identify Controller data structure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControllerIdentify {
    /// PCI vendor id.
    pub vid: u16,
    /// PCI subsystem vendor id.
    pub ssvid: u16,
    /// Serial number (trailing spaces removed).
    pub serial: String,
    /// Model number (trailing spaces removed).
    pub model: String,
    /// Firmware revision (trailing spaces removed).
    pub firmware: String,
    /// Maximum data transfer size (power of two of the minimum page size, 0: no limit).
    pub mdts: u8,
    /// Controller id.
    pub cntlid: u16,
    /// Version register value.
    pub ver: u32,
    /// Optional NVM command support.
    pub oncs: u16,
    /// Number of namespaces.
    pub nn: u32,
    /// The whole 4096-byte structure.
    pub raw: Box<[u8; 4096]>,
}

/// An LBA format of a namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LbaFormat {
    /// Metadata bytes per LBA.
    pub ms: u16,
    /// LBA data size as a power of two.
    pub lbads: u8,
    /// Relative performance.
    pub rp: u8,
}

/// Selected fields of the Identify Namespace data structure (NVM command set).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceIdentify {
    /// Namespace size in LBAs.
    pub nsze: u64,
    /// Namespace capacity in LBAs.
    pub ncap: u64,
    /// Namespace utilization in LBAs.
    pub nuse: u64,
    /// Namespace features.
    pub nsfeat: u8,
    /// Number of LBA formats, zero-based.
    pub nlbaf: u8,
    /// Formatted LBA size.
    pub flbas: u8,
    /// Data protection settings.
    pub dps: u8,
    /// LBA formats (`nlbaf + 1` entries).
    pub lbaf: Vec<LbaFormat>,
    /// The whole 4096-byte structure.
    pub raw: Box<[u8; 4096]>,
}

impl NamespaceIdentify {
    /// The LBA format in use (`flbas` bits 3:0 and 6:5).
    pub fn current_lbaf(&self) -> Option<&LbaFormat> {
        let idx = usize::from(self.flbas & 0xF) | (usize::from((self.flbas >> 5) & 0x3) << 4);
        self.lbaf.get(idx)
    }
}

/// The completion of a successful command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// Command specific dword 0.
    pub cdw0: u32,
    /// Dwords 0-1 as one 64-bit value (e.g. the LBA a Zone Append wrote to).
    pub result: u64,
    /// The raw status word (phase tag included).
    pub status: u16,
}

/// A raw NVMe submission queue entry, 16 dwords, for [`Device::admin_raw`] and
/// [`Device::io_raw`]. The library fills the data pointer fields itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Command {
    /// Dwords 0..16.
    pub cdw: [u32; 16],
}

impl Command {
    /// A command with `opcode` and namespace `nsid`, every other dword zero.
    pub fn new(opcode: u8, nsid: u32) -> Self {
        let mut cdw = [0u32; 16];
        cdw[0] = u32::from(opcode);
        cdw[1] = nsid;
        Command { cdw }
    }
    /// Sets dword `n` (10..=15 are the command specific ones).
    pub fn with_cdw(mut self, n: usize, value: u32) -> Self {
        self.cdw[n] = value;
        self
    }
}

pub(crate) fn status_parts(cpl: &sys::xnvme_spec_cpl) -> (u16, u8, u8) {
    // SAFETY: the union's `val` covers the whole plain-data status word.
    let val = unsafe { cpl.status.__bindgen_anon_1.val };
    (val, ((val >> 1) & 0xFF) as u8, ((val >> 9) & 0x7) as u8)
}

/// Turns the return value of a command function and its completion into a result: an NVMe
/// status wins over the errno (-EIO) it causes; status type 7 carries an errno.
pub(crate) fn completion_result(err: i32, cpl: &sys::xnvme_spec_cpl) -> Result<Completion> {
    let (val, sc, sct) = status_parts(cpl);
    if sc != 0 || sct != 0 {
        if sct == 7 {
            return Err(Error::Errno(i32::from(sc)));
        }
        return Err(Error::status(sct, sc));
    }
    if err < 0 {
        return Err(Error::Errno(-err));
    }
    // SAFETY: `result` covers dwords 0-1, plain data.
    let result = unsafe { cpl.__bindgen_anon_1.result };
    Ok(Completion { cdw0: result as u32, result, status: val })
}

pub(crate) fn cmd_dwords(ctx: &mut sys::xnvme_cmd_ctx) -> &mut [u32; 16] {
    // SAFETY: struct xnvme_spec_cmd is 64 bytes of plain data, 4-byte aligned or more.
    unsafe { &mut *(&mut ctx.cmd as *mut sys::xnvme_spec_cmd as *mut [u32; 16]) }
}

fn name_of(p: *const std::ffi::c_char) -> Option<String> {
    if p.is_null() {
        None
    } else {
        // SAFETY: the library's option names are NUL-terminated strings living as long as
        // the handle.
        Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    }
}

fn trimmed(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).trim_end_matches([' ', '\0']).to_string()
}

fn le16(b: &[u8], off: usize) -> u16 {
    u16::from_le_bytes([b[off], b[off + 1]])
}
fn le32(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}
fn le64(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().unwrap())
}

/// An open device: an NVMe namespace, block device, regular file or the emulated `ramdisk`.
///
/// The handle is closed when the `Device` and every [`Buffer`] and [`crate::Queue`] made from
/// it are dropped (they keep it alive), so no object can outlive the handle it needs.
///
/// **Threads.** `Device` is `Send + Sync` and cheap to [`Clone`] (a reference count): the C
/// library allows any number of threads to issue synchronous commands on one handle, each with
/// its own command context (every method here uses a fresh one), to create queues and buffers
/// and to call the getters concurrently. Closing happens only when no clone is left.
///
/// ```
/// use xnvme::Device;
/// let dev = Device::open("1GB")?;
/// let geo = dev.geometry();
/// let mut buf = dev.alloc_buffer(geo.lba_nbytes as usize * 8)?;
/// buf.fill(0xAB);
/// dev.write(0, 8, &buf)?;
/// let mut back = dev.alloc_buffer(buf.len())?;
/// dev.read(0, 8, &mut back)?;
/// assert_eq!(&buf[..], &back[..]);
/// # Ok::<(), xnvme::Error>(())
/// ```
#[derive(Clone)]
pub struct Device {
    pub(crate) inner: Arc<DevInner>,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device").field("uri", &self.ident().uri).finish()
    }
}

impl Device {
    /// Opens `uri` (`"1GB"`, `"1GB?csi=zoned"`, `"/dev/nvme0n1"`, `"/path/to/file"`) with
    /// default options.
    pub fn open(uri: &str) -> Result<Device> {
        Self::open_with(uri, &OpenOptions::new())
    }

    /// Opens `uri` with `opts`.
    pub fn open_with(uri: &str, opts: &OpenOptions) -> Result<Device> {
        let c_uri = CString::new(uri).map_err(|_| Error::Errno(libc::EINVAL))?;
        let mut names = Vec::new();
        let mut keep = |s: &Option<String>| -> Result<*const std::ffi::c_char> {
            match s {
                None => Ok(std::ptr::null()),
                Some(s) => {
                    let c = CString::new(s.as_str()).map_err(|_| Error::Errno(libc::EINVAL))?;
                    let p = c.as_ptr();
                    names.push(c);
                    Ok(p)
                }
            }
        };
        // SAFETY: plain function returning a value.
        let mut o = unsafe { sys::xnvme_opts_default() };
        o.be = keep(&opts.be)?;
        o.mem = keep(&opts.mem)?;
        o.sync = keep(&opts.sync)?;
        o.async_ = keep(&opts.async_)?;
        o.admin = keep(&opts.admin)?;
        if opts.rdonly {
            o.rdonly = 1;
            o.rdwr = 0;
        }
        o.create = u8::from(opts.create);
        o.truncate = u8::from(opts.truncate);
        o.direct = u8::from(opts.direct);
        if let Some(mode) = opts.create_mode {
            o.create_mode = mode;
        }
        // SAFETY: valid NUL-terminated strings kept alive in `names` for the handle's life.
        let ptr = unsafe { sys::xnvme_dev_open(c_uri.as_ptr(), &mut o) };
        match NonNull::new(ptr) {
            Some(ptr) => Ok(Device { inner: Arc::new(DevInner { ptr, _names: names }) }),
            None => Err(Error::last_os()),
        }
    }

    pub(crate) fn raw(&self) -> *mut sys::xnvme_dev {
        self.inner.ptr.as_ptr()
    }

    /// The geometry (identifies the device on first use).
    pub fn geometry(&self) -> Geometry {
        // SAFETY: valid handle; the pointer lives as long as the handle.
        let g = unsafe { &*sys::xnvme_dev_get_geo(self.raw()) };
        Geometry {
            kind: match g.type_ {
                sys::XNVME_GEO_CONVENTIONAL => GeometryKind::Conventional,
                sys::XNVME_GEO_ZONED => GeometryKind::Zoned,
                sys::XNVME_GEO_KV => GeometryKind::KeyValue,
                _ => GeometryKind::Unknown,
            },
            npugrp: g.npugrp,
            npunit: g.npunit,
            nzone: g.nzone,
            nsect: g.nsect,
            nbytes: g.nbytes,
            nbytes_oob: g.nbytes_oob,
            tbytes: g.tbytes,
            ssw: g.ssw,
            mdts_nbytes: g.mdts_nbytes,
            lba_nbytes: g.lba_nbytes,
            lba_extended: g.lba_extended != 0,
            pi_type: g.pi_type,
            pi_loc: g.pi_loc,
            pi_format: g.pi_format,
        }
    }

    /// Namespace identifier.
    pub fn nsid(&self) -> u32 {
        // SAFETY: valid handle.
        unsafe { sys::xnvme_dev_get_nsid(self.raw()) }
    }

    /// Command set identifier (0 NVM, 1 key-value, 2 zoned).
    pub fn csi(&self) -> u8 {
        // SAFETY: valid handle.
        unsafe { sys::xnvme_dev_get_csi(self.raw()) }
    }

    /// URI, device type, namespace and command set.
    pub fn ident(&self) -> Ident {
        // SAFETY: valid handle; pointer valid for the handle's life.
        let id = unsafe { &*sys::xnvme_dev_get_ident(self.raw()) };
        let uri: Vec<u8> = id.uri.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
        Ident {
            uri: String::from_utf8_lossy(&uri).into_owned(),
            dtype: id.dtype,
            nsid: id.nsid,
            csi: id.csi,
        }
    }

    /// The backend and mechanisms in use.
    pub fn mechanisms(&self) -> Mechanisms {
        // SAFETY: valid handle; the options live as long as the handle.
        let o = unsafe { &*sys::xnvme_dev_get_opts(self.raw()) };
        Mechanisms {
            backend: name_of(o.be),
            mem: name_of(o.mem),
            sync: name_of(o.sync),
            async_mechanism: name_of(o.async_),
            admin: name_of(o.admin),
        }
    }

    fn idfy_bytes(p: *const c_void) -> Result<Box<[u8; 4096]>> {
        if p.is_null() {
            return Err(Error::Errno(libc::ENODATA));
        }
        let mut raw = Box::new([0u8; 4096]);
        // SAFETY: the identify structures of the library are 4096 bytes.
        unsafe { std::ptr::copy_nonoverlapping(p as *const u8, raw.as_mut_ptr(), 4096) };
        Ok(raw)
    }

    /// Identify Controller data (cached by the library after the first call).
    pub fn identify_controller(&self) -> Result<ControllerIdentify> {
        // SAFETY: valid handle.
        let raw =
            Self::idfy_bytes(unsafe { sys::xnvme_dev_get_ctrlr(self.raw()) } as *const c_void)?;
        Ok(ControllerIdentify {
            vid: le16(&raw[..], 0),
            ssvid: le16(&raw[..], 2),
            serial: trimmed(&raw[4..24]),
            model: trimmed(&raw[24..64]),
            firmware: trimmed(&raw[64..72]),
            mdts: raw[77],
            cntlid: le16(&raw[..], 78),
            ver: le32(&raw[..], 80),
            nn: le32(&raw[..], 516),
            oncs: le16(&raw[..], 520),
            raw,
        })
    }

    /// Identify Namespace data of the NVM command set (cached by the library).
    pub fn identify_namespace(&self) -> Result<NamespaceIdentify> {
        // SAFETY: valid handle.
        let raw = Self::idfy_bytes(unsafe { sys::xnvme_dev_get_ns(self.raw()) } as *const c_void)?;
        let nlbaf = raw[25];
        let lbaf = (0..=usize::from(nlbaf).min(63))
            .map(|i| {
                let off = 128 + 4 * i;
                LbaFormat { ms: le16(&raw[..], off), lbads: raw[off + 2], rp: raw[off + 3] & 0x3 }
            })
            .collect();
        Ok(NamespaceIdentify {
            nsze: le64(&raw[..], 0),
            ncap: le64(&raw[..], 8),
            nuse: le64(&raw[..], 16),
            nsfeat: raw[24],
            nlbaf,
            flbas: raw[26],
            dps: raw[29],
            lbaf,
            raw,
        })
    }

    /// Allocates a zero-filled DMA buffer of `nbytes` for this device.
    pub fn alloc_buffer(&self, nbytes: usize) -> Result<Buffer> {
        Buffer::alloc(self, nbytes)
    }

    pub(crate) fn check_blocks(&self, nblocks: u32, buf_len: usize) -> Result<u16> {
        if nblocks == 0 || nblocks > 65536 {
            return Err(Error::Errno(libc::EINVAL));
        }
        let need = u64::from(nblocks) * u64::from(self.geometry().lba_nbytes);
        if need > buf_len as u64 {
            return Err(Error::Errno(libc::EINVAL));
        }
        Ok((nblocks - 1) as u16)
    }

    pub(crate) fn check_own(&self, buf: &Buffer) -> Result<()> {
        if Arc::ptr_eq(&buf.dev, &self.inner) {
            Ok(())
        } else {
            Err(Error::Errno(libc::EXDEV))
        }
    }

    /// Runs one synchronous command on a fresh context built by `f`.
    pub(crate) fn sync_cmd(
        &self,
        f: impl FnOnce(*mut sys::xnvme_cmd_ctx) -> i32,
    ) -> Result<Completion> {
        // SAFETY: builds a value for a valid handle.
        let mut ctx = unsafe { sys::xnvme_cmd_ctx_from_dev(self.raw()) };
        let err = f(&mut ctx);
        completion_result(err, &ctx.cpl)
    }

    /// Reads `nblocks` LBAs starting at `slba` into `buf`, which must hold
    /// `nblocks * geometry().lba_nbytes` bytes (else `EINVAL`).
    pub fn read(&self, slba: u64, nblocks: u32, buf: &mut Buffer) -> Result<Completion> {
        let nlb = self.check_blocks(nblocks, buf.len())?;
        self.check_own(buf)?;
        let nsid = self.nsid();
        // SAFETY: the buffer holds the nlb + 1 LBAs the command transfers.
        self.sync_cmd(|ctx| unsafe {
            sys::xnvme_nvm_read(
                ctx,
                nsid,
                slba,
                nlb,
                buf.as_mut_ptr() as *mut c_void,
                std::ptr::null_mut(),
            )
        })
    }

    /// Writes `nblocks` LBAs starting at `slba` from `buf`.
    pub fn write(&self, slba: u64, nblocks: u32, buf: &Buffer) -> Result<Completion> {
        let nlb = self.check_blocks(nblocks, buf.len())?;
        self.check_own(buf)?;
        let nsid = self.nsid();
        // SAFETY: the buffer holds the LBAs the command transfers; it is only read.
        self.sync_cmd(|ctx| unsafe {
            sys::xnvme_nvm_write(
                ctx,
                nsid,
                slba,
                nlb,
                buf.as_ptr() as *const c_void,
                std::ptr::null(),
            )
        })
    }

    /// Write Zeroes of `nblocks` LBAs.
    pub fn write_zeroes(&self, slba: u64, nblocks: u32) -> Result<Completion> {
        if nblocks == 0 || nblocks > 65536 {
            return Err(Error::Errno(libc::EINVAL));
        }
        let nsid = self.nsid();
        // SAFETY: no data buffer.
        self.sync_cmd(|ctx| unsafe {
            sys::xnvme_nvm_write_zeroes(ctx, nsid, slba, (nblocks - 1) as u16)
        })
    }

    /// Flush.
    pub fn flush(&self) -> Result<Completion> {
        // SAFETY: a data-less command.
        unsafe { self.io_raw(&Command::new(0x00, self.nsid()), None) }
    }

    /// Identify (admin opcode 0x06) with controller or namespace structure `cns`, namespace
    /// `nsid` and command set `csi` into `buf` (at least 4096 bytes, else `EINVAL`).
    pub fn identify(&self, cns: u8, nsid: u32, csi: u8, buf: &mut Buffer) -> Result<Completion> {
        if buf.len() < 4096 {
            return Err(Error::Errno(libc::EINVAL));
        }
        let cmd = Command::new(0x06, nsid)
            .with_cdw(10, u32::from(cns))
            .with_cdw(11, u32::from(csi) << 24);
        // SAFETY: Identify transfers exactly 4096 bytes and the buffer has them.
        unsafe { self.admin_raw(&cmd, Some((buf.as_mut_ptr(), 4096))) }
    }

    /// Get Log Page `lid` for namespace `nsid` (0xFFFFFFFF: all) into the whole of `buf`
    /// (its length must be a multiple of 4).
    pub fn get_log_page(&self, lid: u8, nsid: u32, buf: &mut Buffer) -> Result<Completion> {
        if buf.is_empty() || buf.len() % 4 != 0 {
            return Err(Error::Errno(libc::EINVAL));
        }
        let len = u32::try_from(buf.len()).map_err(|_| Error::Errno(libc::EINVAL))?;
        // SAFETY: the log transfer length is the buffer's length.
        self.sync_cmd(|ctx| unsafe {
            sys::xnvme_adm_log(ctx, lid, 0, 0, nsid, 0, buf.as_mut_ptr() as *mut c_void, len)
        })
    }

    /// Get Features `fid` (current value) for namespace `nsid` with dword 11 `cdw11`; the
    /// value is in [`Completion::cdw0`].
    pub fn get_feature(&self, fid: u8, nsid: u32, cdw11: u32) -> Result<Completion> {
        let cmd = Command::new(0x0A, nsid).with_cdw(10, u32::from(fid)).with_cdw(11, cdw11);
        // SAFETY: no data buffer.
        unsafe { self.admin_raw(&cmd, None) }
    }

    /// Set Features `fid` to `value` (dword 11) for namespace `nsid`, dword 12 `cdw12`.
    pub fn set_feature(&self, fid: u8, nsid: u32, value: u32, cdw12: u32) -> Result<Completion> {
        let cmd = Command::new(0x09, nsid)
            .with_cdw(10, u32::from(fid))
            .with_cdw(11, value)
            .with_cdw(12, cdw12);
        // SAFETY: no data buffer.
        unsafe { self.admin_raw(&cmd, None) }
    }

    /// Passes an admin command as it is.
    ///
    /// # Safety
    /// `data`, when given, must be valid for reads and writes of its length, and that length
    /// must cover every byte the command transfers (the controller writes as many bytes as
    /// the command says, whatever the length).
    pub unsafe fn admin_raw(
        &self,
        cmd: &Command,
        data: Option<(*mut u8, usize)>,
    ) -> Result<Completion> {
        let (p, n) = data.unwrap_or((std::ptr::null_mut(), 0));
        self.sync_cmd(|ctx| {
            // SAFETY: ctx is valid; the caller vouches for the buffer.
            unsafe {
                *cmd_dwords(&mut *ctx) = cmd.cdw;
                sys::xnvme_cmd_pass_admin(ctx, p as *mut c_void, n, std::ptr::null_mut(), 0)
            }
        })
    }

    /// Passes an I/O command as it is.
    ///
    /// # Safety
    /// As [`Device::admin_raw`].
    pub unsafe fn io_raw(
        &self,
        cmd: &Command,
        data: Option<(*mut u8, usize)>,
    ) -> Result<Completion> {
        let (p, n) = data.unwrap_or((std::ptr::null_mut(), 0));
        self.sync_cmd(|ctx| {
            // SAFETY: ctx is valid; the caller vouches for the buffer.
            unsafe {
                *cmd_dwords(&mut *ctx) = cmd.cdw;
                sys::xnvme_cmd_pass(ctx, p as *mut c_void, n, std::ptr::null_mut(), 0)
            }
        })
    }
}
