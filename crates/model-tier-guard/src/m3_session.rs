//! M3 for the main session: a switch to the tier (PreModelSwitch), a session already running on
//! it without the grant (UserPromptSubmit), and the shared check of a requested model.

use crate::m1_tiers::{describe, Family, TierPolicy};
use crate::m3_launch::Requested;
use crate::main_model::{MainKnowledge, MainModel};
use crate::model_aliases::AliasEnv;
use crate::{codes, Finding};
use safety_kernel::{feedback::reason, Grant};
use serde_json::json;

/// Judges the models a nested agent launch asks for ([`codes::M3_LAUNCH`]); the exec gate
/// (crate `second-line`) calls it with this signature.
pub fn judge_requests(
    what: &str,
    requests: &[Requested],
    tiers: &TierPolicy,
    grant: &Grant,
) -> Finding {
    judge_requested(codes::M3_LAUNCH, what, requests, tiers, grant)
}

/// Judges models something asks for (a nested launch, a file, a switch): the first that is
/// maintainer-only (or unknown, or unreadable) without the grant is refused with `code`.
pub fn judge_requested(
    code: &'static str,
    what: &str,
    requests: &[Requested],
    tiers: &TierPolicy,
    grant: &Grant,
) -> Finding {
    let evidence = json!({
        "requests": requests.iter().map(|r| json!({
            "model": r.model, "source": r.source,
            "family": r.model.as_deref().map(|m| Family::of(m).name().to_string()),
        })).collect::<Vec<_>>(),
        "granted": grant.is_granted(),
        "grant_note": grant.note(crate::host::GRANT_VAR),
    });
    let mut finding = Finding::quiet(codes::requirement(code), evidence);
    if grant.is_granted() {
        return finding;
    }
    for r in requests {
        let refused = match r.model.as_deref() {
            None => format!("{what} whose model is decided at run time or unreadable ({}), so it is treated as the maintainer-only tier", r.source),
            Some(m) => {
                let fam = Family::of(m);
                if !tiers.is_restricted(&fam) {
                    continue;
                }
                format!("{what} on {}, a maintainer-only tier ({})", describe(m, &fam), r.source)
            }
        };
        let mut remedy = format!(
            "Use a permitted tier ({}) with a literal model name; only the maintainer can grant the tier in the session's launch environment.",
            tiers.permitted()
        );
        if let Some(n) = grant.note(crate::host::GRANT_VAR) {
            remedy.push_str(&format!(" {n}."));
        }
        finding.refuse(code, reason(code, &refused, &remedy));
        break;
    }
    finding
}

/// M5 for nested launches: in a tainted session, a launch above the main model is refused,
/// granted or not (a model decided at run time counts as above).
pub fn launch_escalation(
    requests: &[Requested],
    main: &MainKnowledge,
    tainted: bool,
) -> Option<String> {
    if !tainted {
        return None;
    }
    let above = requests.iter().find(|r| match r.model.as_deref() {
        Some(m) => crate::m2_dispatch::escalates(&Family::of(m), main),
        None => true,
    })?;
    let main_name = main.label();
    Some(reason(
        codes::M5_LAUNCH,
        &format!(
            "this session has read untrusted content, so it may not start another agent above its main model ({main_name}); {} was asked",
            above.model.as_deref().map_or_else(|| "a model decided at run time".to_string(), |m| format!("{m:?}"))
        ),
        "Launch it without a model, or on the main model's tier or a lower one.",
    ))
}

/// PreModelSwitch: `requested_model` and `to_model`, each with where the alias variables point
/// it (the switch runs in the CLI whose environment the hook has).
pub fn switch(
    requested: Option<&str>,
    to: Option<&str>,
    aliases: &AliasEnv,
    tiers: &TierPolicy,
    grant: &Grant,
) -> Finding {
    let mut reqs = Vec::new();
    for (m, src) in [(requested, "requested_model"), (to, "to_model")] {
        if let Some(m) = m.filter(|m| !m.is_empty()) {
            reqs.push(Requested {
                model: Some(m.to_string()),
                source: src.into(),
            });
        }
    }
    let reqs = crate::m3_launch::through_aliases(reqs, aliases);
    judge_requested(codes::M3_SWITCH, "a model switch", &reqs, tiers, grant)
}

