//! `gh api` read as gh reads it: the endpoint (path, full URL, enterprise `/api/v3` prefix), the
//! method (`-X`/`--method` in every spelling, else POST as soon as a field flag or `--input` is
//! given, else GET), the fields (`-f`/`-F`/`--field`/`--raw-field`, attached and `=` forms) and,
//! for GraphQL, the query text and whether it is a mutation.

use crate::gh::GhArgs;

/// One `-f`/`-F` field.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Field {
    /// The key; `None` when the whole `key=value` is decided at run time.
    pub key: Option<String>,
    /// The value; `None` when decided at run time.
    pub value: Option<String>,
    /// `-F`/`--field` (typed: `@file` reads a file, numbers and booleans are converted).
    pub typed: bool,
}

impl Field {
    /// `-F key=@file`: the value comes from a file (or stdin).
    pub fn from_file(&self) -> bool {
        self.typed && self.value.as_deref().is_some_and(|v| v.starts_with('@'))
    }
}

/// The GraphQL document of a call, as far as it can be read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "detail")]
pub enum Query {
    /// No `query` field (and no `--input`).
    Absent,
    Text(String),
    /// The body comes from `--input`, a file, stdin or a run-time word.
    Unreadable(String),
}

/// The document and variables of a GraphQL request body (`{"query": "...", "variables":
/// {...}}`, JSON escapes such as `\u0050` decoded): the variables as fields (`id=PR_...`,
/// nested values by their last key), so a literal id among them counts as one in a field.
pub fn graphql_json(body: &str) -> (Query, Vec<Field>) {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(body) else {
        return (Query::Unreadable("the body is not JSON".into()), Vec::new());
    };
    let query = match v.get("query") {
        Some(serde_json::Value::String(q)) => Query::Text(q.clone()),
        Some(_) => Query::Unreadable("the query is not a string".into()),
        None => Query::Absent,
    };
    let mut fields = Vec::new();
    if let Some(vars) = v.get("variables") {
        flatten_json("variables", vars, &mut fields);
    }
    (query, fields)
}

/// A REST request's JSON body (`gh api ... --input -`) as the fields it sets, nested keys
/// included (`{"body":"x","in_reply_to":9}` sets `in_reply_to`); `None` when it is not JSON.
pub fn rest_json(body: &str) -> Option<Vec<Field>> {
    let v = serde_json::from_str::<serde_json::Value>(body).ok()?;
    let mut fields = Vec::new();
    flatten_json("", &v, &mut fields);
    Some(fields)
}

fn flatten_json(key: &str, v: &serde_json::Value, out: &mut Vec<Field>) {
    match v {
        serde_json::Value::Object(m) => m.iter().for_each(|(k, v)| flatten_json(k, v, out)),
        serde_json::Value::Array(a) => a.iter().for_each(|v| flatten_json(key, v, out)),
        serde_json::Value::String(s) => out.push(Field {
            key: Some(key.to_string()),
            value: Some(s.clone()),
            typed: false,
        }),
        other => out.push(Field {
            key: Some(key.to_string()),
            value: Some(other.to_string()),
            typed: false,
        }),
    }
}

/// A `gh api` call.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ApiCall {
    /// The endpoint as written; `None` when missing or decided at run time.
    pub endpoint: Option<String>,
    pub endpoint_dynamic: bool,
    /// The endpoint with run-time parts named `${NAME}` (`repos/o/r/issues/${N}/comments`);
    /// `None` when a part is not a plain parameter (a substitution).
    pub endpoint_template: Option<String>,
    /// Upper-cased method; `None` when `-X` is given a run-time word.
    pub method: Option<String>,
    pub fields: Vec<Field>,
    pub input: bool,
    pub hostname: Option<String>,
    pub graphql: bool,
    pub query: Query,
    /// `--silent`: gh prints nothing of the response (the result is thrown away).
    pub silent: bool,
}

