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
pub const BINARIES: &[&str] = &[
    "gh-write-guard",
    "egress-audit",
    "model-tier-guard",
    "tool-containment",
    "stray-process-sweep",
    "integrity-signals",
];

/// The admin binary, installed beside the hooks (report, uninstall, explain from anywhere).
pub const ADMIN_BINARY: &str = "agent-guards";

/// The binary that is also `CLAUDE_CODE_SHELL_PREFIX` where a containment backend works.
pub const SHELL_PREFIX_BINARY: &str = "tool-containment";

/// SessionEnd hooks share 1.5 s unless a settings file declares more; ours need more on a busy host.
const SESSION_END_TIMEOUT: Option<u64> = Some(30);

const fn reg(
    binary: &'static str,
    event: &'static str,
    matcher: Option<&'static str>,
    timeout: Option<u64>,
) -> Registration {
    Registration {
        binary,
        event,
        matcher,
        args: &[],
        timeout,
    }
}

/// The hooks registered today.
pub const REGISTRATIONS: &[Registration] = &[
    reg("gh-write-guard", "PreToolUse", Some("Bash"), Some(10)),
    reg("egress-audit", "Stop", None, Some(10)),
    reg("egress-audit", "SubagentStop", None, Some(10)),
    reg(
        "model-tier-guard",
        "PreToolUse",
        Some("Agent|Task"),
        Some(10),
    ),
    reg("model-tier-guard", "PreToolUse", Some("Bash"), Some(10)),
    reg(
        "model-tier-guard",
        "PreToolUse",
        Some("Write|Edit"),
        Some(10),
    ),
    // Skills and slash commands whose front matter names a model (M3).
    reg(
        "model-tier-guard",
        "PreToolUse",
        Some("Skill|SlashCommand"),
        Some(10),
    ),
    // PreModelSwitch: a timeout blocks the switch, so the CLI's default (30 s) stays.
    reg("model-tier-guard", "PreModelSwitch", None, None),
    reg("model-tier-guard", "UserPromptSubmit", None, Some(10)),
    reg("model-tier-guard", "SessionStart", None, Some(10)),
    reg("model-tier-guard", "PostModelSwitch", None, Some(10)),
    reg(
        "model-tier-guard",
        "PostToolUse",
        Some("Agent|Task|WebFetch|WebSearch|Bash|mcp__.*|ListMcpResourcesTool|ReadMcpResourceTool"),
        Some(10),
    ),
    reg("tool-containment", "SessionEnd", None, SESSION_END_TIMEOUT),
    reg(
        "stray-process-sweep",
        "SessionEnd",
        None,
        SESSION_END_TIMEOUT,
    ),
    reg("stray-process-sweep", "SessionStart", None, Some(10)),
    reg("integrity-signals", "PreToolUse", None, Some(10)),
    reg("integrity-signals", "PostToolUse", None, Some(10)),
    reg("integrity-signals", "PostToolUseFailure", None, Some(10)),
    reg("integrity-signals", "Stop", None, Some(10)),
    reg("integrity-signals", "SessionEnd", None, SESSION_END_TIMEOUT),
];