/// UserPromptSubmit: the session's own main model. A model some source names is blocked, and
/// so is a CLI default that a launcher's variable points at the tier (`ANTHROPIC_DEFAULT_MODEL`,
/// `ANTHROPIC_DEFAULT_OPUS_MODEL` retargeting the account's `opus`: 2.1.332 with an API key
/// then runs the session on it). A CLI default that may be the tier only because an account
/// default is (a policy restricting `opus`, say) is told to the user: the account decides it.
pub fn prompt(main: &MainKnowledge, tiers: &TierPolicy, grant: &Grant) -> Finding {
    let mut finding = Finding::quiet(
        "M3",
        json!({
            "main_model": main.evidence(),
            "granted": grant.is_granted(),
            "grant_note": grant.note(crate::host::GRANT_VAR),
        }),
    );
    let main = match main {
        MainKnowledge::Known(m) => m,
        MainKnowledge::CliDefault(list) => {
            let restricted = |m: &&MainModel| {
                tiers.is_restricted(&Family::of(&m.model)) && Family::of(&m.model).is_known()
            };
            let pointed = list.iter().filter(restricted).find(|m| m.set_by_variable);
            if let (Some(m), false) = (pointed, grant.is_granted()) {
                let refused = reason(
                    codes::M3_SESSION_DEFAULT,
                    &format!(
                        "nothing names this session's model, and the CLI's default may run it on {:?} ({}, {}), a maintainer-only tier, without the maintainer's grant",
                        m.model,
                        Family::of(&m.model),
                        m.source
                    ),
                    &format!(
                        "The maintainer names a permitted model ({}) with `claude --model`, ANTHROPIC_MODEL or settings `model`, or unsets the variable, or launches with {}=1.",
                        tiers.permitted(),
                        crate::host::GRANT_VAR
                    ),
                );
                finding.refuse(codes::M3_SESSION_DEFAULT, refused);
                return finding;
            }
            let restricted = list.iter().find(restricted);
            if let (Some(m), false) = (restricted, grant.is_granted()) {
                finding.warning = Some(format!(
                    "model-tier-guard: nothing names this session's model, and the CLI's default may be {:?} ({}), a maintainer-only tier here; {}.",
                    m.model,
                    m.source,
                    crate::m2_dispatch::NAME_THE_MAIN_MODEL
                ));
            }
            return finding;
        }
        MainKnowledge::Unknown(_) => return finding,
    };
    let fam = Family::of(&main.model);
    if !fam.is_known() {
        // The launcher chose it; we can only tell the user.
        finding.warning = Some(format!(
            "model-tier-guard: this session's model {:?} is of no known family (from {})",
            main.model, main.source
        ));
        return finding;
    }
    if tiers.is_restricted(&fam) && !grant.is_granted() {
        let mut remedy = format!(
            "Restart the session on a permitted tier ({}), or the maintainer launches it with {}=1.",
            tiers.permitted(),
            crate::host::GRANT_VAR
        );
        if let Some(n) = grant.note(crate::host::GRANT_VAR) {
            remedy.push_str(&format!(" {n}."));
        }
        let refused = reason(
            codes::M3_SESSION,
            &format!(
                "this session runs on {:?} ({fam}), a maintainer-only tier, without the maintainer's grant (model from {})",
                main.model, main.source
            ),
            &remedy,
        );
        finding.refuse(codes::M3_SESSION, refused);
    }
    finding
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switches() {
        let t = TierPolicy::default();
        let none = AliasEnv::default();
        assert!(switch(
            Some("fable"),
            Some("claude-fable-5"),
            &none,
            &t,
            &Grant::NotSet
        )
        .deny
        .is_some());
        assert!(switch(Some("mystery"), None, &none, &t, &Grant::NotSet)
            .deny
            .unwrap()
            .contains("no known model family"));
        assert!(switch(
            Some("opus"),
            Some("claude-opus-5"),
            &none,
            &t,
            &Grant::NotSet
        )
        .deny
        .is_none());
        assert!(switch(Some("fable"), None, &none, &t, &Grant::Granted)
            .deny
            .is_none());
        // `/model sonnet` where the environment points `sonnet` at the tier.
        let mut aliases = AliasEnv::default();
        aliases.set("ANTHROPIC_DEFAULT_SONNET_MODEL", Some("claude-fable-5"));
        let r = switch(Some("sonnet"), None, &aliases, &t, &Grant::NotSet)
            .deny
            .unwrap_or_default();
        assert!(
            r.contains("claude-fable-5") && r.contains("ANTHROPIC_DEFAULT_SONNET_MODEL"),
            "{r}"
        );
        assert!(switch(Some("haiku"), None, &aliases, &t, &Grant::NotSet)
            .deny
            .is_none());
    }

    #[test]
    fn prompts() {
        let t = TierPolicy::default();
        let m = |s: &str| MainKnowledge::Known(MainModel::new(s, "--model"));
        assert!(prompt(&m("fable"), &t, &Grant::NotSet).deny.is_some());
        let r = prompt(&m("fable"), &t, &Grant::Unrecognised("tru".into()))
            .deny
            .unwrap();
        assert!(r.contains("not recognised"), "{r}");
        assert!(prompt(&m("fable"), &t, &Grant::Granted).deny.is_none());
        assert!(prompt(&m("opus"), &t, &Grant::NotSet).deny.is_none());
        let f = prompt(&m("custom"), &t, &Grant::NotSet);
        assert!(f.deny.is_none() && f.warning.is_some());
        let unknown = MainKnowledge::Unknown("x".into());
        assert!(prompt(&unknown, &t, &Grant::NotSet).deny.is_none());
        // The CLI's default: never blocked; told when it may be the tier.
        let default = MainKnowledge::CliDefault(vec![
            MainModel::new("opus", "api"),
            MainModel::new("sonnet", "pro"),
        ]);
        let f = prompt(&default, &t, &Grant::NotSet);
        assert!(f.deny.is_none() && f.warning.is_none());
        let strict = TierPolicy::from_config(Some(&["opus".into()]));
        let f = prompt(&default, &strict, &Grant::NotSet);
        assert!(f.deny.is_none());
        assert!(f.warning.unwrap().contains("ANTHROPIC_MODEL"));
        // A variable points the default at the tier: blocked unless granted.
        let pointed = MainKnowledge::CliDefault(vec![
            MainModel::new("opus", "api"),
            MainModel::by_variable("claude-fable-5", "\"opus\" → ANTHROPIC_DEFAULT_OPUS_MODEL"),
            MainModel::new("sonnet", "pro"),
        ]);
        let r = prompt(&pointed, &t, &Grant::NotSet)
            .deny
            .unwrap_or_default();
        assert!(
            r.starts_with("M3.session-default: ") && r.contains("ANTHROPIC_DEFAULT_OPUS_MODEL"),
            "{r}"
        );
        assert!(prompt(&pointed, &t, &Grant::Granted).deny.is_none());
        // A family-less target there is the launcher's choice, as for a named main model.
        let gateway = MainKnowledge::CliDefault(vec![MainModel::by_variable("gw-9", "x")]);
        assert!(prompt(&gateway, &t, &Grant::NotSet).deny.is_none());
    }

    #[test]
    fn tainted_launches_may_not_escalate() {
        let main = MainKnowledge::Known(MainModel::new("claude-sonnet-5", "t"));
        let r = |m: Option<&str>| {
            vec![Requested {
                model: m.map(Into::into),
                source: "--model".into(),
            }]
        };
        assert!(launch_escalation(&r(Some("opus")), &main, true)
            .unwrap()
            .starts_with("M5.launch: "));
        assert!(launch_escalation(&r(Some("opus")), &main, false).is_none());
        assert!(launch_escalation(&r(Some("haiku")), &main, true).is_none());
        assert!(launch_escalation(&r(None), &main, true).is_some());
        assert!(launch_escalation(&[], &MainKnowledge::Unknown("x".into()), true).is_none());
    }

    #[test]
    fn unreadable_requests_fail_closed() {
        let t = TierPolicy::default();
        let r = [Requested {
            model: None,
            source: "--model decided at run time".into(),
        }];
        assert!(judge_requests("a launch", &r, &t, &Grant::NotSet)
            .deny
            .is_some());
    }
}
