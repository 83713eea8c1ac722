//! HTTP clients read as each reads its arguments (one table per client): the method a request
//! uses and the URLs it goes to. `curl -sLX DELETE` is a DELETE (a cluster ending in a valued
//! letter takes the next word); `curl -G -d x` is a GET (data goes into the query); HTTPie and
//! xh take an optional method word, and `key==value` items are query parameters, not a body.

use crate::git_options::{opt_word, OptWord};
use shell_syntax::view::Arg;

/// One HTTP client call.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct HttpCall {
    pub program: String,
    /// Upper-cased method; `None` when decided at run time.
    pub method: Option<String>,
    /// URL operands (`None`: decided at run time).
    pub urls: Vec<Option<String>>,
    /// Where the response body goes when not to stdout (`curl -o`, `wget -O`, `http
    /// --output`); `Some(None)`: a file decided at run time.
    pub output: Option<Option<String>>,
    /// The request body, as far as the command line tells it.
    pub body: Option<Body>,
}

/// Where a request's body comes from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub enum Body {
    /// Written in the command (`-d '{...}'`, `--post-data=...`, HTTPie items as JSON).
    Text(String),
    /// Read from the client's stdin (`-d @-`, `--json @-`, HTTPie with no items).
    Stdin,
    /// Read from a file (`-d @q.json`, `--post-file=q.json`, `query=@q.graphql`).
    File(String),
    /// Decided at run time (a run-time word, a config file, several sources).
    RunTime,
}

impl Body {
    /// The body of `-d VALUE`-like options: `@-` stdin, `@file` a file (unless `raw`).
    fn of_value(v: Option<String>, raw: bool) -> Body {
        match v {
            None => Body::RunTime,
            Some(v) if !raw && v.starts_with('@') => match &v[1..] {
                "-" | "/dev/stdin" => Body::Stdin,
                f => Body::File(f.to_string()),
            },
            Some(v) => Body::Text(v),
        }
    }

    /// curl joins several `-d` values with `&`; any other mix is run-time.
    fn join(prev: Option<Body>, next: Body) -> Body {
        match (prev, next) {
            (None, b) => b,
            (Some(Body::Text(a)), Body::Text(b)) => Body::Text(format!("{a}&{b}")),
            _ => Body::RunTime,
        }
    }
}

impl HttpCall {
    /// Whether the request may change something (a method other than GET/HEAD/OPTIONS, or one
    /// decided at run time).
    pub fn is_write(&self) -> bool {
        !matches!(
            self.method.as_deref(),
            Some("GET") | Some("HEAD") | Some("OPTIONS")
        )
    }

    /// Whether the response is thrown away (written to `/dev/null`).
    pub fn discards_response(&self) -> bool {
        matches!(self.output.as_ref(), Some(Some(p)) if p == "/dev/null")
    }
}

/// The HTTP clients we read, by program name.
pub fn is_http_client(name: &str) -> bool {
    matches!(
        name,
        "curl" | "wget" | "http" | "https" | "xh" | "xhs" | "httpie"
    )
}

/// curl's short options that take a value (curl 8 `tool_getparam.c`).
const CURL_VALUED_SHORT: &str = "AbcCdDeEFHKmoPQrTtuUwXxyYz";
/// curl's long options that take a value (the ones that change method, body or target, and
/// the common ones whose value could be mistaken for a URL).
const CURL_VALUED_LONG: &[&str] = &[
    "request",
    "data",
    "data-raw",
    "data-binary",
    "data-ascii",
    "data-urlencode",
    "json",
    "form",
    "form-string",
    "upload-file",
    "header",
    "user",
    "user-agent",
    "referer",
    "output",
    "cookie",
    "cookie-jar",
    "config",
    "max-time",
    "connect-timeout",
    "proxy",
    "cacert",
    "cert",
    "key",
    "url",
    "write-out",
    "retry",
    "oauth2-bearer",
    "range",
    "continue-at",
    "dump-header",
    "resolve",
    "connect-to",
    "interface",
    "limit-rate",
    "max-filesize",
    "output-dir",
    "proto",
    "proto-redir",
    "unix-socket",
    "variable",
    "expand-url",
    "aws-sigv4",
];

/// A client's arguments read one word at a time; an option's value is the word after it.
struct Words<'s, 'a> {
    args: &'s [Arg<'a>],
    next: usize,
}

