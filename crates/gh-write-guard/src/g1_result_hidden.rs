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
use shell_syntax::ast::{AndOrOp, RedirOp};
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

fn is_dev_null(path: &str) -> bool {
    path.starts_with('/') && dirs::join(Path::new("/"), path) == Path::new("/dev/null")
}

/// Whether a command after `||` only hides the failure.
fn hides_failure(argv: &[Arg]) -> bool {
    let words: Vec<Option<&str>> = argv.iter().map(|a| a.value.as_deref()).collect();
    match words.first() {
        Some(Some("true")) | Some(Some(":")) => true,
        Some(Some("echo")) | Some(Some("printf")) => true,
        Some(Some("exit")) | Some(Some("return")) => {
            matches!(words.get(1), None | Some(Some("0")))
        }
        _ => false,
    }
}

/// The hiding shape for one invocation, if any.
fn hidden(inv: &Invocation, a: &Analysis<'_>, unit: usize) -> Option<String> {
    if let Some(r) = inv.redirects.iter().find(|r| discards_output(r)) {
        return Some(format!("output redirected to /dev/null ({r})"));
    }
    for link in &inv.context.and_or {
        for (op, next) in link.following() {
            if *op == AndOrOp::Or {
                if let Some(argv) = next {
                    if hides_failure(argv) {
                        let shown: Vec<String> = argv.iter().map(|x| x.to_string()).collect();
                        return Some(format!("failure hidden by `|| {}`", shown.join(" ")));
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
