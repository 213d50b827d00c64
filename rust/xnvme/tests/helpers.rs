//! Zoned, FDP and key-value helpers on the ramdisk's namespaces.
mod common;

use common::pattern;
use xnvme::{Device, Error, GeometryKind, KvStoreMode, ZoneAction, ZoneState};

#[test]
fn zoned() {
    let dev = Device::open("1GB?csi=zoned,zsze=4096,zcap=3072,mor=4,mar=6").unwrap();
    let geo = dev.geometry();
    assert_eq!(geo.kind, GeometryKind::Zoned);
    assert_eq!(dev.csi(), 2);
    assert_eq!(geo.nsect, 4096);
    let zones = dev.zone_report(0, 0).unwrap();
    assert_eq!(zones.len() as u32, geo.nzone);
    let z0 = zones[0];
    assert_eq!((z0.zslba, z0.zcap, z0.zone_type), (0, 3072, 2));
    dev.zone_mgmt(0, ZoneAction::Reset, true).unwrap();
    let z = dev.zone_report(0, 1).unwrap()[0];
    assert_eq!((z.state, z.wp), (ZoneState::Empty, 0));

    // Sequential writes move the write pointer; a write elsewhere is refused.
    let mut buf = dev.alloc_buffer(8 * 512).unwrap();
    pattern(&mut buf, 5);
    dev.write(0, 8, &buf).unwrap();
    let z = dev.zone_report(0, 1).unwrap()[0];
    assert_eq!((z.state, z.wp), (ZoneState::ImplicitlyOpened, 8));
    let err = dev.write(100, 8, &buf).unwrap_err();
    assert_eq!(err, Error::Status { sct: 1, sc: 0xBC, name: "Zone Invalid Write" });

    // Append returns the LBA written; the data reads back.
    let lba = dev.zone_append(0, 8, &buf).unwrap();
    assert_eq!(lba, 8);
    let mut back = dev.alloc_buffer(8 * 512).unwrap();
    dev.read(8, 8, &mut back).unwrap();
    assert_eq!(&back[..], &buf[..]);

    // Explicit open, close, finish; a full zone refuses writes.
    dev.zone_mgmt(4096, ZoneAction::Open, false).unwrap();
    assert_eq!(dev.zone_report(4096, 1).unwrap()[0].state, ZoneState::ExplicitlyOpened);
    dev.zone_mgmt(4096, ZoneAction::Close, false).unwrap();
    assert_eq!(dev.zone_report(4096, 1).unwrap()[0].state, ZoneState::Closed);
    dev.zone_mgmt(0, ZoneAction::Finish, false).unwrap();
    let z = dev.zone_report(0, 1).unwrap()[0];
    assert_eq!(z.state, ZoneState::Full);
    assert_eq!(z.wp, z.zslba + z.zcap);
    let err = dev.zone_append(0, 1, &buf).unwrap_err();
    assert!(err.is_status(1, 0xB9), "{err}");
    dev.zone_mgmt(0, ZoneAction::Reset, true).unwrap();
    assert_eq!(dev.zone_report(0, 1).unwrap()[0].state, ZoneState::Empty);
}

#[test]
fn fdp() {
    let dev = Device::open("1GB?fdp=1,nruh=4,runs=1M").unwrap();
    assert!(dev.fdp_enabled().unwrap());
    let before = dev.fdp_ruh_status().unwrap();
    assert_eq!(before.len(), 4);
    assert_eq!(before[1].pid, 1);
    let buf = dev.alloc_buffer(16 * 512).unwrap();
    dev.write_placed(0, 16, &buf, 1).unwrap();
    let after = dev.fdp_ruh_status().unwrap();
    assert_eq!(after[1].ruamw, before[1].ruamw - 16, "handle 1 was charged");
    assert_eq!(after[2].ruamw, before[2].ruamw, "handle 2 was not");

    // Without FDP: the feature is Invalid Field.
    let plain = Device::open("1GB").unwrap();
    let err = plain.fdp_enabled().unwrap_err();
    assert!(err.is_status(0, 0x02), "{err}");
}

#[test]
fn key_value() {
    let dev = Device::open("1GB?csi=kv").unwrap();
    assert_eq!(dev.geometry().kind, GeometryKind::KeyValue);
    let mut val = dev.alloc_buffer(100).unwrap();
    pattern(&mut val, 7);
    dev.kv_store(b"alpha", &val, KvStoreMode::Any).unwrap();
    dev.kv_store(b"beta", &val, KvStoreMode::OnlyAdd).unwrap();
    assert!(dev.kv_exists(b"alpha").unwrap());
    assert!(!dev.kv_exists(b"gamma").unwrap());

    let mut out = dev.alloc_buffer(4096).unwrap();
    let n = dev.kv_retrieve(b"alpha", &mut out).unwrap();
    assert_eq!(n, 100);
    assert_eq!(&out[..100], &val[..]);

    let err = dev.kv_store(b"alpha", &val, KvStoreMode::OnlyAdd).unwrap_err();
    assert_eq!(err, Error::Status { sct: 0, sc: 0x89, name: "Key Exists" });
    let err = dev.kv_store(b"gamma", &val, KvStoreMode::OnlyUpdate).unwrap_err();
    assert!(err.is_status(0, 0x87), "{err}");

    assert_eq!(dev.kv_list(b"").unwrap(), vec![b"alpha".to_vec(), b"beta".to_vec()]);
    assert_eq!(dev.kv_list(b"b").unwrap(), vec![b"beta".to_vec()]);

    dev.kv_delete(b"alpha").unwrap();
    assert!(!dev.kv_exists(b"alpha").unwrap());
    let err = dev.kv_retrieve(b"alpha", &mut out).unwrap_err();
    assert!(err.is_status(0, 0x87), "{err}");
    assert_eq!(dev.kv_exists(b"").unwrap_err(), Error::Errno(libc::EINVAL));
    assert_eq!(dev.kv_exists(&[0u8; 17]).unwrap_err(), Error::Errno(libc::EINVAL));
}

#[test]
fn zone_report_in_chunks() {
    // 32768 zones: more than one report transfer holds.
    let dev = Device::open("1GB?csi=zoned,zsze=64").unwrap();
    let geo = dev.geometry();
    assert_eq!(geo.nzone, 32768);
    let zones = dev.zone_report(0, 0).unwrap();
    assert_eq!(zones.len(), 32768);
    assert!(zones.windows(2).all(|w| w[1].zslba == w[0].zslba + 64));
    let tail = dev.zone_report(64 * 32760, 0).unwrap();
    assert_eq!(tail.len(), 8);
    assert_eq!(dev.zone_report(64 * 100, 3).unwrap()[2].zslba, 64 * 102);
}
