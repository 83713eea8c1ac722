//! Scratch crate: G6/G7 developed here until the gh-write-guard skeleton exists.
pub mod g6_git2_world;
pub mod g6_primary_checkout;
pub mod g7_wait_loops;
pub mod git_alias;
