//! What a Bash command does to files and to the network, read through `shell-syntax`.
//!
//! Every simple command bash would run (including `sh -c`/`eval`/heredoc scripts, after wrappers
//! such as `sudo`, `env`, `timeout` are unwrapped) is classified: which paths it reads, writes or
//! merely names, which hosts it contacts, and which interpreter one-liners (`python3 -c`,
//! `node -e`, ...) it runs. Paths are resolved after the `cd`s that ran before the command, with
//! `~`, `$HOME` and `$PWD` expanded. A word decided at run time (`$(...)`, an unknown variable) is
//! left out: there is no evidence of what it names.
//!
//! The rules (I1 paths and network, I3 tamper) are pure functions over these facts.

use crate::bash_programs::{classify, operands, value_of};
use crate::paths;
use command_effects::dirs;
use command_effects::functions::Functions;
use command_effects::{resolve, Run};
use shell_syntax::view::is_interpreter;
use shell_syntax::view::{AppliedRedirect, Invocation, InvocationKind, PipePos};
use shell_syntax::{RedirOp, Word};
use std::path::{Path, PathBuf};

/// Where the command runs.
#[derive(Debug, Clone, Copy)]
pub struct Env<'a> {
    pub cwd: Option<&'a Path>,
    pub home: Option<&'a Path>,
    /// The hook's own values of [`HOOK_VARS`] (the command runs with the same environment).
    pub vars: &'a [(String, String)],
}

#[cfg(test)]
impl Env<'static> {
    /// The tests' environment: run in `/work/proj`, `~` at `/home/u` when `home` (else not known),
    /// none of the hook's variables.
    pub(crate) fn project(home: bool) -> Env<'static> {
        Env {
            cwd: Some(Path::new("/work/proj")),
            home: home.then(|| Path::new("/home/u")),
            vars: &[],
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    /// `destructive`: removes, moves or re-permissions, so naming an ancestor reaches what is in it.
    Write {
        destructive: bool,
    },
    /// Named by a program whose use we do not know to be read-only.
    Names,
}

/// One path a command uses.
#[derive(Debug, Clone, PartialEq)]
pub struct PathUse {
    /// The word's text after `~`/`$HOME` expansion (relative when the `cd`s could not be followed).
    pub text: String,
    /// Absolute and normalised, when it could be made so.
    pub path: Option<PathBuf>,
    /// The text is a glob pattern (matched against targets instead of compared).
    pub glob: bool,
    pub access: Access,
    pub program: String,
    /// The call writes entries inside this folder, chosen by an archive or a source tree the
    /// command line does not show (`tar -x -C d`, `unzip -d d`, `cp -r src/. d`).
    pub fills: bool,
}

/// One network destination a command contacts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destination {
    pub host: String,
    pub port: Option<u16>,
    pub program: String,
    /// The word it was read from.
    pub raw: String,
}

impl Destination {
    pub fn display(&self) -> String {
        match self.port {
            Some(p) => format!("{}:{p}", self.host),
            None => self.host.clone(),
        }
    }
}

/// An interpreter one-liner (or heredoc script) a command runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineScript {
    pub program: String,
    pub text: String,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct BashFacts {
    pub paths: Vec<PathUse>,
    pub destinations: Vec<Destination>,
    pub scripts: Vec<InlineScript>,
    /// A parse or view limit cut the analysis short (the command is then judged on what was seen).
    pub incomplete: Option<String>,
    /// Scripts the command runs that lie past a read bound (more than
    /// [`MAX_SCRIPT_DEPTH`] deep, over [`MAX_SCRIPT_BYTES`]): what they write is unknown
    /// (I3.past-bound, issue 47).
    pub past_bound: Vec<String>,
    /// Writes whose target is decided at run time: the program and the texts that may build
    /// the target (the word as written, and where the command sets each variable it uses:
    /// `p=...`, `for p in ...`, `printf -v p ...`, `read p <<< ...`), for a rule that fails
    /// closed when those texts name a protected location.
    pub run_time_writes: Vec<RunTimeWrite>,
}

/// A write to a path decided at run time (see [`BashFacts::run_time_writes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunTimeWrite {
    pub program: String,
    /// The target word as written, then the text of each place that sets a variable in it.
    pub sources: Vec<String>,
}

