//! The supervisor's in-process cost of judging one git or gh exec through the whole G2–G6
//! pipeline (`GitHubWrites::judge`), on a real repository: a repository on `main` whose origin
//! is `github.com/acme/widget`, a linked worktree on `topic` (where G6 lets commits happen),
//! the session's ledger as the rules cache and a loopback rules API (`main` needs a pull
//! request, `feature` has none). One judge per run, as in one supervisor; every exec is judged
//! once to warm up (config, ledger, the first rules fetch), the ledger is left to settle (2 s,
//! as a session's is between two pushes), then each exec is judged `N` times.
//!
//! `cargo run --release -p second-line --example judge_cost [N] [INDEX]`: per exec, the median
//! wall clock of `N` calls (default 200); `INDEX` judges that exec only (for callgrind:
//! instructions per call = (total at N − total at 0) / N).

use branch_rules::test_support::TestServer;
use second_line::judge::{ExecFacts, ExecJudge, ExecVerdict};
use second_line::rules_adapter::{GitHubWrites, LaunchContext};
use std::path::Path;
use std::time::Instant;

/// The judged execs: (argv, whether the rules refuse it).
const EXECS: [(&[&str], bool); 7] = [
    (&["git", "stash"], false),
    (&["git", "commit", "-m", "x"], false),
    (&["git", "push", "origin", "feature"], false),
    (&["git", "checkout", "-b", "x"], false),
    (
        &["gh", "pr", "create", "--title", "t", "--body", "b"],
        false,
    ),
    (&["git", "push", "origin", "main"], true),
    (&["git", "p", "origin", "main"], true),
];

fn git(dir: &Path, args: &[&str]) {
    hook_replay::git::git(dir, args);
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(200);
    let only: Option<usize> = args.next().and_then(|a| a.parse().ok());
    let tmp = tempfile::tempdir().unwrap();
    let (home, repo, wt) = (
        tmp.path().join("home"),
        tmp.path().join("repo"),
        tmp.path().join("wt"),
    );
    std::fs::create_dir_all(&home).unwrap();
    hook_replay::git::init_with_commit(&repo, &[("f", "a\n")]);
    let origin = "https://github.com/acme/widget.git";
    git(&repo, &["remote", "add", "origin", origin]);
    git(&repo, &["config", "alias.p", "push"]);
    git(
        &repo,
        &["worktree", "add", "-q", "-b", "topic", wt.to_str().unwrap()],
    );
    // Files changed within a second of an opening are not trusted to be settled
    // (`repo_cache`): a real repository is older than that.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let server = TestServer::protecting_main().unwrap();
    let env = [
        ("HOME", home.display().to_string()),
        ("PATH", std::env::var("PATH").unwrap_or_default()),
        ("GH_TOKEN", "test-token".into()),
        ("AGENT_GUARDS_GITHUB_API", server.base()),
        ("GIT_CONFIG_NOSYSTEM", "1".into()),
    ];
    let launch = LaunchContext::new(
        env.iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        Some(home.join(".local/state/agent-guards")),
        Some("judge-cost".into()),
    );
    let judge = GitHubWrites::new(launch);
    let chosen: Vec<(usize, ExecFacts, bool)> = EXECS
        .iter()
        .enumerate()
        .filter(|(i, _)| only.is_none_or(|o| o == *i))
        .map(|(i, (argv, refused))| {
            let facts = ExecFacts {
                program: format!("/usr/bin/{}", argv[0]),
                argv: argv.iter().map(|s| s.to_string()).collect(),
                cwd: wt.clone(),
                env: vec![
                    ("PATH".into(), "/usr/bin:/bin".into()),
                    ("HOME".into(), home.display().to_string()),
                ],
                caller: None,
            };
            (i, facts, *refused)
        })
        .collect();
    // Warm up: every exec judged once (config, the first rules fetch written to the ledger),
    // then the ledger left to settle, as a session's is between two pushes.
    for (_, facts, refused) in &chosen {
        let verdict = judge.judge(facts);
        assert_eq!(
            matches!(verdict, ExecVerdict::Deny { .. }),
            *refused,
            "{:?}: {verdict:?}",
            facts.argv
        );
    }
    std::thread::sleep(std::time::Duration::from_millis(2100));
    for (_, facts, _) in &chosen {
        let mut took: Vec<f64> = (0..n)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(judge.judge(std::hint::black_box(facts)));
                start.elapsed().as_secs_f64() * 1e6
            })
            .collect();
        took.sort_by(f64::total_cmp);
        if let Some(median) = took.get(n / 2) {
            println!(
                "{:<45} median {median:>7.1} µs of {n}",
                facts.argv.join(" ")
            );
        }
    }
}
