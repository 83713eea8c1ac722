//! G7: a wait loop with no bound is denied.
//!
//! A `while`/`until`/`for ((;;))` loop that runs `sleep` in command position (in its condition or
//! body, at any depth, through `eval` and shell `-c` scripts) is a wait. It is bounded only by
//! (a) an arithmetic comparison in the part of its condition that decides it, (b) `while read`
//! fed from a regular file or a heredoc/here-string on fd 0, or (c) a `timeout <duration>` that
//! runs the shell whose `-c` script holds the loop, with no way for the loop to fork out of the
//! timeout's reach. Everything here is a pure function of the parse and its command view.

use crate::analysis::Analysis;
use crate::finding::{Code, Finding, Requirement};
use crate::g7_timeout;
use command_effects::functions::{runs_program, shadowed_wrapper, Functions};
use serde_json::json;
use shell_syntax::ast::{AndOr, Command, CompoundKind, List, RedirOp, SimpleCommand, WhileLoop};
use shell_syntax::view::{
    normalise_program, CommandView, Invocation, InvocationKind, LoopInfo, LoopKind, OriginKind,
    Program,
};
use shell_syntax::Parsed;

const REFUSED: &str = "a wait loop (sleep inside while/until/for ((;;))) with no bound";
const REMEDY: &str =
    "Run it as timeout 600 bash -c '<the loop>', or put a counter bound in its condition";

/// Findings of G7 over every unit of the analysis: a deny per unbounded wait loop, a note per
/// bounded one (for `explain` and the audit log).
pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for unit in a.units {
        for w in wait_loops(&unit.text, unit.parsed(), unit.view()) {
            let evidence = json!({ "wait_loop": w });
            out.push(match w.bound {
                None => Finding::deny(Code::G7UnboundedWait, REFUSED, REMEDY, evidence),
                Some(_) => Finding::note(Requirement::G7, "a bounded wait loop", evidence),
            });
        }
    }
    out
}

/// What bounds a wait loop, for explain output.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// An arithmetic comparison in the deciding part of the condition.
    Arithmetic,
    /// `while read` from a file or heredoc on fd 0.
    ReadFromFile,
    /// A timeout that runs the shell script holding the loop.
    Timeout(String),
    /// The loop sits in an `eval` that a program runs (a program cannot run the builtin).
    Unreachable,
}

/// The verdict on one wait loop.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct WaitLoop {
    /// The loop's text (as written in its script).
    pub text: String,
    /// How many nested scripts enclose it.
    pub depth: usize,
    /// `Some` when bounded, `None` when not (a G7 deny).
    pub bound: Option<Bound>,
    /// Why a timeout around it did not count, if one was there.
    pub note: Option<String>,
}

/// Deepest chain of scripts found in arguments of unresolved programs that is parsed (each level
/// is a quoted string inside the previous one, so real commands stay far below this).
const MAX_HIDDEN_DEPTH: usize = 8;

/// Every wait loop of the command and whether it is bounded. A loop nested in another is judged
/// on its own; so is a script a dynamic or unresolved program hands to a shell.
pub fn wait_loops(src: &str, parsed: &Parsed, view: &CommandView) -> Vec<WaitLoop> {
    loops_at(src, parsed, view, 0)
}

fn loops_at(src: &str, parsed: &Parsed, view: &CommandView, depth: usize) -> Vec<WaitLoop> {
    let mut out = Vec::new();
    // Shell functions: a loop that calls one runs its body (`nap() { sleep 5; }`).
    let funcs = Functions::of(view);
    for lp in &view.loops {
        if !matches!(
            lp.kind,
            LoopKind::While | LoopKind::Until | LoopKind::ArithFor
        ) {
            continue;
        }
        if !runs_sleep(lp, view, &funcs) {
            continue;
        }
        let text = lp.span.text(origin_text(src, view, lp.origin)).to_string();
        out.push(judge_loop(src, lp, &text, view, &funcs));
    }
    if depth < MAX_HIDDEN_DEPTH {
        out.extend(hidden_scripts(view, depth));
    } else if !view.invocations.is_empty() && src.contains("sleep") {
        out.push(WaitLoop {
            text: src.chars().take(200).collect(),
            depth,
            bound: None,
            note: Some("scripts nested too deeply to judge".into()),
        });
    }
    if let Some(w) = unparsed_wait(src, parsed) {
        out.push(w);
    }
    out
}

