//! The sub-codes of the failure lines a report carries (S3: loud failures): the one place that
//! lists them. A code is `S3.<what failed>`, said in the line's parentheses
//! (`stray-process-sweep (S3.incomplete) COULD NOT COMPLETE: ...`). The sweep never refuses
//! anything; these say what it could not do. `spec/stray-process-sweep.md` lists each code once
//! (checked by a test below).

/// The sweep could not complete: the process table unreadable, the agent not found, the deadline.
pub const S3_INCOMPLETE: &str = "S3.incomplete";
/// The hook itself failed (a panic, unreadable input, the watchdog).
pub const S3_HOOK_FAILED: &str = "S3.hook-failed";
/// The report's JSON copy could not be stored.
pub const S3_NOT_STORED: &str = "S3.not-stored";
/// There is no state dir (neither `XDG_STATE_HOME` nor `HOME`) to store the copy in.
pub const S3_NO_STATE_DIR: &str = "S3.no-state-dir";

/// Every code, once.
pub const ALL: &[&str] = &[
    S3_INCOMPLETE,
    S3_HOOK_FAILED,
    S3_NOT_STORED,
    S3_NO_STATE_DIR,
];

#[cfg(test)]
mod tests {
    #[test]
    fn the_spec_lists_each_code_once() {
        let spec = include_str!("../../../spec/stray-process-sweep.md");
        for code in super::ALL {
            let rows = spec.matches(&format!("| `{code}` |")).count();
            assert_eq!(rows, 1, "{code} has {rows} rows in the spec's code table");
        }
    }
}
