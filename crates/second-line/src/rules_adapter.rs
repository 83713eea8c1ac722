//! The adapter from the exec gate to the guards' own rule code: a real argv becomes a
//! shell-quoted command line and goes through gh-write-guard's decision core (G2–G6; G1 and G7
//! judge the command text around a program, which an exec does not have) and model-tier-guard's
//! nested-launch check (M3, with the grant from the session's launch environment). Both read
//! the line through the shared "what runs" layer (crate `command-effects`), and which programs
//! the gate reads at all is that layer's answer too ([`reads`]): no private list of names.

use crate::judge::{ExecFacts, ExecJudge, ExecVerdict};
use crate::repo_cache::RepoCache;
use branch_rules::cache::RulesCache;
use command_effects::Effect;
use gh_write_guard::real_world::{LedgerRulesCache, RealWorld, RealWorldConfig};
use gh_write_guard::{Context, Requirement};
use guard_config::Config;
use model_tier_guard::host::{Host, MANAGED_SETTINGS_DIR};
use model_tier_guard::m1_tiers::TierPolicy;
use primitives::stamp::{Version, Versions};
use serde_json::json;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

/// What the shared layer's program grammars make of an exec of a program, from its name alone
/// (the hot path reads nothing else of an exec no rule reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reads {
    /// A git or gh operation (G2–G6): `git`, `gh`, git's dashed programs (`git-receive-pack`).
    GitHub,
    /// A model launch (M3): `claude`, and the package runners that may start one (`npx`,
    /// `pnpm dlx`, ...), whose package is only known from the arguments.
    ModelLaunch,
    Nothing,
}

/// The shared layer's answer for an exec of `name`: the name with one operand resolved by
/// command-effects (`runs`, `effects_of`), or a package runner's first word.
pub fn reads(name: &str) -> Reads {
    if command_effects::runners::PACKAGE_RUNNERS
        .iter()
        .any(|p| p.first() == Some(&name))
    {
        return Reads::ModelLaunch;
    }
    let text = format!("{} x", shell_words::quote(name));
    let parsed = shell_syntax::parse(&text);
    let view = shell_syntax::commands(&parsed);
    let arena = bumpalo::Bump::new();
    for run in command_effects::program::runs(&view, &arena) {
        let Some(inv) = view.invocations.get(run.invocation) else {
            continue;
        };
        for e in command_effects::effects_of(&run, inv) {
            match e {
                Effect::Git(_) | Effect::Gh(_) => return Reads::GitHub,
                Effect::ModelLaunch { .. } => return Reads::ModelLaunch,
                _ => {}
            }
        }
    }
    Reads::Nothing
}

/// Most program names remembered per supervisor (a command runs a handful).
const MAX_REMEMBERED: usize = 4096;

/// What the rules consult besides the exec: the session's launch environment (grants come only
/// from here, K2), the maintainer's config and the session's state.
#[derive(Debug, Clone)]
pub struct LaunchContext {
    pub env: BTreeMap<String, String>,
    /// The maintainer's config, read on the first exec a rule judges (most commands have none).
    pub config: Arc<OnceLock<Config>>,
    pub state_dir: Option<PathBuf>,
    pub session_id: Option<String>,
    /// [`reads`] per program name, remembered for the supervisor's life (names do not change
    /// meaning within a command).
    programs: Arc<Mutex<HashMap<String, Reads>>>,
    /// The branch-rules cache over the session's ledger, opened on the first judged git exec.
    rules_cache: OnceRulesCache,
    /// Repositories opened by earlier execs, lent while their files are unchanged.
    repos: Arc<RepoCache>,
}

/// The rules cache, opened once per supervisor.
#[derive(Clone, Default)]
struct OnceRulesCache(Arc<OnceLock<Arc<dyn RulesCache + Send + Sync>>>);

impl std::fmt::Debug for OnceRulesCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "opened"
        } else {
            "not opened"
        })
    }
}

impl LaunchContext {
    /// A context whose config is read from the file when first needed. Agent commands do not
    /// get `CLAUDE_PROJECT_DIR` (hooks do): without it, the project folder gh-write-guard's
    /// hook recorded in the session's state stands in (G3's reference, M3's agent folders).
    pub fn new(
        mut env: BTreeMap<String, String>,
        state_dir: Option<PathBuf>,
        session_id: Option<String>,
    ) -> LaunchContext {
        let lookup = |k: &str| env.get(k).cloned();
        let project = crate::protected::with_recorded_project(
            &lookup,
            state_dir.as_deref(),
            session_id.as_deref(),
        )("CLAUDE_PROJECT_DIR");
        if let Some(p) = project {
            env.insert("CLAUDE_PROJECT_DIR".into(), p);
        }
        LaunchContext {
            env,
            config: Arc::new(OnceLock::new()),
            state_dir,
            session_id,
            programs: Arc::new(Mutex::new(HashMap::new())),
            rules_cache: OnceRulesCache::default(),
            repos: Arc::default(),
        }
    }

