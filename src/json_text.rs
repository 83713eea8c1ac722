//! Editing JSON as text: every byte we do not change stays as it was.
//!
//! A settings file is written by hand and by other tools; re-serialising it would sort or re-indent
//! keys and turn integers beyond 64 bits into floats, and install-then-uninstall would not give the
//! file back. Here a small scanner finds where each value starts and ends, and edits splice text:
//! replace one value, append one child, remove one child. Appending copies the whitespace that
//! precedes the last sibling, and removing a last child deletes exactly that separator again, so an
//! append followed by the removal of the same child is the identity.
//!
//! The scanner expects text serde_json already accepted (the caller validates first).

/// Where one value sits in the text (`end` exclusive) and, for containers, its children.
#[derive(Debug, Clone)]
pub enum Node {
    Object {
        start: usize,
        end: usize,
        members: Vec<Member>,
    },
    Array {
        start: usize,
        end: usize,
        items: Vec<Node>,
    },
    Scalar {
        start: usize,
        end: usize,
    },
}

/// One `"key": value` of an object.
#[derive(Debug, Clone)]
pub struct Member {
    pub key: String,
    pub key_start: usize,
    pub value: Node,
}

impl Node {
    pub fn start(&self) -> usize {
        match self {
            Node::Object { start, .. } | Node::Array { start, .. } | Node::Scalar { start, .. } => {
                *start
            }
        }
    }

    pub fn end(&self) -> usize {
        match self {
            Node::Object { end, .. } | Node::Array { end, .. } | Node::Scalar { end, .. } => *end,
        }
    }

    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Object { members, .. } => members.iter().find(|m| m.key == key).map(|m| &m.value),
            _ => None,
        }
    }

    pub fn items(&self) -> &[Node] {
        match self {
            Node::Array { items, .. } => items,
            _ => &[],
        }
    }

    pub fn members(&self) -> &[Member] {
        match self {
            Node::Object { members, .. } => members,
            _ => &[],
        }
    }

    /// The text of this value.
    pub fn text<'a>(&self, text: &'a str) -> &'a str {
        &text[self.start()..self.end()]
    }

    /// The children's spans (a member's span starts at its key).
    fn child_spans(&self) -> Vec<(usize, usize)> {
        match self {
            Node::Object { members, .. } => members
                .iter()
                .map(|m| (m.key_start, m.value.end()))
                .collect(),
            Node::Array { items, .. } => items.iter().map(|i| (i.start(), i.end())).collect(),
            Node::Scalar { .. } => Vec::new(),
        }
    }
}

/// The first key that appears twice in one object, anywhere in the tree. Such a file is refused:
/// readers disagree on which value counts, so an edit could land on the one that does not.
pub fn duplicate_key(node: &Node) -> Option<&str> {
    match node {
        Node::Object { members, .. } => {
            for (i, m) in members.iter().enumerate() {
                if members[..i].iter().any(|earlier| earlier.key == m.key) {
                    return Some(&m.key);
                }
            }
            members.iter().find_map(|m| duplicate_key(&m.value))
        }
        Node::Array { items, .. } => items.iter().find_map(duplicate_key),
        Node::Scalar { .. } => None,
    }
}

/// Scans the top-level value of `text`.
pub fn scan(text: &str) -> Result<Node, String> {
    let mut s = Scanner {
        b: text.as_bytes(),
        text,
        i: 0,
    };
    s.ws();
    let node = s.value(0)?;
    s.ws();
    if s.i != s.b.len() {
        return Err(format!("trailing text at byte {}", s.i));
    }
    Ok(node)
}

struct Scanner<'a> {
    b: &'a [u8],
    text: &'a str,
    i: usize,
}

