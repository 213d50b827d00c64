//! Queues: asynchronous commands completed through closures or futures.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::ffi::c_void;
use std::future::Future;
use std::pin::Pin;
use std::ptr::NonNull;
use std::task::{Context, Poll, Waker};

use xnvme_sys as sys;

use crate::buffer::Buffer;
use crate::device::{completion_result, Completion, Device};
use crate::error::{Error, Result};

/// What a queued command gives back: its completion and the buffer, or an error with the
/// buffer when the library has let go of it.
pub type IoResult = std::result::Result<(Completion, Buffer), IoError>;

/// A failed queued command: the error, and the buffer when it can be handed back (always for
/// refused submissions and completions with an error status; `None` only after a fatal queue
/// error, when the queue keeps the buffer until it is dropped because the kernel may still
/// use it).
#[derive(Debug)]
pub struct IoError {
    /// What went wrong.
    pub error: Error,
    /// The command's buffer.
    pub buffer: Option<Buffer>,
}

impl std::fmt::Display for IoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for IoError {}

impl From<IoError> for Error {
    fn from(e: IoError) -> Error {
        e.error
    }
}

type Callback = Box<dyn FnOnce(IoResult) + Send + 'static>;

enum Slot {
    Free,
    Callback { buf: Buffer, cb: Callback },
    Awaiting { buf: Buffer, waker: Option<Waker> },
    Ready(IoResult),
    Abandoned { buf: Buffer },
}

/// Target of a context's cb_arg: which slot of which queue state.
struct SlotRef {
    state: *const State,
    idx: usize,
}

struct State {
    slots: RefCell<Vec<Slot>>,
    free: RefCell<Vec<usize>>,
    done: RefCell<VecDeque<(usize, sys::xnvme_spec_cpl)>>,
    refs: Box<[SlotRef]>,
}

/// The C completion callback: records the completion and returns the context to the pool.
/// It never runs user code and never pokes; user callbacks run later from [`Queue::poke`],
/// outside the library's poke.
unsafe extern "C" fn trampoline(ctx: *mut sys::xnvme_cmd_ctx, arg: *mut c_void) {
    // SAFETY: arg is the SlotRef this crate set for this context; the state outlives every
    // command (terminated before it is freed); ctx is the pool context of the command.
    unsafe {
        let r = &*(arg as *const SlotRef);
        let st = &*r.state;
        let cpl = (*ctx).cpl;
        sys::xnvme_queue_put_cmd_ctx((*ctx).async_.queue, ctx);
        match st.done.try_borrow_mut() {
            // Never reallocates: at most one entry per slot.
            Ok(mut d) => d.push_back((r.idx, cpl)),
            Err(_) => std::process::abort(),
        }
    }
}

#[cfg(feature = "async")]
mod fdwait {
    use std::os::fd::{AsRawFd, RawFd};
    pub(super) struct FdRef(pub(super) RawFd);
    impl AsRawFd for FdRef {
        fn as_raw_fd(&self) -> RawFd {
            self.0
        }
    }
    pub(super) enum Afd {
        Unknown,
        None,
        /// The completion fd registered with the reactor; `eventfd`: this crate reads it.
        Some {
            fd: tokio::io::unix::AsyncFd<FdRef>,
            eventfd: bool,
        },
    }

    /// Whether `fd` is an eventfd, which the application reads to clear (io_uring,
    /// io_uring_cmd, libaio, vfio). Other completion fds belong to the library, whose poke
    /// consumes their readiness (tcp: an epoll fd, where a read fails; rdma: the completion
    /// channel, where a read would steal the event the library must acknowledge). Decided by
    /// what the fd is (Linux names it in /proc), not by a list of mechanisms that could miss a
    /// new one; without /proc it is never read, and waits still poke on every readiness.
    pub(super) fn is_eventfd(fd: RawFd) -> bool {
        std::fs::read_link(format!("/proc/self/fd/{fd}"))
            .is_ok_and(|p| p.as_os_str() == "anon_inode:[eventfd]")
    }

