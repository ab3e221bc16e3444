//! The shared library's SONAME, `libemqid.so.<major>`: what a program linked
//! against the installed `libemqid.so` (libemqid-dev) asks the loader for, so
//! an incompatible major version is never picked up by mistake.

fn main() {
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").expect("cargo sets CARGO_PKG_VERSION_MAJOR");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libemqid.so.{major}");
    }
}
