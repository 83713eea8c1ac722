//! The operations the requirements judge, read once per command: every `git` call (global
//! options split, aliases expanded), every `gh` call (aliases expanded, `gh api` read) and every
//! HTTP client call to a GitHub API host, each with the directory it acts in.

use crate::analysis::{Analysis, Unit};
use command_effects::dirs;
use command_effects::gh::{self, GhArgs};
use command_effects::gh_api::{self, ApiCall, Field, Query};
use command_effects::git::{ConfigSetting, GitCall};
use command_effects::git_alias::Expanded;
use command_effects::http;
use command_effects::program::{Resolved, Run};
use shell_syntax::view::{Arg, Invocation};
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
        /// `GH_REPO` set by a runner's own words (`sudo GH_REPO=o/r gh ...`; `Some(None)`:
        /// decided at run time), which the invocation's environment does not show.
        runner_repo: Option<Option<String>>,
    },
    /// `curl`/`wget`/`http` with a write method to a GitHub API host.
    HttpWrite {
        program: String,
        method: String,
        url: String,
        /// The response goes to `/dev/null` (`curl -o /dev/null`): the result is thrown away.
        discards: bool,
        /// A request to the GraphQL endpoint: its document and variables, as far as the body
        /// can be read.
        graphql: Option<(Query, Vec<Field>)>,
    },
}

impl OpKind<'_> {
    /// The GraphQL document and fields of a `gh api graphql` call or an HTTP request to the
    /// GraphQL endpoint.
    pub fn graphql(&self) -> Option<(&Query, &[Field])> {
        match self {
            OpKind::Gh { api: Some(api), .. } if api.graphql => Some((&api.query, &api.fields)),
            OpKind::HttpWrite {
                graphql: Some((q, f)),
                ..
            } => Some((q, f)),
            _ => None,
        }
    }
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
    /// For git: where an earlier git command of the same command left HEAD in `dir`
    /// ([`crate::git_push::HeadMoved`]; `None`: not moved).
    pub head: crate::git_push::HeadMoved,
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
            OpKind::Git { call, .. } => git_label(call),
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

/// [`Op::label`] of a git call (an exec's argv judged without a command line shares it).
pub fn git_label(call: &GitCall) -> String {
    match &call.subcommand {
        Some(Some(_)) if call.refs_on_stdin => {
            "a remote helper's push (its stdin names the branches)".into()
        }
        Some(Some(sub)) => format!("git {sub}"),
        // A word, or a name git may autocorrect: judged as the push it may be.
        Some(None) => "git with a subcommand decided at run time (a possible push)".into(),
        None => "git".into(),
    }
}

/// Reads every operation of the analysis: each invocation's program as bash resolves it
/// (command-effects), a shell function's body once per call with the call's arguments, and the
/// body where it is defined only when the function is never called.
pub fn collect<'a>(a: &Analysis<'a>) -> Vec<Op<'a>> {
    let home = a.home();
    let arena = a.arena();
    let mut out = Vec::new();
    for (ui, unit) in a.units.iter().enumerate() {
        let view = unit.view();
        // Remotes `git remote add` made and settings `git config` wrote earlier in the
        // command, as config the later git commands read (`git remote add s URL && git push
        // s`, `git config remote.origin.push HEAD:main && git push`).
        let mut added: Vec<ConfigSetting> = Vec::new();
        // Where earlier git commands left HEAD, per directory (the last one counts).
        let mut heads: Vec<(Option<PathBuf>, Option<String>)> = Vec::new();
        // A body run keeps its own invocation (its context, e.g. `|| return 0`).
        for run in command_effects::program::runs(view, arena) {
            let Some(inv) = view.invocations.get(run.invocation) else {
                continue;
            };
            if let Some((kind, dir)) = classify(a, unit, inv, &run, home.as_deref(), &added) {
                if let OpKind::Git { call, .. } = &kind {
                    if let Some((name, url)) = command_effects::network::remote_added(call) {
                        added.push(ConfigSetting {
                            // A run-time name could be any remote: an empty key leaves every
                            // push's destination unknown.
                            key: name
                                .map(|n| {
                                    command_effects::git::normalise_key(&format!("remote.{n}.url"))
                                })
                                .unwrap_or_default(),
                            value: url,
                            via: "git remote add",
                        });
                    }
                    // Settings `git config` writes (a push refspec, `push.default`,
                    // `core.hooksPath`), read by the git commands after it.
                    added.extend(command_effects::git_config::written(call));
                }
                let head = heads.iter().rev().find_map(|(d, h)| head_here(d, h, &dir));
                if let OpKind::Git { call, .. } = &kind {
                    if let Some(h) = head_after(a, call, dir.as_deref()) {
                        heads.push((dir.clone(), h));
                    }
                }
                out.push(Op {
                    unit: ui,
                    invocation: inv.index,
                    dir,
                    kind,
                    head,
                });
            }
        }
    }
    out
}

