//! The one integration-test binary: each module covers one capability through the CLI, in
//! real temp git repositories, asserting exact bytes.

mod common;
mod suite;