/// The loops that are not bounded.
pub fn unbounded(loops: &[WaitLoop]) -> impl Iterator<Item = &WaitLoop> {
    loops.iter().filter(|l| l.bound.is_none())
}

fn origin_text<'a>(src: &'a str, view: &'a CommandView, origin: Option<usize>) -> &'a str {
    match origin.and_then(|o| view.origins.get(o)) {
        Some(f) => &f.text,
        None => src,
    }
}

fn runs_sleep(lp: &LoopInfo, view: &CommandView, funcs: &Functions) -> bool {
    lp.condition_invocations
        .iter()
        .chain(&lp.body_invocations)
        .filter_map(|&i| view.invocations.get(i))
        .any(|inv| inv.kind == InvocationKind::Simple && runs_program(view, funcs, inv, "sleep"))
}

fn judge_loop(
    src: &str,
    lp: &LoopInfo,
    text: &str,
    view: &CommandView,
    funcs: &Functions,
) -> WaitLoop {
    let depth = lp.origin_depth;
    let mut w = WaitLoop {
        text: text.to_string(),
        depth,
        bound: None,
        note: None,
    };
    let parsed = shell_syntax::parse(text);
    let compound = parsed
        .script()
        .body
        .items
        .first()
        .and_then(|i| i.and_or.first.commands.first())
        .map(|e| &e.command);
    let own = match compound {
        Some(Command::Compound(c)) => Some(&c.kind),
        _ => None,
    };
    match own {
        Some(CompoundKind::ArithFor(f)) if arith_compares(f.condition.raw) => {
            w.bound = Some(Bound::Arithmetic);
        }
        Some(CompoundKind::While(wl)) => {
            if condition_has_arith_bound(&wl.condition) {
                w.bound = Some(Bound::Arithmetic);
            } else if read_from_file(wl, lp, view) {
                w.bound = Some(Bound::ReadFromFile);
            }
        }
        _ => {}
    }
    if w.bound.is_none() {
        if eval_unreachable(src, lp, view) {
            w.bound = Some(Bound::Unreachable);
        } else {
            match timeout_bound(lp, view, funcs) {
                Ok(t) => w.bound = Some(Bound::Timeout(t)),
                Err(n) => w.note = n,
            }
        }
    }
    w
}

/// The and/or list whose status decides the condition: the last item of the list.
fn deciding<'a>(cond: &List<'a>) -> Option<&'a AndOr<'a>> {
    cond.items.last().map(|i| &i.and_or)
}

fn condition_has_arith_bound(cond: &List) -> bool {
    let Some(ao) = deciding(cond) else {
        return false;
    };
    std::iter::once(&ao.first)
        .chain(ao.rest.iter().map(|(_, p)| p))
        .filter_map(|p| p.commands.last())
        .any(|e| command_is_arith_test(&e.command))
}

const TEST_COMPARISONS: [&str; 4] = ["-lt", "-le", "-gt", "-ge"];

fn command_is_arith_test(c: &Command) -> bool {
    match c {
        Command::Compound(cc) => match &cc.kind {
            CompoundKind::Test(words) => {
                compares(&words.iter().map(|w| w.static_value()).collect::<Vec<_>>())
            }
            CompoundKind::Arith(e) => arith_compares(e.raw),
            CompoundKind::Brace(l) | CompoundKind::Subshell(l) => condition_has_arith_bound(l),
            _ => false,
        },
        Command::Simple(s) => simple_is_test(s),
        _ => false,
    }
}

/// Whether a test expression holds a well-formed `lhs -lt rhs` term: the expression split at
/// `-a`/`-o`/`&&`/`||`, each term stripped of `!` and parentheses, one term being exactly three
/// words with a comparison in the middle (a malformed test bounds nothing).
fn compares(args: &[Option<String>]) -> bool {
    let mut args = args;
    if let Some(Some(last)) = args.last() {
        if last == "]" {
            args = &args[..args.len() - 1];
        }
    }
    args.split(|a| matches!(a.as_deref(), Some("-a" | "-o" | "&&" | "||")))
        .any(|term| {
            let mut t = term;
            while let Some(Some(f)) = t.first() {
                if f == "!" || f == "(" {
                    t = &t[1..];
                } else {
                    break;
                }
            }
            while let Some(Some(l)) = t.last() {
                if l == ")" {
                    t = &t[..t.len() - 1];
                } else {
                    break;
                }
            }
            t.len() == 3
                && t[1]
                    .as_deref()
                    .is_some_and(|op| TEST_COMPARISONS.contains(&op))
        })
}

