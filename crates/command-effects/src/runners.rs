//! Runners the view does not unwrap, kept as data: option grammars ([`RUNNERS`]), package
//! runners and the binaries packages install, git's dashed programs, `ssh host cmd` and GNU
//! `parallel`. Used by [`crate::program::resolve`].

use crate::program::{value, Resolved, Run};
use shell_syntax::view::{normalise_program, Arg};
use shell_syntax::Text;

/// Option grammar of a runner: short letters and long names that take a value, and how many
/// operands come before the command.
pub struct Runner {
    pub name: &'static str,
    pub short_valued: &'static str,
    pub long_valued: &'static [&'static str],
    pub operands: usize,
}

/// Runners the view does not unwrap. Each runs its operand command with the same arguments.
pub const RUNNERS: &[Runner] = &[
    Runner {
        name: "strace",
        short_valued: "abeEIoOpPsSUX",
        long_valued: &[
            "--output",
            "--trace",
            "--signal",
            "--status",
            "--attach",
            "--string-limit",
            "--user",
        ],
        operands: 0,
    },
    Runner {
        name: "ltrace",
        short_valued: "aAeEInopsuwxX",
        long_valued: &["--output", "--library"],
        operands: 0,
    },
    Runner {
        name: "runuser",
        short_valued: "ugGw",
        long_valued: &[
            "--user",
            "--group",
            "--supp-group",
            "--whitelist-environment",
        ],
        operands: 0,
    },
    Runner {
        name: "chroot",
        short_valued: "",
        long_valued: &["--userspec", "--groups"],
        operands: 1,
    },
    Runner {
        name: "nsenter",
        short_valued: "tSGw",
        long_valued: &["--target", "--setuid", "--setgid", "--wd"],
        operands: 0,
    },
    Runner {
        name: "unshare",
        short_valued: "",
        long_valued: &["--map-user", "--map-group", "--wd", "--setuid", "--setgid"],
        operands: 0,
    },
    Runner {
        name: "firejail",
        short_valued: "",
        long_valued: &[],
        operands: 0,
    },
    Runner {
        name: "proxychains",
        short_valued: "f",
        long_valued: &[],
        operands: 0,
    },
    Runner {
        name: "proxychains4",
        short_valued: "f",
        long_valued: &[],
        operands: 0,
    },
    Runner {
        name: "torsocks",
        short_valued: "uPaip",
        long_valued: &[],
        operands: 0,
    },
    Runner {
        name: "unbuffer",
        short_valued: "",
        long_valued: &[],
        operands: 0,
    },
    Runner {
        name: "catchsegv",
        short_valued: "",
        long_valued: &[],
        operands: 0,
    },
    Runner {
        name: "pkexec",
        short_valued: "",
        long_valued: &["--user"],
        operands: 0,
    },
    Runner {
        name: "doas",
        short_valued: "uC",
        long_valued: &[],
        operands: 0,
    },
    Runner {
        name: "faketime",
        short_valued: "",
        long_valued: &[],
        operands: 1,
    },
    Runner {
        name: "caffeinate",
        short_valued: "tw",
        long_valued: &[],
        operands: 0,
    },
    Runner {
        name: "systemd-run",
        short_valued: "pEu",
        long_valued: &[
            "--property",
            "--setenv",
            "--unit",
            "--working-directory",
            "--uid",
            "--gid",
            "--description",
            "--slice",
        ],
        operands: 0,
    },
    Runner {
        name: "dbus-run-session",
        short_valued: "",
        long_valued: &["--config-file", "--dbus-daemon"],
        operands: 0,
    },
    Runner {
        name: "with-contenv",
        short_valued: "",
        long_valued: &[],
        operands: 0,
    },
    Runner {
        name: "ccache",
        short_valued: "",
        long_valued: &[],
        operands: 0,
    },
    Runner {
        name: "direnv exec",
        short_valued: "",
        long_valued: &[],
        operands: 1,
    },
];

/// Package runners: `npx [opts] pkg args` and friends. Each names the package's binary.
pub const PACKAGE_RUNNERS: &[&[&str]] = &[
    &["npx"],
    &["bunx"],
    &["pnpx"],
    &["pnpm", "dlx"],
    &["pnpm", "exec"],
    &["npm", "exec"],
    &["npm", "x"],
    &["yarn", "dlx"],
    &["bun", "x"],
    &["uvx"],
    &["pipx", "run"],
];

/// The first words of [`PACKAGE_RUNNERS`].
const PACKAGE_RUNNER_NAMES: shell_syntax::NameSet = crate::names_of!(PACKAGE_RUNNERS, p => p[0]);

/// The names of [`RUNNERS`].
pub(crate) const RUNNER_NAMES: shell_syntax::NameSet = crate::names_of!(RUNNERS, r => r.name);

