//! One Aho-Corasick automaton over every phrase of every family.
//!
//! Matching is substring membership over normalised text, with overlapping matches so that a
//! phrase inside a longer phrase is still seen. The automaton of a fixed phrase list can be
//! compiled at build time ([`Compiled`]: the shipped egress tables, `build.rs`), because every hook
//! process would otherwise build it before reading a word; any other list (a maintainer's phrases
//! added) is built at run time.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// Texts longer than this are scanned with a full DFA, built on first need: its build costs more
/// than a short text's whole scan, its scan is twice as fast on long ones. With the widened egress
/// tables (issue 19) the build costs about 12 M instructions; measured whole-process (callgrind),
/// the contiguous NFA wins up to about 512 KiB (256 KiB: 24.6 M against 30.4 M) and the DFA above
/// it (1 MiB: 74.2 M against 89.1 M).
const DFA_THRESHOLD: usize = 512 * 1024;

/// A named list of phrases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Family {
    pub id: String,
    pub phrases: Vec<String>,
}

impl Family {
    pub fn new(id: &str, phrases: &[&str]) -> Family {
        Family {
            id: id.to_string(),
            phrases: phrases.iter().map(|p| p.to_string()).collect(),
        }
    }
}

/// Adds the maintainer's phrases (config, by family id) to the families they name; returns the
/// names that match no family, for the maintainer to hear about.
pub fn extend_families(
    families: &mut [Family],
    extra: &std::collections::BTreeMap<String, Vec<String>>,
) -> Vec<String> {
    let mut unknown = Vec::new();
    for (name, phrases) in extra {
        match families.iter_mut().find(|f| f.id == *name) {
            Some(f) => f.phrases.extend(phrases.iter().cloned()),
            None => unknown.push(name.clone()),
        }
    }
    unknown
}

/// A maintainer's extra phrases for tests: `phrase` added to the known family `family`, and one
/// phrase for a family that does not exist (which `with_extra` must hand back).
#[cfg(test)]
pub(crate) fn test_extra(
    family: &str,
    phrase: &str,
    unknown: &str,
) -> std::collections::BTreeMap<String, Vec<String>> {
    [(family, phrase), (unknown, "x")]
        .into_iter()
        .map(|(f, p)| (f.to_string(), vec![p.to_string()]))
        .collect()
}

/// A DFA over a fixed phrase list, compiled at build time (`build.rs` writes one for the shipped
/// egress tables): no automaton is built when the hook starts, and the scan is one table look-up
/// per byte.
#[derive(Debug)]
pub struct Compiled {
    /// The phrases as the tables spell them, before normalisation: `patterns[i]` is
    /// `sources[i]` normalised. A matcher given exactly these takes `patterns` as they are.
    pub sources: &'static [&'static str],
    /// The normalised phrases, in the order of the families' phrases (pattern ids).
    pub patterns: &'static [&'static str],
    /// Each byte's class (0: a byte of no pattern).
    pub class: [u8; 256],
    pub classes: usize,
    /// `next[state + class]`: the next state. States are numbered premultiplied by `classes`
    /// (state 0 is the start), those where no phrase ends first.
    pub next: &'static [u16],
    /// The first state where phrases end: every state from it on ends some.
    pub first_match: u16,
    /// The phrases that end at the `k`-th state from `first_match`:
    /// `matches[matches_at[k]..matches_at[k + 1]]`.
    pub matches_at: &'static [u16],
    pub matches: &'static [u16],
}

impl Compiled {
    /// Calls `found` with every pattern id that ends at each position of `text`, as an
    /// overlapping search reports them; stops when `found` returns true.
    fn each_match(&self, text: &str, mut found: impl FnMut(usize) -> bool) {
        // One add and one load per byte (premultiplied ids), and one compare for whether a
        // phrase ends: this runs over every byte of the agent's text.
        let first_match = usize::from(self.first_match);
        let mut state = 0usize;
        for b in text.bytes() {
            state = usize::from(self.next[state + usize::from(self.class[usize::from(b)])]);
            if state >= first_match {
                let k = (state - first_match) / self.classes;
                let from = usize::from(self.matches_at[k]);
                let to = usize::from(self.matches_at[k + 1]);
                for p in &self.matches[from..to] {
                    if found(usize::from(*p)) {
                        return;
                    }
                }
            }
        }
    }
}

