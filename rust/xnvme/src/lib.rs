//! Safe Rust API for libxnvme, the C library implementing the xNVMe 0.7.5 API: one interface
//! over NVMe namespaces, block devices, regular files and an in-memory NVMe controller
//! (the `ramdisk` backend, URI `"1GB"`).
//!
//! * [`Device`]: open by URI ([`Device::open`], [`OpenOptions`]), geometry, identify data,
//!   synchronous read/write/admin commands returning `Result<`[`Completion`]`, `[`Error`]`>`,
//!   zoned, FDP and key-value helpers. Closed when it and everything made from it are dropped.
//! * [`Buffer`]: a DMA buffer of the device, `Deref<Target = [u8]>`.
//! * [`Queue`]: asynchronous commands completed through closures or futures (and, with the
//!   `async` feature, awaited on tokio sleeping on the queue's completion fd).
//! * [`Error`]: an errno or an NVMe status (`sct`, `sc` and the status name).
//!
//! Every documented operation is safe; the only `unsafe` functions are the raw pass-through
//! ones ([`Device::admin_raw`], [`Device::io_raw`]).
//!
//! # Sync I/O on the ramdisk and on a file
//!
//! ```
//! use xnvme::{Device, OpenOptions};
//! let dev = Device::open("1GB")?;
//! let mut buf = dev.alloc_buffer(4096)?;
//! buf.copy_from_slice(&[7u8; 4096]);
//! dev.write(0, 8, &buf)?;                 // 8 LBAs of 512 bytes
//! buf.fill(0);
//! dev.read(0, 8, &mut buf)?;
//! assert!(buf.iter().all(|&b| b == 7));
//!
//! let path = std::env::temp_dir().join(format!("xnvme-doc-{}", std::process::id()));
//! std::fs::File::create(&path).unwrap().set_len(1 << 20).unwrap();
//! let file = Device::open_with(path.to_str().unwrap(), &OpenOptions::new())?;
//! let buf = file.alloc_buffer(4096)?;
//! file.write(0, 4096 / file.geometry().lba_nbytes, &buf)?;
//! # drop(file); std::fs::remove_file(&path).unwrap();
//! # Ok::<(), xnvme::Error>(())
//! ```
//!
//! # An NVMe error
//!
//! ```
//! use xnvme::{Device, Error};
//! let dev = Device::open("1GB")?;
//! let mut buf = dev.alloc_buffer(512)?;
//! let nlbas = dev.identify_namespace()?.nsze;
//! match dev.read(nlbas, 1, &mut buf) {
//!     Err(Error::Status { sct: 0, sc: 0x80, name }) => assert_eq!(name, "LBA Out of Range"),
//!     other => panic!("expected LBA Out of Range, got {other:?}"),
//! }
//! # Ok::<(), xnvme::Error>(())
//! ```
//!
//! # Queues: closures and futures
//!
//! ```
//! use std::sync::mpsc;
//! use xnvme::{Device, Queue};
//! let dev = Device::open("1GB")?;
//! let q = Queue::new(&dev, 32)?;
//!
//! // A closure per command, run by poke()/drain() on this thread.
//! let (tx, rx) = mpsc::channel();
//! let mut buf = dev.alloc_buffer(4096)?;
//! buf.fill(0x11);
//! q.write_cb(64, 8, buf, move |res| tx.send(res.map(|(cpl, _buf)| cpl.cdw0)).unwrap())
//!     .map_err(|e| e.error)?;
//! q.drain()?;
//! assert!(rx.recv().unwrap().is_ok());
//!
//! // Futures: await on any executor (here tokio's current-thread runtime).
//! let rt = tokio::runtime::Builder::new_current_thread().enable_io().build().unwrap();
//! let data = rt.block_on(async {
//!     let (_cpl, buf) = q.read(64, 8, dev.alloc_buffer(4096)?).await?;
//!     Ok::<_, xnvme::Error>(buf[0])
//! })?;
//! assert_eq!(data, 0x11);
//! # Ok::<(), xnvme::Error>(())
//! ```
//!
//! # Identify data
//!
//! ```
//! let dev = xnvme::Device::open("1GB")?;
//! let ctrlr = dev.identify_controller()?;
//! let ns = dev.identify_namespace()?;
//! println!("{} {} nn={}", ctrlr.model, ctrlr.serial, ctrlr.nn);
//! assert_eq!(ns.nsze * 512, dev.geometry().tbytes);
//! assert_eq!(ns.current_lbaf().unwrap().lbads, 9);
//! # Ok::<(), xnvme::Error>(())
//! ```
//!
//! # Features
//!
//! * `async`: [`Queue`] futures register the queue's completion fd (io_uring, libaio) with
//!   tokio's reactor when polled inside a tokio runtime; mechanisms without one make the
//!   future wake itself, so the runtime polls it again (busy, cooperative).
//!
//! # Threads
//!
//! [`Device`] and [`Buffer`] are `Send + Sync`; [`Queue`] is `Send` only (one thread at a time,
//! as the C library requires). See each type.
#![warn(missing_docs)]

mod buffer;
mod device;
mod error;
mod helpers;
mod queue;

pub use buffer::Buffer;
pub use device::{
    Command, Completion, ControllerIdentify, Device, Geometry, GeometryKind, Ident, LbaFormat,
    Mechanisms, NamespaceIdentify, OpenOptions,
};
pub use error::{status_name, Error, Result};
pub use helpers::{KvStoreMode, RuhStatus, Zone, ZoneAction, ZoneState};
pub use queue::{block_on, IoError, IoFuture, IoResult, Queue};

/// The raw bindings this crate is built on.
pub use xnvme_sys as sys;

/// The README's example, run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// Every example of the repository's docs/rust.md, run as a doctest. The file lies outside
/// the crate: it is read only when rustdoc collects doctests in the repository (never by
/// `cargo build`, `cargo doc` or `cargo package`).
#[cfg(doctest)]
#[doc = include_str!("../../../docs/rust.md")]
pub struct RustMdDoctests;
