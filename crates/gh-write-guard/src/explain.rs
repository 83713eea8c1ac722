//! `gh-write-guard explain '<command>' [--cwd DIR] [--json] [--live]`: the parse, each
//! invocation, each requirement's verdict and the facts it used.
//!
//! The `gh-g67` branch (issue 5) owns this file and fills it; until then it prints the decision
//! and every finding of the real decision core (no network: rules are not fetched unless
//! `--live`).

/// Entry point of the `explain` subcommand; returns the exit code.
pub fn run(args: &[String]) -> i32 {
    let Some(command) = args.first() else {
        eprintln!("gh-write-guard: explain needs a command (see gh-write-guard --help)");
        return 2;
    };
    let process = crate::hook::Process::current();
    let cx = crate::Context {
        cwd: process.process_cwd.clone().unwrap_or_else(|| "/".into()),
        config: process.loaded.config.clone(),
        env: process.env.clone(),
        ..Default::default()
    };
    let world = crate::real_world::RealWorld::new(crate::real_world::RealWorldConfig {
        env: process.env.clone(),
        api_base_override: Some("http://127.0.0.1:9/".into()),
        rules_deadline: std::time::Duration::from_millis(1),
        cache: std::sync::Arc::new(branch_rules::cache::MemoryCache::new()),
    });
    let decision = crate::judge(command, &cx, &world);
    println!(
        "{}",
        serde_json::to_string_pretty(&decision.audit(command)).unwrap_or_default()
    );
    i32::from(decision.deny().is_some())
}
