//! Shell functions: where each is defined, and its body's runs for each call with the call's
//! arguments in place (`$@`, `$1`.., `${@:N}`) and its prefix assignments in the environment.

use crate::program::{resolve, Resolved, Run};
use shell_syntax::view::{normalise_program, Arg, CommandView, Invocation, Program};
use shell_syntax::Text;

/// The shell functions of a view: where each is first defined and the invocations of its body
/// (the view visits a body where it is defined, with `context.function` set). Built once per
/// view, so resolving every invocation stays linear.
#[derive(Debug, Default)]
pub struct Functions<'a> {
    /// Name → index of the first body invocation (the function exists from there on).
    first: std::collections::HashMap<&'a str, usize>,
    /// The names in `first` (most program names are not functions: no hashing for them).
    names: shell_syntax::NameSet,
    /// Name → body invocation indices.
    bodies: std::collections::HashMap<&'a str, Vec<usize>>,
    /// Aliases, in definition order: (index of the `alias` invocation, name, value; `None`
    /// for a value decided at run time).
    aliases: Vec<(usize, String, Option<String>)>,
    /// Index of the first `shopt -s expand_aliases` (bash expands aliases only after it).
    expand_aliases_from: Option<usize>,
    /// Name → each definition's first body invocation and nested-script chain (where it
    /// exists: that shell and the ones it runs in the same process).
    defs: std::collections::HashMap<&'a str, Vec<(usize, Vec<usize>)>>,
    /// `unset -f name` / `unset name`: index, name, nested-script chain.
    unsets: Vec<(usize, String, Vec<usize>)>,
    /// `export -f name` (`declare -fx`): index, name.
    exported: Vec<(usize, String)>,
    /// Per nested script (origin id): whether it runs in a new shell process (`bash -c`, a
    /// pipe or heredoc into a shell), which does not see the parent's functions unless
    /// exported, rather than in the same shell (`eval`, `source`, a trap).
    new_process: Vec<bool>,
}

