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

// The binaries' names, each written once.
const GH_WRITE_GUARD: &str = "gh-write-guard";
const EGRESS_AUDIT: &str = "egress-audit";
const MODEL_TIER_GUARD: &str = "model-tier-guard";
const TOOL_CONTAINMENT: &str = "tool-containment";
const STRAY_PROCESS_SWEEP: &str = "stray-process-sweep";
const INTEGRITY_SIGNALS: &str = "integrity-signals";

/// The binaries the installer stages and self-tests, in install order.
pub const BINARIES: &[&str] = &[
    GH_WRITE_GUARD,
    EGRESS_AUDIT,
    MODEL_TIER_GUARD,
    TOOL_CONTAINMENT,
    STRAY_PROCESS_SWEEP,
    INTEGRITY_SIGNALS,
];

/// The admin binary, installed beside the hooks (report, uninstall, explain from anywhere).
pub const ADMIN_BINARY: &str = "agent-guards";

/// The binary that is also `CLAUDE_CODE_SHELL_PREFIX` where a containment backend works.
pub const SHELL_PREFIX_BINARY: &str = TOOL_CONTAINMENT;

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

/// The tools whose output can taint a session (M5: model-tier-guard records them after the call).
const TAINT_SOURCES: &str =
    "Agent|Task|WebFetch|WebSearch|Bash|mcp__.*|ListMcpResourcesTool|ReadMcpResourceTool";

/// A hook that answers one call or one stop, with the 10 s every such hook of ours is given.
const fn hook(
    binary: &'static str,
    event: &'static str,
    matcher: Option<&'static str>,
) -> Registration {
    reg(binary, event, matcher, Some(10))
}

/// A SessionEnd hook, with [`SESSION_END_TIMEOUT`].
const fn session_end(binary: &'static str) -> Registration {
    reg(binary, "SessionEnd", None, SESSION_END_TIMEOUT)
}

/// The hooks registered today.
pub const REGISTRATIONS: &[Registration] = &[
    hook(GH_WRITE_GUARD, "PreToolUse", Some("Bash")),
    hook(EGRESS_AUDIT, "Stop", None),
    hook(EGRESS_AUDIT, "SubagentStop", None),
    hook(MODEL_TIER_GUARD, "PreToolUse", Some("Agent|Task")),
    hook(MODEL_TIER_GUARD, "PreToolUse", Some("Bash")),
    hook(MODEL_TIER_GUARD, "PreToolUse", Some("Write|Edit")),
    // Skills and slash commands whose front matter names a model (M3).
    hook(MODEL_TIER_GUARD, "PreToolUse", Some("Skill|SlashCommand")),
    // PreModelSwitch: a timeout blocks the switch, so the CLI's default (30 s) stays.
    reg(MODEL_TIER_GUARD, "PreModelSwitch", None, None),
    hook(MODEL_TIER_GUARD, "UserPromptSubmit", None),
    hook(MODEL_TIER_GUARD, "SessionStart", None),
    hook(MODEL_TIER_GUARD, "PostModelSwitch", None),
    hook(MODEL_TIER_GUARD, "PostToolUse", Some(TAINT_SOURCES)),
    session_end(TOOL_CONTAINMENT),
    session_end(STRAY_PROCESS_SWEEP),
    hook(STRAY_PROCESS_SWEEP, "SessionStart", None),
    hook(INTEGRITY_SIGNALS, "PreToolUse", None),
    hook(INTEGRITY_SIGNALS, "PostToolUse", None),
    hook(INTEGRITY_SIGNALS, "PostToolUseFailure", None),
    hook(INTEGRITY_SIGNALS, "Stop", None),
    session_end(INTEGRITY_SIGNALS),
];
