//! The `async` feature: queue futures awaited on tokio.
#![cfg(feature = "async")]
mod common;

use common::{open_mech, pattern, TempFile};
use xnvme::{Device, Queue};

async fn write_read_many(dev: &Device, q: &Queue, base: u64) {
    let lbas = 4096 / dev.geometry().lba_nbytes;
    let mut bufs = Vec::new();
    for i in 0..4u64 {
        let mut b = dev.alloc_buffer(4096).unwrap();
        pattern(&mut b, i as u8 + 40);
        bufs.push(b);
    }
    let w: Vec<_> = bufs
        .into_iter()
        .enumerate()
        .map(|(i, b)| q.write(base + i as u64 * u64::from(lbas), lbas, b))
        .collect();
    let (a, b) = tokio::join!(
        async {
            for f in w {
                f.await.unwrap();
            }
        },
        tokio::task::yield_now()
    );
    let _ = (a, b);
    for i in 0..4u64 {
        let (_, got) = q
            .read(base + i * u64::from(lbas), lbas, dev.alloc_buffer(4096).unwrap())
            .await
            .unwrap();
        let mut want = vec![0u8; 4096];
        pattern(&mut want, i as u8 + 40);
        assert_eq!(&got[..], &want[..]);
    }
}

#[test]
fn tokio_ramdisk_polls() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_io().build().unwrap();
    let dev = Device::open("1GB").unwrap();
    let q = Queue::new(&dev, 8).unwrap();
    rt.block_on(async {
        assert!(!q.uses_completion_fd(), "thrpool has no completion fd");
        write_read_many(&dev, &q, 600_000).await;
        let err =
            q.read(dev.geometry().nlbas(), 1, dev.alloc_buffer(512).unwrap()).await.unwrap_err();
        assert!(err.error.is_status(0, 0x80));
    });
}

#[test]
fn tokio_file_completion_fd() {
    let f = TempFile::new("tokio", 4 << 20);
    let rt = tokio::runtime::Builder::new_current_thread().enable_io().build().unwrap();
    for mech in ["io_uring", "libaio", "thrpool", "posix"] {
        let Some(dev) = open_mech(f.uri(), mech) else { continue };
        let q = match Queue::new(&dev, 8) {
            Ok(q) => q,
            Err(e) if common::unavailable(&e) => {
                common::skip(&format!("tokio queue {mech}"), &e);
                continue;
            }
            Err(e) => panic!("{mech}: {e}"),
        };
        rt.block_on(async {
            let has_fd = q.uses_completion_fd();
            if mech == "io_uring" || mech == "libaio" {
                assert!(has_fd, "{mech} has a completion fd");
            } else {
                assert!(!has_fd, "{mech} has none");
            }
            write_read_many(&dev, &q, 0).await;
        });
    }
}

#[test]
fn tokio_local_set_tasks() {
    // Each task owns its queue on a shared device.
    let rt = tokio::runtime::Builder::new_current_thread().enable_io().build().unwrap();
    let dev = Device::open("1GB").unwrap();
    let local = tokio::task::LocalSet::new();
    local.block_on(&rt, async {
        let mut hs = Vec::new();
        for t in 0..3u64 {
            let dev = dev.clone();
            hs.push(tokio::task::spawn_local(async move {
                let q = Queue::new(&dev, 4).unwrap();
                write_read_many(&dev, &q, 700_000 + t * 100).await;
            }));
        }
        for h in hs {
            h.await.unwrap();
        }
    });
}