/// How a matcher scans: with an automaton built from its families, or with the DFA compiled for
/// exactly its phrases.
#[derive(Debug, Clone)]
enum Automaton {
    Built {
        automaton: AhoCorasick,
        dfa: OnceLock<Option<AhoCorasick>>,
    },
    Compiled(&'static Compiled),
}

/// The compiled matcher.
#[derive(Debug, Clone)]
pub struct PhraseMatcher {
    families: Vec<Family>,
    automaton: Automaton,
    patterns: Vec<String>,
    /// For each pattern: (family index, phrase index).
    owners: Vec<(usize, usize)>,
}

/// Which phrases of which family matched, by family index; phrases sorted and unique.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    pub matched: Vec<BTreeSet<String>>,
}

impl Scan {
    pub fn family(&self, index: usize) -> Vec<String> {
        self.matched
            .get(index)
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default()
    }
}

impl PhraseMatcher {
    /// Compiles the families. Phrases are normalised like the text they will meet; empty phrases
    /// are dropped (they would match everything).
    pub fn new(families: Vec<Family>) -> PhraseMatcher {
        PhraseMatcher::with_compiled(families, None)
    }

    /// Like [`PhraseMatcher::new`], scanning with `compiled` when it was compiled for exactly these
    /// phrases (the shipped tables, no maintainer phrase added); otherwise an automaton is built.
    pub fn with_compiled(
        families: Vec<Family>,
        compiled: Option<&'static Compiled>,
    ) -> PhraseMatcher {
        // The shipped tables as they are: their normalised phrases were written at build time
        // (normalising them here cost every hook process about 0.23 M instructions).
        let prebuilt = compiled.filter(|c| {
            families
                .iter()
                .flat_map(|f| f.phrases.iter())
                .map(String::as_str)
                .eq(c.sources.iter().copied())
        });
        let families: Vec<Family> = match prebuilt {
            Some(c) => {
                let mut normalised = c.patterns.iter();
                families
                    .into_iter()
                    .map(|f| Family {
                        phrases: normalised
                            .by_ref()
                            .take(f.phrases.len())
                            .map(|p| (*p).to_string())
                            .collect(),
                        id: f.id,
                    })
                    .collect()
            }
            None => families
                .into_iter()
                .map(|f| Family {
                    id: f.id,
                    phrases: f
                        .phrases
                        .iter()
                        .map(|p| normalise_phrase(p))
                        .filter(|p| !p.trim().is_empty())
                        .collect(),
                })
                .collect(),
        };
        let mut patterns = Vec::new();
        let mut owners = Vec::new();
        for (fi, fam) in families.iter().enumerate() {
            for (pi, phrase) in fam.phrases.iter().enumerate() {
                patterns.push(phrase.clone());
                owners.push((fi, pi));
            }
        }
        let automaton = match compiled.filter(|c| c.patterns.iter().eq(patterns.iter())) {
            Some(c) => Automaton::Compiled(c),
            // A contiguous NFA: a tenth of a full DFA's build cost, which every hook process
            // pays once.
            None => Automaton::Built {
                automaton: build(&patterns, AhoCorasickKind::ContiguousNFA).expect(
                    "phrase tables are small; building the automaton cannot exceed its limits",
                ),
                dfa: OnceLock::new(),
            },
        };
        PhraseMatcher {
            families,
            automaton,
            patterns,
            owners,
        }
    }

    /// Whether this matcher scans with a DFA compiled at build time.
    pub fn is_compiled(&self) -> bool {
        matches!(self.automaton, Automaton::Compiled(_))
    }

    pub fn families(&self) -> &[Family] {
        &self.families
    }

    pub fn family_index(&self, id: &str) -> Option<usize> {
        self.families.iter().position(|f| f.id == id)
    }

    /// Scans text that is already normalised.
    pub fn scan_normalised(&self, text: &str) -> Scan {
        let mut matched = vec![BTreeSet::new(); self.families.len()];
        let total = self.owners.len();
        let mut seen = vec![false; total];
        let mut distinct = 0;
        // Records pattern `p`; true once every pattern was seen (nothing more to find).
        let mut found = |p: usize| {
            if !seen[p] {
                seen[p] = true;
                distinct += 1;
                let (fi, pi) = self.owners[p];
                matched[fi].insert(self.families[fi].phrases[pi].clone());
            }
            distinct == total
        };
        match &self.automaton {
            Automaton::Compiled(c) => c.each_match(text, found),
            Automaton::Built { automaton, dfa } => {
                let automaton = if text.len() > DFA_THRESHOLD {
                    dfa.get_or_init(|| build(&self.patterns, AhoCorasickKind::DFA))
                        .as_ref()
                        .unwrap_or(automaton)
                } else {
                    automaton
                };
                for m in automaton.find_overlapping_iter(text) {
                    if found(m.pattern().as_usize()) {
                        break;
                    }
                }
            }
        }
        Scan { matched }
    }

