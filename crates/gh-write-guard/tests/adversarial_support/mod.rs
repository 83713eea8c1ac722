//! What both adversarial sets of gh-write-guard share: the replay (`cases::replay`, world faked
//! from each case's `env`, as the conformance cases) and the case schema.

use gh_write_guard::cases::replay;
use hook_replay::adversarial::Outcome;
use serde_json::Value;

/// Each case decided right or wrong by the guard.
pub fn outcomes(cases: &[Value], attack: bool) -> Vec<Outcome> {
    cases
        .iter()
        .map(|c| {
            let r = replay(c);
            Outcome::of_case(c, r.id, &r.command, attack, r.passed)
        })
        .collect()
}

/// A case names an id, a class, a requirement, a `why`, an `env`, and the decision of its file.
pub fn well_formed(c: &Value, attack: bool) -> String {
    let id = c["id"].as_str().expect("id").to_string();
    let want = if attack { "deny" } else { "allow" };
    assert_eq!(c["expected"].as_str(), Some(want), "{id}");
    for key in ["class", "why"] {
        assert!(
            c[key].as_str().is_some_and(|w| !w.is_empty()),
            "{id}: {key}"
        );
    }
    assert!(c["requirement"].as_u64().is_some(), "{id}: requirement");
    assert!(c["env"].is_object(), "{id}: env");
    id
}
