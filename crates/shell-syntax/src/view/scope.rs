//! What persists from one command to the next in a list: `cd`s, shell and exported
//! variables, `exec` redirections ([`Scope`]), and how each command changes it.

use super::*;

/// What persists from one command to the next in a list.
#[derive(Clone, Default)]
pub(super) struct Scope<'a> {
    pub(super) cds: Vec<CdStep<'a>>,
    pub(super) env: EnvChain<'a>,
    pub(super) exec_redirects: Vec<AppliedRedirect<'a>>,
    pub(super) truncated: bool,
}

impl<'a> Scope<'a> {
    /// Every later command's env copies these entries; a value such as `x=$(...)` is a word
    /// pointing into the tree (a copy of a few pointers, not of the substitution), and stays
    /// dynamic.
    pub(super) fn push_env(&mut self, e: EnvVar<'a>) {
        // O(1): the newest entry for a name is its current state (see `EnvChain`).
        if self.env.push(e) {
            self.truncated = true;
        }
    }
    pub(super) fn push_cd(&mut self, c: CdStep<'a>) {
        self.cds.push(c);
        if self.cds.len() > MAX_SCOPE_ENTRIES {
            self.cds.remove(0);
            self.truncated = true;
        }
    }
    pub(super) fn push_exec_redirect(&mut self, r: AppliedRedirect<'a>) {
        // A later `exec` redirection of the same fd replaces the earlier one.
        if r.fd.is_some() {
            self.exec_redirects.retain(|old| old.fd != r.fd);
        }
        self.exec_redirects.push(r);
        if self.exec_redirects.len() > MAX_SCOPE_ENTRIES {
            self.exec_redirects.remove(0);
            self.truncated = true;
        }
    }
}

impl<'a> Walker<'a, '_> {
    /// What a command changes for the commands after it in the same list.
    pub(super) fn update_scope(&mut self, idx: usize, scope: &mut Scope<'a>) {
        let inv = &self.out.invocations[idx];
        let Program::Static { name, .. } = &inv.program else {
            return;
        };
        match name.as_str() {
            // Bare `pushd` swaps the top two directories of the stack.
            "pushd"
                if inv.args.iter().all(|a| {
                    a.value.as_deref().is_some_and(|v| {
                        v.starts_with('-')
                            && v.len() > 1
                            && v != "--"
                            && !v[1..].bytes().all(|b| b.is_ascii_digit())
                    })
                }) =>
            {
                scope.push_cd(CdStep {
                    kind: if no_change(inv) {
                        CdKind::PushStack
                    } else {
                        CdKind::Pushd
                    },
                    target: None,
                })
            }
            "cd" | "pushd" => {
                let mut step = cd_step(name, inv);
                step.target = step.target.map(|t| with_shell_home(self.arena, inv, t));
                // `pushd -n dir` only adds to the stack: the directory stays.
                if name == "pushd" && no_change(inv) && step.kind == CdKind::Pushd {
                    step.kind = CdKind::PushStack;
                }
                scope.push_cd(step)
            }
            // `popd +N`/`-N` names the entry it removes; `-n` keeps the directory.
            "popd" => scope.push_cd(CdStep {
                kind: CdKind::Popd,
                target: inv
                    .args
                    .iter()
                    .find(|a| a.value.as_deref() != Some("--"))
                    .cloned(),
            }),
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                declare(self.arena, name == "export", inv, scope)
            }
            n if run_time_setter(n).is_some() => {
                for v in run_time_names(n, inv) {
                    self.may_assign(&v, None);
                    scope.push_env(EnvVar {
                        name: v.into(),
                        value: None,
                        source: EnvSource::Shell,
                    });
                }
            }
            "unset" => {
                for a in &inv.args {
                    if let Some(v) = a.value.as_deref().filter(|v| !v.starts_with('-')) {
                        scope.push_env(EnvVar {
                            name: v.into(),
                            value: None,
                            source: EnvSource::Unset,
                        });
                    }
                }
            }
            "exec" if inv.args.is_empty() && inv.wrappers.is_empty() => {
                let own: Vec<AppliedRedirect<'a>> = inv
                    .redirects
                    .iter()
                    .filter(|r| r.source == RedirSource::Own)
                    .cloned()
                    .map(|mut r| {
                        r.source = RedirSource::Exec;
                        r
                    })
                    .collect();
                for r in own {
                    scope.push_exec_redirect(r);
                }
            }
            _ => {}
        }
    }
}

