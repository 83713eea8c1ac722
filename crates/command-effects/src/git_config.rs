//! `git config` as a writer: the settings a `git config` call writes, so the git commands after
//! it in the same command read them (`git config remote.origin.push HEAD:main && git push`,
//! `git config core.hooksPath /dev/null && git commit`). Both grammars: the classic one
//! (`git config [--add|--replace-all] <name> <value>`, `--unset`, `--get`, ...) and the
//! subcommands of git 2.46 (`git config set|unset|get|list|edit ...`); `git remote set-url`,
//! which writes `remote.<name>.url` or `.pushurl`; and `git remote rename`, after which the new
//! name's URLs are unknown to the text (`git remote add` is `network::remote_added`).

use crate::git::{normalise_key, ConfigSetting, GitCall};

/// Options that take the next word as their value (when not given as `--opt=value`).
const VALUED: [&str; 8] = [
    "-f",
    "--file",
    "--blob",
    "--type",
    "--default",
    "--comment",
    "--value",
    "-t",
];
/// Classic modes that only read.
const READS: [&str; 12] = [
    "--get",
    "--get-all",
    "--get-regexp",
    "--get-urlmatch",
    "--get-color",
    "--get-colorbool",
    "-l",
    "--list",
    "--name-only",
    "--show-origin",
    "--show-scope",
    "-h",
];
/// Classic modes whose effect is not one setting: read as "any setting may have changed".
const UNKNOWN: [&str; 4] = ["--rename-section", "--remove-section", "--edit", "-e"];

/// A setting that could be anything: the empty key with a run-time value (every consumer
/// treats it as a run-time setting under every section).
fn anything() -> ConfigSetting {
    ConfigSetting {
        key: String::new(),
        value: None,
        via: "git config",
    }
}

fn set(name: Option<&str>, value: Option<Option<&str>>) -> ConfigSetting {
    match name {
        Some(n) => ConfigSetting {
            key: normalise_key(n),
            // An unset, or a value decided at run time: unknown.
            value: value.flatten().map(String::from),
            via: "git config",
        },
        None => anything(),
    }
}

/// The settings `call` writes (empty for anything but a `git config` write or a `git remote
/// set-url`).
pub fn written(call: &GitCall<'_>) -> Vec<ConfigSetting> {
    if call.sub() == Some("remote") {
        return set_url(call).into_iter().chain(renamed(call)).collect();
    }
    if call.sub() != Some("config") {
        return Vec::new();
    }
    let mut flags: Vec<&str> = Vec::new();
    let mut operands: Vec<Option<&str>> = Vec::new();
    let mut words = call.args.iter().map(|a| a.value.as_deref());
    let mut options = true;
    while let Some(w) = words.next() {
        match w {
            Some("--") if options => options = false,
            Some(o) if options && o.starts_with('-') && o.len() > 1 => {
                let name = o.split_once('=').map_or(o, |(n, _)| n);
                if VALUED.contains(&name) && !o.contains('=') {
                    words.next();
                }
                flags.push(name);
            }
            w => operands.push(w),
        }
    }
    let has = |f: &str| flags.contains(&f);
    if flags.iter().any(|f| UNKNOWN.contains(f)) {
        return vec![anything()];
    }
    if flags.iter().any(|f| READS.contains(f)) {
        return Vec::new();
    }
    if has("--unset") || has("--unset-all") {
        return vec![set(operands.first().copied().flatten(), Some(None))];
    }
    let value = |i: usize| Some(operands.get(i).copied().flatten());
    match operands.first().copied() {
        // git 2.46's subcommands (a config name always has a dot).
        Some(Some("set")) => vec![set(operands.get(1).copied().flatten(), value(2))],
        Some(Some("unset")) => vec![set(operands.get(1).copied().flatten(), Some(None))],
        Some(Some("get" | "list")) => Vec::new(),
        Some(Some("edit" | "rename-section" | "remove-section")) => vec![anything()],
        // A run-time first word may be a subcommand or a name.
        Some(None) => vec![anything()],
        Some(Some(name)) if operands.len() >= 2 => vec![set(Some(name), value(1))],
        _ => Vec::new(),
    }
}

