//! G1: a GitHub write whose result is thrown away is denied: its stdout or stderr (or that of
//! the list/group/subshell/pipeline around it, or an earlier `exec`) goes to `/dev/null`, or a
//! `|| true`, `|| :`, `|| echo ...`, `|| exit 0`, `|| return 0` follows it, or its own options
//! drop the response (`gh api --silent`, `curl -o /dev/null`). `2>&1`, `| tee` and
//! redirections of other commands are fine.

use crate::analysis::Analysis;
use crate::finding::{Code, Finding};
use crate::operations::{Op, OpKind};
use command_effects::dirs;
use serde_json::json;
use shell_syntax::ast::{AndOrOp, RedirOp, WordPart};
use shell_syntax::view::{AppliedRedirect, Arg, Invocation};
use std::path::Path;

const REMEDY: &str =
    "Run the write on its own, without discarding its output or its failure, and read its result.";

/// Whether a redirect sends stdout or stderr to `/dev/null`, or closes it.
fn discards_output(r: &AppliedRedirect) -> bool {
    let output_op = matches!(
        r.op,
        RedirOp::Out | RedirOp::Append | RedirOp::Clobber | RedirOp::OutErr | RedirOp::AppendOutErr
    );
    // `>&/dev/null` is `&>/dev/null`.
    let output_op = output_op || r.op == RedirOp::DupOut;
    // `{fd}>/dev/null` opens a new descriptor: stdout and stderr are untouched.
    let fd_ok = r.touches_stdout_or_stderr();
    // `>&-`: stdout closed, nothing the write prints is seen.
    let closed = r.op == RedirOp::DupOut && r.target.value.as_deref() == Some("-");
    output_op && fd_ok && (closed || r.target.value.as_deref().is_some_and(is_dev_null))
}

/// What a descriptor points at, as far as G1 cares.
#[derive(Clone, Copy, PartialEq)]
enum Fd {
    /// Where it was when the command started (the agent reads it).
    Seen,
    /// `/dev/null` or closed.
    Gone,
}

/// The redirection that leaves stdout or stderr on `/dev/null` (or closed) after every
/// redirection applies in order, descriptors copied as bash copies them: `3>/dev/null >&3`,
/// `exec 3>/dev/null; ... >&3`, `1<>/dev/null`, `2>/dev/null 1>&2`.
fn discarding_redirect<'r, 'a>(
    redirects: &'r [AppliedRedirect<'a>],
) -> Option<&'r AppliedRedirect<'a>> {
    // Descriptors 0-9 (a higher one bash opens only by `{var}>`, which is none of 1 and 2),
    // each with the redirection that last pointed it somewhere.
    let mut fds: [(Fd, Option<usize>); 10] = [(Fd::Seen, None); 10];
    let to = |path: Option<&str>| {
        if path.is_some_and(is_dev_null) {
            Fd::Gone
        } else {
            Fd::Seen
        }
    };
    // `{fd}>/dev/null` names a new descriptor; `>&$fd` later copies it (bash).
    let mut named: Vec<(&str, (Fd, Option<usize>))> = Vec::new();
    for (i, r) in redirects.iter().enumerate() {
        if let Some(name) = r.fd_var {
            let target = r.target.value.as_deref();
            let opens = matches!(
                r.op,
                RedirOp::Out | RedirOp::Append | RedirOp::Clobber | RedirOp::ReadWrite
            );
            named.retain(|(n, _)| *n != name);
            named.push((name, (if opens { to(target) } else { Fd::Seen }, Some(i))));
            continue;
        }
        let target = r.target.value.as_deref();
        if let (RedirOp::DupOut | RedirOp::DupIn, None) = (r.op, target) {
            // `>&$fd`: the descriptor a `{fd}>` opened, if this list named it.
            if let [WordPart::Param(pe)] = r.target.word.parts {
                if let Some((_, v)) = named.iter().rev().find(|(n, _)| *n == pe.name) {
                    let fd = r.fd.unwrap_or(1) as usize;
                    if let Some(slot) = fds.get_mut(fd) {
                        *slot = (v.0, v.1.or(Some(i)));
                    }
                    continue;
                }
            }
        }
        let fd = r.fd.unwrap_or(1) as usize;
        let mut changes: [(usize, (Fd, Option<usize>)); 2] = [(usize::MAX, (Fd::Seen, None)); 2];
        match r.op {
            RedirOp::Out
            | RedirOp::Append
            | RedirOp::Clobber
            | RedirOp::ReadWrite
            | RedirOp::In => changes[0] = (fd, (to(target), Some(i))),
            RedirOp::OutErr | RedirOp::AppendOutErr => {
                changes = [(1, (to(target), Some(i))), (2, (to(target), Some(i)))];
            }
            RedirOp::DupOut | RedirOp::DupIn => match target {
                Some("-") => changes[0] = (fd, (Fd::Gone, Some(i))),
                Some(t) if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) => {
                    let from = fds
                        .get(t.parse::<usize>().unwrap_or(usize::MAX))
                        .copied()
                        .unwrap_or((Fd::Seen, None));
                    changes[0] = (fd, (from.0, from.1.or(Some(i))));
                }
                // `>&file` is `&>file`.
                Some(_) if r.op == RedirOp::DupOut && r.fd.is_none_or(|f| f == 1) => {
                    changes = [(1, (to(target), Some(i))), (2, (to(target), Some(i)))];
                }
                _ => changes[0] = (fd, (Fd::Seen, Some(i))),
            },
            _ => {}
        }
        for (fd, v) in changes {
            if let Some(slot) = fds.get_mut(fd) {
                *slot = v;
            }
        }
    }
    [1, 2]
        .into_iter()
        .find_map(|fd| (fds[fd].0 == Fd::Gone).then_some(fds[fd].1).flatten())
        .and_then(|i| redirects.get(i))
}