    /// [`reads`] for `name`, remembered.
    pub fn reads(&self, name: &str) -> Reads {
        let mut known = self.programs.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(r) = known.get(name) {
            return *r;
        }
        let r = reads(name);
        if known.len() >= MAX_REMEMBERED {
            known.clear();
        }
        known.insert(name.to_string(), r);
        r
    }

    /// The live rules' cache: the session's ledger (shared with gh-write-guard), else memory.
    fn rules_cache(&self) -> Arc<dyn RulesCache + Send + Sync> {
        self.rules_cache
            .0
            .get_or_init(|| match self.session() {
                Some(s) if s.ensure().is_ok() => {
                    Arc::new(LedgerRulesCache::new(s.ledger()).with_versions(self.repos.clone()))
                }
                _ => Arc::new(branch_rules::cache::MemoryCache::new()),
            })
            .clone()
    }

    /// With a given config (tests).
    pub fn with_config(mut self, config: Config) -> LaunchContext {
        self.config = Arc::new(OnceLock::from(config));
        self
    }

    /// Lets go of the repositories kept for later execs and their change events (an idle
    /// supervisor: [`crate::supervisor::serve`]).
    pub fn release_idle(&self) {
        self.repos.release();
    }

    pub fn config(&self) -> &Config {
        self.config.get_or_init(|| {
            let env = self.env.clone();
            guard_config::load_with(&move |k: &str| env.get(k).cloned()).config
        })
    }

    fn session(&self) -> Option<session_store::Session> {
        self.state_dir
            .as_deref()
            .map(|s| session_store::Session::new(s, self.session_id.as_deref()))
    }
}

/// Variables of the exec's own environment that the rules read as part of the command
/// (`GIT_CONFIG_*`, model variables). Grants and secrets never travel this way.
fn rule_relevant(name: &str) -> bool {
    // The cheap test first: an exec's environment has a hundred names, a few of them relevant.
    let relevant = name.starts_with("GIT_")
        || name.starts_with("GH_") && (name == "GH_HOST" || name == "GH_REPO")
        || name.ends_with("_MODEL") && model_tier_guard::m3_launch::MODEL_VARS.contains(&name);
    // `GIT_CONFIG_KEY_<n>` names a setting (`core.hooksPath`), not a secret.
    relevant
        && (name.starts_with("GIT_CONFIG_KEY_")
            || !["TOKEN", "PASSWORD", "SECRET", "_KEY", "ALLOW"]
                .iter()
                .any(|s| name.contains(s)))
}

/// Whether `name` is a hook manager's switch (`HUSKY`, `SKIP`, ...: command-effects'
/// `HOOK_SKIPS`), which G4 reads from a hooked git call's environment.
fn hook_switch(name: &str) -> bool {
    command_effects::git::HOOK_SKIPS
        .iter()
        .any(|(n, _)| *n == name)
}

/// Whether `name` moves the config files git reads (`HOME`, `XDG_CONFIG_HOME`; the
/// `GIT_CONFIG_*` ones are rule-relevant already): read with an exec only when its value
/// differs from the session's launch environment, as the files of another home are the ones
/// its git reads (command-effects' `git_config_files`).
fn moves_git_config(name: &str) -> bool {
    matches!(name, "HOME" | "XDG_CONFIG_HOME")
}

/// An exec's command line as gh-write-guard's reasons show a command: its first 160 characters.
fn command_text(line: &str) -> String {
    line.chars().take(160).collect()
}

/// Whether a `git` exec reads config files it names (`-c include.path`, `GIT_CONFIG_GLOBAL`,
/// another `HOME`, ...): their settings (a hooks path, aliases) are read over its command line.
/// `names`: the variables `env` answers for.
fn names_config_files<'n>(
    argv: &[String],
    mut names: impl Iterator<Item = &'n str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> bool {
    // Most execs name none: no word of an include, no variable that moves or sets config.
    let include = argv
        .iter()
        .any(|a| a.len() > 7 && a.to_ascii_lowercase().contains("include"));
    if !include && !names.any(|n| n.starts_with("GIT_CONFIG") || moves_git_config(n)) {
        return false;
    }
    let arena = bumpalo::Bump::new();
    let args = command_effects::exec_args::literal_args(&arena, argv);
    let call = command_effects::git::parse_git_args(&args, &|n| env(n).map(Some));
    !command_effects::git_config_files::named(&call).is_empty()
}

