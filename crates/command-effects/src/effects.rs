//! What each run does, from the per-program grammars: a git or gh operation, an HTTP call, a
//! file written or removed (by the program or by a redirection; a named descriptor `{fd}>` is
//! not stdout), a network destination, a model launch.

use crate::files::{self, Change, FileChange};
use crate::gh::{self, GhArgs};
use crate::git::{self, GitCall};
use crate::http::{self, HttpCall};
use crate::network::{self, Destination};
use crate::program::{Resolved, Run};
use shell_syntax::ast::RedirOp;
use shell_syntax::view::Invocation;

/// One effect of a run. `None` inside means decided at run time.
#[derive(Debug, Clone)]
pub enum Effect<'a> {
    Git(GitCall<'a>),
    Gh(GhArgs),
    Http(HttpCall),
    File(FileChange),
    /// A connection to another host (`ssh`, `scp`, `nc`, `/dev/tcp/...`, an HTTP client's
    /// URL, a git remote given as a URL, `gh`).
    Network(Destination),
    /// A model launch (`claude` by any launcher): the `--model` value (`Some(None)`: run time).
    ModelLaunch {
        model: Option<Option<String>>,
    },
}

/// The effects of `run` (resolved from `inv`).
pub fn effects_of<'a>(run: &Run<'a>, inv: &Invocation<'a>) -> Vec<Effect<'a>> {
    let mut out = Vec::new();
    for r in &inv.redirects {
        // bash connects for `/dev/tcp/HOST/PORT` in any direction (`< /dev/tcp/h/80` too).
        if let Some(d) = r.target.value.as_deref().and_then(network::dev_tcp) {
            out.push(Effect::Network(d));
            continue;
        }
        if !(r.op.is_output() || r.op == RedirOp::ReadWrite) {
            continue;
        }
        // `{fd}>file` opens a new descriptor: still a file written.
        let path = r.target.value.as_deref().map(String::from);
        if let Some(p) = &path {
            if p == "/dev/null" || p.starts_with("/dev/std") || p.starts_with("/dev/fd/") {
                continue;
            }
        }
        if matches!(r.op, RedirOp::DupOut) {
            continue;
        }
        out.push(Effect::File(FileChange {
            change: Change::Writes,
            path,
        }));
    }
    if let Some(d) = &run.remote {
        out.push(Effect::Network(d.clone()));
    }
    let Resolved::Program(name) = &run.program else {
        return out;
    };
    let env = |n: &str| run.env_value(inv, n);
    match name.as_str() {
        "git" => {
            let call = git::parse_git_args(&run.args, &env);
            let dests = network::git_destinations(&call);
            out.push(Effect::Git(call));
            out.extend(dests.into_iter().map(Effect::Network));
        }
        "gh" => {
            let values: Vec<Option<&str>> = run.args.iter().map(|a| a.value.as_deref()).collect();
            out.extend(
                network::gh_destinations(&values)
                    .into_iter()
                    .map(Effect::Network),
            );
            out.push(Effect::Gh(gh::parse(&run.args)));
        }
        "claude" => {
            let mut model = None;
            let vals: Vec<Option<&str>> = run.args.iter().map(|a| a.value.as_deref()).collect();
            for (i, v) in vals.iter().enumerate() {
                match v {
                    Some("--model") => {
                        model = Some(vals.get(i + 1).copied().flatten().map(String::from))
                    }
                    Some(v) if v.starts_with("--model=") => model = Some(Some(v[8..].to_string())),
                    _ => {}
                }
            }
            if model.is_none() {
                model = env("ANTHROPIC_MODEL");
            }
            out.push(Effect::ModelLaunch { model });
        }
        n if http::is_http_client(n) => {
            if let Some(call) = http::read(n, &run.args) {
                let dests = network::url_destinations(n, &call.urls);
                out.push(Effect::Http(call));
                out.extend(dests.into_iter().map(Effect::Network));
            }
        }
        n => {
            // `ssh host` was read into `run.remote` already.
            if network::kind(n).is_some() && run.remote.is_none() {
                let values: Vec<Option<&str>> =
                    run.args.iter().map(|a| a.value.as_deref()).collect();
                out.extend(
                    network::program_destinations(n, &values)
                        .into_iter()
                        .map(Effect::Network),
                );
            }
            out.extend(files::changes(n, &run.args).into_iter().map(Effect::File));
        }
    }
    out
}
