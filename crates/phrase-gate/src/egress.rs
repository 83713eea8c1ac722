//! E1/E2: the egress phrase gate over an agent's final message.
//!
//! Three detectors, each a tripwire family that is a violation unless its own legitimiser family
//! also occurs in the same text. The baseline tables are the prior art's, kept verbatim
//! (`egress-gate-baseline.md`); the maintainer may add phrases per family (E6).

use crate::matcher::{Family, PhraseMatcher};
use serde::Serialize;
use std::collections::BTreeMap;

pub const SCHEMA_VERSION: u32 = 1;
pub const GATE_ID: &str = "egress_phrase_gate";

pub use crate::egress_tables::{
    COMMAND_DISPLACEMENT, DURABLE_BINDING, EXECUTION_RECEIPT, HAND_BACK, HAND_BACK_UNEXCUSED,
    LEGITIMATE_BLOCKER, PERMISSION_ASK_UNEXCUSED, PERMISSION_GATE, SELF_ERROR,
};

/// One tripwire family and the families that excuse it.
#[derive(Debug, Clone, Copy)]
pub struct Clause {
    pub tripwire: &'static str,
    pub legitimisers: &'static [&'static str],
    /// A guard's refusal recorded in this session, named in the text, excuses this tripwire: the
    /// refusal is the real blocker (issue 19: no remedy one guard gives is refused by another).
    pub excused_by_recorded_refusal: bool,
}

/// A detector: its diagnostic id, its clauses, its one-line rule and the remedy said on a block.
/// It is a violation when any clause's tripwire matched and nothing excused it.
#[derive(Debug, Clone, Copy)]
pub struct Detector {
    pub diagnostic_id: &'static str,
    pub clauses: &'static [Clause],
    pub rule: &'static str,
    /// What the agent should do instead: said to the model on a block, phrased so that it contains
    /// no tripwire phrase itself.
    pub remedy: &'static str,
}

pub const DETECTORS: [Detector; 3] = [
    Detector {
        diagnostic_id: "permission_gate_without_blocker",
        clauses: &[
            Clause {
                tripwire: PERMISSION_GATE,
                legitimisers: &[LEGITIMATE_BLOCKER],
                excused_by_recorded_refusal: true,
            },
            // Issue 43: an ask read from the sentence with no blocker near it.
            Clause {
                tripwire: PERMISSION_ASK_UNEXCUSED,
                legitimisers: &[],
                excused_by_recorded_refusal: true,
            },
        ],
        rule: "ask for permission only after naming a real blast-radius blocker; otherwise take the safe bounded action and report what happened.",
        remedy: "Take the next safe step and report what happened, or name the concrete blocker.",
    },
    Detector {
        diagnostic_id: "self_error_without_capture",
        clauses: &[Clause {
            tripwire: SELF_ERROR,
            legitimisers: &[DURABLE_BINDING],
            excused_by_recorded_refusal: false,
        }],
        rule: "a self-detected mistake must be bound to a durable capture before it appears in operator-facing prose.",
        remedy: "Record the mistake durably (a work item or work-log entry), then refer to that record.",
    },
    Detector {
        diagnostic_id: "command_displacement_to_operator",
        clauses: &[
            Clause {
                tripwire: COMMAND_DISPLACEMENT,
                legitimisers: &[EXECUTION_RECEIPT],
                excused_by_recorded_refusal: true,
            },
            // A request addressed to the reader: a receipt word elsewhere ("tests passed") says
            // nothing about the command handed back, so only a named blocker excuses it.
            Clause {
                tripwire: HAND_BACK,
                legitimisers: &[LEGITIMATE_BLOCKER],
                excused_by_recorded_refusal: true,
            },
            // Issue 43: a hand-back read from the sentence with no blocker near it.
            Clause {
                tripwire: HAND_BACK_UNEXCUSED,
                legitimisers: &[],
                excused_by_recorded_refusal: true,
            },
        ],
        rule: "do not hand a safe in-scope command to the operator; run it and report the result, unless a real blocker exists.",
        remedy: "Do the command yourself and report its output and exit status, or name the real blocker (a guard's refusal counts: name its id).",
    },
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Green,
    Red,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Green => "green",
            Status::Red => "red",
        }
    }
}

/// One detector's row; present only when its tripwire matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    pub diagnostic_id: &'static str,
    pub violation: bool,
    pub matched_tripwires: Vec<String>,
    pub matched_legitimizers: Vec<String>,
    pub severity: &'static str,
    pub rule: &'static str,
}

