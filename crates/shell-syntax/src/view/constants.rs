//! Constant propagation (issue 42): the value a variable certainly has where a command's words
//! are expanded, when the command text itself gave it (`B=main; git push origin HEAD:$B` pushes
//! to main). A value counts only when no part of the text may change it at run time: every
//! assignment of the name anywhere in the text must be one that always runs, once, in the shell
//! of the commands after it. Anything else "unpins" the name for the whole text (a guard then
//! sees a run-time word, and fails closed where that protects something): an assignment in a
//! branch, a loop, a function body, a trap handler or after `&&`/`||`; a `for` variable; an
//! append (`B+=x`) or array element; `${B:=x}`; a name reference (`declare -n`). A file
//! sourced or text evaluated that the view could not read unpins every name.

use super::producers::{splits_unquoted, substitution_output};
use super::*;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Names whose value the text does not pin (see the module documentation); shared by every
/// invocation's [`Env`].
#[derive(Debug, Default)]
pub(crate) struct Unpinned {
    pub(crate) names: HashSet<Text>,
    /// A script the view could not read runs in the command's own shell: it may set anything.
    pub(crate) all: bool,
    /// Every value the text assigns to a name anywhere (`B=x`, `export B=x`, `for B in x y`,
    /// `${B:=x}`); `None` once one assignment is not literal text (`read B`, `B=$(...)`,
    /// `B+=x`, `declare -n B`). What a word may be ([`Env::candidates`]).
    pub(crate) values: HashMap<Text, Option<Vec<Text>>>,
    /// Each `for NAME in WORDS` of literal words: its loop id, NAME and WORDS.
    pub(crate) for_lists: Vec<(usize, Text, Vec<Text>)>,
}

impl Unpinned {
    pub(crate) fn pins(&self, name: &str) -> bool {
        !self.all && !self.names.contains(name)
    }
}

