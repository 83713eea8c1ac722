//! `gh-write-guard explain '<command>' [--cwd DIR] [--json] [--live]`: why a command is allowed
//! or denied, for a maintainer checking a false deny.
//!
//! Prints the parse (syntax errors, each unit: the command and scripts it runs by path), every
//! invocation the command view found, each requirement's verdict with its findings and
//! evidence, and the facts G6 and G7 used (repository kinds, aliases, targets, wait loops and
//! their bounds). Read-only: it runs the same decision core as the hook against the real world,
//! writes no audit record and fetches no branch rules unless `--live` (without it the world's
//! rules answer "not fetched", so G4 reports them as not determinable and names why).

use crate::analysis::{Analysis, Unit, UnitSource, Units};
use crate::context::Context;
use crate::finding::{Finding, Requirement, Verdict};
use crate::g6_primary_checkout::{self, Policy, Target};
use crate::g7_wait_loops;
use crate::hook::Process;
use crate::judge::{judge_analysis, Decision};
use crate::real_world::{RealWorld, RealWorldConfig};
use crate::world::World;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where the rules lookup goes without `--live`: a port nothing listens on.
const OFFLINE_API: &str = "http://127.0.0.1:9/";

/// Parsed `explain` arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub command: String,
    pub cwd: Option<PathBuf>,
    pub json: bool,
    pub live: bool,
}

/// Reads `'<command>' [--cwd DIR] [--json] [--live]` (options in any order).
pub fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut command = None;
    let mut cwd = None;
    let mut json = false;
    let mut live = false;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        match a {
            "--json" => json = true,
            "--live" => live = true,
            "--cwd" => {
                let d = args.get(i).ok_or("--cwd needs a directory")?;
                i += 1;
                cwd = Some(PathBuf::from(d));
            }
            _ if a.starts_with("--cwd=") => cwd = Some(PathBuf::from(&a[6..])),
            "--" => {
                command = args.get(i).cloned();
                break;
            }
            _ if a.starts_with("--") => return Err(format!("unknown option {a:?}")),
            _ if command.is_none() => command = Some(a.to_string()),
            _ => return Err(format!("unexpected argument {a:?} (quote the command)")),
        }
    }
    let command = command.ok_or("explain needs a command")?;
    if let Some(d) = &cwd {
        if !d.is_absolute() {
            return Err(format!("--cwd must be absolute: {}", d.display()));
        }
    }
    Ok(Options {
        command,
        cwd,
        json,
        live,
    })
}

/// Entry point of the `explain` subcommand; exit 0 allow, 1 deny, 2 usage.
pub fn run(args: &[String]) -> i32 {
    let opts = match parse_args(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("gh-write-guard: explain: {e} (see gh-write-guard --help)");
            return 2;
        }
    };
    let process = Process::current();
    let cx = Context {
        cwd: opts
            .cwd
            .clone()
            .or_else(|| process.process_cwd.clone())
            .unwrap_or_else(|| "/".into()),
        config: process.loaded.config.clone(),
        env: process.env.clone(),
        ..Default::default()
    };
    let (api, deadline) = if opts.live {
        (process.api_base_override(), process.rules_deadline())
    } else {
        (Some(OFFLINE_API.to_string()), Duration::from_millis(1))
    };
    let world = RealWorld::new(RealWorldConfig {
        env: process.env.clone(),
        api_base_override: api,
        rules_deadline: deadline,
        cache: std::sync::Arc::new(branch_rules::cache::MemoryCache::new()),
    });
    let report = explain(&opts.command, &cx, &world, opts.live);
    if opts.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report.json).unwrap_or_default()
        );
    } else {
        print!("{}", report.text);
    }
    i32::from(report.denied)
}

/// The branch rules of an offline explain: "not fetched", so it does not report a timeout for a
/// lookup it never made.
struct NotFetched;

impl branch_rules::Rules for NotFetched {
    fn rules_for(&self, _: &str, _: &str, _: &str, _: &str) -> branch_rules::RulesOutcome {
        branch_rules::RulesOutcome::Undeterminable(branch_rules::fetch::Cause::Transport(
            "not fetched: explain runs offline (add --live to ask GitHub)".into(),
        ))
    }
}

/// The explanation in both forms.
#[derive(Debug, Clone)]
pub struct Report {
    pub text: String,
    pub json: Value,
    pub denied: bool,
}