    #[cfg(test)]
    mod tests {
        use super::is_eventfd;

        #[test]
        fn eventfd_or_not() {
            // SAFETY: plain fd constructors; every fd made is closed below.
            unsafe {
                let efd = libc::eventfd(0, libc::EFD_CLOEXEC);
                let epfd = libc::epoll_create1(libc::EPOLL_CLOEXEC);
                let mut p = [-1; 2];
                assert_eq!(libc::pipe(p.as_mut_ptr()), 0);
                assert!(efd >= 0 && epfd >= 0);
                assert!(is_eventfd(efd), "an eventfd");
                assert!(!is_eventfd(epfd), "an epoll fd");
                assert!(!is_eventfd(p[0]) && !is_eventfd(p[1]), "a pipe");
                for fd in [efd, epfd, p[0], p[1]] {
                    libc::close(fd);
                }
                assert!(!is_eventfd(efd), "a closed fd");
                assert!(!is_eventfd(-1), "no fd");
            }
        }
    }
}

#[cfg_attr(not(feature = "async"), allow(dead_code))]
enum Wait {
    /// Registered for a wake-up.
    Pending,
    /// Completions are signalled: poke again.
    Again,
    /// No fd to wait on: the caller busy-polls.
    NoFd,
}

/// A queue of asynchronous commands on one device.
///
/// Submissions move their [`Buffer`] into the queue and get it back on completion, either
/// through a closure (`*_cb` methods) run by [`Queue::poke`]/[`Queue::drain`], or through an
/// [`IoFuture`] (`read`, `write`, `append`) that pokes the queue itself when polled.
///
/// Commands are submitted when the method is called (not when the future is first polled);
/// mechanisms that batch (io_uring) pass them to the kernel at the next poke.
///
/// **Callbacks** run on the thread calling `poke`/`drain`/polling a future, after the
/// library's own poke has returned: the library's completion callback only records the
/// completion, so user code never runs inside it and the queue is never poked re-entrantly.
/// Each callback submission boxes its closure (one allocation; none for closures that
/// capture nothing); futures allocate nothing per command.
///
/// **Threads.** `Send`, not `Sync`: the C library gives a queue to one thread at a time.
/// Moving it to another thread is allowed, but an io_uring queue using the
/// `SINGLE_ISSUER|DEFER_TASKRUN` ring setup (the default when the kernel has it) is bound to
/// the first thread that poked it and then fails with `EEXIST` elsewhere (set
/// `XNVME_QUEUE_TASKRUN=coop` to lift that). Futures borrow the queue and are not `Send`;
/// await them on a current-thread runtime or a `LocalSet`.
///
/// A queue cannot be shared between threads, and its futures cannot be sent to another thread:
///
/// ```compile_fail
/// fn shared<T: Sync>() {}
/// shared::<xnvme::Queue>();
/// ```
///
/// ```compile_fail
/// fn sent<T: Send>(_: T) {}
/// let dev = xnvme::Device::open("1GB").unwrap();
/// let q = xnvme::Queue::new(&dev, 4).unwrap();
/// sent(q.read(0, 1, dev.alloc_buffer(512).unwrap()));
/// ```
///
/// **Drop.** Dropping the queue terminates it without draining: the library waits for the
/// commands the kernel holds, then their buffers are freed and their closures dropped
/// uncalled. Call [`Queue::drain`] first to run every callback.
///
/// ```
/// use std::sync::{Arc, atomic::{AtomicU32, Ordering}};
/// let dev = xnvme::Device::open("1GB")?;
/// let q = xnvme::Queue::new(&dev, 16)?;
/// let done = Arc::new(AtomicU32::new(0));
/// for i in 0..4u64 {
///     let buf = dev.alloc_buffer(512)?;
///     let done = done.clone();
///     q.write_cb(i, 1, buf, move |res| {
///         res.expect("write");
///         done.fetch_add(1, Ordering::Relaxed);
///     })?;
/// }
/// q.drain()?;
/// assert_eq!(done.load(Ordering::Relaxed), 4);
///
/// // or await (any executor; xnvme::block_on is a minimal one)
/// let buf = dev.alloc_buffer(512)?;
/// let (cpl, buf) = xnvme::block_on(q.read(0, 1, buf))?;
/// assert_eq!(cpl.cdw0, 0);
/// # Ok::<(), xnvme::Error>(())
/// ```
pub struct Queue {
    ptr: NonNull<sys::xnvme_queue>,
    state: Box<State>,
    dev: Device,
    #[cfg(feature = "async")]
    afd: RefCell<fdwait::Afd>,
}

