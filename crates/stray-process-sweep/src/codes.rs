//! The sub-codes of the failure lines a report carries (S3: loud failures). A code is
//! `S3.<what failed>`, said in the line's parentheses (`stray-process-sweep (S3.incomplete) COULD
//! NOT COMPLETE: ...`). The sweep never refuses anything; these say what it could not do. The one
//! place that lists them is the code table of `spec/stray-process-sweep.md`: the build makes a
//! constant of each row (`S3.incomplete` → `S3_INCOMPLETE`).

// The constants, `ALL` and `requirement`: see `fixture_embed::code_table`.
include!(concat!(env!("OUT_DIR"), "/codes.rs"));