impl ApiCall {
    /// Reads a `gh api` call (`g.top == Some("api")`).
    pub fn from_args(g: &GhArgs) -> ApiCall {
        let endpoint_arg = g.positionals.first();
        let endpoint = endpoint_arg.cloned().flatten();
        let endpoint_dynamic = matches!(endpoint_arg, Some(None));
        let endpoint_template = g.positional_templates.first().cloned().flatten();
        let mut fields = Vec::new();
        for f in &g.flags {
            let typed = match f.name.as_str() {
                "-F" | "--field" => true,
                "-f" | "--raw-field" => false,
                _ => continue,
            };
            let Some(v) = &f.value else { continue };
            fields.push(match v {
                None => match f.template.as_deref().and_then(|t| t.split_once('=')) {
                    // `-F id="$ID"`: the key is static, the value is not.
                    Some((k, _)) if !k.contains('$') => Field {
                        key: Some(k.to_string()),
                        value: None,
                        typed,
                    },
                    _ => Field {
                        key: None,
                        value: None,
                        typed,
                    },
                },
                Some(kv) => match kv.split_once('=') {
                    Some((k, val)) => Field {
                        key: Some(k.to_string()),
                        value: Some(val.to_string()),
                        typed,
                    },
                    None => Field {
                        key: Some(kv.clone()),
                        value: Some(String::new()),
                        typed,
                    },
                },
            });
        }
        // Dynamic field words: the view gives `None` for the whole flag value.
        let input = g.has(&["--input"]);
        let explicit: Vec<Option<&str>> = g.values(&["-X", "--method"]).collect();
        let method = match explicit.last() {
            Some(Some(m)) => Some(m.to_ascii_uppercase()),
            Some(None) => None,
            None if !fields.is_empty() || input => Some("POST".into()),
            None => Some("GET".into()),
        };
        let hostname = g
            .values(&["--hostname"])
            .last()
            .flatten()
            .map(str::to_string);
        let graphql = endpoint
            .as_deref()
            .map(|e| {
                let p = strip_query(e).trim_end_matches('/');
                p == "graphql" || p.ends_with("/graphql")
            })
            .unwrap_or(false);
        let query = if !graphql {
            Query::Absent
        } else if input {
            Query::Unreadable("the body comes from --input".into())
        } else {
            let q: Vec<&Field> = fields
                .iter()
                .filter(|f| f.key.as_deref() == Some("query") || f.key.is_none())
                .collect();
            match q.last() {
                None => Query::Absent,
                Some(f) if f.key.is_none() => {
                    Query::Unreadable("a field is decided at run time".into())
                }
                Some(f) if f.from_file() => Query::Unreadable("the query comes from a file".into()),
                Some(f) => match &f.value {
                    Some(v) => Query::Text(v.clone()),
                    None => Query::Unreadable("the query is decided at run time".into()),
                },
            }
        };
        ApiCall {
            endpoint,
            endpoint_dynamic,
            endpoint_template,
            method,
            fields,
            input,
            hostname,
            graphql,
            query,
            silent: g.bool_flag(&["--silent"]) == Some(true),
        }
    }

    /// Whether the call writes: a GraphQL mutation (or an unreadable GraphQL body), or a REST
    /// method other than GET/HEAD (an unknown method counts as a write).
    pub fn is_write(&self) -> bool {
        if self.graphql {
            return self.is_mutation()
                || self
                    .method
                    .as_deref()
                    .is_some_and(|m| m != "GET" && m != "POST" && m != "HEAD");
        }
        !matches!(self.method.as_deref(), Some("GET") | Some("HEAD"))
    }

    /// A GraphQL call whose document is a mutation, or cannot be read.
    pub fn is_mutation(&self) -> bool {
        match &self.query {
            Query::Text(t) => has_word(t, "mutation"),
            Query::Unreadable(_) => true,
            Query::Absent => self.graphql && self.fields.iter().any(|f| f.key.is_none()),
        }
    }

    /// The REST path without host, `/api/v3` prefix, leading slash, query or fragment.
    pub fn rest_path(&self) -> Option<String> {
        self.endpoint.as_deref().map(rest_path)
    }

    /// The REST path as far as it is known: [`ApiCall::rest_path`], or for an endpoint decided
    /// at run time its template (run-time parts as `${NAME}`).
    pub fn rest_path_template(&self) -> Option<String> {
        self.rest_path()
            .or_else(|| self.endpoint_template.as_deref().map(rest_path))
    }

    /// `repos/<owner>/<repo>/...` named by the endpoint (placeholders are not targets). Owner
    /// and repository count when they are literal, even if a later segment is decided at run
    /// time (`repos/o/r/issues/$N/comments`).
    pub fn repo_target(&self) -> Option<(String, String)> {
        let path = self.rest_path_template()?;
        let mut parts = path.split('/');
        if parts.next()? != "repos" {
            return None;
        }
        let owner = parts.next()?;
        let repo = parts.next()?;
        if is_placeholder(owner)
            || is_placeholder(repo)
            || owner.is_empty()
            || repo.is_empty()
            || owner.contains('$')
            || repo.contains('$')
        {
            return None;
        }
        Some((owner.to_string(), repo.to_string()))
    }

    /// The static value of a field.
    pub fn field(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .rev()
            .find(|f| f.key.as_deref() == Some(key))
            .and_then(|f| f.value.as_deref())
    }
}

pub use crate::repo::is_placeholder;

fn strip_query(e: &str) -> &str {
    let e = e.split('#').next().unwrap_or(e);
    e.split('?').next().unwrap_or(e)
}

