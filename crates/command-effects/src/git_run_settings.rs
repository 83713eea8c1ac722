//! Settings and variables whose value git runs as a command through a shell (`sh -c '<value>
//! "$@"'`), read where a command line gives them: `-c`, `--config-env` and `GIT_CONFIG_*`
//! (the call's own settings), a `git config` write (the setting every later git command
//! reads: judged when it is written), and the variables git reads before its config. Real git
//! 2.47 ran `touch <marker>` given each way (`tests/git_runs_real_git.rs` in gh-write-guard):
//!
//! * the editor: `GIT_EDITOR`, `core.editor`, `VISUAL`, `EDITOR` (commit without `-m`, `tag
//!   -a`, `rebase -i`'s rewords, ...) and the sequence editor `GIT_SEQUENCE_EDITOR`,
//!   `sequence.editor` (`rebase -i`). Whether git opens one depends on more than the words
//!   (a template, a terminal, the subcommand's defaults), so a given editor is judged for every
//!   call: `GIT_EDITOR='git push origin HEAD:main' git commit -m x` is refused although git
//!   would not run it;
//! * `core.fsmonitor` (a hook command unless a boolean: `git status`, `diff`, `add`, ...);
//! * `diff.external`, `GIT_EXTERNAL_DIFF` (`git diff` with changes);
//! * `credential.helper`, `credential.<url>.helper` (when git needs credentials: `!<shell>`,
//!   an absolute path with its arguments, or a name run as `git credential-<name>`);
//! * drivers a `.gitattributes` entry selects: `filter.<d>.clean`/`smudge`/`process`,
//!   `diff.<d>.textconv`/`command`, `merge.<d>.driver` (judged whatever the attributes say);
//! * transport: `core.sshCommand`, `GIT_SSH_COMMAND`, `remote.<r>.uploadpack`/`receivepack`.
//!
//! Not here: the pager (`core.pager`, `GIT_PAGER`: git starts one only on a terminal, which an
//! agent command does not have), `core.askPass`/`GIT_ASKPASS` (real git ran neither for a
//! credential request without a terminal) and programs run without a shell (`gpg.program`):
//! the exec gate judges what they run.

use crate::git::{ConfigSetting, GitCall};
use crate::git_config;

/// Variables git runs as shell text, in the order git prefers them.
pub const VARS: [&str; 6] = [
    "GIT_EDITOR",
    "VISUAL",
    "EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_EXTERNAL_DIFF",
    "GIT_SSH_COMMAND",
];

/// How a setting's value becomes the text git runs.
#[derive(Clone, Copy)]
enum Form {
    /// The value is the text.
    Shell,
    /// A boolean turns the built-in monitor on or off; anything else is a hook command.
    Fsmonitor,
    /// `!<text>`, `/abs/path args`, or `<name> args` (`git credential-<name> args`).
    Credential,
}

/// Which setting `key` (normalised: section and name lower-cased) is, if git runs its value:
/// its label with `-c`, its label written by `git config`, and how the value is read.
fn setting(key: &str) -> Option<(&'static str, &'static str, Form)> {
    let (section, rest) = key.split_once('.')?;
    let name = rest.rsplit('.').next().unwrap_or(rest);
    let sub = rest.len() > name.len();
    let found = match (section, sub, name) {
        ("core", false, "editor") => ("-c core.editor", "config core.editor", Form::Shell),
        ("sequence", false, "editor") => {
            ("-c sequence.editor", "config sequence.editor", Form::Shell)
        }
        ("core", false, "fsmonitor") => (
            "-c core.fsmonitor",
            "config core.fsmonitor",
            Form::Fsmonitor,
        ),
        ("diff", false, "external") => ("-c diff.external", "config diff.external", Form::Shell),
        ("core", false, "sshcommand") => {
            ("-c core.sshCommand", "config core.sshCommand", Form::Shell)
        }
        ("credential", _, "helper") => (
            "-c credential.helper",
            "config credential.helper",
            Form::Credential,
        ),
        ("remote", true, "uploadpack" | "receivepack") => (
            "-c remote.<name>.uploadpack",
            "config remote.<name>.uploadpack",
            Form::Shell,
        ),
        ("filter", true, "clean" | "smudge" | "process") => {
            ("-c filter.<driver>", "config filter.<driver>", Form::Shell)
        }
        ("diff", true, "textconv" | "command") => {
            ("-c diff.<driver>", "config diff.<driver>", Form::Shell)
        }
        ("merge", true, "driver") => (
            "-c merge.<driver>.driver",
            "config merge.<driver>.driver",
            Form::Shell,
        ),
        _ => return None,
    };
    Some(found)
}

/// The text git runs for `value` read as `form` (`None`: nothing runs).
fn text_of(form: Form, value: &str) -> Option<String> {
    let v = value.trim();
    if v.is_empty() {
        return None;
    }
    match form {
        Form::Shell => Some(value.to_string()),
        Form::Fsmonitor => {
            let boolean = ["true", "false", "yes", "no", "on", "off", "1", "0"]
                .iter()
                .any(|b| v.eq_ignore_ascii_case(b));
            (!boolean).then(|| value.to_string())
        }
        Form::Credential => Some(match v.strip_prefix('!') {
            Some(shell) => shell.to_string(),
            None if v.starts_with('/') => v.to_string(),
            None => format!("git credential-{v}"),
        }),
    }
}

