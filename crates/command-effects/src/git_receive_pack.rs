//! A push as it travels: the body of git's smart-HTTP `POST .../git-receive-pack` request (the
//! wire reader of a push, beside the command text's [`crate::git_push`] and the exec gate's
//! argv; issue 38's broker reads it). The body is pkt-lines: optional `shallow <oid>` lines, then
//! one command per ref, `<old-oid> <new-oid> <refname>`, the first followed by a NUL and the
//! client's capabilities, then a flush packet `0000` and the pack. A zero old id creates the
//! ref, a zero new id deletes it; any other update is an [`PushKind::Update`] here, since
//! whether it is a fast-forward needs the commits (the pack or the server). A signed push
//! (`push-cert`) is not read: an error, so a reader refuses it rather than judging it unseen.

use crate::git_push::{dst_branch, BranchUpdate, PushKind};

/// Most ref commands read from one request (git sends one per ref; a mirror of a large
/// repository can send thousands).
pub const MAX_COMMANDS: usize = 100_000;

/// The largest pkt-line git writes (`LARGE_PACKET_MAX`, 65520 bytes with its length).
const MAX_PKT: usize = 65520;

/// One ref command of a push.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefCommand {
    /// The id the client believes the ref has (all zeros: it does not exist).
    pub old: String,
    /// The id it asks for (all zeros: delete the ref).
    pub new: String,
    /// The full ref name (`refs/heads/main`).
    pub refname: String,
}

impl RefCommand {
    /// Create, delete or update.
    pub fn kind(&self) -> PushKind {
        match (is_zero(&self.old), is_zero(&self.new)) {
            (_, true) => PushKind::Delete,
            (true, false) => PushKind::Create,
            (false, false) => PushKind::Update,
        }
    }

    /// The update as the push rules read it (the branch is `None` for a ref that is not a
    /// branch: tags and other namespaces).
    pub fn branch_update(&self) -> BranchUpdate {
        BranchUpdate {
            branch: dst_branch(&self.refname),
            kind: self.kind(),
        }
    }
}

/// The commands of a push request and the capabilities the client asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PushRequest {
    pub commands: Vec<RefCommand>,
    pub capabilities: Vec<String>,
}

/// Why a body is not read as a push.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error("a pkt-line length is not 4 hex digits or runs past the body")]
    BadLength,
    #[error("a ref command is not `<old> <new> <ref>`: {0:?}")]
    BadCommand(String),
    #[error("no flush packet after the commands")]
    NoFlush,
    #[error("more than {MAX_COMMANDS} ref commands")]
    TooMany,
    #[error("a signed push (push-cert) is not read")]
    Signed,
}

/// Reads the commands of a `git-receive-pack` request body (the pack after the flush is left
/// unread).
pub fn read_push(body: &[u8]) -> Result<PushRequest, WireError> {
    let mut out = PushRequest::default();
    let mut at = 0;
    loop {
        let (payload, next) = pkt_line(body, at)?;
        at = next;
        let Some(line) = payload else {
            return Ok(out);
        };
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        if line.starts_with(b"shallow ") {
            continue;
        }
        if line.starts_with(b"push-cert") {
            return Err(WireError::Signed);
        }
        let (command, caps) = match line.iter().position(|b| *b == 0) {
            Some(nul) => (&line[..nul], Some(&line[nul + 1..])),
            None => (line, None),
        };
        if let Some(caps) = caps.filter(|_| out.commands.is_empty()) {
            out.capabilities = String::from_utf8_lossy(caps)
                .split(' ')
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect();
        }
        if out.commands.len() >= MAX_COMMANDS {
            return Err(WireError::TooMany);
        }
        out.commands.push(ref_command(command)?);
    }
}

