//! gh-write-guard: the PreToolUse guard on `Bash` for GitHub writes, branch rules, primary
//! checkouts and wait loops (requirements G0-G7 of the product requirements).
//!
//! - [`judge`](mod@judge): the one decision core ([`judge::judge`]) over a [`context::Context`] and a
//!   [`world::World`]; one module per requirement (`g0_unparsed` ... `g7_wait_loops`), each a
//!   `check(&Analysis) -> Vec<Finding>` over the [`analysis::Analysis`] of the command.
//! - [`codes`]: the sub-code of every deny.
//! - [`world`]: the outside facts, [`real_world`] (git2, live rules, files) and [`fake_world`]
//!   (a conformance case's `env`).
//! - [`cases`]: replay of conformance cases and fixtures (tests and `--selftest`).
//! - [`hook`]: the hook-mode glue (payload to context, audit record, fail-closed answers).
//! - [`exec_argv`] and [`wire`]: the same rules over an exec's argv (the second line) and a push
//!   read off the wire (the broker, issue 38); [`wire_api`]: a REST or GraphQL request read off
//!   the wire.

pub mod analysis;
pub mod cases;
pub mod codes;
pub mod context;
pub mod exec_argv;
pub mod explain;
pub mod face;
pub mod fake_world;
pub mod finding;
pub mod g0_opaque;
pub mod g0_unparsed;
pub mod g1_result_hidden;
pub mod g2_node_ids;
pub mod g3_other_owner;
pub mod g4_branch_rules;
pub mod g5_review_helper;
pub mod g6_primary_checkout;
pub mod g6_repo_kind;
pub mod g7_timeout;
pub mod g7_wait_loops;
pub mod gh_config;
pub mod git_push;
pub mod hook;
pub mod judge;
pub mod operations;
pub mod real_world;
pub mod wire;
pub mod wire_api;
pub mod world;

pub use analysis::{Analysis, Units};
pub use context::Context;
pub use finding::{Code, Finding, Requirement, Verdict};
pub use judge::{judge, Decision};
pub use world::World;

// The command readers live in command-effects, shared by every guard.
pub use command_effects::{gh as gh_cli, gh_api, git as git_args, git_alias};
