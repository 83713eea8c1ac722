//! G2 on the wire asks where a node id came from: in a request every id is literal, so the
//! broker keeps the ids GitHub itself returned to agent commands during the session (the ids
//! in every API answer it relayed), and a mutation naming an id GitHub never gave is one
//! pasted from elsewhere (a transcript, memory, another session): `G2.node-id`, as the command
//! text's literal id is. API requests are sent without `Accept-Encoding` so the answers come
//! uncompressed and can be read; a compressed answer teaches nothing (its ids then count as
//! pasted: fail closed). Bounded: at most [`MAX_IDS`] ids, [`MAX_KEPT`] bytes read per answer.

use std::collections::HashSet;
use std::io::{self, Write};
use std::sync::Mutex;

/// Most ids kept for a session (past it, new ids are not learned: fail closed).
pub const MAX_IDS: usize = 200_000;
/// Most bytes of one answer read for ids.
pub const MAX_KEPT: usize = 8 * 1024 * 1024;

/// The ids GitHub returned in this session.
#[derive(Debug, Default)]
pub struct LiveIds {
    ids: Mutex<HashSet<String>>,
}

impl LiveIds {
    /// Whether GitHub returned `id` in this session.
    pub fn contains(&self, id: &str) -> bool {
        self.ids.lock().map(|s| s.contains(id)).unwrap_or(false)
    }

    /// Learns every node id in `answer`.
    pub fn learn(&self, answer: &[u8]) {
        let text = String::from_utf8_lossy(answer);
        let found = gh_write_guard::face::node_ids_in(&text);
        if let Ok(mut s) = self.ids.lock() {
            for id in found {
                if s.len() >= MAX_IDS {
                    return;
                }
                s.insert(id);
            }
        }
    }
}

/// A writer that keeps a copy (at most [`MAX_KEPT`] bytes) of what passes through it.
pub struct Tap<W: Write> {
    inner: W,
    kept: Vec<u8>,
}

impl<W: Write> Tap<W> {
    pub fn new(inner: W) -> Tap<W> {
        Tap {
            inner,
            kept: Vec::new(),
        }
    }

    /// What passed through (its first [`MAX_KEPT`] bytes).
    pub fn kept(&self) -> &[u8] {
        &self.kept
    }
}

impl<W: Write> Write for Tap<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        let room = MAX_KEPT.saturating_sub(self.kept.len());
        self.kept.extend_from_slice(&buf[..n.min(room)]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_in_an_answer_are_learned() {
        let ids = LiveIds::default();
        let mut tap = Tap::new(Vec::new());
        tap.write_all(br#"{"data":{"repository":{"id":"R_kgDOabcdefgh12","name":"app"}}}"#)
            .unwrap();
        ids.learn(tap.kept());
        assert!(ids.contains("R_kgDOabcdefgh12"));
        assert!(!ids.contains("R_kgDOother12345"));
        assert_eq!(
            tap.inner.len(),
            tap.kept().len(),
            "everything passed through"
        );
    }
}
