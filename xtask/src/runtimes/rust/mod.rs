//! The core crate itself: the `rust` target's in-process adapter and the
//! core's criterion benchmarks.

pub mod adapter;
pub mod bench;
