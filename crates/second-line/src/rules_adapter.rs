//! The adapter from the exec gate to the guards' own rule code: a real argv becomes a
//! shell-quoted command line and goes through gh-write-guard's decision core (G2–G6; G1 and G7
//! judge the command text around a program, which an exec does not have) and model-tier-guard's
//! nested-launch check (M3, with the grant from the session's launch environment). Both read
//! the line through the shared "what runs" layer (crate `command-effects`), and which programs
//! the gate reads at all is that layer's answer too ([`reads`]): no private list of names.

use crate::judge::{ExecFacts, ExecJudge, ExecVerdict};
use crate::repo_cache::{settled_contents, RepoCache, Stamp};
use branch_rules::cache::RulesCache;
use command_effects::Effect;
use gh_write_guard::real_world::{LedgerRulesCache, RealWorld, RealWorldConfig};
use gh_write_guard::{Context, Requirement};
use guard_config::Config;
use model_tier_guard::host::{Host, MANAGED_SETTINGS_DIR};
use model_tier_guard::m1_tiers::TierPolicy;
use serde_json::json;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

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
    /// A context whose config is read from the file when first needed.
    pub fn new(
        env: BTreeMap<String, String>,
        state_dir: Option<PathBuf>,
        session_id: Option<String>,
    ) -> LaunchContext {
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
                Some(s) if s.ensure().is_ok() => Arc::new(LedgerRulesCache::new(s.ledger())),
                _ => Arc::new(branch_rules::cache::MemoryCache::new()),
            })
            .clone()
    }

    /// With a given config (tests).
    pub fn with_config(mut self, config: Config) -> LaunchContext {
        self.config = Arc::new(OnceLock::from(config));
        self
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
    relevant
        && !["TOKEN", "PASSWORD", "SECRET", "_KEY", "ALLOW"]
            .iter()
            .any(|s| name.contains(s))
}

/// git's subcommands that G2–G6 read whatever their arguments: `push` (G3, G4) and those whose
/// hooks G4 keeps from being skipped (gh-write-guard's `HOOKED`).
const GIT_JUDGED: [&str; 5] = ["push", "commit", "merge", "am", "pull"];

/// Whether a `git` exec is one G2–G6 cannot refuse, from its arguments alone (git's own option
/// grammar, command-effects' `parse_git_args`): no subcommand (`git --version`, `--help`), or a
/// builtin one (an alias cannot shadow a builtin) that neither pushes, nor runs hooks G4 guards,
/// nor mutates a checkout (G6's `mutates`, asked both ways where it depends on a ref). Its
/// `-c` settings and environment change nothing here: G4 reads them only for the judged
/// subcommands, and what a pager or helper runs is an exec of its own, judged when it happens.
pub fn git_read(argv: &[String]) -> bool {
    git_reach(argv) == GitReach::Read
}

/// Which of G2–G6 can refuse a `git` exec, from its arguments alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GitReach {
    /// None ([`git_read`]).
    Read,
    /// G6 only: a builtin subcommand that mutates a checkout but neither pushes (G3, G4) nor
    /// runs hooks G4 guards; G2 and G5 read `gh api` only.
    Checkout,
    /// All of them: a push, a hooked subcommand, an alias, a subcommand decided at run time.
    All,
}