// SAFETY: libxnvme_queue.h: a queue belongs to one thread at a time and may be handed to
// another with synchronisation, which moving a value provides; it is not Sync (RefCell),
// so two threads never use it at once. Everything it owns (closures, wakers, buffers) is Send.
unsafe impl Send for Queue {}

impl Queue {
    /// A queue of `capacity` (1..=4096) outstanding commands.
    pub fn new(dev: &Device, capacity: u16) -> Result<Queue> {
        Self::with_flags(dev, capacity, 0)
    }

    /// As [`Queue::new`] with `XNVME_QUEUE_IOPOLL` (1) / `XNVME_QUEUE_SQPOLL` (2) flags.
    pub fn with_flags(dev: &Device, capacity: u16, flags: i32) -> Result<Queue> {
        let mut q: *mut sys::xnvme_queue = std::ptr::null_mut();
        // SAFETY: valid handle and out pointer.
        let rc = unsafe { sys::xnvme_queue_init(dev.raw(), capacity, flags, &mut q) };
        if rc < 0 {
            return Err(Error::Errno(-rc));
        }
        let ptr = NonNull::new(q).ok_or(Error::Errno(libc::ENOMEM))?;
        // Pool of capacity + 1 contexts: one slot each.
        let n = usize::from(capacity) + 1;
        let mut state = Box::new(State {
            slots: RefCell::new((0..n).map(|_| Slot::Free).collect()),
            free: RefCell::new((0..n).rev().collect()),
            done: RefCell::new(VecDeque::with_capacity(n)),
            refs: Box::new([]),
        });
        let sp: *const State = &*state;
        state.refs = (0..n).map(|idx| SlotRef { state: sp, idx }).collect();
        Ok(Queue {
            ptr,
            state,
            dev: dev.clone(),
            #[cfg(feature = "async")]
            afd: RefCell::new(fdwait::Afd::Unknown),
        })
    }

    /// The device.
    pub fn device(&self) -> &Device {
        &self.dev
    }

    /// Capacity given at creation.
    pub fn capacity(&self) -> u32 {
        // SAFETY: valid queue.
        unsafe { sys::xnvme_queue_get_capacity(self.ptr.as_ptr()) }
    }

    /// Commands submitted whose completion has not been delivered yet.
    pub fn outstanding(&self) -> usize {
        // SAFETY: valid queue.
        let lib = unsafe { sys::xnvme_queue_get_outstanding(self.ptr.as_ptr()) } as usize;
        lib + self.state.done.borrow().len()
    }

    /// Reaps what has completed and runs the callbacks of those commands (and wakes their
    /// futures). Returns how many completions it delivered; never blocks.
    pub fn poke(&self) -> Result<usize> {
        // SAFETY: valid queue; no RefCell borrow is held across the call.
        let rc = unsafe { sys::xnvme_queue_poke(self.ptr.as_ptr(), 0) };
        let n = self.dispatch();
        if rc < 0 {
            Err(Error::Errno(-rc))
        } else {
            Ok(n)
        }
    }

    /// Pokes until nothing is outstanding (busy-polls), running every callback. Returns how
    /// many completions it delivered.
    pub fn drain(&self) -> Result<usize> {
        let mut total = 0;
        loop {
            total += self.poke()?;
            if self.outstanding() == 0 {
                return Ok(total);
            }
            std::hint::spin_loop();
        }
    }

