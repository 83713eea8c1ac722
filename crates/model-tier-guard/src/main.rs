//! model-tier-guard: hook mode (payload on stdin; the event decides the rule), `--selftest`,
//! `--help`, `--version`.

use hook_io::{Cli, HookSpec};
use model_tier_guard::{failure_answer, fixtures, judge, write_audit, Ctx};

const USAGE: &str = "\
model-tier-guard: keeps the maintainer-only model tier out of the agent's reach (M1-M6) and
records taint at the source (K5)

usage:
  model-tier-guard               hook mode: one payload on stdin. Register for
                                 PreToolUse Agent|Task, Bash, Write|Edit, Skill|SlashCommand;
                                 PreModelSwitch; UserPromptSubmit; SessionStart;
                                 PostModelSwitch; PostToolUse (taint sources:
                                 Agent|Task|WebFetch|WebSearch|Bash|mcp__.*|
                                 ListMcpResourcesTool|ReadMcpResourceTool)
  model-tier-guard --selftest    replay the embedded fixtures (exit 0 pass, 1 fail)
  model-tier-guard --help | --version

grant:  MODEL_TIER_GUARD_ALLOW=1|true|yes|on in the session's launch environment
config: ~/.config/agent-guards/config.toml (AGENT_GUARDS_CONFIG): maintainer_only_tiers
        (default [\"fable\"]), trusted_mcp_servers, hook_deadline_ms (default 2000)";

const CLI: Cli = Cli::new("model-tier-guard", env!("CARGO_PKG_VERSION"), USAGE);

fn main() {
    CLI.main(|mode, _| match mode {
        None => Some(hook_mode()),
        Some("--selftest") => Some(hook_replay::print_selftest(fixtures::selftest())),
        Some(_) => None,
    })
}

fn hook_mode() -> i32 {
    let ctx = Ctx::from_process();
    let spec = HookSpec {
        name: "model-tier-guard",
        input_limit: hook_io::DEFAULT_INPUT_LIMIT,
        deadline: guard_config::load().config.hook_deadline(),
    };
    let failure_ctx = ctx.clone();
    hook_io::run_hook(
        spec,
        move |input| {
            let session_id = input.session_id.clone();
            // A config problem: in the audit log and to the user, once per session.
            let mut ctx = ctx;
            ctx.config_notice = session_store::config_notice::once(
                ctx.state_dir.as_deref(),
                session_id.as_deref(),
                "model-tier-guard",
                ctx.config_notice.take(),
            );
            let verdict = judge(input, &ctx);
            let written = write_audit(&ctx, session_id.as_deref(), &verdict.audit);
            verdict.answer.noting_audit("model-tier-guard", written)
        },
        move |fctx, cause| {
            let record =
                cause.audit_record(fctx, "model-tier-guard", session_store::Decision::Failure);
            let _ = write_audit(&failure_ctx, fctx.session_id.as_deref(), &[record]);
            failure_answer(
                fctx.event.as_ref(),
                fctx.tool_name.as_deref(),
                &cause.to_string(),
            )
        },
    )
}
