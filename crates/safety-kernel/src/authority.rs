//! K3: authority cannot be asserted by the model.
//!
//! A tool input is written by the model. Fields in it that claim authority (`approved_by`,
//! `allow_push`, `maintainer_ok`...) must never reach a rule, so they are removed before any rule
//! reads the input; the binary records what was removed in the audit log.

use serde_json::Value;

const EXACT: [&str; 6] = [
    "actor",
    "sanctioned",
    "approved",
    "approved_by",
    "capability",
    "disposition",
];
const PREFIXES: [&str; 3] = ["allow", "grant", "maintainer"];

/// A field that was removed, by its JSON path (`/a/b`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrippedField {
    /// The JSON path of the field.
    pub path: String,
}

fn claims_authority(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    EXACT.contains(&k.as_str()) || PREFIXES.iter().any(|p| k.starts_with(p))
}

/// Removes authority-claiming keys from every object in `value` (recursively) and returns them.
pub fn strip_asserted_authority(value: &mut Value) -> Vec<StrippedField> {
    let mut out = Vec::new();
    strip(value, String::new(), &mut out, 0);
    out
}

fn strip(value: &mut Value, path: String, out: &mut Vec<StrippedField>, depth: usize) {
    // Tool inputs are shallow; the bound only protects against pathological nesting.
    if depth > 64 {
        return;
    }
    match value {
        Value::Object(map) => {
            let doomed: Vec<String> = map
                .keys()
                .filter(|k| claims_authority(k))
                .cloned()
                .collect();
            for key in doomed {
                map.remove(&key);
                out.push(StrippedField {
                    path: format!("{path}/{key}"),
                });
            }
            for (key, child) in map.iter_mut() {
                strip(child, format!("{path}/{key}"), out, depth + 1);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter_mut().enumerate() {
                strip(child, format!("{path}/{i}"), out, depth + 1);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strips_claims_at_any_depth() {
        let mut v = json!({
            "command": "git push",
            "Approved_By": "maintainer",
            "allowPush": true,
            "grant_all": 1,
            "maintainerApproved": "yes",
            "nested": {"actor": "root", "keep": "x"},
            "list": [{"sanctioned": true}]
        });
        let removed = strip_asserted_authority(&mut v);
        assert_eq!(
            v,
            json!({"command": "git push", "nested": {"keep": "x"}, "list": [{}]})
        );
        let paths: Vec<_> = removed.iter().map(|r| r.path.as_str()).collect();
        assert!(paths.contains(&"/Approved_By"));
        assert!(paths.contains(&"/nested/actor"));
        assert!(paths.contains(&"/list/0/sanctioned"));
        assert_eq!(removed.len(), 6);
    }

    #[test]
    fn leaves_strings_alone() {
        let mut v = json!({"content": "approved_by: me", "file_path": "/x/allow.txt"});
        assert!(strip_asserted_authority(&mut v).is_empty());
        assert_eq!(v["content"], "approved_by: me");
    }
}
