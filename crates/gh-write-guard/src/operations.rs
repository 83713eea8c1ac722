//! The operations the requirements judge, read once per command: every `git` call (global
//! options split, aliases expanded), every `gh` call (aliases expanded, `gh api` read) and every
//! HTTP client call to a GitHub API host, each with the directory it acts in.

use crate::gh_api::ApiCall;
use crate::gh_cli::{self, GhArgs};
use crate::git_alias::{self, Expanded};
use crate::git_args::{parse_git, GitCall};
use crate::judge::{Analysis, Unit};
use crate::location;
use shell_syntax::view::{Arg, Invocation, Program};
use std::path::PathBuf;

/// What kind of operation an invocation is.
#[derive(Debug, Clone)]
pub enum OpKind<'a> {
    Git {
        /// The call after alias expansion.
        call: GitCall<'a>,
        expanded: Expanded<'a>,
    },
    Gh {
        args: GhArgs,
        /// Set for `gh api`.
        api: Option<ApiCall>,
        /// Whether it writes (inventory, or the API method / mutation).
        write: bool,
        /// The gh alias that was expanded, if any.
        alias: Option<String>,
    },
    /// `curl`/`wget`/`http` with a write method to a GitHub API host.
    HttpWrite {
        program: String,
        method: String,
        url: String,
    },
}

/// One operation: where it is and what it is.
#[derive(Debug, Clone)]
pub struct Op<'a> {
    /// Index into [`Analysis::units`].
    pub unit: usize,
    /// Index into that unit's `view.invocations`.
    pub invocation: usize,
    /// The directory it acts in (after `cd`s and, for git, `-C`); `None`: decided at run time.
    pub dir: Option<PathBuf>,
    pub kind: OpKind<'a>,
}

impl Op<'_> {
    pub fn inv<'a>(&self, a: &Analysis<'a>) -> &'a Invocation<'a> {
        &a.units[self.unit].view().invocations[self.invocation]
    }

    /// Whether this is a GitHub write (`git push`, a gh write, an HTTP write).
    pub fn is_github_write(&self) -> bool {
        match &self.kind {
            OpKind::Git { call, .. } => call.sub() == Some("push"),
            OpKind::Gh { write, .. } => *write,
            OpKind::HttpWrite { .. } => true,
        }
    }

    /// A short name for evidence and reasons (`git push`, `gh pr merge`, `gh api`).
    pub fn label(&self) -> String {
        match &self.kind {
            OpKind::Git { call, .. } => format!("git {}", call.sub().unwrap_or("<dynamic>")),
            OpKind::Gh { args, .. } => {
                let mut s = format!("gh {}", args.top.as_deref().unwrap_or("<dynamic>"));
                for sub in &args.sub {
                    s.push(' ');
                    s.push_str(sub);
                }
                s
            }
            OpKind::HttpWrite {
                program, method, ..
            } => format!("{program} {method}"),
        }
    }
}

/// Reads every operation of the analysis.
pub fn collect<'a>(a: &Analysis<'a>) -> Vec<Op<'a>> {
    let home = a.home();
    let mut out = Vec::new();
    for (ui, unit) in a.units.iter().enumerate() {
        for inv in &unit.view().invocations {
            if let Some(kind) = classify(a, unit, inv, home.as_deref()) {
                let (kind, dir) = kind;
                out.push(Op {
                    unit: ui,
                    invocation: inv.index,
                    dir,
                    kind,
                });
            }
        }
    }
    out
}

/// The program an invocation runs, taking a dynamic program name as `git`/`gh` when its
/// arguments read as that program's write (G0: a dynamic name is treated as the write it looks
/// like).
fn program_name<'i>(inv: &'i Invocation<'_>) -> Option<&'i str> {
    match &inv.program {
        Program::Static { name, .. } => Some(name.as_str()),
        Program::Dynamic(_) => {
            let first = inv.args.first()?.value.as_deref()?;
            if first == "push" || first == "commit" {
                Some("git")
            } else if gh_cli::is_write_command(&gh_cli::parse(&inv.args)) && first != "push" {
                Some("gh")
            } else {
                None
            }
        }
        Program::None => None,
    }
}