/// The path of an endpoint: `https://host/api/v3/repos/x` → `repos/x`.
pub fn rest_path(endpoint: &str) -> String {
    let e = strip_query(endpoint.trim());
    let e = match e.split_once("://") {
        Some((_, rest)) => rest.split_once('/').map(|(_, p)| p).unwrap_or(""),
        None => e,
    };
    // `repos/acme/../stranger/x`: curl resolves dot segments before the request (and a server
    // may): read as the path they resolve to, `%2e` decoded.
    let resolved = crate::git_url::without_dot_segments(&format!("/{}", e.trim_start_matches('/')));
    let e = resolved.trim_start_matches('/');
    let e = e.strip_prefix("api/v3/").unwrap_or(e);
    e.trim_end_matches('/').to_string()
}

/// Whether `word` occurs in `text` as a whole identifier.
pub fn has_word(text: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(pos) = text[from..].find(word) {
        let start = from + pos;
        let end = start + word.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        if !before.is_some_and(is_ident) && !after.is_some_and(is_ident) {
            return true;
        }
        from = end;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(cmd: &str) -> ApiCall {
        let p = shell_syntax::parse(cmd);
        let v = shell_syntax::commands(&p);
        ApiCall::from_args(&crate::gh::parse(&v.invocations[0].args))
    }

    /// (command, the method gh uses; `None`: decided at run time).
    const METHODS: &[(&str, Option<&str>)] = &[
        ("gh api repos/o/r", Some("GET")),
        ("gh api repos/o/r -f a=b", Some("POST")),
        ("gh api repos/o/r -fa=b", Some("POST")),
        ("gh api repos/o/r --raw-field=a=b", Some("POST")),
        ("gh api repos/o/r --input x.json", Some("POST")),
        ("gh api repos/o/r -XDELETE", Some("DELETE")),
        ("gh api repos/o/r -X=patch", Some("PATCH")),
        ("gh api repos/o/r --method=PUT", Some("PUT")),
        ("gh api repos/o/r --method GET -f a=1", Some("GET")),
        ("gh api repos/o/r -X \"$M\"", None),
    ];

    #[test]
    fn a_rest_path_is_read_with_its_dot_segments_resolved() {
        for (endpoint, path) in [
            ("repos/acme/../stranger/x/issues", "repos/stranger/x/issues"),
            ("/repos/acme/widget/../../stranger/x", "repos/stranger/x"),
            (
                "https://api.github.com/repos/a/%2e%2e/s/x/pulls?x=1",
                "repos/s/x/pulls",
            ),
            (
                "repos/acme/widget/git/refs/heads/./main",
                "repos/acme/widget/git/refs/heads/main",
            ),
            (
                "repos/acme/widget/contents/a..b",
                "repos/acme/widget/contents/a..b",
            ),
        ] {
            assert_eq!(rest_path(endpoint), path, "{endpoint}");
        }
    }

    #[test]
    fn method_inference_in_every_spelling() {
        for (cmd, want) in METHODS {
            let call = api(cmd);
            assert_eq!(call.method.as_deref(), *want, "{cmd}");
            assert_eq!(call.is_write(), *want != Some("GET"), "{cmd}");
        }
        assert!(!api("gh api repos/o/r -X GET -f page=1").is_write());
        assert!(api("gh api repos/o/r -f title=x --silent").silent);
        assert!(!api("gh api repos/o/r --silent=false").silent);
    }

    #[test]
    fn graphql_mutations() {
        assert!(api("gh api graphql -f query='mutation{x}'").is_write());
        assert!(!api("gh api graphql -f query='{viewer{login}}'").is_write());
        assert!(api("gh api graphql -F query=@q.graphql").is_write());
        assert!(api("gh api graphql -f query=\"$Q\"").is_write());
        assert!(api("gh api graphql --input body.json").is_write());
        assert!(api("gh api https://ghe.example/api/graphql -f query='mutation{x}'").graphql);
        assert!(api("gh api 'https://api.github.com/graphql#x' -f query='mutation{x}'").graphql);
        assert!(!has_word("query{mutations}", "mutation"));
    }

    #[test]
    fn endpoints_name_repositories() {
        let t = |cmd: &str| api(cmd).repo_target();
        let want = Some(("o".to_string(), "r".to_string()));
        assert_eq!(t("gh api repos/o/r/issues -f a=b"), want);
        assert_eq!(t("gh api /repos/o/r/issues"), want);
        assert_eq!(
            t("gh api 'https://api.github.com/repos/o/r/issues?x=1'"),
            want
        );
        assert_eq!(
            t("gh api https://ghe.example/api/v3/repos/o/r/issues"),
            want
        );
        assert_eq!(t("gh api repos/{owner}/{repo}/issues"), None);
        assert_eq!(t("gh api \"repos/o/r/issues/$N/comments\" -f body=x"), want);
        assert_eq!(t("gh api \"repos/$O/r/issues\" -f body=x"), None);
        assert_eq!(t("gh api \"repos/o/$(echo r)/issues\" -f body=x"), None);
    }
}
