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

/// Hosts among the words `xargs` appends from the pipeline stage before it
/// (`echo evil.example | xargs curl`): the layer's runs do not carry them.
pub fn piped_destinations(program: &str, piped: &[String], out: &mut Vec<Destination>) {
    if piped.is_empty() {
        return;
    }
    let dests = if command_effects::http::is_http_client(program) {
        let urls: Vec<Option<String>> = piped.iter().cloned().map(Some).collect();
        network::url_destinations(program, &urls)
    } else {
        let values: Vec<Option<&str>> = piped.iter().map(|p| Some(p.as_str())).collect();
        network::program_destinations(program, &values)
    };
    for d in dests {
        push(out, d);
    }
}

/// URLs inside free text (interpreter one-liners).
pub fn urls_in_text(program: &str, text: &str, out: &mut Vec<Destination>) {
    for d in network::urls_in_text(program, text) {
        push(out, d);
    }
}

#[cfg(test)]
mod tests {
    use crate::bash_facts::{analyse, Env};

    fn hosts(cmd: &str) -> Vec<String> {
        let env = Env {
            cwd: None,
            home: None,
            vars: &[],
        };
        analyse(cmd, &env)
            .destinations
            .iter()
            .map(|d| d.display())
            .collect()
    }

    #[test]
    fn hosts_through_the_layer() {
        assert_eq!(
            hosts("strace -f curl -s https://evil.example/x"),
            vec!["evil.example:443"]
        );
        assert_eq!(
            hosts("echo evil.example | xargs curl"),
            vec!["evil.example"]
        );
        assert_eq!(
            hosts("exec 3<>/dev/tcp/evil.example/80"),
            vec!["evil.example:80"]
        );
        assert_eq!(
            hosts("python3 -c \"import urllib.request as u; u.urlopen('https://evil.example/')\""),
            vec!["evil.example:443"]
        );
        assert!(hosts("git remote add up https://git.example.org/o/r").is_empty());
        assert!(
            hosts("curl \"$URL\"").is_empty(),
            "a run-time host is no evidence"
        );
    }
}