/// What a HEAD move made in folder `moved_in` means for a git command in `dir`: the branch
/// itself in the same folder; unknown in a folder above or below it (the same repository, or
/// a submodule's) or where either folder is decided at run time; nothing elsewhere.
fn head_here(
    moved_in: &Option<PathBuf>,
    head: &Option<String>,
    dir: &Option<PathBuf>,
) -> Option<Option<String>> {
    match (moved_in, dir) {
        (a, b) if a == b => Some(head.clone()),
        (Some(a), Some(b)) if !a.starts_with(b) && !b.starts_with(a) => None,
        _ => Some(None),
    }
}

/// Where `call` leaves HEAD (`None`: where it was): command-effects' `git_head` from the
/// arguments, and for a plain `checkout x`/`switch x` the repository's answer: a local branch
/// is switched to, anything else that names a commit leaves HEAD where it is not known (a
/// detached HEAD, or a branch git makes from a remote one), a path leaves it.
fn head_after(
    a: &Analysis<'_>,
    call: &GitCall<'_>,
    dir: Option<&std::path::Path>,
) -> Option<Option<String>> {
    use command_effects::git_head::Moved;
    match command_effects::git_head::moved(call)? {
        Moved::Branch(b) => Some(Some(b)),
        Moved::Unknown => Some(None),
        Moved::Operand(x) => {
            let Some(dir) = dir else {
                return Some(None);
            };
            if a.world.local_branches(dir).contains(&x) {
                Some(Some(x))
            } else if a.world.resolves_to_commit(dir, &x) {
                Some(None)
            } else {
                None
            }
        }
    }
}

/// The program a run runs, taking a run-time program name as `git`/`gh` when its arguments
/// read as that program's write (G0: a dynamic name is treated as the write it looks like).
fn program_name<'r>(run: &'r Run<'_>) -> Option<&'r str> {
    match &run.program {
        Resolved::Program(name) => Some(name.as_str()),
        Resolved::Unknown => {
            let first = run.args.first()?.value.as_deref()?;
            if first == "push" || first == "commit" {
                Some("git")
            } else if gh::is_write_command(&gh::parse(&run.args)) && first != "push" {
                Some("gh")
            } else {
                None
            }
        }
        Resolved::Function(_) | Resolved::Nothing => None,
    }
}

