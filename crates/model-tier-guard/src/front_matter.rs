//! The front matter of agent definitions, skills and slash commands, read as a YAML document
//! the way the CLI reads it (Claude Code uses a real YAML parser): `model:` with its value on
//! the next line, quoted keys, flow mappings, JSON front matter, anchors, aliases and merge keys
//! all set a model the CLI honours, so they must set it here too.
//!
//! The parser is `yaml-rust2`, driven by its event stream: only the top-level `name` and
//! `model` are kept, so an alias bomb cannot blow up memory (anchored values are kept as
//! scalars and flat mappings, never expanded). Text the YAML parser rejects is read again by a
//! lenient line scan, since the CLI does not drop such a file (a `description: a: b` line is
//! invalid YAML and common). Where two values compete (duplicate keys, a merge), every one is
//! kept: the caller judges the highest.

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

/// Largest front matter read. Descriptions of many KiB are ordinary; a file whose front matter
/// does not end within this bound is unreadable (the caller fails closed).
pub const MAX_FRONT_MATTER_BYTES: usize = 1024 * 1024;

/// What the front matter says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrontMatter {
    pub name: Option<String>,
    /// Every `model` value found, in order (usually one).
    pub models: Vec<String>,
    /// Why the models could not all be read (a `model` that is not a scalar, ...): the caller
    /// treats the model as unknown.
    pub unreadable: Option<String>,
}

/// The front matter block of `text`: the lines between a leading `---` (optionally `---yaml` or
/// `---json`) and the next `---` or `...` line. `None` when the text does not start with one.
/// A block that never closes is returned whole (a file being written may be cut short).
pub fn block(text: &str) -> Option<&str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first_end = text.find('\n').unwrap_or(text.len());
    let opener = text[..first_end].trim_end();
    if !matches!(
        opener,
        "---" | "---yaml" | "---json" | "--- yaml" | "--- json"
    ) {
        return None;
    }
    let body_start = (first_end + 1).min(text.len());
    let body = &text[body_start..];
    let mut offset = 0;
    for line in body.split_inclusive('\n') {
        let l = line.trim_end();
        if l == "---" || l == "..." {
            return Some(&body[..offset]);
        }
        offset += line.len();
    }
    Some(body)
}

/// Parses the front matter of `text` (`None`: no front matter).
pub fn parse(text: &str) -> Option<FrontMatter> {
    let block = block(text)?;
    Some(parse_block(block))
}

/// Parses a front matter block (the text between the fences).
pub fn parse_block(block: &str) -> FrontMatter {
    let mut r = Receiver::default();
    let mut parser = Parser::new_from_str(block);
    match parser.load(&mut r, false) {
        Ok(()) => r.finish(),
        Err(_) => lenient(block),
    }
}

/// One value seen in the document: a scalar, or a flat mapping (for merge keys).
#[derive(Debug, Clone)]
enum Node {
    Scalar(String, bool),
    Map(Vec<(String, Node)>),
    Other,
}

#[derive(Debug)]
enum Frame {
    /// A mapping: its entries, the pending key, its anchor.
    Map {
        entries: Vec<(String, Node)>,
        key: Option<Node>,
        anchor: usize,
    },
    /// A sequence: its items, its anchor.
    Seq { items: Vec<Node>, anchor: usize },
}

#[derive(Debug, Default)]
struct Receiver {
    stack: Vec<Frame>,
    anchors: std::collections::HashMap<usize, Node>,
    root: Option<Node>,
    /// Nodes kept below the top level; past this bound only the shape is kept.
    kept: usize,
}

const MAX_KEPT_NODES: usize = 10_000;

