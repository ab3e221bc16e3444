//! Files of the tree that are generated or checked against their sources:
//! the shared JavaScript layer's copies in both npm packages ([`js`]), the
//! API parity table in the book's API index ([`parity`]), the book's examples,
//! run as written ([`readme`]), and the performance page's summary and charts,
//! drawn from its benchmark tables ([`performance`]). The C header, generated from the C crate, is
//! in its runtime's room (`runtimes::c::header`); the vector file in `vectors`.

pub mod cli_reference;
pub mod docs;
pub mod fences;
pub mod js;
pub mod markdown_links;
pub mod parity;
pub mod performance;
pub mod readme;
pub mod rustdoc_examples;
pub mod transcripts;