/// git's subcommands that run the hooks G4 keeps from being skipped (gh-write-guard's `HOOKED`)
/// but push nothing: G4's hook check and G6 read them, whatever their arguments.
const GIT_HOOKED: [&str; 4] = ["commit", "merge", "am", "pull"];

/// Whether a `git` exec is one G2–G6 cannot refuse, from its arguments alone (git's own option
/// grammar, command-effects' `parse_git_args`): no subcommand (`git --version`, `--help`), or a
/// builtin one (an alias cannot shadow a builtin) that neither pushes, nor runs hooks G4 guards,
/// nor mutates a checkout (G6's `mutates`, asked both ways where it depends on a ref). Its
/// `-c` settings and environment change nothing here: G4 reads them only for the judged
/// subcommands, and what a pager or helper runs is an exec of its own, judged when it happens.
pub fn git_read(argv: &[String]) -> bool {
    git_reach(argv) == GitReach::Read
}

/// Whether a `gh` exec is one G2–G5 cannot refuse, from its arguments alone: no command (`gh
/// --version`), or one that gh's write inventory (command-effects' `gh::is_write_command`)
/// calls a read. The inventory counts every `gh api` (G2 and G5 read its body) and every word
/// that is not a builtin command (an alias or an extension may stand for a write) as a write.
/// `gh ruleset` is never a read here: G4 refuses a ruleset write whatever the inventory says.
/// What such a command runs (`gh pr checkout` runs git) is an exec of its own, judged then.
pub fn gh_read(argv: &[String]) -> bool {
    let arena = bumpalo::Bump::new();
    let gh = command_effects::gh::parse(&command_effects::exec_args::literal_args(&arena, argv));
    match gh.top.as_deref() {
        None => !gh.dynamic_command,
        Some("ruleset") => false,
        Some(_) => !command_effects::gh::is_write_command(&gh),
    }
}

/// Which of G2–G6 can refuse a `git` exec, from its arguments alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GitReach {
    /// None ([`git_read`]).
    Read,
    /// G6 only: a builtin subcommand that mutates a checkout but neither pushes (G3, G4) nor
    /// runs hooks G4 guards; G2 and G5 read `gh api` only.
    Checkout,
    /// G4's hook check and G6: `commit`, `merge`, `am`, `pull` (builtins that run hooks G4
    /// guards and push nothing, so G3 and G4's branch rules have nothing to read).
    Hooks,
    /// G3, G4 and G6 over the push's plan: the builtin `push`, and what command-effects reads
    /// as one (`send-pack`, a remote helper's half); G2 and G5 read `gh api` only.
    Push,
    /// All of them: an alias, a subcommand decided at run time.
    All,
}