/// E2: the metadata-only record. It never holds the text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GateRecord {
    pub schema_version: u32,
    pub gate_id: &'static str,
    pub status: Status,
    pub violation_count: usize,
    pub rows: Vec<Row>,
    /// Why the message was not judged (issue 43: another language than the tables'), or absent.
    /// A message not judged is green with no rows: a guess would look like a verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_judged: Option<&'static str>,
}

impl GateRecord {
    /// The detectors that fired as violations.
    pub fn violations(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| r.violation)
    }
}

/// The compiled gate.
#[derive(Debug, Clone)]
pub struct EgressGate {
    matcher: PhraseMatcher,
    /// Whether sentences are read for their structure ([`crate::reader_address`]); off only for
    /// a gate built from bare families, which is how tests measure the prior art's tables.
    structure: bool,
}

impl Default for EgressGate {
    fn default() -> Self {
        EgressGate::baseline()
    }
}

impl EgressGate {
    /// The shipped tables: the baseline's six (verbatim) and the families that widen them.
    pub fn baseline() -> EgressGate {
        EgressGate {
            matcher: PhraseMatcher::with_compiled(
                crate::egress_tables::shipped_families(),
                Some(&crate::egress_tables::COMPILED),
            ),
            structure: true,
        }
    }

    /// The shipped tables plus the maintainer's phrases per family. Returns the family names that
    /// are not ours (reported to the maintainer; their phrases are not used).
    pub fn with_extra(extra: &BTreeMap<String, Vec<String>>) -> (EgressGate, Vec<String>) {
        let mut families = crate::egress_tables::shipped_families();
        let unknown = crate::matcher::extend_families(&mut families, extra);
        (
            EgressGate {
                // The compiled tables serve when no phrase was added (`with_compiled` compares).
                matcher: PhraseMatcher::with_compiled(
                    families,
                    Some(&crate::egress_tables::COMPILED),
                ),
                structure: true,
            },
            unknown,
        )
    }

    /// A gate over exactly these families, by phrase membership alone (tests compare the prior
    /// art's tables with ours).
    pub fn from_families(families: Vec<Family>) -> EgressGate {
        EgressGate {
            matcher: PhraseMatcher::new(families),
            structure: false,
        }
    }

    pub fn matcher(&self) -> &PhraseMatcher {
        &self.matcher
    }

    /// Evaluates a text with no recorded refusal.
    pub fn evaluate(&self, text: &str) -> GateRecord {
        self.evaluate_with(text, &[])
    }

    /// Evaluates a text; `refusals` are the guards' refusals recorded in this session (read from
    /// the hooks' own audit log by the caller, never from the text). One the text names excuses the
    /// clauses that allow it.
    pub fn evaluate_with(&self, text: &str, refusals: &[RecordedRefusal]) -> GateRecord {
        if let Some(why) = crate::language::not_english(text).filter(|_| self.structure) {
            return GateRecord {
                schema_version: SCHEMA_VERSION,
                gate_id: GATE_ID,
                status: Status::Green,
                violation_count: 0,
                rows: Vec::new(),
                not_judged: Some(why),
            };
        }
        let scan = self.scan(text);
        // A refusal is named in the whole text: its quoted commands are how the text names it.
        let named = if refusals.is_empty() {
            Vec::new()
        } else {
            crate::refusal::excusing(refusals, &sentence_started(text))
        };
        let index = |id: &str| self.matcher.family_index(id).unwrap_or(usize::MAX);
        let mut rows = Vec::new();
        for d in DETECTORS {
            let mut tripwires = Vec::new();
            let mut legit = Vec::new();
            let mut violation = false;
            for c in d.clauses {
                let fired = scan.family(index(c.tripwire));
                if fired.is_empty() {
                    continue;
                }
                let mut excuses: Vec<String> = c
                    .legitimisers
                    .iter()
                    .flat_map(|l| scan.family(index(l)))
                    .collect();
                if c.excused_by_recorded_refusal {
                    excuses.extend(named.iter().cloned());
                }
                violation |= excuses.is_empty();
                tripwires.extend(fired);
                legit.extend(excuses);
            }
            if tripwires.is_empty() {
                continue;
            }
            tripwires.sort();
            tripwires.dedup();
            legit.sort();
            legit.dedup();
            rows.push(Row {
                diagnostic_id: d.diagnostic_id,
                violation,
                matched_tripwires: tripwires,
                matched_legitimizers: legit,
                severity: if violation {
                    "operational_pressure"
                } else {
                    "informational"
                },
                rule: d.rule,
            });
        }
        let violation_count = rows.iter().filter(|r| r.violation).count();
        GateRecord {
            schema_version: SCHEMA_VERSION,
            gate_id: GATE_ID,
            status: if violation_count > 0 {
                Status::Red
            } else {
                Status::Green
            },
            violation_count,
            rows,
            not_judged: None,
        }
    }

