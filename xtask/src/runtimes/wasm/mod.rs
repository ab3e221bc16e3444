//! The WebAssembly package (bindings/wasm): its toolchain, its build
//! (cargo → wasm-bindgen → wasm-opt) and size, its tests, the two targets
//! that run it (in Node and in a real headless Chromium), its benchmark in
//! both, and its npm tarball.

pub mod adapter;
pub mod bench;
pub mod browser;
pub mod build;
pub mod dist;
pub mod setup;
pub mod tests;

pub const PACKAGE: &str = "bindings/wasm";
