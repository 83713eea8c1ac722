//! The real token never goes back to the agent: everything the broker relays from an upstream
//! to an agent command passes through [`Redactor`], which replaces each occurrence of the real
//! token with the placeholder. They have the same length ([`crate::credentials`]), so body
//! lengths and chunk sizes stay true. Limits, said plainly: a token split by chunk framing or
//! inside a compressed body is not seen (GitHub does not echo tokens; this is the second
//! fence, the first is that the token is only ever sent to GitHub).

use std::io::{self, Write};

/// A writer that replaces `from` by `to` (same length) in everything written through it.
pub struct Redactor<W: Write> {
    inner: W,
    from: Vec<u8>,
    to: Vec<u8>,
    held: Vec<u8>,
}

impl<W: Write> Redactor<W> {
    /// `from` and `to` of different lengths (or an empty `from`): nothing is replaced.
    pub fn new(inner: W, from: &str, to: &str) -> Redactor<W> {
        let same = from.len() == to.len() && !from.is_empty();
        Redactor {
            inner,
            from: if same {
                from.as_bytes().to_vec()
            } else {
                Vec::new()
            },
            to: to.as_bytes().to_vec(),
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
        let n = self.from.len();
        if n == 0 || self.held.len() < n {
            return;
        }
        let mut i = 0;
        while i + n <= self.held.len() {
            if self.held[i..i + n] == self.from[..] {
                self.held[i..i + n].copy_from_slice(&self.to);
                i += n;
            } else {
                i += 1;
            }
        }
    }
}

impl<W: Write> Write for Redactor<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.held.extend_from_slice(buf);
        self.replace();
        // Keep back what could be the start of a token cut by this write.
        let keep = self.from.len().saturating_sub(1).min(self.held.len());
        let out = self.held.len() - keep;
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
    fn different_lengths_replace_nothing() {
        let mut r = Redactor::new(Vec::new(), "SECRET", "x");
        r.write_all(b"SECRET").unwrap();
        r.finish().unwrap();
        assert_eq!(r.inner, b"SECRET");
    }
}
