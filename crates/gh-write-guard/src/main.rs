//! gh-write-guard: PreToolUse hook on Bash (no arguments, payload on stdin), `--selftest`,
//! `explain`, `--help`, `--version`.

use gh_write_guard::{cases, hook};
use hook_io::{Cli, HookSpec};
use std::sync::Arc;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded_fixtures.rs"));
}

const USAGE: &str = "\
gh-write-guard: PreToolUse guard on Bash for GitHub writes, branch rules, primary checkouts and
wait loops (requirements G0-G7)

usage:
  gh-write-guard                      hook mode: PreToolUse payload on stdin
  gh-write-guard explain '<command>' [--cwd DIR] [--json] [--live]
                                      why a command is allowed or denied (read-only)
  gh-write-guard --selftest           replay the embedded fixtures
  gh-write-guard --help | --version

grants (hook environment only): GH_WRITE_GUARD_ALLOW=owner/repo,owner/* (G3, G5),
  GH_WRITE_GUARD_ALLOW_PRIMARY_CHECKOUT=1 (G6)
config: ~/.config/agent-guards/config.toml (AGENT_GUARDS_CONFIG): review_helper,
  protected_branches, primary_checkout, github_api, rules_timeout_ms, hook_deadline_ms
env: AGENT_GUARDS_GITHUB_API overrides the GitHub API base (tests, proxies)";

const CLI: Cli = Cli::new("gh-write-guard", env!("CARGO_PKG_VERSION"), USAGE);

fn main() {
    CLI.main(|mode, rest| match mode {
        None => Some(hook_mode()),
        Some("--selftest") => Some(selftest()),
        Some("explain") => Some(gh_write_guard::explain::run(rest)),
        Some(_) => None,
    })
}

fn hook_mode() -> i32 {
    let process = Arc::new(hook::Process::current());
    let spec = HookSpec {
        name: hook::NAME,
        input_limit: hook_io::DEFAULT_INPUT_LIMIT,
        deadline: process.hook_deadline(),
    };
    let for_judge = Arc::clone(&process);
    hook_io::run_hook(
        spec,
        move |input| hook::decide(input, &for_judge),
        move |ctx, cause| hook::failure_answer(ctx, cause, &process),
    )
}

/// Replays every embedded fixture; exit 0 when all pass.
/// Replays the embedded fixtures (each file an array of cases) through hook-replay and prints one
/// metadata-only JSON record (ids and verdicts, never the command text): `cases`/`passed` count
/// files, `case_count` the cases in them.
fn selftest() -> i32 {
    let case_count = std::cell::Cell::new(0);
    let (mut record, replayed) = hook_replay::replay(
        hook::NAME,
        env!("CARGO_PKG_VERSION"),
        embedded::EMBEDDED,
        |_, file| {
            let file = file.as_array().ok_or("not a JSON array of cases")?;
            case_count.set(case_count.get() + file.len());
            let failed: Vec<String> = file
                .iter()
                .map(cases::replay)
                .filter(|r| !(r.passed && r.requirement_matched))
                .map(|r| format!("{}: expected {}, got {}", r.id, r.expected, r.got))
                .collect();
            failed
                .is_empty()
                .then_some(())
                .ok_or_else(|| failed.join("; "))
        },
    );
    let passed = replayed && case_count.get() > 0;
    record["case_count"] = serde_json::json!(case_count.get());
    record["status"] = serde_json::json!(if passed { "pass" } else { "fail" });
    // The two counts in words (issue 46: `"case_count":302,"cases":11` said nothing).
    record["summary"] = serde_json::json!(format!(
        "{} of {} fixture files passed ({} cases in them)",
        record["passed"],
        record["cases"],
        case_count.get()
    ));
    hook_replay::print_selftest((record, passed))
}
