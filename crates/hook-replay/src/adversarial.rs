//! Scoring an adversarial set (issues 16 and 19): attacks a guard must refuse and look-alikes it
//! must allow, each decided right or wrong by the guard's own replay. Prints the rates per class
//! and the wrong ids, and holds the guard to a floor and an explicit list of known misses that
//! can only shrink (a listed id decided rightly fails too, so the list never goes stale).

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// The cases of `<repository>/fixtures/adversarial/<guard>/<file>` (a JSON array), read from a
/// crate's `CARGO_MANIFEST_DIR` two levels below the repository root.
pub fn load_set(manifest_dir: &str, guard: &str, file: &str) -> Vec<Value> {
    let path = Path::new(manifest_dir)
        .join("../../fixtures/adversarial")
        .join(guard)
        .join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("adversarial cases at {}: {e}", path.display()));
    let v: Value = serde_json::from_str(&text).expect("cases are JSON");
    match v {
        Value::Array(cases) => cases,
        _ => panic!("{}: not an array of cases", path.display()),
    }
}

/// One adversarial set of a guard: `fixtures/<folder>/attacks.json` (must be refused) and
/// `benign.json` (must be allowed), the least number of cases each must hold, and what the guard
/// was measured at ([`Set::known_misses`] and [`Set::attack_floor`], kept in the guard's test
/// file). A guard's test file declares one with [`crate::adversarial_set_tests`].
#[derive(Debug, Clone, Copy)]
pub struct Set {
    /// The guard crate's `CARGO_MANIFEST_DIR` (two levels below the repository root).
    pub manifest_dir: &'static str,
    /// Below `fixtures/`: `adversarial/<guard>` or `adversarial-heldout/<guard>`.
    pub folder: &'static str,
    /// Ids decided wrongly when the set was last measured; the list only shrinks.
    pub known_misses: &'static [&'static str],
    /// Refused attacks / attacks when the list was taken (raise it, never lower it).
    pub attack_floor: f64,
    /// At least this many attacks and benign cases.
    pub at_least: (usize, usize),
}

/// The two case files of a set, and whether they hold attacks.
const FILES: [(&str, bool); 2] = [("attacks.json", true), ("benign.json", false)];

impl Set {
    /// The cases of one file of the set (a JSON array).
    pub fn load(&self, file: &str) -> Vec<Value> {
        load_set(self.manifest_dir, &format!("../{}", self.folder), file)
    }

    /// Replays both files (`replay(cases, attack)` decides each case right or wrong), prints the
    /// rates and fails below the floor, on an unlisted miss or on a listed id now decided rightly.
    pub fn hold_floor(&self, replay: fn(&[Value], bool) -> Vec<Outcome>) {
        let attacks = replay(&self.load("attacks.json"), true);
        let benign = replay(&self.load("benign.json"), false);
        let (min_attacks, min_benign) = self.at_least;
        assert!(
            attacks.len() >= min_attacks,
            "at least {min_attacks} attacks"
        );
        assert!(
            benign.len() >= min_benign,
            "at least {min_benign} benign cases"
        );
        report_and_check(
            &[attacks, benign].concat(),
            self.known_misses,
            self.attack_floor,
        );
    }

    /// Checks every case of both files with `check(case, attack)`, which asserts the guard's own
    /// schema and returns the case's id; ids must be unique across the set.
    pub fn check_cases(&self, check: fn(&Value, bool) -> String) {
        let mut seen = std::collections::HashSet::new();
        for (file, attack) in FILES {
            for case in self.load(file) {
                let id = check(&case, attack);
                assert!(seen.insert(id.clone()), "duplicate id {id} in {file}");
            }
        }
    }
}

/// The two tests of an adversarial set, one test file per set: `set_holds_its_floor` and
/// `set_cases_are_well_formed`. The file defines `KNOWN_MISSES` and `ATTACK_FLOOR` (see [`Set`])
/// and declares the guard's `mod adversarial_support` with `outcomes` (the replay) and
/// `well_formed` (the case schema); the macro takes the folder below `fixtures/` and the least
/// numbers of attacks and benign cases.
#[macro_export]
macro_rules! adversarial_set_tests {
    ($folder:literal, at_least = $at_least:expr) => {
        const SET: $crate::adversarial::Set = $crate::adversarial::Set {
            manifest_dir: env!("CARGO_MANIFEST_DIR"),
            folder: $folder,
            known_misses: KNOWN_MISSES,
            attack_floor: ATTACK_FLOOR,
            at_least: $at_least,
        };

        #[test]
        fn set_holds_its_floor() {
            SET.hold_floor(adversarial_support::outcomes);
        }

        #[test]
        fn set_cases_are_well_formed() {
            SET.check_cases(adversarial_support::well_formed);
        }
    };
}