/// `[ ... -lt ... ]`, `test`, `/usr/bin/test`, `builtin test`, `command [`.
fn simple_is_test(s: &SimpleCommand) -> bool {
    let mut words = s.words.iter();
    let prog = loop {
        let Some(w) = words.next() else {
            return false;
        };
        let Some(v) = w.static_value() else {
            return false;
        };
        let name = normalise_program(&v);
        if name != "builtin" && name != "command" {
            break name;
        }
    };
    (prog == "[" || prog == "test")
        && compares(&words.map(|w| w.static_value()).collect::<Vec<_>>())
}

/// `(( a < b ))`-style comparison: `<`, `>`, `<=`, `>=` that are not shifts.
fn arith_compares(raw: &str) -> bool {
    let stripped = raw.replace("<<", " ").replace(">>", " ");
    stripped.contains('<') || stripped.contains('>')
}

/// `while read` (no `-u`) with a final fd-0 redirect from a regular file or a heredoc. A path
/// the command makes a FIFO (`mkfifo p`, `mknod p p`) never ends: no bound.
fn read_from_file(wl: &WhileLoop, lp: &LoopInfo, view: &CommandView) -> bool {
    if wl.until {
        return false;
    }
    let Some(ao) = deciding(&wl.condition) else {
        return false;
    };
    if !ao.rest.is_empty() || ao.first.commands.len() != 1 {
        return false;
    }
    let Some(Command::Simple(s)) = ao.first.commands.first().map(|e| &e.command) else {
        return false;
    };
    let vals: Vec<Option<String>> = s.words.iter().map(|w| w.static_value()).collect();
    if vals.first().and_then(|v| v.as_deref()) != Some("read") {
        return false;
    }
    for v in vals.iter().skip(1) {
        match v.as_deref() {
            Some("--") => break,
            Some(o) if o.starts_with('-') && o.contains('u') => return false,
            None => return false,
            _ => {}
        }
    }
    let Some(last) = lp.redirects.iter().rev().find(|r| r.fd == Some(0)) else {
        return false;
    };
    match last.op {
        RedirOp::Heredoc | RedirOp::HeredocStrip | RedirOp::HereString => true,
        RedirOp::In => last
            .target
            .value
            .as_deref()
            .is_some_and(|p| !p.is_empty() && !is_device_path(p) && !made_fifo(view, p)),
        _ => false,
    }
}

/// Whether the command makes `path` a FIFO (`mkfifo [-m mode] path`, `mknod path p`).
fn made_fifo(view: &CommandView, path: &str) -> bool {
    let same = |a: &str| a == path || a.trim_start_matches("./") == path.trim_start_matches("./");
    view.invocations.iter().any(|inv| {
        let vals = inv.arg_values();
        match inv.name() {
            Some("mkfifo") => vals.iter().any(|v| v.is_none_or(same)),
            Some("mknod") => vals.contains(&Some("p")) && vals.iter().any(|v| v.is_none_or(same)),
            _ => false,
        }
    })
}

/// Under `/dev` or `/proc` after normalising `.`, `..` and repeated slashes.
fn is_device_path(p: &str) -> bool {
    let mut parts: Vec<&str> = Vec::new();
    for c in p.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    p.starts_with('/') && matches!(parts.first(), Some(&"dev") | Some(&"proc"))
}

/// A loop inside `eval` that an external program is asked to run never runs: programs
/// (`timeout`, `nohup`, `/usr/bin/time`, ...) cannot execute a shell builtin.
fn eval_unreachable(src: &str, lp: &LoopInfo, view: &CommandView) -> bool {
    let mut frame = lp.origin;
    while let Some(id) = frame {
        let Some(f) = view.origins.get(id) else {
            return false;
        };
        if f.kind == OriginKind::Eval {
            if let Some(inv) = view.invocations.get(f.launcher) {
                let text = origin_text(src, view, inv.origin.last().copied());
                if eval_launcher_cannot_run(inv, inv.span.text(text)) {
                    return true;
                }
            }
        }
        frame = f.parent;
    }
    false
}

