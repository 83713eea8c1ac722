//! gh-write-guard's face (K10): what the other readers of an act use of this guard. The exec
//! gate (crate `second-line`) and the broker hand it a [`GitHubOp`] and get a
//! [`Refusal`] or nothing; which requirements an exec can meet and which of its arguments
//! decide that ([`Reach`]) is this guard's git policy, kept here, not in its readers.
//!
//! The rest of the crate is the hook's inside. What a reader needs besides the judgement is
//! the world the rules consult ([`RealWorld`] and the repository lending that lets one
//! supervisor keep repositories open across execs) and the codes.

pub use crate::context::Context;
use crate::finding::{first_deny, Finding, Requirement};
pub use crate::g2_node_ids::node_ids_in;
pub use crate::g6_primary_checkout::GRANT as PRIMARY_CHECKOUT_GRANT;
pub use crate::g6_repo_kind::existing_ancestor;
pub use crate::real_world::{LedgerRulesCache, OpenRepo, RealWorld, RealWorldConfig, RepoLender};
pub use crate::wire::WirePush;
pub use crate::wire_api::{MergeState, PullRef, WireApi, WireFacts};
pub use crate::world::World;
pub use crate::world::{LookupError, RepoKind, RepoSlug};
pub use safety_kernel::Refusal;
use serde_json::json;
use std::path::Path;

