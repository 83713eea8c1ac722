//! The classifier: which tool calls read untrusted external content.

use serde_json::Value;

/// What the maintainer told us about trust. Built by each binary from its config (and, for
/// `own_owner`, from the repository it runs in).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaintPolicy {
    /// MCP servers whose tools do not taint (config `trusted_mcp_servers`), matched exactly.
    pub trusted_mcp_servers: Vec<String>,
    /// The maintainer's own GitHub owner (user or organisation). Content of this owner's
    /// repositories does not taint; `None` means unknown, so every named owner is another's.
    pub own_owner: Option<String>,
}

impl TaintPolicy {
    /// The policy from the config's trusted MCP servers and the maintainer's own owner.
    pub fn new(trusted_mcp_servers: Vec<String>, own_owner: Option<String>) -> TaintPolicy {
        TaintPolicy {
            trusted_mcp_servers,
            own_owner,
        }
    }

    /// Whether `owner` is the maintainer's own (case-insensitive, as GitHub compares owners).
    pub fn is_own(&self, owner: &str) -> bool {
        self.own_owner
            .as_deref()
            .is_some_and(|own| own.eq_ignore_ascii_case(owner))
    }
}

/// The kind of a taint source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaintKind {
    /// A `WebFetch` call.
    WebFetch,
    /// A `WebSearch` call.
    WebSearch,
    /// A tool (or resource read) of an MCP server the maintainer did not list as trusted.
    Mcp,
    /// A Bash command whose program fetches from the network.
    NetworkCommand,
}

impl TaintKind {
    /// The kind named `name` ([`TaintKind::as_str`]).
    pub fn from_name(name: &str) -> Option<TaintKind> {
        [
            TaintKind::WebFetch,
            TaintKind::WebSearch,
            TaintKind::Mcp,
            TaintKind::NetworkCommand,
        ]
        .into_iter()
        .find(|k| k.as_str() == name)
    }

    /// The kind's name in the ledger and the audit log.
    pub fn as_str(self) -> &'static str {
        match self {
            TaintKind::WebFetch => "web_fetch",
            TaintKind::WebSearch => "web_search",
            TaintKind::Mcp => "mcp",
            TaintKind::NetworkCommand => "network_command",
        }
    }
}

/// Why a tool call taints: its kind and a one-line detail for the audit log (the URL, the
/// server, the command that fetches).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaintSource {
    /// What kind of source it is.
    pub kind: TaintKind,
    /// The tool the call was made with (`WebFetch`, `Bash`, `mcp__srv__tool`, ...).
    pub tool: String,
    /// One line for the audit log: the URL, the server, the command that fetches.
    pub detail: String,
}

/// Longest detail kept (details go to the ledger and the audit log, not to the model).
const MAX_DETAIL_CHARS: usize = 300;

pub(crate) fn clip(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= MAX_DETAIL_CHARS {
        return one_line;
    }
    let mut out: String = one_line.chars().take(MAX_DETAIL_CHARS).collect();
    out.push_str("...");
    out
}

fn str_field<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input.get(key).and_then(Value::as_str)
}

/// The MCP server of a tool name `mcp__<server>__<tool>` (`None` for other tools).
fn mcp_server(tool_name: &str) -> Option<&str> {
    let rest = tool_name.strip_prefix("mcp__")?;
    Some(rest.split_once("__").map_or(rest, |(server, _)| server))
}