impl<'a> Walker<'a, '_> {
    /// Whether a command in context `c` may not run, or may run more than once, where it stands
    /// in the text.
    pub(super) fn may_not_run(&self, c: &Context<'_>) -> bool {
        self.branch_depth > 0
            || !c.loops.is_empty()
            || c.function.is_some()
            || c.in_condition
            || c.in_case
            || c.background
            || c.coproc
            || c.and_or.iter().any(|l| l.position > 0)
    }

    pub(super) fn unpin(&mut self, name: &str) {
        self.unpinned.names.insert(name.into());
    }

    /// Notes a value the text may give `name` (`None`: one decided at run time).
    pub(super) fn may_assign(&mut self, name: &str, value: Option<Text>) {
        const MAX_VALUES: usize = 16;
        let e = self
            .unpinned
            .values
            .entry(name.into())
            .or_insert_with(|| Some(Vec::new()));
        match (e.as_mut(), value) {
            (Some(list), Some(v)) if list.len() < MAX_VALUES => {
                if !list.contains(&v) {
                    list.push(v)
                }
            }
            _ => *e = None,
        }
    }

    /// The names assignments of invocation `idx` set (a prefix-only command, or
    /// `export`/`declare`/`local`/`readonly`/`typeset` and the run-time setters): unpinned when
    /// the command may not run, or when the assignment does not simply replace the value.
    pub(super) fn note_assignments(&mut self, idx: usize, s: Option<&SimpleCommand<'a>>) {
        let inv = &self.out.invocations[idx];
        let uncertain = self.may_not_run(&inv.context);
        let mut names: Vec<Text> = Vec::new();
        let mut values: Vec<(Text, Option<Text>)> = Vec::new();
        if let Some(s) = s {
            for a in s.assignments {
                if uncertain || a.append || a.index.is_some() {
                    names.push(a.name.into());
                }
                // A prefix assignment of a command is its own, not the shell's.
                if s.words.is_empty() {
                    let literal = match &a.value {
                        AssignValue::Scalar(w) if !a.append && a.index.is_none() => w
                            .static_text()
                            .or_else(|| super::producers::word_output(w).map(Text::from)),
                        _ => None,
                    };
                    values.push((a.name.into(), literal));
                }
            }
        }
        let declares = matches!(
            inv.name(),
            Some("export" | "declare" | "typeset" | "local" | "readonly")
        );
        if declares {
            // `declare -n B=M`: B follows M from now on.
            let nameref = inv.args.iter().any(|a| {
                a.value
                    .as_deref()
                    .is_some_and(|v| v.starts_with('-') && v.contains('n'))
            });
            for a in &inv.args {
                let text = a
                    .value
                    .as_deref()
                    .map(str::to_string)
                    .or_else(|| crate::view::dynamic_assignment_name(&a.word));
                let Some(v) = text.filter(|v| !v.starts_with('-')) else {
                    continue;
                };
                let (n, append) = match v.split_once('=') {
                    Some((n, _)) => (n.trim_end_matches('+'), n.ends_with('+')),
                    None => (v.as_str(), false),
                };
                if uncertain || nameref || append || n.contains('[') {
                    names.push(n.into());
                }
                let literal = match v.split_once('=') {
                    Some((_, value)) if !nameref && !append && a.value.is_some() => {
                        Some(Text::from(value))
                    }
                    _ => None,
                };
                if v.contains('=') || nameref {
                    values.push((n.into(), literal));
                }
            }
        }
        // `shift`, `set -- a b`: the positional parameters change.
        let sets_positionals = match inv.name() {
            Some("shift") => true,
            Some("set") => inv.args.iter().any(|a| {
                a.value
                    .as_deref()
                    .is_none_or(|v| v == "--" || !v.starts_with(['-', '+']))
            }),
            _ => false,
        };
        for (n, v) in values {
            self.may_assign(&n, v);
        }
        if sets_positionals {
            names.extend((1..10).map(|n| Text::from(n.to_string())));
            names.push("#".into());
        }
        self.unpinned.names.extend(names);
    }

    /// After the walk: each run-time argument made only of literal text and pinned constants
    /// gets its value, and every invocation's environment learns which names are not pinned
    /// ([`Env::constant`]). Not in a function body or a trap handler: they run later, when the
    /// names may hold other values.
    pub(super) fn pin_constants(&mut self) {
        let unpinned = Arc::new(std::mem::take(&mut self.unpinned));
        let later: Vec<bool> = self
            .out
            .origins
            .iter()
            .map(|o| matches!(&o.kind, OriginKind::OtherShellString { program } if program == "trap"))
            .collect();
        let new_shell: Vec<bool> = self
            .out
            .origins
            .iter()
            .map(|o| !same_shell(&o.kind))
            .collect();
        let loops = &self.out.loops;
        for inv in &mut self.out.invocations {
            inv.env.unpinned = Some(unpinned.clone());
            inv.env.listed = listed_names(&unpinned, loops, inv);
            if inv.context.function.is_some() || inv.origin.iter().any(|&o| later[o]) {
                continue;
            }
            // A new shell sees only what was exported to it (`B=main; bash -c 'echo $B'`
            // prints the outer environment's B).
            let exported_only = inv.origin.iter().any(|&o| new_shell[o]);
            for i in 0..inv.args.len() {
                if inv.args[i].value.is_none() {
                    let w = inv.args[i].word;
                    if let Some(v) = constant_word(&w, &inv.env, exported_only) {
                        inv.args[i].value = Some(v.into());
                    }
                }
            }
            spread_positionals(inv);
        }
    }
}