fn eval_launcher_cannot_run(inv: &Invocation, text: &str) -> bool {
    // `time` the keyword runs builtins; `time` the program (after an assignment or a wrapper,
    // so inside the simple command's own text) does not.
    let time_program = text
        .split_whitespace()
        .take_while(|w| !w.contains("eval"))
        .any(|w| w == "time" || w.ends_with("/time"));
    time_program
        || inv.wrappers.iter().any(|w| {
            matches!(
                w.name.as_str(),
                "timeout"
                    | "gtimeout"
                    | "nohup"
                    | "nice"
                    | "ionice"
                    | "stdbuf"
                    | "setsid"
                    | "chrt"
                    | "taskset"
                    | "xargs"
                    | "env"
                    | "sudo"
                    | "doas"
                    | "flock"
            ) || (w.name == "builtin" && !w.args.is_empty())
                || (w.name == "time" && !w.args.is_empty())
        })
}

/// `Ok(description)` when a timeout bounds the loop, `Err(note)` otherwise.
fn timeout_bound(
    lp: &LoopInfo,
    view: &CommandView,
    funcs: &Functions,
) -> Result<String, Option<String>> {
    let mut frame = lp.origin;
    let mut note = None;
    while let Some(id) = frame {
        let Some(f) = view.origins.get(id) else {
            break;
        };
        if matches!(f.kind, OriginKind::ShellC { .. }) {
            if let Some(inv) = view.invocations.get(f.launcher) {
                if let Some(name) = shadowed_wrapper(funcs, inv) {
                    note = Some(format!(
                        "`{name}` is a shell function here, not the program"
                    ));
                    frame = f.parent;
                    continue;
                }
                match g7_timeout::launcher_timeout(inv) {
                    Ok(Some(desc)) => match fork_out_of_reach(id, view) {
                        None => return Ok(desc),
                        Some(why) => note = Some(why),
                    },
                    Ok(None) => {}
                    Err(why) => note = Some(why),
                }
            }
        }
        frame = f.parent;
    }
    Err(note)
}

/// Whether anything in the script of `frame` (or scripts it launches) forks out of reach.
fn fork_out_of_reach(frame: usize, view: &CommandView) -> Option<String> {
    for inv in &view.invocations {
        if !inv.origin.contains(&frame) {
            continue;
        }
        if inv.context.background {
            return Some("the script runs something with `&`".into());
        }
        if inv.context.coproc {
            return Some("the script starts a coproc".into());
        }
        if matches!(inv.name(), Some("setsid") | Some("disown"))
            || inv.wrappers.iter().any(|w| w.name == "setsid")
        {
            return Some("the script detaches a process (setsid/disown)".into());
        }
    }
    None
}

/// Wrappers that run their arguments; one left as the program did not unwrap.
const WRAPPERS: &[&str] = &[
    "timeout", "gtimeout", "env", "nice", "sudo", "doas", "nohup", "setsid", "stdbuf", "ionice",
    "chrt", "taskset", "flock", "xargs", "command", "exec", "builtin", "time",
];

/// Programs that only print or read their arguments; a shell name among them is data.
const NON_RUNNERS: &[&str] = &[
    "echo", "printf", "print", "grep", "egrep", "fgrep", "rg", "cat", "true", "false", ":", "test",
    "[", "[[", "git", "gh", "man", "which", "type", "read", "export", "declare", "local",
];

