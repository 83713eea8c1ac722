//! The sub-codes this binary's denies, blocks and critical warnings carry: the one place that
//! lists them. A code is `<requirement>.<what fired>`; the reason the agent sees starts with it
//! and the audit record carries it as `code` (beside `requirement`). `spec/model-tier-guard.md`
//! lists each code once (checked by the test `safety_kernel::codes!` declares).

safety_kernel::codes! {
    spec: "../../../spec/model-tier-guard.md";
    /// M1: a dispatch would inherit the main model, which could not be learned.
    M1_UNKNOWN_MAIN = "M1.unknown-main";
    /// M1: a dispatch would inherit a main model nothing names; the CLI's default may be the tier.
    M1_CLI_DEFAULT = "M1.cli-default";
    /// M2: the Agent call's own `model` is on the maintainer-only tier.
    M2_CALL_MODEL = "M2.call-model";
    /// M2: the subagent definition's `model:` is on the tier.
    M2_DEFINITION = "M2.definition";
    /// M2: `CLAUDE_CODE_SUBAGENT_MODEL` (forced or not) is on the tier.
    M2_SUBAGENT_ENV = "M2.subagent-env";
    /// M2: the subagent inherits a main model on the tier (a fork, `inherit`, no model named).
    M2_INHERIT = "M2.inherit";
    /// M2: the call could not be judged (fail closed).
    M2_FAIL_CLOSED = "M2.fail-closed";
    /// M3: a nested `claude` launch on the tier.
    M3_LAUNCH = "M3.launch";
    /// M3: a Bash command writes a file that sets a model on the tier.
    M3_BASH_FILE = "M3.bash-file";
    /// M3: a Write/Edit of a file that sets a model on the tier (agent definition, settings).
    M3_FILE = "M3.file";
    /// M3: a skill or slash command whose front matter names a model on the tier.
    M3_SKILL = "M3.skill";
    /// M3: a model switch to the tier.
    M3_SWITCH = "M3.switch";
    /// M3: the session itself runs on the tier without the grant (UserPromptSubmit).
    M3_SESSION = "M3.session";
    /// M3: nothing names the session's model and a launcher's variable points the default at the tier.
    M3_SESSION_DEFAULT = "M3.session-default";
    /// M5: a tainted session dispatches a subagent above its main model.
    M5_DISPATCH = "M5.dispatch";
    /// M5: a tainted session launches a nested agent above its main model.
    M5_LAUNCH = "M5.launch";
    /// M5 (critical warning after the fact): a subagent of a tainted session ran above the main model.
    M5_RAN_ABOVE = "M5.ran-above";
    /// M6 (critical warning after the fact): a subagent ran on the tier without the grant.
    M6_RAN_ON_TIER = "M6.ran-on-tier";
}