fn is_dev_null(path: &str) -> bool {
    path.starts_with('/') && dirs::join(Path::new("/"), path) == Path::new("/dev/null")
}

/// Whether a command after `||` only hides the failure: it always succeeds (`true`, `:`,
/// `echo`, `printf`, `sleep`, a test of one non-empty word; by path, through `command`, `builtin` or `env`), or ends the
/// shell or function with a status bash reads as 0 (`exit 0`, `exit 00`, `exit +0`,
/// `exit 256`, `return 0`). A bare `exit` or `return` keeps the failing status (checked with
/// bash: `false || exit` exits 1), and `exit 0x0` is refused by bash (status 2).
fn hides_failure(argv: &[Arg]) -> bool {
    let words: Vec<Option<&str>> = argv.iter().map(|a| a.value.as_deref()).collect();
    let mut rest = words.as_slice();
    // `command true`, `builtin :`, `env true` (no options), `/bin/true`.
    while let [Some(w), tail @ ..] = rest {
        let n = shell_syntax::view::normalise_program(w);
        if matches!(n.as_str(), "command" | "builtin" | "env") && !tail.is_empty() {
            if tail
                .first()
                .is_some_and(|t| t.is_some_and(|t| t.starts_with('-')))
            {
                return false;
            }
            rest = tail;
            continue;
        }
        break;
    }
    let Some(Some(first)) = rest.first() else {
        return false;
    };
    match shell_syntax::view::normalise_program(first).as_str() {
        "true" | ":" | "echo" | "printf" | "sleep" => true,
        // One non-empty word is a true test (`[ 1 ]`, `test x`, `[[ 1 ]]`; bash's test with
        // one argument).
        "test" => matches!(&rest[1..], [Some(s)] if !s.is_empty()),
        "[" => matches!(&rest[1..], [Some(s), Some("]")] if !s.is_empty()),
        "[[" => matches!(&rest[1..], [Some(s)] | [Some(s), Some("]]")] if !s.is_empty()),
        "exit" | "return" => match &rest[1..] {
            [Some(n)] => zero_status(n),
            _ => false,
        },
        _ => false,
    }
}