fn classify<'a>(
    a: &Analysis<'a>,
    unit: &Unit,
    inv: &Invocation<'a>,
    home: Option<&std::path::Path>,
) -> Option<(OpKind<'a>, Option<PathBuf>)> {
    let name = program_name(inv)?;
    let dir = unit.dir_of(inv, home);
    match name {
        "git" => {
            let call = parse_git(inv);
            let git_dir = dir
                .as_deref()
                .and_then(|d| location::after_git_c(d, &call, home));
            let needs_alias = call.sub().is_some_and(|s| !git_alias::is_builtin(s));
            let persisted = match (&git_dir, needs_alias) {
                (Some(d), true) => a.world.git_aliases(d),
                _ => Default::default(),
            };
            let expanded = git_alias::expand(a.arena(), &call, &persisted);
            Some((
                OpKind::Git {
                    call: expanded.call.clone(),
                    expanded,
                },
                git_dir,
            ))
        }
        "gh" => {
            let mut args = gh_cli::parse(&inv.args);
            let mut alias = None;
            if let Some(top) = args.top.clone() {
                if !gh_cli::is_builtin(&top) {
                    if let Some(expansion) = a.gh_aliases().get(&top) {
                        alias = Some(top.clone());
                        if !expansion.starts_with('!') {
                            args = gh_cli::parse(&expand_gh_alias(a.arena(), expansion, &inv.args));
                        }
                    }
                }
            }
            let shell_alias = alias
                .as_ref()
                .and_then(|n| a.gh_aliases().get(n))
                .is_some_and(|e| e.starts_with('!'));
            let api = (args.top.as_deref() == Some("api")).then(|| ApiCall::from_args(&args));
            let write = if shell_alias {
                // Judged through the alias's own text (a unit of its own).
                false
            } else {
                match &api {
                    Some(call) => call.is_write(),
                    None => gh_cli::is_write_command(&args),
                }
            };
            Some((
                OpKind::Gh {
                    args,
                    api,
                    write,
                    alias,
                },
                dir,
            ))
        }
        "curl" | "wget" | "http" | "https" | "xh" => {
            http_write(name, &inv.args, a).map(|(method, url)| {
                (
                    OpKind::HttpWrite {
                        program: name.to_string(),
                        method,
                        url,
                    },
                    dir,
                )
            })
        }
        _ => None,
    }
}

/// gh's alias expansion: `$1`.. are replaced by the arguments, the rest are appended. The words
/// it makes up are allocated in `arena`.
pub fn expand_gh_alias<'a>(
    arena: &'a bumpalo::Bump,
    expansion: &str,
    args: &[Arg<'a>],
) -> Vec<Arg<'a>> {
    let span = args.first().map(|a| a.word.span()).unwrap_or_default();
    let rest: Vec<&Arg<'a>> = args.iter().skip(1).collect();
    let mut used = vec![false; rest.len()];
    let mut out = Vec::new();
    let words = shell_words::split(expansion)
        .unwrap_or_else(|_| expansion.split_whitespace().map(str::to_string).collect());
    for w in words {
        let mut text = w.clone();
        for (i, r) in rest.iter().enumerate().rev() {
            let placeholder = format!("${}", i + 1);
            if text.contains(&placeholder) {
                used[i] = true;
                text = text.replace(&placeholder, r.value.as_deref().unwrap_or("${__dynamic__}"));
            }
        }
        out.push(Arg::synthetic(arena, text, span));
    }
    for (i, r) in rest.iter().enumerate() {
        if !used[i] {
            out.push((*r).clone());
        }
    }
    out
}

/// A write method sent to a GitHub API host by `curl`, `wget` or HTTPie.
fn http_write(program: &str, args: &[Arg], a: &Analysis<'_>) -> Option<(String, String)> {
    let values: Vec<&str> = args.iter().filter_map(|x| x.value.as_deref()).collect();
    let url = values.iter().find(|v| {
        let host = v
            .split_once("://")
            .map(|(_, r)| r)
            .unwrap_or(v)
            .split(['/', '?', '#'])
            .next()
            .unwrap_or("");
        let host = host.rsplit('@').next().unwrap_or(host);
        let host = host.split(':').next().unwrap_or(host).to_ascii_lowercase();
        host == "api.github.com"
            || (host.contains('.') && a.world.is_github_host(&host) && v.contains("/api/"))
    })?;
    let mut method: Option<String> = None;
    let mut body = false;
    let mut i = 0;
    while i < values.len() {
        let v = values[i];
        match program {
            "curl" => {
                if v == "-X" || v == "--request" {
                    method = values.get(i + 1).map(|m| m.to_ascii_uppercase());
                    i += 1;
                } else if let Some(m) = v.strip_prefix("--request=") {
                    method = Some(m.to_ascii_uppercase());
                } else if let Some(m) = v.strip_prefix("-X").filter(|m| !m.is_empty()) {
                    method = Some(m.to_ascii_uppercase());
                } else if v.starts_with("-d")
                    || v.starts_with("--data")
                    || v.starts_with("-F")
                    || v.starts_with("--form")
                    || v.starts_with("--json")
                    || v.starts_with("-T")
                    || v.starts_with("--upload-file")
                {
                    body = true;
                }
            }
            "wget" => {
                if let Some(m) = v.strip_prefix("--method=") {
                    method = Some(m.to_ascii_uppercase());
                } else if v == "--method" {
                    method = values.get(i + 1).map(|m| m.to_ascii_uppercase());
                    i += 1;
                } else if v.starts_with("--post-") || v.starts_with("--body-") {
                    body = true;
                }
            }
            _ => {
                let upper = v.to_ascii_uppercase();
                if i == 0 && matches!(upper.as_str(), "POST" | "PUT" | "PATCH" | "DELETE") {
                    method = Some(upper);
                } else if !v.starts_with('-')
                    && (v.contains('=') || v.contains(":="))
                    && !v.contains("://")
                {
                    body = true;
                }
            }
        }
        i += 1;
    }
    let method = method.unwrap_or_else(|| if body { "POST".into() } else { "GET".into() });
    (method != "GET" && method != "HEAD").then(|| (method, url.to_string()))
}
