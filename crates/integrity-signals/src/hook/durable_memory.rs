//! Durable memory in a tainted session (K5 with I3): which paths a call would write there, and
//! whether taint can be ruled out (ledger, transcript, a state folder that went missing).

use super::Deps;
use crate::bash_facts::{Access, BashFacts};
use crate::i1_signals::{self, Call};
use crate::store::Store;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A write to durable memory in a tainted session (K5, I3): the path and the taint summary. The
/// ledger is read only when the call writes durable memory at all.
pub(super) fn durable_memory_write(
    call: &Call,
    deps: &Deps,
    facts: Option<&BashFacts>,
    session: Option<&str>,
    transcript: Option<&Path>,
) -> Option<(String, String)> {
    let mut targets: Vec<PathBuf> = i1_signals::tool_paths(call, deps.home.as_deref())
        .into_iter()
        .filter(|(_, a, _)| matches!(a, Access::Write { .. }))
        .map(|(p, _, _)| p)
        .collect();
    if let Some(f) = facts {
        targets.extend(
            f.paths
                .iter()
                .filter(|u| !matches!(u.access, Access::Read))
                .filter_map(|u| u.path.clone().or_else(|| Some(PathBuf::from(&u.text)))),
        );
    }
    if call.tool_name == "Bash" {
        let command = call
            .input
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or("");
        targets.extend(interpreter_named_paths(command, call.cwd));
    }
    let path = targets
        .into_iter()
        .find(|p| crate::i3_tamper::is_durable_memory(p))?;
    let own = call.cwd.and_then(taint::origin_owner);
    let policy = taint::TaintPolicy::new(deps.config.trusted_mcp_servers.clone(), own);
    let summary = match &deps.store {
        Ok(store) => memory_taint(store, session, transcript, &policy)?,
        Err(e) => format!("no state dir ({e}): taint cannot be ruled out"),
    };
    Some((path.display().to_string(), summary))
}

/// Paths named inside interpreter one-liners (`python3 -c "open('CLAUDE.md','a')..."`): a
/// script that names a file may write it. Only consulted for durable memory in a tainted
/// session, where refusing a script that only reads such a file costs little.
fn interpreter_named_paths(command: &str, cwd: Option<&Path>) -> Vec<PathBuf> {
    let parsed = shell_syntax::parse(command);
    let view = shell_syntax::commands(&parsed);
    let mut out = Vec::new();
    for inv in &view.invocations {
        if !inv.name().is_some_and(shell_syntax::view::is_interpreter) {
            continue;
        }
        for arg in inv.args.iter().filter_map(|a| a.value.as_deref()) {
            let pieces = arg.split(|c: char| {
                c.is_whitespace()
                    || matches!(c, '\'' | '"' | '`' | '(' | ')' | ',' | ';' | '[' | ']')
            });
            for piece in pieces.filter(|p| p.contains("CLAUDE") || p.contains(".claude")) {
                let p = Path::new(piece);
                out.push(match cwd {
                    Some(c) if p.is_relative() => c.join(p),
                    _ => p.to_path_buf(),
                });
            }
        }
    }
    out
}

/// What a refused durable-memory write was, in the reason's words (the hook's and the second
/// line's, one text).
pub(crate) fn memory_refused(path: &str) -> String {
    format!("this session read untrusted external content or its taint record cannot be read, so it may not write durable memory ({path})")
}

/// The remedy of a refused durable-memory write.
pub(crate) const MEMORY_REMEDY: &str = "Finish the task without changing memory or agent files; the maintainer can record what is worth keeping.";

/// Whether durable memory is closed to the session, and why (K5): taint recorded, or taint that
/// cannot be ruled out (the one reader every guard shares, [`taint::cannot_rule_out`]).
pub fn memory_taint(
    store: &Store,
    session: Option<&str>,
    transcript: Option<&Path>,
    policy: &taint::TaintPolicy,
) -> Option<String> {
    taint::cannot_rule_out(&store.session(session), transcript, policy)
}