/// Whether bash's `exit N` reads `N` as a status of 0 (a decimal number, blanks and a sign
/// allowed, that is a multiple of 256).
fn zero_status(n: &str) -> bool {
    let t = n.trim_matches(|c| c == ' ' || c == '\t');
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && digits
            .bytes()
            .fold(0u32, |acc, b| (acc * 10 + u32::from(b - b'0')) % 256)
            == 0
}

/// How many callers deep a write inside a function is followed to the call that throws its
/// result away (`f() { g; }; g() { gh ...; }; f >/dev/null`).
const MAX_CALLERS: usize = 4;

/// The hiding shape for one invocation, if any: its own, or that of a call of the function
/// it is in (`f() { gh issue create ...; }; f >/dev/null`, `f || true`).
fn hidden(inv: &Invocation, a: &Analysis<'_>, unit: usize) -> Option<String> {
    hidden_at(inv, a, unit, 0)
}

fn hidden_at(inv: &Invocation, a: &Analysis<'_>, unit: usize, depth: usize) -> Option<String> {
    if let Some(shape) = hidden_here(inv, a, unit) {
        return Some(shape);
    }
    let f = inv.context.function?;
    if depth >= MAX_CALLERS {
        return None;
    }
    let view = a.units[unit].view();
    view.invocations
        .iter()
        .filter(|c| c.name() == Some(f) && c.context.function != Some(f))
        .find_map(|call| {
            hidden_at(call, a, unit, depth + 1).map(|s| format!("{s}, around the call of {f}"))
        })
}

/// The hiding shape of the invocation itself and the lists around it.
fn hidden_here(inv: &Invocation, a: &Analysis<'_>, unit: usize) -> Option<String> {
    if let Some(r) = discarding_redirect(&inv.redirects) {
        return Some(format!("output redirected to /dev/null ({r})"));
    }
    for link in &inv.context.and_or {
        for (j, (op, next)) in link.following().iter().enumerate() {
            if *op != AndOrOp::Or {
                continue;
            }
            match next {
                Some(argv) if hides_failure(argv) => {
                    let shown: Vec<String> = argv.iter().map(|x| x.to_string()).collect();
                    return Some(format!("failure hidden by `|| {}`", shown.join(" ")));
                }
                Some(_) => {}
                // `|| { true; }`, `|| (exit 0)`: the group or subshell ends with a command
                // that hides the failure.
                None => {
                    let at = link.position + j + 1;
                    let view = a.units[unit].view();
                    // The group's invocations follow the write's in walk order, together.
                    let in_group = |o: &&Invocation| {
                        o.origin == inv.origin
                            && o.context.and_or.iter().any(|l| {
                                std::sync::Arc::ptr_eq(&l.ops, &link.ops) && l.position == at
                            })
                    };
                    let last = view.invocations[inv.index + 1..]
                        .iter()
                        .skip_while(|o| !in_group(o))
                        .take_while(in_group)
                        .fold(None, |_, o| Some(o));
                    if let Some(last) = last {
                        let program = match &last.program {
                            shell_syntax::Program::Static { raw, .. } => Some(Arg {
                                word: shell_syntax::Word {
                                    parts: &[],
                                    span: last.span,
                                },
                                value: Some(raw.clone()),
                            }),
                            _ => None,
                        };
                        let argv: Vec<Arg> = program
                            .into_iter()
                            .chain(last.args.iter().cloned())
                            .collect();
                        if hides_failure(&argv) {
                            let shown: Vec<&str> =
                                argv.iter().filter_map(|x| x.value.as_deref()).collect();
                            return Some(format!(
                                "failure hidden by a group that ends in `{}`",
                                shown.join(" ")
                            ));
                        }
                    }
                }
            }
        }
    }
    // A pipeline whose last command discards what the write printed, or a later stage that
    // prints none of what it reads.
    if let Some(p) = inv.context.pipeline {
        if p.index + 1 < p.len {
            let view = a.units[unit].view();
            let later = view.invocations[inv.index + 1..].iter().filter(|o| {
                o.origin == inv.origin
                    && o.context
                        .pipeline
                        .is_some_and(|q| q.len == p.len && q.index > p.index)
            });
            for stage in later {
                if let Some(sink) = prints_none_of_its_input(stage) {
                    return Some(format!("the pipeline ends its output in `{sink}`"));
                }
            }
            let last = view.invocations[inv.index + 1..].iter().find(|o| {
                o.origin == inv.origin
                    && o.context
                        .pipeline
                        .is_some_and(|q| q.len == p.len && q.index + 1 == q.len)
            })?;
            if last
                .redirects
                .iter()
                .any(|r| r.fd.is_none_or(|f| f == 1) && r.fd_var.is_none() && discards_output(r))
            {
                return Some("the pipeline's output goes to /dev/null".into());
            }
        }
    }
    None
}

