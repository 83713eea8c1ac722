//! The reader's lexicon as data, built from the word tables ([`crate::reader_tables`]): each word
//! a table holds (and each form of an operation) with its bits, the operation it is a form of, and
//! the entries of the phrase tables it opens. This module is compiled twice: by `build.rs`, which
//! runs [`build`] and writes the result as static arrays (a hook process builds nothing: issue 43,
//! the lexicon cost 0.15 M instructions at every stop), and into the crate, where
//! [`crate::reader_lexicon`] looks words up in those arrays and its tests compare them with a
//! fresh [`build`]. One place for the tables' bits, so the two can never disagree.

use crate::reader_tables as t;

/// "you", "your", "yours": the reader.
pub const YOU: u32 = 1 << 0;
/// "i", "me", "we", …: the agent.
pub const AGENT: u32 = 1 << 1;
/// Any form of an operation: verb, noun, -ing, -ed, "re-" ("pushed", "deployment", "re-run").
pub const OP: u32 = 1 << 2;
/// An operation verb in its base form.
pub const OP_VERB: u32 = 1 << 3;
/// A verb that is an operation with a command beside it ("verify", "try").
pub const COMMAND_VERB: u32 = 1 << 4;
/// A light verb ("hit merge").
pub const LIGHT: u32 = 1 << 5;
/// The first word of a leader ("please", "go ahead and").
pub const LEADER: u32 = 1 << 6;
/// A clause subject, never an order's verb.
pub const SUBJECT: u32 = 1 << 7;
/// An irregular past ("ran").
pub const IRREGULAR: u32 = 1 << 8;
/// A word the reader's-turn phrases need ("left", "final", "yours").
pub const TURN: u32 = 1 << 9;
/// A word the pending-operation phrases need ("matter", "requires", "be").
pub const PENDING: u32 = 1 << 10;
/// A remainder adjective ("final", "last", "remaining").
pub const REMAINDER: u32 = 1 << 11;
/// A recommending verb ("recommend", "consider").
pub const RECOMMEND: u32 = 1 << 12;
/// "it" (for "it would be good to …").
pub const IT: u32 = 1 << 13;
/// A word the approval phrases need ("approval", "confirm", "word").
pub const APPROVAL: u32 = 1 << 14;
/// A verb an order may start with before its operation ("bump … and publish").
pub const ORDERING: u32 = 1 << 15;