impl<'s> Words<'s, '_> {
    fn new<'a>(args: &'s [Arg<'a>]) -> Words<'s, 'a> {
        Words { args, next: 0 }
    }

    /// The next word (`Some(None)`: decided at run time); `None` after the last.
    fn next(&mut self) -> Option<Option<&'s str>> {
        let a = self.args.get(self.next)?;
        self.next += 1;
        Some(a.value.as_deref())
    }

    /// The next word as an option's value (`None`: decided at run time, or missing).
    fn value(&mut self) -> Option<String> {
        self.next().flatten().map(String::from)
    }
}

fn curl(args: &[Arg<'_>]) -> HttpCall {
    let mut method: Option<Option<String>> = None;
    let (mut body, mut get, mut head, mut upload) = (false, false, false, false);
    let mut text: Option<Body> = None;
    let mut urls = Vec::new();
    let mut output = None;
    let mut words = Words::new(args);
    let mut only_operands = false;
    while let Some(word) = words.next() {
        let Some(v) = word else {
            urls.push(None);
            continue;
        };
        let (name, attached) = match opt_word(v, only_operands) {
            OptWord::Operand(v) => {
                urls.push(Some(v.to_string()));
                continue;
            }
            OptWord::EndOfOptions => {
                only_operands = true;
                continue;
            }
            OptWord::Long(name, attached) => (name, attached.map(String::from)),
            OptWord::Short => ("", None),
        };
        if !name.is_empty() {
            let value = if CURL_VALUED_LONG.contains(&name) {
                Some(attached.or_else(|| words.value()))
            } else {
                None
            };
            match name {
                "request" => method = value.map(|m| m.map(|m| m.to_ascii_uppercase())),
                "get" => get = true,
                "head" => head = true,
                "url" => urls.push(value.flatten()),
                "output" => output = value,
                "upload-file" => upload = true,
                // `-K -`, `--config f`: options (URL, data, method) read at run time.
                "config" => {
                    text = Some(Body::RunTime);
                    method = Some(None);
                }
                n if n.starts_with("data") || n == "json" => {
                    body = true;
                    let v = Body::of_value(value.flatten(), n == "data-raw");
                    text = Some(Body::join(text, v));
                }
                n if n.starts_with("form") => {
                    body = true;
                    text = Some(Body::RunTime);
                }
                _ => {}
            }
            continue;
        }
        let cluster = &v[1..];
        for (pos, c) in cluster.char_indices() {
            if CURL_VALUED_SHORT.contains(c) {
                let rest = &cluster[pos + c.len_utf8()..];
                let value = if rest.is_empty() {
                    words.value()
                } else {
                    Some(rest.to_string())
                };
                match c {
                    'X' => method = Some(value.map(|m| m.to_ascii_uppercase())),
                    'd' => {
                        body = true;
                        text = Some(Body::join(text, Body::of_value(value, false)));
                    }
                    'F' => {
                        body = true;
                        text = Some(Body::RunTime);
                    }
                    'K' => {
                        text = Some(Body::RunTime);
                        method = Some(None);
                    }
                    'T' => upload = true,
                    'o' => output = Some(value),
                    _ => {}
                }
                break;
            }
            match c {
                'G' => get = true,
                'I' => head = true,
                _ => {}
            }
        }
    }
    let method = match method {
        Some(m) => m,
        None if head => Some("HEAD".into()),
        None if get => Some("GET".into()),
        None if upload => Some("PUT".into()),
        None if body => Some("POST".into()),
        None => Some("GET".into()),
    };
    HttpCall {
        program: "curl".into(),
        method,
        urls,
        output,
        body: text,
    }
}

fn wget(args: &[Arg<'_>]) -> HttpCall {
    let mut method: Option<Option<String>> = None;
    let mut body = false;
    let mut text: Option<Body> = None;
    let mut urls = Vec::new();
    let mut output = None;
    let mut words = Words::new(args);
    while let Some(word) = words.next() {
        let Some(v) = word else {
            urls.push(None);
            continue;
        };
        if v == "-O" || v == "--output-document" {
            output = Some(words.value());
        } else if let Some(o) = v
            .strip_prefix("--output-document=")
            .or_else(|| v.strip_prefix("-O"))
        {
            output = Some(Some(o.to_string()));
        } else if let Some(m) = v.strip_prefix("--method=") {
            method = Some(Some(m.to_ascii_uppercase()));
        } else if v == "--method" {
            method = Some(words.value().map(|m| m.to_ascii_uppercase()));
        } else if v.starts_with("--post-") || v.starts_with("--body-") {
            body = true;
            let value = match v.split_once('=') {
                Some((_, x)) => Some(x.to_string()),
                None => words.value(),
            };
            text = Some(match value {
                None => Body::RunTime,
                Some(x) if v.contains("-file") => match x.as_str() {
                    "-" | "/dev/stdin" => Body::Stdin,
                    _ => Body::File(x),
                },
                Some(x) => Body::Text(x),
            });
        } else if matches!(v, "-o" | "-P" | "-U" | "--header" | "--user" | "--password") {
            words.next();
        } else if !v.starts_with('-') {
            urls.push(Some(v.to_string()));
        }
    }
    let method = method.unwrap_or_else(|| Some(if body { "POST" } else { "GET" }.into()));
    HttpCall {
        program: "wget".into(),
        method,
        urls,
        output,
        body: text,
    }
}

/// HTTPie/xh valued flags.
const HTTPIE_VALUED: &[&str] = &[
    "-a",
    "--auth",
    "-A",
    "--auth-type",
    "-o",
    "--output",
    "--session",
    "--session-read-only",
    "--verify",
    "--cert",
    "--cert-key",
    "--proxy",
    "--timeout",
    "--pretty",
    "-s",
    "--style",
    "-p",
    "--print",
    "--max-redirects",
    "--default-scheme",
    "--format-options",
    "--raw",
    "--unix-socket",
    "--ssl",
    "--ciphers",
    "--boundary",
    "--response-charset",
    "--response-mime",
    "-P",
    "--history-print",
    "--bearer",
];

fn httpie(program: &str, args: &[Arg<'_>]) -> HttpCall {
    let mut positionals: Vec<Option<String>> = Vec::new();
    let mut forced_method: Option<Option<String>> = None;
    let mut words = Words::new(args);
    let mut raw_body = false;
    let mut output = None;
    while let Some(word) = words.next() {
        let Some(v) = word else {
            positionals.push(None);
            continue;
        };
        if v.starts_with('-') && v.len() > 1 {
            let name = v.split('=').next().unwrap_or(v);
            if name == "--raw" {
                raw_body = true;
            }
            let value = match v.split_once('=') {
                Some((_, attached)) => Some(Some(attached.to_string())),
                None if HTTPIE_VALUED.contains(&name) => Some(words.value()),
                None => None,
            };
            if matches!(name, "-o" | "--output") {
                output = value;
            }
            if v == "--offline" {
                forced_method = Some(Some("GET".into()));
            }
            continue;
        }
        positionals.push(Some(v.to_string()));
    }
    let mut it = positionals.into_iter().peekable();
    let mut method: Option<Option<String>> = None;
    // `http [METHOD] URL [ITEM...]`: a first word of capital letters is the method.
    if let Some(Some(first)) = it.peek() {
        if !first.is_empty()
            && first.bytes().all(|b| b.is_ascii_alphabetic())
            && first.len() <= 10
            && !first.contains('.')
        {
            let is_method = first.bytes().all(|b| b.is_ascii_uppercase())
                || matches!(
                    first.to_ascii_uppercase().as_str(),
                    "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS"
                );
            if is_method {
                method = Some(Some(first.to_ascii_uppercase()));
                it.next();
            }
        }
    }
    let url = it.next();
    let mut body = raw_body;
    // The JSON object HTTPie builds of `key=value` and `key:=json` items.
    let mut object = serde_json::Map::new();
    let mut text: Option<Body> = raw_body.then_some(Body::RunTime);
    for item in it {
        match item {
            None => {
                body = true;
                text = Some(Body::RunTime);
            }
            Some(item) => {
                if item.contains("==") {
                    continue;
                }
                if item.contains(":=") || item.contains('=') || item.contains('@') {
                    body = true;
                }
                if let Some((k, v)) = item.split_once(":=") {
                    match serde_json::from_str(v) {
                        Ok(j) if !v.starts_with('@') => {
                            object.insert(k.to_string(), j);
                        }
                        _ => text = Some(Body::RunTime),
                    }
                } else if let Some((k, v)) = item.split_once('=') {
                    match v.strip_prefix('@') {
                        Some(f) => text = Some(Body::File(f.to_string())),
                        None => {
                            object.insert(k.to_string(), serde_json::Value::String(v.into()));
                        }
                    }
                } else if let Some(f) = item.strip_prefix('@') {
                    text = Some(Body::File(f.to_string()));
                }
            }
        }
    }
    let text = match text {
        Some(t) => Some(t),
        None if !object.is_empty() => {
            Some(Body::Text(serde_json::Value::Object(object).to_string()))
        }
        // No items: HTTPie sends what it reads on stdin, when that is not a terminal.
        None => Some(Body::Stdin),
    };
    let method = match forced_method {
        // `--offline` builds the request and prints it: nothing is sent.
        Some(m) => m,
        None => method.unwrap_or_else(|| Some(if body { "POST" } else { "GET" }.into())),
    };
    HttpCall {
        program: program.into(),
        method,
        urls: url.into_iter().collect(),
        output,
        body: text,
    }
}

/// Reads a call of the HTTP client `program` (see [`is_http_client`]).
pub fn read(program: &str, args: &[Arg<'_>]) -> Option<HttpCall> {
    Some(match program {
        "curl" => curl(args),
        "wget" => wget(args),
        "http" | "https" | "xh" | "xhs" | "httpie" => httpie(program, args),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(cmd: &str) -> HttpCall {
        let p = shell_syntax::parse(cmd);
        let v = shell_syntax::commands(&p);
        let inv = &v.invocations[0];
        read(inv.name().unwrap(), &inv.args).unwrap()
    }

    #[test]
    fn bodies_as_each_client_reads_them() {
        let b = |c: &str| call(c).body;
        let text = |t: &str| Some(Body::Text(t.into()));
        assert_eq!(
            b("curl -d '{\"a\":1}' https://x/graphql"),
            text("{\"a\":1}")
        );
        assert_eq!(b("curl -d a=1 -d b=2 https://x/y"), text("a=1&b=2"));
        assert_eq!(b("curl --data-binary @- https://x/y"), Some(Body::Stdin));
        assert_eq!(
            b("curl --json @q.json https://x/y"),
            Some(Body::File("q.json".into()))
        );
        assert_eq!(b("curl --data-raw @q.json https://x/y"), text("@q.json"));
        assert_eq!(b("curl -d \"$B\" https://x/y"), Some(Body::RunTime));
        assert_eq!(b("curl -K - https://x/y"), Some(Body::RunTime));
        assert_eq!(call("curl -K - https://x/y").method, None);
        assert_eq!(
            b("wget --post-file=q.json https://x/y"),
            Some(Body::File("q.json".into()))
        );
        assert_eq!(b("wget --post-data 'a=1' https://x/y"), text("a=1"));
        assert_eq!(
            b("http POST x/graphql query='{ a }'"),
            text("{\"query\":\"{ a }\"}")
        );
        assert_eq!(
            b("http POST x/graphql query=@q.graphql"),
            Some(Body::File("q.graphql".into()))
        );
        assert_eq!(b("http POST x/graphql"), Some(Body::Stdin));
        assert_eq!(b("curl https://x/y"), None);
        // `--offline` sends nothing.
        assert!(!call("http --offline POST api.github.com/repos/o/r/issues title=x").is_write());
    }

    #[test]
    fn methods_as_each_client_reads_them() {
        let m = |c: &str| call(c).method;
        assert_eq!(
            m("curl -sLX DELETE https://api.github.com/repos/o/r"),
            Some("DELETE".into())
        );
        assert_eq!(m("curl -XPATCH https://x/y"), Some("PATCH".into()));
        assert_eq!(m("curl --request=put https://x/y"), Some("PUT".into()));
        assert_eq!(m("curl -G -d q=1 https://x/y"), Some("GET".into()));
        assert_eq!(m("curl -d q=1 https://x/y"), Some("POST".into()));
        assert_eq!(m("curl --json '{}' https://x/y"), Some("POST".into()));
        assert_eq!(m("curl -H 'X: y' https://x/y"), Some("GET".into()));
        assert_eq!(m("curl -X \"$M\" https://x/y"), None);
        assert_eq!(
            m("http DELETE api.github.com/repos/o/r"),
            Some("DELETE".into())
        );
        assert_eq!(m("http api.github.com/search q==x"), Some("GET".into()));
        assert_eq!(
            m("xh api.github.com/repos/o/r/issues title=x"),
            Some("POST".into())
        );
        assert_eq!(m("wget --method=DELETE https://x/y"), Some("DELETE".into()));
        // (command, whether the response goes to /dev/null)
        for (c, want) in [
            ("curl -so /dev/null -X POST https://x/y", true),
            ("curl --output=/dev/null https://x/y", true),
            ("wget -q -O /dev/null --post-data=x https://x/y", true),
            ("wget -O/dev/null https://x/y", true),
            ("http --output /dev/null POST x/y a=b", true),
            ("curl -o out.json -X POST https://x/y", false),
            ("curl -O https://x/y", false),
            ("wget -o /dev/null https://x/y", false),
        ] {
            assert_eq!(call(c).discards_response(), want, "{c}");
        }
        assert_eq!(
            call("curl -H 'Accept: x' -o out https://api.github.com/x").urls,
            vec![Some("https://api.github.com/x".to_string())]
        );
    }
}
