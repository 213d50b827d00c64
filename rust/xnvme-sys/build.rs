//! Finds libxnvme through pkg-config (module `xnvme`) and links it.
//!
//! With the `regenerate` feature it also runs bindgen over `wrapper.h` with the include paths
//! pkg-config reports, writing `$OUT_DIR/bindings.rs`; `tests/bindings_current.rs` compares that
//! file with the committed `src/bindings.rs`. Set `XNVME_SYS_WRITE_BINDINGS=1` to copy the fresh
//! output over `src/bindings.rs`.

fn main() {
    println!("cargo:rerun-if-changed=wrapper.h");
    println!("cargo:rerun-if-env-changed=XNVME_SYS_WRITE_BINDINGS");
    let lib = match pkg_config::Config::new().atleast_version("0.7").probe("xnvme") {
        Ok(lib) => lib,
        Err(e) => {
            // docs.rs and similar builders have no libxnvme; the bindings are committed, so
            // only linking is impossible there.
            if std::env::var_os("DOCS_RS").is_some() {
                return;
            }
            panic!(
                "libxnvme not found through pkg-config (module `xnvme`): {e}\n\
                 Install libxnvme and set PKG_CONFIG_PATH to its lib/pkgconfig directory."
            );
        }
    };
    #[cfg(feature = "regenerate")]
    regenerate(&lib);
    #[cfg(not(feature = "regenerate"))]
    let _ = lib;
}

#[cfg(feature = "regenerate")]
fn regenerate(lib: &pkg_config::Library) {
    use std::path::PathBuf;
    let mut builder = bindgen::Builder::default()
        .header("wrapper.h")
        .allowlist_function("xnvme_.*")
        .allowlist_type("xnvme_.*")
        .allowlist_var("XNVME_.*|xnvme_.*")
        // Comments change with documentation edits; the check is about the ABI only.
        .generate_comments(false)
        .layout_tests(true)
        .derive_default(true)
        .prepend_enum_name(false)
        .use_core()
        .formatter(bindgen::Formatter::Prettyplease);
    for path in &lib.include_paths {
        builder = builder.clang_arg(format!("-I{}", path.display()));
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let bindings = builder.generate().expect("bindgen failed on wrapper.h");
    let text = bindings.to_string();
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("bindings.rs");
    std::fs::write(&out, &text).unwrap();
    if std::env::var_os("XNVME_SYS_WRITE_BINDINGS").is_some() {
        std::fs::write("src/bindings.rs", &text).unwrap();
    }
}