/// A builtin that sets shell variables to values it reads or computes at run time: which short
/// options take a value, which of them name a variable, and which operands do.
struct RunTimeSetter {
    name: &'static str,
    /// Short options that take a value (in the same word or the next).
    valued: &'static str,
    /// Of those, the ones whose value is a variable's name (`read -a arr`, `printf -v var`).
    naming: &'static str,
    /// Which operands are names: `All` (`read a b`), `Nth(n)` (`mapfile arr`, `getopts spec
    /// opt`), `None` (`printf`: the rest are its format and arguments).
    operands: Operands,
    /// The variable set when no name is given (`REPLY`, `MAPFILE`).
    default: Option<&'static str>,
}

#[derive(Clone, Copy)]
enum Operands {
    All,
    Nth(usize),
    None,
}

/// One declaration per builtin (bash's manual, "Bash Builtin Commands").
const RUN_TIME_SETTERS: &[RunTimeSetter] = &[
    RunTimeSetter {
        name: "read",
        valued: "adinNptu",
        naming: "a",
        operands: Operands::All,
        default: Some("REPLY"),
    },
    RunTimeSetter {
        name: "mapfile",
        valued: "dnOsuCc",
        naming: "",
        operands: Operands::Nth(0),
        default: Some("MAPFILE"),
    },
    RunTimeSetter {
        name: "readarray",
        valued: "dnOsuCc",
        naming: "",
        operands: Operands::Nth(0),
        default: Some("MAPFILE"),
    },
    RunTimeSetter {
        name: "printf",
        valued: "v",
        naming: "v",
        operands: Operands::None,
        default: None,
    },
    RunTimeSetter {
        name: "getopts",
        valued: "",
        naming: "",
        operands: Operands::Nth(1),
        default: None,
    },
];

fn run_time_setter(name: &str) -> Option<&'static RunTimeSetter> {
    RUN_TIME_SETTERS.iter().find(|s| s.name == name)
}

/// The variables a [`RUN_TIME_SETTERS`] builtin sets (`read -r G <<<git` sets `G` to a value
/// decided at run time: a later `$G` is not the maintainer's environment). A name written as a
/// run-time word cannot be tracked and is left out.
fn run_time_names(name: &str, inv: &Invocation<'_>) -> Vec<String> {
    let Some(setter) = run_time_setter(name) else {
        return Vec::new();
    };
    let mut names = Vec::new();
    let mut operands = Vec::new();
    let mut args = inv.args.iter().map(|a| a.value.as_deref());
    let mut options_done = false;
    while let Some(v) = args.next() {
        let Some(v) = v else {
            options_done = true;
            operands.push(None);
            continue;
        };
        if options_done || !v.starts_with('-') || v == "-" {
            options_done = true;
            operands.push(Some(v.to_string()));
            continue;
        }
        if v == "--" {
            options_done = true;
            continue;
        }
        for (i, c) in v[1..].char_indices() {
            if setter.valued.contains(c) {
                let attached = &v[1 + i + c.len_utf8()..];
                let value = if attached.is_empty() {
                    args.next().flatten().map(str::to_string)
                } else {
                    Some(attached.to_string())
                };
                if setter.naming.contains(c) {
                    names.extend(value);
                }
                break;
            }
        }
    }
    match setter.operands {
        Operands::All => names.extend(operands.into_iter().flatten()),
        Operands::Nth(n) => names.extend(operands.get(n).cloned().flatten()),
        Operands::None => {}
    }
    if names.is_empty() && !matches!(setter.operands, Operands::None) {
        names.extend(setter.default.map(str::to_string));
    }
    names.retain(|n| {
        !n.is_empty()
            && !n.starts_with(|c: char| c.is_ascii_digit())
            && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    names
}

/// A `cd` operand with `~` or `$HOME` expanded with the `HOME` the command set before it (a
/// shell variable or an export: `HOME=/w; cd ~/x` goes to /w/x, checked with bash), as
/// `command_effects::dirs::tilde_home` does for `git -C ~`. A prefix assignment of the `cd`
/// itself does not count (bash expands the words first); a `HOME` set at run time leaves the
/// word as it is.
fn with_shell_home<'a>(arena: &'a Bump, inv: &Invocation<'a>, target: Arg<'a>) -> Arg<'a> {
    let home = match inv.env_value("HOME") {
        Some(e) if matches!(e.source, EnvSource::Shell | EnvSource::Export) => e.value.as_ref(),
        _ => return target,
    };
    if target.value.is_some() {
        return target;
    }
    let Some(home) = home.and_then(|a| a.value.as_deref()) else {
        return target;
    };
    match target
        .word
        .resolve(&|n| (n == "HOME").then(|| home.to_string()))
    {
        Some(v) => Arg::synthetic(arena, v, target.word.span),
        None => target,
    }
}