fn classify<'a>(
    a: &Analysis<'a>,
    unit: &Unit,
    inv: &Invocation<'a>,
    run: &Run<'a>,
    home: Option<&std::path::Path>,
    added: &[ConfigSetting],
) -> Option<(OpKind<'a>, Option<PathBuf>)> {
    let name = program_name(run)?;
    let dir = unit.dir_of(inv, home, a.world);
    match name {
        "git" => Some(git_op(a, inv, run, dir, home, added)),
        "gh" => {
            let mut op = gh_op(a, run);
            if let OpKind::Gh {
                args,
                api: Some(api),
                write,
                ..
            } = &mut op
            {
                read_api_body(a, unit, inv, dir.as_deref(), args, api);
                *write = api.is_write();
            }
            Some((op, dir))
        }
        "gh-pages" => Some((gh_pages_op(a, inv, run), dir)),
        n if http::is_http_client(n) => {
            http_write(n, &run.args, a).map(|(method, url, discards, body)| {
                let graphql = is_graphql_url(&url).then(|| {
                    let text = body.map_or(Readable::Unreadable("no body".into()), |b| {
                        read_body(a, unit, inv, dir.as_deref(), b)
                    });
                    match text {
                        Readable::Text(t) => gh_api::graphql_json(&t),
                        Readable::Unreadable(why) => (Query::Unreadable(why), Vec::new()),
                    }
                });
                (
                    OpKind::HttpWrite {
                        program: n.to_string(),
                        method,
                        url,
                        discards,
                        graphql,
                    },
                    dir,
                )
            })
        }
        _ => None,
    }
}

/// `https://api.github.com/graphql`, `https://<enterprise>/api/graphql`.
fn is_graphql_url(url: &str) -> bool {
    let path = url
        .split(['?', '#'])
        .next()
        .unwrap_or(url)
        .trim_end_matches('/');
    path.ends_with("/graphql")
}

/// A request body or GraphQL document, read or not.
enum Readable {
    Text(String),
    Unreadable(String),
}

/// The text of a body: in the command, on stdin from the command's own text, or in a file
/// read through the world (relative to the folder the request runs in).
fn read_body(
    a: &Analysis<'_>,
    unit: &Unit,
    inv: &Invocation<'_>,
    dir: Option<&std::path::Path>,
    body: http::Body,
) -> Readable {
    match body {
        http::Body::Text(t) => Readable::Text(t),
        http::Body::Stdin => read_stdin(a, unit, inv, dir),
        http::Body::File(p) => read_file(a, dir, &p),
        http::Body::RunTime => Readable::Unreadable("the body is decided at run time".into()),
    }
}

fn read_stdin(
    a: &Analysis<'_>,
    unit: &Unit,
    inv: &Invocation<'_>,
    dir: Option<&std::path::Path>,
) -> Readable {
    match command_effects::written::stdin_of(unit.view(), inv) {
        command_effects::written::Stdin::Text(t) => Readable::Text(t),
        command_effects::written::Stdin::File(p) => read_file(a, dir, &p),
        _ => Readable::Unreadable("the body comes from stdin, decided at run time".into()),
    }
}

fn read_file(a: &Analysis<'_>, dir: Option<&std::path::Path>, path: &str) -> Readable {
    let home = a.home();
    let p = command_effects::scripts::expand_tilde(path, home.as_deref());
    let full = match (std::path::Path::new(&p).is_absolute(), dir) {
        (true, _) => PathBuf::from(p),
        (false, Some(d)) => d.join(p),
        (false, None) => {
            return Readable::Unreadable(format!(
                "the body comes from {path}, in a folder decided at run time"
            ))
        }
    };
    match a.world.read_script(&full) {
        Ok(t) => Readable::Text(t),
        Err(e) => Readable::Unreadable(format!(
            "the body comes from {path}, which could not be read ({e})"
        )),
    }
}