impl Scanner<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.b.get(self.i) == Some(&c) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected {:?} at byte {}", c as char, self.i))
        }
    }

    /// The comma-separated entries of an object or array, from its opening bracket (at `self.i`)
    /// through `close`; `entry` reads one entry starting at its first non-space byte.
    fn comma_list(
        &mut self,
        close: u8,
        mut entry: impl FnMut(&mut Self) -> Result<(), String>,
    ) -> Result<(), String> {
        self.i += 1;
        self.ws();
        if self.b.get(self.i) != Some(&close) {
            loop {
                self.ws();
                entry(self)?;
                self.ws();
                if self.b.get(self.i) == Some(&b',') {
                    self.i += 1;
                } else {
                    break;
                }
            }
        }
        self.expect(close)
    }

    fn value(&mut self, depth: usize) -> Result<Node, String> {
        // serde_json refuses deeper nesting too; this keeps the recursion bounded.
        if depth > 128 {
            return Err("nested too deeply".into());
        }
        let start = self.i;
        match self.b.get(self.i) {
            Some(b'{') => {
                let mut members = Vec::new();
                self.comma_list(b'}', |p| {
                    let key_start = p.i;
                    p.string()?;
                    let key =
                        serde_json::from_str(&p.text[key_start..p.i]).map_err(|e| e.to_string())?;
                    p.ws();
                    p.expect(b':')?;
                    p.ws();
                    let value = p.value(depth + 1)?;
                    members.push(Member {
                        key,
                        key_start,
                        value,
                    });
                    Ok(())
                })?;
                Ok(Node::Object {
                    start,
                    end: self.i,
                    members,
                })
            }
            Some(b'[') => {
                let mut items = Vec::new();
                self.comma_list(b']', |p| {
                    items.push(p.value(depth + 1)?);
                    Ok(())
                })?;
                Ok(Node::Array {
                    start,
                    end: self.i,
                    items,
                })
            }
            Some(b'"') => {
                self.string()?;
                Ok(Node::Scalar { start, end: self.i })
            }
            Some(_) => {
                while self.i < self.b.len()
                    && !matches!(
                        self.b[self.i],
                        b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r'
                    )
                {
                    self.i += 1;
                }
                if self.i == start {
                    return Err(format!("expected a value at byte {start}"));
                }
                Ok(Node::Scalar { start, end: self.i })
            }
            None => Err("unexpected end of text".into()),
        }
    }

    fn string(&mut self) -> Result<(), String> {
        self.expect(b'"')?;
        while let Some(&c) = self.b.get(self.i) {
            self.i += 1;
            match c {
                b'\\' => self.i += 1,
                b'"' => return Ok(()),
                _ => {}
            }
        }
        Err("unterminated string".into())
    }
}

/// How the file is laid out, so what we add looks like what is there.
#[derive(Debug, Clone)]
pub struct Style {
    /// One level of indentation; `None` for a file written on one line.
    pub unit: Option<String>,
    /// `"\r\n"` in a file written with CRLF line ends, else `"\n"`.
    pub newline: &'static str,
}

impl Style {
    /// Detected from the text: the indentation of the root's first member, else two spaces; a
    /// file with content and no line break stays on one line.
    pub fn of(text: &str, root: &Node) -> Style {
        let first = root.child_spans().first().map(|s| s.0);
        let unit = match first {
            None => Some("  ".to_string()),
            Some(at) => {
                let before = &text[root.start() + 1..at];
                match before.rfind('\n') {
                    Some(nl) if nl + 1 < before.len() => Some(before[nl + 1..].to_string()),
                    Some(_) => Some("  ".to_string()),
                    None if text.trim_end().contains('\n') => Some("  ".to_string()),
                    None => None,
                }
            }
        };
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        Style { unit, newline }
    }

    /// `value` rendered to start at a line indented by `indent`.
    pub fn render(&self, value: &serde_json::Value, indent: &str) -> String {
        match &self.unit {
            None => serde_json::to_string(value).unwrap_or_default(),
            Some(unit) => {
                use serde::Serialize;
                let mut out = Vec::new();
                let fmt = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
                let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
                if value.serialize(&mut ser).is_err() {
                    return String::new();
                }
                String::from_utf8_lossy(&out).replace('\n', &format!("{}{indent}", self.newline))
            }
        }
    }

    fn member(&self, key: &str, value: &serde_json::Value, indent: &str) -> String {
        let key = serde_json::to_string(key).unwrap_or_default();
        let sep = if self.unit.is_some() { ": " } else { ":" };
        format!("{key}{sep}{}", self.render(value, indent))
    }
}

