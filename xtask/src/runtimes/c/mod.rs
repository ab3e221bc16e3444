//! The C ABI (bindings/c): the static and shared library, the generated
//! header, and the C tests. The Go module is built on this library.

pub mod build;
pub mod dist;
pub mod header;
pub mod tests;