/// A phrase table and the bit every first word of its entries carries, so that a table is only
/// compared at the words that can open one of its entries, and there only with the entries that
/// word opens (the lexicon lists them by the bit's position). The pair is one value: a table is
/// never looked up by its address or its content at each use.
#[derive(Debug, Clone, Copy)]
pub struct Indexed {
    pub table: &'static [&'static [&'static str]],
    /// `None`: a table of no bit (every word is tried).
    pub first: Option<u32>,
}

impl Indexed {
    /// A small table of the rules' own, with no bit: every word is tried.
    pub const fn unindexed(table: &'static [&'static [&'static str]]) -> Indexed {
        Indexed { table, first: None }
    }
}

const fn indexed(table: &'static [&'static [&'static str]], bit: u32) -> Indexed {
    Indexed {
        table,
        first: Some(bit),
    }
}

pub const READER_TURN: Indexed = indexed(t::READER_TURN, 1 << 16);
pub const DELEGATIONS: Indexed = indexed(t::DELEGATIONS, 1 << 17);
pub const APPROVAL_PHRASES: Indexed = indexed(t::APPROVAL, 1 << 18);
pub const LEAVE: Indexed = indexed(t::LEAVE, 1 << 19);
pub const WAITING: Indexed = indexed(t::WAITING, 1 << 20);
pub const READER_PLACE: Indexed = indexed(t::READER_PLACE, 1 << 23);
pub const PENDING_PHRASES: Indexed = indexed(t::PENDING, 1 << 21);
pub const READER_MODAL_PHRASES: Indexed = indexed(t::READER_MODALS, 1 << 24);
pub const LEADER_PHRASES: Indexed = indexed(t::LEADERS, LEADER);

/// Every table whose first words carry a bit.
pub static FIRST_WORD_TABLES: &[Indexed] = &[
    READER_TURN,
    DELEGATIONS,
    APPROVAL_PHRASES,
    LEAVE,
    WAITING,
    PENDING_PHRASES,
    indexed(t::NOT_A_REQUEST, 1 << 22),
    READER_PLACE,
    READER_MODAL_PHRASES,
    indexed(t::ELIDED_ASKS, 1 << 25),
    indexed(t::ASKING_FILLERS, 1 << 26),
    LEADER_PHRASES,
];

/// For each reader's-turn phrase without "you"/"your"/"yours", a word of it that must occur for it
/// to match (the rarest one: "manual" of "manual step").
const TURN_KEYS: &[&str] = &[
    "required",
    "manual",
    "operator",
    "left",
    "thing",
    "final",
    "remaining",
    "leave",
    "maintainer",
    "needs",
    "honours",
    "honors",
    "remains",
];
/// Likewise for the pending-operation phrases.
const PENDING_KEYS: &[&str] = &[
    "matter", "requires", "require", "needs", "need", "be", "left", "remains", "run",
    // "just a `git push` away from done" (`one_step_away`).
    "away",
];
/// Likewise for the approval phrases.
pub(crate) const APPROVAL_KEYS: &[&str] = &[
    "approval",
    "approve",
    "approves",
    "confirm",
    "confirmation",
    "go-ahead",
    "go",
    "ok",
    "okay",
    "word",
    "review",
    "decision",
    "yes",
    "signal",
    "nod",
    "light",
    "permission",
    "thumbs",
    "thumbs-up",
    "sounds",
    "say",
    "sign-off",
    "sign",
    "reply",
    "so",
    "want",
    "like",
    "works",
    "happy",
    "instructions",
    "know",
    "lmk",
    "tell",
    "fine",
    "agree",
    "advise",
    "say-so",
    "wait",
    "waiting",
];

/// A word of at most 16 bytes packed into one integer: looking it up is a multiply and an integer
/// compare, with no string hashed or compared byte by byte. Every table word fits (`build` checks);
/// a longer word of the text is in no table.
pub type Key = u128;

pub fn key(w: &str) -> Option<Key> {
    let b = w.as_bytes();
    if b.is_empty() || b.len() > 16 {
        return None;
    }
    // Each half packed from at most two fixed-size reads that overlap, OR-ed into place (the bytes
    // they share are the same), shifted as u64: no loop over the bytes, no `memcpy` of the word's
    // length and no variable u128 shift, which cost more than the word.
    let half = |h: &[u8]| -> u64 {
        let n = h.len();
        let at = |i: usize| u64::from(h[i]) << (8 * i);
        match n {
            0 => 0,
            1..=3 => at(0) | at(n / 2) | at(n - 1),
            4..=7 => {
                let lo = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
                let hi = u32::from_le_bytes([h[n - 4], h[n - 3], h[n - 2], h[n - 1]]);
                u64::from(lo) | (u64::from(hi) << (8 * (n - 4)))
            }
            _ => u64::from_le_bytes([h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]]),
        }
    };
    let (lo, hi) = b.split_at(b.len().min(8));
    let k = u128::from(half(lo)) | (u128::from(half(hi)) << 64);
    Some(k)
}

/// Slots of the lexicon's table: a power of two, over twice the words the tables hold (about
/// 700), so a look-up ends within a probe or two.
pub const SLOTS: usize = 2048;

/// Where a search for `k` starts: a multiply and a shift of the folded key.
#[inline(always)]
pub fn home(k: Key) -> usize {
    let folded = (k as u64) ^ ((k >> 64) as u64).rotate_left(29);
    (folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SLOTS.trailing_zeros())) as usize
}

/// The lexicon: an open-addressing table of packed words (0 marks an empty slot: no word packs
/// to 0), with each word's bits, the operation it is a form of, and the phrase-table entries it
/// opens.
pub struct Lexicon {
    pub keys: Vec<Key>,
    pub bits: Vec<u32>,
    /// Each form of an operation, to the operation it is a form of ("merged" → "merge").
    pub ops: Vec<Option<&'static str>>,
    /// For each slot, the entries its word opens, in table order: (the table's bit position,
    /// the entry's index in its table).
    pub firsts: Vec<Vec<(u8, u16)>>,
}

impl Lexicon {
    /// The slot of `k`: where it is, or the empty slot where it would go.
    pub fn slot(&self, k: Key) -> usize {
        let mut i = home(k);
        while self.keys[i] != k && self.keys[i] != 0 {
            i = (i + 1) & (SLOTS - 1);
        }
        i
    }

