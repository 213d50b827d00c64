//! Synchronous commands, identify, geometry, errors and lifetimes on the ramdisk and a file.
mod common;

use common::{pattern, TempFile};
use xnvme::{Device, Error, GeometryKind, OpenOptions};

// Tests run in parallel on the shared "1GB" ramdisk: each uses its own LBA range.

#[test]
fn ramdisk_write_read_compare() {
    let dev = Device::open("1GB").unwrap();
    let mut wbuf = dev.alloc_buffer(64 * 512).unwrap();
    pattern(&mut wbuf, 3);
    dev.write(1000, 64, &wbuf).unwrap();
    let mut rbuf = dev.alloc_buffer(64 * 512).unwrap();
    let cpl = dev.read(1000, 64, &mut rbuf).unwrap();
    assert_eq!(cpl.status >> 1, 0);
    assert_eq!(&wbuf[..], &rbuf[..]);
    dev.write_zeroes(1000, 64).unwrap();
    dev.read(1000, 64, &mut rbuf).unwrap();
    assert!(rbuf.iter().all(|&b| b == 0));
    dev.flush().unwrap();
}

#[test]
fn file_write_read_compare() {
    let f = TempFile::new("sync", 8 << 20);
    let dev = Device::open(f.uri()).unwrap();
    let geo = dev.geometry();
    assert_eq!(geo.tbytes, 8 << 20);
    let n = 16384 / geo.lba_nbytes;
    let mut wbuf = dev.alloc_buffer(16384).unwrap();
    pattern(&mut wbuf, 9);
    dev.write(4, n, &wbuf).unwrap();
    let mut rbuf = dev.alloc_buffer(16384).unwrap();
    dev.read(4, n, &mut rbuf).unwrap();
    assert_eq!(&wbuf[..], &rbuf[..]);
    drop(dev);
    // The data is in the file at slba * lba size.
    let bytes = std::fs::read(&f.0).unwrap();
    let off = 4 * geo.lba_nbytes as usize;
    assert_eq!(&bytes[off..off + 16384], &wbuf[..]);
}

#[test]
fn file_created_by_open() {
    let f = TempFile::new("create", 0);
    std::fs::remove_file(&f.0).unwrap();
    let dev =
        Device::open_with(f.uri(), &OpenOptions::new().create(true).create_mode(0o600)).unwrap();
    assert!(f.0.exists());
    assert_eq!(dev.mechanisms().backend.as_deref(), Some("linux"));
}

#[test]
fn geometry_and_identify() {
    let dev = Device::open("1GB").unwrap();
    let geo = dev.geometry();
    assert_eq!(geo.kind, GeometryKind::Conventional);
    assert_eq!(geo.nbytes, 512);
    assert_eq!(geo.lba_nbytes, 512);
    assert_eq!(geo.tbytes, 1 << 30);
    assert_eq!(geo.ssw, 9);
    assert!(geo.mdts_nbytes >= 4096);
    assert_eq!(dev.nsid(), 1);
    assert_eq!(dev.csi(), 0);
    let id = dev.ident();
    assert_eq!(id.uri, "1GB");
    assert_eq!(id.nsid, 1);
    assert_eq!(dev.mechanisms().backend.as_deref(), Some("ramdisk"));

    let c = dev.identify_controller().unwrap();
    assert!(!c.model.is_empty(), "model number");
    assert!(!c.serial.is_empty(), "serial number");
    assert!(c.nn >= 1);
    let ns = dev.identify_namespace().unwrap();
    assert_eq!(ns.nsze, geo.nlbas());
    assert_eq!(ns.nsze, (1u64 << 30) / 512);
    assert!(ns.ncap <= ns.nsze);
    assert_eq!(ns.current_lbaf().unwrap().lbads, 9);
    assert_eq!(ns.current_lbaf().unwrap().ms, 0);

    // The same data through an Identify command.
    let mut buf = dev.alloc_buffer(4096).unwrap();
    dev.identify(0x01, 0, 0, &mut buf).unwrap();
    assert_eq!(&buf[..], &c.raw[..]);
    dev.identify(0x00, 1, 0, &mut buf).unwrap();
    assert_eq!(u64::from_le_bytes(buf[0..8].try_into().unwrap()), ns.nsze);
}

#[test]
fn four_k_lbas() {
    let dev = Device::open("1GB?lbads=12").unwrap();
    let geo = dev.geometry();
    assert_eq!(geo.nbytes, 4096);
    assert_eq!(geo.ssw, 12);
    assert_eq!(dev.identify_namespace().unwrap().current_lbaf().unwrap().lbads, 12);
    let mut buf = dev.alloc_buffer(8192).unwrap();
    pattern(&mut buf, 1);
    dev.write(10, 2, &buf).unwrap();
    let mut back = dev.alloc_buffer(8192).unwrap();
    dev.read(10, 2, &mut back).unwrap();
    assert_eq!(&buf[..], &back[..]);
    // Two 4 KiB LBAs do not fit into 4 KiB.
    let mut small = dev.alloc_buffer(4096).unwrap();
    assert_eq!(dev.read(10, 2, &mut small).unwrap_err(), Error::Errno(libc::EINVAL));
}