/// One GitHub operation as a reader gives it.
pub enum GitHubOp<'a> {
    /// A `git` or `gh` exec: its literal argv, never quoted back into shell text (except the
    /// one case [`Reach::All`] documents).
    Exec(ExecCall<'a>),
    /// A `git-receive-pack` request read off the wire: its repository and ref updates.
    WirePush(&'a WirePush),
    /// A REST or GraphQL request read off the wire, with what the wire knows besides it (a
    /// merge's state, the node ids GitHub returned in the session).
    WireApi(&'a WireApi, &'a WireFacts<'a>),
    /// A command line (the hook's reader; the readers' agreement tests).
    Text(&'a str),
}

/// An exec of `git` or `gh` as the exec gate read it from the process.
pub struct ExecCall<'a> {
    /// The program's base name (`git`, `gh`).
    pub program: &'a str,
    /// The argument vector as passed (`argv[0]` is the program).
    pub argv: &'a [String],
    /// The process's working directory.
    pub cwd: &'a Path,
    /// The exec's own variables that [`counts`] (the caller drops the rest).
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// The names `env` answers.
    pub names: &'a [&'a str],
    /// [`exec_reach`] of `argv` when the caller already asked it (`None`: asked here).
    pub reach: Option<Reach>,
    /// The exec as the reasons show a command: its command line, built only when a reason or
    /// [`Reach::All`] needs it.
    pub text: &'a dyn Fn() -> String,
}

/// The requirements an exec or a request on the wire is judged by: G1 and G7 read the shell
/// text around a program, which neither has.
pub fn applies_beyond_text(r: Requirement) -> bool {
    matches!(
        r,
        Requirement::G2 | Requirement::G3 | Requirement::G4 | Requirement::G5 | Requirement::G6
    )
}

/// The verdict on `op` for the session `cx` describes, with the rules' outside facts from
/// `world`: the first deny in the requirements' order, as the hook picks it.
pub fn judge(op: &GitHubOp<'_>, cx: &Context, world: &dyn World) -> Option<Refusal> {
    let (findings, command) = match op {
        GitHubOp::Exec(call) => (judge_exec(call, cx, world), (call.text)()),
        GitHubOp::WirePush(push) => (
            crate::wire::judge_push(push, cx, world),
            format!("git push (on the wire) to {}", push.repo),
        ),
        GitHubOp::WireApi(api, facts) => (
            crate::wire_api::judge_api(api, facts, cx, world),
            format!(
                "{} {} (on the wire, {})",
                api.call.method.as_deref().unwrap_or("?"),
                api.call.endpoint.as_deref().unwrap_or("?"),
                api.host
            ),
        ),
        GitHubOp::Text(line) => (
            crate::judge::judge_requirements(line, cx, world, &applies_beyond_text).findings,
            line.to_string(),
        ),
    };
    let denies: Vec<Finding> = findings
        .into_iter()
        .filter(|f| f.is_deny() && applies_beyond_text(f.requirement))
        .collect();
    first_deny(&denies).map(|f| Refusal {
        code: f.code_str().to_string(),
        reason: f.reason(),
        evidence: json!({"command": command, "finding": f.evidence}),
    })
}

fn judge_exec(call: &ExecCall<'_>, cx: &Context, world: &dyn World) -> Vec<Finding> {
    let reach = match call.program {
        "git" => call.reach.unwrap_or_else(|| exec_reach(call.argv)),
        _ => Reach::All,
    };
    // A hooked call or a push that names config files of its own is read over its command line
    // (their settings: a hooks path, a remote's URL).
    let reach = match reach {
        Reach::Hooks | Reach::Push if names_config_files(call) => Reach::All,
        r => r,
    };
    match reach {
        // Straight from the argv: the same verdicts as over the command line.
        Reach::Read | Reach::Checkout | Reach::Hooks => crate::exec_argv::judge_git(
            call.argv,
            call.env,
            call.cwd,
            cx,
            world,
            reach == Reach::Hooks,
        ),
        Reach::Push => {
            crate::exec_argv::judge_push(call.argv, call.env, call.cwd, cx, world, &|| {
                command_text(&(call.text)())
            })
        }
        Reach::All => {
            crate::judge::judge_requirements(&(call.text)(), cx, world, &applies_beyond_text)
                .findings
        }
    }
}

/// An exec's command line as the reasons show a command: its first 160 characters.
fn command_text(line: &str) -> String {
    line.chars().take(160).collect()
}

/// Whether a `git` exec reads config files it names (`-c include.path`, `GIT_CONFIG_GLOBAL`,
/// another `HOME`, ...): their settings (a hooks path, aliases) are read over its command line.
fn names_config_files(call: &ExecCall<'_>) -> bool {
    // Most execs name none: no word of an include, no variable that moves or sets config.
    let include = call
        .argv
        .iter()
        .any(|a| a.len() > 7 && a.to_ascii_lowercase().contains("include"));
    if !include
        && !call
            .names
            .iter()
            .any(|n| n.starts_with("GIT_CONFIG") || moves_git_config(n))
    {
        return false;
    }
    let arena = bumpalo::Bump::new();
    let args = command_effects::exec_args::literal_args(&arena, call.argv);
    let git = command_effects::git::parse_git_args(&args, &|n| (call.env)(n).map(Some));
    !command_effects::git_config_files::named(&git).is_empty()
}

/// Whether an exec's variable `name` may be read with its command: [`part_of_command`], a
/// hook manager's switch, a variable that moves git's config files ([`counts`] says when).
pub fn reads_var(name: &str) -> bool {
    part_of_command(name) || hook_switch(name) || moves_git_config(name)
}

/// Whether the exec's `name=value` is read with its command, the session's launch environment
/// giving `launch_value`: one [`part_of_command`] always; a hook manager's switch or
/// `HOME`/`XDG_CONFIG_HOME` only when the agent changed it (an exported `HUSKY=0` is the
/// maintainer's own and must not refuse every commit of the session; another home's files
/// are the ones its git reads).
pub fn counts(name: &str, value: &str, launch_value: Option<&str>) -> bool {
    part_of_command(name)
        || (hook_switch(name) || moves_git_config(name)) && launch_value != Some(value)
}

/// `GIT_*` and `GH_HOST`/`GH_REPO`: part of the command whatever the session was launched
/// with; never a secret or a grant (`GIT_CONFIG_KEY_<n>` names a setting, not a secret).
pub fn part_of_command(name: &str) -> bool {
    let relevant = name.starts_with("GIT_")
        || name.starts_with("GH_") && (name == "GH_HOST" || name == "GH_REPO");
    relevant
        && (name.starts_with("GIT_CONFIG_KEY_")
            || !["TOKEN", "PASSWORD", "SECRET", "_KEY", "ALLOW"]
                .iter()
                .any(|s| name.contains(s)))
}

/// A hook manager's switch (`HUSKY`, `SKIP`, ...: command-effects' `HOOK_SKIPS`), which G4
/// reads from a hooked git call's environment.
fn hook_switch(name: &str) -> bool {
    command_effects::git::HOOK_SKIPS
        .iter()
        .any(|(n, _)| *n == name)
}

/// `HOME`, `XDG_CONFIG_HOME`: they move the config files git reads (the `GIT_CONFIG_*` ones
/// are rule-relevant already).
fn moves_git_config(name: &str) -> bool {
    matches!(name, "HOME" | "XDG_CONFIG_HOME")
}

/// git's subcommands that run the hooks G4 keeps from being skipped but push nothing: G4's
/// hook check and G6 read them, whatever their arguments.
const GIT_HOOKED: [&str; 4] = ["commit", "merge", "am", "pull"];

/// Which of G2–G6 can refuse a `git` exec, from its arguments alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// None ([`git_read`]).
    Read,
    /// G6 only: a builtin subcommand that mutates a checkout but neither pushes (G3, G4) nor
    /// runs hooks G4 guards; G2 and G5 read `gh api` only.
    Checkout,
    /// G4's hook check and G6: `commit`, `merge`, `am`, `pull` (builtins that run hooks G4
    /// guards and push nothing, so G3 and G4's branch rules have nothing to read).
    Hooks,
    /// G3, G4 and G6 over the push's plan: the builtin `push`, and what command-effects reads
    /// as one (`send-pack`, a remote helper's half).
    Push,
    /// All of them, over the exec's command line: an alias, a subcommand decided at run time,
    /// a call that names config files, any `gh`. The one place an argv is quoted into text
    /// (an alias's expansion is shell text of its own).
    All,
}