/// One setting's command: `Some((label, text))` when git runs its value (`text` `None`:
/// decided at run time).
fn command_of(s: &ConfigSetting, written: bool) -> Option<(&'static str, Option<String>)> {
    let (given, set, form) = setting(&s.key)?;
    let label = if written { set } else { given };
    match &s.value {
        Some(v) => text_of(form, v).map(|t| (label, Some(t))),
        None => Some((label, None)),
    }
}

/// The commands `call`'s settings and variables hand git to run, and those a `git config`
/// call writes: (what gave it, the text; `None` when decided at run time).
pub fn commands(call: &GitCall<'_>) -> Vec<(&'static str, Option<String>)> {
    let own = call.config.iter().filter_map(|s| command_of(s, false));
    let written = git_config::written(call);
    let set = written.iter().filter_map(|s| command_of(s, true));
    let vars = VARS.iter().filter_map(|name| {
        let value = call.var(name)?;
        match value {
            Some(v) => text_of(Form::Shell, &v).map(|t| (*name, Some(t))),
            None => Some((*name, None)),
        }
    });
    own.chain(set).chain(vars).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands_of(cmd: &str) -> Vec<(&'static str, Option<String>)> {
        let p = shell_syntax::parse(cmd);
        let v = shell_syntax::commands(&p);
        commands(&crate::git::parse_git(&v.invocations[0]))
    }

    #[test]
    fn every_setting_and_variable_git_runs_is_read_where_the_command_gives_it() {
        let push = || Some("git push origin HEAD:main".to_string());
        for (cmd, what) in [
            ("git -c core.editor='git push origin HEAD:main' commit", "-c core.editor"),
            ("git -c Core.Editor='git push origin HEAD:main' commit", "-c core.editor"),
            ("git -c sequence.editor='git push origin HEAD:main' rebase -i HEAD~2", "-c sequence.editor"),
            ("git -c core.fsmonitor='git push origin HEAD:main' status", "-c core.fsmonitor"),
            ("git -c diff.external='git push origin HEAD:main' diff", "-c diff.external"),
            ("git -c credential.helper='!git push origin HEAD:main' fetch", "-c credential.helper"),
            ("git -c credential.https://h.helper='!git push origin HEAD:main' fetch", "-c credential.helper"),
            ("git -c filter.x.clean='git push origin HEAD:main' add .", "-c filter.<driver>"),
            ("git -c diff.x.textconv='git push origin HEAD:main' diff", "-c diff.<driver>"),
            ("git -c merge.x.driver='git push origin HEAD:main' merge t", "-c merge.<driver>.driver"),
            ("git -c core.sshCommand='git push origin HEAD:main' fetch", "-c core.sshCommand"),
            ("git -c remote.o.uploadpack='git push origin HEAD:main' fetch o", "-c remote.<name>.uploadpack"),
            ("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.editor GIT_CONFIG_VALUE_0='git push origin HEAD:main' git commit", "-c core.editor"),
            ("git config core.fsmonitor 'git push origin HEAD:main'", "config core.fsmonitor"),
            ("git config --global core.editor 'git push origin HEAD:main'", "config core.editor"),
            ("git config set --local diff.external 'git push origin HEAD:main'", "config diff.external"),
            ("GIT_EDITOR='git push origin HEAD:main' git commit", "GIT_EDITOR"),
            ("VISUAL='git push origin HEAD:main' git commit", "VISUAL"),
            ("EDITOR='git push origin HEAD:main' git tag -a v1", "EDITOR"),
            ("GIT_SEQUENCE_EDITOR='git push origin HEAD:main' git rebase -i HEAD~2", "GIT_SEQUENCE_EDITOR"),
            ("GIT_EXTERNAL_DIFF='git push origin HEAD:main' git diff", "GIT_EXTERNAL_DIFF"),
            ("export GIT_EDITOR='git push origin HEAD:main'; git commit", "GIT_EDITOR"),
        ] {
            let p = shell_syntax::parse(cmd);
            let v = shell_syntax::commands(&p);
            let inv = v.invocations.last().unwrap();
            let got = commands(&crate::git::parse_git(inv));
            assert_eq!(got, vec![(what, push())], "{cmd}");
        }
        // How a credential helper's value is run.
        assert_eq!(
            commands_of("git -c credential.helper='store --file x' push"),
            vec![(
                "-c credential.helper",
                Some("git credential-store --file x".into())
            )]
        );
        assert_eq!(
            commands_of("git -c credential.helper='/usr/bin/h get' push"),
            vec![("-c credential.helper", Some("/usr/bin/h get".into()))]
        );
        // Decided at run time: the first line cannot read it (the exec gate judges it).
        assert_eq!(
            commands_of("GIT_EDITOR=\"$E\" git commit"),
            vec![("GIT_EDITOR", None)]
        );
        // Nothing run: booleans, an empty value (a reset), settings git does not run, reads.
        for cmd in [
            "git -c core.fsmonitor=true status",
            "git -c core.fsmonitor=NO status",
            "git -c credential.helper= push",
            "git -c core.editor= commit",
            "git -c core.pager='git push origin HEAD:main' log",
            "git -c user.name='git push origin HEAD:main' commit",
            "git -c core.hooksPath=x commit",
            "git config --get core.editor",
            "git config core.editor",
            "git config --unset core.fsmonitor",
            "GIT_PAGER='git push origin HEAD:main' git log",
            "git commit -m 'GIT_EDITOR=x'",
        ] {
            let got: Vec<_> = commands_of(cmd)
                .into_iter()
                .filter(|(_, t)| t.is_some())
                .collect();
            assert_eq!(got, vec![], "{cmd}");
        }
    }
}
