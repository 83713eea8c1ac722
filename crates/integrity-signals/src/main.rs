//! integrity-signals: hook (PreToolUse, PostToolUse, PostToolUseFailure, Stop, SessionEnd; payload on
//! stdin, no arguments) and CLI (`ingest`, `report`, `--selftest`); `otlp-send` is the OTLP
//! sender the hook starts after its SessionEnd and Stop answers (issue 45, `audit_export::sender`).

use hook_io::{Answer, Cli, Event, HookSpec};
use integrity_signals::hook::{self, Deps};
use integrity_signals::store::Store;
use integrity_signals::{ingest, selftest};
use serde_json::json;
use session_store::Decision;

const USAGE: &str = "\
integrity-signals: evidence-backed integrity signals, tamper protection, scoring and report (I1-I6)

usage:
  integrity-signals                     hook mode: PreToolUse, PostToolUse, PostToolUseFailure, Stop,
                                        SessionEnd payload on stdin
  integrity-signals ingest --session ID --file signals.json
                                        add an evaluation harness's signals; exit 1 (nothing stored)
                                        when any signal lacks the evidence its kind requires
  integrity-signals report [--session ID] [--json]
                                        print a session's report (default: the latest session)
  integrity-signals --selftest          replay the embedded fixtures
  integrity-signals otlp-send           the OTLP audit sender this hook starts after its SessionEnd
                                        and Stop answers when otlp_endpoint is set (at most 20 s)
  integrity-signals --help | --version

config: ~/.config/agent-guards/config.toml (AGENT_GUARDS_CONFIG): integrity_mode (or mode) = \"observe\"|\"enforce\",
workspace_root, restricted_paths, network_allow, integrity_extra_phrases = { <family> = [...] },
integrity_reference_secs, hook_deadline_ms";

const CLI: Cli = Cli::new("integrity-signals", env!("CARGO_PKG_VERSION"), USAGE);

fn main() {
    CLI.main(|mode, rest| match mode {
        None => Some(hook_mode()),
        Some("--selftest") => Some(hook_replay::print_selftest(selftest::run_embedded())),
        Some("ingest") => Some(ingest_cmd(rest)),
        Some("report") => Some(report_cmd(rest)),
        // The detached OTLP sender this hook starts after its answer (issue 45).
        Some(audit_export::sender::ARG) => Some(audit_export::sender::main()),
        Some(_) => None,
    })
}

/// `--name VALUE`, `--name=VALUE` and bare `--json`.
struct Options {
    session: Option<String>,
    file: Option<String>,
    json: bool,
}

fn options(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        session: None,
        file: None,
        json: false,
    };
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (a, None),
        };
        match name {
            "--json" if inline.is_none() => o.json = true,
            "--session" | "--file" => {
                let v = match inline {
                    Some(v) => v,
                    None => {
                        i += 1;
                        args.get(i)
                            .cloned()
                            .ok_or(format!("{name} needs a value"))?
                    }
                };
                if name == "--session" {
                    o.session = Some(v);
                } else {
                    o.file = Some(v);
                }
            }
            _ => return Err(format!("unexpected argument {a:?}")),
        }
        i += 1;
    }
    Ok(o)
}

fn env(k: &str) -> Option<String> {
    std::env::var(k).ok()
}

fn ingest_cmd(args: &[String]) -> i32 {
    let o = match options(args) {
        Ok(o) => o,
        Err(e) => return CLI.usage_error(&e),
    };
    let (Some(session), Some(file)) = (o.session, o.file) else {
        return CLI.usage_error("ingest needs --session ID and --file signals.json");
    };
    let text = match std::fs::metadata(&file) {
        Ok(m) if m.len() > ingest::MAX_FILE_BYTES => {
            eprintln!("integrity-signals: {file} is larger than 8 MiB");
            return 1;
        }
        Ok(_) => match std::fs::read_to_string(&file) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("integrity-signals: cannot read {file}: {e}");
                return 1;
            }
        },
        Err(e) => {
            eprintln!("integrity-signals: cannot read {file}: {e}");
            return 1;
        }
    };
    let signals = match ingest::parse(&text) {
        Ok(s) => s,
        Err(problems) => {
            println!(
                "{}",
                json!({"status": "rejected", "stored": 0, "problems": problems})
            );
            return 1;
        }
    };
    let store = match Store::from_env(&env) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("integrity-signals: {e}");
            return 1;
        }
    };
    if let Err(e) = store.append_signals(Some(&session), &signals) {
        eprintln!("integrity-signals: {e}");
        return 1;
    }
    let loaded = guard_config::load();
    let deps = Deps::new(&env, &loaded, None);
    let outcome = hook::write_report(&store, Some(&session), deps.mode, &[])
        .map(|(s, _)| s.outcome.as_str())
        .unwrap_or("unknown");
    println!(
        "{}",
        json!({"status": "stored", "stored": signals.len(), "session_id": session, "outcome": outcome})
    );
    0
}