    /// The slot of `k`, taken for it if it was empty.
    fn entry(&mut self, k: Key) -> usize {
        let i = self.slot(k);
        self.keys[i] = k;
        i
    }
}

/// The lexicon of the tables.
pub fn build() -> Lexicon {
    let mut lex = Lexicon {
        keys: vec![0; SLOTS],
        bits: vec![0; SLOTS],
        ops: vec![None; SLOTS],
        firsts: vec![Vec::new(); SLOTS],
    };
    // A word too long for a key could never be looked up: `every_table_word_fits_a_key` keeps
    // the tables within 16 bytes.
    let add = |lex: &mut Lexicon, w: &str, b: u32| {
        if let Some(k) = key(w) {
            let i = lex.entry(k);
            lex.bits[i] |= b;
        }
    };
    let op = |lex: &mut Lexicon, w: &str, v: &'static str, replace: bool| {
        let Some(k) = key(w) else { return };
        let i = lex.entry(k);
        if replace || lex.ops[i].is_none() {
            lex.ops[i] = Some(v);
        }
    };
    let singles: &[(&[&str], u32)] = &[
        (&["you", "your", "yours"], YOU),
        (t::AGENT, AGENT),
        (t::COMMAND_VERBS, COMMAND_VERB),
        (t::LIGHT_VERBS, LIGHT),
        (t::SUBJECTS, SUBJECT),
        (t::IRREGULAR_PAST, IRREGULAR),
        (TURN_KEYS, TURN),
        (PENDING_KEYS, PENDING),
        (t::REMAINDER_ADJECTIVES, REMAINDER),
        (t::RECOMMENDING, RECOMMEND),
        (&["it"], IT),
        (APPROVAL_KEYS, APPROVAL),
        (t::ORDERING_VERBS, ORDERING),
    ];
    for (words, b) in singles {
        for w in *words {
            add(&mut lex, w, *b);
        }
    }
    for i in FIRST_WORD_TABLES {
        let bit = i.first.unwrap_or(0);
        for (n, entry) in i.table.iter().enumerate() {
            add(&mut lex, entry[0], bit);
            if let Some(k) = key(entry[0]) {
                let s = lex.entry(k);
                let n = u16::try_from(n).expect("a table of under 65,536 entries");
                lex.firsts[s].push((bit.trailing_zeros() as u8, n));
            }
        }
    }
    for v in t::OPERATION_VERBS {
        each_form(v, |form| {
            add(&mut lex, form, OP);
            op(&mut lex, form, v, false);
        });
        add(&mut lex, v, OP_VERB);
        let mut re = [0u8; 16];
        if let Some(slot) = re.get_mut(3..3 + v.len()) {
            slot.copy_from_slice(v.as_bytes());
            re[..3].copy_from_slice(b"re-");
            if let Ok(w) = std::str::from_utf8(&re[..3 + v.len()]) {
                add(&mut lex, w, OP_VERB | OP);
                op(&mut lex, w, v, true);
            }
        }
    }
    for n in t::OPERATION_NOUNS {
        add(&mut lex, n, OP);
        op(&mut lex, n, n, false);
    }
    add(&mut lex, "ran", OP);
    op(&mut lex, "ran", "run", true);
    lex
}

/// A verb's base, -ing and -ed forms, with the final consonant doubled or the final "e" dropped
/// as English spells them (extra forms that are no word do no harm). Each form is written into a
/// buffer on the stack and handed to `each`.
pub fn each_form(v: &str, mut each: impl FnMut(&str)) {
    let mut buf = [0u8; 24];
    let mut with = |parts: &[&[u8]], each: &mut dyn FnMut(&str)| {
        let mut n = 0;
        for p in parts {
            let end = n + p.len();
            let Some(slot) = buf.get_mut(n..end) else {
                return;
            };
            slot.copy_from_slice(p);
            n = end;
        }
        if let Ok(w) = std::str::from_utf8(&buf[..n]) {
            each(w);
        }
    };
    let b = v.as_bytes();
    each(v);
    let stem = v.strip_suffix('e').unwrap_or(v).as_bytes();
    let last = b.last().copied().filter(|c| !b"aeiouyw".contains(c));
    for suffix in [&b"ing"[..], b"ed"] {
        with(&[stem, suffix], &mut each);
        with(&[b, suffix], &mut each);
        if let Some(last) = last {
            with(&[b, &[last], suffix], &mut each);
        }
    }
    // "apply" → "applied" (the -ing form keeps the "y").
    if let Some(stem) = v.strip_suffix('y') {
        with(&[stem.as_bytes(), b"ied"], &mut each);
    }
}

/// The forms of [`each_form`], collected (tests).
#[cfg(test)]
pub fn forms(v: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_form(v, |f| out.push(f.to_string()));
    out
}