/// `gh api graphql --input -`, `-F query=@-`, `--input q.json`, `-F query=@q.graphql`: the
/// document read from stdin (the command's own text) or the file, in place of "unreadable".
fn read_api_body(
    a: &Analysis<'_>,
    unit: &Unit,
    inv: &Invocation<'_>,
    dir: Option<&std::path::Path>,
    args: &GhArgs,
    api: &mut ApiCall,
) {
    let source = |v: &str| match v {
        "-" | "/dev/stdin" => read_stdin(a, unit, inv, dir),
        f => read_file(a, dir, f),
    };
    if !api.graphql && api.input {
        // A REST body: its keys are fields (`in_reply_to` for G5); one that cannot be read
        // is a field whose key is decided at run time.
        let Some(v) = args.values(&["--input"]).last().flatten() else {
            return;
        };
        let read = match source(v) {
            Readable::Text(t) => gh_api::rest_json(&t),
            Readable::Unreadable(_) => None,
        };
        api.fields.extend(read.unwrap_or_else(|| {
            vec![gh_api::Field {
                key: None,
                value: None,
                typed: false,
            }]
        }));
        return;
    }
    if !api.graphql || !matches!(api.query, Query::Unreadable(_)) {
        return;
    }
    if api.input {
        let read = match args.values(&["--input"]).last().flatten() {
            Some(v) => source(v),
            None => return,
        };
        match read {
            Readable::Text(t) => {
                let (q, fields) = gh_api::graphql_json(&t);
                api.query = q;
                api.fields.extend(fields);
            }
            Readable::Unreadable(why) => api.query = Query::Unreadable(why),
        }
        return;
    }
    let file = api
        .fields
        .iter()
        .rev()
        .find(|f| f.key.as_deref() == Some("query"))
        .filter(|f| f.from_file())
        .and_then(|f| f.value.as_deref())
        .map(|v| v[1..].to_string());
    if let Some(f) = file {
        api.query = match source(&f) {
            Readable::Text(t) => Query::Text(t),
            Readable::Unreadable(why) => Query::Unreadable(why),
        };
    }
}

/// A git call, its aliases expanded, and the directory it acts in (after `-C`).
fn git_op<'a>(
    a: &Analysis<'a>,
    inv: &Invocation<'a>,
    run: &Run<'a>,
    dir: Option<PathBuf>,
    home: Option<&std::path::Path>,
    added: &[ConfigSetting],
) -> (OpKind<'a>, Option<PathBuf>) {
    let mut call = command_effects::git::parse_git_args(&run.args, &|n| run.env_value(inv, n));
    // Config a remote added earlier in the command sets, before the command's own.
    call.config.splice(0..0, added.iter().cloned());
    // The settings of config files the command names count as its own.
    let named = named_config(a, &call, dir.as_deref(), home);
    call.config.extend(named);
    let own_home = dirs::tilde_home(inv, home);
    let git_dir = dir
        .as_deref()
        .and_then(|d| dirs::after_git_c(d, &call, own_home.as_deref()));
    let needs_alias = call
        .sub()
        .is_some_and(|s| !command_effects::git_alias::is_builtin(s));
    let persisted = match (&git_dir, needs_alias) {
        (Some(d), true) => a.world.git_aliases(d),
        _ => Default::default(),
    };
    let mut expanded = command_effects::git_alias::expand(a.arena(), &call, &persisted);
    // An unknown command git may correct into any other (`help.autocorrect`): which one runs
    // is decided at run time (`git -c help.autocorrect=1 psh origin HEAD:main` pushes).
    if needs_alias && expanded.chain.is_empty() {
        let configured = git_dir.as_deref().and_then(|d| a.world.git_autocorrect(d));
        if command_effects::git_alias::may_autocorrect(&expanded, configured.as_deref()) {
            expanded.call.subcommand = Some(None);
        }
    }
    if let Some(push) = subtree_push(a, inv, &expanded.call, &|n| run.env_value(inv, n)) {
        let expanded = command_effects::git_alias::expand(a.arena(), &push, &Default::default());
        return (
            OpKind::Git {
                call: push,
                expanded,
            },
            git_dir,
        );
    }
    (
        OpKind::Git {
            call: expanded.call.clone(),
            expanded,
        },
        git_dir,
    )
}

/// How deep includes inside a named config file are followed.
const MAX_INCLUDE_DEPTH: usize = 3;