/// A pipeline stage that prints none of what it reads: `true`, `:`, `false`, `sleep`,
/// `read`, `wc` (counts only), `grep`/`rg` with `-q`/`-c` (in any cluster) or `--quiet`,
/// `--silent`, `--count`, `head`/`tail` of zero lines or bytes, `dd of=/dev/null`.
fn prints_none_of_its_input(stage: &Invocation) -> Option<String> {
    let name = stage.name()?;
    let words: Vec<&str> = stage
        .args
        .iter()
        .filter_map(|a| a.value.as_deref())
        .collect();
    let shown = || {
        let mut t = name.to_string();
        for w in &words {
            t.push(' ');
            t.push_str(w);
        }
        t
    };
    let zero = |opts: &[&str]| {
        words.iter().enumerate().any(|(i, w)| {
            *w == "-0"
                || opts.iter().any(|o| {
                    w.strip_prefix(o)
                        .is_some_and(|v| v.trim_start_matches('=') == "0")
                        && w.len() > o.len()
                        || (*w == *o && words.get(i + 1) == Some(&"0"))
                })
        })
    };
    // A short flag in any cluster, before `--`; a value-taking letter ends its cluster and
    // takes the rest, or the next word (`grep -e -q` searches for `-q`).
    let short = |flags: &str| {
        let mut rest = words.iter();
        while let Some(w) = rest.next() {
            if *w == "--" {
                break;
            }
            let Some(cluster) = w.strip_prefix('-').filter(|c| !c.starts_with('-')) else {
                continue;
            };
            for (i, c) in cluster.char_indices() {
                if flags.contains(c) {
                    return true;
                }
                if "efmABCdDgtTjMEr".contains(c) {
                    if i + 1 == cluster.len() {
                        rest.next();
                    }
                    break;
                }
            }
        }
        false
    };
    let discards = match name {
        "true" | ":" | "false" | "sleep" | "read" | "wc" => true,
        "grep" | "egrep" | "fgrep" | "rg" => {
            short("qc")
                || words
                    .iter()
                    .any(|w| matches!(*w, "--quiet" | "--silent" | "--count"))
        }
        "head" | "tail" => zero(&["-n", "-c", "--lines", "--bytes"]),
        "dd" => words.contains(&"of=/dev/null"),
        _ => false,
    };
    discards.then(shown)
}

/// The write's own options throw its result away (`gh api --silent`, `curl -o /dev/null`).
fn own_options(op: &Op<'_>) -> Option<String> {
    match &op.kind {
        OpKind::Gh { api: Some(api), .. } if api.silent => {
            Some("--silent prints nothing of the response".into())
        }
        OpKind::HttpWrite {
            discards: true,
            program,
            ..
        } => Some(format!("{program} writes the response to /dev/null")),
        _ => None,
    }
}

pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for op in a.ops() {
        if !op.is_github_write() {
            continue;
        }
        let inv = op.inv(a);
        if let Some(shape) = own_options(op).or_else(|| hidden(inv, a, op.unit)) {
            out.push(Finding::deny(
                Code::G1ResultHidden,
                format!("{} with its result thrown away ({shape})", op.label()),
                REMEDY,
                json!({"operation": op.label(), "shape": shape, "span": [inv.span.start, inv.span.end], "unit": op.unit}),
            ));
        }
    }
    out
}
