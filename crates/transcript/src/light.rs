//! Typed reading of a transcript line that keeps only what the scanners route on — the line's
//! `type`, whether it is a sidechain or meta line, and each content block's `type`,
//! `tool_use_id` and `is_error` — and skips the rest (texts, tool outputs, `toolUseResult`)
//! without allocating. A real JSON parse (any spacing, key order or escape), cheaper than a
//! full `Value` of a line that holds a long tool output.

use serde::de::{Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;

#[derive(Debug, Deserialize)]
pub(crate) struct Line<'a> {
    #[serde(rename = "type", borrow, default)]
    pub kind: Option<Cow<'a, str>>,
    #[serde(rename = "isSidechain", default)]
    pub is_sidechain: Option<bool>,
    #[serde(rename = "isMeta", default)]
    pub is_meta: Option<bool>,
    #[serde(borrow, default)]
    pub message: Option<Message<'a>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Message<'a> {
    #[serde(borrow, default, deserialize_with = "blocks")]
    pub content: Vec<Block<'a>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Block<'a> {
    #[serde(rename = "type", borrow, default)]
    pub kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub tool_use_id: Option<Cow<'a, str>>,
    #[serde(default)]
    pub is_error: Option<bool>,
}

impl Line<'_> {
    pub fn is_skipped(&self) -> bool {
        self.is_sidechain == Some(true) || self.is_meta == Some(true)
    }

    pub fn blocks(&self) -> &[Block<'_>] {
        self.message.as_ref().map_or(&[], |m| m.content.as_slice())
    }
}

/// `content` is a string (a typed prompt: no blocks) or an array of blocks.
fn blocks<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Block<'de>>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Vec<Block<'de>>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a string or an array of content blocks")
        }
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(b) = seq.next_element::<BlockOrOther<'de>>()? {
                if let BlockOrOther::Block(b) = b {
                    out.push(b);
                }
            }
            Ok(out)
        }
    }
    d.deserialize_any(V)
}

/// A block, or anything else in the array (kept out of the way).
enum BlockOrOther<'a> {
    Block(Block<'a>),
    Other,
}

impl<'de> Deserialize<'de> for BlockOrOther<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = BlockOrOther<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a content block")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<Self::Value, A::Error> {
                Block::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(BlockOrOther::Block)
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(BlockOrOther::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(BlockOrOther::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(BlockOrOther::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(BlockOrOther::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(BlockOrOther::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(BlockOrOther::Other)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(BlockOrOther::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// The routing view of a line; `None` when it is not a JSON object of this shape.
pub(crate) fn parse(line: &[u8]) -> Option<Line<'_>> {
    serde_json::from_slice(line).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_on_types_ids_and_errors() {
        let l = parse(br#"{"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "a", "is_error": true, "content": [{"type": "text", "text": "x"}]}, "junk"]}, "toolUseResult": {"stdout": "big"}}"#).unwrap();
        assert_eq!(l.kind.as_deref(), Some("user"));
        let b = l.blocks();
        assert_eq!(b.len(), 1);
        assert_eq!(
            (
                b[0].kind.as_deref(),
                b[0].tool_use_id.as_deref(),
                b[0].is_error
            ),
            (Some("tool_result"), Some("a"), Some(true))
        );
        let l =
            parse(br#"{"type":"user","isMeta":true,"message":{"content":"a prompt"}}"#).unwrap();
        assert!(l.is_skipped() && l.blocks().is_empty());
        // An escaped key is the same key.
        let l = parse(br#"{"type":"user","message":{"content":[{"type":"tool_result","tool\u005fuse_id":"b"}]}}"#).unwrap();
        assert_eq!(l.blocks()[0].tool_use_id.as_deref(), Some("b"));
    }
}