/// [`GitReach`] of a `git` argv (see [`git_read`] for why the arguments are enough).
pub fn git_reach(argv: &[String]) -> GitReach {
    // The words as static arguments, as the shell view would give them (no quoting and
    // parsing again: they are already one word each).
    let arena = bumpalo::Bump::new();
    let args = command_effects::exec_args::literal_args(&arena, argv);
    let call = command_effects::git::parse_git_args(&args, &|_| None);
    let sub = match &call.subcommand {
        None => return GitReach::Read,
        Some(None) => return GitReach::All,
        Some(Some(sub)) => sub.as_str(),
    };
    if sub == "push" {
        return GitReach::Push;
    }
    if !command_effects::git_alias::is_builtin(sub) {
        return GitReach::All;
    }
    if GIT_HOOKED.contains(&sub) {
        return GitReach::Hooks;
    }
    let words: Vec<String> = std::iter::once(sub.to_string())
        .chain(
            call.args
                .iter()
                .filter_map(|a| a.value.as_deref().map(String::from)),
        )
        .collect();
    let read = [true, false].iter().all(|names_a_commit| {
        gh_write_guard::g6_primary_checkout::mutates(&words, &|_| *names_a_commit).is_none()
    });
    match read {
        true => GitReach::Read,
        false => GitReach::Checkout,
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

/// Whether the program at `path` is git or one of its dashed programs (what runs a helper for
/// a push or fetch it was asked for).
fn is_git_program(path: &str) -> bool {
    let base = path.rsplit('/').next().unwrap_or(path);
    base == "git" || base.starts_with("git-")
}

/// gh-write-guard's G2–G6 over a `git` or `gh` exec.
pub struct GitHubWrites {
    pub launch: LaunchContext,
    /// What every judgement shares, built on the first judged exec (see [`Shared`]).
    shared: Mutex<Option<Shared>>,
    /// The last `git` argv's [`GitReach`]: the argv check and then the judgement of the same
    /// exec ask for it.
    last_reach: Mutex<Option<(Vec<String>, GitReach)>>,
}

/// The parts of a judgement that do not change from exec to exec within one command: the
/// context (the launch environment and the config, not copied per exec) and the world (gh's
/// hosts, the rules lookup with its HTTP client). gh's `hosts.yml` is the one file the world
/// reads when built; it is checked per exec (one `stat`) and the world rebuilt if it changed.
struct Shared {
    cx: Context,
    world: RealWorld,
    hosts_file: Option<(PathBuf, Option<Version>)>,
}

impl GitHubWrites {
    pub fn new(launch: LaunchContext) -> GitHubWrites {
        GitHubWrites {
            launch,
            shared: Mutex::new(None),
            last_reach: Mutex::new(None),
        }
    }

    /// [`git_reach`] of `argv`, remembered for the next question about the same argv.
    fn reach(&self, argv: &[String]) -> GitReach {
        let mut last = self.last_reach.lock().unwrap_or_else(|p| p.into_inner());
        match last.as_ref() {
            Some((a, r)) if a.as_slice() == argv => *r,
            _ => {
                let r = git_reach(argv);
                *last = Some((argv.to_vec(), r));
                r
            }
        }
    }

    /// Whether the exec's `name=value` is read with its command: a rule-relevant variable, or a
    /// hook manager's switch the agent set. One the session was launched with is the
    /// maintainer's own (an exported `HUSKY=0` must not refuse every commit of the session).
    fn counts(&self, name: &str, value: &str) -> bool {
        rule_relevant(name)
            || (hook_switch(name) || moves_git_config(name))
                && self.launch.env.get(name).map(String::as_str) != Some(value)
    }

    fn world(&self) -> RealWorld {
        let cache = self.launch.rules_cache();
        // The one place the lookup's deadline is worked out (guard-config), as the hook does.
        let deadline = self.launch.config().rules_deadline();
        RealWorld::new(RealWorldConfig {
            env: self.launch.env.clone(),
            // The one place the override is worked out (branch-rules), as the hook does.
            api_base_override: branch_rules::hosts::api_base_override(
                &self.launch.env,
                self.launch.config().github_api.as_deref(),
            ),
            rules_deadline: deadline,
            cache,
        })
        .with_lender(self.launch.repos.clone())
    }

    fn shared(&self) -> Shared {
        let world = self.world();
        let hosts_file = world.hosts_file().map(|p| {
            let stamp = self.launch.repos.settled(&p);
            (p, stamp)
        });
        Shared {
            cx: Context {
                cwd: PathBuf::from("/"),
                config: self.launch.config().clone(),
                env: self.launch.env.clone(),
                session_id: self.launch.session_id.clone(),
                tool_use_id: None,
            },
            world,
            hosts_file,
        }
    }
}

/// The requirements an exec is judged by (G1 and G7 read the shell text around a program).
fn applies(r: Requirement) -> bool {
    matches!(
        r,
        Requirement::G2 | Requirement::G3 | Requirement::G4 | Requirement::G5 | Requirement::G6
    )
}

impl ExecJudge for GitHubWrites {
    fn wants(&self, program: &str) -> bool {
        self.launch.reads(program) == Reads::GitHub
    }

    fn allows_from_argv(&self, program: &str, argv: &[String]) -> bool {
        match program {
            "git" => self.reach(argv) == GitReach::Read,
            "gh" => gh_read(argv),
            _ => false,
        }
    }

    fn reads_var(&self, name: &str) -> bool {
        rule_relevant(name) || hook_switch(name) || moves_git_config(name)
    }

    fn reads_caller(&self, program: &str, argv: &[String]) -> bool {
        runs_a_remote_helper(program, argv)
    }

    fn judge(&self, facts: &ExecFacts) -> ExecVerdict {
        // git runs a remote helper for every push and fetch over its transport (the push was
        // judged when it ran); one run by anything else is judged as the push it may be.
        if facts.caller.as_deref().is_some_and(is_git_program)
            && runs_a_remote_helper(facts.program_name(), &facts.argv)
        {
            return ExecVerdict::Allow;
        }
        self.launch.repos.judgement_starts();
        let var = |name: &str| {
            facts
                .env
                .iter()
                .find(|(k, v)| k == name && self.counts(k, v))
                .map(|(_, v)| v)
        };
        let keep = |name: &str| var(name).is_some();
        let mut shared = self.shared.lock().unwrap_or_else(|p| p.into_inner());
        let stale = shared.as_ref().is_some_and(|s| match &s.hosts_file {
            Some((p, Some(stamp))) => self.launch.repos.settled(p) != Some(*stamp),
            Some((_, None)) => true,
            None => false,
        });
        if stale {
            *shared = None;
        }
        let sh = shared.get_or_insert_with(|| self.shared());
        sh.cx.cwd.clone_from(&facts.cwd);
        let world = sh.world.again();
        let reach = match facts.program_name() == "git" {
            true => self.reach(&facts.argv),
            false => GitReach::All,
        };
        let env = |name: &str| var(name).cloned();
        // A hooked call or a push that names config files of its own is read over its command
        // line (their settings: a hooks path, a remote's URL).
        let reach = match reach {
            GitReach::Hooks | GitReach::Push
                if names_config_files(
                    &facts.argv,
                    facts
                        .env
                        .iter()
                        .filter(|(k, v)| self.counts(k, v))
                        .map(|(k, _)| k.as_str()),
                    &env,
                ) =>
            {
                GitReach::All
            }
            r => r,
        };
        let findings = match reach {
            // Straight from the argv: the same verdicts as over the command line, without
            // quoting the words and parsing them again.
            GitReach::Read | GitReach::Checkout | GitReach::Hooks => {
                gh_write_guard::exec_argv::judge_git(
                    &facts.argv,
                    &env,
                    &facts.cwd,
                    &sh.cx,
                    &world,
                    reach == GitReach::Hooks,
                )
            }
            GitReach::Push => gh_write_guard::exec_argv::judge_push(
                &facts.argv,
                &env,
                &facts.cwd,
                &sh.cx,
                &world,
                &|| command_text(&facts.as_command(keep)),
            ),
            GitReach::All => {
                let command = facts.as_command(keep);
                gh_write_guard::judge::judge_requirements(&command, &sh.cx, &world, &applies)
                    .findings
            }
        };
        drop(world);
        let denies: Vec<_> = findings
            .into_iter()
            .filter(|f| f.is_deny() && applies(f.requirement))
            .collect();
        match gh_write_guard::finding::first_deny(&denies) {
            Some(f) => ExecVerdict::Deny {
                code: f.code_str().to_string(),
                reason: f.reason(),
                evidence: json!({"command": facts.as_command(keep), "finding": f.evidence}),
            },
            None => ExecVerdict::Allow,
        }
    }
}

/// model-tier-guard's M3 over a nested agent launch.
pub struct ModelLaunches {
    pub launch: LaunchContext,
}

impl ExecJudge for ModelLaunches {
    fn wants(&self, program: &str) -> bool {
        self.launch.reads(program) == Reads::ModelLaunch
    }

    fn reads_var(&self, name: &str) -> bool {
        rule_relevant(name)
    }

    fn judge(&self, facts: &ExecFacts) -> ExecVerdict {
        let host = Host {
            env: self.launch.env.clone(),
            launch_args: None,
            managed_dir: Some(PathBuf::from(MANAGED_SETTINGS_DIR)),
        };
        let command = facts.as_command(rule_relevant);
        let mut project: Vec<PathBuf> = host
            .var("CLAUDE_PROJECT_DIR")
            .filter(|p| p.starts_with('/'))
            .map(PathBuf::from)
            .into_iter()
            .collect();
        project.push(facts.cwd.clone());
        let dirs = model_tier_guard::agents::AgentDirs::new(&project, &host.user_dirs());
        let reqs = model_tier_guard::m3_launch::requested_models(
            &command,
            Some(&facts.cwd),
            &dirs,
            &host.aliases(),
        );
        if reqs.is_empty() {
            return ExecVerdict::Allow;
        }
        let tiers = TierPolicy::from_config(self.launch.config().maintainer_only_tiers.as_deref());
        let f = model_tier_guard::m3_session::judge_requests(
            "a nested agent launch",
            &reqs,
            &tiers,
            &host.grant(),
        );
        match f.deny {
            Some(reason) => ExecVerdict::Deny {
                code: f.code.unwrap_or(f.requirement).to_string(),
                reason,
                evidence: json!({"command": command, "finding": f.evidence}),
            },
            None => ExecVerdict::Allow,
        }
    }
}

#[cfg(test)]
#[path = "rules_adapter_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "rules_adapter_push_tests.rs"]
mod push_tests;