/// The pkt-line at `at`: its payload (`None` for a flush packet) and where the next starts.
fn pkt_line(body: &[u8], at: usize) -> Result<(Option<&[u8]>, usize), WireError> {
    let Some(head) = body.get(at..at + 4) else {
        return Err(WireError::NoFlush);
    };
    let text = std::str::from_utf8(head).map_err(|_| WireError::BadLength)?;
    let len = usize::from_str_radix(text, 16).map_err(|_| WireError::BadLength)?;
    match len {
        0 => Ok((None, at + 4)),
        1..=4 => Err(WireError::BadLength),
        _ if len > MAX_PKT => Err(WireError::BadLength),
        _ => body
            .get(at + 4..at + len)
            .map(|p| (Some(p), at + len))
            .ok_or(WireError::BadLength),
    }
}

/// `<old> <new> <ref>`.
fn ref_command(line: &[u8]) -> Result<RefCommand, WireError> {
    let text = String::from_utf8_lossy(line);
    let bad = || WireError::BadCommand(text.chars().take(200).collect());
    let mut parts = text.splitn(3, ' ');
    let (old, new, refname) = (
        parts.next().ok_or_else(bad)?,
        parts.next().ok_or_else(bad)?,
        parts.next().ok_or_else(bad)?,
    );
    if !is_oid(old) || !is_oid(new) || refname.is_empty() {
        return Err(bad());
    }
    Ok(RefCommand {
        old: old.to_string(),
        new: new.to_string(),
        refname: refname.to_string(),
    })
}

/// A SHA-1 or SHA-256 object id in hex.
fn is_oid(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

fn is_zero(oid: &str) -> bool {
    oid.bytes().all(|b| b == b'0')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(s: &[u8]) -> Vec<u8> {
        let mut v = format!("{:04x}", s.len() + 4).into_bytes();
        v.extend_from_slice(s);
        v
    }

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";
    const Z: &str = "0000000000000000000000000000000000000000";

    #[test]
    fn commands_kinds_and_capabilities() {
        let mut body = pkt(format!(
            "{A} {B} refs/heads/main\0report-status side-band-64k agent=git/2.47\n"
        )
        .as_bytes());
        body.extend(pkt(format!("{Z} {B} refs/heads/new\n").as_bytes()));
        body.extend(pkt(format!("{A} {Z} refs/tags/v1\n").as_bytes()));
        body.extend(b"0000PACK....");
        let p = read_push(&body).unwrap();
        assert_eq!(
            p.capabilities,
            ["report-status", "side-band-64k", "agent=git/2.47"]
        );
        let got: Vec<(Option<String>, PushKind)> = p
            .commands
            .iter()
            .map(|c| (c.branch_update().branch, c.kind()))
            .collect();
        assert_eq!(
            got,
            [
                (Some("main".into()), PushKind::Update),
                (Some("new".into()), PushKind::Create),
                (None, PushKind::Delete),
            ]
        );
    }

    #[test]
    fn what_is_not_a_push_is_an_error_never_an_empty_push() {
        let one = pkt(format!("{A} {B} refs/heads/main\n").as_bytes());
        assert_eq!(
            read_push(&one),
            Err(WireError::NoFlush),
            "cut before the flush"
        );
        assert_eq!(read_push(b"zzzz"), Err(WireError::BadLength));
        assert_eq!(read_push(b"0003"), Err(WireError::BadLength));
        assert_eq!(read_push(b"00ff{short"), Err(WireError::BadLength));
        let mut bad = pkt(b"not a command\n");
        bad.extend(b"0000");
        assert!(matches!(read_push(&bad), Err(WireError::BadCommand(_))));
        let mut signed = pkt(b"push-cert\0report-status\n");
        signed.extend(b"0000");
        assert_eq!(read_push(&signed), Err(WireError::Signed));
        // Shallow lines before the commands are skipped; an empty request (only a flush) pushes
        // nothing.
        let mut shallow = pkt(format!("shallow {A}\n").as_bytes());
        shallow.extend(pkt(format!("{A} {B} refs/heads/x\n").as_bytes()));
        shallow.extend(b"0000");
        assert_eq!(read_push(&shallow).unwrap().commands.len(), 1);
        assert!(read_push(b"0000").unwrap().commands.is_empty());
    }
}