/// The texts that may build a run-time word of `text` (the whole command): the word as written,
/// and for each variable in it the rest of the line (up to `;` or a new line, `do` for a `for`)
/// wherever the command sets it.
fn run_time_sources(word: &Word, text: &str) -> Vec<String> {
    use shell_syntax::ast::WordPart;
    fn names<'w>(parts: &[WordPart<'w>], out: &mut Vec<&'w str>) {
        for p in parts {
            match p {
                WordPart::Param(pe) => out.push(pe.name),
                WordPart::DoubleQuoted(inner) => names(inner, out),
                _ => {}
            }
        }
    }
    let mut out = vec![text
        .get(word.span.start as usize..word.span.end as usize)
        .unwrap_or_default()
        .to_string()];
    let mut vars = Vec::new();
    names(word.parts, &mut vars);
    for v in vars {
        if v.is_empty() || !v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            continue;
        }
        for pattern in [
            format!("{v}="),
            format!("for {v} in"),
            format!("-v {v} "),
            format!("read {v}"),
            format!("read -r {v}"),
        ] {
            for (at, _) in text.match_indices(&pattern) {
                let rest = &text[at..];
                let end = rest.find(['\n', ';']).unwrap_or(rest.len());
                out.push(rest[..end].to_string());
            }
        }
    }
    out
}

/// Variables a command may spell a protected path with, read from the hook's environment
/// unless the command assigns them (`$HOME` is [`Env::home`]).
pub const HOOK_VARS: &[&str] = &[
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "AGENT_GUARDS_CONFIG",
    // Not a path spelling: a relative `cd` searches it first, as bash does.
    "CDPATH",
];

use command_effects::scripts::{MAX_SCRIPT_BYTES, MAX_SCRIPT_DEPTH};

/// Analyses a Bash command, and the scripts it runs by path (`bash s.sh`, `./x.sh`, `source
/// x.sh`): a script the command wrote first holds what it wrote.
pub fn analyse(command: &str, env: &Env) -> BashFacts {
    analyse_at(command, env, 0, &[])
}