impl<'a> Functions<'a> {
    pub fn of(view: &CommandView<'a>) -> Functions<'a> {
        let mut f = Functions {
            new_process: view
                .origins
                .iter()
                .map(|o| starts_process(&o.kind))
                .collect(),
            ..Functions::default()
        };
        for inv in &view.invocations {
            if let Some(name) = inv.context.function {
                f.first.entry(name).or_insert(inv.index);
                f.names = f.names.with(name);
                let body = f.bodies.entry(name).or_default();
                // A definition is a run of body invocations with nothing else between (a
                // later run is a new definition, or the rest of this one: both exist from
                // their first invocation on).
                let contiguous = body.last().is_some_and(|&prev| prev + 1 == inv.index);
                body.push(inv.index);
                if !contiguous {
                    f.defs
                        .entry(name)
                        .or_default()
                        .push((inv.index, inv.origin.clone()));
                }
            }
            match inv.name() {
                Some("unset") => {
                    let vals: Vec<Option<&str>> =
                        inv.args.iter().map(|a| a.value.as_deref()).collect();
                    // `unset -v name` touches variables only.
                    if !vals
                        .iter()
                        .any(|v| v.is_some_and(|v| v.starts_with('-') && v.contains('v')))
                    {
                        for v in vals.into_iter().flatten().filter(|v| !v.starts_with('-')) {
                            f.unsets
                                .push((inv.index, v.to_string(), inv.origin.clone()));
                        }
                    }
                }
                Some("export" | "declare" | "typeset") => {
                    let vals: Vec<Option<&str>> =
                        inv.args.iter().map(|a| a.value.as_deref()).collect();
                    let flags = |c: char| {
                        vals.iter().any(|v| {
                            v.is_some_and(|v| {
                                v.starts_with('-') && !v.starts_with("--") && v.contains(c)
                            })
                        })
                    };
                    let function_export = if inv.name() == Some("export") {
                        flags('f')
                    } else {
                        flags('f') && flags('x')
                    };
                    if function_export {
                        for v in vals.into_iter().flatten().filter(|v| !v.starts_with('-')) {
                            f.exported.push((inv.index, v.to_string()));
                        }
                    }
                }
                _ => {}
            }
            match inv.name() {
                Some("alias") => {
                    for a in &inv.args {
                        match a.value.as_deref() {
                            Some(v) => {
                                if let Some((n, val)) = v.split_once('=') {
                                    f.aliases.push((
                                        inv.index,
                                        n.to_string(),
                                        Some(val.to_string()),
                                    ));
                                }
                            }
                            None => {
                                if let Some(n) = a
                                    .word
                                    .resolve(&|_| Some(String::new()))
                                    .and_then(|t| t.split_once('=').map(|(n, _)| n.to_string()))
                                {
                                    f.aliases.push((inv.index, n, None));
                                }
                            }
                        }
                    }
                }
                Some("shopt") if f.expand_aliases_from.is_none() => {
                    let vals: Vec<Option<&str>> =
                        inv.args.iter().map(|a| a.value.as_deref()).collect();
                    if vals.contains(&Some("-s")) && vals.contains(&Some("expand_aliases")) {
                        f.expand_aliases_from = Some(inv.index);
                    }
                }
                _ => {}
            }
        }
        f
    }

    /// The value of alias `name` for invocation `index` (`Some(None)`: decided at run time),
    /// when aliases are expanded there.
    pub fn alias_before(&self, name: &str, index: usize) -> Option<Option<&str>> {
        if self.expand_aliases_from.is_none_or(|from| from >= index) {
            return None;
        }
        self.aliases
            .iter()
            .rev()
            .find(|(at, n, _)| *at < index && n == name)
            .map(|(_, _, v)| v.as_deref())
    }

    /// Whether `name` is a function defined before invocation `index`.
    pub fn defined_before(&self, name: &str, index: usize) -> bool {
        self.names.may_contain(name) && self.first.get(name).is_some_and(|&i| i < index)
    }

    /// Whether `name` is a function for a call at invocation `index` in the nested-script
    /// chain `origin`: defined before it in that shell or one it inherits from (a new shell
    /// process inherits only exported functions), and not unset in between by the same shell.
    pub fn defined_for(&self, name: &str, index: usize, origin: &[usize]) -> bool {
        if !self.defined_before(name, index) {
            return false;
        }
        let Some(defs) = self.defs.get(name) else {
            return false;
        };
        let same_process = |from: usize, chain: &[usize]| {
            chain[from..]
                .iter()
                .all(|&id| !self.new_process.get(id).copied().unwrap_or(true))
        };
        let exported = self.exported.iter().any(|(at, n)| *at < index && n == name);
        // What `eval` or `source` defines or unsets stays in the shell that runs them: the
        // chain up to the innermost new process.
        let shell_of = |chain: &'_ [usize]| -> usize {
            chain
                .iter()
                .rposition(|&id| self.new_process.get(id).copied().unwrap_or(true))
                .map_or(0, |p| p + 1)
        };
        defs.iter().any(|(at, def_origin)| {
            let d = &def_origin[..shell_of(def_origin)];
            *at < index
                && origin.starts_with(d)
                && (exported || same_process(d.len(), origin))
                && !self.unsets.iter().any(|(u, n, u_origin)| {
                    let u_shell = &u_origin[..shell_of(u_origin)];
                    n == name
                        && *at < *u
                        && *u < index
                        && origin.starts_with(u_shell)
                        && same_process(u_shell.len(), origin)
                })
        })
    }

    /// Body invocation indices of `name`.
    pub fn body(&self, name: &str) -> &[usize] {
        self.bodies.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }
}

/// Every run of a view in execution order: each invocation with its program resolved, a call
/// of a shell function replaced by its body's runs with the call's arguments, and a function's
/// body where it is defined only when the function is never called (bash runs a body only
/// when it is called; an uncalled one is kept, judged as written).
pub fn runs<'a>(view: &CommandView<'a>, arena: &'a bumpalo::Bump) -> Vec<Run<'a>> {
    let funcs = Functions::of(view);
    let resolved: Vec<Run<'a>> = view
        .invocations
        .iter()
        .map(|inv| resolve(&funcs, inv, arena))
        .collect();
    let called: std::collections::HashSet<Text> = resolved
        .iter()
        .filter_map(|r| match &r.program {
            Resolved::Function(f) => Some(f.clone()),
            _ => None,
        })
        .collect();
    // No function called: every run stands as resolved (no second vector of a large script's
    // runs).
    if called.is_empty() {
        return resolved;
    }
    let mut out = Vec::with_capacity(resolved.len());
    for (inv, run) in view.invocations.iter().zip(resolved) {
        if inv.context.function.is_some_and(|f| called.contains(f)) {
            continue;
        }
        match run.program {
            Resolved::Function(_) => out.extend(function_body_runs(view, &funcs, &run, arena)),
            _ => out.push(run),
        }
    }
    out
}

