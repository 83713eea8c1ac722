//! One exec's literal argv, judged without a shell line (the exec gate in crate `second-line`).
//!
//! An exec has no shell around it: its words are literal and its environment is its own. A
//! builtin `git` subcommand that pushes nothing is read by two requirements only: G4's hook
//! check (commit, merge, am, pull run the hooks it keeps from being skipped) and G6 (does it
//! mutate a primary checkout). This module splits the argv once with command-effects' git
//! grammar and asks those two for the same verdicts and findings they give the `git` of
//! `NAME=value git <argv...>` over a command line, without quoting the words and parsing them
//! as shell again. Anything else (a push, an alias, `gh`) goes through [`crate::judge`].

use crate::context::Context;
use crate::finding::Finding;
use crate::world::World;
use crate::{g4_branch_rules, g6_primary_checkout};
use command_effects::git;
use std::path::Path;

/// What G4 (`hooks`: the hook check) and G6 find in a `git` exec's argv (`argv[0]` is the
/// program) run in `cwd` with the variables `env` answers.
pub fn judge_git(
    argv: &[String],
    env: &dyn Fn(&str) -> Option<String>,
    cwd: &Path,
    cx: &Context,
    world: &dyn World,
    hooks: bool,
) -> Vec<Finding> {
    let arena = bumpalo::Bump::new();
    let args = command_effects::exec_args::literal_args(&arena, argv);
    let call = git::parse_git_args(&args, &|name| env(name).map(Some));
    let mut out = Vec::new();
    if hooks {
        out.extend(g4_branch_rules::hooks_bypass(
            &call,
            || shell_words::join(argv),
            &[],
        ));
    }
    let policy = g6_primary_checkout::Policy::of(cx);
    out.extend(g6_primary_checkout::check_call(
        &call,
        cwd,
        &policy,
        world,
        cx.home().as_deref(),
    ));
    out
}
