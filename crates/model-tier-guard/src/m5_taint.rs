//! M5's input: recording taint at the source (K5) on PostToolUse of the tools that read
//! untrusted content, through the shared `taint` crate. The maintainer's own owner (for `gh` and
//! `git` reads) is the owner of the `origin` remote of the repository the session works in.
//! (The lookup itself lives in the shared `taint` crate, so integrity-signals records taint with
//! the same owner.)
pub use taint::origin_owner;