/// The whitespace at the start of the line holding byte `at`.
fn line_indent(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// Replaces the text of `node` with `value`, rendered at the node's own line indentation.
pub fn replace(text: &str, node: &Node, value: &serde_json::Value, style: &Style) -> String {
    let indent = line_indent(text, node.start());
    let rendered = style.render(value, indent);
    format!("{}{rendered}{}", &text[..node.start()], &text[node.end()..])
}

/// Appends a member to an object (`key` = `Some`) or an item to an array (`None`).
pub fn append(
    text: &str,
    container: &Node,
    key: Option<&str>,
    value: &serde_json::Value,
    style: &Style,
) -> String {
    let render = |indent: &str| match key {
        Some(k) => style.member(k, value, indent),
        None => style.render(value, indent),
    };
    let spans = container.child_spans();
    if let Some(&(last_start, last_end)) = spans.last() {
        // Copy the separator that precedes the last child (after its comma or the bracket).
        let ws_start = text[..last_start]
            .trim_end_matches([' ', '\t', '\n', '\r'])
            .len();
        let ws = &text[ws_start..last_start];
        let indent = ws.rfind('\n').map_or("", |nl| &ws[nl + 1..]);
        return format!(
            "{},{ws}{}{}",
            &text[..last_end],
            render(indent),
            &text[last_end..]
        );
    }
    let (open, close) = (container.start() + 1, container.end() - 1);
    match &style.unit {
        None => format!("{}{}{}", &text[..open], render(""), &text[close..]),
        Some(unit) => {
            let outer = line_indent(text, container.start());
            let inner = format!("{outer}{unit}");
            let nl = style.newline;
            format!(
                "{}{nl}{inner}{}{nl}{outer}{}",
                &text[..open],
                render(&inner),
                &text[close..]
            )
        }
    }
}

/// Removes child `index` of an object or array with the separator appending it added.
pub fn remove(text: &str, container: &Node, index: usize) -> String {
    let spans = container.child_spans();
    let Some(&(start, end)) = spans.get(index) else {
        return text.to_string();
    };
    if spans.len() == 1 {
        let (open, close) = (container.start() + 1, container.end() - 1);
        return format!("{}{}", &text[..open], &text[close..]);
    }
    if index + 1 == spans.len() {
        let prev_end = spans[index - 1].1;
        format!("{}{}", &text[..prev_end], &text[end..])
    } else {
        let next_start = spans[index + 1].0;
        format!("{}{}", &text[..start], &text[next_start..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn append_then_remove(text: &str, path: &[&str], key: Option<&str>) {
        let root = scan(text).unwrap();
        let style = Style::of(text, &root);
        let container = path.iter().fold(&root, |n, k| n.get(k).unwrap());
        let added = append(text, container, key, &json!({"a": [1, {"b": "c"}]}), &style);
        let v: serde_json::Value = serde_json::from_str(&added).unwrap();
        assert!(v.is_object(), "{added}");
        let root2 = scan(&added).unwrap();
        let container2 = path.iter().fold(&root2, |n, k| n.get(k).unwrap());
        let n = match container2 {
            Node::Object { members, .. } => members.len(),
            Node::Array { items, .. } => items.len(),
            Node::Scalar { .. } => unreachable!(),
        };
        assert_eq!(remove(&added, container2, n - 1), text, "{added}");
    }

    #[test]
    fn appending_then_removing_the_same_child_gives_the_text_back() {
        let texts = [
            "{}",
            "{}\n",
            "{\"x\":1}",
            "{\n  \"x\": 12345678901234567890,\n  \"y\": [ 1,2 ]\n}\n",
            "{\n\t\"x\": {\"z\": []},\n\t\"y\": 2\n}",
            "{\n    \"x\" :  1 ,\n    \"w\": \"a\\\"b\"\n}\n",
        ];
        for t in texts {
            append_then_remove(t, &[], Some("new"));
        }
        append_then_remove(texts[3], &["y"], None);
        append_then_remove(texts[4], &["x"], Some("k"));
        append_then_remove(texts[4], &["x", "z"], None);
    }

    #[test]
    fn appended_text_follows_the_files_indentation() {
        let text = "{\n\t\"x\": 1\n}\n";
        let root = scan(text).unwrap();
        let out = append(
            text,
            &root,
            Some("y"),
            &json!({"z": 1}),
            &Style::of(text, &root),
        );
        assert_eq!(out, "{\n\t\"x\": 1,\n\t\"y\": {\n\t\t\"z\": 1\n\t}\n}\n");
        let text = "{\"x\":1}";
        let root = scan(text).unwrap();
        let out = append(text, &root, Some("y"), &json!([2]), &Style::of(text, &root));
        assert_eq!(out, "{\"x\":1,\"y\":[2]}");
    }

    #[test]
    fn removing_a_middle_child_keeps_its_neighbours_layout() {
        let text = "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}";
        let root = scan(text).unwrap();
        assert_eq!(remove(text, &root, 1), "{\n  \"a\": 1,\n  \"c\": 3\n}");
        assert_eq!(remove(text, &root, 0), "{\n  \"b\": 2,\n  \"c\": 3\n}");
    }

    #[test]
    fn crlf_files_get_crlf_lines_and_come_back_exactly() {
        let text = "{\r\n  \"x\": {}\r\n}\r\n";
        let root = scan(text).unwrap();
        let style = Style::of(text, &root);
        let out = append(text, &root, Some("y"), &json!({"z": [1]}), &style);
        assert!(!out.replace("\r\n", "").contains('\n'), "{out:?}");
        append_then_remove(text, &[], Some("y"));
        append_then_remove(text, &["x"], Some("y"));
    }

    #[test]
    fn a_duplicate_key_is_found_at_any_depth() {
        assert_eq!(
            duplicate_key(&scan(r#"{"a":1,"b":{"c":[{"d":1,"d":2}]}}"#).unwrap()),
            Some("d")
        );
        assert_eq!(
            duplicate_key(&scan(r#"{"hooks":{},"hooks":{}}"#).unwrap()),
            Some("hooks")
        );
        assert_eq!(
            duplicate_key(&scan(r#"{"a":{"x":1},"b":{"x":1}}"#).unwrap()),
            None
        );
    }

    #[test]
    fn keys_with_escapes_are_decoded() {
        let root = scan(r#"{"h\u006fok": [1], "s": "]}"}"#).unwrap();
        assert!(root.get("hook").is_some());
        assert_eq!(root.members()[1].value.end(), 28);
    }
}