impl Receiver {
    fn value(&mut self, node: Node, anchor: usize) {
        if anchor > 0 {
            self.anchors.insert(anchor, node.clone());
        }
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some(Frame::Seq { items, .. }) => {
                if self.kept < MAX_KEPT_NODES {
                    self.kept += 1;
                    items.push(node);
                }
            }
            Some(Frame::Map { entries, key, .. }) => match key.take() {
                None => *key = Some(node),
                Some(k) => {
                    let k = match k {
                        Node::Scalar(s, _) => s,
                        _ => String::from("\u{0}complex key"),
                    };
                    if self.kept < MAX_KEPT_NODES {
                        self.kept += 1;
                        entries.push((k, node));
                    }
                }
            },
        }
    }

    fn finish(self) -> FrontMatter {
        let mut fm = FrontMatter::default();
        let Some(Node::Map(entries)) = self.root else {
            return fm;
        };
        collect(&entries, &mut fm, 0);
        fm
    }
}

/// Reads `name` and `model` from a mapping's entries, and from what its merge keys (`<<`)
/// bring in (YAML 1.1 merges, which some parsers apply by default).
fn collect(entries: &[(String, Node)], fm: &mut FrontMatter, depth: usize) {
    for (k, v) in entries {
        match (k.as_str(), v) {
            ("model", Node::Scalar(s, plain)) => {
                let null = *plain && matches!(s.trim(), "" | "~" | "null" | "Null" | "NULL");
                if !null {
                    fm.models.push(s.trim().to_string());
                }
            }
            ("model", _) => {
                fm.unreadable = Some("its `model` is not a plain value".into());
            }
            ("name", Node::Scalar(s, _)) if depth == 0 && fm.name.is_none() => {
                fm.name = Some(s.trim().to_string());
            }
            ("<<", Node::Map(inner)) if depth < 8 => collect(inner, fm, depth + 1),
            ("<<", Node::Other) => {
                fm.unreadable = Some("a merge key brings in values that were not kept".into());
            }
            _ => {}
        }
    }
}

impl MarkedEventReceiver for Receiver {
    fn on_event(&mut self, ev: Event, _mark: Marker) {
        match ev {
            Event::Scalar(s, style, anchor, _tag) => {
                let plain = matches!(style, yaml_rust2::scanner::TScalarStyle::Plain);
                self.value(Node::Scalar(s, plain), anchor);
            }
            Event::Alias(id) => {
                let node = self.anchors.get(&id).cloned().unwrap_or(Node::Other);
                self.value(node, 0);
            }
            Event::MappingStart(anchor, _) => self.stack.push(Frame::Map {
                entries: Vec::new(),
                key: None,
                anchor,
            }),
            Event::SequenceStart(anchor, _) => self.stack.push(Frame::Seq {
                items: Vec::new(),
                anchor,
            }),
            Event::MappingEnd => {
                if let Some(Frame::Map {
                    entries, anchor, ..
                }) = self.stack.pop()
                {
                    // Only flat mappings are kept whole (what a merge key can bring in).
                    let flat = entries.iter().all(|(_, v)| matches!(v, Node::Scalar(..)));
                    let node = if flat || self.stack.is_empty() {
                        Node::Map(entries)
                    } else {
                        Node::Map(
                            entries
                                .into_iter()
                                .map(|(k, v)| match v {
                                    Node::Scalar(..) => (k, v),
                                    _ => (k, Node::Other),
                                })
                                .collect(),
                        )
                    };
                    self.value(node, anchor);
                }
            }
            Event::SequenceEnd => {
                if let Some(Frame::Seq { items, anchor }) = self.stack.pop() {
                    // A merge key may name a list of mappings: keep them as one mapping.
                    let merged: Vec<(String, Node)> = items
                        .into_iter()
                        .filter_map(|i| match i {
                            Node::Map(e) => Some(e),
                            _ => None,
                        })
                        .flatten()
                        .collect();
                    let node = if merged.is_empty() {
                        Node::Other
                    } else {
                        Node::Map(merged)
                    };
                    self.value(node, anchor);
                }
            }
            _ => {}
        }
    }
}

