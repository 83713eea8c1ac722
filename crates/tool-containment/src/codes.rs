//! The sub-codes of the lines this binary says when it cannot do what was asked (a command runs
//! without ceilings, a ceiling value is refused). A code is `<requirement>.<what fired>`. The one
//! place that lists them is the code table of `spec/tool-containment.md`: the build makes a
//! constant of each row (`C6.no-backend` → `C6_NO_BACKEND`). The second line's own lines (C10) are
//! `crates/second-line`'s.

// The constants, `ALL` and `requirement`: see `fixture_embed::code_table`.
include!(concat!(env!("OUT_DIR"), "/codes.rs"));
