//! Family aliases as the CLI resolves them (M1–M3): `opus`, `sonnet`, `haiku`, `fable` (and
//! their `[1m]` forms, `opusplan`, `best`) run on whatever the alias variables in the CLI's
//! environment point them at (shared protocol notes §6.2: `ANTHROPIC_DEFAULT_{OPUS,SONNET,
//! HAIKU,FABLE}_MODEL`, and the deprecated `ANTHROPIC_SMALL_FAST_MODEL`). With
//! `ANTHROPIC_DEFAULT_OPUS_MODEL=claude-fable-5`, `model: "opus"` runs on the maintainer-only
//! tier, so every alias is resolved before its tier is judged.
//!
//! Pure over [`AliasEnv`] (the variables, taken from the hook's environment — the CLI's own,
//! settings `env` blocks included — plus whatever a nested launch adds). Two readings:
//! [`possible`] for a model something asks for (the name as written *and* every target: a
//! restricted alias pointed at a lower model stays refused, since the guard never loosens on an
//! environment variable), and [`runs_on`] for the main model the launcher chose (what the CLI
//! runs; the transcript confirms it once it exists).

use crate::m1_tiers::Family;

/// The alias variables, with the alias each retargets. `ANTHROPIC_SMALL_FAST_MODEL` is named by
/// the notes among the alias targets (deprecated, once the haiku-class model); whether the CLI
/// still reads it for `haiku` is not documented, so it is taken as a possible `haiku` target.
pub const ALIAS_VARS: [(&str, &str); 5] = [
    ("opus", "ANTHROPIC_DEFAULT_OPUS_MODEL"),
    ("sonnet", "ANTHROPIC_DEFAULT_SONNET_MODEL"),
    ("haiku", "ANTHROPIC_DEFAULT_HAIKU_MODEL"),
    ("haiku", "ANTHROPIC_SMALL_FAST_MODEL"),
    ("fable", "ANTHROPIC_DEFAULT_FABLE_MODEL"),
];

/// The family aliases a name stands for: `opusplan` plans on opus and executes on sonnet; `best`
/// is fable where available, else opus. `None`: not an alias (a full id, or unknown).
fn families_of_alias(name: &str) -> Option<&'static [&'static str]> {
    let n = name.trim().to_ascii_lowercase();
    let base = n.strip_suffix("[1m]").unwrap_or(&n);
    Some(match base {
        "opus" => &["opus"],
        "sonnet" => &["sonnet"],
        "haiku" => &["haiku"],
        "fable" => &["fable"],
        "opusplan" => &["opus", "sonnet"],
        "best" => &["fable", "opus"],
        _ => return None,
    })
}

/// The alias variables that are set (non-empty), in [`ALIAS_VARS`] order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AliasEnv {
    targets: Vec<(&'static str, String)>,
}

impl AliasEnv {
    /// From an environment lookup (empty values are unset, as for the CLI's provider selection).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> AliasEnv {
        let mut env = AliasEnv::default();
        for (_, var) in ALIAS_VARS {
            env.set(var, lookup(var).as_deref());
        }
        env
    }

    /// Overlays one variable (a nested launch's own environment or `--settings` env): a value
    /// sets it, `None` or an empty value unsets it. Names that are not alias variables are
    /// ignored.
    pub fn set(&mut self, var: &str, value: Option<&str>) {
        let Some(var) = ALIAS_VARS.iter().map(|(_, v)| *v).find(|v| *v == var) else {
            return;
        };
        self.targets.retain(|(v, _)| *v != var);
        if let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) {
            self.targets.push((var, value.to_string()));
            self.targets
                .sort_by_key(|(v, _)| ALIAS_VARS.iter().position(|(_, x)| x == v).unwrap_or(0));
        }
    }

    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    /// Where `family`'s alias points: (variable, target) for each variable that is set.
    fn targets_of(&self, family: &str) -> impl Iterator<Item = (&'static str, &str)> + '_ {
        let family = family.to_string();
        self.targets
            .iter()
            .filter(move |(var, _)| ALIAS_VARS.iter().any(|(f, v)| v == var && *f == family))
            .map(|(var, t)| (*var, t.as_str()))
    }
}

/// One model a name may run on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meaning {
    pub model: String,
    /// The variable that retargeted the alias; `None`: the name as written.
    pub via: Option<&'static str>,
}

impl Meaning {
    /// For reasons: `"opus" → ANTHROPIC_DEFAULT_OPUS_MODEL` (the alias the target stands for).
    pub fn note(&self, name: &str) -> Option<String> {
        self.via.map(|v| format!("{name:?} → {v}"))
    }
}

/// What the CLI runs for `name`: for an alias that a variable retargets, each family it stands
/// for as its target(s) (or the family alias itself when that family is not retargeted); any
/// other name as written.
pub fn runs_on(name: &str, env: &AliasEnv) -> Vec<Meaning> {
    let as_written = || {
        vec![Meaning {
            model: name.to_string(),
            via: None,
        }]
    };
    let Some(families) = families_of_alias(name) else {
        return as_written();
    };
    if !families.iter().any(|f| env.targets_of(f).next().is_some()) {
        return as_written();
    }
    let mut out: Vec<Meaning> = Vec::new();
    for fam in families {
        let before = out.len();
        out.extend(env.targets_of(fam).map(|(var, t)| Meaning {
            model: t.to_string(),
            via: Some(var),
        }));
        if out.len() == before {
            out.push(Meaning {
                model: (*fam).to_string(),
                via: None,
            });
        }
    }
    out
}