/// Text the YAML parser rejects: every top-level `name` / `model` key line (quoted or not),
/// its value on the same line or the next indented one.
fn lenient(block: &str) -> FrontMatter {
    let mut fm = FrontMatter::default();
    let lines: Vec<&str> = block.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with([' ', '\t', '#']) {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim().trim_matches(['"', '\'']);
        let mut value = clean(value);
        if value.is_empty() {
            // `model:` with its value on the next, indented line.
            value = lines
                .get(i + 1)
                .filter(|n| n.starts_with([' ', '\t']))
                .map(|n| clean(n))
                .unwrap_or_default();
        }
        match key {
            "model" if !value.is_empty() && value != "~" && value != "null" => {
                fm.models.push(value)
            }
            "name" if fm.name.is_none() && !value.is_empty() => fm.name = Some(value),
            _ => {}
        }
    }
    fm
}

fn clean(v: &str) -> String {
    let v = v.trim();
    let v = if v.starts_with(['"', '\'']) {
        v
    } else {
        v.split(" #").next().unwrap_or(v).trim()
    };
    v.trim_matches(['"', '\'']).trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn models(text: &str) -> Vec<String> {
        parse(text).unwrap().models
    }

    #[test]
    fn plain_keys() {
        let fm = parse("---\nname: \"rev\"\nmodel: opus # fast\n---\nbody").unwrap();
        assert_eq!(fm.name.as_deref(), Some("rev"));
        assert_eq!(fm.models, ["opus"]);
        assert_eq!(parse("no front matter"), None);
        assert_eq!(parse("---\nname: a\n").unwrap().name.as_deref(), Some("a"));
        assert!(models("---\nmodel:\n---\n").is_empty());
        assert!(models("---\nmodel: ~\n---\n").is_empty());
    }

    #[test]
    fn what_a_real_yaml_parser_reads() {
        // Each of these sets `fable` for the CLI's YAML parser.
        for text in [
            "---\nname: a\nmodel:\n  fable\n---\n",
            "---\nname: a\n\"model\": fable\n---\n",
            "---\nname: a\n'model': \"fable\"\n---\n",
            "---\n{name: a, model: fable}\n---\n",
            "---\n{\"name\": \"a\", \"model\": \"fable\"}\n---\n",
            "---json\n{\"name\": \"a\", \"model\": \"fable\"}\n---\n",
            "---\nname: a\nmodel: >-\n  fable\n---\n",
            "---\nname: a\nmodel: !!str fable\n---\n",
            "---\nx: &m fable\nname: a\nmodel: *m\n---\n",
            "---\nbase: &b {model: fable}\nname: a\n<<: *b\n---\n",
            "---\nname: a\nmodel: \"f\\x61ble\"\n---\n",
        ] {
            let fm = parse(text).unwrap();
            assert_eq!(fm.models, ["fable"], "{text:?}");
            assert_eq!(fm.name.as_deref(), Some("a"), "{text:?}");
        }
    }

    #[test]
    fn a_long_description_does_not_hide_the_model() {
        let desc = "d".repeat(40 * 1024);
        let text = format!("---\nname: a\ndescription: {desc}\nmodel: fable\n---\n");
        assert_eq!(models(&text), ["fable"]);
    }

    #[test]
    fn duplicates_keep_every_value() {
        let fm = parse("---\nmodel: haiku\nname: a\nmodel: fable\n---\n").unwrap();
        assert!(fm.models.contains(&"fable".to_string()), "{fm:?}");
    }

    #[test]
    fn invalid_yaml_is_read_leniently() {
        let fm = parse("---\nname: a\ndescription: use it: often\nmodel: sonnet\n---\n").unwrap();
        assert_eq!(
            (fm.name.as_deref(), fm.models.as_slice()),
            (Some("a"), &["sonnet".to_string()][..])
        );
    }

    #[test]
    fn a_model_that_is_not_a_value_is_unreadable() {
        let fm = parse("---\nname: a\nmodel: [fable]\n---\n").unwrap();
        assert!(fm.unreadable.is_some());
        // Nested `model` keys are not the definition's model.
        let fm = parse("---\nname: a\nhooks:\n  model: fable\n---\n").unwrap();
        assert!(fm.models.is_empty() && fm.unreadable.is_none(), "{fm:?}");
    }

    #[test]
    fn an_alias_bomb_stays_small() {
        let mut text = String::from("---\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..30 {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        text.push_str("model: haiku\n---\n");
        assert_eq!(models(&text), ["haiku"]);
    }
}
