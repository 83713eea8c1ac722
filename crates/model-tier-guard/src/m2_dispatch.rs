//! M2 (with M1 and M5): a subagent dispatch (PreToolUse `Agent` / `Task`).
//!
//! Resolves the model the subagent would really run on, in the CLI's order (2.1.251+):
//! `CLAUDE_CODE_SUBAGENT_MODEL_FORCE` set → `CLAUDE_CODE_SUBAGENT_MODEL`; else the call's `model`;
//! else the definition's `model:` (`inherit` = the main model); else `CLAUDE_CODE_SUBAGENT_MODEL`;
//! else the main model. A call that may be a fork (no `subagent_type`, or `fork`) is judged on
//! the main model *and* on any model it names, since either may be what runs. Each candidate is
//! then checked: maintainer-only tier without the grant (M2), a main model that cannot be learned
//! (M1), and escalation above the main model in a tainted session (M5, granted or not).
//!
//! When nothing names the main model, the session runs on the CLI's default; inheriting it is
//! judged on every model the default may be (M1): allowed when none is maintainer-only.

use crate::agents::AgentDef;
use crate::m1_tiers::{describe, Family, TierPolicy};
use crate::main_model::MainKnowledge;
use crate::model_aliases::{self, AliasEnv};
use crate::{codes, Finding};
use safety_kernel::{denial_switch, feedback::reason, Grant};
use serde_json::{json, Value};
use taint::TaintState;

/// What the hook learned for one dispatch.
#[derive(Debug, Clone)]
pub struct DispatchFacts {
    /// The call's `model`, if any.
    pub call_model: Option<String>,
    /// The call's `subagent_type`, if any.
    pub subagent_type: Option<String>,
    /// The definition the CLI would use for `subagent_type`.
    pub definition: Option<AgentDef>,
    /// `CLAUDE_CODE_SUBAGENT_MODEL`.
    pub env_model: Option<String>,
    /// `CLAUDE_CODE_SUBAGENT_MODEL_FORCE` as written.
    pub env_force: Option<String>,
    /// The alias variables of the CLI's environment: where `opus` & co. really point.
    pub aliases: AliasEnv,
    pub main: MainKnowledge,
    pub grant: Grant,
    pub taint: TaintState,
}

/// One model the subagent may run on, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// `None`: the main model, which could not be learned.
    pub model: Option<String>,
    pub source: String,
    pub inherits_main: bool,
    /// The main model was named nowhere; this is one model the CLI's default may be.
    pub from_cli_default: bool,
    /// The M2 code its refusal on the tier carries (which source named it).
    pub code: &'static str,
}

/// A model the call, a definition or `CLAUDE_CODE_SUBAGENT_MODEL` names: the name as written
/// and, for an alias, every model the alias variables point it at.
fn push_named(
    out: &mut Vec<Candidate>,
    model: &str,
    source: &str,
    code: &'static str,
    aliases: &AliasEnv,
) {
    for meaning in model_aliases::possible(model, aliases) {
        let source = match meaning.note(model) {
            Some(note) => format!("{source}, {note}"),
            None => source.to_string(),
        };
        out.push(Candidate {
            model: Some(meaning.model),
            source,
            inherits_main: false,
            from_cli_default: false,
            code,
        });
    }
}

/// The main model as candidates: the one named, every model the CLI's default may be, or one
/// that could not be learned.
fn main_candidates(main: &MainKnowledge, why: &str, out: &mut Vec<Candidate>) {
    let inherit = |model: Option<String>, source: String| Candidate {
        model,
        source,
        inherits_main: true,
        from_cli_default: matches!(main, MainKnowledge::CliDefault(_)),
        code: codes::M2_INHERIT,
    };
    match main {
        MainKnowledge::Unknown(_) => out.push(inherit(None, format!("{why}: the main model"))),
        _ => out.extend(main.possible().iter().map(|m| {
            inherit(
                Some(m.model.clone()),
                format!("{why}: the main model (from {})", m.source),
            )
        })),
    }
}

