//! The binary on a system without cgroups (macOS, the BSDs), and on Linux when built with
//! `--cfg agent_guards_portable` (so CI tests these branches): the prefix runs the command
//! unchanged (exec, no group; an agent command gets the C6 notice on stderr), `--report` names
//! the reason, SessionEnd reports that there is no containment on this system. Nothing here can
//! keep an agent command from running.

use crate::c1_invocation::{choose_shell, exec_shell};
use crate::c2_agent_commands::{classify, Kind};
use crate::c6_notice::unbounded_notice;
use hook_io::{Answer, HookSpec};
use std::time::Duration;

/// Whether this build contains commands: Linux, unless built with `--cfg agent_guards_portable`.
pub const CONTAINMENT_HERE: bool = cfg!(all(target_os = "linux", not(agent_guards_portable)));

/// The system this build runs on, as the reason names it.
fn system() -> String {
    if cfg!(agent_guards_portable) {
        format!(
            "{}, built with --cfg agent_guards_portable",
            std::env::consts::OS
        )
    } else {
        std::env::consts::OS.to_string()
    }
}

/// Why commands run without ceilings here, in the words the prefix, `--report` and SessionEnd use.
pub fn reason() -> String {
    format!(
        "no containment on this system ({}): the task and memory ceilings and the session-end stop are cgroups, a Linux facility",
        system()
    )
}

/// Prefix mode: the command exactly as given, with the shell the CLI would use.
pub fn run_prefix(script: &std::ffi::OsStr) -> i32 {
    // Read as text (lossily) to choose; run as the bytes it is.
    let text = script.to_string_lossy();
    let shell = choose_shell(&text, std::env::var("SHELL").ok().as_deref());
    if classify(&text, std::env::var("AI_AGENT").ok().as_deref()) == Kind::Agent {
        eprintln!(
            "{}",
            unbounded_notice(crate::codes::C6_NO_BACKEND, &reason())
        );
    }
    exec_shell(&shell, script)
}

/// The `--report` text.
pub fn report() -> String {
    [
        "tool-containment backend: none".to_string(),
        format!("Commands run WITHOUT ceilings on this host: {}.", reason()),
        "second line: off (Linux only: mount namespaces and seccomp user notification)".to_string(),
    ]
    .join("\n")
}

/// The SessionEnd answer: nothing was grouped, so nothing is stopped; said every time, even for a
/// payload that cannot be read (there is nothing a payload could change here).
pub fn session_end_text() -> String {
    format!("tool-containment (C7): {}; nothing was stopped.", reason())
}

/// SessionEnd: read the payload (bounded, as every hook does) and report.
pub fn run_session_end() -> ! {
    hook_io::run_hook(
        HookSpec {
            name: "tool-containment",
            input_limit: hook_io::DEFAULT_INPUT_LIMIT,
            deadline: Duration::from_secs(5),
        },
        |_input| Answer::Report {
            text: session_end_text(),
        },
        |_ctx, _cause| Answer::Report {
            text: session_end_text(),
        },
    )
}