/// Explains one command against a world (pure apart from the world's lookups); without `live`
/// the branch rules are not asked.
pub fn explain(command: &str, cx: &Context, world: &dyn World, live: bool) -> Report {
    let units = Units::build(command, cx, world);
    let units = if live {
        units
    } else {
        units.with_rules(&NotFetched)
    };
    let analysis = Analysis::new(&units);
    let decision = judge_analysis(&analysis);
    let home = analysis.home();
    let mut out = Facts::default();

    out.text.push_str(&format!(
        "command: {command:?}\ncwd: {}\n",
        cx.cwd.display()
    ));
    out.text
        .push_str(&format!("cwd repository: {:?}\n", world.repo_kind(&cx.cwd)));
    if !live {
        out.text
            .push_str("rules: not fetched (offline; add --live to ask GitHub)\n");
    }
    for (i, unit) in analysis.units.iter().enumerate() {
        out.unit(i, unit, world, home.as_deref());
    }
    for s in analysis.unread_scripts {
        out.text
            .push_str(&format!("unread script {}: {}\n", s.path, s.cause));
    }
    let reqs = requirements(&mut out.text, &decision, cx);
    let denied = decision.deny().is_some();
    out.text.push_str(&format!(
        "\ndecision: {}\n",
        match decision.reason() {
            Some(r) => format!("deny: {r}"),
            None => "allow".into(),
        }
    ));
    let json = json!({
        "command": command,
        "cwd": cx.cwd.to_string_lossy(),
        "cwd_repo_kind": world.repo_kind(&cx.cwd),
        "live": live,
        "units": out.units,
        "unread_scripts": analysis.unread_scripts,
        "g6": out.g6,
        "g7": out.g7,
        "requirements": reqs,
        "decision": if denied { "deny" } else { "allow" },
        "code": decision.deny().and_then(|f| f.code),
        "reason": decision.reason(),
    });
    Report {
        text: out.text,
        json,
        denied,
    }
}

/// What `explain` gathers unit by unit: the text, and the JSON of the units and the G6/G7 facts.
#[derive(Default)]
struct Facts {
    text: String,
    units: Vec<Value>,
    g6: Vec<Value>,
    g7: Vec<Value>,
}

impl Facts {
    /// One unit: its source, syntax error, invocations, and the facts G6 and G7 used.
    fn unit(&mut self, i: usize, unit: &Unit, world: &dyn World, home: Option<&Path>) {
        let source = match &unit.source {
            UnitSource::Command => "the command".to_string(),
            UnitSource::Script { path, .. } => format!("script {}", path.display()),
            UnitSource::HandedShell { name, .. } => name.clone(),
        };
        self.text.push_str(&format!(
            "\n== unit {i}: {source} (in {})\n",
            unit.cwd.display()
        ));
        let error = unit.parsed().error.as_ref().map(|e| e.to_string());
        if let Some(e) = &error {
            self.text.push_str(&format!("syntax error: {e}\n"));
        }
        let view = invocations(unit);
        self.text.push_str("-- invocations\n");
        self.text.push_str(&view);
        self.g6_facts(i, unit, world, home);
        self.g7_facts(i, unit);
        self.units.push(json!({
            "source": source,
            "cwd": unit.cwd.to_string_lossy(),
            "syntax_error": error,
            "invocations": view,
        }));
    }

    /// Each git invocation's target, repository kind, aliases and what makes it mutating.
    fn g6_facts(&mut self, i: usize, unit: &Unit, world: &dyn World, home: Option<&Path>) {
        let verdicts = g6_primary_checkout::verdicts(unit, world, home);
        if !verdicts.is_empty() {
            self.text.push_str("-- G6 facts\n");
        }
        for v in &verdicts {
            // Explain looks the kind up even for reads, so the maintainer sees it.
            let kind = v.kind.or_else(|| match &v.target {
                Target::Dir(d) => Some(world.repo_kind(d)),
                Target::Unknown(_) => None,
            });
            let target = match &v.target {
                Target::Dir(d) => d.display().to_string(),
                Target::Unknown(why) => format!("unknown ({why})"),
            };
            self.text.push_str(&format!(
                "#{} git {}\n    target: {target}, repository: {}\n",
                v.invocation,
                v.argv.join(" "),
                kind.map(|k| format!("{k:?}")).unwrap_or_else(|| "?".into()),
            ));
            if !v.aliases.is_empty() {
                self.text
                    .push_str(&format!("    aliases: {}\n", v.aliases.join(" -> ")));
            }
            self.text.push_str(&format!(
                "    mutating: {}\n",
                v.mutating.as_deref().unwrap_or("no")
            ));
            let mut j = v.to_json();
            j["repo_kind"] = json!(kind);
            j["unit"] = json!(i);
            self.g6.push(j);
        }
    }