/// [`GitReach`] of a `git` argv (see [`git_read`] for why the arguments are enough).
pub fn git_reach(argv: &[String]) -> GitReach {
    // The words as static arguments, as the shell view would give them (no quoting and
    // parsing again: they are already one word each).
    let arena = bumpalo::Bump::new();
    let args: Vec<shell_syntax::Arg> = argv
        .iter()
        .skip(1)
        .map(|a| shell_syntax::Arg::synthetic(&arena, a.as_str(), shell_syntax::Span::default()))
        .collect();
    let call = command_effects::git::parse_git_args(&args, &|_| None);
    let sub = match &call.subcommand {
        None => return GitReach::Read,
        Some(None) => return GitReach::All,
        Some(Some(sub)) => sub.as_str(),
    };
    if GIT_JUDGED.contains(&sub) || !command_effects::git_alias::is_builtin(sub) {
        return GitReach::All;
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

/// gh-write-guard's G2–G6 over a `git` or `gh` exec.
pub struct GitHubWrites {
    pub launch: LaunchContext,
    /// What every judgement shares, built on the first judged exec (see [`Shared`]).
    shared: Mutex<Option<Shared>>,
}

/// The parts of a judgement that do not change from exec to exec within one command: the
/// context (the launch environment and the config, not copied per exec) and the world (gh's
/// hosts, the rules lookup with its HTTP client). gh's `hosts.yml` is the one file the world
/// reads when built; it is checked per exec (one `stat`) and the world rebuilt if it changed.
struct Shared {
    cx: Context,
    world: RealWorld,
    hosts_file: Option<(PathBuf, Option<Stamp>)>,
}

impl GitHubWrites {
    pub fn new(launch: LaunchContext) -> GitHubWrites {
        GitHubWrites {
            launch,
            shared: Mutex::new(None),
        }
    }

    fn world(&self) -> RealWorld {
        let cache = self.launch.rules_cache();
        let deadline = self
            .launch
            .config()
            .rules_timeout_ms
            .unwrap_or(3000)
            .min(3000);
        RealWorld::new(RealWorldConfig {
            env: self.launch.env.clone(),
            api_base_override: self
                .launch
                .env
                .get("AGENT_GUARDS_GITHUB_API")
                .filter(|v| !v.is_empty())
                .cloned()
                .or_else(|| self.launch.config().github_api.clone()),
            rules_deadline: Duration::from_millis(deadline),
            cache,
        })
        .with_lender(self.launch.repos.clone())
    }

    fn shared(&self) -> Shared {
        let world = self.world();
        let hosts_file = world.hosts_file().map(|p| {
            let stamp = settled_contents(&p);
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
        program == "git" && git_read(argv)
    }

    fn reads_var(&self, name: &str) -> bool {
        rule_relevant(name)
    }

    fn judge(&self, facts: &ExecFacts) -> ExecVerdict {
        let command = facts.as_command(rule_relevant);
        let mut shared = self.shared.lock().unwrap_or_else(|p| p.into_inner());
        let stale = shared.as_ref().is_some_and(|s| match &s.hosts_file {
            Some((p, Some(stamp))) => settled_contents(p) != Some(*stamp),
            Some((_, None)) => true,
            None => false,
        });
        if stale {
            *shared = None;
        }
        let sh = shared.get_or_insert_with(|| self.shared());
        sh.cx.cwd.clone_from(&facts.cwd);
        let world = sh.world.again();
        let only_g6 = |r: Requirement| r == Requirement::G6;
        let applies: &dyn Fn(Requirement) -> bool =
            match facts.program_name() == "git" && git_reach(&facts.argv) == GitReach::Checkout {
                true => &only_g6,
                false => &applies,
            };
        let decision = gh_write_guard::judge::judge_requirements(&command, &sh.cx, &world, applies);
        drop(world);
        let denies: Vec<_> = decision
            .findings
            .iter()
            .filter(|f| f.is_deny() && applies(f.requirement))
            .cloned()
            .collect();
        match gh_write_guard::finding::first_deny(&denies) {
            Some(f) => ExecVerdict::Deny {
                code: f.code_str().to_string(),
                reason: f.reason(),
                evidence: json!({"command": command, "finding": f.evidence}),
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
mod tests {
    use super::*;

    fn launch(env: &[(&str, &str)]) -> LaunchContext {
        LaunchContext::new(
            env.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            None,
            None,
        )
        .with_config(Config::default())
    }

    fn exec(argv: &[&str], env: &[(&str, &str)]) -> ExecFacts {
        ExecFacts {
            program: format!("/usr/local/bin/{}", argv[0]),
            argv: argv.iter().map(|s| s.to_string()).collect(),
            cwd: std::env::temp_dir(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn a_launch_on_the_maintainer_tier_is_m3_unless_the_launch_environment_grants_it() {
        let m = ModelLaunches {
            launch: launch(&[("HOME", "/nonexistent")]),
        };
        let v = m.judge(&exec(&["claude", "--model", "fable", "-p", "hi"], &[]));
        assert!(
            matches!(&v, ExecVerdict::Deny { code, .. } if code == "M3.launch"),
            "{v:?}"
        );
        // The model chosen by the exec's own environment.
        let v = m.judge(&exec(
            &["claude", "-p", "hi"],
            &[("ANTHROPIC_MODEL", "fable")],
        ));
        assert!(matches!(&v, ExecVerdict::Deny { .. }), "{v:?}");
        // A permitted tier, and a grant in the exec's own environment that counts for nothing.
        assert_eq!(
            m.judge(&exec(&["claude", "--model", "sonnet"], &[])),
            ExecVerdict::Allow
        );
        let v = m.judge(&exec(
            &["claude", "--model", "fable"],
            &[("MODEL_TIER_GUARD_ALLOW", "1")],
        ));
        assert!(matches!(v, ExecVerdict::Deny { .. }));
        let granted = ModelLaunches {
            launch: launch(&[("MODEL_TIER_GUARD_ALLOW", "1")]),
        };
        assert_eq!(
            granted.judge(&exec(&["claude", "--model", "fable"], &[])),
            ExecVerdict::Allow
        );
    }

    #[test]
    fn the_programs_the_gate_reads_are_the_shared_layers_answer() {
        for (name, want) in [
            ("git", Reads::GitHub),
            ("gh", Reads::GitHub),
            // git's dashed programs resolve to git in the shared layer.
            ("git-receive-pack", Reads::GitHub),
            ("claude", Reads::ModelLaunch),
            ("npx", Reads::ModelLaunch),
            ("bunx", Reads::ModelLaunch),
            ("pnpm", Reads::ModelLaunch),
            ("uvx", Reads::ModelLaunch),
            ("true", Reads::Nothing),
            ("python3", Reads::Nothing),
            ("cc", Reads::Nothing),
            ("ls", Reads::Nothing),
            ("gitk", Reads::Nothing),
            ("", Reads::Nothing),
        ] {
            assert_eq!(reads(name), want, "{name:?}");
        }
        let l = launch(&[]);
        assert_eq!(l.reads("git"), Reads::GitHub);
        assert_eq!(l.reads("git"), Reads::GitHub, "remembered");
    }

    #[test]
    fn a_launch_through_a_package_runner_is_m3() {
        let m = ModelLaunches {
            launch: launch(&[("HOME", "/nonexistent")]),
        };
        assert!(m.wants("pnpm"));
        let v = m.judge(&exec(
            &[
                "pnpm",
                "dlx",
                "@anthropic-ai/claude-code",
                "--model",
                "fable",
            ],
            &[],
        ));
        assert!(
            matches!(&v, ExecVerdict::Deny { code, .. } if code.starts_with("M3")),
            "{v:?}"
        );
        assert_eq!(
            m.judge(&exec(&["pnpm", "install"], &[])),
            ExecVerdict::Allow
        );
    }

    #[test]
    fn what_judgements_share_is_rebuilt_when_ghs_hosts_file_changes() {
        // One judge for many execs keeps the world it built; gh's hosts.yml (enterprise hosts)
        // is the one file that world read, so a host added mid-command must count at once.
        let home = tempfile::tempdir().unwrap();
        let h = home.path().display().to_string();
        let judge = GitHubWrites::new(launch(&[
            ("HOME", &h),
            ("AGENT_GUARDS_GITHUB_API", "http://127.0.0.1:9/"),
        ]));
        let push = ExecFacts {
            program: "/usr/bin/git".into(),
            argv: ["git", "push", "https://ghe.example/acme/w.git", "HEAD:main"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            cwd: home.path().to_path_buf(),
            env: Vec::new(),
        };
        assert_eq!(judge.judge(&push), ExecVerdict::Allow, "not a GitHub host");
        assert_eq!(
            judge.judge(&push),
            ExecVerdict::Allow,
            "judged again, shared"
        );
        std::fs::create_dir_all(home.path().join(".config/gh")).unwrap();
        std::fs::write(
            home.path().join(".config/gh/hosts.yml"),
            "ghe.example:\n    user: someone\n",
        )
        .unwrap();
        assert!(
            matches!(judge.judge(&push), ExecVerdict::Deny { .. }),
            "a GitHub host now: its rules cannot be read, so the push is refused"
        );
    }

    /// A new repository in a temporary folder (`git init`, then `git` with `then` if given).
    fn primary_checkout(then: &[&str]) -> tempfile::TempDir {
        let repo = tempfile::tempdir().unwrap();
        for args in [&["init", "-q"][..], then] {
            if args.is_empty() {
                continue;
            }
            let st = std::process::Command::new("git")
                .args(args)
                .current_dir(repo.path())
                .status()
                .unwrap();
            assert!(st.success());
        }
        repo
    }

    #[test]
    fn a_git_read_is_allowed_by_the_rules_and_no_write_passes_for_a_read() {
        // A primary checkout, where G6 refuses what mutates it.
        let repo = primary_checkout(&[]);
        let home = repo.path().display().to_string();
        let judge = GitHubWrites::new(launch(&[("HOME", &home)]));
        let facts = |argv: &[&str]| ExecFacts {
            program: "/usr/bin/git".into(),
            argv: argv.iter().map(|s| s.to_string()).collect(),
            cwd: repo.path().to_path_buf(),
            env: Vec::new(),
        };
        let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        for read in [
            &["git", "--version"][..],
            &["git"],
            &["git", "status", "--short"],
            &["git", "log", "--oneline", "-5"],
            &["git", "-C", &home, "diff", "--stat"],
            &["git", "--no-pager", "-c", "core.pager=cat", "show", "HEAD"],
            &["git", "rev-parse", "--abbrev-ref", "HEAD"],
            &["git", "stash", "list"],
            &["git", "branch", "--list"],
            &["git", "fetch", "origin"],
        ] {
            assert!(git_read(&argv(read)), "{read:?} is a read");
            assert_eq!(judge.judge(&facts(read)), ExecVerdict::Allow, "{read:?}");
        }
        for write in [
            &["git", "push", "origin", "main"][..],
            &["git", "--git-dir=.git", "push"],
            &["git", "commit", "-m", "x"],
            &["git", "-c", "core.hooksPath=/dev/null", "commit", "-m", "x"],
            &["git", "merge", "topic"],
            &["git", "pull"],
            &["git", "am", "p.patch"],
            &["git", "reset", "--hard"],
            &["git", "checkout", "-f", "main"],
            &["git", "checkout", "topic"],
            &["git", "branch", "-D", "topic"],
            &["git", "stash"],
            &["git", "clean", "-fd"],
            // Not a builtin: an alias, which may stand for a push.
            &["git", "st"],
        ] {
            assert!(!git_read(&argv(write)), "{write:?} is not a read");
        }
        // The comparison can fail: the rules refuse these here.
        for refused in [
            &["git", "reset", "--hard"][..],
            &["git", "commit", "--no-verify", "-m", "x"],
        ] {
            assert!(
                matches!(judge.judge(&facts(refused)), ExecVerdict::Deny { .. }),
                "{refused:?}"
            );
        }
    }

    #[test]
    fn a_checkout_reach_is_judged_by_g6_alone_as_by_all_of_g2_to_g6() {
        // A primary checkout with a GitHub origin: G6 refuses what mutates it, and G3 and G4
        // would read a push here.
        let repo = primary_checkout(&[
            "remote",
            "add",
            "origin",
            "https://github.com/acme/widget.git",
        ]);
        let home = repo.path().display().to_string();
        let judge = GitHubWrites::new(launch(&[("HOME", &home)]));
        let all = judge.shared();
        let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        for checkout in [
            &["git", "stash"][..],
            &["git", "-C", &home, "stash", "push", "-m", "x"],
            &["git", "-c", "core.hooksPath=/dev/null", "stash"],
            &["git", "reset", "--hard", "HEAD~1"],
            &["git", "checkout", "-f", "main"],
            &["git", "switch", "--discard-changes", "main"],
            &["git", "clean", "-fdx"],
            &["git", "branch", "-D", "topic"],
            &["git", "rebase", "main"],
            &["git", "cherry-pick", "abc123"],
            &["git", "restore", "."],
            &["git", "rm", "-r", "src"],
            &["git", "update-ref", "-d", "refs/heads/main"],
            &["git", "worktree", "remove", "--force", "wt"],
        ] {
            let facts = ExecFacts {
                program: "/usr/bin/git".into(),
                argv: argv(checkout),
                cwd: repo.path().to_path_buf(),
                env: Vec::new(),
            };
            assert_eq!(git_reach(&facts.argv), GitReach::Checkout, "{checkout:?}");
            let mut cx = all.cx.clone();
            cx.cwd = repo.path().to_path_buf();
            let by_all = gh_write_guard::judge::judge_requirements(
                &facts.as_command(rule_relevant),
                &cx,
                &all.world.again(),
                &applies,
            );
            let denies: Vec<_> = by_all
                .findings
                .into_iter()
                .filter(|f| f.is_deny() && applies(f.requirement))
                .collect();
            let by_all = gh_write_guard::finding::first_deny(&denies).map(|f| f.code_str());
            let by_gate = match judge.judge(&facts) {
                ExecVerdict::Deny { code, .. } => Some(code),
                ExecVerdict::Allow => None,
            };
            assert!(
                by_all.is_some(),
                "{checkout:?} is refused in a primary checkout"
            );
            assert_eq!(by_gate.as_deref(), by_all, "{checkout:?}");
        }
        for (all_of_them, why) in [
            (&["git", "push", "origin", "main"][..], "a push"),
            (&["git", "commit", "-m", "x"], "hooks G4 guards"),
            (&["git", "pull", "--ff-only"], "hooks G4 guards"),
            (&["git", "st"], "an alias"),
        ] {
            assert_eq!(git_reach(&argv(all_of_them)), GitReach::All, "{why}");
        }
        assert_eq!(git_reach(&argv(&["git", "status"])), GitReach::Read);
    }

    #[test]
    fn every_model_variable_is_kept() {
        // `rule_relevant` tests the name's ending before the list.
        for v in model_tier_guard::m3_launch::MODEL_VARS {
            assert!(rule_relevant(v), "{v}");
        }
    }

    #[test]
    fn secrets_and_grants_never_reach_the_command_line() {
        for k in [
            "GH_TOKEN",
            "GIT_PASSWORD",
            "GH_WRITE_GUARD_ALLOW",
            "PATH",
            "HOME",
        ] {
            assert!(!rule_relevant(k), "{k}");
        }
        for k in [
            "GIT_CONFIG_PARAMETERS",
            "GIT_CONFIG_COUNT",
            "ANTHROPIC_MODEL",
        ] {
            assert!(rule_relevant(k), "{k}");
        }
    }
}
