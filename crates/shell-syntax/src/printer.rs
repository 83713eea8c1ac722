//! A stable, indented text rendering of syntax trees and command views, for snapshot tests
//! and for `gh-write-guard explain`.
//!
//! Words print on one line: literal text as `'…'`-free tokens joined by `+` with a tag per
//! part (`lit"a"`, `sq'b'`, `dq"…"`, `$x`, `${x:-…}`, `$(#n)`, ...). Scripts inside a word
//! (substitutions) print below it, indented, labelled with the same `#n`.

use crate::ast::*;
use crate::view::{CommandView, Invocation, InvocationKind};
use crate::Parsed;
use std::fmt::Write;

/// Render a parse result: the tree and the error, if any.
pub fn print_parsed(p: &Parsed) -> String {
    let mut pr = Printer::default();
    pr.list(&p.script().body, 0);
    if let Some(e) = &p.error {
        let _ = writeln!(pr.out, "error: {} (unparsed from {})", e, e.unparsed_from);
    }
    pr.out
}

/// Render a command view: one block per invocation.
pub fn print_view(v: &CommandView<'_>) -> String {
    print_view_with(v, &|_| None)
}

/// [`print_view`] with each invocation's first line (`#N program "arg" ...`) given by
/// `headline` where it answers (a guard shows the program bash really runs there).
pub fn print_view_with(
    v: &CommandView<'_>,
    headline: &dyn Fn(&Invocation<'_>) -> Option<String>,
) -> String {
    let mut out = String::new();
    for inv in &v.invocations {
        let text = print_invocation(inv);
        match headline(inv) {
            Some(h) => {
                out.push_str(&h);
                out.push('\n');
                out.push_str(text.split_once('\n').map(|(_, rest)| rest).unwrap_or(""));
            }
            None => out.push_str(&text),
        }
    }
    for o in &v.origins {
        let _ = writeln!(
            out,
            "origin#{} {:?} launcher=#{} parent={:?} approximate={} text={:?}",
            o.id, o.kind, o.launcher, o.parent, o.approximate, o.text
        );
    }
    for e in &v.nested_errors {
        let _ = writeln!(out, "nested error in origin#{}: {}", e.origin, e.error);
    }
    for l in &v.loops {
        let _ = writeln!(
            out,
            "loop#{} {:?} span={}..{} origin={} cond_cmds={:?} body_cmds={:?} redirects={}",
            l.id,
            l.kind,
            l.span.start,
            l.span.end,
            l.origin_depth,
            l.condition_invocations,
            l.body_invocations,
            l.redirects.len()
        );
    }
    if let Some(e) = &v.error {
        let _ = writeln!(out, "view error: {e}");
    }
    out
}

/// Render one invocation on a few lines.
pub fn print_invocation(inv: &Invocation<'_>) -> String {
    let mut out = String::new();
    let _ = write!(out, "#{} {}", inv.index, inv.program);
    for a in &inv.args {
        let _ = write!(out, " {a}");
    }
    out.push('\n');
    let mut line = |label: &str, text: String| {
        if !text.is_empty() {
            let _ = writeln!(out, "    {label}: {text}");
        }
    };
    line(
        "wrappers",
        inv.wrappers
            .iter()
            .map(|w| {
                let mut s = w.name.clone();
                for a in &w.args {
                    s.push(' ');
                    s.push_str(&a.to_string());
                }
                s
            })
            .collect::<Vec<_>>()
            .join(" | "),
    );
    line(
        "env",
        inv.env
            .iter()
            .map(|e| format!("{}={} ({:?})", e.name, e.value_display(), e.source))
            .collect::<Vec<_>>()
            .join(", "),
    );
    line("redirects", comma_separated(&inv.redirects));
    line("cds", comma_separated(&inv.cds));
    line("context", inv.context.to_string());
    line(
        "origin",
        inv.origin
            .iter()
            .map(|o| format!("#{o}"))
            .collect::<Vec<_>>()
            .join(" > "),
    );
    if inv.args_incomplete {
        line("args", "incomplete (more added at run time)".into());
    }
    if inv.kind != InvocationKind::Simple {
        line("kind", format!("{:?}", inv.kind));
    }
    out
}

#[derive(Default)]
struct Printer {
    out: String,
}

impl Printer {
    fn line(&mut self, depth: usize, s: &str) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn list(&mut self, l: &List<'_>, d: usize) {
        for item in l.items {
            let term = match item.terminator {
                Terminator::Semi => ";",
                Terminator::Amp => "&",
                Terminator::Newline => "\\n",
                Terminator::None => "",
            };
            let ao = &item.and_or;
            if ao.rest.is_empty() {
                self.pipeline(&ao.first, d, term);
            } else {
                self.line(d, &format!("and_or {term}"));
                self.pipeline(&ao.first, d + 1, "");
                for (op, p) in ao.rest {
                    let op = match op {
                        AndOrOp::And => "&&",
                        AndOrOp::Or => "||",
                    };
                    self.pipeline(p, d + 1, op);
                }
            }
        }
    }

    fn pipeline(&mut self, p: &Pipeline<'_>, d: usize, tag: &str) {
        let mut head = String::new();
        if let Some(t) = p.time {
            head.push_str(if t.posix { "time -p " } else { "time " });
        }
        for _ in 0..p.negations {
            head.push_str("! ");
        }
        if p.commands.len() == 1 && head.is_empty() {
            self.command(&p.commands[0].command, d, tag);
            return;
        }
        self.line(d, format!("pipeline {head}{tag}").trim_end());
        for e in p.commands {
            self.command(&e.command, d + 1, if e.pipe_stderr { "|&" } else { "" });
        }
    }

    fn command(&mut self, c: &Command<'_>, d: usize, tag: &str) {
        let tag = if tag.is_empty() {
            String::new()
        } else {
            format!(" {tag}")
        };
        match c {
            Command::Simple(s) => {
                let mut parts = Vec::new();
                for a in s.assignments {
                    parts.push(self.assignment(a));
                }
                for w in s.words {
                    parts.push(word(w));
                }
                self.line(d, &format!("cmd{tag} {}", parts.join(" ")));
                self.nested_assign(s.assignments, d + 1);
                for w in s.words {
                    self.nested(w, d + 1);
                }
                self.redirects(s.redirects, d + 1);
            }
            Command::Compound(cc) => self.compound(cc, d, &tag),
            Command::Function(f) => {
                self.line(d, &format!("function {}{tag}", f.name));
                self.compound(f.body, d + 1, "");
                self.redirects(f.redirects, d + 1);
            }
            Command::Coproc(co) => {
                let name = co.name.unwrap_or("-");
                self.line(d, &format!("coproc {name}{tag}"));
                self.command(co.body, d + 1, "");
            }
        }
    }

    fn assignment(&self, a: &Assignment<'_>) -> String {
        let idx = a
            .index
            .as_ref()
            .map(|i| format!("[{}]", word(i)))
            .unwrap_or_default();
        let op = if a.append { "+=" } else { "=" };
        let v = match &a.value {
            AssignValue::Scalar(w) => word(w),
            AssignValue::Array(ws) => {
                format!("({})", ws.iter().map(word).collect::<Vec<_>>().join(" "))
            }
        };
        format!("{}{idx}{op}{v}", a.name)
    }

    fn nested_assign(&mut self, asg: &[Assignment<'_>], d: usize) {
        for a in asg {
            match &a.value {
                AssignValue::Scalar(w) => self.nested(w, d),
                AssignValue::Array(ws) => ws.iter().for_each(|w| self.nested(w, d)),
            }
        }
    }

    fn compound(&mut self, cc: &CompoundCommand<'_>, d: usize, tag: &str) {
        match &cc.kind {
            CompoundKind::Brace(l) => {
                self.line(d, &format!("brace{tag}"));
                self.list(l, d + 1);
            }
            CompoundKind::Subshell(l) => {
                self.line(d, &format!("subshell{tag}"));
                self.list(l, d + 1);
            }
            CompoundKind::If(i) => {
                self.line(d, &format!("if{tag}"));
                for (n, (c, b)) in i.branches.iter().enumerate() {
                    self.line(d + 1, if n == 0 { "cond" } else { "elif" });
                    self.list(c, d + 2);
                    self.line(d + 1, "then");
                    self.list(b, d + 2);
                }
                if let Some(e) = &i.else_body {
                    self.line(d + 1, "else");
                    self.list(e, d + 2);
                }
            }
            CompoundKind::While(w) => {
                self.line(
                    d,
                    &format!("{}{tag}", if w.until { "until" } else { "while" }),
                );
                self.line(d + 1, "cond");
                self.list(&w.condition, d + 2);
                self.line(d + 1, "do");
                self.list(&w.body, d + 2);
            }
            CompoundKind::For(f) | CompoundKind::Select(f) => {
                let kw = if matches!(cc.kind, CompoundKind::Select(_)) {
                    "select"
                } else {
                    "for"
                };
                let items = match f.items {
                    Some(ws) => {
                        format!(" in {}", ws.iter().map(word).collect::<Vec<_>>().join(" "))
                    }
                    None => String::new(),
                };
                self.line(d, &format!("{kw} {}{items}{tag}", f.var));
                if let Some(ws) = f.items {
                    ws.iter().for_each(|w| self.nested(w, d + 1));
                }
                self.line(d + 1, "do");
                self.list(&f.body, d + 2);
            }
            CompoundKind::ArithFor(f) => {
                self.line(
                    d,
                    &format!(
                        "for (({:?}; {:?}; {:?})){tag}",
                        f.init.raw, f.condition.raw, f.step.raw
                    ),
                );
                self.line(d + 1, "do");
                self.list(&f.body, d + 2);
            }
            CompoundKind::Case(c) => {
                self.line(d, &format!("case {}{tag}", word(&c.subject)));
                self.nested(&c.subject, d + 1);
                for arm in c.arms {
                    let pats = arm
                        .patterns
                        .iter()
                        .map(word)
                        .collect::<Vec<_>>()
                        .join(" | ");
                    let t = match arm.terminator {
                        CaseTerminator::Break => ";;",
                        CaseTerminator::FallThrough => ";&",
                        CaseTerminator::Continue => ";;&",
                        CaseTerminator::None => "",
                    };
                    self.line(d + 1, format!("arm {pats} {t}").trim_end());
                    self.list(&arm.body, d + 2);
                }
            }
            CompoundKind::Test(ws) => {
                let s = ws.iter().map(word).collect::<Vec<_>>().join(" ");
                self.line(d, &format!("[[ {s} ]]{tag}"));
                ws.iter().for_each(|w| self.nested(w, d + 1));
            }
            CompoundKind::Arith(e) => {
                self.line(d, &format!("(( {:?} )){tag}", e.raw));
                self.nested_parts(e.parts, d + 1);
            }
        }
        self.redirects(cc.redirects, d + 1);
    }

    fn redirects(&mut self, rs: &[Redirect<'_>], d: usize) {
        for r in rs {
            let fd = match (&r.fd, &r.fd_var) {
                (Some(n), _) => n.to_string(),
                (None, Some(v)) => format!("{{{v}}}"),
                _ => String::new(),
            };
            self.line(
                d,
                &format!("redir {fd}{} {}", r.op.as_str(), word(&r.target)),
            );
            self.nested(&r.target, d + 1);
            if let Some(h) = &r.heredoc {
                self.line(
                    d + 1,
                    &format!(
                        "heredoc delim={:?} quoted={} strip={} unterminated={} body={}",
                        h.delimiter,
                        h.quoted,
                        h.strip_tabs,
                        h.unterminated,
                        word(&h.body)
                    ),
                );
                self.nested(&h.body, d + 2);
            }
        }
    }

    /// Print the scripts nested in a word (substitutions) below it.
    fn nested(&mut self, w: &Word<'_>, d: usize) {
        self.nested_parts(w.parts, d);
    }

    fn nested_parts(&mut self, parts: &[WordPart<'_>], d: usize) {
        for p in parts {
            match p {
                WordPart::DoubleQuoted(ps) | WordPart::Locale(ps) => self.nested_parts(ps, d),
                WordPart::CommandSubst(cs) => {
                    self.line(d, if cs.backtick { "`…`:" } else { "$(…):" });
                    self.list(&cs.script.body, d + 1);
                }
                WordPart::ProcessSubst { output, script } => {
                    self.line(d, if *output { ">(…):" } else { "<(…):" });
                    self.list(&script.body, d + 1);
                }
                WordPart::Param(pe) => {
                    if let Some(i) = pe.index {
                        self.nested(i, d);
                    }
                    for w in param_words(pe).into_iter().flatten() {
                        self.nested(w, d);
                    }
                }
                WordPart::Arith(e) => self.nested_parts(e.parts, d),
                WordPart::Brace(b) => b.alternatives.iter().for_each(|w| self.nested(w, d)),
                WordPart::ArrayLiteral(ws) => ws.iter().for_each(|w| self.nested(w, d)),
                _ => {}
            }
        }
    }
}

/// Each item displayed, joined with `, `.
fn comma_separated<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The words inside a parameter operator, in order (at most two; no allocation: the view
/// asks for every expansion it visits).
pub(crate) fn param_words<'a>(pe: &ParamExp<'a>) -> [Option<&'a Word<'a>>; 2] {
    match pe.op {
        Some(ParamOp::Default { word, .. }) => [Some(word), None],
        Some(ParamOp::RemovePrefix { pattern, .. })
        | Some(ParamOp::RemoveSuffix { pattern, .. })
        | Some(ParamOp::Case { pattern, .. }) => [Some(pattern), None],
        Some(ParamOp::Replace {
            pattern,
            replacement,
            ..
        }) => [Some(pattern), replacement.as_ref()],
        Some(ParamOp::Substring { offset, length }) => [Some(offset), length.as_ref()],
        _ => [None, None],
    }
}

/// One-line rendering of a word with its parts tagged.
pub fn word(w: &Word<'_>) -> String {
    if w.parts.is_empty() {
        return "<empty>".into();
    }
    parts(w.parts)
}

fn parts(ps: &[WordPart<'_>]) -> String {
    ps.iter().map(part).collect::<Vec<_>>().join("+")
}

fn part(p: &WordPart<'_>) -> String {
    match p {
        WordPart::Literal(s) => format!("{s:?}"),
        WordPart::SingleQuoted(s) => format!("sq{s:?}"),
        WordPart::DoubleQuoted(ps) => format!("dq[{}]", parts(ps)),
        WordPart::AnsiC(s) => format!("ansi{s:?}"),
        WordPart::Locale(ps) => format!("locale[{}]", parts(ps)),
        WordPart::Param(pe) => param(pe),
        WordPart::CommandSubst(cs) => {
            if cs.backtick {
                "`…`".into()
            } else {
                "$(…)".into()
            }
        }
        WordPart::Arith(e) => format!("$(({:?}))", e.raw),
        WordPart::ProcessSubst { output, .. } => {
            if *output {
                ">(…)".into()
            } else {
                "<(…)".into()
            }
        }
        WordPart::Glob(g) => format!("glob{g:?}"),
        WordPart::ExtGlob { op, pattern } => format!("extglob{op}({pattern:?})"),
        WordPart::Brace(b) => format!(
            "brace{{{}}}",
            b.alternatives
                .iter()
                .map(word)
                .collect::<Vec<_>>()
                .join(if b.sequence { ".." } else { "," })
        ),
        WordPart::Tilde(u) => format!("~{u}"),
        WordPart::ArrayLiteral(ws) => {
            format!(
                "array({})",
                ws.iter().map(word).collect::<Vec<_>>().join(" ")
            )
        }
    }
}

fn param(pe: &ParamExp<'_>) -> String {
    if !pe.braced {
        return format!("${}", pe.name);
    }
    let mut s = String::from("${");
    if pe.length {
        s.push('#');
    }
    if pe.indirect {
        s.push('!');
    }
    s.push_str(pe.name);
    if let Some(i) = pe.index {
        let _ = write!(s, "[{}]", word(i));
    }
    match pe.op {
        None => {}
        Some(ParamOp::Default {
            colon,
            kind,
            word: w,
        }) => {
            let _ = write!(s, "{}{kind}{}", if *colon { ":" } else { "" }, word(w));
        }
        Some(ParamOp::RemovePrefix { longest, pattern }) => {
            let _ = write!(s, "{}{}", if *longest { "##" } else { "#" }, word(pattern));
        }
        Some(ParamOp::RemoveSuffix { longest, pattern }) => {
            let _ = write!(s, "{}{}", if *longest { "%%" } else { "%" }, word(pattern));
        }
        Some(ParamOp::Replace {
            mode,
            pattern,
            replacement,
        }) => {
            let m = match mode {
                ReplaceMode::First => "/",
                ReplaceMode::All => "//",
                ReplaceMode::Prefix => "/#",
                ReplaceMode::Suffix => "/%",
            };
            let _ = write!(s, "{m}{}", word(pattern));
            if let Some(r) = replacement {
                let _ = write!(s, "/{}", word(r));
            }
        }
        Some(ParamOp::Substring { offset, length }) => {
            let _ = write!(s, ":{}", word(offset));
            if let Some(l) = length {
                let _ = write!(s, ":{}", word(l));
            }
        }
        Some(ParamOp::Case { op, pattern }) => {
            let _ = write!(s, "{op}{}", word(pattern));
        }
        Some(ParamOp::Transform(c)) => {
            let _ = write!(s, "@{c}");
        }
        Some(ParamOp::PrefixNames(c)) => s.push(*c),
    }
    s.push('}');
    s
}
