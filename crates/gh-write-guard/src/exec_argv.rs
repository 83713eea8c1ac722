//! One exec's literal argv, judged without a shell line (the exec gate in crate `second-line`).
//!
//! An exec has no shell around it: its words are literal and its environment is its own. A
//! builtin `git` subcommand that pushes nothing is read by two requirements only: G4's hook
//! check (commit, merge, am, pull run the hooks it keeps from being skipped) and G6 (does it
//! mutate a primary checkout). This module splits the argv once with command-effects' git
//! grammar and asks those two for the same verdicts and findings they give the `git` of
//! `NAME=value git <argv...>` over a command line, without quoting the words and parsing them
//! as shell again. A builtin `git push` is read by G3, G4 (its hook check and the branch rules
//! of each branch it updates) and G6 over the same plan ([`judge_push`]). Anything else (an
//! alias, a subcommand decided at run time, `gh`) goes through [`crate::judge`](mod@crate::judge).

use crate::context::Context;
use crate::finding::Finding;
use crate::world::World;
use crate::{g3_other_owner, g4_branch_rules, g6_primary_checkout};
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
    out.extend(g6(&call, cwd, cx, world, cx.home().as_deref()));
    out
}

/// What G3, G4 and G6 find in the argv of a `git` exec whose subcommand is the builtin `push`
/// or one command-effects reads as a push (`send-pack`, a remote helper's half), which no alias
/// can shadow, run in `cwd` with the variables `env` answers; `command`: the text the reasons
/// show (the exec's command line). The same findings [`crate::judge`](mod@crate::judge) gives
/// the `git` of `NAME=value git <argv...>`, in the same order.
pub fn judge_push(
    argv: &[String],
    env: &dyn Fn(&str) -> Option<String>,
    cwd: &Path,
    cx: &Context,
    world: &dyn World,
    command: &dyn Fn() -> String,
) -> Vec<Finding> {
    let arena = bumpalo::Bump::new();
    let args = command_effects::exec_args::literal_args(&arena, argv);
    let call = git::parse_git_args(&args, &|name| env(name).map(Some));
    let home = cx.home();
    // Where it acts: the cwd after its `-C`s (`None`: a `-C` git cannot follow).
    let dir = command_effects::dirs::after_git_c(cwd, &call, home.as_deref());
    let plan = crate::git_push::plan(&call, dir.as_deref(), world, &None);
    let label = crate::operations::git_label(&call);
    let mut out = g3_other_owner::check_push(cx, world, dir.as_deref(), &plan, &label);
    out.extend(g4_branch_rules::hooks_bypass(&call, command, &[]));
    let site = g4_branch_rules::PushSite {
        world,
        rules: world.rules(),
        dir: dir.as_deref(),
        label: &label,
        command,
    };
    let policy = branch_rules::FailClosedPolicy::new(&cx.config.protected_branches);
    out.extend(g4_branch_rules::check_push(&site, &plan, &policy));
    out.extend(g6(&call, cwd, cx, world, home.as_deref()));
    out
}

/// G6 over one git call run in `cwd`, with the maintainer's policy (`home`: `cx`'s, worked
/// out once by the caller).
fn g6(
    call: &git::GitCall,
    cwd: &Path,
    cx: &Context,
    world: &dyn World,
    home: Option<&Path>,
) -> Option<Finding> {
    let policy = g6_primary_checkout::Policy::of(cx);
    g6_primary_checkout::check_call(call, cwd, &policy, world, home)
}