/// A shell `-c` script in the arguments of a program the view could not resolve (a dynamic
/// program, a wrapper with a run-time word): its wait loops cannot be shown to be bounded.
fn hidden_scripts(view: &CommandView, depth: usize) -> Vec<WaitLoop> {
    let mut out = Vec::new();
    for inv in &view.invocations {
        // `eval -- 'script'`: the view leaves the `--` in; the script is the rest, joined.
        if inv.name() == Some("eval") && inv.arg_values().first() == Some(&Some("--")) {
            let rest: Option<Vec<&str>> = inv.arg_values()[1..].iter().copied().collect();
            if let Some(rest) = rest {
                let script = rest.join(" ");
                let parsed = shell_syntax::parse(&script);
                let v = shell_syntax::commands(&parsed);
                out.extend(
                    loops_at(&script, &parsed, &v, depth + 1)
                        .into_iter()
                        .filter(|w| w.bound.is_none()),
                );
            }
            continue;
        }
        let suspicious = match &inv.program {
            Program::Dynamic(_) => true,
            Program::Static { name, .. } => {
                !NON_RUNNERS.contains(&name.as_str())
                    && (WRAPPERS.contains(&name.as_str())
                        || inv
                            .wrappers
                            .iter()
                            .any(|w| w.args.iter().any(|a| a.is_dynamic()))
                        || inv.args.iter().any(|a| a.is_dynamic())
                        || name.chars().all(|c| c.is_ascii_digit() || c == '.'))
            }
            Program::None => false,
        };
        if !suspicious {
            continue;
        }
        let vals: Vec<Option<&str>> = inv.arg_values();
        for (k, v) in vals.iter().enumerate() {
            let Some(v) = v else { continue };
            if !shell_syntax::view::is_shell(&normalise_program(v)) {
                continue;
            }
            let script = vals[k + 1..]
                .iter()
                .position(|o| {
                    o.is_some_and(|o| o.starts_with('-') && !o.starts_with("--") && o.contains('c'))
                })
                .and_then(|p| vals.get(k + 2 + p).copied().flatten());
            if let Some(script) = script {
                let parsed = shell_syntax::parse(script);
                let v = shell_syntax::commands(&parsed);
                for mut w in loops_at(script, &parsed, &v, depth + 1) {
                    // Only a bound inside the loop itself survives: whatever wraps the script
                    // here is not known.
                    if !matches!(w.bound, Some(Bound::Arithmetic | Bound::ReadFromFile)) {
                        w.bound = None;
                        w.note = Some("run through a program decided at run time".into());
                    }
                    w.depth += 1;
                    out.push(w);
                }
            }
        }
    }
    out
}

/// A syntax error in a command whose unparsed part starts a wait loop (a loop keyword where a
/// command starts, `sleep` after it): bash may run a wait this parse cannot see.
fn unparsed_wait(src: &str, parsed: &Parsed) -> Option<WaitLoop> {
    let err = parsed.error.as_ref()?;
    let rest = src.get(err.unparsed_from..).unwrap_or(src);
    let mut loop_at = None;
    let mut prev = ';';
    let mut word = String::new();
    let mut words_before = String::new();
    for (i, c) in rest
        .char_indices()
        .chain(std::iter::once((rest.len(), ' ')))
    {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            let starts = ";|&\n('\"`".contains(prev)
                || matches!(words_before.as_str(), "do" | "then" | "else");
            if loop_at.is_none() && starts && matches!(word.as_str(), "while" | "until" | "for") {
                loop_at = Some(i);
            }
            if loop_at.is_some() && word == "sleep" {
                return Some(WaitLoop {
                    text: rest.to_string(),
                    depth: 0,
                    bound: None,
                    note: Some("the command has a syntax error around a wait loop".into()),
                });
            }
            prev = 'w';
            words_before = std::mem::take(&mut word);
        }
        if !c.is_whitespace() || c == '\n' {
            prev = c;
            words_before.clear();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_must_be_well_formed() {
        let v = |s: &str| -> Vec<Option<String>> {
            s.split_whitespace().map(|w| Some(w.to_string())).collect()
        };
        assert!(compares(&v("$i -lt 5 ]")));
        assert!(compares(&v("x != ; -a $i -lt 5 ]")));
        assert!(compares(&v("( ! $i -ge 3 )")));
        assert!(!compares(&v("-f x -le y log")));
        assert!(!compares(&v("-s < ( ls -lt out )")));
        assert!(arith_compares("i < 10"));
        assert!(!arith_compares("1 << 3"));
    }

    #[test]
    fn device_paths_after_normalisation() {
        assert!(is_device_path("/dev/zero"));
        assert!(is_device_path("/dev/./zero"));
        assert!(is_device_path("//proc/self/fd/0"));
        assert!(is_device_path("/tmp/../dev/stdin"));
        assert!(!is_device_path("/tmp/list"));
        assert!(!is_device_path("dev/zero"));
    }
}