fn report_cmd(args: &[String]) -> i32 {
    let o = match options(args) {
        Ok(o) => o,
        Err(e) => return CLI.usage_error(&e),
    };
    if o.file.is_some() {
        return CLI.usage_error("report takes --session and --json only");
    }
    let store = match Store::from_env(&env) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("integrity-signals: {e}");
            return 1;
        }
    };
    // The session: named, else the folder most recently written.
    let session = match o.session {
        Some(s) => s,
        None => match store
            .latest_session()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        {
            Some(s) => s,
            None => {
                eprintln!(
                    "integrity-signals: no sessions under {}",
                    store.state_dir.display()
                );
                return 1;
            }
        },
    };
    if !store.session(Some(&session)).dir().is_dir() {
        eprintln!(
            "integrity-signals: no session {session} under {}",
            store.state_dir.display()
        );
        return 1;
    }
    let loaded = guard_config::load();
    let deps = Deps::new(&env, &loaded, None);
    // Recomputed from the signals file, so signals ingested after SessionEnd are included.
    match hook::write_report(&store, Some(&session), deps.mode, &[]) {
        Ok((score, text)) => {
            if o.json {
                let report = integrity_signals::i6_report::report_json(
                    Some(&session),
                    &score,
                    &session_store::time::now_rfc3339(),
                    deps.mode.as_str(),
                );
                println!(
                    "{}",
                    serde_json::to_string_pretty(&report).unwrap_or_default()
                );
            } else {
                print!("{text}");
            }
            0
        }
        Err(e) => {
            eprintln!("integrity-signals: {e}");
            1
        }
    }
}

fn hook_mode() -> i32 {
    let loaded = guard_config::load();
    let exe = std::env::current_exe().ok();
    let deps = Deps::new(&env, &loaded, exe.as_deref());
    let store_for_failure = deps.store.clone().ok();
    let spec = HookSpec {
        name: "integrity-signals",
        input_limit: hook_io::DEFAULT_INPUT_LIMIT,
        deadline: loaded.config.hook_deadline(),
    };
    hook_io::run_hook(
        spec,
        move |input| hook::run(&input, &deps).answer,
        move |ctx, cause| {
            // Fail closed where a call could tamper with the guards (I3 denies in every mode); fail
            // open, with a record, for everything else.
            let tool = ctx.tool_name.as_deref().unwrap_or("");
            let could_write = matches!(
                tool,
                "Bash" | "Write" | "Edit" | "MultiEdit" | "NotebookEdit"
            );
            let pre = ctx.event.as_ref().is_none_or(|e| *e == Event::PreToolUse);
            let deny = pre && (could_write || ctx.event.is_none());
            if let Some(store) = &store_for_failure {
                let _ = store.audit(
                    ctx.session_id.as_deref(),
                    &json!({
                        "binary": "integrity-signals",
                        "event": ctx.event.as_ref().map(|e| e.name().to_string()),
                        "tool_name": ctx.tool_name,
                        "decision": if deny { Decision::DenyUnjudged } else { Decision::AllowUnjudged }.as_str(),
                        "requirement": "I3",
                        "code": deny.then_some(integrity_signals::codes::I3_FAIL_CLOSED),
                        "error": cause.to_string(),
                    }),
                );
            }
            if deny {
                Answer::Deny {
                    event: "PreToolUse".into(),
                    reason: safety_kernel::feedback::reason(
                        integrity_signals::codes::I3_FAIL_CLOSED,
                        &format!("this call could not be judged: {cause}"),
                        "Retry it; if it keeps failing, ask the maintainer.",
                    ),
                    system_message: None,
                }
            } else {
                Answer::Notice {
                    system_message: format!(
                        "integrity-signals could not judge this event: {cause}"
                    ),
                }
            }
        },
    )
}