    fn dispatch(&self) -> usize {
        let mut n = 0;
        loop {
            let item = self.state.done.borrow_mut().pop_front();
            let Some((idx, cpl)) = item else { return n };
            n += 1;
            let slot = std::mem::replace(&mut self.state.slots.borrow_mut()[idx], Slot::Free);
            let result = |buf: Buffer| match completion_result(0, &cpl) {
                Ok(c) => Ok((c, buf)),
                Err(error) => Err(IoError { error, buffer: Some(buf) }),
            };
            match slot {
                Slot::Callback { buf, cb } => {
                    self.state.free.borrow_mut().push(idx);
                    cb(result(buf));
                }
                Slot::Awaiting { buf, waker } => {
                    self.state.slots.borrow_mut()[idx] = Slot::Ready(result(buf));
                    if let Some(w) = waker {
                        w.wake();
                    }
                }
                Slot::Abandoned { buf } => {
                    self.state.free.borrow_mut().push(idx);
                    drop(buf);
                }
                Slot::Free | Slot::Ready(_) => {}
            }
        }
    }

    /// Submits one command: `pass` gets the context and the buffer's address.
    fn submit(
        &self,
        buf: Buffer,
        make: impl FnOnce(Buffer) -> Slot,
        pass: impl FnOnce(*mut sys::xnvme_cmd_ctx, *mut c_void) -> i32,
    ) -> std::result::Result<usize, IoError> {
        if let Err(error) = self.dev.check_own(&buf) {
            return Err(IoError { error, buffer: Some(buf) });
        }
        let Some(idx) = self.state.free.borrow_mut().pop() else {
            return Err(IoError { error: Error::Errno(libc::EBUSY), buffer: Some(buf) });
        };
        // SAFETY: valid queue.
        let ctx = unsafe { sys::xnvme_queue_get_cmd_ctx(self.ptr.as_ptr()) };
        if ctx.is_null() {
            self.state.free.borrow_mut().push(idx);
            return Err(IoError { error: Error::last_os(), buffer: Some(buf) });
        }
        // SAFETY: ctx is a taken pool context; the SlotRef lives as long as the queue.
        unsafe {
            (*ctx).async_.cb = Some(trampoline);
            (*ctx).async_.cb_arg = &self.state.refs[idx] as *const SlotRef as *mut c_void;
        }
        let data = buf.raw_ptr();
        self.state.slots.borrow_mut()[idx] = make(buf);
        let rc = pass(ctx, data);
        if rc != 0 {
            // Not queued: no callback will come.
            // SAFETY: ctx is ours and taken.
            unsafe { sys::xnvme_queue_put_cmd_ctx(self.ptr.as_ptr(), ctx) };
            // Defensive: a completion recorded for a refused command must not reach a later
            // command of the same slot.
            self.state.done.borrow_mut().retain(|(i, _)| *i != idx);
            let slot = std::mem::replace(&mut self.state.slots.borrow_mut()[idx], Slot::Free);
            self.state.free.borrow_mut().push(idx);
            let buffer = match slot {
                Slot::Callback { buf, .. } | Slot::Awaiting { buf, .. } => Some(buf),
                _ => None,
            };
            let error = if rc < 0 { Error::Errno(-rc) } else { Error::Errno(libc::EIO) };
            return Err(IoError { error, buffer });
        }
        Ok(idx)
    }

    fn submit_cb<F>(
        &self,
        buf: Buffer,
        cb: F,
        pass: impl FnOnce(*mut sys::xnvme_cmd_ctx, *mut c_void) -> i32,
    ) -> std::result::Result<(), IoError>
    where
        F: FnOnce(IoResult) + Send + 'static,
    {
        let cb: Callback = Box::new(cb);
        self.submit(buf, move |buf| Slot::Callback { buf, cb }, pass).map(|_| ())
    }