/// `written`: what the callers of a script wrote before running it ([`command_effects::scripts::Reading::written`]).
fn analyse_at(
    command: &str,
    env: &Env,
    depth: usize,
    written: &[(PathBuf, Option<String>)],
) -> BashFacts {
    let parsed = shell_syntax::parse(command);
    let view = shell_syntax::commands(&parsed);
    let mut facts = BashFacts {
        incomplete: view
            .error
            .as_ref()
            .map(|e| e.to_string())
            .or_else(|| parsed.error.as_ref().map(|e| e.to_string())),
        ..BashFacts::default()
    };
    // The directory each invocation runs in, read by command-effects (`CDPATH`, functions that
    // shadow `cd`/`pushd`/`popd` or change directory when called).
    let is_dir = |p: &Path| p.is_dir();
    let dcx = dirs::DirCx {
        home: env.home,
        cdpath: env.var("CDPATH"),
        is_dir: &is_dir,
    };
    let ix = dirs::DirIndex::of(&view, env.home);
    let dir_of = |inv: &Invocation| {
        let base = env.cwd?;
        dirs::dir_of(&view, &ix, inv, base, &dcx)
    };
    let funcs = Functions::of(&view);
    let arena = bumpalo::Bump::new();
    // What `{}` stands for in the `-exec` commands of the `find` just read, and the last
    // pipeline stage read (what it prints may feed an `xargs`).
    let mut found: Vec<Option<String>> = Vec::new();
    let mut stage: Option<(PipePos, Seen)> = None;
    for inv in &view.invocations {
        if inv.kind != InvocationKind::FindExec {
            found.clear();
        }
        let piped = piped_items(inv, stage.as_ref());
        let ctx = Ctx {
            inv,
            env,
            cwd: dir_of(inv),
            program: String::new(),
            text_of_origin: inv
                .origin
                .last()
                .and_then(|&o| view.origins.get(o))
                .map_or(command, |o| o.text.as_str()),
        };
        let braced = inv
            .name()
            .is_none()
            .then(|| resolve(&funcs, inv, &arena))
            .filter(|r| r.name().is_some());
        let Some(seen) = invocation(ctx, braced.as_ref(), &found, &piped, &mut facts) else {
            continue;
        };
        if seen.program == "find" && inv.kind != InvocationKind::FindExec {
            found = command_effects::find::found_patterns(&seen.values());
        }
        if let Some(pos) = inv.context.pipeline {
            stage = Some((pos, seen));
        }
    }
    crate::bash_network::destinations(&view, &mut facts.destinations);
    let scripts = facts.scripts.clone();
    for s in &scripts {
        crate::bash_network::urls_in_text(&s.program, &s.text, &mut facts.destinations);
    }
    if depth >= MAX_SCRIPT_DEPTH {
        // At the bound the scripts this text runs are found, not read: unknown.
        if let Some(cwd) = env.cwd {
            let exists = |p: &Path| primitives::read::prefix(p, 0).map(|_| String::new());
            let at = command_effects::scripts::Reading {
                base: cwd,
                dirs: &dcx,
                read: &exists,
                written,
            };
            for s in command_effects::scripts::scripts_run(command, &at) {
                if let (Some((full, _)), Some(_)) = (&s.at, &s.text) {
                    facts.past_bound.push(full.display().to_string());
                }
            }
        }
    }
    if depth < MAX_SCRIPT_DEPTH {
        // Shell text git runs (`rebase -x`, an editor, `core.fsmonitor`: command-effects'
        // `git_runs`) does what a command line would, in the invocation's folder.
        for inv in view.invocations.iter().filter(|i| i.name() == Some("git")) {
            let call = command_effects::git::parse_git(inv);
            for h in command_effects::git_runs::handed(&call) {
                let Some(text) = h.text else { continue };
                let dir = dir_of(inv);
                let inner = Env {
                    cwd: dir.as_deref(),
                    ..*env
                };
                let more = analyse_at(&text, &inner, depth + 1, &[]);
                facts.paths.extend(more.paths);
                facts.destinations.extend(more.destinations);
                facts.scripts.extend(more.scripts);
                facts.past_bound.extend(more.past_bound);
            }
        }
        if let Some(cwd) = env.cwd {
            let too_large = std::cell::RefCell::new(Vec::new());
            let read = |p: &Path| {
                read_script(p).unwrap_or_else(|past| {
                    too_large.borrow_mut().push(past);
                    None
                })
            };
            let at = command_effects::scripts::Reading {
                base: cwd,
                dirs: &dcx,
                read: &read,
                written,
            };
            for s in command_effects::scripts::scripts_run(command, &at) {
                let (Some((_, dir)), Some(text)) = (&s.at, &s.text) else {
                    continue;
                };
                let inner = Env {
                    cwd: Some(dir),
                    ..*env
                };
                let more = analyse_at(text, &inner, depth + 1, s.written());
                facts.paths.extend(more.paths);
                facts.destinations.extend(more.destinations);
                facts.scripts.extend(more.scripts);
                facts.past_bound.extend(more.past_bound);
            }
            facts.past_bound.extend(too_large.into_inner());
        }
    }
    facts
}

/// A script's text, bounded ([`MAX_SCRIPT_BYTES`]; regular files only: a FIFO would block):
/// `Ok(None)` when there is none to read (or it is a program: a NUL near its start, which bash
/// would not run as a script), `Err(path)` when it is larger than the bound (never read in part:
/// the rest would be unseen).
fn read_script(path: &Path) -> Result<Option<String>, String> {
    let Some(head) = primitives::read::prefix(path, 512) else {
        return Ok(None);
    };
    if head.contains(&0) {
        return Ok(None);
    }
    let Some(bytes) = primitives::read::prefix(path, MAX_SCRIPT_BYTES + 1) else {
        return Ok(None);
    };
    if bytes.len() as u64 > MAX_SCRIPT_BYTES {
        return Err(path.display().to_string());
    }
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

impl Env<'_> {
    /// The hook's value of one of [`HOOK_VARS`].
    fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

fn program_name(inv: &Invocation) -> Option<String> {
    let name = inv.name()?.to_ascii_lowercase();
    // `python3.12` is `python3`.
    let trimmed = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    Some(if trimmed.starts_with("python") && trimmed != name {
        "python3".to_string()
    } else {
        name
    })
}

/// A word's text with `~`, `$HOME`, `$PWD` and the command's static assignments expanded; globs
/// kept as pattern text (second value true). `None` when run time decides it.
fn word_text(word: &Word, lookup: &dyn Fn(&str) -> Option<String>) -> Option<(String, bool)> {
    word.resolve_pattern(lookup)
}

struct Ctx<'a> {
    inv: &'a Invocation<'a>,
    env: &'a Env<'a>,
    cwd: Option<PathBuf>,
    program: String,
    /// The text the invocation's spans point into (the command, or its nested script).
    text_of_origin: &'a str,
}