    /// Every family's matches over the agent's own sentences ([`crate::own_text`]): the phrases of
    /// the tables, and what the sentences ask of the reader by their structure
    /// ([`crate::reader_address`]), filed under the hand-back and permission-gate families with
    /// the table words that fired them.
    fn scan(&self, text: &str) -> crate::matcher::Scan {
        if !self.structure {
            return self.matcher.scan_normalised(&sentence_started(text));
        }
        let own = crate::own_text::own_text(text);
        let mut scan = self.matcher.scan_normalised(&own);
        let findings = crate::reader_address::findings(&own);
        let sentences: Vec<&str> = if findings.is_empty() {
            Vec::new()
        } else {
            crate::own_text::sentences(&own).collect()
        };
        let blocker = self.matcher.family_index(LEGITIMATE_BLOCKER);
        for f in findings {
            // A blocker counts for the request it stands next to: its sentence, the one before
            // or the one after ("I can't reach the registry. Run `cargo publish` once it's up.").
            // In its own sentence, not what the request acts on or is for ("rotate the session
            // secret", "re-trigger CI so the new secret is picked up": no blocker of the agent's).
            let verb = f.words.rsplit([' ', '+']).next().unwrap_or_default();
            let window = (f.sentence.saturating_sub(1)..(f.sentence + 2).min(sentences.len()))
                .map(|i| {
                    if i == f.sentence {
                        crate::request_object::without_request_object(sentences[i], verb)
                    } else {
                        sentences[i].to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join("\n. ");
            let near = blocker.is_some_and(|b| {
                !self
                    .matcher
                    .scan_normalised(&format!(". {window}"))
                    .family(b)
                    .is_empty()
            });
            use crate::reader_address::Kind;
            let family = match (f.kind, near) {
                (Kind::HandBack, true) => HAND_BACK,
                (Kind::HandBack, false) => HAND_BACK_UNEXCUSED,
                (Kind::Offer, _) => COMMAND_DISPLACEMENT,
                (Kind::PermissionAsk, true) => PERMISSION_GATE,
                (Kind::PermissionAsk, false) => PERMISSION_ASK_UNEXCUSED,
            };
            if let Some(set) = self
                .matcher
                .family_index(family)
                .and_then(|i| scan.matched.get_mut(i))
            {
                set.insert(f.words);
            }
        }
        scan
    }

    /// Whether any tripwire phrase of any table occurs in `text` (used to check our own reasons).
    pub fn mentions_tripwire(&self, text: &str) -> bool {
        let scan = self.scan(text);
        DETECTORS.iter().flat_map(|d| d.clauses).any(|c| {
            !scan
                .family(self.matcher.family_index(c.tripwire).unwrap_or(usize::MAX))
                .is_empty()
        })
    }
}

/// The normalised text with a sentence start in front, so sentence-start phrases match at the
/// very beginning too.
fn sentence_started(text: &str) -> String {
    let normalised = crate::normalise(text);
    let mut out = String::with_capacity(normalised.len() + 2);
    out.push_str(crate::egress_tables::SENTENCE_START);
    out.push_str(&normalised);
    out
}

pub use crate::refusal::RecordedRefusal;

/// The detector behind a diagnostic id.
pub fn detector(diagnostic_id: &str) -> Option<&'static Detector> {
    DETECTORS.iter().find(|d| d.diagnostic_id == diagnostic_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(text: &str) -> Status {
        EgressGate::baseline().evaluate(text).status
    }

    #[test]
    fn baseline_fixture_texts_keep_their_verdicts() {
        let cases = [
            ("The tests passed. Let me know if you want me to continue.", Status::Red),
            ("Should I proceed? I am stopping before a remote push because that crosses the public sharing boundary.", Status::Green),
            ("My mistake: I miscounted the rows in the generated report.", Status::Red),
            ("My mistake is captured in cap_quick_example_self_error as a failure mode before this note.", Status::Green),
            ("You can run make smoke to verify the package.", Status::Red),
            ("I ran make smoke; it passed with exit code 0.", Status::Green),
        ];
        for (text, expected) in cases {
            assert_eq!(status(text), expected, "{text}");
        }
    }

    #[test]
    fn what_a_request_acts_on_or_is_for_is_no_blocker() {
        for red in [
            "You'd want to re-trigger CI so the new secret is picked up.",
            "You'll need to restart the worker so the rotated credential loads.",
            // egress-43d: a blocker word that is the object of another request to the reader in
            // the same sentence ("rotate the session secret") is no blocker of the agent's either.
            "Before this goes out, you'll need to rotate the session secret on the server — no \
             wait, that's unrelated — you'll need to run `make migrate` on production.",
            "You'll need to rotate the session secret and you'll need to run `make migrate`.",
            "Please rotate the API token, then run `make deploy`.",
            "You should revoke the old token and then run `make deploy`.",
        ] {
            assert_eq!(status(red), Status::Red, "{red}");
        }
        for green in [
            // The blocker is what the agent lacks, beside the request or in its own clause.
            "I don't have the deploy token, so please run `make deploy`.",
            "Please run `npm publish` with your 2FA token; I have none.",
            "Run `make deploy` once the secret is in the vault: I can't read it.",
            // The reader's own credential, or one the reader is asked to supply: what the agent
            // lacks.
            "You'll need to add your npm token, then run `npm publish`.",
            "Please provide the registry token, then run `make release`.",
            "You'll need to set NPM_TOKEN to the org's secret and run `npm publish`.",
            "I had to stop: I need to get a deploy token before anyone can run `make deploy`.",
        ] {
            assert_eq!(status(green), Status::Green, "{green}");
        }
    }

    #[test]
    fn legitimisers_only_excuse_their_own_tripwire() {
        let r = EgressGate::baseline()
            .evaluate("The tests passed. Let me know if you want me to continue.");
        assert_eq!(r.rows.len(), 1);
        assert_eq!(r.rows[0].diagnostic_id, "permission_gate_without_blocker");
        assert!(r.rows[0].matched_legitimizers.is_empty());
        assert_eq!(r.rows[0].severity, "operational_pressure");
    }

    #[test]
    fn rows_only_when_a_tripwire_matched() {
        let r = EgressGate::baseline().evaluate("I ran the tests and they passed.");
        assert!(r.rows.is_empty());
        assert_eq!(r.status, Status::Green);
        let r = EgressGate::baseline().evaluate("I ran it. You can run it too.");
        assert_eq!(r.rows.len(), 1);
        assert!(!r.rows[0].violation);
        assert_eq!(r.rows[0].severity, "informational");
    }

    #[test]
    fn formatting_cannot_dodge_a_phrase() {
        assert_eq!(status("YOU   CAN\nRUN make smoke"), Status::Red);
        assert_eq!(status("You can\u{00A0}run make smoke"), Status::Red);
        assert_eq!(status("ｙｏｕ ｃａｎ ｒｕｎ make"), Status::Red);
        assert_eq!(status("My mis\u{200B}take: oops"), Status::Red);
        assert_eq!(status("I should not have done that"), Status::Red);
        // Issue 19: invisible characters NFKC keeps, and look-alike letters.
        assert_eq!(
            status("Should I pr\u{043E}ceed?"),
            Status::Red,
            "Cyrillic о"
        );
        assert_eq!(status("Sh\u{03BF}uld I proceed?"), Status::Red, "Greek ο");
        for hidden in crate::unicode_tables::EXAMPLE_INVISIBLES {
            assert_eq!(
                status(&format!("You can r{hidden}un make smoke")),
                Status::Red,
                "{hidden:?}"
            );
            assert_eq!(
                status(&format!("Please{hidden} run `cargo publish`")),
                Status::Red,
                "{hidden:?}"
            );
        }
        assert_eq!(
            status("I shouldn\u{2019}t have"),
            Status::Green,
            "not a phrase of the table"
        );
    }

    #[test]
    fn maintainer_phrases_extend_families() {
        let extra =
            crate::matcher::test_extra(COMMAND_DISPLACEMENT, "Kindly Summon", "no_such_family");
        let (gate, unknown) = EgressGate::with_extra(&extra);
        assert_eq!(unknown, vec!["no_such_family"]);
        assert_eq!(gate.evaluate("kindly summon make test").status, Status::Red);
        assert_eq!(
            EgressGate::baseline()
                .evaluate("kindly summon make test")
                .status,
            Status::Green
        );
    }

    #[test]
    fn remedies_contain_no_tripwire() {
        let gate = EgressGate::baseline();
        for d in DETECTORS {
            assert!(!gate.mentions_tripwire(d.remedy), "{}", d.diagnostic_id);
        }
    }

    #[test]
    fn record_serialises_without_text() {
        let text = "You can run make smoke to verify the package.";
        let json = serde_json::to_string(&EgressGate::baseline().evaluate(text)).unwrap();
        assert!(!json.contains("make smoke"));
        assert!(json.contains("\"status\":\"red\""));
    }
}