    /// Each wait loop and what bounds it.
    fn g7_facts(&mut self, i: usize, unit: &Unit) {
        let loops = g7_wait_loops::wait_loops(&unit.text, unit.parsed(), unit.view());
        if !loops.is_empty() {
            self.text.push_str("-- G7 facts\n");
        }
        for w in &loops {
            let bound = match &w.bound {
                Some(b) => format!("bounded: {b:?}"),
                None => "NO BOUND".to_string(),
            };
            self.text.push_str(&format!(
                "loop (depth {}): {:?}\n    {bound}",
                w.depth, w.text
            ));
            if let Some(n) = &w.note {
                self.text.push_str(&format!(" ({n})"));
            }
            self.text.push('\n');
            self.g7.push(json!({ "unit": i, "loop": w }));
        }
    }
}

/// Each invocation with the program bash runs (command-effects), and for a function call the
/// runs of its body with the call's arguments.
fn invocations(unit: &Unit) -> String {
    let funcs = command_effects::program::Functions::of(unit.view());
    let arena = bumpalo::Bump::new();
    shell_syntax::printer::print_view_with(unit.view(), &|inv| {
        let run = command_effects::resolve(&funcs, inv, &arena);
        let mut line = run.headline();
        if matches!(run.program, command_effects::Resolved::Function(_)) {
            for body in
                command_effects::program::function_body_runs(unit.view(), &funcs, &run, &arena)
            {
                line.push_str("\n    runs: ");
                line.push_str(&body.headline());
            }
        }
        Some(line)
    })
}

/// Each requirement's verdict with its findings (code, remedy, evidence), and G6's grant.
fn requirements(text: &mut String, decision: &Decision, cx: &Context) -> Value {
    let policy = Policy::new(
        cx.env(g6_primary_checkout::GRANT),
        cx.config.primary_checkout.as_ref(),
    );
    text.push_str("\n== requirements\n");
    let mut reqs = serde_json::Map::new();
    for r in Requirement::ALL {
        let mine: Vec<&Finding> = decision
            .findings
            .iter()
            .filter(|f| f.requirement == r)
            .collect();
        let denies = mine.iter().filter(|f| f.verdict == Verdict::Deny).count();
        let verdict = if denies > 0 { "deny" } else { "allow" };
        text.push_str(&format!("{}: {verdict}\n", r.id()));
        for f in &mine {
            let tag = if f.verdict == Verdict::Deny {
                "deny"
            } else {
                "note"
            };
            match f.code {
                Some(code) => text.push_str(&format!("    {tag} {code}: {}\n", f.refused)),
                None => text.push_str(&format!("    {tag}: {}\n", f.refused)),
            }
            if !f.remedy.is_empty() {
                text.push_str(&format!("        remedy: {}\n", f.remedy));
            }
            text.push_str(&format!("        evidence: {}\n", f.evidence));
        }
        if r == Requirement::G6 && (policy.granted || policy.grant_note.is_some()) {
            text.push_str(&format!(
                "    grant {}: {}\n",
                g6_primary_checkout::GRANT,
                policy
                    .grant_note
                    .clone()
                    .unwrap_or_else(|| "granted".into())
            ));
        }
        reqs.insert(
            r.id().to_string(),
            json!({ "verdict": verdict, "findings": mine }),
        );
    }
    Value::Object(reqs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn options_in_any_order() {
        let o = parse_args(&args(&["--json", "git status", "--cwd", "/r"])).expect("ok");
        assert_eq!(o.command, "git status");
        assert_eq!(o.cwd, Some(PathBuf::from("/r")));
        assert!(o.json && !o.live);
        assert!(parse_args(&args(&["--cwd", "rel", "x"])).is_err());
        assert!(parse_args(&args(&["--json"])).is_err());
        assert!(parse_args(&args(&["a", "b"])).is_err());
        let o = parse_args(&args(&["--live", "--", "--weird"])).expect("ok");
        assert_eq!(o.command, "--weird");
    }
}
