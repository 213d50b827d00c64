//! The thread-safety markers documented in docs/rust.md.
use xnvme::{Buffer, Device, Error, Queue};

fn send<T: Send>() {}
fn sync<T: Sync>() {}

#[test]
fn markers() {
    send::<Device>();
    sync::<Device>();
    send::<Buffer>();
    sync::<Buffer>();
    send::<Queue>();
    send::<Error>();
    sync::<Error>();
    send::<xnvme::IoError>();
}
