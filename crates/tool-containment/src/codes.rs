//! The sub-codes of the lines this binary says when it cannot do what was asked (a command runs
//! without ceilings, a ceiling value is refused): the one place that lists them. A code is
//! `<requirement>.<what fired>`; `spec/tool-containment.md` lists each code once (checked by a
//! test below). The second line's own lines (C10) are `crates/second-line`'s.

/// C5: a tasks ceiling (environment or config) is invalid; the minimum or the default is used.
pub const C5_TASKS_INVALID: &str = "C5.tasks-invalid";
/// C5: a memory ceiling (environment or config) is invalid; the minimum or the default is used.
pub const C5_MEMORY_INVALID: &str = "C5.memory-invalid";
/// C6: no backend is usable on this host; the command runs unbounded.
pub const C6_NO_BACKEND: &str = "C6.no-backend";
/// C6: the command's group could not be made or entered; it runs unbounded.
pub const C6_GROUP_FAILED: &str = "C6.group-failed";
/// C6: `systemd-run` could not be executed; the command runs unbounded.
pub const C6_SYSTEMD_RUN_FAILED: &str = "C6.systemd-run-failed";

/// Every code, once.
pub const ALL: &[&str] = &[
    C5_TASKS_INVALID,
    C5_MEMORY_INVALID,
    C6_NO_BACKEND,
    C6_GROUP_FAILED,
    C6_SYSTEMD_RUN_FAILED,
];

#[cfg(test)]
mod tests {
    #[test]
    fn the_spec_lists_each_code_once() {
        let spec = include_str!("../../../spec/tool-containment.md");
        let problems = safety_kernel::feedback::code_table_problems(spec, super::ALL);
        assert!(problems.is_empty(), "{problems:?}");
    }
}
