//! DMA buffers.

use std::ffi::c_void;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;
use std::sync::Arc;

use xnvme_sys as sys;

use crate::device::{DevInner, Device};
use crate::error::{Error, Result};

/// A zero-filled I/O buffer from the device's memory mechanism (page aligned), usable as a
/// `[u8]` of the requested length.
///
/// A buffer keeps its device's handle open (it is freed with it), so it may outlive the
/// [`Device`] value it came from. Commands take buffers of the device that allocated them
/// (another device's buffer gives `EXDEV`).
///
/// **Threads.** `Send + Sync`: plain memory; the library's allocator may be called from any
/// thread. While a queued command uses a buffer, the queue owns it (it is moved into the
/// submission and handed back on completion), so it cannot be touched meanwhile.
///
/// A buffer given to a queued command cannot be touched until it comes back:
///
/// ```compile_fail
/// let dev = xnvme::Device::open("1GB").unwrap();
/// let q = xnvme::Queue::new(&dev, 4).unwrap();
/// let mut buf = dev.alloc_buffer(512).unwrap();
/// let fut = q.read(0, 1, buf);
/// buf[0] = 1; // moved into the queue
/// ```
///
/// ```
/// let dev = xnvme::Device::open("1GB")?;
/// let mut buf = dev.alloc_buffer(4096)?;
/// assert!(buf.iter().all(|&b| b == 0));
/// buf[..5].copy_from_slice(b"hello");
/// drop(dev);            // the handle stays open for the buffer
/// assert_eq!(&buf[..5], b"hello");
/// # Ok::<(), xnvme::Error>(())
/// ```
pub struct Buffer {
    ptr: NonNull<u8>,
    len: usize,
    pub(crate) dev: Arc<DevInner>,
}

// SAFETY: the buffer is plain memory owned by this value; freeing goes through the device's
// allocator, which the library allows from any thread.
unsafe impl Send for Buffer {}
// SAFETY: shared references only give `&[u8]`.
unsafe impl Sync for Buffer {}

impl Buffer {
    pub(crate) fn alloc(dev: &Device, nbytes: usize) -> Result<Buffer> {
        if nbytes == 0 {
            return Err(Error::Errno(libc::EINVAL));
        }
        // SAFETY: valid handle.
        let p = unsafe { sys::xnvme_buf_alloc(dev.raw(), nbytes) } as *mut u8;
        let ptr = NonNull::new(p).ok_or_else(Error::last_os)?;
        // SAFETY: the allocation has at least nbytes; zeroing makes the slice initialised.
        unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0, nbytes) };
        Ok(Buffer { ptr, len: nbytes, dev: dev.inner.clone() })
    }

    /// The device this buffer belongs to.
    pub fn device(&self) -> Device {
        Device { inner: self.dev.clone() }
    }

    pub(crate) fn raw_ptr(&self) -> *mut c_void {
        self.ptr.as_ptr() as *mut c_void
    }
}

impl Deref for Buffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: len initialised bytes owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl DerefMut for Buffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: len initialised bytes owned exclusively by self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Buffer").field("len", &self.len).finish()
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: allocated by xnvme_buf_alloc with this (still open) device; no command uses
        // it (queued commands own their buffer until completion or queue termination).
        unsafe { sys::xnvme_buf_free(self.dev.ptr.as_ptr(), self.raw_ptr()) }
    }
}
