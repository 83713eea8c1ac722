//! G2 on the wire asks where a node id came from: in a request every id is literal, so the
//! broker keeps the ids GitHub itself returned to agent commands during the session (the ids
//! in every API answer it relayed), and a mutation naming an id GitHub never gave is one
//! pasted from elsewhere (a transcript, memory, another session): `G2.node-id`, as the command
//! text's literal id is. API requests are sent without `Accept-Encoding` so the answers come
//! uncompressed and can be read; a compressed answer teaches nothing (its ids then count as
//! pasted: fail closed). Bounded: at most [`MAX_IDS`] ids, [`MAX_KEPT`] bytes read per answer.
//!
//! G3 on the wire asks whose repository an id is: a mutation names the repository (or the issue,
//! the pull request) only by an id, so the broker also keeps, for an answer to a read about one
//! repository (`repos/<o>/<r>/...`, a GraphQL `repository(owner:, name:)`), the repository its
//! own ids belong to: the top-level `node_id` of a REST object, and in GraphQL the repository's
//! `id` and the `id` of each object directly under it (`issue`, `pullRequest`, ...; not the
//! members of lists, which may be other repositories': forks, parents). The first answer to name
//! an id decides.

use std::collections::{HashMap, HashSet};
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
    repos: Mutex<HashMap<String, (String, String)>>,
}

impl LiveIds {
    /// Whether GitHub returned `id` in this session.
    pub fn contains(&self, id: &str) -> bool {
        self.ids.lock().map(|s| s.contains(id)).unwrap_or(false)
    }

    /// The repository (owner, name) GitHub returned `id` for, when an answer said so.
    pub fn repo_of(&self, id: &str) -> Option<(String, String)> {
        self.repos.lock().ok()?.get(id).cloned()
    }

    /// Learns every node id in `answer` (as relayed: head and framed body), and for an answer
    /// to a read `about` one repository, the ids that are that repository's.
    pub fn learn(&self, answer: &[u8], about: Option<(String, String)>) {
        let text = String::from_utf8_lossy(answer);
        let found = gh_write_guard::face::node_ids_in(&text);
        if let Ok(mut s) = self.ids.lock() {
            for id in found {
                if s.len() >= MAX_IDS {
                    break;
                }
                s.insert(id);
            }
        }
        let Some(repo) = about else {
            return;
        };
        let owned = json_body(answer).map(|v| owned_ids(&v)).unwrap_or_default();
        if let Ok(mut m) = self.repos.lock() {
            for id in owned {
                if m.len() >= MAX_IDS {
                    return;
                }
                m.entry(id).or_insert_with(|| repo.clone());
            }
        }
    }
}

/// The JSON body of a relayed answer (its head skipped, a chunked body joined).
fn json_body(answer: &[u8]) -> Option<serde_json::Value> {
    let split = answer.windows(4).position(|w| w == b"\r\n\r\n")?;
    let (head, body) = (&answer[..split], &answer[split + 4..]);
    let chunked = String::from_utf8_lossy(head).lines().any(|l| {
        let l = l.to_ascii_lowercase();
        l.starts_with("transfer-encoding:") && l.contains("chunked")
    });
    let body = match chunked {
        true => crate::http1::read_body(
            &mut std::io::Cursor::new(body),
            crate::http1::Framing::Chunked,
            MAX_KEPT,
        )
        .ok()?,
        false => body.to_vec(),
    };
    serde_json::from_slice(&body).ok()
}

/// The ids an answer gives as its repository's own (see the module's text).
fn owned_ids(v: &serde_json::Value) -> Vec<String> {
    let id_of =
        |o: &serde_json::Value, key: &str| o.get(key).and_then(|i| i.as_str()).map(String::from);
    let mut out: Vec<String> = id_of(v, "node_id").into_iter().collect();
    if let Some(repo) = v.pointer("/data/repository") {
        out.extend(id_of(repo, "id"));
        if let Some(members) = repo.as_object() {
            out.extend(
                members
                    .values()
                    .filter(|m| m.is_object())
                    .filter_map(|m| id_of(m, "id")),
            );
        }
    }
    out.retain(|id| gh_write_guard::face::node_ids_in(id).len() == 1);
    out
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
        ids.learn(tap.kept(), None);
        assert!(ids.contains("R_kgDOabcdefgh12"));
        assert!(!ids.contains("R_kgDOother12345"));
        assert_eq!(
            tap.inner.len(),
            tap.kept().len(),
            "everything passed through"
        );
    }

    #[test]
    fn an_answer_about_a_repository_names_its_own_ids_and_not_its_lists() {
        let ids = LiveIds::default();
        let answer = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
        let body = r#"{"data":{"repository":{"id":"R_kgDOstranger1","issue":{"id":"I_kwDOstranger12"},"forks":{"nodes":[{"id":"R_kgDOsomefork1"}]},"parent":{"id":"R_kgDOmaintain1"}}}}"#;
        let framed = format!("{answer}{:x}\r\n{body}\r\n0\r\n\r\n", body.len());
        let about = Some(("stranger".to_string(), "app".to_string()));
        ids.learn(framed.as_bytes(), about.clone());
        assert_eq!(ids.repo_of("R_kgDOstranger1"), about);
        assert_eq!(ids.repo_of("I_kwDOstranger12"), about);
        assert_eq!(
            ids.repo_of("R_kgDOsomefork1"),
            None,
            "a list's members are not its own"
        );
        assert!(ids.contains("R_kgDOsomefork1"), "but they are live");
        // The first answer to name an id decides.
        let own = Some(("maintainer".to_string(), "app".to_string()));
        let rest = "HTTP/1.1 200 OK\r\nContent-Length: 30\r\n\r\n{\"node_id\":\"R_kgDOstranger1\"}";
        ids.learn(rest.as_bytes(), own);
        assert_eq!(ids.repo_of("R_kgDOstranger1"), about);
    }
}
