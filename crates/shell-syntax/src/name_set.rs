//! [`NameSet`]: a 64-bit summary of a few names, answering "certainly not one of them" in a
//! few instructions, before a scan of a table or a list that would compare each entry.

/// A set of names as two bits each in `64 * W` (a Bloom filter): [`NameSet::may_contain`] is
/// `false` only for a name none of them is; `true` means "scan to know" (with the default 256
/// bits, for a table of 40 names about one other name in fifteen). Built at compile time for
/// a table (`const` context) or one name at a time; `NameSet<1>` for a few names in a small
/// value (a node of a list).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameSet<const W: usize = 4>([u64; W]);

impl<const W: usize> Default for NameSet<W> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<const W: usize> NameSet<W> {
    pub const EMPTY: NameSet<W> = NameSet([0; W]);

    /// The two bit positions of `name`: a multiplicative hash of its length and five of its
    /// bytes (constant time: it runs for every variable a script assigns).
    const fn bits(name: &str) -> [usize; 2] {
        let b = name.as_bytes();
        let n = b.len();
        let h = if n == 0 {
            0
        } else {
            n as u64
                | (b[0] as u64) << 8
                | (b[n / 4] as u64) << 16
                | (b[n / 2] as u64) << 24
                | (b[n * 3 / 4] as u64) << 32
                | (b[n - 1] as u64) << 40
        };
        let m = h.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        [(m >> 56) as usize % (64 * W), (m >> 48) as usize % (64 * W)]
    }

    /// The set of `names`.
    pub const fn of(names: &[&str]) -> NameSet<W> {
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
    pub const fn with(self, name: &str) -> NameSet<W> {
        let mut w = self.0;
        let [a, b] = NameSet::<W>::bits(name);
        w[a / 64] |= 1 << (a % 64);
        w[b / 64] |= 1 << (b % 64);
        NameSet(w)
    }

    /// Both sets.
    #[must_use]
    pub const fn union(self, other: NameSet<W>) -> NameSet<W> {
        let mut w = self.0;
        let mut i = 0;
        while i < W {
            w[i] |= other.0[i];
            i += 1;
        }
        NameSet(w)
    }

    /// `false` when `name` is certainly not in the set.
    #[inline]
    pub const fn may_contain(&self, name: &str) -> bool {
        let [a, b] = NameSet::<W>::bits(name);
        self.0[a / 64] & (1 << (a % 64)) != 0 && self.0[b / 64] & (1 << (b % 64)) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::NameSet;

    #[test]
    fn members_are_found_and_most_others_are_not() {
        let names = ["GIT_DIR", "PATH", "HOME", "git", "curl", "rm"];
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
        let wide: NameSet = NameSet::of(&names);
        let narrow: NameSet<1> = NameSet::of(&names[..3]);
        assert!(names.iter().all(|n| wide.may_contain(n)));
        assert!(names[..3].iter().all(|n| narrow.may_contain(n)));
        // At most 12 of 256 bits set, and 6 of 64: other names must miss.
        let hits = others.iter().filter(|n| wide.may_contain(n)).count();
        assert!(hits <= 1, "{hits} false positives in 256 bits");
        let hits = others.iter().filter(|n| narrow.may_contain(n)).count();
        assert!(hits <= 1, "{hits} false positives in 64 bits");
        assert!(!NameSet::<4>::EMPTY.may_contain(""));
        assert_eq!(
            NameSet::<4>::EMPTY
                .with("a")
                .union(NameSet::EMPTY.with("b")),
            NameSet::of(&["a", "b"])
        );
    }
}
