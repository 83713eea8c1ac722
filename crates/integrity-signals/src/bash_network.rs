//! I1's network destinations, read from `command-effects`' `Network` effects (one reader for
//! every guard: the programs that connect, URLs, scp-like addresses, git remotes given as URLs,
//! `gh`, `ssh host`, `/dev/tcp`), after functions, runners and wrappers are resolved.
//!
//! A destination is only reported when the command names its host: `git push` to a configured
//! remote names none (its URL is in the repository's config), and a host decided at run time is
//! no evidence of where the command goes.

use crate::bash_facts::Destination;
use command_effects::network;
use command_effects::Effect;
use shell_syntax::view::CommandView;

pub use network::{allowed, parse_url};

fn push(out: &mut Vec<Destination>, d: network::Destination) {
    let Some(host) = d.host else { return };
    let d = Destination {
        host,
        port: d.port,
        program: d.via,
        raw: d.raw.unwrap_or_default(),
    };
    if !out.contains(&d) {
        out.push(d);
    }
}

/// Appends the hosts every run of `view` contacts.
pub fn destinations(view: &CommandView<'_>, out: &mut Vec<Destination>) {
    let arena = bumpalo::Bump::new();
    for run in command_effects::program::runs(view, &arena) {
        let Some(inv) = view.invocations.get(run.invocation) else {
            continue;
        };
        for effect in command_effects::effects_of(&run, inv) {
            if let Effect::Network(d) = effect {
                push(out, d);
            }
        }
    }
}

/// URLs inside free text (interpreter one-liners).
pub fn urls_in_text(program: &str, text: &str, out: &mut Vec<Destination>) {
    for d in network::urls_in_text(program, text) {
        push(out, d);
    }
}