#[test]
fn lba_out_of_range_is_an_nvme_status() {
    let dev = Device::open("1GB").unwrap();
    let nsze = dev.identify_namespace().unwrap().nsze;
    let mut buf = dev.alloc_buffer(2 * 512).unwrap();
    let err = dev.read(nsze, 1, &mut buf).unwrap_err();
    assert_eq!(err, Error::Status { sct: 0, sc: 0x80, name: "LBA Out of Range" });
    assert!(err.is_status(0, 0x80));
    assert_eq!(err.errno(), None);
    // Straddling the end too.
    let err = dev.write(nsze - 1, 2, &buf).unwrap_err();
    assert!(err.is_status(0, 0x80), "{err}");
    assert!(err.to_string().contains("LBA Out of Range"));

    let f = TempFile::new("oor", 1 << 20);
    let fdev = Device::open(f.uri()).unwrap();
    let nlbas = fdev.geometry().nlbas();
    let mut fbuf = fdev.alloc_buffer(fdev.geometry().lba_nbytes as usize).unwrap();
    let err = fdev.read(nlbas, 1, &mut fbuf).unwrap_err();
    assert!(err.is_status(0, 0x80), "{err}");
}

#[test]
fn errno_errors() {
    // A known mechanism this build does not contain.
    let e = Device::open_with("1GB", &OpenOptions::new().backend("spdk")).unwrap_err();
    assert_eq!(e, Error::Errno(libc::ENOSYS));
    // A bad ramdisk option.
    let e = Device::open("1GB?csi=bogus").unwrap_err();
    assert_eq!(e, Error::Errno(libc::EINVAL));
    // A missing file.
    let e = Device::open("/nonexistent/dir/file").unwrap_err();
    assert!(matches!(e, Error::Errno(_)), "{e:?}");
    let io: std::io::Error = e.into();
    assert!(io.raw_os_error().is_some());

    let dev = Device::open("1GB").unwrap();
    let mut buf = dev.alloc_buffer(512).unwrap();
    assert_eq!(dev.read(0, 0, &mut buf).unwrap_err(), Error::Errno(libc::EINVAL));
    assert_eq!(dev.read(0, 2, &mut buf).unwrap_err(), Error::Errno(libc::EINVAL));
    assert_eq!(dev.alloc_buffer(0).unwrap_err(), Error::Errno(libc::EINVAL));
    // A buffer of another device.
    let other = Device::open("1GB").unwrap();
    let mut obuf = other.alloc_buffer(512).unwrap();
    assert_eq!(dev.read(0, 1, &mut obuf).unwrap_err(), Error::Errno(libc::EXDEV));
}

#[test]
fn admin_features_and_logs() {
    let dev = Device::open("1GB").unwrap();
    // Number of Queues (0x07) is answered.
    dev.get_feature(0x07, 0, 0).unwrap();
    // SMART / health log.
    let mut log = dev.alloc_buffer(512).unwrap();
    dev.get_log_page(0x02, 0xFFFF_FFFF, &mut log).unwrap();
    // An opcode the controller does not know.
    // SAFETY: no data.
    let err = unsafe { dev.admin_raw(&xnvme::Command::new(0xC7, 0), None) }.unwrap_err();
    assert!(matches!(err, Error::Status { .. }), "{err:?}");
}

#[test]
fn buffers_and_queues_outlive_the_device() {
    let dev = Device::open("1GB").unwrap();
    let mut buf = dev.alloc_buffer(512).unwrap();
    let q = xnvme::Queue::new(&dev, 4).unwrap();
    drop(dev);
    // Both still work: they keep the handle open.
    buf[0] = 0x5A;
    let dev2 = buf.device();
    dev2.write(2000, 1, &buf).unwrap();
    let (_, back) = xnvme::block_on(q.read(2000, 1, buf)).unwrap();
    assert_eq!(back[0], 0x5A);
    drop(dev2);
    drop(q);
    assert_eq!(back[0], 0x5A);
    drop(back); // closes the handle
}

#[test]
fn device_shared_by_threads() {
    let dev = Device::open("1GB").unwrap();
    let handles: Vec<_> = (0..4u64)
        .map(|t| {
            let dev = dev.clone();
            std::thread::spawn(move || {
                let mut w = dev.alloc_buffer(4096).unwrap();
                let mut r = dev.alloc_buffer(4096).unwrap();
                for i in 0..50u64 {
                    pattern(&mut w, (t * 50 + i) as u8);
                    let slba = 3000 + t * 1000 + i * 8;
                    dev.write(slba, 8, &w).unwrap();
                    dev.read(slba, 8, &mut r).unwrap();
                    assert_eq!(&w[..], &r[..]);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn status_names() {
    assert_eq!(xnvme::status_name(0, 0x80), "LBA Out of Range");
    assert_eq!(xnvme::status_name(1, 0xB9), "Zone Is Full");
    assert_eq!(xnvme::status_name(6, 0x00), "Unknown Status");
}
