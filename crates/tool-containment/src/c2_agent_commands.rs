//! C2: only agent commands are contained.
//!
//! A Bash tool call is recognised by the CLI's wrapper shape: a `source .../shell-snapshots/
//! snapshot-<shell>-...` start or the `pwd -P >| ...-cwd` tail. Where the CLI sets `AI_AGENT`
//! (`..._agent` for tool calls, `..._harness` for hooks), a `_harness` value overrides the shape.
//! Hook commands, status-line commands and MCP servers pass straight through with no group.

/// What kind of command the prefix was handed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// An agent's Bash tool call: contain it.
    Agent,
    /// Anything else: run it as it is. The text says why (for `--report` and fixtures).
    PassThrough(&'static str),
}

/// The CLI's snapshot prologue: `source <...>/shell-snapshots/snapshot-<shell>-<...>`.
fn has_snapshot_start(script: &str) -> bool {
    let Some(rest) = script.trim_start().strip_prefix("source ") else {
        return false;
    };
    let first = rest.split_whitespace().next().unwrap_or("");
    first.contains("shell-snapshots/snapshot-")
}

/// The CLI's epilogue: `pwd -P >| <tmp>-cwd` as the last command.
fn has_cwd_tail(script: &str) -> bool {
    let Some(at) = script.rfind("pwd -P >| ") else {
        return false;
    };
    let target = script[at + "pwd -P >| ".len()..].trim_end();
    !target.is_empty() && !target.contains(char::is_whitespace) && target.ends_with("-cwd")
}

/// Classifies the script handed to the prefix.
pub fn classify(script: &str, ai_agent: Option<&str>) -> Kind {
    if ai_agent.is_some_and(|v| v.ends_with("_harness")) {
        return Kind::PassThrough("AI_AGENT marks a harness command");
    }
    if has_snapshot_start(script) || has_cwd_tail(script) {
        Kind::Agent
    } else {
        Kind::PassThrough("not the CLI's Bash tool wrapper shape")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOOL: &str = "source /root/.claude/shell-snapshots/snapshot-bash-1764-abc.sh 2>/dev/null || true && { shopt -u extglob || setopt NO_EXTENDED_GLOB; } >/dev/null 2>&1 || true && eval 'sleep 1' < /dev/null && pwd -P >| /tmp/claude-9f3a-cwd";

    #[test]
    fn tool_calls_are_agent_commands() {
        assert_eq!(
            classify(TOOL, Some("claude-code_2-1-332_agent")),
            Kind::Agent
        );
        assert_eq!(classify(TOOL, None), Kind::Agent);
        assert_eq!(
            classify("eval 'ls' && pwd -P >| /tmp/claude-1-cwd", None),
            Kind::Agent
        );
    }

    #[test]
    fn harness_and_plain_commands_pass_through() {
        assert!(matches!(
            classify(TOOL, Some("claude-code_2-1-332_harness")),
            Kind::PassThrough(_)
        ));
        assert!(matches!(
            classify("/usr/bin/gh-write-guard", None),
            Kind::PassThrough(_)
        ));
        assert!(matches!(
            classify("npx -y some-mcp-server", Some("")),
            Kind::PassThrough(_)
        ));
        assert!(matches!(
            classify("echo 'pwd -P >| x-cwd y'", None),
            Kind::PassThrough(_)
        ));
    }
}