    /// Normalises and scans.
    pub fn scan(&self, text: &str) -> Scan {
        self.scan_normalised(&crate::normalise(text))
    }
}

/// Normalises a phrase like the text it will meet, keeping one space at either end when the
/// phrase had white space there: a trailing space is how a table says "this word, not a longer
/// one" ("then run " must not match "then runs").
fn normalise_phrase(phrase: &str) -> String {
    let core = crate::normalise(phrase);
    let lead = if phrase.starts_with(char::is_whitespace) {
        " "
    } else {
        ""
    };
    let trail = if phrase.ends_with(char::is_whitespace) {
        " "
    } else {
        ""
    };
    format!("{lead}{core}{trail}")
}

fn build(patterns: &[String], kind: AhoCorasickKind) -> Option<AhoCorasick> {
    AhoCorasickBuilder::new()
        .match_kind(MatchKind::Standard)
        .kind(Some(kind))
        .build(patterns)
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_overlapping_phrases_per_family() {
        let m = PhraseMatcher::new(vec![
            Family::new("a", &["run this command", "run this"]),
            Family::new("b", &["this command"]),
        ]);
        let s = m.scan("Please RUN this   command.");
        assert_eq!(s.family(0), vec!["run this", "run this command"]);
        assert_eq!(s.family(1), vec!["this command"]);
        assert_eq!(m.family_index("b"), Some(1));
    }

    #[test]
    fn long_texts_take_the_dfa_and_agree() {
        let m = PhraseMatcher::new(vec![Family::new("a", &["you can run", "can r"])]);
        let mut long = "x".repeat(DFA_THRESHOLD + 10);
        long.push_str(" you can run");
        assert_eq!(m.scan(&long).family(0), vec!["can r", "you can run"]);
        assert_eq!(
            m.scan("you can run").family(0),
            vec!["can r", "you can run"]
        );
    }

    #[test]
    fn phrases_are_normalised_and_empty_ones_dropped() {
        let m = PhraseMatcher::new(vec![Family::new("a", &["My  \tMistake", "", "  "])]);
        assert_eq!(m.families()[0].phrases, vec!["my mistake"]);
        assert_eq!(m.scan("it was my mistake").family(0), vec!["my mistake"]);
        assert!(m.scan("").family(0).is_empty());
    }

    /// The shipped tables compiled at build time find what the automaton built at run time
    /// finds: every phrase alone, every phrase inside text, and the texts the proptest makes.
    fn compiled_and_built() -> (PhraseMatcher, PhraseMatcher) {
        let families = crate::egress_tables::shipped_families();
        let compiled =
            PhraseMatcher::with_compiled(families.clone(), Some(&crate::egress_tables::COMPILED));
        (compiled, PhraseMatcher::new(families))
    }

    #[test]
    fn the_shipped_tables_scan_with_the_compiled_dfa() {
        let (compiled, built) = compiled_and_built();
        assert!(compiled.is_compiled());
        assert!(!built.is_compiled());
        let mut all = String::from(". ");
        for p in &built.patterns {
            for text in [p.clone(), format!("x{p}y"), format!(". {p}. ")] {
                assert_eq!(
                    compiled.scan_normalised(&text),
                    built.scan_normalised(&text),
                    "{text:?}"
                );
            }
            all.push_str(p);
            all.push_str(" é. ");
        }
        assert_eq!(compiled.scan_normalised(&all), built.scan_normalised(&all));
        let mut extra = crate::egress_tables::shipped_families();
        extra[0].phrases.push("please execute".into());
        assert!(
            !PhraseMatcher::with_compiled(extra, Some(&crate::egress_tables::COMPILED))
                .is_compiled()
        );
    }

    proptest::proptest! {
        #[test]
        fn compiled_and_built_scans_agree(text in "[ .a-z'_é-]{0,200}") {
            let (compiled, built) = compiled_and_built();
            proptest::prop_assert_eq!(compiled.scan_normalised(&text), built.scan_normalised(&text));
        }
    }

    #[test]
    fn a_space_at_either_end_bounds_the_word() {
        let m = PhraseMatcher::new(vec![Family::new("a", &["then run  "])]);
        assert_eq!(m.families()[0].phrases, vec!["then run "]);
        assert_eq!(m.scan("then   run `x`").family(0), vec!["then run "]);
        assert!(m.scan("it then runs `x`").family(0).is_empty());
    }
}
