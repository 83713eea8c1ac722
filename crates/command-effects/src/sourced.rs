//! `source FILE` and `. FILE` run FILE's text in the current shell: its exports, `cd`s,
//! functions and aliases stay for the commands after it. When a guard can read FILE (this crate
//! does no I/O), [`inline_sourced`] gives the command with FILE's text in place, fed through
//! `. /dev/stdin` and a quoted heredoc: a text the view reads as bash runs it (`source env.sh;
//! gh pr comment 1` with `export GH_REPO=x` in env.sh comments on x).

use shell_syntax::view::{CommandView, Invocation, RedirSource};

/// Most files put in place in one command.
const MAX_FILES: usize = 4;
/// Largest file put in place: the one script bound (`scripts::MAX_SCRIPT_BYTES`).
const MAX_BYTES: usize = crate::scripts::MAX_SCRIPT_BYTES as usize;

/// One file to put in place.
struct Edit {
    path: (usize, usize),
    command_end: usize,
    line_end: usize,
    body: String,
    delimiter: String,
}

/// Whether `text` can hold a `source` or `.` at all, without parsing it: the name is written
/// out, or built by quoting (`so''urce`, `\source`), an expansion (`$s`, `$'...'`, a
/// command substitution) or a brace (`{sou,}rce`), each of which needs one of these
/// characters. Most commands have none, and parsing them again cost every guard (and every
/// exec the gate judges) a second parse.
fn may_source(text: &str) -> bool {
    text.contains("source")
        || text
            .bytes()
            .any(|b| matches!(b, b'.' | b'\'' | b'"' | b'\\' | b'$' | b'`' | b'{'))
}

/// Whether `inv` is a `source`/`.` of a file in the current shell of the command itself.
fn sources_a_file<'v>(inv: &'v Invocation<'_>) -> Option<&'v str> {
    let c = &inv.context;
    let plain = matches!(inv.name(), Some("source" | "."))
        && inv.origin.is_empty()
        && inv.wrappers.is_empty()
        && c.function.is_none()
        && c.pipeline.is_none()
        && !c.background
        && c.command_subst == 0
        && c.process_subst == 0
        && !inv.redirects.iter().any(|r| r.source == RedirSource::Own);
    let path = inv.args.first()?.value.as_deref()?;
    (plain && !path.starts_with("/dev/") && !path.starts_with('-')).then_some(path)
}

/// `text` with the text of each file it sources in place, or `None` when nothing was read.
/// `read(view, invocation, path)` gives a file's text (`None`: not readable, left as is).
pub fn inline_sourced(
    text: &str,
    read: &mut dyn FnMut(&CommandView<'_>, &Invocation<'_>, &str) -> Option<String>,
) -> Option<String> {
    if !may_source(text) {
        return None;
    }
    let parsed = shell_syntax::parse(text);
    let view = shell_syntax::commands(&parsed);
    let mut edits: Vec<Edit> = Vec::new();
    for inv in &view.invocations {
        if edits.len() >= MAX_FILES {
            break;
        }
        let Some(path) = sources_a_file(inv) else {
            continue;
        };
        let (start, end) = (inv.span.start as usize, inv.span.end as usize);
        let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
        let rest = &text[end..line_end];
        // Another heredoc on the line, a continued line, or a second file on the same line
        // would change which body is which.
        if text[start..line_end].contains("<<")
            || rest.ends_with('\\')
            || edits.iter().any(|e| e.line_end == line_end)
        {
            continue;
        }
        let Some(word) = inv.args.first().map(|a| a.word.span) else {
            continue;
        };
        let Some(body) = read(&view, inv, path).filter(|b| b.len() <= MAX_BYTES) else {
            continue;
        };
        let delimiter = format!("AGENT_GUARDS_SOURCED_{}", edits.len());
        if body.lines().any(|l| l == delimiter) {
            continue;
        }
        edits.push(Edit {
            path: (word.start as usize, word.end as usize),
            command_end: end,
            line_end,
            body,
            delimiter,
        });
    }
    if edits.is_empty() {
        return None;
    }
    let mut out = text.to_string();
    for e in edits.iter().rev() {
        let mut body = e.body.clone();
        if !body.ends_with('\n') {
            body.push('\n');
        }
        out.insert_str(e.line_end, &format!("\n{body}{}", e.delimiter));
        out.insert_str(e.command_end, &format!(" <<'{}'", e.delimiter));
        out.replace_range(e.path.0..e.path.1, "/dev/stdin");
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inline(text: &str) -> Option<String> {
        inline_sourced(text, &mut |_, _, p| {
            (p == "env.sh").then(|| "export GH_REPO=x/y\n".to_string())
        })
    }

    #[test]
    fn only_a_text_without_any_way_to_spell_source_skips_the_parse() {
        for text in [
            "source env.sh",
            ". env.sh",
            "so''urce env",
            "\\source env",
            "s=source; $s env",
            "{sou,}rce env",
            "eval \"$(cat x)\"",
            "alias s=source; s env",
            "f() { source env; }; f",
            "`echo source` env",
        ] {
            assert!(may_source(text), "{text}");
        }
        for text in [
            "git -C wt stash",
            "gh pr create --title t --body b",
            "ls -la /tmp",
        ] {
            assert!(!may_source(text), "{text}");
        }
    }

    #[test]
    fn a_sourced_file_is_fed_in_place() {
        let t = inline("source env.sh; gh pr comment 1").unwrap();
        assert_eq!(
            t,
            "source /dev/stdin <<'AGENT_GUARDS_SOURCED_0'; gh pr comment 1\n\
             export GH_REPO=x/y\nAGENT_GUARDS_SOURCED_0"
        );
        // The view reads the export for the command after it.
        let p = shell_syntax::parse(&t);
        let v = shell_syntax::commands(&p);
        let gh = v
            .invocations
            .iter()
            .find(|i| i.name() == Some("gh"))
            .unwrap();
        let repo = gh.env_value("GH_REPO").and_then(|e| e.value.as_ref());
        assert_eq!(repo.and_then(|a| a.value.as_deref()), Some("x/y"));
        assert_eq!(inline(". other.sh; ls"), None);
        assert_eq!(inline("cat x | source env.sh"), None);
        assert_eq!(inline("source env.sh <<EOF\nx\nEOF"), None);
        assert!(inline(". env.sh && ls\nls").is_some());
    }
}