/// The settings of the config files `call` names (command-effects' `git_config_files`), read
/// through the world, includes inside them followed (relative to the including file); a file
/// whose path is decided at run time (but another `HOME`), or that cannot be read or parsed,
/// is a setting decided at run time (any key). A relative `-c include.path` git refuses; a
/// missing file it skips; `/dev/null` is empty.
fn named_config(
    a: &Analysis<'_>,
    call: &GitCall<'_>,
    dir: Option<&std::path::Path>,
    home: Option<&std::path::Path>,
) -> Vec<ConfigSetting> {
    let mut out = Vec::new();
    for f in command_effects::git_config_files::named(call) {
        let path = f.path.as_deref().map(|p| {
            let p = command_effects::scripts::expand_tilde(p, home);
            match (std::path::Path::new(&p).is_absolute(), f.via, dir) {
                (true, _, _) => Some(PathBuf::from(p)),
                (false, "-c include.path", _) => None,
                (false, _, d) => d.map(|d| d.join(p)),
            }
        });
        match path {
            // An empty file, as git reads it.
            Some(Some(p)) if p == std::path::Path::new("/dev/null") => {}
            Some(Some(p)) => read_named(a, f.via, &p, 0, home, &mut out),
            // git refuses a relative include on its command line.
            Some(None) if f.via == "-c include.path" => {}
            // Another home decided at run time is common in test scripts (`export
            // HOME=$(mktemp -d)`) and names no config file in particular: not read here (the
            // exec gate reads the files the running git reads).
            None if matches!(f.via, "HOME" | "XDG_CONFIG_HOME") => {}
            _ => out.push(run_time_setting(f.via)),
        }
    }
    out
}

/// A setting decided at run time (any key, any value).
fn run_time_setting(via: &'static str) -> ConfigSetting {
    ConfigSetting {
        key: String::new(),
        value: None,
        via,
    }
}

/// The entries of the config file at `path` into `out`, in git's order (an include's entries
/// where it stands).
fn read_named(
    a: &Analysis<'_>,
    via: &'static str,
    path: &std::path::Path,
    depth: usize,
    home: Option<&std::path::Path>,
    out: &mut Vec<ConfigSetting>,
) {
    let entries = match a.world.read_config_file(path) {
        Ok(None) => return,
        Ok(Some(text)) => command_effects::git_config_files::entries(&text),
        Err(_) => None,
    };
    let Some(entries) = entries else {
        out.push(run_time_setting(via));
        return;
    };
    for (key, value) in entries {
        let include =
            key == "include.path" || key.starts_with("includeif.") && key.ends_with(".path");
        if include {
            match depth < MAX_INCLUDE_DEPTH {
                true => {
                    let p = command_effects::scripts::expand_tilde(&value, home);
                    let base = path.parent().unwrap_or(std::path::Path::new("/"));
                    read_named(a, via, &base.join(p), depth + 1, home, out);
                }
                false => out.push(run_time_setting(via)),
            }
            continue;
        }
        out.push(ConfigSetting {
            key,
            value: Some(value),
            via,
        });
    }
}

/// A made-up argument: the value, or a word decided at run time (`None`).
fn synthetic_word<'a>(
    arena: &'a bumpalo::Bump,
    v: Option<String>,
    span: shell_syntax::Span,
) -> Arg<'a> {
    match v {
        Some(v) => Arg::synthetic(arena, v, span),
        None => Arg {
            word: shell_syntax::Word::literal(arena, "", span),
            value: None,
        },
    }
}

/// `git subtree push <repository> [<rev>:]<ref>`: git-subtree runs `git push <repository>
/// <split>:refs/heads/<ref>`, judged as that push (the call's own `-C`, `-c` and environment
/// kept; its grammar: command-effects' `git_subtree`). `None` for anything else.
fn subtree_push<'a>(
    a: &Analysis<'a>,
    inv: &Invocation<'a>,
    call: &command_effects::git::GitCall<'a>,
    env: &dyn Fn(&str) -> Option<Option<String>>,
) -> Option<command_effects::git::GitCall<'a>> {
    let (repository, remote_ref) = command_effects::git_subtree::push_target(call)?;
    let arena = a.arena();
    let span = inv.span;
    let word = |v: Option<String>| synthetic_word(arena, v, span);
    let args = vec![
        Arg::synthetic(arena, "push", span),
        word(repository.map(String::from)),
        word(remote_ref.map(|r| format!("HEAD:refs/heads/{r}"))),
    ];
    let mut push = command_effects::git::parse_git_args(&args, env);
    push.dir_changes.clone_from(&call.dir_changes);
    push.config.clone_from(&call.config);
    push.git_dir.clone_from(&call.git_dir);
    push.work_tree.clone_from(&call.work_tree);
    Some(push)
}

