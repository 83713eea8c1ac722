//! End-to-end harness: drives the real Claude Code CLI (`claude -p`) against a scripted model
//! server on 127.0.0.1, in a temp HOME and project whose `.claude/settings.json` registers the
//! hooks under test in exec form.

mod cli_locator;
mod model_server;
mod process;
mod project;
mod scenario;
mod script;
mod wire;
mod workspace_bin;

pub use cli_locator::{
    cache_dir, claude_cli, cli_required, cli_version, install_cached, ClaudeCli, NPM_PACKAGE,
    PINNED_VERSION,
};
pub use model_server::{ModelServer, Script};
pub use process::{run_bounded, RunOutput};
pub use project::{settings_json, HookSpec, Project, DEFAULT_HOOK_TIMEOUT_SECS};
pub use scenario::{cli_or_skip, CliResult, Outcome, PermissionDenial, Scenario, DEFAULT_RUN_TIMEOUT};
pub use script::{decide, text, tool, Block, Decider, ModelRequest, Reply, RequestKind, ToolResult, Turn};
pub use workspace_bin::{bin, workspace_bin, workspace_root};
