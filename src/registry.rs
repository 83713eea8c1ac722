//! What the suite registers: one row per (binary, event, matcher).
//!
//! The installer, the plugin layout and the installation report all read this table, so a binary
//! that lands adds its rows here once.

/// One hook registration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Registration {
    pub binary: &'static str,
    pub event: &'static str,
    pub matcher: Option<&'static str>,
    pub args: &'static [&'static str],
    /// Seconds; `None` leaves the CLI's default for the event.
    pub timeout: Option<u64>,
}

/// The binaries the installer stages and self-tests, in install order.
pub const BINARIES: &[&str] = &["egress-audit"];

/// The hooks registered today.
pub const REGISTRATIONS: &[Registration] = &[
    Registration {
        binary: "egress-audit",
        event: "Stop",
        matcher: None,
        args: &[],
        timeout: Some(10),
    },
    Registration {
        binary: "egress-audit",
        event: "SubagentStop",
        matcher: None,
        args: &[],
        timeout: Some(10),
    },
];