/// Package names that install a binary of another name.
pub(crate) const PACKAGE_BINARIES: &[(&str, &str)] = &[
    ("@anthropic-ai/claude-code", "claude"),
    ("@githubnext/github-copilot-cli", "github-copilot-cli"),
];

/// Skips a runner's options; the index of its command, if a static command follows.
pub(crate) fn skip_runner(r: &Runner, args: &[Arg<'_>]) -> Option<usize> {
    let mut i = 0;
    while i < args.len() {
        let v = value(&args[i])?;
        if v == "--" {
            i += 1;
            break;
        }
        if !v.starts_with('-') || v == "-" {
            break;
        }
        if let Some(long) = v.strip_prefix("--") {
            if !long.contains('=') && r.long_valued.iter().any(|l| l[2..] == *long) {
                i += 1;
            }
            i += 1;
            continue;
        }
        let cluster = &v[1..];
        for (pos, c) in cluster.char_indices() {
            if r.short_valued.contains(c) {
                if pos + c.len_utf8() == cluster.len() {
                    i += 1;
                }
                break;
            }
        }
        i += 1;
    }
    let at = i + r.operands;
    (at < args.len()).then_some(at)
}

/// git subcommands installed as dashed programs in git's exec path.
pub(crate) const GIT_DASHED: &[&str] = &[
    "push",
    "commit",
    "merge",
    "am",
    "pull",
    "reset",
    "checkout",
    "switch",
    "restore",
    "clean",
    "stash",
    "branch",
    "rebase",
    "gc",
    "update-ref",
    "send-pack",
    "receive-pack",
    "fetch",
    // The remote helpers git installs: run by hand, they push what their stdin says.
    "remote-http",
    "remote-https",
    "remote-ftp",
    "remote-ftps",
];

/// `npx [opts] pkg args`: `Some(Some((words before the binary, binary)))`, `Some(None)` when
/// the package is decided at run time, `None` when `name` is not a package runner.
pub(crate) fn package_runner(name: &str, argv: &[Arg<'_>]) -> Option<Option<(usize, String)>> {
    if !PACKAGE_RUNNER_NAMES.may_contain(name) {
        return None;
    }
    let pattern = PACKAGE_RUNNERS.iter().find(|p| {
        crate::same_name(p[0], name)
            && p[1..]
                .iter()
                .enumerate()
                .all(|(k, w)| argv.get(1 + k).and_then(value) == Some(w))
    })?;
    let mut i = pattern.len();
    let mut package: Option<String> = None;
    while i < argv.len() {
        let Some(v) = value(&argv[i]) else {
            return Some(None);
        };
        if v == "--" {
            i += 1;
            break;
        }
        if let Some(p) = v.strip_prefix("--package=") {
            package = Some(p.to_string());
            i += 1;
            continue;
        }
        if v == "--package" || v == "-p" {
            package = argv.get(i + 1).and_then(value).map(String::from);
            i += 2;
            continue;
        }
        if v.starts_with('-') {
            i += 1;
            continue;
        }
        break;
    }
    let word = value(argv.get(i)?)?.to_string();
    let _ = package;
    Some(Some((i, package_binary(&word))))
}

/// The binary a package spec installs: `@scope/name@1.2` → `name` (or a known other name).
pub(crate) fn package_binary(spec: &str) -> String {
    let without_version = match spec.rfind('@') {
        Some(0) | None => spec,
        Some(at) => &spec[..at],
    };
    if let Some((_, bin)) = PACKAGE_BINARIES.iter().find(|(p, _)| *p == without_version) {
        return bin.to_string();
    }
    without_version
        .rsplit('/')
        .next()
        .unwrap_or(without_version)
        .to_string()
}

/// `node .../node_modules/@anthropic-ai/claude-code/cli.js`: the binary of that package
/// (`node_modules/<pkg>/` or `node_modules/@scope/<pkg>/`).
pub(crate) fn script_package(path: &str) -> Option<String> {
    // `"$(npm root -g)/@anthropic-ai/claude-code/cli.js"`: `npm root` prints the
    // `node_modules` folder, so a run-time part right before a scoped package names it.
    let scoped = path
        .strip_prefix(crate::program::RUN_TIME)
        .and_then(|p| p.strip_prefix('/'))
        .filter(|p| p.starts_with('@'));
    let (_, after) = match scoped {
        Some(p) => ("", p),
        None => path.rsplit_once("node_modules/")?,
    };
    if after.contains(crate::program::RUN_TIME) {
        return None;
    }
    let mut parts = after.split('/');
    let first = parts.next()?;
    let pkg = if first.starts_with('@') {
        format!("{first}/{}", parts.next()?)
    } else {
        first.to_string()
    };
    parts.next()?;
    Some(package_binary(&pkg))
}

/// `"$(git --exec-path)/git-push"`, `~/.claude/local/claude`: a run-time directory, but the
/// program's name is literal (the last part of the word, after its last `/`).
pub(crate) fn dashed_git_tail(w: &shell_syntax::Word<'_>) -> Option<Text> {
    use shell_syntax::ast::WordPart;
    let last = match w.parts.last()? {
        WordPart::DoubleQuoted(ps) => match ps.last()? {
            WordPart::Literal(s) => *s,
            _ => return None,
        },
        WordPart::Literal(s) | WordPart::SingleQuoted(s) => *s,
        _ => return None,
    };
    let (_, base) = last.rsplit_once('/')?;
    if base.is_empty() || base.contains(['*', '?', '[']) {
        return None;
    }
    Some(match base.strip_prefix("git-") {
        Some(sub) if GIT_DASHED.contains(&sub) => Text::from(format!("/git-core/{base}")),
        _ => Text::from(format!("/{base}")),
    })
}

/// `ssh [opts] host [cmd...]`: the command runs on `host`; its words are joined with spaces and
/// split again by the remote shell.
pub(crate) fn ssh<'a>(mut run: Run<'a>, argv: &[Arg<'a>], arena: &'a bumpalo::Bump) -> Run<'a> {
    const VALUED: &str = "BbcDEeFIiJLlmOoPpQRSWw";
    let mut i = 1;
    while i < argv.len() {
        let Some(v) = value(&argv[i]) else { break };
        if !v.starts_with('-') || v == "-" {
            break;
        }
        let cluster = &v[1..];
        for (pos, c) in cluster.char_indices() {
            if VALUED.contains(c) {
                if pos + c.len_utf8() == cluster.len() {
                    i += 1;
                }
                break;
            }
        }
        i += 1;
    }
    run.runners.push(Text::from("ssh"));
    let Some(host) = argv.get(i) else {
        run.program = Resolved::Program("ssh".into());
        run.args = argv[1..].to_vec();
        return run;
    };
    let values: Vec<Option<&str>> = argv[1..].iter().map(value).collect();
    run.remote = crate::network::program_destinations("ssh", &values)
        .into_iter()
        .next();
    let words = &argv[i + 1..];
    if words.is_empty() {
        run.program = Resolved::Program("ssh".into());
        run.args = argv[1..].to_vec();
        return run;
    }
    let joined: Option<Vec<String>> = words
        .iter()
        .map(|a| a.value.as_deref().map(String::from))
        .collect();
    let split = joined.and_then(|w| shell_words::split(&w.join(" ")).ok());
    match split {
        Some(mut w) if !w.is_empty() => {
            let span = host.word.span;
            let first = w.remove(0);
            run.program = Resolved::Program(normalise_program(&first).into());
            run.args = w
                .into_iter()
                .map(|x| Arg::synthetic(arena, x, span))
                .collect();
        }
        _ => {
            run.program = Resolved::Unknown;
            run.args = words.to_vec();
        }
    }
    run
}

/// GNU `parallel [opts] cmd ... ::: args`: the index (in `args`) of the command's first word.
pub(crate) fn parallel_command(args: &[Arg<'_>]) -> Option<usize> {
    const VALUED: &[&str] = &[
        "-j",
        "--jobs",
        "-S",
        "--sshlogin",
        "--joblog",
        "-a",
        "--arg-file",
        "--delay",
        "--timeout",
        "-d",
        "--delimiter",
        "-I",
        "--colsep",
        "-n",
        "--max-args",
        "--results",
        "--tmpdir",
        "--workdir",
        "--env",
        "--retries",
        "--halt",
    ];
    let mut i = 0;
    while i < args.len() {
        let v = value(&args[i])?;
        if v == ":::" || v == "::::" {
            return None;
        }
        if !v.starts_with('-') {
            return Some(i);
        }
        if VALUED.contains(&v) {
            i += 1;
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::script_package;
    use crate::program::RUN_TIME;

    #[test]
    fn a_script_under_node_modules_is_its_package_binary() {
        let claude = Some("claude".to_string());
        let cli = "/node_modules/@anthropic-ai/claude-code/cli.js";
        assert_eq!(script_package(&format!("/usr/lib{cli}")), claude);
        // `~/.npm-global/lib/...`: the folder before `node_modules/` is decided at run time.
        assert_eq!(
            script_package(&format!("{RUN_TIME}/.npm-global/lib{cli}")),
            claude
        );
        // A run-time part after it could be any package.
        assert_eq!(
            script_package(&format!("/node_modules/{RUN_TIME}/cli.js")),
            None
        );
        assert_eq!(script_package("/opt/tool/cli.js"), None);
        assert_eq!(
            script_package(&format!("{RUN_TIME}/@anthropic-ai/claude-code/cli.js")).as_deref(),
            Some("claude")
        );
        assert_eq!(script_package(&format!("{RUN_TIME}/tool/cli.js")), None);
    }
}