    fn submit_fut(
        &self,
        buf: Buffer,
        pass: impl FnOnce(*mut sys::xnvme_cmd_ctx, *mut c_void) -> i32,
    ) -> IoFuture<'_> {
        match self.submit(buf, |buf| Slot::Awaiting { buf, waker: None }, pass) {
            Ok(idx) => IoFuture { q: self, st: FutState::Submitted(idx) },
            Err(e) => IoFuture { q: self, st: FutState::Failed(Some(e)) },
        }
    }

    fn rw(
        &self,
        write: bool,
        slba: u64,
        nblocks: u32,
        len: usize,
    ) -> std::result::Result<impl FnOnce(*mut sys::xnvme_cmd_ctx, *mut c_void) -> i32, Error> {
        let nlb = self.dev.check_blocks(nblocks, len)?;
        let nsid = self.dev.nsid();
        Ok(move |ctx: *mut sys::xnvme_cmd_ctx, data: *mut c_void| {
            // SAFETY: the buffer holds nlb + 1 LBAs and is owned by the queue until completion.
            unsafe {
                if write {
                    sys::xnvme_nvm_write(ctx, nsid, slba, nlb, data, std::ptr::null())
                } else {
                    sys::xnvme_nvm_read(ctx, nsid, slba, nlb, data, std::ptr::null_mut())
                }
            }
        })
    }

    fn append_pass(
        &self,
        zslba: u64,
        nblocks: u32,
        len: usize,
    ) -> std::result::Result<impl FnOnce(*mut sys::xnvme_cmd_ctx, *mut c_void) -> i32, Error> {
        let nlb = self.dev.check_blocks(nblocks, len)?;
        let nsid = self.dev.nsid();
        // SAFETY: as rw.
        Ok(move |ctx: *mut sys::xnvme_cmd_ctx, data: *mut c_void| unsafe {
            sys::xnvme_znd_append(ctx, nsid, zslba, nlb, data, std::ptr::null())
        })
    }

    /// Reads `nblocks` LBAs at `slba` into `buf`; `cb` gets the result and the buffer.
    pub fn read_cb<F>(
        &self,
        slba: u64,
        nblocks: u32,
        buf: Buffer,
        cb: F,
    ) -> std::result::Result<(), IoError>
    where
        F: FnOnce(IoResult) + Send + 'static,
    {
        match self.rw(false, slba, nblocks, buf.len()) {
            Ok(pass) => self.submit_cb(buf, cb, pass),
            Err(error) => Err(IoError { error, buffer: Some(buf) }),
        }
    }

    /// Writes `nblocks` LBAs at `slba` from `buf`; `cb` gets the result and the buffer.
    pub fn write_cb<F>(
        &self,
        slba: u64,
        nblocks: u32,
        buf: Buffer,
        cb: F,
    ) -> std::result::Result<(), IoError>
    where
        F: FnOnce(IoResult) + Send + 'static,
    {
        match self.rw(true, slba, nblocks, buf.len()) {
            Ok(pass) => self.submit_cb(buf, cb, pass),
            Err(error) => Err(IoError { error, buffer: Some(buf) }),
        }
    }

    /// Zone Append of `nblocks` LBAs to the zone starting at `zslba`; the LBA written is
    /// [`Completion::result`].
    pub fn append_cb<F>(
        &self,
        zslba: u64,
        nblocks: u32,
        buf: Buffer,
        cb: F,
    ) -> std::result::Result<(), IoError>
    where
        F: FnOnce(IoResult) + Send + 'static,
    {
        match self.append_pass(zslba, nblocks, buf.len()) {
            Ok(pass) => self.submit_cb(buf, cb, pass),
            Err(error) => Err(IoError { error, buffer: Some(buf) }),
        }
    }

    /// Reads `nblocks` LBAs at `slba` into `buf`, submitted now; the future resolves to the
    /// completion and the buffer.
    pub fn read(&self, slba: u64, nblocks: u32, buf: Buffer) -> IoFuture<'_> {
        match self.rw(false, slba, nblocks, buf.len()) {
            Ok(pass) => self.submit_fut(buf, pass),
            Err(error) => IoFuture {
                q: self,
                st: FutState::Failed(Some(IoError { error, buffer: Some(buf) })),
            },
        }
    }

    /// Writes `nblocks` LBAs at `slba` from `buf`, submitted now.
    pub fn write(&self, slba: u64, nblocks: u32, buf: Buffer) -> IoFuture<'_> {
        match self.rw(true, slba, nblocks, buf.len()) {
            Ok(pass) => self.submit_fut(buf, pass),
            Err(error) => IoFuture {
                q: self,
                st: FutState::Failed(Some(IoError { error, buffer: Some(buf) })),
            },
        }
    }

    /// Zone Append, submitted now; the LBA written is [`Completion::result`].
    pub fn append(&self, zslba: u64, nblocks: u32, buf: Buffer) -> IoFuture<'_> {
        match self.append_pass(zslba, nblocks, buf.len()) {
            Ok(pass) => self.submit_fut(buf, pass),
            Err(error) => IoFuture {
                q: self,
                st: FutState::Failed(Some(IoError { error, buffer: Some(buf) })),
            },
        }
    }

    /// The result of slot `idx` if it is ready (freeing the slot), else stores the waker.
    fn take_ready(&self, idx: usize, waker: &Waker) -> Option<IoResult> {
        let mut slots = self.state.slots.borrow_mut();
        match &mut slots[idx] {
            Slot::Ready(_) => {
                let Slot::Ready(r) = std::mem::replace(&mut slots[idx], Slot::Free) else {
                    unreachable!()
                };
                drop(slots);
                self.state.free.borrow_mut().push(idx);
                Some(r)
            }
            Slot::Awaiting { waker: w, .. } => {
                if !w.as_ref().is_some_and(|w| w.will_wake(waker)) {
                    *w = Some(waker.clone());
                }
                None
            }
            _ => None,
        }
    }

    /// The future of slot `idx` is gone.
    fn abandon(&self, idx: usize) {
        let mut slots = self.state.slots.borrow_mut();
        match std::mem::replace(&mut slots[idx], Slot::Free) {
            Slot::Awaiting { buf, .. } => slots[idx] = Slot::Abandoned { buf },
            Slot::Ready(r) => {
                drop(slots);
                self.state.free.borrow_mut().push(idx);
                drop(r);
            }
            other => slots[idx] = other,
        }
    }

    #[cfg(feature = "async")]
    fn prepare_wait(&self) {
        use fdwait::{Afd, FdRef};
        let mut afd = self.afd.borrow_mut();
        if !matches!(*afd, Afd::Unknown) || tokio::runtime::Handle::try_current().is_err() {
            return;
        }
        // SAFETY: valid queue; the fd is owned by the queue and outlives the AsyncFd, which
        // Drop releases first.
        let fd = unsafe { sys::xnvme_queue_get_completion_fd(self.ptr.as_ptr()) };
        *afd = Afd::None;
        if fd >= 0 {
            let eventfd = fdwait::is_eventfd(fd);
            if eventfd {
                // SAFETY: fcntl on a valid fd; the library only writes the eventfd (or lets
                // the kernel do so), non-blocking reads are this crate's.
                unsafe {
                    let fl = libc::fcntl(fd, libc::F_GETFL);
                    if fl >= 0 {
                        libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK);
                    }
                }
            }
            // SAFETY: the fd stays open and the same until the AsyncFd is dropped (in
            // Queue::drop, before xnvme_queue_term closes it).
            let reg = unsafe {
                tokio::io::unix::AsyncFd::register_with_interest(
                    FdRef(fd),
                    tokio::io::Interest::READABLE,
                )
            };
            if let Ok(fd) = reg {
                *afd = Afd::Some { fd, eventfd };
            }
        }
    }

    #[cfg(not(feature = "async"))]
    fn prepare_wait(&self) {}

    /// Readiness is edge-triggered: whatever readiness this consumes is followed by a poke
    /// (`Again`), so a completion that arrived after the caller's last poke is never left
    /// unreaped. Readiness recorded after the clear is a new edge and wakes the task again.
    #[cfg(feature = "async")]
    fn wait(&self, cx: &mut Context<'_>) -> Wait {
        use fdwait::Afd;
        let afd = self.afd.borrow();
        let Afd::Some { fd, eventfd } = &*afd else { return Wait::NoFd };
        match fd.poll_read_ready(cx) {
            Poll::Pending => Wait::Pending,
            Poll::Ready(Err(_)) => Wait::NoFd,
            Poll::Ready(Ok(mut guard)) => {
                if *eventfd {
                    let mut v = 0u64;
                    // SAFETY: 8-byte read into a u64 from the non-blocking eventfd; EAGAIN
                    // (already clear) is fine.
                    unsafe { libc::read(fd.get_ref().0, &mut v as *mut u64 as *mut c_void, 8) };
                }
                guard.clear_ready();
                Wait::Again
            }
        }
    }

    #[cfg(not(feature = "async"))]
    fn wait(&self, _cx: &mut Context<'_>) -> Wait {
        Wait::NoFd
    }

    /// True when awaiting this queue's futures on tokio sleeps on the completion fd; false
    /// when the mechanism has none (ramdisk, `thrpool`, `emu`, `posix`, `nil`) or outside a
    /// tokio runtime, where futures poll by waking themselves at once.
    pub fn uses_completion_fd(&self) -> bool {
        #[cfg(feature = "async")]
        {
            self.prepare_wait();
            matches!(*self.afd.borrow(), fdwait::Afd::Some { .. })
        }
        #[cfg(not(feature = "async"))]
        false
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        #[cfg(feature = "async")]
        {
            *self.afd.get_mut() = fdwait::Afd::None;
        }
        // SAFETY: valid queue, not inside one of its callbacks (they never run user code).
        // Term waits for the commands the kernel holds; the slots (buffers, closures) are
        // freed after it, when State drops.
        unsafe { sys::xnvme_queue_term(self.ptr.as_ptr()) };
    }
}

