//! The WebAssembly package (bindings/wasm): its toolchain, its build
//! (cargo → wasm-bindgen → wasm-opt) and size, its tests, and the two targets
//! that run it: in Node and in a real headless Chromium.

pub mod adapter;
pub mod browser;
pub mod build;
pub mod setup;
pub mod tests;

pub const PACKAGE: &str = "bindings/wasm";