/// Whether a call of `tool_name` with `tool_input` reads untrusted external content.
pub fn source_of(tool_name: &str, tool_input: &Value, policy: &TaintPolicy) -> Option<TaintSource> {
    let make = |kind, detail: String| {
        Some(TaintSource {
            kind,
            tool: tool_name.to_string(),
            detail: clip(&detail),
        })
    };
    match tool_name {
        "WebFetch" => make(
            TaintKind::WebFetch,
            str_field(tool_input, "url")
                .unwrap_or("<no url>")
                .to_string(),
        ),
        "WebSearch" => make(
            TaintKind::WebSearch,
            format!("search {:?}", str_field(tool_input, "query").unwrap_or("")),
        ),
        // Resource reads name their server in the input rather than in the tool name.
        "ListMcpResourcesTool" | "ReadMcpResourceTool" => {
            let server = str_field(tool_input, "server").unwrap_or("");
            if !server.is_empty() && policy.trusted_mcp_servers.iter().any(|t| t == server) {
                return None;
            }
            make(TaintKind::Mcp, format!("{tool_name} of server {server:?}"))
        }
        "Bash" => {
            let command = str_field(tool_input, "command")?;
            // Past the read bound: what it fetched is unknown, so it taints (issue 47).
            if command.len() > primitives::read::MAX_COMMAND_BYTES {
                return make(
                    TaintKind::NetworkCommand,
                    format!("a command of {} bytes, longer than is read", command.len()),
                );
            }
            let detail = crate::network::fetching_command(command, policy)?;
            make(TaintKind::NetworkCommand, detail)
        }
        name => {
            let server = mcp_server(name)?;
            if policy.trusted_mcp_servers.iter().any(|t| t == server) {
                return None;
            }
            make(TaintKind::Mcp, format!("tool of MCP server {server:?}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn policy() -> TaintPolicy {
        TaintPolicy::new(vec!["docs".into()], Some("Acme".into()))
    }

    #[test]
    fn web_tools_taint() {
        let s = source_of(
            "WebFetch",
            &json!({"url": "https://x.example/p", "prompt": "p"}),
            &policy(),
        )
        .unwrap();
        assert_eq!(s.kind, TaintKind::WebFetch);
        assert_eq!(s.detail, "https://x.example/p");
        assert_eq!(s.tool, "WebFetch");
        let s = source_of("WebSearch", &json!({"query": "rust"}), &policy()).unwrap();
        assert_eq!(s.kind, TaintKind::WebSearch);
    }

    #[test]
    fn mcp_tools_taint_unless_trusted() {
        let s = source_of("mcp__github__get_issue", &json!({}), &policy()).unwrap();
        assert_eq!(s.kind, TaintKind::Mcp);
        assert!(s.detail.contains("github"));
        assert!(source_of("mcp__docs__search", &json!({}), &policy()).is_none());
        // A server whose name only starts like a trusted one is not trusted.
        assert!(source_of("mcp__docs2__search", &json!({}), &policy()).is_some());
        assert!(source_of("mcp__solo", &json!({}), &policy()).is_some());
        assert!(source_of("ReadMcpResourceTool", &json!({"server": "docs"}), &policy()).is_none());
        assert!(source_of("ReadMcpResourceTool", &json!({"server": "web"}), &policy()).is_some());
        assert!(source_of("ListMcpResourcesTool", &json!({}), &policy()).is_some());
    }

    #[test]
    fn local_tools_do_not_taint() {
        for tool in [
            "Read",
            "Write",
            "Edit",
            "Glob",
            "Grep",
            "Agent",
            "Task",
            "TodoWrite",
        ] {
            assert!(
                source_of(tool, &json!({"file_path": "/w/x"}), &policy()).is_none(),
                "{tool}"
            );
        }
        assert!(source_of(
            "Bash",
            &json!({"command": "ls -la && cargo test"}),
            &policy()
        )
        .is_none());
        assert!(source_of("Bash", &json!({}), &policy()).is_none());
    }

    #[test]
    fn a_command_past_the_read_bound_taints() {
        // Issue 47: what a command too long to read fetched is unknown.
        let huge = format!("echo {}", "x".repeat(primitives::read::MAX_COMMAND_BYTES));
        let s = source_of("Bash", &json!({ "command": huge }), &policy()).unwrap();
        assert_eq!(s.kind, TaintKind::NetworkCommand);
        assert!(s.detail.contains("longer than is read"), "{}", s.detail);
        assert!(source_of("Bash", &json!({"command": "echo x"}), &policy()).is_none());
    }

    #[test]
    fn own_owner_is_case_insensitive() {
        assert!(policy().is_own("acme"));
        assert!(!policy().is_own("other"));
        assert!(!TaintPolicy::default().is_own("acme"));
    }
}
