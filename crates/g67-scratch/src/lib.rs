//! Scratch crate: G7 (and later G6) developed here until the gh-write-guard skeleton exists.
pub mod g7_wait_loops;