/// A case's short text for the printed list: the first 160 characters.
pub fn short(text: &str) -> String {
    text.chars().take(160).collect()
}

/// One replayed case.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The case's id.
    pub id: String,
    /// The attack family (`wrapper`, `state`, ...), for the per-class rates.
    pub class: String,
    /// The command or tool, for the printed list (already short).
    pub what: String,
    /// From the attack set (must be refused) rather than the benign set (must be allowed).
    pub attack: bool,
    /// The guard decided it as the case expects.
    pub right: bool,
}

impl Outcome {
    /// The outcome of `case` (its `class` field names the family, `?` when absent) replayed under
    /// the id `id`; `what` is shortened for the printed list.
    pub fn of_case(case: &Value, id: String, what: &str, attack: bool, right: bool) -> Outcome {
        Outcome {
            id,
            class: case["class"].as_str().unwrap_or("?").to_string(),
            what: short(what),
            attack,
            right,
        }
    }
}

/// Refused attacks / attacks (1.0 for an empty set).
pub fn attack_rate(outcomes: &[Outcome]) -> f64 {
    let attacks = outcomes.iter().filter(|o| o.attack).count();
    let refused = outcomes.iter().filter(|o| o.attack && o.right).count();
    if attacks == 0 {
        1.0
    } else {
        refused as f64 / attacks as f64
    }
}

fn print_set(label: &str, set: &[&Outcome]) {
    let mut by_class: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for o in set {
        let e = by_class.entry(o.class.as_str()).or_default();
        e.1 += 1;
        e.0 += usize::from(o.right);
    }
    let right = set.iter().filter(|o| o.right).count();
    println!("{label}: {right}/{} decided as expected", set.len());
    for (class, (r, t)) in &by_class {
        println!("  {class:<10} {r}/{t}");
    }
    for o in set.iter().filter(|o| !o.right) {
        println!("  wrong {} {:?}", o.id, o.what);
    }
}

/// Prints the rates, then panics when a wrong case is not in `known_misses`, when a listed id is
/// now decided rightly (or is not in the set at all), or when the attack rate is below `floor`.
pub fn report_and_check(outcomes: &[Outcome], known_misses: &[&str], floor: f64) {
    let attacks: Vec<&Outcome> = outcomes.iter().filter(|o| o.attack).collect();
    let benign: Vec<&Outcome> = outcomes.iter().filter(|o| !o.attack).collect();
    print_set("attacks refused", &attacks);
    print_set("benign allowed", &benign);
    let rate = attack_rate(outcomes);
    let refused = attacks.iter().filter(|o| o.right).count();
    println!(
        "attack refusal rate: {refused}/{} = {rate:.3}",
        attacks.len()
    );
    let denied = benign.iter().filter(|o| !o.right).count();
    println!("benign denied: {denied}/{}", benign.len());

    let unlisted: Vec<String> = outcomes
        .iter()
        .filter(|o| !o.right && !known_misses.contains(&o.id.as_str()))
        .map(|o| format!("{}: {:?}", o.id, o.what))
        .collect();
    assert!(
        unlisted.is_empty(),
        "{} cases decided wrongly and not in KNOWN_MISSES:\n{}",
        unlisted.len(),
        unlisted.join("\n")
    );
    let stale: Vec<&str> = known_misses
        .iter()
        .copied()
        .filter(|id| !outcomes.iter().any(|o| o.id == *id && !o.right))
        .collect();
    assert!(
        stale.is_empty(),
        "decided rightly now (or gone): drop from KNOWN_MISSES and raise the floor: {stale:?}"
    );
    assert!(
        rate >= floor,
        "attack refusal rate {rate:.3} below the floor {floor:.3}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(id: &str, attack: bool, right: bool) -> Outcome {
        Outcome {
            id: id.into(),
            class: "c".into(),
            what: "cmd".into(),
            attack,
            right,
        }
    }

    #[test]
    fn listed_misses_pass_at_the_floor() {
        let set = [
            o("a1", true, true),
            o("a2", true, false),
            o("b1", false, false),
        ];
        assert_eq!(attack_rate(&set), 0.5);
        report_and_check(&set, &["a2", "b1"], 0.5);
    }

    #[test]
    #[should_panic(expected = "not in KNOWN_MISSES")]
    fn an_unlisted_miss_fails() {
        report_and_check(&[o("a1", true, false)], &[], 0.0);
    }

    #[test]
    #[should_panic(expected = "drop from KNOWN_MISSES")]
    fn a_fixed_miss_must_leave_the_list() {
        report_and_check(&[o("a1", true, true)], &["a1"], 0.0);
    }

    #[test]
    #[should_panic(expected = "below the floor")]
    fn the_floor_holds() {
        report_and_check(&[o("a1", true, false)], &["a1"], 0.5);
    }
}
