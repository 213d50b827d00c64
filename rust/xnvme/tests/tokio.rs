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

/// tests/tcp_target_serve (path in `XNVME_TCP_TARGET_SERVE`, set by scripts/test.sh): a test
/// NVMe/TCP target on the loopback, stopped on drop.
struct TcpTarget {
    child: std::process::Child,
    addr: String,
}

impl TcpTarget {
    /// None (with a SKIP line) when the variable is unset or names no file.
    fn start() -> Option<TcpTarget> {
        use std::io::BufRead;
        let exe = std::env::var_os("XNVME_TCP_TARGET_SERVE").unwrap_or_default();
        if !std::path::Path::new(&exe).is_file() {
            common::skip("tcp target", &format!("XNVME_TCP_TARGET_SERVE={exe:?}: no such file"));
            return None;
        }
        let mut child = std::process::Command::new(&exe)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}", exe.to_string_lossy()));
        let mut addr = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut addr).unwrap();
        let addr = addr.trim().to_string();
        assert!(!addr.is_empty(), "tcp_target_serve printed no address");
        Some(TcpTarget { child, addr })
    }
}

impl Drop for TcpTarget {
    fn drop(&mut self) {
        // End of file on stdin stops it; after a failure a client may still hold it: kill.
        drop(self.child.stdin.take());
        for _ in 0..100 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `tcp` completion fd is an epoll fd, not an eventfd. On a multi-thread runtime the
/// reactor runs on a worker while the task polls, so readiness can be recorded between a
/// future's poke and its wait; a wait that consumed that readiness without poking again would
/// leave the completion unreaped and the future asleep until some later event (here the
/// command-timeout timer, 30 s on): with one command in flight nothing else comes. Thousands
/// of one-command round trips make that window likely; a watchdog fails a round trip that
/// takes 10 s.
#[test]
fn tokio_tcp_completion_fd_wakeups() {
    let Some(target) = TcpTarget::start() else { return };
    let uri = format!("{}?subnqn=nqn.2024-01.io.xnvme:fdwait", target.addr);
    const ROUNDS: u64 = 4000;
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = std::thread::spawn(move || {
        let dev = Device::open_with(&uri, &xnvme::OpenOptions::new().backend("tcp")).unwrap();
        let q = Queue::new(&dev, 8).unwrap();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_io()
            .build()
            .unwrap();
        rt.block_on(async {
            assert!(q.uses_completion_fd(), "tcp has a completion fd");
            let n = dev.geometry().lba_nbytes as usize;
            for i in 0..ROUNDS {
                let slba = (i * 7) % 4096;
                let mut b = dev.alloc_buffer(n).unwrap();
                pattern(&mut b, i as u8);
                q.write(slba, 1, b).await.unwrap();
                let (_, got) = q.read(slba, 1, dev.alloc_buffer(n).unwrap()).await.unwrap();
                let mut want = vec![0u8; n];
                pattern(&mut want, i as u8);
                assert_eq!(&got[..], &want[..], "round trip {i}");
                let _ = tx.send(i + 1); // rounds done; the watchdog may have given up
            }
            write_read_many(&dev, &q, 8192).await;
        });
        drop(q);
        let _ = tx.send(ROUNDS + 1);
    });
    let mut done = 0;
    while done <= ROUNDS {
        match rx.recv_timeout(std::time::Duration::from_secs(10)) {
            Ok(n) => done = n,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                panic!("tcp: {done} of {ROUNDS} round trips done, then none for 10 s: lost wakeup")
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                std::panic::resume_unwind(worker.join().unwrap_err())
            }
        }
    }
    worker.join().unwrap();
}
