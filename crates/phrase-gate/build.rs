//! Compiles the reader's lexicon (`src/lexicon_build.rs` over `src/reader_tables.rs`) into static
//! arrays, and the shipped egress phrase tables (`src/egress_phrases.rs`) into a DFA at build time,
//! written to `OUT_DIR/egress_dfa.rs` as `matcher::Compiled` (issue 43: the hook answers every
//! stop in a new process, and building the Aho-Corasick automaton there cost more than scanning a
//! 64 KiB message; a table compiled here costs nothing to start and a table look-up per byte).
//!
//! The DFA is aho-corasick's own (standard match semantics, unanchored), walked from its start
//! state over one byte per class and renumbered; every state keeps the patterns that end there,
//! which is exactly what an overlapping search reports. `matcher` tests compare it with the
//! automaton built at run time, phrase list and matches.

#[allow(dead_code)]
#[path = "src/lexicon_build.rs"]
mod lexicon_build;
#[allow(dead_code)]
#[path = "src/reader_tables.rs"]
mod reader_tables;

use aho_corasick::automaton::Automaton;
use aho_corasick::dfa::DFA;
use aho_corasick::{Anchored, MatchKind, StartKind};
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::fmt::Write;

#[allow(dead_code)]
mod phrases {
    include!("src/egress_phrases.rs");

    pub fn families() -> impl Iterator<Item = &'static [&'static str]> {
        FAMILY_TABLES
            .iter()
            .flat_map(|(_, baseline, wider)| [*baseline, *wider])
    }
}

/// `matcher::normalise_phrase` for the ASCII phrases the tables hold: lower case, white-space runs
/// collapsed, one space kept at either end where the phrase had white space.
fn normalise_phrase(p: &str) -> String {
    assert!(
        p.is_ascii(),
        "shipped phrase {p:?} is not ASCII: normalise it at run time"
    );
    let core = p
        .split(|c: char| c.is_ascii_whitespace() || c == '\u{b}')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_lowercase();
    if core.is_empty() {
        return core;
    }
    let lead = if p.starts_with(char::is_whitespace) {
        " "
    } else {
        ""
    };
    let trail = if p.ends_with(char::is_whitespace) {
        " "
    } else {
        ""
    };
    format!("{lead}{core}{trail}")
}

/// Writes the reader's lexicon (`lexicon_build::build`) as static arrays to
/// `OUT_DIR/lexicon.rs`, for `reader_lexicon` to look words up in.
fn write_lexicon() {
    let lex = lexicon_build::build();
    let mut out = String::new();
    let n = lexicon_build::SLOTS;
    let keys: Vec<String> = lex.keys.iter().map(|k| format!("{k:#x}")).collect();
    writeln!(out, "static KEYS: [u128; {n}] = [{}];", keys.join(",")).unwrap();
    writeln!(out, "static BITS: [u32; {n}] = {:?};", lex.bits).unwrap();
    // The operations by index (0: none), and each slot's index.
    let mut names: Vec<Option<&str>> = vec![None];
    let mut op_of = Vec::with_capacity(n);
    for op in &lex.ops {
        let i = names.iter().position(|x| x == op).unwrap_or_else(|| {
            names.push(*op);
            names.len() - 1
        });
        op_of.push(u8::try_from(i).expect("under 256 operations"));
    }
    writeln!(
        out,
        "static OPS: [Option<&str>; {}] = {names:?};",
        names.len()
    )
    .unwrap();
    writeln!(out, "static OP_OF: [u8; {n}] = {op_of:?};").unwrap();
    let mut at = vec![0u16];
    let mut firsts = Vec::new();
    for f in &lex.firsts {
        firsts.extend(f.iter().copied());
        at.push(u16::try_from(firsts.len()).expect("u16"));
    }
    writeln!(out, "static FIRSTS_AT: [u16; {}] = {at:?};", n + 1).unwrap();
    writeln!(
        out,
        "static FIRSTS: [(u8, u16); {}] = {firsts:?};",
        firsts.len()
    )
    .unwrap();
    let path = std::path::Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("lexicon.rs");
    std::fs::write(path, out).expect("OUT_DIR is writable");
}