/// Every model the subagent may run on.
pub fn candidates(f: &DispatchFacts) -> Vec<Candidate> {
    let mut out = Vec::new();
    // `inherit` in CLAUDE_CODE_SUBAGENT_MODEL means unset (the CLI since 2.1.196), as does "".
    let env_model = f
        .env_model
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty() && !m.eq_ignore_ascii_case("inherit"));
    let may_fork = matches!(f.subagent_type.as_deref(), None | Some("") | Some("fork"));
    if may_fork {
        main_candidates(&f.main, "a fork inherits", &mut out);
    }
    let forced = denial_switch(f.env_force.as_deref());
    if let (true, Some(m)) = (forced, env_model) {
        push_named(
            &mut out,
            m,
            "CLAUDE_CODE_SUBAGENT_MODEL (forced)",
            codes::M2_SUBAGENT_ENV,
            &f.aliases,
        );
        // A value the CLI may not read as "on" leaves the normal order in play too.
        if safety_kernel::grant(f.env_force.as_deref()).is_granted() {
            return out;
        }
    }
    if f.subagent_type.as_deref() == Some("fork") {
        return out;
    }
    if let Some(m) = f.call_model.as_deref().filter(|m| !m.is_empty()) {
        push_named(
            &mut out,
            m,
            "the call's model",
            codes::M2_CALL_MODEL,
            &f.aliases,
        );
        return out;
    }
    if let Some(def) = &f.definition {
        match def.model.as_deref() {
            Some(m) if m.eq_ignore_ascii_case("inherit") => {
                if !may_fork {
                    main_candidates(&f.main, "the definition says inherit", &mut out);
                }
                return out;
            }
            Some(m) => {
                // The last folders only: the reason stays within the K4 bound (the full path is
                // in the audit record's `definition`).
                let parts: Vec<String> = def
                    .path
                    .components()
                    .rev()
                    .take(3)
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                let file = parts.into_iter().rev().collect::<Vec<_>>().join("/");
                let source = format!("the {} definition {file}", def.scope.as_str());
                push_named(&mut out, m, &source, codes::M2_DEFINITION, &f.aliases);
                return out;
            }
            None => {}
        }
    }
    if let Some(m) = env_model {
        push_named(
            &mut out,
            m,
            "CLAUDE_CODE_SUBAGENT_MODEL",
            codes::M2_SUBAGENT_ENV,
            &f.aliases,
        );
        return out;
    }
    if !may_fork {
        main_candidates(&f.main, "no model named", &mut out);
    }
    out
}

/// M5: whether running on `family` is above the main model (an unknown main model: always; the
/// CLI's default: above the lowest model it may be).
pub fn escalates(family: &Family, main: &MainKnowledge) -> bool {
    main.escalation_floor()
        .is_none_or(|floor| family.rank() > floor)
}

/// What the maintainer can set so that the main model is known, for reasons and warnings.
pub const NAME_THE_MAIN_MODEL: &str =
    "the maintainer can set the session's model: `claude --model`, ANTHROPIC_MODEL or settings `model`";

