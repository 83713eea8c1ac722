//! C6: no silent fallback.
//!
//! A command that runs without ceilings says so on stderr, one line, every time; `--report`
//! says which backend this host offers and why the others are not usable.

use crate::c4_backends::{Backend, HostFacts};
use crate::c5_ceilings::{Ceilings, Memory, Tasks};

/// The one stderr line of a command that ran unbounded; `code` says why ([`crate::codes`]).
pub fn unbounded_notice(code: &str, why: &str) -> String {
    format!("tool-containment: this command ran without ceilings ({code}): {why}")
}

/// Why the chosen backend leaves commands unbounded, if it does.
pub fn unbounded_reason(backend: &Backend) -> Option<String> {
    match backend {
        Backend::None { reasons } => Some(format!("no usable backend ({})", reasons.join("; "))),
        _ => None,
    }
}

fn ceiling_text(c: &Ceilings) -> String {
    let tasks = match c.tasks {
        Tasks::Max => "unlimited".to_string(),
        Tasks::Limit(n) => n.to_string(),
    };
    let memory = match c.memory {
        Memory::Max => "unlimited".to_string(),
        Memory::Bytes(b) => format!("{} MiB", b >> 20),
    };
    format!("tasks {tasks}, memory {memory}")
}

/// The `--report` text.
pub fn report(facts: &HostFacts, backend: &Backend, ceilings: &Ceilings) -> String {
    let line = |name: &str, r: Result<String, &String>| match r {
        Ok(what) => format!("  {name}: usable ({what})"),
        Err(why) => format!("  {name}: not used: {why}"),
    };
    let mut out = vec![format!("tool-containment backend: {}", backend.name())];
    out.push(line(
        "cgroup v2",
        facts
            .v2
            .as_ref()
            .map(|(_, a)| format!("anchor {}", a.display())),
    ));
    out.push(line(
        "cgroup v1",
        facts.v1.as_ref().map(|d| {
            format!(
                "pids under {}, memory under {}",
                d.pids.display(),
                d.memory.display()
            )
        }),
    ));
    out.push(line(
        "systemd",
        facts.systemd.as_ref().map(|p| p.display().to_string()),
    ));
    match unbounded_reason(backend) {
        Some(why) => out.push(format!(
            "Commands run WITHOUT ceilings on this host: {why}."
        )),
        None => out.push(format!("Ceilings per command: {}.", ceiling_text(ceilings))),
    }
    out.extend(ceilings.notices.iter().cloned());
    out.push(
        "C9: the ceilings bound accidents, not adversaries: a command running as root can raise its own limits."
            .into(),
    );
    out.join("\n")
}
