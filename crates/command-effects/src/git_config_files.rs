//! Configuration files a git call reads because the command names them, beside the
//! repository's and the user's usual ones: `-c include.path=<file>` (and `includeIf.*.path`),
//! `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM` (unless `GIT_CONFIG_NOSYSTEM`), and the global files
//! of another `HOME` or `XDG_CONFIG_HOME`. Their settings count as the command's own: `git -c
//! include.path=x.cfg push` with `remote.origin.push = HEAD:main` in x.cfg pushes to main.
//! Also the text of such a file read as git reads it ([`entries`]).

use crate::git::{normalise_key, GitCall};

/// One file a call names: where it was named, and its path (`None`: decided at run time).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedFile {
    pub via: &'static str,
    pub path: Option<String>,
}

/// The files `call` reads because the command names them, in the order git reads them (the
/// system, global and XDG files first, then the command line's includes).
pub fn named(call: &GitCall<'_>) -> Vec<NamedFile> {
    let var = |name: &str| call.var(name);
    let mut out = Vec::new();
    let nosystem = var("GIT_CONFIG_NOSYSTEM").is_some_and(|v| v.is_none_or(|v| truthy(&v)));
    if !nosystem {
        if let Some(p) = var("GIT_CONFIG_SYSTEM") {
            out.push(NamedFile {
                via: "GIT_CONFIG_SYSTEM",
                path: p,
            });
        }
    }
    match var("GIT_CONFIG_GLOBAL") {
        Some(p) => out.push(NamedFile {
            via: "GIT_CONFIG_GLOBAL",
            path: p,
        }),
        None => {
            let xdg = var("XDG_CONFIG_HOME");
            if let Some(home) = var("HOME") {
                out.push(NamedFile {
                    via: "HOME",
                    path: home.map(|h| format!("{h}/.gitconfig")),
                });
                if xdg.is_none() {
                    out.push(NamedFile {
                        via: "HOME",
                        path: home_path(var("HOME"), ".config/git/config"),
                    });
                }
            }
            if let Some(x) = xdg {
                out.push(NamedFile {
                    via: "XDG_CONFIG_HOME",
                    path: x.map(|x| format!("{x}/git/config")),
                });
            }
        }
    }
    for c in &call.config {
        let include =
            c.key == "include.path" || c.key.starts_with("includeif.") && c.key.ends_with(".path");
        if include {
            out.push(NamedFile {
                via: "-c include.path",
                path: c.value.clone(),
            });
        }
    }
    out
}

fn home_path(home: Option<Option<String>>, rel: &str) -> Option<String> {
    home.flatten().map(|h| format!("{h}/{rel}"))
}

/// git's boolean truth for `GIT_CONFIG_NOSYSTEM` (`1`, `true`, `yes`, `on`).
fn truthy(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "1" | "true" | "yes" | "on"
    )
}

/// The `(key, value)` entries of a config file's text as git reads them: `[section]`,
/// `[section "subsection"]`, `[section.subsection]`, `name = value`, a bare `name` (true),
/// `#`/`;` comments, double quotes, the escapes `\n \t \b \\ \"` and a `\` that continues the
/// line. Keys are normalised ([`normalise_key`]). `None`: text git would refuse.
pub fn entries(text: &str) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut section = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.is_empty() || t.starts_with(['#', ';']) {
            continue;
        }
        if let Some(rest) = t.strip_prefix('[') {
            let (head, after) = rest.split_once(']')?;
            section = section_name(head)?;
            let after = after.trim_start();
            if after.is_empty() || after.starts_with(['#', ';']) {
                continue;
            }
            // `[core] bare = true` on one line.
            let (k, v) = entry(after, &mut lines)?;
            out.push((normalise_key(&format!("{section}.{k}")), v));
            continue;
        }
        if section.is_empty() {
            return None;
        }
        let (k, v) = entry(t, &mut lines)?;
        out.push((normalise_key(&format!("{section}.{k}")), v));
    }
    Some(out)
}

/// `section`, `section "sub"` (quoted, escapes kept literal but `\"` and `\\`) or
/// `section.sub` (lower-cased), as `section.sub`.
fn section_name(head: &str) -> Option<String> {
    let head = head.trim();
    match head.split_once(char::is_whitespace) {
        Some((name, sub)) => {
            let sub = sub.trim().strip_prefix('"')?.strip_suffix('"')?;
            let mut s = String::new();
            let mut chars = sub.chars();
            while let Some(c) = chars.next() {
                s.push(if c == '\\' { chars.next()? } else { c });
            }
            Some(format!("{}.{s}", name.to_ascii_lowercase()))
        }
        None => Some(head.to_ascii_lowercase()),
    }
}

/// `name = value` (or a bare `name`), continued over `\`-ended lines.
fn entry<'t>(
    first: &'t str,
    lines: &mut impl Iterator<Item = &'t str>,
) -> Option<(String, String)> {
    let (name, rest) = match first.find(['=', '#', ';']) {
        Some(i) if first.as_bytes()[i] == b'=' => (first[..i].trim(), Some(&first[i + 1..])),
        Some(i) => (first[..i].trim(), None),
        None => (first.trim(), None),
    };
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return None;
    }
    let Some(mut rest) = rest else {
        return Some((name.to_string(), "true".to_string()));
    };
    let mut value = String::new();
    let mut quoted = false;
    // Spaces are kept only between words (trailing ones outside quotes are dropped).
    let mut pending = String::new();
    loop {
        let mut chars = rest.chars();
        let mut continued = false;
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    None => continued = true,
                    Some(e) => {
                        value.push_str(&pending);
                        pending.clear();
                        value.push(match e {
                            'n' => '\n',
                            't' => '\t',
                            'b' => '\u{8}',
                            '\\' | '"' => e,
                            _ => return None,
                        });
                    }
                },
                '"' => {
                    value.push_str(&pending);
                    pending.clear();
                    quoted = !quoted;
                }
                '#' | ';' if !quoted => break,
                c if c.is_whitespace() && !quoted => {
                    if !value.is_empty() {
                        pending.push(c);
                    }
                }
                c => {
                    value.push_str(&pending);
                    pending.clear();
                    value.push(c);
                }
            }
        }
        if !continued {
            break;
        }
        rest = lines.next().unwrap_or("");
    }
    if quoted {
        return None;
    }
    Some((name.to_string(), value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_files_text_as_git_reads_it() {
        let text = "# a comment\n[remote \"Origin\"]\n\turl = git@github.com:a/b.git\n\tpush = HEAD:main ; trailing\n[Alias]\n\tp = \"push origin\" HEAD:main\n\tlong = one \\\n two\n[core] hooksPath = /dev/null\n[push]\n\tautoSetupRemote\n[branch.Main]\n\tremote = origin\n";
        assert_eq!(
            entries(text).unwrap(),
            vec![
                (
                    "remote.Origin.url".to_string(),
                    "git@github.com:a/b.git".to_string()
                ),
                ("remote.Origin.push".into(), "HEAD:main".into()),
                ("alias.p".into(), "push origin HEAD:main".into()),
                ("alias.long".into(), "one  two".into()),
                ("core.hookspath".into(), "/dev/null".into()),
                ("push.autosetupremote".into(), "true".into()),
                ("branch.main.remote".into(), "origin".into()),
            ]
        );
        // What git refuses: no section, an unclosed quote, a bad escape.
        for bad in ["k = v\n", "[a]\n\tk = \"v\n", "[a]\n\tk = \\q\n"] {
            assert_eq!(entries(bad), None, "{bad:?}");
        }
    }
}
