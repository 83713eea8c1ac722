//! One look-up per word for [`crate::reader_address`]: which of the reader tables a word can take
//! part in, as bits, and which entries of the phrase tables it opens. A sentence's bits (the union
//! over its words) tell which rules can fire at all; the rest are never run, and a phrase table is
//! compared at a word only with the entries that word opens. This is what keeps the sentence
//! reading within the hook's budget (issue 43: at most 1 ms over a trivial binary on a 64 KiB
//! message): most sentences of a report end at the look-ups.
//!
//! The lexicon is built from the tables by [`crate::lexicon_build`] at build time (`build.rs`
//! writes it as the static arrays below), so a word added to a table is seen here too and a stop
//! builds nothing.

pub use crate::lexicon_build::*;

include!(concat!(env!("OUT_DIR"), "/lexicon.rs"));

/// The slot of a word of the lexicon, or `None`: a multiply, a shift and an integer compare or
/// two (this runs once per word of the message).
#[inline]
pub fn slot_of(w: &str) -> Option<u16> {
    let k = key(w)?;
    let mut i = home(k);
    loop {
        let at = KEYS[i];
        if at == k {
            return Some(i as u16);
        }
        if at == 0 {
            return None;
        }
        i = (i + 1) & (SLOTS - 1);
    }
}

/// The bits of a word (0 for a word of no table) and its slot (0 for no word: its bits say so).
#[inline]
pub fn look_up(w: &str) -> (u32, u16) {
    match slot_of(w) {
        Some(s) => (BITS[usize::from(s)], s),
        None => (0, 0),
    }
}

/// The bits of a word (0 for a word of no table).
pub fn bits(w: &str) -> u32 {
    look_up(w).0
}

/// The operation a word is a form of ("pushing" → "push"), if it is one.
pub fn operation(w: &str) -> Option<&'static str> {
    slot_of(w).and_then(|s| OPS[usize::from(OP_OF[usize::from(s)])])
}

/// The entries of `table` that the word in `slot` opens, in table order (none for a table of no
/// bit: those are searched whole).
#[inline]
pub fn firsts(slot: u16, table: Indexed) -> impl Iterator<Item = &'static [&'static str]> {
    let s = usize::from(slot);
    let at = usize::from(FIRSTS_AT[s])..usize::from(FIRSTS_AT[s + 1]);
    let position = table.first.map_or(u8::MAX, |b| b.trailing_zeros() as u8);
    FIRSTS[at]
        .iter()
        .filter(move |(p, _)| *p == position)
        .filter_map(move |(_, n)| table.table.get(usize::from(*n)).copied())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexicon_build::APPROVAL_KEYS;
    use crate::reader_tables as t;

    #[test]
    fn every_table_word_fits_a_key() {
        let mut words: Vec<String> = FIRST_WORD_TABLES
            .iter()
            .flat_map(|i| i.table.iter().map(|e| e[0].to_string()))
            .collect();
        for v in t::OPERATION_VERBS {
            words.extend(forms(v));
            words.push(format!("re-{v}"));
        }
        for list in [
            t::OPERATION_NOUNS,
            t::SUBJECTS,
            t::COMMAND_VERBS,
            t::LIGHT_VERBS,
            APPROVAL_KEYS,
        ] {
            words.extend(list.iter().map(|w| w.to_string()));
        }
        for w in words {
            assert!(key(&w).is_some(), "{w:?} is longer than 16 bytes");
        }
    }

    #[test]
    fn a_key_is_the_word_packed_little_endian() {
        for w in [
            "a",
            "ab",
            "abc",
            "abcd",
            "abcdefg",
            "abcdefgh",
            "abcdefghi",
            "0123456789abcdef",
        ] {
            let mut buf = [0u8; 16];
            buf[..w.len()].copy_from_slice(w.as_bytes());
            assert_eq!(key(w), Some(u128::from_le_bytes(buf)), "{w}");
        }
        assert_eq!(key(""), None);
        assert_eq!(key("0123456789abcdefg"), None);
    }

    #[test]
    fn the_compiled_lexicon_is_the_tables() {
        // What build.rs wrote is what the tables build now (a stale OUT_DIR cannot pass).
        let fresh = build();
        assert_eq!(KEYS[..], fresh.keys[..]);
        assert_eq!(BITS[..], fresh.bits[..]);
        for s in 0..SLOTS {
            assert_eq!(OPS[usize::from(OP_OF[s])], fresh.ops[s], "slot {s}");
            let at = usize::from(FIRSTS_AT[s])..usize::from(FIRSTS_AT[s + 1]);
            assert_eq!(FIRSTS[at], fresh.firsts[s][..], "slot {s}");
        }
    }

    #[test]
    fn a_word_finds_the_entries_it_opens() {
        for i in FIRST_WORD_TABLES {
            for entry in i.table {
                let slot = slot_of(entry[0]).expect("a first word is in the lexicon");
                assert!(
                    firsts(slot, *i).any(|e| e == *entry),
                    "{entry:?} not listed under {:?}",
                    entry[0]
                );
                // In table order: the first entry that matches is the table's first.
                let listed: Vec<_> = firsts(slot, *i).collect();
                let in_order: Vec<_> = i
                    .table
                    .iter()
                    .copied()
                    .filter(|e| e[0] == entry[0])
                    .collect();
                assert_eq!(listed, in_order);
            }
        }
    }

    #[test]
    fn the_table_is_at_most_half_full() {
        let used = KEYS.iter().filter(|k| **k != 0).count();
        assert!(used * 2 <= SLOTS, "{used} words in {SLOTS} slots");
    }

    #[test]
    fn every_first_word_carries_its_tables_bit() {
        for i in FIRST_WORD_TABLES {
            let bit = i.first.expect("indexed");
            for entry in i.table {
                assert_ne!(bits(entry[0]) & bit, 0, "{entry:?}");
            }
        }
    }

    #[test]
    fn the_rules_word_gates_are_exact() {
        // The rules skip a word without the bit before comparing it with the table.
        for v in t::OPERATION_VERBS {
            assert_ne!(bits(v) & OP_VERB, 0, "{v}");
        }
        for n in t::OPERATION_NOUNS {
            assert_ne!(bits(n) & OP, 0, "{n}");
        }
    }

    #[test]
    fn forms_of_operations_are_known() {
        for (w, op) in [
            ("running", "run"),
            ("merged", "merge"),
            ("tagged", "tag"),
            ("pushing", "push"),
            ("ran", "run"),
            ("re-trigger", "trigger"),
            ("deployment", "deployment"),
        ] {
            assert_eq!(operation(w), Some(op), "{w}");
            assert_ne!(bits(w) & OP, 0, "{w}");
        }
        assert_eq!(operation("suite"), None);
        assert_ne!(bits("you") & YOU, 0);
        assert_ne!(bits("please") & LEADER, 0);
    }
}
