//! M3 for the main session: a switch to the tier (PreModelSwitch), a session already running on
//! it without the grant (UserPromptSubmit), and the shared check of a requested model.

use crate::m1_tiers::{describe, Family, TierPolicy};
use crate::m3_launch::Requested;
use crate::main_model::MainModel;
use crate::Finding;
use safety_kernel::{feedback::reason, Grant};
use serde_json::json;

/// Judges models something asks for (a nested launch, a file, a switch): the first that is
/// maintainer-only (or unknown, or unreadable) without the grant is refused.
pub fn judge_requests(
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
    let mut finding = Finding {
        requirement: "M3",
        deny: None,
        warning: None,
        evidence,
    };
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
        finding.deny = Some(reason("M3", &refused, &remedy));
        break;
    }
    finding
}

/// PreModelSwitch: `requested_model` and `to_model`.
pub fn switch(
    requested: Option<&str>,
    to: Option<&str>,
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
    judge_requests("a model switch", &reqs, tiers, grant)
}

/// UserPromptSubmit: the session's own main model.
pub fn prompt(main: Option<&MainModel>, tiers: &TierPolicy, grant: &Grant) -> Finding {
    let mut finding = Finding {
        requirement: "M3",
        deny: None,
        warning: None,
        evidence: json!({
            "main_model": main.map(|m| json!({"model": m.model, "source": m.source})),
            "granted": grant.is_granted(),
            "grant_note": grant.note(crate::host::GRANT_VAR),
        }),
    };
    let Some(main) = main else {
        return finding;
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
        finding.deny = Some(reason(
            "M3",
            &format!(
                "this session runs on {:?} ({fam}), a maintainer-only tier, without the maintainer's grant (model from {})",
                main.model, main.source
            ),
            &remedy,
        ));
    }
    finding
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switches() {
        let t = TierPolicy::default();
        assert!(
            switch(Some("fable"), Some("claude-fable-5"), &t, &Grant::NotSet)
                .deny
                .is_some()
        );
        assert!(switch(Some("mystery"), None, &t, &Grant::NotSet)
            .deny
            .unwrap()
            .contains("no known model family"));
        assert!(
            switch(Some("opus"), Some("claude-opus-5"), &t, &Grant::NotSet)
                .deny
                .is_none()
        );
        assert!(switch(Some("fable"), None, &t, &Grant::Granted)
            .deny
            .is_none());
    }

    #[test]
    fn prompts() {
        let t = TierPolicy::default();
        let m = |s: &str| MainModel {
            model: s.into(),
            source: "--model".into(),
        };
        assert!(prompt(Some(&m("fable")), &t, &Grant::NotSet).deny.is_some());
        let r = prompt(Some(&m("fable")), &t, &Grant::Unrecognised("tru".into()))
            .deny
            .unwrap();
        assert!(r.contains("not recognised"), "{r}");
        assert!(prompt(Some(&m("fable")), &t, &Grant::Granted)
            .deny
            .is_none());
        assert!(prompt(Some(&m("opus")), &t, &Grant::NotSet).deny.is_none());
        let f = prompt(Some(&m("custom")), &t, &Grant::NotSet);
        assert!(f.deny.is_none() && f.warning.is_some());
        assert!(prompt(None, &t, &Grant::NotSet).deny.is_none());
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