impl Ctx<'_> {
    fn lookup(&self, name: &str) -> Option<String> {
        self.lookup_at(name, 0)
    }

    /// `name`'s value: an assignment the command made (`H=$HOME; ... $H`, `D=~/.claude`) is
    /// itself expanded, a few levels deep (a self-reference such as `X=$X/b` stays unknown:
    /// bash's value depends on the order, which the newest-per-name environment does not keep).
    fn lookup_at(&self, name: &str, depth: usize) -> Option<String> {
        if let Some(v) = self.inv.env_value(name) {
            let arg = v.value.as_ref()?;
            if let Some(t) = arg.value.as_deref() {
                return Some(t.to_string());
            }
            if depth >= 4 {
                return None;
            }
            return arg.word.resolve(&|n| self.lookup_at(n, depth + 1));
        }
        match name {
            "HOME" => self.env.home.map(|h| h.to_string_lossy().into_owned()),
            "PWD" => self.cwd.as_ref().map(|c| c.to_string_lossy().into_owned()),
            _ => self
                .env
                .vars
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone()),
        }
    }

    fn text(&self, word: &Word) -> Option<(String, bool)> {
        word_text(word, &|n| self.lookup(n))
    }

    /// Records a write to a target decided at run time, with the texts that may build it.
    fn run_time_write(&self, word: &Word, facts: &mut BashFacts) {
        facts.run_time_writes.push(RunTimeWrite {
            program: self.program.clone(),
            sources: run_time_sources(word, self.text_of_origin),
        });
    }

    fn path_use(&self, text: &str, glob: bool, access: Access) -> PathUse {
        PathUse {
            text: text.to_string(),
            path: paths::absolute(text, self.cwd.as_deref(), self.env.home),
            glob,
            access,
            program: self.program.clone(),
            fills: false,
        }
    }
}

/// A call as read: its program and its words' texts.
struct Seen {
    program: String,
    words: Vec<Option<(String, bool)>>,
}

impl Seen {
    fn values(&self) -> Vec<Option<&str>> {
        self.words
            .iter()
            .map(|w| w.as_ref().map(|(t, _)| t.as_str()))
            .collect()
    }
}

/// The items an `xargs` wrapping `inv` reads from the pipeline stage before it, when that
/// stage prints known words (`echo ~/.x/f | xargs rm`).
fn piped_items(inv: &Invocation, stage: Option<&(PipePos, Seen)>) -> Vec<String> {
    let (Some(pos), Some((prev, seen))) = (&inv.context.pipeline, stage) else {
        return Vec::new();
    };
    let Some(xargs) = inv.wrappers.iter().find(|w| w.name == "xargs") else {
        return Vec::new();
    };
    if pos.index == 0 || prev.index + 1 != pos.index || prev.len != pos.len {
        return Vec::new();
    }
    let options: Vec<Option<&str>> = xargs.args.iter().map(|a| a.value.as_deref()).collect();
    command_effects::piped::xargs_items(&options, &seen.program, &seen.values()).unwrap_or_default()
}

