//! The two facts we read from gh's YAML config files, without a YAML library: the `aliases:`
//! mapping of `config.yml` and the top-level host keys of `hosts.yml`. gh writes both files
//! itself in a simple block style (`key: value`, two-space indent, values optionally quoted).

use std::collections::BTreeMap;

/// Unquotes a YAML scalar as gh writes it (plain, `'single'` with `''`, `"double"` with escapes).
fn scalar(raw: &str) -> String {
    let raw = raw.trim();
    if let Some(inner) = raw.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        return inner.replace("''", "'");
    }
    if let Some(inner) = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some(o) => out.push(o),
                    None => {}
                }
            } else {
                out.push(c);
            }
        }
        return out;
    }
    // A plain scalar ends at ` #` (a comment).
    match raw.find(" #") {
        Some(i) => raw[..i].trim_end().to_string(),
        None => raw.to_string(),
    }
}

/// Splits `key: value` at the first `: ` (or a trailing `:`), honouring a quoted key.
fn key_value(line: &str) -> Option<(String, &str)> {
    let line = line.trim_start();
    if line.starts_with('#') || line.starts_with('-') {
        return None;
    }
    if let Some(q) = line.chars().next().filter(|c| *c == '"' || *c == '\'') {
        let end = line[1..].find(q)? + 1;
        let rest = line[end + 1..].trim_start().strip_prefix(':')?;
        return Some((scalar(&line[..=end]), rest));
    }
    let idx = line
        .find(": ")
        .or_else(|| line.strip_suffix(':').map(|s| s.len()))?;
    let rest = line.get(idx + 1..).unwrap_or("");
    Some((line[..idx].trim().to_string(), rest))
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The `aliases:` mapping of gh's `config.yml`: alias name → expansion.
pub fn aliases(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut in_aliases = false;
    let mut child_indent = None;
    for line in text.lines() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let ind = indent(line);
        if ind == 0 {
            in_aliases = matches!(key_value(line), Some((k, rest)) if k == "aliases" && rest.trim().is_empty());
            child_indent = None;
            continue;
        }
        if !in_aliases {
            continue;
        }
        let ci = *child_indent.get_or_insert(ind);
        if ind != ci {
            continue;
        }
        if let Some((k, rest)) = key_value(line) {
            out.insert(k, scalar(rest));
        }
    }
    out
}

/// The top-level keys of gh's `hosts.yml` (host names).
pub fn top_level_keys(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && indent(l) == 0)
        .filter_map(key_value)
        .map(|(k, _)| k)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_aliases_as_gh_writes_them() {
        let text = "version: 1\ngit_protocol: https\naliases:\n    co: pr checkout\n    mr: 'pr merge --admin'\n    \"x y\": \"!gh pr create --fill\"\n    q: api graphql -f query='mutation{x}'\neditor:\n";
        let a = aliases(text);
        assert_eq!(a.get("co").map(String::as_str), Some("pr checkout"));
        assert_eq!(a.get("mr").map(String::as_str), Some("pr merge --admin"));
        assert_eq!(
            a.get("x y").map(String::as_str),
            Some("!gh pr create --fill")
        );
        assert_eq!(
            a.get("q").map(String::as_str),
            Some("api graphql -f query='mutation{x}'")
        );
        assert_eq!(a.len(), 4);
    }

    #[test]
    fn host_keys() {
        let text = "github.com:\n    user: me\nghe.corp.example:\n    user: me\n";
        assert_eq!(top_level_keys(text), vec!["github.com", "ghe.corp.example"]);
    }
}
