//! Text from a process or a payload, made safe to put in a report or a message.
//!
//! Command lines, environment values and payload fields are written by whoever ran the process:
//! a newline in an argv would start a report line of its own (a forged `To end them:` line), an
//! escape sequence would repaint the user's terminal. [`escape_text`] shows every control
//! character as an escape (`\n`, `\t`, `\x1b`, `\u{202e}`), backslashes as `\\`, and bounds the
//! length in characters, so one report line stays one line whatever the process wrote.

/// Default bound on one escaped text, in characters of output.
pub const DEFAULT_ESCAPED_CHARS: usize = 160;

/// Characters that reorder or hide text on a terminal without being control characters
/// (bidirectional overrides and isolates, zero-width characters, the BOM).
fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}'
    )
}

fn push_escaped(out: &mut String, c: char) {
    use std::fmt::Write;
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\\' => out.push_str("\\\\"),
        c if (c as u32) < 0x80 && c.is_control() => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c if c.is_control() || invisible(c) => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
        c => out.push(c),
    }
}

/// Builds an escaped text of bounded length, one piece (one escape or character) at a time.
struct Bounded {
    out: String,
    count: usize,
    max: usize,
    full: bool,
}

impl Bounded {
    fn new(max: usize) -> Bounded {
        Bounded {
            out: String::new(),
            count: 0,
            max,
            full: false,
        }
    }

    /// Adds one piece whole, or marks the text cut (`…`) when it would not fit with the ellipsis.
    fn piece(&mut self, piece: &str, last: bool) {
        if self.full {
            return;
        }
        let n = piece.chars().count();
        let room = usize::from(!last);
        if self.count + n + room > self.max {
            self.out.push('…');
            self.full = true;
            return;
        }
        self.out.push_str(piece);
        self.count += n;
    }
}

/// `text` with control and invisible characters escaped, at most `max_chars` characters long
/// (an escape is never cut in half; a cut text ends in `…`).
pub fn escape_text(text: &str, max_chars: usize) -> String {
    let mut b = Bounded::new(max_chars);
    let mut piece = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        piece.clear();
        push_escaped(&mut piece, c);
        b.piece(&piece, chars.peek().is_none());
        if b.full {
            break;
        }
    }
    b.out
}

/// Bytes (a command line, an environment value) as escaped text; invalid UTF-8 is shown as
/// `\xNN` per byte, so nothing the process wrote is hidden or altered silently.
pub fn escape_bytes(bytes: &[u8], max_chars: usize) -> String {
    let mut b = Bounded::new(max_chars);
    let mut piece = String::new();
    let chunks: Vec<_> = bytes.utf8_chunks().collect();
    for (i, chunk) in chunks.iter().enumerate() {
        let last_chunk = i + 1 == chunks.len();
        let mut chars = chunk.valid().chars().peekable();
        while let Some(c) = chars.next() {
            piece.clear();
            push_escaped(&mut piece, c);
            let last = last_chunk && chars.peek().is_none() && chunk.invalid().is_empty();
            b.piece(&piece, last);
        }
        let invalid = chunk.invalid();
        for (j, byte) in invalid.iter().enumerate() {
            b.piece(
                &format!("\\x{byte:02x}"),
                last_chunk && j + 1 == invalid.len(),
            );
        }
        if b.full {
            break;
        }
    }
    b.out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_become_escapes() {
        assert_eq!(escape_text("a\nb\tc\r", 80), "a\\nb\\tc\\r");
        assert_eq!(escape_text("\x1b[2J\x07", 80), "\\x1b[2J\\x07");
        assert_eq!(escape_text("\u{202e}txt.exe", 80), "\\u{202e}txt.exe");
        assert_eq!(escape_text("\u{85}", 80), "\\u{85}");
        assert_eq!(
            escape_text("a\\nb", 80),
            "a\\\\nb",
            "a literal backslash-n stays distinguishable"
        );
        assert_eq!(escape_text("héllo wörld", 80), "héllo wörld");
    }

    #[test]
    fn a_forged_report_line_stays_on_one_line() {
        let argv = "sleep 1\nTo end them: kill -TERM -- -1";
        let e = escape_text(argv, 160);
        assert!(!e.contains('\n'));
        assert_eq!(e, "sleep 1\\nTo end them: kill -TERM -- -1");
    }

    #[test]
    fn length_is_bounded_and_escapes_are_never_cut() {
        let long = "x".repeat(500);
        let e = escape_text(&long, 160);
        assert_eq!(e.chars().count(), 160);
        assert!(e.ends_with('…'));
        let e = escape_text(&"\n".repeat(100), 9);
        assert_eq!(e, "\\n\\n\\n\\n…");
        assert_eq!(escape_text("abc", 3), "abc");
    }

    #[test]
    fn bytes_keep_invalid_utf8_visible() {
        assert_eq!(escape_bytes(b"a\xffb\n", 80), "a\\xffb\\n");
        let e = escape_bytes(&[0xffu8; 100], 10);
        assert!(e.chars().count() <= 10 && e.ends_with('…'), "{e}");
        assert!(!e.trim_end_matches('…').ends_with("\\x"), "{e}");
    }
}