fn main() {
    println!("cargo:rerun-if-changed=src/reader_tables.rs");
    println!("cargo:rerun-if-changed=src/lexicon_build.rs");
    write_lexicon();
    println!("cargo:rerun-if-changed=src/egress_phrases.rs");
    println!("cargo:rerun-if-changed=build.rs");
    // Every shipped phrase is kept (none normalises to nothing), so `sources[i]` is the phrase
    // `patterns[i]` was normalised from: the run time compares the raw phrases and skips
    // normalising them.
    let sources: Vec<&str> = phrases::families().flatten().copied().collect();
    let patterns: Vec<String> = sources.iter().map(|p| normalise_phrase(p)).collect();
    assert!(
        patterns.iter().all(|p| !p.trim().is_empty()),
        "a shipped phrase normalises to nothing"
    );
    let dfa = DFA::builder()
        .match_kind(MatchKind::Standard)
        .start_kind(StartKind::Unanchored)
        .build(&patterns)
        .expect("the shipped phrases compile");
    // Bytes of no pattern all behave alike (back to where a pattern can start): class 0.
    let used: BTreeSet<u8> = patterns.iter().flat_map(|p| p.bytes()).collect();
    let mut class = [0u8; 256];
    let mut representative = vec![(0..=255u8).find(|b| !used.contains(b)).unwrap_or(0)];
    for b in &used {
        class[usize::from(*b)] = u8::try_from(representative.len()).expect("under 256 classes");
        representative.push(*b);
    }
    let classes = representative.len();
    let start = dfa.start_state(Anchored::No).expect("unanchored start");
    let mut index: HashMap<u32, usize> = HashMap::new();
    let mut order = Vec::new();
    let mut queue = VecDeque::new();
    index.insert(start.as_u32(), 0);
    order.push(start);
    queue.push_back(start);
    let mut next: Vec<(u32, usize, aho_corasick::automaton::StateID)> = Vec::new();
    while let Some(sid) = queue.pop_front() {
        for (c, b) in representative.iter().enumerate() {
            let to = dfa.next_state(Anchored::No, sid, *b);
            assert!(!dfa.is_dead(to), "an unanchored standard DFA never dies");
            if let std::collections::hash_map::Entry::Vacant(e) = index.entry(to.as_u32()) {
                e.insert(order.len());
                order.push(to);
                queue.push_back(to);
            }
            next.push((sid.as_u32(), c, to));
        }
    }
    // Renumbered: the states where no phrase ends first (the start among them, as 0), those
    // where one ends after them, so "a phrase ends here" is one compare with the first of those;
    // each id premultiplied by the classes, so the next state is one add and one load per byte.
    let (plain, ending): (Vec<_>, Vec<_>) = order.iter().copied().partition(|s| !dfa.is_match(*s));
    assert!(!dfa.is_match(start), "no empty phrase: the start ends none");
    let order: Vec<_> = plain.into_iter().chain(ending).collect();
    let first_match = order
        .iter()
        .position(|s| dfa.is_match(*s))
        .unwrap_or(order.len());
    let renumbered: HashMap<u32, usize> = order
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_u32(), i))
        .collect();
    let id = |i: usize| u16::try_from(i * classes).expect("premultiplied state ids fit 16 bits");
    let mut table = vec![0u16; order.len() * classes];
    for (from, c, to) in next {
        let from = renumbered[&from];
        table[from * classes + c] = id(renumbered[&to.as_u32()]);
    }
    let mut matches_at = vec![0u16];
    let mut matches = Vec::new();
    for sid in &order[first_match..] {
        for i in 0..dfa.match_len(*sid) {
            matches.push(u16::try_from(dfa.match_pattern(*sid, i).as_usize()).expect("u16"));
        }
        matches_at.push(u16::try_from(matches.len()).expect("u16"));
    }
    let mut out = String::new();
    let list = |v: &[u16]| v.iter().map(u16::to_string).collect::<Vec<_>>().join(",");
    writeln!(out, "Compiled {{").unwrap();
    writeln!(out, "    sources: &{sources:?},").unwrap();
    writeln!(out, "    patterns: &{patterns:?},").unwrap();
    writeln!(out, "    class: {class:?},").unwrap();
    writeln!(out, "    classes: {classes},").unwrap();
    writeln!(out, "    first_match: {},", id(first_match)).unwrap();
    writeln!(out, "    next: &[{}],", list(&table)).unwrap();
    writeln!(out, "    matches_at: &[{}],", list(&matches_at)).unwrap();
    writeln!(out, "    matches: &[{}],", list(&matches)).unwrap();
    writeln!(out, "}}").unwrap();
    let path =
        std::path::Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("egress_dfa.rs");
    std::fs::write(path, out).expect("OUT_DIR is writable");
}
