//! The sub-codes of the failure lines a report carries (S3: loud failures): the one place that
//! lists them. A code is `S3.<what failed>`, said in the line's parentheses
//! (`stray-process-sweep (S3.incomplete) COULD NOT COMPLETE: ...`). The sweep never refuses
//! anything; these say what it could not do. `spec/stray-process-sweep.md` lists each code once
//! (checked by the test `safety_kernel::codes!` declares).

safety_kernel::codes! {
    spec: "../../../spec/stray-process-sweep.md";
    /// The sweep could not complete: the process table unreadable, the agent not found, the deadline.
    S3_INCOMPLETE = "S3.incomplete";
    /// The hook itself failed (a panic, unreadable input, the watchdog).
    S3_HOOK_FAILED = "S3.hook-failed";
    /// The report's JSON copy could not be stored.
    S3_NOT_STORED = "S3.not-stored";
    /// There is no state dir (neither `XDG_STATE_HOME` nor `HOME`) to store the copy in.
    S3_NO_STATE_DIR = "S3.no-state-dir";
}