/// The names whose value at `inv` is one of a list the text gives: the variable of a `for`
/// loop of literal words whose body holds `inv` in the same shell, when nothing else in the
/// text assigns the name a value outside that list ([`Env::candidates`] is complete for it).
fn listed_names(u: &Unpinned, loops: &[LoopInfo<'_>], inv: &Invocation<'_>) -> Vec<Text> {
    if u.all || u.for_lists.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for l in &inv.context.loops {
        if l.part != LoopPart::Body
            || loops.get(l.id).map(|i| i.origin) != Some(inv.origin.last().copied())
        {
            continue;
        }
        for (id, name, items) in &u.for_lists {
            let only_these = || {
                u.values
                    .get(name)
                    .and_then(Option::as_ref)
                    .is_some_and(|vs| vs.iter().all(|v| items.contains(v)))
            };
            if *id == l.id && inv.context.function.is_none() && only_these() {
                out.push(name.clone());
            }
        }
    }
    out
}

/// `"$@"` (and a `$@`/`$*` bash keeps as whole words) where the positional parameters are
/// pinned (`bash -c 'git push "$@"' _ origin HEAD:main`): one argument per parameter.
fn spread_positionals(inv: &mut Invocation<'_>) {
    let at = |w: &Word<'_>| match w.parts {
        [WordPart::DoubleQuoted([WordPart::Param(pe)])] => pe.name == "@" && pe.op.is_none(),
        [WordPart::Param(pe)] => matches!(pe.name, "@" | "*") && pe.op.is_none(),
        _ => false,
    };
    if !inv.args.iter().any(|a| a.value.is_none() && at(&a.word)) {
        return;
    }
    let Some(count) = inv.env.constant("#").and_then(|n| n.parse::<usize>().ok()) else {
        return;
    };
    let values: Option<Vec<Text>> = (1..=count)
        .map(|n| inv.env.constant(&n.to_string()).map(Text::from))
        .collect();
    let Some(values) = values else { return };
    let mut out = Vec::with_capacity(inv.args.len() + count);
    for a in inv.args.drain(..) {
        if a.value.is_some() || !at(&a.word) {
            out.push(a);
            continue;
        }
        let quoted = matches!(a.word.parts, [WordPart::DoubleQuoted(_)]);
        if !quoted && values.iter().any(|v| splits_unquoted(v)) {
            out.push(a);
            continue;
        }
        out.extend(values.iter().map(|v| Arg {
            word: a.word,
            value: Some(v.clone()),
        }));
    }
    inv.args = out;
}

/// The value of a word made of literal text, plain `$NAME`/`${NAME}` expansions of pinned
/// constants and substitutions whose output the text decides (`$(echo main)`). An unquoted expansion counts only when bash would keep it one word as it is: not
/// empty, no blank, no glob character, `IFS` not set by the text. A word with no expansion
/// stays as the view made it (`find -exec`'s `{}` is a literal word marked run-time).
fn constant_word(w: &Word<'_>, env: &Env<'_>, exported_only: bool) -> Option<String> {
    let mut out = String::new();
    let expands = w.parts.iter().any(|p| match p {
        WordPart::Param(_) | WordPart::CommandSubst(_) => true,
        WordPart::DoubleQuoted(inner) => inner
            .iter()
            .any(|p| matches!(p, WordPart::Param(_) | WordPart::CommandSubst(_))),
        _ => false,
    });
    let look = |name: &str| {
        let exported = || {
            env.inherited
                .get(name)
                .is_some_and(|e| e.source != EnvSource::Shell)
        };
        env.constant(name).filter(|_| !exported_only || exported())
    };
    (expands && constant_parts(w.parts, &look, env, false, &mut out)).then_some(out)
}

/// Whether a nested script of this kind runs in the shell that launched it (`eval`, `source`).
fn same_shell(kind: &OriginKind) -> bool {
    match kind {
        OriginKind::Eval => true,
        OriginKind::OtherShellString { program }
        | OriginKind::ShellC { shell: program }
        | OriginKind::ShellHeredoc { shell: program }
        | OriginKind::ShellHereString { shell: program }
        | OriginKind::ShellPipe { shell: program } => {
            matches!(program.as_str(), "source" | "." | "trap")
        }
        _ => false,
    }
}

fn constant_parts<'e>(
    parts: &[WordPart<'_>],
    look: &dyn Fn(&str) -> Option<&'e str>,
    env: &Env<'_>,
    quoted: bool,
    out: &mut String,
) -> bool {
    for p in parts {
        match p {
            WordPart::Literal(s) | WordPart::SingleQuoted(s) | WordPart::AnsiC(s) => {
                out.push_str(s)
            }
            WordPart::DoubleQuoted(inner) => {
                if !constant_parts(inner, look, env, true, out) {
                    return false;
                }
            }
            WordPart::Param(pe) if pe.index.is_none() && !pe.length && !pe.indirect => {
                let Some(set) = look(pe.name) else {
                    return false;
                };
                // `${B:-x}` / `${B-x}` of a set B: B, unless empty and the colon asks for x.
                let default;
                let v = match pe.op {
                    None => set,
                    Some(ParamOp::Default {
                        kind: '-',
                        colon,
                        word,
                    }) => {
                        if *colon && set.is_empty() {
                            let Some(d) = word.static_value() else {
                                return false;
                            };
                            default = d;
                            default.as_str()
                        } else {
                            set
                        }
                    }
                    Some(_) => return false,
                };
                if !quoted && (splits_unquoted(v) || env.inherited.get("IFS").is_some()) {
                    return false;
                }
                out.push_str(v);
            }
            // `$(echo main)`: output the text decides.
            WordPart::CommandSubst(cs) => {
                let Some(v) = substitution_output(cs) else {
                    return false;
                };
                if !quoted && (splits_unquoted(&v) || env.inherited.get("IFS").is_some()) {
                    return false;
                }
                out.push_str(&v);
            }
            _ => return false,
        }
    }
    true
}

