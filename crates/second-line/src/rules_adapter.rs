//! The wiring from the exec gate to the guards' faces (K10): an exec of `git` or `gh` becomes
//! gh-write-guard's `GitHubOp::Exec` (G2–G6; G1 and G7 judge the command text around a
//! program, which an exec does not have), a nested agent launch model-tier-guard's `Launch`
//! (M3, with the grant from the session's launch environment). Which arguments decide what a
//! git exec can meet, and which of its variables count, are the guards' facts, asked through
//! their faces; this module keeps what one supervisor shares across execs (the context, the
//! world, the rules cache, lent repositories). Which programs the gate reads at all is the
//! shared "what runs" layer's answer ([`reads`]): no private list of names.

use crate::judge::{ExecFacts, ExecJudge, ExecVerdict};
use crate::repo_cache::RepoCache;
use branch_rules::cache::RulesCache;
use command_effects::Effect;
use gh_write_guard::face::{
    self as gh_face, Context, ExecCall, GitHubOp, LedgerRulesCache, Reach, RealWorld,
    RealWorldConfig,
};
use guard_config::Config;
use model_tier_guard::face as tier_face;
use primitives::stamp::{Version, Versions};
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
    /// The user's own state dir when `state_dir` is the exec-gate service's: the session's
    /// taint is read from both ([`session_store::Session::mirror`]).
    pub user_state: Option<PathBuf>,
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
            user_state: None,
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

    /// The same, its session's records also read from the user's own `state` (the service).
    pub fn with_user_state(mut self, state: Option<PathBuf>) -> LaunchContext {
        self.user_state = state;
        self
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

    pub(crate) fn session(&self) -> Option<session_store::Session> {
        let session = self
            .state_dir
            .as_deref()
            .map(|s| session_store::Session::new(s, self.session_id.as_deref()))?;
        Some(match &self.user_state {
            Some(user) => session.with_mirror_in(user),
            None => session,
        })
    }
}

/// Whether an exec's variable `name` is part of its command for either guard whatever the
/// session was launched with (their faces say which): `GIT_*`, `GH_HOST`, the model variables.
fn rule_relevant(name: &str) -> bool {
    gh_face::part_of_command(name) || tier_face::reads_var(name)
}

/// gh-write-guard's G2–G6 over a `git` or `gh` exec.
pub struct GitHubWrites {
    pub launch: LaunchContext,
    /// What every judgement shares, built on the first judged exec (see [`Shared`]).
    shared: Mutex<Option<Shared>>,
    /// The last `git` argv's [`Reach`]: the argv check and then the judgement of the same
    /// exec ask for it.
    last_reach: Mutex<Option<(Vec<String>, Reach)>>,
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

    /// [`gh_face::exec_reach`] of `argv`, remembered for the next question about the same argv.
    fn reach(&self, argv: &[String]) -> Reach {
        let mut last = self.last_reach.lock().unwrap_or_else(|p| p.into_inner());
        match last.as_ref() {
            Some((a, r)) if a.as_slice() == argv => *r,
            _ => {
                let r = gh_face::exec_reach(argv);
                *last = Some((argv.to_vec(), r));
                r
            }
        }
    }

    /// Whether the exec's `name=value` is read with its command (gh-write-guard's face).
    fn counts(&self, name: &str, value: &str) -> bool {
        gh_face::counts(name, value, self.launch.env.get(name).map(String::as_str))
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

impl ExecJudge for GitHubWrites {
    fn wants(&self, program: &str) -> bool {
        self.launch.reads(program) == Reads::GitHub
    }

    fn allows_from_argv(&self, program: &str, argv: &[String]) -> bool {
        match program {
            "git" => self.reach(argv) == Reach::Read,
            "gh" => gh_face::gh_read(argv),
            _ => false,
        }
    }

    fn reads_var(&self, name: &str) -> bool {
        gh_face::reads_var(name)
    }

    fn reads_caller(&self, program: &str, argv: &[String]) -> bool {
        gh_face::runs_a_remote_helper(program, argv)
    }

    fn judge(&self, facts: &ExecFacts) -> ExecVerdict {
        // git runs a remote helper for every push and fetch over its transport (the push was
        // judged when it ran); one run by anything else is judged as the push it may be.
        if gh_face::helper_of_a_judged_git(
            facts.caller.as_deref(),
            facts.program_name(),
            &facts.argv,
        ) {
            return ExecVerdict::Allow;
        }
        self.launch.repos.judgement_starts();
        let var = |name: &str| {
            facts
                .env
                .iter()
                .find(|(k, v)| k == name && self.counts(k, v))
                .map(|(_, v)| v.clone())
        };
        let names: Vec<&str> = facts
            .env
            .iter()
            .filter(|(k, v)| self.counts(k, v))
            .map(|(k, _)| k.as_str())
            .collect();
        let keep = |name: &str| names.contains(&name);
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
        let program = facts.program_name();
        let call = ExecCall {
            program,
            argv: &facts.argv,
            cwd: &facts.cwd,
            env: &var,
            names: &names,
            reach: (program == "git").then(|| self.reach(&facts.argv)),
            text: &|| facts.as_command(keep),
        };
        let verdict = gh_face::judge(&GitHubOp::Exec(call), &sh.cx, &world);
        drop(world);
        verdict.into()
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
        let command = facts.as_command(rule_relevant);
        let launch = tier_face::Launch {
            command: &command,
            cwd: &facts.cwd,
        };
        let session = tier_face::Session {
            launch_env: &self.launch.env,
            maintainer_only_tiers: self.launch.config().maintainer_only_tiers.as_deref(),
        };
        tier_face::judge_launch(&launch, &session).into()
    }
}

#[cfg(test)]
#[path = "rules_adapter_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "rules_adapter_push_tests.rs"]
mod push_tests;
