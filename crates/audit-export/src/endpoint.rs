//! Where records go and with which headers, from the config and the standard OpenTelemetry
//! variables: pure functions of the values, so the precedence is tested without an environment.
//!
//! The exporter is off unless an endpoint is named. Precedence (the OpenTelemetry SDKs' order:
//! the launch environment over the file): `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT` (the full logs URL,
//! used as written), then `OTEL_EXPORTER_OTLP_ENDPOINT` (a base: `v1/logs` is appended to its
//! path), then the config key `otlp_endpoint` (a base, like the variable). Headers come from
//! `OTEL_EXPORTER_OTLP_HEADERS` and `OTEL_EXPORTER_OTLP_LOGS_HEADERS` (`k=v,k2=v2`, each key and
//! value URL-decoded; the logs-specific one wins for a key both name).

use crate::ExportError;

/// The logs URL and headers of a resolved endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The URL records are POSTed to (ends in `/v1/logs` unless given whole).
    pub url: String,
    /// Extra request headers (an `authorization` token, a tenant).
    pub headers: Vec<(String, String)>,
    /// Where the URL came from (for the report): the variable or `config otlp_endpoint`.
    pub source: &'static str,
}

/// The logs URL of a base endpoint: `v1/logs` appended to its path (`http://h:4318` →
/// `http://h:4318/v1/logs`, `http://h/otlp/` → `http://h/otlp/v1/logs`).
pub fn logs_url(base: &str) -> String {
    let base = base.trim();
    let has_path = base
        .split_once("://")
        .is_some_and(|(_, rest)| rest.contains('/'));
    match (has_path, base.ends_with('/')) {
        (true, true) => format!("{base}v1/logs"),
        _ => format!("{base}/v1/logs"),
    }
}

fn check_url(url: &str, source: &str) -> Result<(), ExportError> {
    if url.starts_with("http://") || url.starts_with("https://") {
        Ok(())
    } else {
        Err(ExportError::Config(format!(
            "{source} = {url:?} is not an http(s) URL; nothing is exported"
        )))
    }
}

/// `%XX` decoded (an invalid escape is kept as written).
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The headers of `k=v,k2=v2` (keys and values trimmed and URL-decoded; an entry without `=` or
/// with an empty key is left out).
pub fn parse_headers(s: &str) -> Vec<(String, String)> {
    s.split(',')
        .filter_map(|entry| {
            let (k, v) = entry.split_once('=')?;
            let k = percent_decode(k.trim());
            (!k.is_empty()).then(|| (k, percent_decode(v.trim())))
        })
        .collect()
}

/// The endpoint named by `env` and the config's `otlp_endpoint`; `Ok(None)` when none is (the
/// exporter is off). An endpoint that is not an http(s) URL is an error, never a guess.
pub fn resolve(
    env: &dyn Fn(&str) -> Option<String>,
    config_endpoint: Option<&str>,
) -> Result<Option<Endpoint>, ExportError> {
    let set = |k: &str| env(k).filter(|v| !v.trim().is_empty());
    let (url, source) = if let Some(u) = set("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT") {
        (u.trim().to_string(), "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT")
    } else if let Some(b) = set("OTEL_EXPORTER_OTLP_ENDPOINT") {
        check_url(b.trim(), "OTEL_EXPORTER_OTLP_ENDPOINT")?;
        (logs_url(&b), "OTEL_EXPORTER_OTLP_ENDPOINT")
    } else if let Some(b) = config_endpoint.filter(|b| !b.trim().is_empty()) {
        check_url(b.trim(), "config otlp_endpoint")?;
        (logs_url(b), "config otlp_endpoint")
    } else {
        return Ok(None);
    };
    check_url(&url, source)?;
    let mut headers = set("OTEL_EXPORTER_OTLP_HEADERS")
        .map(|h| parse_headers(&h))
        .unwrap_or_default();
    for (k, v) in set("OTEL_EXPORTER_OTLP_LOGS_HEADERS")
        .map(|h| parse_headers(&h))
        .unwrap_or_default()
    {
        headers.retain(|(old, _)| !old.eq_ignore_ascii_case(&k));
        headers.push((k, v));
    }
    Ok(Some(Endpoint {
        url,
        headers,
        source,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_logs_path_is_appended_to_a_base() {
        assert_eq!(logs_url("http://h:4318"), "http://h:4318/v1/logs");
        assert_eq!(logs_url("http://h:4318/"), "http://h:4318/v1/logs");
        assert_eq!(logs_url("https://h/otlp/"), "https://h/otlp/v1/logs");
        assert_eq!(logs_url("https://h/otlp"), "https://h/otlp/v1/logs");
    }

    #[test]
    fn off_by_default_and_the_environment_wins_over_the_config() {
        assert_eq!(resolve(&env(&[]), None).unwrap(), None);
        assert_eq!(resolve(&env(&[]), Some("  ")).unwrap(), None);
        let from_config = resolve(&env(&[]), Some("http://c:4318")).unwrap().unwrap();
        assert_eq!(from_config.url, "http://c:4318/v1/logs");
        assert_eq!(from_config.source, "config otlp_endpoint");
        let e = env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://e:4318")]);
        assert_eq!(
            resolve(&e, Some("http://c:4318")).unwrap().unwrap().url,
            "http://e:4318/v1/logs"
        );
        let e = env(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://e:4318"),
            ("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "http://l:9/custom"),
        ]);
        assert_eq!(resolve(&e, None).unwrap().unwrap().url, "http://l:9/custom");
        assert!(resolve(&env(&[]), Some("c:4318")).is_err());
        assert!(resolve(&env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "grpc://x")]), None).is_err());
    }

    #[test]
    fn headers_are_split_and_url_decoded() {
        assert_eq!(
            parse_headers("authorization=Bearer%20t0k%3D, x-tenant = a%2Cb ,bad,=v"),
            vec![
                ("authorization".to_string(), "Bearer t0k=".to_string()),
                ("x-tenant".to_string(), "a,b".to_string()),
            ]
        );
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
        let e = env(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://e"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "a=1,b=2"),
            ("OTEL_EXPORTER_OTLP_LOGS_HEADERS", "B=3"),
        ]);
        let h = resolve(&e, None).unwrap().unwrap().headers;
        assert_eq!(h, vec![("a".into(), "1".into()), ("B".into(), "3".into())]);
    }
}
