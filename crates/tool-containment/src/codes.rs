//! The sub-codes of the lines this binary says when it cannot do what was asked (a command runs
//! without ceilings, a ceiling value is refused): the one place that lists them. A code is
//! `<requirement>.<what fired>`; `spec/tool-containment.md` lists each code once (checked by
//! the test `safety_kernel::codes!` declares). The second line's own lines (C10) are
//! `crates/second-line`'s.

safety_kernel::codes! {
    spec: "../../../spec/tool-containment.md";
    /// C5: a tasks ceiling (environment or config) is invalid; the minimum or the default is used.
    C5_TASKS_INVALID = "C5.tasks-invalid";
    /// C5: a memory ceiling (environment or config) is invalid; the minimum or the default is used.
    C5_MEMORY_INVALID = "C5.memory-invalid";
    /// C6: no backend is usable on this host; the command runs unbounded.
    C6_NO_BACKEND = "C6.no-backend";
    /// C6: the command's group could not be made or entered; it runs unbounded.
    C6_GROUP_FAILED = "C6.group-failed";
    /// C6: `systemd-run` could not be executed; the command runs unbounded.
    C6_SYSTEMD_RUN_FAILED = "C6.systemd-run-failed";
}
