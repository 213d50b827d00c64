//! With the `regenerate` feature: the committed bindings equal bindgen's output for the
//! installed headers. Update with `XNVME_SYS_WRITE_BINDINGS=1 cargo build -p xnvme-sys
//! --features regenerate`.
#[cfg(feature = "regenerate")]
#[test]
fn committed_bindings_match_headers() {
    let fresh = include_str!(concat!(env!("OUT_DIR"), "/bindings.rs"));
    let committed = include_str!("../src/bindings.rs");
    assert!(
        fresh == committed,
        "src/bindings.rs is out of date with the installed headers; regenerate it with \
         XNVME_SYS_WRITE_BINDINGS=1 cargo build -p xnvme-sys --features regenerate"
    );
}