/// Whether `inv` runs `program`: by name, or as a call of a shell function defined before it
/// whose body runs it (calls inside the body followed up to [`MAX_CALL_DEPTH`]):
/// `nap() { sleep 5; }; while :; do nap; done` sleeps in the loop.
pub fn runs_program(
    view: &CommandView<'_>,
    funcs: &Functions<'_>,
    inv: &Invocation<'_>,
    program: &str,
) -> bool {
    if inv.name() == Some(program) {
        return true;
    }
    if funcs.is_empty() {
        return false;
    }
    let arena = bumpalo::Bump::new();
    let run = resolve(funcs, inv, &arena);
    matches!(run.program, Resolved::Function(_))
        && function_body_runs(view, funcs, &run, &arena)
            .iter()
            .any(|r| r.name() == Some(program))
}

/// The name of the view's outermost wrapper of `inv` when a shell function defined before it
/// has that name: bash calls the function, and the wrapper's words and the program after it
/// are only the function's arguments (`timeout() { shift; "$@"; }; timeout 60 bash -c ...`
/// sets no limit).
pub fn shadowed_wrapper<'i>(funcs: &Functions<'_>, inv: &'i Invocation<'_>) -> Option<&'i str> {
    let w = inv.wrappers.first()?;
    let name = w.name.as_str();
    (funcs.defined_for(name, inv.index, &inv.origin) && inv.context.function != Some(name))
        .then_some(name)
}

/// What each shell function's body sets that stays after a call (`export X=..`, `X=..`,
/// `declare -g`, `readonly`; not `local`, nor `declare` without `-g`), built once per view:
/// function name -> (variable, value; `None` for a run-time value), in body order.
#[derive(Debug, Default)]
pub struct CallSets<'a> {
    sets: std::collections::HashMap<&'a str, Vec<(String, Option<String>)>>,
    names: shell_syntax::NameSet,
}

impl<'a> CallSets<'a> {
    pub fn of(view: &CommandView<'a>) -> CallSets<'a> {
        let mut out = CallSets::default();
        for b in &view.invocations {
            let Some(f) = b.context.function else {
                continue;
            };
            let global = || {
                b.args.iter().any(|a| {
                    a.value
                        .as_deref()
                        .is_some_and(|v| v.starts_with('-') && v.contains('g'))
                })
            };
            let mut found: Vec<(String, Option<String>)> = Vec::new();
            match b.name() {
                Some("export" | "readonly") => {}
                Some("declare" | "typeset") if global() => {}
                _ if !matches!(b.program, Program::None) => continue,
                _ => {}
            }
            if matches!(b.program, Program::None) {
                for e in b
                    .env
                    .iter()
                    .filter(|e| e.source == shell_syntax::view::EnvSource::Prefix)
                {
                    found.push((
                        e.name.to_string(),
                        e.value
                            .as_ref()
                            .and_then(|a| a.value.as_deref().map(String::from)),
                    ));
                }
            } else {
                for a in &b.args {
                    let text = match a.value.as_deref() {
                        Some(v) => Some(v.to_string()),
                        None => crate::program::run_time_parts(&a.word).map(|t| {
                            // A run-time value: keep the name, drop the value.
                            t.split_once('=')
                                .map(|(n, _)| format!("{n}=\0"))
                                .unwrap_or(t)
                        }),
                    };
                    if let Some((n, v)) = text.as_deref().and_then(|t| t.split_once('=')) {
                        let value = (!v.contains(crate::program::RUN_TIME)).then(|| v.to_string());
                        found.push((n.to_string(), value));
                    }
                }
            }
            if !found.is_empty() {
                out.names = out.names.with(f);
                out.sets.entry(f).or_default().extend(found);
            }
        }
        out
    }

    /// The value `name` has after the calls of these functions that ran before `inv` in the
    /// same shell (`f() { export GIT_DIR=/x/.git; }; f; git commit`: bash keeps a body's
    /// assignments after the call): `Some(None)` for a value decided at run time, `None` when
    /// no such call sets it.
    pub fn set_by_calls(
        &self,
        view: &CommandView<'_>,
        inv: &Invocation<'_>,
        name: &str,
    ) -> Option<Option<String>> {
        if self.sets.is_empty() {
            return None;
        }
        view.invocations[..inv.index].iter().rev().find_map(|call| {
            let f = call.name()?;
            if !self.names.may_contain(f)
                || call.origin != inv.origin
                || call.context.pipeline.is_some()
                || call.context.background
                || call.context.command_subst > inv.context.command_subst
                || call.context.function.is_some()
            {
                return None;
            }
            self.sets
                .get(f)?
                .iter()
                .rev()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        })
    }
}

/// Whether a nested script of this kind runs in a new shell process.
fn starts_process(kind: &shell_syntax::view::OriginKind) -> bool {
    use shell_syntax::view::OriginKind;
    match kind {
        OriginKind::Eval => false,
        OriginKind::OtherShellString { program } => {
            !matches!(program.as_str(), "source" | "." | "trap")
        }
        OriginKind::ShellHeredoc { shell }
        | OriginKind::ShellHereString { shell }
        | OriginKind::ShellPipe { shell } => !matches!(shell.as_str(), "source" | "."),
        _ => true,
    }
}

/// Most function calls followed inside one another (`f` calling `g` calling `h`).
pub const MAX_CALL_DEPTH: usize = 4;

/// The runs of a function's body for one call (`run.program` is [`Resolved::Function`]): each
/// body invocation with `$@`, `$*` and `$1`..`$9` replaced by the call's arguments, resolved
/// again. Functions called from the body are followed up to [`MAX_CALL_DEPTH`]. Each returned
/// run keeps the index of the body invocation.
pub fn function_body_runs<'a>(
    view: &CommandView<'a>,
    funcs: &Functions<'_>,
    call: &Run<'a>,
    arena: &'a bumpalo::Bump,
) -> Vec<Run<'a>> {
    let mut out = Vec::new();
    body_runs(view, funcs, call, call.invocation, arena, 0, &mut out);
    out
}