enum FutState {
    Submitted(usize),
    Failed(Option<IoError>),
    Done,
}

/// A queued command; resolves to its completion and buffer. Polling it pokes its queue (and,
/// with the `async` feature inside a tokio runtime, sleeps on the queue's completion fd when
/// the mechanism has one; otherwise it wakes itself to be polled again). Dropping it before
/// completion leaves the buffer to the queue, which frees it when the command completes.
#[must_use = "the command is submitted; await the future to get the buffer back"]
pub struct IoFuture<'q> {
    q: &'q Queue,
    st: FutState,
}

impl Future for IoFuture<'_> {
    type Output = IoResult;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<IoResult> {
        let q = self.q;
        let idx = match &mut self.st {
            FutState::Failed(e) => {
                let e = e.take().expect("IoFuture polled after completion");
                self.st = FutState::Done;
                return Poll::Ready(Err(e));
            }
            FutState::Done => panic!("IoFuture polled after completion"),
            FutState::Submitted(idx) => *idx,
        };
        q.prepare_wait();
        loop {
            if let Some(r) = q.take_ready(idx, cx.waker()) {
                self.st = FutState::Done;
                return Poll::Ready(r);
            }
            if let Err(error) = q.poke() {
                if let Some(r) = q.take_ready(idx, cx.waker()) {
                    self.st = FutState::Done;
                    return Poll::Ready(r);
                }
                q.abandon(idx);
                self.st = FutState::Done;
                return Poll::Ready(Err(IoError { error, buffer: None }));
            }
            if let Some(r) = q.take_ready(idx, cx.waker()) {
                self.st = FutState::Done;
                return Poll::Ready(r);
            }
            match q.wait(cx) {
                Wait::Pending => return Poll::Pending,
                Wait::Again => continue,
                Wait::NoFd => {
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
            }
        }
    }
}

impl Drop for IoFuture<'_> {
    fn drop(&mut self) {
        if let FutState::Submitted(idx) = self.st {
            self.q.abandon(idx);
        }
    }
}

/// Runs a future to completion on the current thread by polling it in a loop (yielding the
/// thread between polls): enough for queue futures, which poke their queue when polled.
pub fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    let waker = Waker::noop();
    let mut cx = Context::from_waker(waker);
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}
