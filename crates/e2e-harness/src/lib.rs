//! End-to-end harness: drives the real Claude Code CLI (`claude -p`) against a scripted model
//! server on 127.0.0.1, in a temp HOME and project whose `.claude/settings.json` registers the
//! hooks under test in exec form. Scenarios live in the root package's `tests/`.
//!
//! # What a run does
//! 1. Locates the CLI ([`claude_cli`]): `CLAUDE_CODE_BIN`, else `npm install
//!    @anthropic-ai/claude-code@2.1.332` into `$AGENT_GUARDS_E2E_CACHE` (default
//!    `<target>/e2e-cli`), once per machine under a file lock; `claude --version` must say
//!    2.1.332. Without a CLI the scenario is skipped with a loud notice, unless `CI=true` or
//!    `AGENT_GUARDS_E2E_REQUIRED=1`, where it fails.
//! 2. Writes `.claude/settings.json` (hooks in exec form: `{"type":"command","command":
//!    "/abs/bin","args":[...],"timeout":N}`, an `env` block, extra keys) and project files.
//! 3. Starts a [`ModelServer`] that answers each main-session `POST /v1/messages` with the next
//!    scripted [`Turn`] (streamed as server-sent events), subagent requests from their own
//!    script, and side requests (no `tools`) with a short text that is not a turn.
//! 4. Runs `claude -p <prompt> --output-format json --allowedTools Bash` with a cleared
//!    environment (PATH plus HOME, XDG dirs under the temp HOME, `ANTHROPIC_BASE_URL`,
//!    `ANTHROPIC_API_KEY`, `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`, `DISABLE_TELEMETRY=1`)
//!    and a hard timeout that kills the CLI's process group.
//! 5. Returns an [`Outcome`]: the parsed JSON result, stderr (SessionEnd reports land there),
//!    every request the server received, and the temp dirs (alive until the outcome drops).
//!    The run fails if the CLI asked for more turns than scripted, or left turns unused (so a
//!    hook that should have blocked but did not is caught), unless [`Scenario::lenient`].
//!
//! # Adding a scenario
//! ```no_run
//! use e2e_harness::{bin, decide, text, tool, Scenario};
//! use serde_json::json;
//!
//! #[test]
//! fn my_guard_denies_rm() {
//!     let Some(out) = Scenario::new()
//!         .hook("PreToolUse", Some("Bash"), bin("my-guard"), &[])
//!         .turn(tool("Bash", json!({"command": "rm -rf /tmp/x"})))
//!         .turn(text("OK"))
//!         .run()
//!     else {
//!         return; // CLI unavailable and not required: skipped loudly
//!     };
//!     assert_eq!(out.result.permission_denials[0].tool_name, "Bash");
//!     let denied = &out.main_requests()[1].tool_results()[0];
//!     assert!(denied.is_error && denied.text.contains("PreToolUse:Bash hook error"));
//! }
//! ```
//! [`bin`] builds the workspace binary with `cargo build -p <name> --bin <name>` once per test
//! process and returns its exact path ([`workspace_bin`] when package and binary names differ).
//! [`decide`] turns look at the request they answer; [`ModelRequest`] reads it
//! ([`ModelRequest::tool_results`], [`ModelRequest::text_since_last_answer`],
//! [`ModelRequest::system_text`], [`ModelRequest::mentions`]). [`Scenario::record_hook`] logs
//! every payload of an event for [`Outcome::hook_payloads`]. `main_requests()[n]` is the request
//! answered by turn `n`, so `[n + 1]` is what the CLI sent back after turn `n`.
//!
//! # The egress-audit scenario (issue 2)
//! The model ends with a command handed to the user; `egress-audit` blocks the stop; the next
//! request must carry its reason; the model then reports having run the command, and the
//! session ends (the block-once behaviour comes from `stop_hook_active`).
//! ```no_run
//! use e2e_harness::{bin, decide, text, Scenario};
//!
//! #[test]
//! fn egress_audit_blocks_a_displaced_command_then_lets_the_session_end() {
//!     let Some(out) = Scenario::new()
//!         .hook("Stop", None, bin("egress-audit"), &[])
//!         .record_hook("Stop", None)
//!         .turn(text("Done. You can run make smoke to verify."))
//!         .turn(decide(|req| {
//!             // The CLI relays a Stop block as
//!             // `Stop hook blocking error from command: "<command>": <reason>`.
//!             assert!(req.text_since_last_answer().contains("Stop hook blocking error"));
//!             text("I ran make smoke; it passed with exit code 0.")
//!         }))
//!         .run()
//!     else {
//!         return;
//!     };
//!     let main = out.main_requests();
//!     assert_eq!(main.len(), 2, "one block, one continuation");
//!     let feedback = main[1].text_since_last_answer();
//!     assert!(feedback.contains("egress-audit"), "{feedback}");
//!     assert!(!feedback.contains("you can run"), "the reason holds no tripwire phrase");
//!     assert_eq!(out.result.result, "I ran make smoke; it passed with exit code 0.");
//!     let stops = out.hook_payloads("Stop");
//!     assert_eq!(stops[0]["stop_hook_active"], false);
//!     assert_eq!(stops[1]["stop_hook_active"], true);
//! }
//! ```
mod cli_locator;
mod model_server;
mod project;
mod scenario;
mod script;
mod wire;
mod workspace_bin;

pub use cli_locator::{
    cache_dir, claude_cli, cli_required, cli_version, install_cached, ClaudeCli, NPM_PACKAGE,
    PINNED_VERSION,
};
pub use hook_replay::bounded::{run_bounded, RunOutput};
pub use model_server::{ModelServer, Script};
pub use project::{settings_json, HookSpec, Project, DEFAULT_HOOK_TIMEOUT_SECS};
pub use scenario::{
    cli_or_skip, CliResult, Outcome, PermissionDenial, Scenario, DEFAULT_RUN_TIMEOUT,
};
pub use script::{
    bash, decide, text, tool, Block, Decider, ModelRequest, Reply, RequestKind, ToolResult, Turn,
};
pub use workspace_bin::{bin, workspace_bin, workspace_root};