/// The literal values the text assigns `name` anywhere; `None` when one assignment is not
/// literal, or a script the view could not read may set it.
fn assigned_values(env: &Env<'_>, name: &str) -> Option<Vec<String>> {
    let u = env.unpinned.as_ref()?;
    if u.all {
        return None;
    }
    Some(
        u.values
            .get(name)?
            .as_ref()?
            .iter()
            .map(|v| v.to_string())
            .collect(),
    )
}

/// Most values [`candidates`] lists for one word.
const MAX_CANDIDATES: usize = 16;

/// The values a run-time word may take when each part of it is literal text, a substitution
/// of known output, or a name the text gives only literal values (`B=feature/x; if ...; then
/// B=main; fi` gives `$B` the values `feature/x` and `main`). `None` when a part is decided
/// otherwise or there are too many. Not a proof that no other value is possible (the
/// environment the command starts with may hold one) unless `complete`: a guard uses it to find
/// a value its rule refuses, and allows on it only when complete.
pub(crate) fn candidates(w: &Word<'_>, env: &Env<'_>) -> Option<Candidates> {
    // A literal word marked run-time stands for something else (what `xargs` appends, `{}` of
    // `find -exec` or `xargs -I`, a remote helper's stdin): its text is not its value.
    if w.static_text().is_some() {
        return None;
    }
    let mut values = vec![String::new()];
    let mut complete = true;
    candidate_parts(w.parts, env, &mut values, &mut complete)?;
    Some(Candidates { values, complete })
}

fn candidate_parts(
    parts: &[WordPart<'_>],
    env: &Env<'_>,
    out: &mut Vec<String>,
    complete: &mut bool,
) -> Option<()> {
    for p in parts {
        let values: Vec<String> = match p {
            WordPart::Literal(s) | WordPart::SingleQuoted(s) | WordPart::AnsiC(s) => {
                vec![s.to_string()]
            }
            WordPart::DoubleQuoted(inner) => {
                candidate_parts(inner, env, out, complete)?;
                continue;
            }
            WordPart::CommandSubst(cs) => vec![substitution_output(cs)?],
            WordPart::Param(pe) if pe.index.is_none() && !pe.length && !pe.indirect => {
                // `${B:-main}`, `${B-main}`: the default is one value when B may be unset.
                let default = match pe.op {
                    None => None,
                    Some(ParamOp::Default {
                        kind: '-' | '=',
                        colon,
                        word,
                    }) => Some((*colon, word.static_value()?)),
                    Some(_) => return None,
                };
                match (env.constant(pe.name), default) {
                    (Some(v), None) => vec![v.to_string()],
                    (Some(v), Some((colon, d))) if v.is_empty() && colon => vec![d],
                    (Some(v), Some(_)) => vec![v.to_string()],
                    // A `for` variable in its own loop: one of the loop's words.
                    (None, None) if env.listed.iter().any(|n| n == pe.name) => {
                        assigned_values(env, pe.name)?
                    }
                    (None, default) => {
                        *complete = false;
                        let mut list: Vec<String> = assigned_values(env, pe.name)
                            .into_iter()
                            .flatten()
                            .collect();
                        if let Some((_, d)) = default {
                            list.push(d);
                        }
                        if list.is_empty() {
                            return None;
                        }
                        list
                    }
                }
            }
            _ => return None,
        };
        if out.len() * values.len() > MAX_CANDIDATES {
            return None;
        }
        *out = out
            .iter()
            .flat_map(|o| values.iter().map(move |v| format!("{o}{v}")))
            .collect();
    }
    Some(())
}