/// Decides a dispatch.
pub fn decide(f: &DispatchFacts, tiers: &TierPolicy) -> Finding {
    let cands = candidates(f);
    let mut violations: Vec<(&'static str, String)> = Vec::new();
    let mut warning = None;
    for c in &cands {
        if let Some(v) = judge_candidate(c, f, tiers, &mut warning) {
            violations.push(v);
        }
    }
    let evidence = evidence(f, &cands, &violations);
    // The tier itself first, then escalation, then the unknown main model.
    let order = ["M2", "M5", "M1"];
    let first = order.iter().find_map(|id| {
        violations
            .iter()
            .find(|(code, _)| codes::requirement(code) == *id)
    });
    let mut finding = Finding::quiet("M2", evidence);
    finding.warning = warning;
    if let Some((code, reason)) = first {
        finding.refuse(code, reason.clone());
    }
    finding
}

/// One candidate's violation (its code and reason), if any; sets `warning` for what the user
/// should know about the main model.
fn judge_candidate(
    c: &Candidate,
    f: &DispatchFacts,
    tiers: &TierPolicy,
    warning: &mut Option<String>,
) -> Option<(&'static str, String)> {
    let granted = f.grant.is_granted();
    let Some(model) = c.model.as_deref() else {
        if granted {
            // The grant allows every tier, so the unknown main model has nothing left to be
            // refused for; escalation after taint compares with the main model itself.
            return None;
        }
        if let MainKnowledge::Unknown(why) = &f.main {
            *warning = Some(format!(
                "model-tier-guard: the session's model could not be learned ({why}), so subagents that would inherit it are refused; {NAME_THE_MAIN_MODEL}."
            ));
        }
        let code = codes::M1_UNKNOWN_MAIN;
        return Some((
            code,
            reason(
                code,
                "this dispatch would inherit the session's main model, which could not be learned",
                &format!(
                    "Name an explicit model (one of {}) and a subagent_type in the Agent call (without one it may run as a fork on the main model); {NAME_THE_MAIN_MODEL}.",
                    tiers.permitted()
                ),
            ),
        ));
    };
    let family = Family::of(model);
    // A family-less model the default may be was set by the launcher (a gateway's id in
    // ANTHROPIC_DEFAULT_*_MODEL): the warning below, as for a named main model.
    if c.from_cli_default && family.is_known() && tiers.is_restricted(&family) && !granted {
        // Not learned, only possible: the session may well run elsewhere, but may run here.
        *warning = Some(format!(
            "model-tier-guard: nothing names this session's model, and the CLI's default may be {model:?}, a maintainer-only tier here; {NAME_THE_MAIN_MODEL}."
        ));
        let code = codes::M1_CLI_DEFAULT;
        return Some((
            code,
            reason(
                code,
                &format!(
                    "this dispatch would inherit the session's main model, which nothing names yet; the CLI's default may be {model:?} ({family}, {}), a maintainer-only tier",
                    f.main
                        .possible()
                        .iter()
                        .find(|m| m.model == model)
                        .map_or("", |m| m.source.as_str())
                ),
                &format!(
                    "Name an explicit model (one of {}) and a subagent_type in the Agent call; {NAME_THE_MAIN_MODEL}.",
                    tiers.permitted()
                ),
            ),
        ));
    }
    if c.inherits_main && !family.is_known() {
        *warning = Some(format!(
            "model-tier-guard: the main model {model:?} is of no known family; subagents inherit it"
        ));
    } else if tiers.is_restricted(&family) && !granted {
        let mut remedy = format!(
            "Dispatch on a permitted tier instead ({}); only the maintainer can grant {} in the session's launch environment.",
            tiers.permitted(),
            restricted_label(tiers, &family)
        );
        if let Some(n) = f.grant.note(crate::host::GRANT_VAR) {
            remedy.push_str(&format!(" {n}."));
        }
        let refused = format!(
            "this Agent call would run the subagent on {}, a maintainer-only tier ({})",
            describe(model, &family),
            c.source
        );
        return Some((c.code, reason(c.code, &refused, &remedy)));
    }
    if f.taint.tainted && !c.inherits_main && escalates(&family, &f.main) {
        let code = codes::M5_DISPATCH;
        return Some((
            code,
            reason(
                code,
                &format!(
                    "this session has read untrusted content, so it may not dispatch above its main model ({}); {} was asked",
                    f.main.label(),
                    describe(model, &family)
                ),
                "Dispatch without a model to inherit the main model, or name the main model's tier or a lower one.",
            ),
        ));
    }
    None
}

/// The audit evidence of a dispatch: every candidate and what was found.
fn evidence(
    f: &DispatchFacts,
    cands: &[Candidate],
    violations: &[(&'static str, String)],
) -> Value {
    json!({
        "candidates": cands.iter().map(|c| json!({
            "model": c.model, "source": c.source, "inherits_main": c.inherits_main,
            "from_cli_default": c.from_cli_default,
            "family": c.model.as_deref().map(|m| Family::of(m).name().to_string()),
        })).collect::<Vec<Value>>(),
        "call_model": f.call_model,
        "subagent_type": f.subagent_type,
        "definition": f.definition.as_ref().map(|d| json!({
            "name": d.name, "model": d.model, "path": d.path.display().to_string(), "scope": d.scope.as_str()
        })),
        "main_model": f.main.evidence(),
        "granted": f.grant.is_granted(),
        "grant_note": f.grant.note(crate::host::GRANT_VAR),
        "tainted": f.taint.tainted,
        "taint_first": f.taint.first,
        "violations": violations.iter().map(|(code, _)| codes::requirement(code)).collect::<Vec<_>>(),
        "violation_codes": violations.iter().map(|(code, _)| *code).collect::<Vec<_>>(),
    })
}

fn restricted_label(tiers: &TierPolicy, family: &Family) -> String {
    if family.is_known() {
        family.name().to_string()
    } else {
        let names = tiers.restricted_names();
        if names.is_empty() {
            "unknown model families".into()
        } else {
            format!("{names} or unknown model families")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::Scope;
    use crate::main_model::MainModel;
    use std::path::PathBuf;

    fn facts() -> DispatchFacts {
        DispatchFacts {
            call_model: None,
            subagent_type: Some("rev".into()),
            definition: None,
            env_model: None,
            env_force: None,
            aliases: AliasEnv::default(),
            main: MainKnowledge::Known(MainModel::new("claude-opus-5-5", "transcript")),
            grant: Grant::NotSet,
            taint: TaintState {
                tainted: false,
                count: 0,
                first: None,
            },
        }
    }

    fn def(model: Option<&str>) -> Option<AgentDef> {
        Some(AgentDef {
            name: "rev".into(),
            model: model.map(Into::into),
            path: PathBuf::from("/p/.claude/agents/rev.md"),
            scope: Scope::Project,
        })
    }

    fn models(f: &DispatchFacts) -> Vec<Option<String>> {
        candidates(f).into_iter().map(|c| c.model).collect()
    }

    /// Checks that `d` is a deny under `requirement` whose reason says each of `words`.
    fn assert_denied(d: &Finding, requirement: &str, words: &[&str]) {
        assert_eq!(d.requirement, requirement);
        let r = d.deny.as_deref().expect("a deny");
        assert!(words.iter().all(|w| r.contains(w)), "{r}");
    }

    #[test]
    fn resolution_order() {
        let mut f = facts();
        assert_eq!(models(&f), vec![Some("claude-opus-5-5".into())]);
        f.env_model = Some("sonnet".into());
        assert_eq!(models(&f), vec![Some("sonnet".into())]);
        f.definition = def(Some("haiku"));
        assert_eq!(models(&f), vec![Some("haiku".into())]);
        f.call_model = Some("fable".into());
        assert_eq!(models(&f), vec![Some("fable".into())]);
        f.env_force = Some("1".into());
        assert_eq!(models(&f), vec![Some("sonnet".into())]);
        f.env_force = Some("maybe".into());
        assert_eq!(
            models(&f),
            vec![Some("sonnet".into()), Some("fable".into())]
        );
        let mut f = facts();
        f.definition = def(Some("inherit"));
        f.env_model = Some("haiku".into());
        assert_eq!(models(&f), vec![Some("claude-opus-5-5".into())]);
    }

    #[test]
    fn every_named_alias_is_judged_on_where_the_environment_points_it() {
        let tiers = TierPolicy::default();
        let retargeted = |f: &mut DispatchFacts| {
            f.aliases
                .set("ANTHROPIC_DEFAULT_OPUS_MODEL", Some("claude-fable-5"))
        };
        type Setter = fn(&mut DispatchFacts);
        let setters: [(Setter, &str); 4] = [
            (|f| f.call_model = Some("opus".into()), "the call's model"),
            (|f| f.definition = def(Some("opus")), "project definition"),
            (
                |f| f.env_model = Some("opus".into()),
                "CLAUDE_CODE_SUBAGENT_MODEL",
            ),
            (
                |f| {
                    f.env_model = Some("opus".into());
                    f.env_force = Some("1".into());
                    f.call_model = Some("haiku".into());
                },
                "(forced)",
            ),
        ];
        for (set, source) in setters {
            let mut f = facts();
            set(&mut f);
            assert!(decide(&f, &tiers).deny.is_none(), "{source}");
            retargeted(&mut f);
            assert!(models(&f).contains(&Some("claude-fable-5".into())));
            let d = decide(&f, &tiers);
            let r = d.deny.unwrap_or_default();
            assert!(
                r.starts_with("M2.") && r.contains("claude-fable-5") && r.contains(source),
                "{source}: {r}"
            );
            // The audit record names the variable.
            assert!(
                d.evidence
                    .to_string()
                    .contains("ANTHROPIC_DEFAULT_OPUS_MODEL"),
                "{source}"
            );
        }
        // A restricted alias pointed lower stays refused; a family-less target fails closed.
        let mut f = facts();
        f.call_model = Some("fable".into());
        f.aliases
            .set("ANTHROPIC_DEFAULT_FABLE_MODEL", Some("claude-haiku-5"));
        assert!(decide(&f, &tiers).deny.is_some());
        let mut f = facts();
        f.call_model = Some("sonnet".into());
        f.aliases
            .set("ANTHROPIC_DEFAULT_SONNET_MODEL", Some("gw-7"));
        let r = decide(&f, &tiers).deny.unwrap_or_default();
        assert!(r.contains("no known model family"), "{r}");
    }

    #[test]
    fn forks_are_judged_on_the_main_model_and_what_they_name() {
        let mut f = facts();
        f.subagent_type = None;
        f.call_model = Some("haiku".into());
        assert_eq!(
            models(&f),
            vec![Some("claude-opus-5-5".into()), Some("haiku".into())]
        );
        f.subagent_type = Some("fork".into());
        assert_eq!(models(&f), vec![Some("claude-opus-5-5".into())]);
    }

    #[test]
    fn tier_grant_and_unknown_families() {
        let tiers = TierPolicy::default();
        let mut f = facts();
        f.call_model = Some("fable".into());
        assert_denied(&decide(&f, &tiers), "M2", &["haiku, sonnet, opus"]);
        f.grant = Grant::Granted;
        assert!(decide(&f, &tiers).deny.is_none());
        f.grant = Grant::Unrecognised("tru".into());
        let r = decide(&f, &tiers).deny.unwrap();
        assert!(r.contains("not recognised"), "{r}");
        f.grant = Grant::NotSet;
        f.call_model = Some("gpt-9".into());
        let r = decide(&f, &tiers).deny.unwrap();
        assert!(r.contains("no known model family"), "{r}");
        f.call_model = Some("haiku".into());
        assert!(decide(&f, &tiers).deny.is_none());
    }

    #[test]
    fn unknown_main_model_denies_an_inheriting_dispatch() {
        let tiers = TierPolicy::default();
        let mut f = facts();
        f.main = MainKnowledge::Unknown("settings x could not be read".into());
        let d = decide(&f, &tiers);
        assert_denied(&d, "M1", &["explicit model", "ANTHROPIC_MODEL"]);
        // The maintainer is told why and what to set.
        let w = d.warning.unwrap();
        assert!(
            w.contains("settings x could not be read") && w.contains("--model"),
            "{w}"
        );
        f.call_model = Some("sonnet".into());
        assert!(decide(&f, &tiers).deny.is_none());
        // A main model of no known family is the launcher's choice: allowed, with a warning.
        let mut f = facts();
        f.main = MainKnowledge::Known(MainModel::new("custom-x", "t"));
        let d = decide(&f, &tiers);
        assert!(d.deny.is_none());
        assert!(d.warning.is_some());
    }

    #[test]
    fn taint_forbids_escalation_even_with_the_grant() {
        let tiers = TierPolicy::default();
        let mut f = facts();
        f.taint.tainted = true;
        f.grant = Grant::Granted;
        f.call_model = Some("fable".into());
        let d = decide(&f, &tiers);
        assert_eq!(d.requirement, "M5");
        f.call_model = Some("opus".into());
        assert!(decide(&f, &tiers).deny.is_none(), "same tier is fine");
        f.call_model = Some("haiku".into());
        assert!(decide(&f, &tiers).deny.is_none());
        f.call_model = None;
        assert!(decide(&f, &tiers).deny.is_none(), "inheriting is fine");
        f.main = MainKnowledge::Unknown("x".into());
        f.call_model = Some("haiku".into());
        assert_eq!(
            decide(&f, &tiers).requirement,
            "M5",
            "main unknown: no escalation judged safe"
        );
        // The CLI's default: judged against the lowest model it may be.
        f.main = cli_default();
        f.call_model = Some("sonnet".into());
        assert!(decide(&f, &tiers).deny.is_none());
        f.call_model = Some("opus".into());
        assert_eq!(decide(&f, &tiers).requirement, "M5");
    }

    fn cli_default() -> MainKnowledge {
        MainKnowledge::CliDefault(vec![
            MainModel::new("opus", "the CLI's default (API)"),
            MainModel::new("sonnet", "the CLI's default (Pro)"),
        ])
    }

    #[test]
    fn a_fork_on_the_cli_default_is_judged_on_every_model_it_may_be() {
        let mut f = facts();
        f.main = cli_default();
        f.subagent_type = None;
        f.call_model = Some("haiku".into());
        assert_eq!(
            models(&f),
            vec![
                Some("opus".into()),
                Some("sonnet".into()),
                Some("haiku".into())
            ]
        );
        // The default policy: nothing the default may be is maintainer-only.
        let d = decide(&f, &TierPolicy::default());
        assert!(d.deny.is_none() && d.warning.is_none(), "{:?}", d.deny);
        assert_eq!(d.evidence["candidates"][0]["from_cli_default"], true);
        // A policy that keeps opus for the maintainer: the default may be opus, so refuse and
        // say what to set.
        let strict = TierPolicy::from_config(Some(&["opus".into(), "fable".into()]));
        let d = decide(&f, &strict);
        assert_denied(&d, "M1", &["nothing names yet", "--model"]);
        assert!(d.warning.unwrap().contains("\"opus\""));
        f.grant = Grant::Granted;
        assert!(decide(&f, &strict).deny.is_none());
        // An environment that points the default at the tier.
        let mut f = facts();
        f.main = MainKnowledge::CliDefault(vec![
            MainModel::new("opus", "d"),
            MainModel::new("claude-fable-5", "ANTHROPIC_DEFAULT_MODEL"),
        ]);
        f.definition = def(Some("inherit"));
        let d = decide(&f, &TierPolicy::default());
        assert_denied(&d, "M1", &["ANTHROPIC_DEFAULT_MODEL"]);
        // A gateway's model of no known family: the launcher's choice, allowed with a warning.
        f.main = MainKnowledge::CliDefault(vec![
            MainModel::new("sonnet", "d"),
            MainModel::new("gw-large", "ANTHROPIC_DEFAULT_OPUS_MODEL"),
        ]);
        let d = decide(&f, &TierPolicy::default());
        assert!(d.deny.is_none(), "{:?}", d.deny);
        assert!(d.warning.unwrap().contains("gw-large"));
    }
}
