//! With the `xenomai` feature: the binaries find Xenomai's shared libraries where
//! rtlat-xenomai-ffi linked them from (an rpath to `xeno-config --libdir`, which that crate's
//! build script publishes as `DEP_XENOMAI_LIBDIR`), without `LD_LIBRARY_PATH`. Without the
//! feature, nothing.

fn main() {
    println!("cargo::rerun-if-env-changed=XENO_CONFIG");
    if let Ok(libdir) = std::env::var("DEP_XENOMAI_LIBDIR") {
        println!("cargo::rustc-link-arg=-Wl,-rpath,{libdir}");
    }
}
