//! egress-audit: Stop/SubagentStop hook (no arguments, payload on stdin) and CLI.

use egress_audit::refusals::{AuditLogRefusals, NoRefusals, RefusalSource};
use egress_audit::{cases, configured_gate, e3_cli, e4_contract, e5_hook};
use hook_io::{Answer, Cli, HookSpec};
use serde_json::json;

const USAGE: &str = "\
egress-audit: phrase gate over an agent's final message (requirements E1-E6)

usage:
  egress-audit                         hook mode: Stop/SubagentStop payload on stdin
  egress-audit evaluate --text T [--json]
                                       exit 0 green, 1 red
  egress-audit explain --text T        the verdict, the rule and the words that fired it
  egress-audit evaluate-fixtures --input DIR [--json]
                                       exit 0 when every case meets its expected_status
  egress-audit --selftest              audit contract over the embedded fixtures (E4)
  egress-audit --help | --version

config: ~/.config/agent-guards/config.toml (AGENT_GUARDS_CONFIG): egress_mode = \"enforce\"|\"report\",
egress_extra_phrases = { <family> = [\"phrase\", ...] }, hook_deadline_ms";

const CLI: Cli = Cli::new("egress-audit", env!("CARGO_PKG_VERSION"), USAGE);

fn main() {
    CLI.main(|mode, rest| match mode {
        None => Some(hook_mode()),
        Some("--selftest") => Some(selftest()),
        Some("evaluate") => Some(evaluate(rest)),
        Some("explain") => Some(explain(rest)),
        Some("evaluate-fixtures") => Some(evaluate_fixtures(rest)),
        Some(_) => None,
    })
}

/// Parses `--name VALUE` / `--name=VALUE` pairs and bare `--json`.
fn options(args: &[String], valued: &str) -> Result<(Option<String>, bool), String> {
    let mut value = None;
    let mut as_json = false;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == "--json" {
            as_json = true;
        } else if a == valued {
            i += 1;
            value = Some(
                args.get(i)
                    .cloned()
                    .ok_or(format!("{valued} needs a value"))?,
            );
        } else if let Some(v) = a.strip_prefix(&format!("{valued}=")) {
            value = Some(v.to_string());
        } else {
            return Err(format!("unexpected argument {a:?}"));
        }
        i += 1;
    }
    Ok((value, as_json))
}

fn evaluate(args: &[String]) -> i32 {
    let (text, as_json) = match options(args, "--text") {
        Ok((Some(t), j)) => (t, j),
        Ok((None, _)) => return CLI.usage_error("evaluate needs --text"),
        Err(e) => return CLI.usage_error(&e),
    };
    print_result(e3_cli::evaluate(&gate_from_config(), &text, as_json))
}

fn explain(args: &[String]) -> i32 {
    let text = match options(args, "--text") {
        Ok((Some(t), _)) => t,
        Ok((None, _)) => return CLI.usage_error("explain needs --text"),
        Err(e) => return CLI.usage_error(&e),
    };
    print_result(e3_cli::explain(&gate_from_config(), &text))
}

fn evaluate_fixtures(args: &[String]) -> i32 {
    let (dir, as_json) = match options(args, "--input") {
        Ok((Some(d), j)) => (d, j),
        Ok((None, _)) => return CLI.usage_error("evaluate-fixtures needs --input DIR"),
        Err(e) => return CLI.usage_error(&e),
    };
    let cases = match cases::load_dir(std::path::Path::new(&dir)) {
        Ok(c) => c,
        Err(e) => return CLI.usage_error(&e),
    };
    print_result(e3_cli::evaluate_fixtures(
        &gate_from_config(),
        &cases,
        as_json,
    ))
}

/// The gate the config asks for; a config problem is said on stderr.
fn gate_from_config() -> phrase_gate::EgressGate {
    let (gate, notice) = configured_gate(&guard_config::load());
    if let Some(n) = notice {
        eprintln!("{n}");
    }
    gate
}

/// Prints a CLI command's output; returns its exit code.
/// Prints a CLI result and returns its exit status. A reader that closed the pipe early
/// (`explain … | head -1`) has had what it wanted: the verdict stays the exit status, with no
/// panic (egress-43d: `println!` panicked on the closed pipe). Any other failure to write is ours:
/// said on stderr, status 2.
fn print_result((out, code): (String, i32)) -> i32 {
    use std::io::Write;
    match writeln!(std::io::stdout().lock(), "{out}") {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("egress-audit: cannot write the result: {e}");
            2
        }
        _ => code,
    }
}

/// The audit contract runs on the baseline gate: a self-test checks the build, not the config.
fn selftest() -> i32 {
    let cases = match cases::embedded_cases() {
        Ok(c) => c,
        Err(e) => {
            let record = json!({"binary": "egress-audit", "status": "fail", "error": e});
            return hook_replay::print_selftest((record, false));
        }
    };
    let report = e4_contract::run(&phrase_gate::EgressGate::baseline(), &cases);
    let passed = report.passed();
    hook_replay::print_selftest((report, passed))
}

fn hook_mode() -> i32 {
    let loaded = guard_config::load();
    let state = session_store::state_dir(&|k| std::env::var(k).ok()).ok();
    let state_for_failure = state.clone();
    let spec = HookSpec {
        name: "egress-audit",
        input_limit: hook_io::DEFAULT_INPUT_LIMIT,
        deadline: loaded.config.hook_deadline(),
    };
    hook_io::run_hook(
        spec,
        move |input| {
            let (gate, notice) = configured_gate(&loaded);
            // A config problem: in the audit log and to the user, once per session.
            let notice = session_store::config_notice::once(
                state.as_deref(),
                input.session_id.as_deref(),
                "egress-audit",
                notice,
            );
            let mode = loaded.config.egress_mode.unwrap_or_default();
            let refusals: Box<dyn RefusalSource> = match state.as_deref() {
                Some(dir) => Box::new(AuditLogRefusals {
                    path: session_store::Session::new(dir, input.session_id.as_deref())
                        .audit()
                        .path()
                        .to_path_buf(),
                }),
                None => Box::new(NoRefusals),
            };
            let verdict = e5_hook::judge(&input, &gate, mode, notice, refusals.as_ref());
            let written = audit(
                state.as_deref(),
                input.session_id.as_deref(),
                &verdict.audit,
            );
            verdict.answer.noting_audit("egress-audit", written)
        },
        move |ctx, cause| {
            // E5 does not fail closed: blocking a stop on our own failure would loop the agent on a
            // problem it cannot fix. The user is told and the failure recorded.
            let record =
                cause.audit_record(ctx, "egress-audit", session_store::Decision::AllowUnjudged);
            let _ = audit(
                state_for_failure.as_deref(),
                ctx.session_id.as_deref(),
                &record,
            );
            Answer::Notice {
                system_message: format!("egress-audit could not judge this stop: {cause}"),
            }
        },
    )
}

fn audit(
    state: Option<&std::path::Path>,
    session_id: Option<&str>,
    record: &serde_json::Value,
) -> Result<(), String> {
    let state = state.ok_or("no state dir (HOME and XDG_STATE_HOME unset)")?;
    session_store::Session::new(state, session_id)
        .audit()
        .append(record)
        .map_err(|e| e.to_string())
}