/// Reads one invocation into `facts`: `braced` is what command-effects made of a brace-built
/// program word (`{tee,f}`), `found` what `{}` stands for when it is a `find -exec` command,
/// `piped` the items an `xargs` around it appends.
fn invocation(
    mut ctx: Ctx,
    braced: Option<&Run>,
    found: &[Option<String>],
    piped: &[String],
    facts: &mut BashFacts,
) -> Option<Seen> {
    let inv = ctx.inv;
    let program = match braced {
        Some(run) => run.name().map(str::to_ascii_lowercase).unwrap_or_default(),
        None => program_name(inv).unwrap_or_default(),
    };
    ctx.program = program.clone();
    for r in &inv.redirects {
        redirect(&ctx, r, facts);
    }
    if program.is_empty() || inv.kind == InvocationKind::ArithCommand {
        return None;
    }
    // git's path operands are relative to the folder after its `-C`s (its redirections to
    // the shell's).
    if program == "git" {
        let home = ctx.env.home;
        // `-C ~/x`: the tilde expanded as bash does (G6 reads git's folder the same way).
        let args: Vec<shell_syntax::view::Arg> = inv
            .args
            .iter()
            .map(|a| shell_syntax::view::Arg {
                word: a.word,
                value: dirs::expand_home(a, home).map(Into::into),
            })
            .collect();
        let call = command_effects::git::parse_git_args(&args, &|_| None);
        ctx.cwd = ctx.cwd.and_then(|d| dirs::after_git_c(&d, &call, home));
    }
    let args = braced.map_or(inv.args.as_slice(), |r| r.args.as_slice());
    let mut words: Vec<Option<(String, bool)>> = args
        .iter()
        .map(|a| match a.value.as_deref() {
            Some(v) if braced.is_some() => Some((v.to_string(), false)),
            _ => ctx.text(&a.word),
        })
        .collect();
    words.extend(piped.iter().map(|p| Some((p.clone(), paths::has_glob(p)))));
    crate::bash_network::piped_destinations(&program, piped, &mut facts.destinations);
    // In a `find -exec` command, `{}` is each file found: one reading per start folder.
    let found_words = |pattern: &Option<String>| -> Vec<Option<(String, bool)>> {
        words
            .iter()
            .map(|w| match (w, pattern) {
                (Some((t, _)), Some(p)) if t.contains("{}") => Some((t.replace("{}", p), true)),
                (Some((t, _)), None) if t.contains("{}") => None,
                (w, _) => w.clone(),
            })
            .collect()
    };
    let readings: Vec<Vec<Option<(String, bool)>>> =
        if inv.kind == InvocationKind::FindExec && !found.is_empty() {
            found.iter().map(found_words).collect()
        } else {
            vec![words.clone()]
        };
    for words in &readings {
        path_uses(&ctx, words, facts);
    }
    if is_interpreter(&program) {
        inline_scripts(&program, &words, inv, facts);
    }
    Some(Seen { program, words })
}

/// The paths one reading of a call's words uses.
fn path_uses(ctx: &Ctx, words: &[Option<(String, bool)>], facts: &mut BashFacts) {
    let mut uses = classify(&ctx.program, words);
    table_changes(ctx, words, &mut uses, facts);
    for (i, access) in uses {
        match words.get(i) {
            Some(Some((t, glob))) => {
                facts
                    .paths
                    .push(ctx.path_use(strip_operand_prefix(t), *glob, access));
            }
            Some(None) if matches!(access, Access::Write { .. }) => {
                // `words` are the call's arguments after the program.
                if let Some(a) = ctx.inv.args.get(i) {
                    ctx.run_time_write(&a.word, facts);
                }
            }
            _ => {}
        }
    }
    // `cp a b dir/` writes `dir/a`: the destination's own entries are checked too.
    copy_targets(&ctx.program, words, ctx, facts);
}

/// What the shared table of writers (command-effects: `uniq IN OUT`, `tree -o`, `xxd -r`,
/// `tar -x -C`, `unzip -d`, `gunzip -f`, `cp -r`, ...) says the call writes, removes or fills:
/// added to what this reader saw (a word it already reads as written keeps its own access).
fn table_changes(
    ctx: &Ctx,
    words: &[Option<(String, bool)>],
    uses: &mut Vec<(usize, Access)>,
    facts: &mut BashFacts,
) {
    use command_effects::files::{changed_words, Change};
    let values: Vec<Option<&str>> = words
        .iter()
        .map(|w| w.as_ref().map(|(t, _)| t.as_str()))
        .collect();
    for (i, change, part) in changed_words(&ctx.program, &values) {
        let fills = change == Change::Fills;
        let access = Access::Write {
            destructive: change == Change::Removes,
        };
        let glob = words.get(i).and_then(|w| w.as_ref()).is_some_and(|w| w.1);
        match part {
            // Only part of the word (`dd of=f`, `--directory=d`) or a name the call derives
            // (`cp -r src d/` fills `d/src`; `tar -x` without `-C` fills `.`).
            Some(text) => facts.paths.push(PathUse {
                fills,
                ..ctx.path_use(&text, glob, access)
            }),
            None if fills => {
                if let Some(Some((t, glob))) = words.get(i) {
                    facts.paths.push(PathUse {
                        fills,
                        ..ctx.path_use(t, *glob, access)
                    });
                }
            }
            None if i < words.len()
                && !uses
                    .iter()
                    .any(|(j, a)| *j == i && matches!(a, Access::Write { .. })) =>
            {
                uses.retain(|(j, _)| *j != i);
                uses.push((i, access));
            }
            None => {}
        }
    }
}