/// `at`: the invocation of the outermost call. bash looks a name up when the body runs, so a
/// function the body calls is whichever is defined by then (late binding: `g() { f; };
/// f() { git push; }; g` runs that `f`), not only one defined before the body was written.
fn body_runs<'a>(
    view: &CommandView<'a>,
    funcs: &Functions<'_>,
    call: &Run<'a>,
    at: usize,
    arena: &'a bumpalo::Bump,
    depth: usize,
    out: &mut Vec<Run<'a>>,
) {
    let Resolved::Function(name) = &call.program else {
        return;
    };
    if depth >= MAX_CALL_DEPTH {
        out.push(Run {
            program: Resolved::Unknown,
            ..call.clone()
        });
        return;
    }
    for body in funcs
        .body(name)
        .iter()
        .filter_map(|&i| view.invocations.get(i))
        .filter(|b| b.index < at)
    {
        let mut words: Vec<Arg<'a>> = Vec::new();
        let first = match &body.program {
            Program::None => continue,
            Program::Dynamic(w) => Arg {
                word: *w,
                value: None,
            },
            Program::Static { raw, .. } => Arg::synthetic(arena, raw.as_str(), body.span),
        };
        for a in std::iter::once(&first).chain(body.args.iter()) {
            substitute(a, &call.args, arena, &mut words);
        }
        let mut inv = body.clone();
        // The substituted words go through the view's wrapper table again (`command "$@"`
        // with `git push` in place is `git push`).
        let u = shell_syntax::view::unwrap(arena, words);
        let Some(head) = u.program else {
            continue;
        };
        inv.program = match &head.value {
            Some(v) => Program::Static {
                name: normalise_program(v).into(),
                raw: v.clone(),
            },
            None => Program::Dynamic(head.word),
        };
        inv.args = u.args;
        inv.wrappers.extend(u.wrappers);
        for e in u.env {
            inv.env.push(e);
        }
        inv.cds.extend(u.cds);
        inv.args_incomplete |= u.args_incomplete;
        let mut run = resolve_at(funcs, &inv, arena, at);
        run.invocation = body.index;
        // `X=1 f`: the call's own assignments are in the body's environment.
        if let Some(call_inv) = view.invocations.get(call.invocation) {
            let own = call_inv.env.iter().filter(|e| {
                matches!(
                    e.source,
                    shell_syntax::view::EnvSource::Prefix
                        | shell_syntax::view::EnvSource::EnvCommand
                )
            });
            let mut env: Vec<(Text, Option<Text>)> = own
                .map(|e| {
                    (
                        e.name.clone(),
                        e.value.as_ref().and_then(|a| a.value.clone()),
                    )
                })
                .collect();
            env.extend(call.env.iter().cloned());
            env.append(&mut run.env);
            run.env = env;
        }
        if matches!(run.program, Resolved::Function(_)) {
            body_runs(view, funcs, &run, at, arena, depth + 1, out);
        } else {
            out.push(run);
        }
    }
}