/// Whether a `git` exec is one G2–G6 cannot refuse, from its arguments alone (git's own option
/// grammar): no subcommand (`git --version`), or a builtin one (an alias cannot shadow a
/// builtin) that neither pushes, nor runs hooks G4 guards, nor mutates a checkout (G6, asked
/// both ways where it depends on a ref). What a pager or helper runs is an exec of its own.
pub fn git_read(argv: &[String]) -> bool {
    exec_reach(argv) == Reach::Read
}

/// [`Reach`] of a `git` argv.
pub fn exec_reach(argv: &[String]) -> Reach {
    let arena = bumpalo::Bump::new();
    let args = command_effects::exec_args::literal_args(&arena, argv);
    let call = command_effects::git::parse_git_args(&args, &|_| None);
    let sub = match &call.subcommand {
        None => return Reach::Read,
        Some(None) => return Reach::All,
        Some(Some(sub)) => sub.as_str(),
    };
    if sub == "push" {
        return Reach::Push;
    }
    if !command_effects::git_alias::is_builtin(sub) {
        return Reach::All;
    }
    if GIT_HOOKED.contains(&sub) {
        return Reach::Hooks;
    }
    let words: Vec<String> = std::iter::once(sub.to_string())
        .chain(
            call.args
                .iter()
                .filter_map(|a| a.value.as_deref().map(String::from)),
        )
        .collect();
    let read = [true, false].iter().all(|names_a_commit| {
        crate::g6_primary_checkout::mutates(&words, &|_| *names_a_commit).is_none()
    });
    match read {
        true => Reach::Read,
        false => Reach::Checkout,
    }
}

/// Whether a `gh` exec is one G2–G5 cannot refuse, from its arguments alone: no command (`gh
/// --version`), or one gh's write inventory (command-effects' `gh::is_write_command`) calls a
/// read. The inventory counts every `gh api` and every word that is not a builtin command (an
/// alias or an extension may stand for a write) as a write. `gh ruleset` is never a read here:
/// G4 refuses a ruleset write whatever the inventory says.
pub fn gh_read(argv: &[String]) -> bool {
    let arena = bumpalo::Bump::new();
    let gh = command_effects::gh::parse(&command_effects::exec_args::literal_args(&arena, argv));
    match gh.top.as_deref() {
        None => !gh.dynamic_command,
        Some("ruleset") => false,
        Some(_) => !command_effects::gh::is_write_command(&gh),
    }
}

/// Whether an exec of `program` (a base name) with `argv` runs a git remote helper:
/// `git remote-https <remote> <url>`, the dashed `git-remote-https ...`, or a helper's half of
/// a push, `git send-pack --stateless-rpc ...` (command-effects' `GitCall::refs_on_stdin`).
pub fn runs_a_remote_helper(program: &str, argv: &[String]) -> bool {
    // Every judged git exec asks: most name no helper, so no second parse of their argv.
    let may = program.starts_with("git-")
        || argv
            .iter()
            .any(|a| a.starts_with("remote-") || a == "send-pack");
    if !may {
        return false;
    }
    let words: Vec<String> = match program.strip_prefix("git-") {
        Some(sub) => ["git", sub]
            .into_iter()
            .map(String::from)
            .chain(argv.iter().skip(1).cloned())
            .collect(),
        None if program == "git" => argv.to_vec(),
        None => return false,
    };
    let arena = bumpalo::Bump::new();
    let args = command_effects::exec_args::literal_args(&arena, &words);
    command_effects::git::parse_git_args(&args, &|_| None).refs_on_stdin
}

/// Whether a helper exec needs no judgement of its own: git runs a remote helper for every
/// push and fetch over its transport, and the push was judged when it ran. `caller`: the
/// program the calling process ran (`/proc/<pid>/exe`).
pub fn helper_of_a_judged_git(caller: Option<&str>, program: &str, argv: &[String]) -> bool {
    caller.is_some_and(is_git_program) && runs_a_remote_helper(program, argv)
}

/// Whether the program at `path` is git or one of its dashed programs.
fn is_git_program(path: &str) -> bool {
    let base = path.rsplit('/').next().unwrap_or(path);
    base == "git" || base.starts_with("git-")
}