fn redirect(ctx: &Ctx, r: &AppliedRedirect, facts: &mut BashFacts) {
    let access = match r.op {
        RedirOp::Out
        | RedirOp::Append
        | RedirOp::Clobber
        | RedirOp::ReadWrite
        | RedirOp::OutErr
        | RedirOp::AppendOutErr => Access::Write { destructive: false },
        RedirOp::DupOut => {
            // `>&2`, `>&-` duplicate descriptors; `>&file` writes a file.
            match r.target.value.as_deref() {
                Some(v) if v == "-" || v.chars().all(|c| c.is_ascii_digit()) => return,
                _ => Access::Write { destructive: false },
            }
        }
        RedirOp::In => Access::Read,
        RedirOp::Heredoc | RedirOp::HeredocStrip | RedirOp::HereString => {
            if is_interpreter(&ctx.program) {
                let text = match &r.heredoc {
                    Some(h) => shell_syntax::printer::word(&h.body),
                    None => shell_syntax::printer::word(&r.target.word),
                };
                facts.scripts.push(InlineScript {
                    program: ctx.program.clone(),
                    text,
                });
            }
            return;
        }
        _ => return,
    };
    match ctx.text(&r.target.word) {
        Some((t, glob)) => facts.paths.push(ctx.path_use(&t, glob, access)),
        None if matches!(access, Access::Write { .. }) => {
            ctx.run_time_write(&r.target.word, facts);
        }
        None => {}
    }
}

/// `dd`'s `of=`/`if=` operands and `--opt=value` words name the path after the `=`.
pub fn strip_operand_prefix(text: &str) -> &str {
    for p in ["of=", "if="] {
        if let Some(rest) = text.strip_prefix(p) {
            return rest;
        }
    }
    match text.split_once('=') {
        Some((k, v)) if k.starts_with("--") => v,
        _ => text,
    }
}

fn copy_targets(program: &str, words: &[Option<(String, bool)>], ctx: &Ctx, facts: &mut BashFacts) {
    if !matches!(program, "cp" | "mv" | "install" | "ln" | "rsync") {
        return;
    }
    let ops = operands(words, &["-t", "--target-directory", "-m", "-o", "-g", "-S"]);
    let (dest, sources): (Option<&str>, Vec<usize>) =
        match value_of(words, "-t", "--target-directory") {
            Some((_, d)) => (Some(d), ops.clone()),
            None => match ops.split_last() {
                Some((d, s)) => (words[*d].as_ref().map(|(t, _)| t.as_str()), s.to_vec()),
                None => (None, Vec::new()),
            },
        };
    let Some(dest) = dest else { return };
    for s in sources {
        let Some(Some((src, glob))) = words.get(s) else {
            continue;
        };
        let name = src.trim_end_matches('/').rsplit('/').next().unwrap_or(src);
        if name.is_empty() {
            continue;
        }
        let joined = format!("{}/{name}", dest.trim_end_matches('/'));
        let destructive = program == "mv";
        facts
            .paths
            .push(ctx.path_use(&joined, *glob, Access::Write { destructive }));
    }
}

fn inline_scripts(
    program: &str,
    words: &[Option<(String, bool)>],
    inv: &Invocation,
    facts: &mut BashFacts,
) {
    let flags: &[&str] = shell_syntax::view::interpreter(program).map_or(&[], |i| i.code_options);
    for (i, w) in words.iter().enumerate() {
        let Some((t, _)) = w else { continue };
        // `-c` clustered with other flags (`python3 -Sc '...'`, `perl -pie '...'`).
        let is_flag = flags.contains(&t.as_str())
            || (t.starts_with('-')
                && !t.starts_with("--")
                && flags.iter().any(|f| f.len() == 2 && t.ends_with(&f[1..])));
        if is_flag {
            let text = match words.get(i + 1) {
                Some(Some((s, _))) => s.clone(),
                // A dynamic script: its static parts are still worth reading.
                _ => inv
                    .args
                    .get(i + 1)
                    .map(|a| shell_syntax::printer::word(&a.word))
                    .unwrap_or_default(),
            };
            facts.scripts.push(InlineScript {
                program: program.to_string(),
                text,
            });
        }
    }
}

#[cfg(test)]
#[path = "bash_facts_tests.rs"]
mod tests;