/// `git remote set-url [--push] [--add|--delete] <name> <url> [<old>]`: `remote.<name>.url`
/// (`.pushurl` with `--push`) gets `<url>`; a deletion leaves it unknown.
fn set_url(call: &GitCall<'_>) -> Option<ConfigSetting> {
    let words: Vec<Option<&str>> = call.args.iter().map(|a| a.value.as_deref()).collect();
    if words.first() != Some(&Some("set-url")) {
        return None;
    }
    let flags: Vec<&str> = words[1..]
        .iter()
        .flatten()
        .copied()
        .filter(|w| w.starts_with("--"))
        .collect();
    let operands: Vec<Option<&str>> = words[1..]
        .iter()
        .copied()
        .filter(|w| !w.is_some_and(|w| w.starts_with("--")))
        .collect();
    let Some(name) = operands.first().copied().flatten() else {
        // A run-time name could be any remote.
        return Some(anything());
    };
    let key = match flags.contains(&"--push") {
        true => format!("remote.{name}.pushurl"),
        false => format!("remote.{name}.url"),
    };
    let value = match flags.contains(&"--delete") {
        true => None,
        false => operands.get(1).copied().flatten(),
    };
    Some(set(Some(&key), Some(value)))
}

/// `git remote rename [--[no-]progress] <old> <new>`: the remote's URLs move to `<new>`, whose
/// settings the text cannot show (they are `<old>`'s in the config): `remote.<new>.url` is
/// unknown, and so is a push through it. `<old>` is gone (a push to it would be to a path).
fn renamed(call: &GitCall<'_>) -> Option<ConfigSetting> {
    let words: Vec<Option<&str>> = call.args.iter().map(|a| a.value.as_deref()).collect();
    if words.first() != Some(&Some("rename")) {
        return None;
    }
    let operands: Vec<Option<&str>> = words[1..]
        .iter()
        .copied()
        .filter(|w| !w.is_some_and(|w| w.starts_with("--")))
        .collect();
    match operands.get(1).copied().flatten() {
        Some(new) => Some(set(Some(&format!("remote.{new}.url")), Some(None))),
        // A run-time name could be any remote.
        None => Some(anything()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written_by(cmd: &str) -> Vec<(String, Option<String>)> {
        crate::git::with_last_call(cmd, written)
            .into_iter()
            .map(|s| (s.key, s.value))
            .collect()
    }

    fn one(key: &str, value: Option<&str>) -> Vec<(String, Option<String>)> {
        vec![(key.to_string(), value.map(String::from))]
    }

    #[test]
    fn writes_in_both_grammars() {
        for (cmd, key, value) in [
            (
                "git config core.hooksPath /dev/null",
                "core.hookspath",
                Some("/dev/null"),
            ),
            (
                "git config --local core.hooksPath x",
                "core.hookspath",
                Some("x"),
            ),
            (
                "git config --add remote.origin.push HEAD:main",
                "remote.origin.push",
                Some("HEAD:main"),
            ),
            (
                "git config --replace-all Remote.Up.URL u",
                "remote.Up.url",
                Some("u"),
            ),
            (
                "git config -f .git/config push.default matching",
                "push.default",
                Some("matching"),
            ),
            (
                "git config --type=bool push.autoSetupRemote true",
                "push.autosetupremote",
                Some("true"),
            ),
            (
                "git config set push.default current",
                "push.default",
                Some("current"),
            ),
            (
                "git config set --append remote.o.push x",
                "remote.o.push",
                Some("x"),
            ),
            (
                "git config remote.origin.pushurl \"$U\"",
                "remote.origin.pushurl",
                None,
            ),
            (
                "git config --unset remote.origin.pushurl",
                "remote.origin.pushurl",
                None,
            ),
            ("git config unset push.default", "push.default", None),
            (
                "git remote set-url origin https://h/o/r",
                "remote.origin.url",
                Some("https://h/o/r"),
            ),
            (
                "git remote set-url --push origin u",
                "remote.origin.pushurl",
                Some("u"),
            ),
            (
                "git remote set-url --add --push origin u",
                "remote.origin.pushurl",
                Some("u"),
            ),
            (
                "git remote set-url --delete origin u",
                "remote.origin.url",
                None,
            ),
            (
                "git remote set-url origin \"$U\"",
                "remote.origin.url",
                None,
            ),
            ("git remote rename origin up", "remote.up.url", None),
            (
                "git remote rename --no-progress origin up",
                "remote.up.url",
                None,
            ),
            ("git remote rename origin \"$N\"", "", None),
        ] {
            assert_eq!(written_by(cmd), one(key, value), "{cmd}");
        }
    }

    #[test]
    fn reads_write_nothing_and_the_unknown_writes_anything() {
        for cmd in [
            "git config core.hooksPath",
            "git config --get remote.origin.url",
            "git config -l",
            "git config --list --show-origin",
            "git config get push.default",
            "git status",
        ] {
            assert_eq!(written_by(cmd), vec![], "{cmd}");
        }
        for cmd in [
            "git config -e",
            "git config --rename-section remote.origin remote.old",
            "git config $mode remote.origin.push HEAD:main",
            "git config remove-section remote.origin",
            "git remote set-url \"$R\" https://h/o/r",
        ] {
            assert_eq!(written_by(cmd), one("", None), "{cmd}");
        }
    }
}
