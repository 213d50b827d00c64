//! Queues: every async mechanism of the build on the ramdisk and a file, with closures and
//! futures; queue limits, errors and drop behaviour.
mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use common::{open_mech, pattern, TempFile, FILE_MECHS, RAMDISK_MECHS};
use xnvme::{block_on, Device, Error, Queue};

/// Writes `n` commands of 8 LBAs with closures, reads them back with futures, compares
/// (unless the mechanism is "nil", which performs no I/O).
fn roundtrip(dev: &Device, base: u64, mech: &str) {
    let q = match Queue::new(dev, 8) {
        Ok(q) => q,
        Err(e) if common::unavailable(&e) => return common::skip(&format!("queue {mech}"), &e),
        Err(e) => panic!("queue init with {mech}: {e}"),
    };
    let lbas = 4096 / dev.geometry().lba_nbytes;
    let n = 24u64;
    let done = Arc::new(AtomicUsize::new(0));
    let errors = Arc::new(Mutex::new(Vec::new()));
    let mut i = 0u64;
    while i < n {
        let mut buf = dev.alloc_buffer(4096).unwrap();
        pattern(&mut buf, i as u8);
        let (d, e) = (done.clone(), errors.clone());
        match q.write_cb(base + i * u64::from(lbas), lbas, buf, move |res| {
            if let Err(err) = res {
                e.lock().unwrap().push(err.error);
            }
            d.fetch_add(1, Ordering::SeqCst);
        }) {
            Ok(()) => i += 1,
            Err(full) if full.error == Error::Errno(libc::EBUSY) => {
                drop(full.buffer);
                q.poke().unwrap();
            }
            Err(other) => panic!("{mech}: submit: {other}"),
        }
    }
    q.drain().unwrap();
    assert_eq!(q.outstanding(), 0);
    assert_eq!(done.load(Ordering::SeqCst), n as usize, "{mech}: every callback ran once");
    assert!(errors.lock().unwrap().is_empty(), "{mech}: {:?}", errors.lock().unwrap());

    // Read back with futures, several in flight at once.
    block_on(async {
        for chunk in 0..n / 4 {
            let futs: Vec<_> = (0..4)
                .map(|k| {
                    let i = chunk * 4 + k;
                    q.read(base + i * u64::from(lbas), lbas, dev.alloc_buffer(4096).unwrap())
                })
                .collect();
            for (k, f) in futs.into_iter().enumerate() {
                let (cpl, buf) = f.await.unwrap_or_else(|e| panic!("{mech}: read: {e}"));
                assert_eq!(cpl.status >> 1, 0);
                if mech != "nil" {
                    let mut want = vec![0u8; 4096];
                    pattern(&mut want, (chunk * 4 + k as u64) as u8);
                    assert!(
                        buf[..] == want[..],
                        "{mech}: data of command {}",
                        chunk * 4 + k as u64
                    );
                }
            }
        }
    });
}

#[test]
fn ramdisk_every_mechanism() {
    for (k, mech) in RAMDISK_MECHS.iter().enumerate() {
        let Some(dev) = open_mech("1GB", mech) else { continue };
        assert_eq!(dev.mechanisms().async_mechanism.as_deref(), Some(*mech));
        roundtrip(&dev, 100_000 + k as u64 * 10_000, mech);
    }
}

#[test]
fn file_every_mechanism() {
    let f = TempFile::new("queue", 16 << 20);
    for mech in FILE_MECHS {
        let Some(dev) = open_mech(f.uri(), mech) else { continue };
        assert_eq!(dev.mechanisms().async_mechanism.as_deref(), Some(*mech));
        roundtrip(&dev, 0, mech);
    }
}

#[test]
fn queue_full_hands_the_buffer_back() {
    let dev = Device::open("1GB").unwrap();
    let q = Queue::new(&dev, 2).unwrap();
    assert_eq!(q.capacity(), 2);
    let count = Arc::new(AtomicUsize::new(0));
    let mut accepted = 0;
    let mut refused = None;
    for i in 0..5u64 {
        let c = count.clone();
        match q.read_cb(200_000 + i, 1, dev.alloc_buffer(512).unwrap(), move |r| {
            r.unwrap();
            c.fetch_add(1, Ordering::SeqCst);
        }) {
            Ok(()) => accepted += 1,
            Err(e) => {
                refused = Some(e);
                break;
            }
        }
    }
    let e = refused.expect("a queue of capacity 2 refuses a command before the sixth");
    assert!(matches!(e.error, Error::Errno(_)), "{e}");
    assert_eq!(e.buffer.as_ref().map(|b| b.len()), Some(512));
    q.drain().unwrap();
    assert_eq!(count.load(Ordering::SeqCst), accepted);
}

