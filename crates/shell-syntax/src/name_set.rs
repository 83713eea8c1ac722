//! [`NameSet`]: a 64-bit summary of a few names, answering "certainly not one of them" in a
//! few instructions, before a scan of a table or a list that would compare each entry.

/// A set of names as two bits each in 256 (a Bloom filter): [`NameSet::may_contain`] is
/// `false` only for a name none of them is; `true` means "scan to know" (for a table of 40
/// names about one other name in fifteen). Built at compile time for a table (`const`
/// context) or one name at a time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NameSet([u64; 4]);

impl NameSet {
    pub const EMPTY: NameSet = NameSet([0; 4]);

    /// The two bit positions of `name`: bytes of a multiplicative hash (length and every
    /// byte count).
    const fn bits(name: &str) -> [usize; 2] {
        let b = name.as_bytes();
        let mut h = b.len() as u64;
        let mut i = 0;
        while i < b.len() {
            h = h.wrapping_mul(31).wrapping_add(b[i] as u64);
            i += 1;
        }
        let m = h.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        [(m >> 56) as usize, (m >> 48) as usize & 0xff]
    }

    /// The set of `names`.
    pub const fn of(names: &[&str]) -> NameSet {
        let mut s = NameSet::EMPTY;
        let mut i = 0;
        while i < names.len() {
            s = s.with(names[i]);
            i += 1;
        }
        s
    }

    /// This set and `name`.
    #[must_use]
    pub const fn with(self, name: &str) -> NameSet {
        let mut w = self.0;
        let [a, b] = NameSet::bits(name);
        w[a / 64] |= 1 << (a % 64);
        w[b / 64] |= 1 << (b % 64);
        NameSet(w)
    }

    /// Both sets.
    #[must_use]
    pub const fn union(self, other: NameSet) -> NameSet {
        let (a, b) = (self.0, other.0);
        NameSet([a[0] | b[0], a[1] | b[1], a[2] | b[2], a[3] | b[3]])
    }

    /// `false` when `name` is certainly not in the set.
    #[inline]
    pub const fn may_contain(&self, name: &str) -> bool {
        let [a, b] = NameSet::bits(name);
        self.0[a / 64] & (1 << (a % 64)) != 0 && self.0[b / 64] & (1 << (b % 64)) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::NameSet;

    #[test]
    fn members_are_found_and_most_others_are_not() {
        let names = ["GIT_DIR", "PATH", "HOME", "git", "curl", "rm"];
        let s = NameSet::of(&names);
        assert!(names.iter().all(|n| s.may_contain(n)));
        // At most 12 of 256 bits set: other names must miss.
        let others = [
            "GIT_WORK_TREE",
            "GIT_CONFIG_COUNT",
            "ls",
            "echo",
            "cat",
            "sed",
            "x",
            "y",
        ];
        let hits = others.iter().filter(|n| s.may_contain(n)).count();
        assert!(hits <= 1, "{hits} false positives");
        assert!(!NameSet::EMPTY.may_contain(""));
        assert_eq!(
            NameSet::EMPTY.with("a").union(NameSet::EMPTY.with("b")),
            NameSet::of(&["a", "b"])
        );
    }
}