/// Every model a name something asks for may mean: the name as written first, then every
/// target [`runs_on`] gives it (duplicates dropped).
pub fn possible(name: &str, env: &AliasEnv) -> Vec<Meaning> {
    let mut out = vec![Meaning {
        model: name.to_string(),
        via: None,
    }];
    for m in runs_on(name, env) {
        if m.via.is_some() && !out.iter().any(|o| o.model == m.model) {
            out.push(m);
        }
    }
    out
}

/// The one model the main session runs on for `name`: of what [`runs_on`] gives, the highest
/// family (a family-less target ranks with the top, after a known top family), so that
/// `opusplan` with its opus half on the tier counts as the tier.
pub fn main_runs_on(name: &str, env: &AliasEnv) -> Meaning {
    let key = |m: &Meaning| {
        let f = Family::of(&m.model);
        (f.rank(), f.is_known())
    };
    runs_on(name, env)
        .into_iter()
        .max_by_key(key)
        .unwrap_or(Meaning {
            model: name.to_string(),
            via: None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> AliasEnv {
        AliasEnv::from_lookup(|k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        })
    }

    fn models(ms: &[Meaning]) -> Vec<&str> {
        ms.iter().map(|m| m.model.as_str()).collect()
    }

    #[test]
    fn an_alias_runs_on_its_target() {
        let e = env(&[("ANTHROPIC_DEFAULT_OPUS_MODEL", "claude-fable-5")]);
        assert_eq!(models(&runs_on("opus", &e)), ["claude-fable-5"]);
        assert_eq!(models(&runs_on("Opus[1m]", &e)), ["claude-fable-5"]);
        assert_eq!(
            runs_on("opus", &e)[0].note("opus").as_deref(),
            Some("\"opus\" → ANTHROPIC_DEFAULT_OPUS_MODEL")
        );
        // Other aliases, full ids and unknown names are what they say.
        assert_eq!(models(&runs_on("sonnet", &e)), ["sonnet"]);
        assert_eq!(models(&runs_on("claude-opus-5-5", &e)), ["claude-opus-5-5"]);
        assert_eq!(models(&runs_on("mystery", &e)), ["mystery"]);
        assert_eq!(runs_on("sonnet", &e)[0].via, None);
    }

    #[test]
    fn every_alias_variable_is_honoured() {
        for (alias, var) in ALIAS_VARS {
            let e = env(&[(var, "claude-fable-5")]);
            let got = possible(alias, &e);
            assert_eq!(models(&got), [alias, "claude-fable-5"], "{var}");
            assert_eq!(got[1].via, Some(var));
        }
        // The deprecated variable and its successor may both be read for `haiku`.
        let e = env(&[
            ("ANTHROPIC_DEFAULT_HAIKU_MODEL", "claude-haiku-5"),
            ("ANTHROPIC_SMALL_FAST_MODEL", "claude-fable-5"),
        ]);
        assert_eq!(
            models(&runs_on("haiku", &e)),
            ["claude-haiku-5", "claude-fable-5"]
        );
    }

    #[test]
    fn compound_aliases_stand_for_each_of_their_families() {
        let e = env(&[("ANTHROPIC_DEFAULT_OPUS_MODEL", "claude-fable-5")]);
        assert_eq!(
            models(&runs_on("opusplan", &e)),
            ["claude-fable-5", "sonnet"]
        );
        assert_eq!(main_runs_on("opusplan", &e).model, "claude-fable-5");
        let e = env(&[("ANTHROPIC_DEFAULT_FABLE_MODEL", "claude-haiku-5")]);
        assert_eq!(models(&runs_on("best", &e)), ["claude-haiku-5", "opus"]);
        assert_eq!(main_runs_on("best", &e).model, "opus");
        // Nothing retargeted: the name as written.
        assert_eq!(
            models(&runs_on("opusplan", &AliasEnv::default())),
            ["opusplan"]
        );
    }

    #[test]
    fn a_request_keeps_its_own_name_but_the_main_model_follows_the_cli() {
        let e = env(&[("ANTHROPIC_DEFAULT_FABLE_MODEL", "claude-opus-5")]);
        // Asked for: `fable` itself stays a candidate (never loosened by a variable).
        assert_eq!(models(&possible("fable", &e)), ["fable", "claude-opus-5"]);
        // The launcher's main model: what the CLI runs.
        assert_eq!(
            main_runs_on("fable", &e),
            Meaning {
                model: "claude-opus-5".into(),
                via: Some("ANTHROPIC_DEFAULT_FABLE_MODEL")
            }
        );
        // A family-less target ranks with the top, after a known top family.
        let e = env(&[
            ("ANTHROPIC_DEFAULT_HAIKU_MODEL", "gw-1"),
            ("ANTHROPIC_SMALL_FAST_MODEL", "claude-fable-5"),
        ]);
        assert_eq!(main_runs_on("haiku", &e).model, "claude-fable-5");
        // A target equal to the name is not repeated.
        let e = env(&[("ANTHROPIC_DEFAULT_OPUS_MODEL", "opus")]);
        assert_eq!(models(&possible("opus", &e)), ["opus"]);
    }

    #[test]
    fn overlays_set_and_unset() {
        let mut e = env(&[("ANTHROPIC_DEFAULT_OPUS_MODEL", "claude-fable-5")]);
        e.set("ANTHROPIC_DEFAULT_OPUS_MODEL", None);
        assert!(e.is_empty());
        e.set("ANTHROPIC_DEFAULT_SONNET_MODEL", Some("  "));
        assert!(e.is_empty());
        e.set("ANTHROPIC_MODEL", Some("claude-fable-5"));
        assert!(e.is_empty());
        e.set("ANTHROPIC_DEFAULT_FABLE_MODEL", Some("x"));
        e.set("ANTHROPIC_DEFAULT_OPUS_MODEL", Some("y"));
        assert_eq!(models(&runs_on("best", &e)), ["x", "y"]);
    }
}
