//! The real token never goes back to the agent: everything the broker relays from an upstream
//! to an agent command passes through [`Redactor`], which replaces each occurrence of the real
//! token with the placeholder. They have the same length ([`crate::credentials`]), so body
//! lengths and chunk sizes stay true. Limits, said plainly: a token split by chunk framing or
//! inside a compressed body is not seen (GitHub does not echo tokens; this is the second
//! fence, the first is that the token is only ever sent to GitHub).

use std::io::{self, Write};

/// A writer that replaces each `from` by its `to` (same length) in everything written
/// through it. It holds back only what could be the start of a secret cut by a write (the
/// longest end of what it has that begins some `from`), so a streamed answer (server-sent
/// events) is never held: an event's end is not a secret's beginning.
pub struct Redactor<W: Write> {
    inner: W,
    pairs: Vec<(Vec<u8>, Vec<u8>)>,
    held: Vec<u8>,
}

impl<W: Write> Redactor<W> {
    /// `from` and `to` of different lengths (or an empty `from`): nothing is replaced.
    pub fn new(inner: W, from: &str, to: &str) -> Redactor<W> {
        Redactor::pairs(inner, [(from, to)])
    }

    /// Each `(from, to)` pair replaced (pairs of different lengths or an empty `from` are left
    /// out).
    pub fn pairs<'a>(inner: W, pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Redactor<W> {
        Redactor {
            inner,
            pairs: pairs
                .into_iter()
                .filter(|(f, t)| f.len() == t.len() && !f.is_empty())
                .map(|(f, t)| (f.as_bytes().to_vec(), t.as_bytes().to_vec()))
                .collect(),
            held: Vec::new(),
        }
    }

    /// Writes what is held back (the end of a message) and flushes.
    pub fn finish(&mut self) -> io::Result<()> {
        self.replace();
        self.inner.write_all(&self.held)?;
        self.held.clear();
        self.inner.flush()
    }

    /// The writer underneath.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    fn replace(&mut self) {
        for (from, to) in &self.pairs {
            let n = from.len();
            let mut i = 0;
            while i + n <= self.held.len() {
                if self.held[i..i + n] == from[..] {
                    self.held[i..i + n].copy_from_slice(to);
                    i += n;
                } else {
                    i += 1;
                }
            }
        }
    }

    /// How many bytes at the end of `held` could begin a secret (a proper prefix of a `from`).
    fn keep_back(&self) -> usize {
        let mut keep = 0;
        for (from, _) in &self.pairs {
            let most = (from.len() - 1).min(self.held.len());
            if let Some(k) = (keep + 1..=most)
                .rev()
                .find(|&k| self.held[self.held.len() - k..] == from[..k])
            {
                keep = k;
            }
        }
        keep
    }
}

impl<W: Write> Write for Redactor<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.held.extend_from_slice(buf);
        self.replace();
        let out = self.held.len() - self.keep_back();
        self.inner.write_all(&self.held[..out])?;
        self.held.drain(..out);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_cut_across_writes_is_replaced() {
        let mut r = Redactor::new(Vec::new(), "SECRET", "xxxxxx");
        for part in ["a SEC", "RET b SECRE", "T", " c SECRETSECRET"] {
            r.write_all(part.as_bytes()).unwrap();
        }
        r.finish().unwrap();
        assert_eq!(
            String::from_utf8(r.inner).unwrap(),
            "a xxxxxx b xxxxxx c xxxxxxxxxxxx"
        );
    }

    #[test]
    fn only_a_possible_start_of_a_secret_is_held_back() {
        let mut r = Redactor::pairs(Vec::new(), [("SECRET", "xxxxxx"), ("KEY-1", "yyyyy")]);
        r.write_all(b"data: {}\n\n").unwrap();
        assert_eq!(r.inner, b"data: {}\n\n", "an event's end goes out at once");
        r.write_all(b"a KE").unwrap();
        assert_eq!(r.inner, b"data: {}\n\na ", "`KE` may begin KEY-1");
        r.write_all(b"Y-1 SECR").unwrap();
        r.write_all(b"ET.").unwrap();
        r.finish().unwrap();
        assert_eq!(r.inner, b"data: {}\n\na yyyyy xxxxxx.");
    }

    #[test]
    fn different_lengths_replace_nothing() {
        let mut r = Redactor::new(Vec::new(), "SECRET", "x");
        r.write_all(b"SECRET").unwrap();
        r.finish().unwrap();
        assert_eq!(r.inner, b"SECRET");
    }
}
