//! The sub-codes this binary's denies, blocks and critical warnings carry: the one place that
//! lists them. A code is `<requirement>.<what fired>`; the reason the agent sees starts with it
//! and the audit record carries it as `code` (beside `requirement`). `spec/model-tier-guard.md`
//! lists each code once (checked by a test below).

/// M1: a dispatch would inherit the main model, which could not be learned.
pub const M1_UNKNOWN_MAIN: &str = "M1.unknown-main";
/// M1: a dispatch would inherit a main model nothing names; the CLI's default may be the tier.
pub const M1_CLI_DEFAULT: &str = "M1.cli-default";
/// M2: the Agent call's own `model` is on the maintainer-only tier.
pub const M2_CALL_MODEL: &str = "M2.call-model";
/// M2: the subagent definition's `model:` is on the tier.
pub const M2_DEFINITION: &str = "M2.definition";
/// M2: `CLAUDE_CODE_SUBAGENT_MODEL` (forced or not) is on the tier.
pub const M2_SUBAGENT_ENV: &str = "M2.subagent-env";
/// M2: the subagent inherits a main model on the tier (a fork, `inherit`, no model named).
pub const M2_INHERIT: &str = "M2.inherit";
/// M2: the call could not be judged (fail closed).
pub const M2_FAIL_CLOSED: &str = "M2.fail-closed";
/// M3: a nested `claude` launch on the tier.
pub const M3_LAUNCH: &str = "M3.launch";
/// M3: a Bash command writes a file that sets a model on the tier.
pub const M3_BASH_FILE: &str = "M3.bash-file";
/// M3: a Write/Edit of a file that sets a model on the tier (agent definition, settings).
pub const M3_FILE: &str = "M3.file";
/// M3: a skill or slash command whose front matter names a model on the tier.
pub const M3_SKILL: &str = "M3.skill";
/// M3: a model switch to the tier.
pub const M3_SWITCH: &str = "M3.switch";
/// M3: the session itself runs on the tier without the grant (UserPromptSubmit).
pub const M3_SESSION: &str = "M3.session";
/// M3: nothing names the session's model and a launcher's variable points the default at the tier.
pub const M3_SESSION_DEFAULT: &str = "M3.session-default";
/// M5: a tainted session dispatches a subagent above its main model.
pub const M5_DISPATCH: &str = "M5.dispatch";
/// M5: a tainted session launches a nested agent above its main model.
pub const M5_LAUNCH: &str = "M5.launch";
/// M5 (critical warning after the fact): a subagent of a tainted session ran above the main model.
pub const M5_RAN_ABOVE: &str = "M5.ran-above";
/// M6 (critical warning after the fact): a subagent ran on the tier without the grant.
pub const M6_RAN_ON_TIER: &str = "M6.ran-on-tier";

/// Every code, once.
pub const ALL: &[&str] = &[
    M1_UNKNOWN_MAIN,
    M1_CLI_DEFAULT,
    M2_CALL_MODEL,
    M2_DEFINITION,
    M2_SUBAGENT_ENV,
    M2_INHERIT,
    M2_FAIL_CLOSED,
    M3_LAUNCH,
    M3_BASH_FILE,
    M3_FILE,
    M3_SKILL,
    M3_SWITCH,
    M3_SESSION,
    M3_SESSION_DEFAULT,
    M5_DISPATCH,
    M5_LAUNCH,
    M5_RAN_ABOVE,
    M6_RAN_ON_TIER,
];

/// The requirement a code belongs to.
pub fn requirement(code: &'static str) -> &'static str {
    safety_kernel::feedback::code_requirement(code)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_spec_lists_each_code_once() {
        let spec = include_str!("../../../spec/model-tier-guard.md");
        let problems = safety_kernel::feedback::code_table_problems(spec, super::ALL);
        assert!(problems.is_empty(), "{problems:?}");
    }
}