/// [`resolve`] for a body invocation run from the call at `call_index` (functions defined
/// before the call are visible).
fn resolve_at<'a>(
    funcs: &Functions<'_>,
    inv: &Invocation<'a>,
    arena: &'a bumpalo::Bump,
    call_index: usize,
) -> Run<'a> {
    let mut at_call = inv.clone();
    at_call.index = call_index;
    at_call.context.function = None;
    let mut run = resolve(funcs, &at_call, arena);
    run.invocation = inv.index;
    run
}

/// One body word with the call's positional parameters in place.
fn substitute<'a>(
    a: &Arg<'a>,
    call_args: &[Arg<'a>],
    arena: &'a bumpalo::Bump,
    out: &mut Vec<Arg<'a>>,
) {
    use shell_syntax::ast::WordPart;
    if a.value.is_some() {
        out.push(a.clone());
        return;
    }
    let param = match a.word.parts {
        [WordPart::Param(p)] => Some(p),
        [WordPart::DoubleQuoted([WordPart::Param(p)])] => Some(p),
        _ => None,
    }
    .filter(|p| p.index.is_none() && !p.length && !p.indirect);
    // `"${@:N}"` and `"${@:N:L}"`: a slice of the call's arguments (`$0` is offset 0).
    if let Some(p) = param.filter(|p| p.name == "@" || p.name == "*") {
        if let Some(shell_syntax::ast::ParamOp::Substring { offset, length }) = p.op {
            let num = |w: &shell_syntax::Word<'_>| w.static_value()?.trim().parse::<usize>().ok();
            if let Some(off) = num(offset) {
                let start = off.saturating_sub(1).min(call_args.len());
                let end = match length {
                    None => Some(call_args.len()),
                    Some(l) => num(l).map(|l| (start + l).min(call_args.len())),
                };
                if let Some(end) = end {
                    out.extend(call_args[start..end].iter().cloned());
                    return;
                }
            }
        }
    }
    let param = param.filter(|p| p.op.is_none());
    if let Some(p) = param {
        if p.name == "@" || p.name == "*" {
            out.extend(call_args.iter().cloned());
            return;
        }
        if let Ok(n) = p.name.parse::<usize>() {
            if n >= 1 {
                match call_args.get(n - 1) {
                    Some(v) => out.push(v.clone()),
                    None => {
                        if matches!(a.word.parts, [WordPart::DoubleQuoted(_)]) {
                            out.push(Arg::synthetic(arena, "", a.word.span));
                        }
                    }
                }
                return;
            }
        }
    }
    // `refs/heads/$1`: positional parameters with static values inside a longer word.
    let lookup = |name: &str| -> Option<String> {
        let n: usize = name.parse().ok()?;
        call_args
            .get(n.checked_sub(1)?)?
            .value
            .as_deref()
            .map(String::from)
    };
    match a.word.resolve(&lookup) {
        Some(v) => out.push(Arg::synthetic(arena, v, a.word.span)),
        None => out.push(a.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether each invocation runs `sleep` (directly or through a function it calls).
    fn sleeps(cmd: &str) -> Vec<bool> {
        let p = shell_syntax::parse(cmd);
        let v = shell_syntax::commands(&p);
        let f = Functions::of(&v);
        v.invocations
            .iter()
            .map(|i| runs_program(&v, &f, i, "sleep"))
            .collect()
    }

    #[test]
    fn a_called_function_runs_its_body() {
        assert_eq!(sleeps("n() { sleep 1; }; n"), vec![true, true]);
        assert_eq!(
            sleeps("b() { sleep 1; }; a() { b; }; a"),
            vec![true, true, true]
        );
        // Called before it is defined: bash finds no function.
        assert_eq!(sleeps("n; n() { sleep 1; }"), vec![false, true]);
        assert_eq!(sleeps("n() { echo; }; n"), vec![false, false]);
    }

    #[test]
    fn a_function_shadows_a_wrapper() {
        let p = shell_syntax::parse("timeout() { \"$@\"; }; timeout 5 bash -c x; nice ls");
        let v = shell_syntax::commands(&p);
        let f = Functions::of(&v);
        let shadowed: Vec<Option<&str>> = v
            .invocations
            .iter()
            .map(|i| shadowed_wrapper(&f, i))
            .collect();
        assert!(shadowed.contains(&Some("timeout")));
        assert!(!shadowed.contains(&Some("nice")));
        let p = shell_syntax::parse("timeout 5 bash -c x");
        let v = shell_syntax::commands(&p);
        assert_eq!(
            shadowed_wrapper(&Functions::of(&v), &v.invocations[0]),
            None
        );
    }
}