/// `pushd -n ...`: the stack changes, the directory does not.
fn no_change(inv: &Invocation<'_>) -> bool {
    inv.args
        .iter()
        .map_while(|a| a.value.as_deref())
        .take_while(|v| v.starts_with('-') && v.len() > 1 && *v != "--")
        .any(|v| v[1..].contains('n'))
}

/// The directory change of a `cd` or `pushd` command.
fn cd_step<'a>(name: &str, inv: &Invocation<'a>) -> CdStep<'a> {
    let operands: Vec<&Arg> = inv
        .args
        .iter()
        .skip_while(|a| {
            a.value
                .as_deref()
                .is_some_and(|v| v.starts_with('-') && v.len() > 1 && v != "--")
        })
        .filter(|a| a.value.as_deref() != Some("--"))
        .collect();
    match operands.first() {
        // `HOME=/x; cd`: bash goes to the HOME the command sees, not the hook's.
        None => CdStep {
            kind: CdKind::Cd,
            target: inv.env_value("HOME").map(|e| match &e.value {
                Some(a) => a.clone(),
                None => Arg {
                    word: inv.args.first().map(|a| a.word).unwrap_or_default(),
                    value: None,
                },
            }),
        },
        Some(a) if a.value.as_deref() == Some("-") => CdStep {
            kind: CdKind::Back,
            target: None,
        },
        Some(a) => CdStep {
            kind: if name == "cd" {
                CdKind::Cd
            } else {
                CdKind::Pushd
            },
            target: Some((*a).clone()),
        },
    }
}

/// The variables an `export`/`declare`/`typeset`/`local`/`readonly` command sets (exported
/// when the command is `export` or has `-x`). A dynamic `export "$x"` cannot be tracked; its
/// assignments stay unknown.
fn declare<'a>(arena: &'a Bump, export: bool, inv: &Invocation<'a>, scope: &mut Scope<'a>) {
    let exporting = export
        || inv.args.iter().any(|a| {
            a.value
                .as_deref()
                .is_some_and(|v| v.starts_with('-') && v.contains('x'))
        });
    let source = if exporting {
        EnvSource::Export
    } else {
        EnvSource::Shell
    };
    for a in &inv.args {
        let Some(v) = a.value.as_deref() else {
            // `export X=$HOME/y`: the value is a word decided at run time; kept as
            // that word (a guard may expand it), never dropped (a later `$X` must
            // not read the outer environment's `X`).
            if let Some((n, mut value)) = dynamic_assignment(arena, a) {
                // `export B=$(printf main)`: a substitution the text decides.
                value.value = super::producers::word_output(&value.word).map(Text::from);
                scope.push_env(EnvVar {
                    name: n.into(),
                    value: Some(value),
                    source,
                });
            }
            continue;
        };
        if v.starts_with('-') {
            continue;
        }
        let (n, val) = match v.split_once('=') {
            Some((n, val)) => (n.trim_end_matches('+'), Some(val.to_string())),
            None => (v, None),
        };
        let value = match val {
            Some(val) => Some(Arg::synthetic(arena, val, a.word.span)),
            None => scope.env.get(n).and_then(|e| e.value.clone()),
        };
        scope.push_env(EnvVar {
            name: n.into(),
            value,
            source,
        });
    }
}

/// `NAME=<dynamic>` given to `export`/`declare`: the name and the value as its own word.
fn dynamic_assignment<'a>(arena: &'a bumpalo::Bump, a: &Arg<'a>) -> Option<(&'a str, Arg<'a>)> {
    let (first, rest) = a.word.parts.split_first()?;
    let WordPart::Literal(text) = first else {
        return None;
    };
    let (name, value) = text.split_once('=')?;
    let name = name.trim_end_matches('+');
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return None;
    }
    let mut parts: Vec<WordPart<'a>> = Vec::with_capacity(rest.len() + 1);
    if !value.is_empty() {
        parts.push(WordPart::Literal(value));
    }
    parts.extend_from_slice(rest);
    let word = Word {
        parts: arena.alloc_slice_copy(&parts),
        span: a.word.span,
    };
    Some((name, Arg::new(word)))
}
