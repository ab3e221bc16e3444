//! The shared library's SONAME: what a program linked against the installed
//! `libemqid.so` (libemqid-dev) asks the loader for, so an incompatible
//! release is never picked up by mistake. `libemqid.so.<major>`, and while the
//! major is 0, `libemqid.so.0.<minor>`: in semver a 0.x minor release may
//! break. (xtask's `runtimes/c/build.rs` holds the same rule and checks it.)

fn main() {
    let var = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("cargo sets {name}"));
    let (major, minor) = (var("CARGO_PKG_VERSION_MAJOR"), var("CARGO_PKG_VERSION_MINOR"));
    let soname = if major == "0" { format!("libemqid.so.0.{minor}") } else { format!("libemqid.so.{major}") };
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
    }
}