/// A gh call, a non-shell alias expanded; a shell alias is judged through its own text.
fn gh_op<'a>(a: &Analysis<'a>, run: &Run<'a>) -> OpKind<'a> {
    let mut args = gh::parse(&run.args);
    let mut alias = None;
    if let Some(top) = args.top.clone() {
        if !gh::is_builtin(&top) {
            if let Some(expansion) = a.gh_aliases().get(&top) {
                alias = Some(top.clone());
                if !expansion.starts_with('!') {
                    args = gh::parse(&expand_gh_alias(a.arena(), expansion, &run.args));
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
            None => gh::is_write_command(&args),
        }
    };
    let runner_repo = run
        .env
        .iter()
        .rev()
        .find(|(k, _)| k.as_str() == "GH_REPO")
        .map(|(_, v)| v.as_deref().map(String::from));
    OpKind::Gh {
        args,
        api,
        write,
        alias,
        runner_repo,
    }
}

/// The gh-pages publisher commits a folder and pushes it to `-b/--branch` (default `gh-pages`)
/// of `-o/--remote` (default origin) or `-r/--repo`: judged as that push.
fn gh_pages_op<'a>(a: &Analysis<'a>, inv: &Invocation<'a>, run: &Run<'a>) -> OpKind<'a> {
    let span = inv.span;
    let vals: Vec<Option<&str>> = run.args.iter().map(|a| a.value.as_deref()).collect();
    let opt = |short: &str, long: &str| -> Option<Option<String>> {
        let mut found = None;
        for (i, v) in vals.iter().enumerate() {
            match v {
                Some(v) if *v == short || *v == long => {
                    found = Some(vals.get(i + 1).copied().flatten().map(String::from))
                }
                Some(v) if v.starts_with(&format!("{long}=")) => {
                    found = Some(Some(v[long.len() + 1..].to_string()))
                }
                _ => {}
            }
        }
        found
    };
    let arena = a.arena();
    let word = |v: Option<String>| synthetic_word(arena, v, span);
    let remote = opt("-r", "--repo")
        .or_else(|| opt("-o", "--remote"))
        .unwrap_or(Some("origin".into()));
    let branch = opt("-b", "--branch").unwrap_or(Some("gh-pages".into()));
    let refspec = branch.map(|b| format!("HEAD:refs/heads/{b}"));
    let args = vec![
        Arg::synthetic(arena, "push", span),
        word(remote),
        word(refspec),
    ];
    let call = command_effects::git::parse_git_args(&args, &|n| run.env_value(inv, n));
    let expanded = command_effects::git_alias::expand(arena, &call, &Default::default());
    OpKind::Git { call, expanded }
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

/// A write method sent to a GitHub API host by an HTTP client (read by
/// [`command_effects::http`]); a method decided at run time counts as a write.
fn http_write(
    program: &str,
    args: &[Arg],
    a: &Analysis<'_>,
) -> Option<(String, String, bool, Option<http::Body>)> {
    let call = http::read(program, args)?;
    let url = call.urls.iter().flatten().find(|v| {
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
    // HTTPie and xh take `host/path` without a scheme.
    let url = if url.contains("://") {
        url.to_string()
    } else {
        format!("https://{url}")
    };
    call.is_write().then(|| {
        (
            call.method.clone().unwrap_or_else(|| "<dynamic>".into()),
            url,
            call.discards_response(),
            call.body.clone(),
        )
    })
}