#[test]
fn nvme_status_through_queue() {
    let dev = Device::open("1GB").unwrap();
    let nsze = dev.identify_namespace().unwrap().nsze;
    let q = Queue::new(&dev, 4).unwrap();
    let err = block_on(q.read(nsze, 1, dev.alloc_buffer(512).unwrap())).unwrap_err();
    assert!(err.error.is_status(0, 0x80), "{err}");
    assert!(err.buffer.is_some(), "the buffer comes back with a status error");

    let got = Arc::new(Mutex::new(None));
    let g = got.clone();
    q.write_cb(nsze + 10, 1, dev.alloc_buffer(512).unwrap(), move |r| {
        *g.lock().unwrap() = Some(r.map(|_| ()).map_err(|e| e.error));
    })
    .unwrap();
    q.drain().unwrap();
    let r = got.lock().unwrap().take().unwrap();
    assert_eq!(r, Err(Error::Status { sct: 0, sc: 0x80, name: "LBA Out of Range" }));

    // Submission-time check: buffer too small.
    let e = block_on(q.read(0, 2, dev.alloc_buffer(512).unwrap())).unwrap_err();
    assert_eq!(e.error, Error::Errno(libc::EINVAL));
    assert!(e.buffer.is_some());
}

#[test]
fn dropped_future_and_dropped_queue() {
    let dev = Device::open("1GB").unwrap();
    let q = Queue::new(&dev, 8).unwrap();
    // A future dropped while in flight: the queue keeps and frees the buffer.
    let f = q.write(300_000, 1, dev.alloc_buffer(512).unwrap());
    drop(f);
    q.drain().unwrap();
    assert_eq!(q.outstanding(), 0);
    // The slot is reusable.
    block_on(q.write(300_001, 1, dev.alloc_buffer(512).unwrap())).unwrap();

    // Dropping a queue with commands outstanding drops their closures uncalled.
    struct Flag(Arc<AtomicUsize>);
    impl Drop for Flag {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let dropped = Arc::new(AtomicUsize::new(0));
    let called = Arc::new(AtomicUsize::new(0));
    for i in 0..4u64 {
        let flag = Flag(dropped.clone());
        let c = called.clone();
        q.write_cb(300_100 + i, 1, dev.alloc_buffer(512).unwrap(), move |_| {
            let _keep = &flag;
            c.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
    }
    drop(q);
    assert_eq!(dropped.load(Ordering::SeqCst), 4);
    assert_eq!(called.load(Ordering::SeqCst), 0);
}

#[test]
fn queue_moves_to_another_thread() {
    let dev = Device::open("1GB").unwrap();
    let q = Queue::new(&dev, 4).unwrap();
    let mut buf = dev.alloc_buffer(512).unwrap();
    buf.fill(0x42);
    let t = std::thread::spawn(move || {
        let (_, buf) = block_on(q.write(400_000, 1, buf)).unwrap();
        let (_, back) = block_on(q.read(400_000, 1, buf)).unwrap();
        back[0]
    });
    assert_eq!(t.join().unwrap(), 0x42);
}

#[test]
fn one_queue_per_thread_on_a_shared_device() {
    let dev = Device::open("1GB").unwrap();
    let hs: Vec<_> = (0..3u64)
        .map(|t| {
            let dev = dev.clone();
            std::thread::spawn(move || {
                let q = Queue::new(&dev, 16).unwrap();
                let n = Arc::new(AtomicUsize::new(0));
                for i in 0..64u64 {
                    let n = n.clone();
                    let mut buf = dev.alloc_buffer(512).unwrap();
                    buf.fill(t as u8);
                    loop {
                        let nn = n.clone();
                        match q.write_cb(500_000 + t * 1000 + i, 1, buf, move |r| {
                            r.unwrap();
                            nn.fetch_add(1, Ordering::SeqCst);
                        }) {
                            Ok(()) => break,
                            Err(e) => {
                                buf = e.buffer.unwrap();
                                q.poke().unwrap();
                            }
                        }
                    }
                    let _ = n;
                }
                q.drain().unwrap();
                n.load(Ordering::SeqCst)
            })
        })
        .collect();
    for h in hs {
        assert_eq!(h.join().unwrap(), 64);
    }
}

#[test]
fn zone_append_through_queue() {
    let dev = Device::open("1GB?csi=zoned").unwrap();
    let zones = dev.zone_report(0, 0).unwrap();
    let z = zones[zones.len() - 1];
    dev.zone_mgmt(z.zslba, xnvme::ZoneAction::Reset, false).unwrap();
    let q = Queue::new(&dev, 4).unwrap();
    let (c1, buf) = block_on(q.append(z.zslba, 2, dev.alloc_buffer(1024).unwrap())).unwrap();
    let (c2, _) = block_on(q.append(z.zslba, 2, buf)).unwrap();
    assert_eq!(c1.result, z.zslba);
    assert_eq!(c2.result, z.zslba + 2);
}
