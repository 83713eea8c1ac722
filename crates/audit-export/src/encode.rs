//! One audit line to one OTLP log record, and a batch of them to the request bytes: pure
//! functions, so the mapping (the attribute names a fleet's dashboards are built on) is tested
//! without a file or a socket.
//!
//! The attribute names are stable: renaming one breaks every query written against it.

use crate::proto::{
    any_value, severity, AnyValue, ExportLogsServiceRequest, InstrumentationScope, KeyValue,
    LogRecord, Resource, ResourceLogs, ScopeLogs,
};
use prost::Message;
use serde_json::Value;

/// The requirement that decided (`G4`).
pub const ATTR_REQUIREMENT: &str = "agent_guards.requirement";
/// The sub-code that fired (`G4.rule`).
pub const ATTR_CODE: &str = "agent_guards.code";
/// The decision's word (`deny`, `allow`, ...: `session_store::Decision::as_str`).
pub const ATTR_DECISION: &str = "agent_guards.decision";
/// The binary (or layer) that wrote the record.
pub const ATTR_BINARY: &str = "agent_guards.binary";
/// Set (`true`) on a line of the log that is not an audit record; its body is the line.
pub const ATTR_UNPARSED: &str = "agent_guards.unparsed";
/// The session (OpenTelemetry's `session.id`).
pub const ATTR_SESSION: &str = "session.id";
/// The host (OpenTelemetry's `host.name`), on every record and on the resource.
pub const ATTR_HOST: &str = "host.name";
/// A process id (OpenTelemetry's `process.pid`): on a record, the `pid` the record names (the
/// process a second-line decision was about); on the resource, the sending process.
pub const ATTR_PID: &str = "process.pid";

/// The instrumentation scope's name.
pub const SCOPE_NAME: &str = "agent-guards.audit";

/// What a batch shares: where and when it is sent from.
#[derive(Debug, Clone)]
pub struct Origin<'a> {
    /// The session's id (the log's folder name when a record names none).
    pub session_id: Option<&'a str>,
    /// This host's name.
    pub host_name: &'a str,
    /// The sending process.
    pub sender_pid: u32,
    /// When the exporter read the records (nanoseconds since the epoch).
    pub observed_unix_nano: u64,
}

fn kv(key: &str, value: any_value::Value) -> KeyValue {
    KeyValue {
        key: key.to_string(),
        value: Some(AnyValue { value: Some(value) }),
    }
}

fn text(key: &str, value: &str) -> KeyValue {
    kv(key, any_value::Value::StringValue(value.to_string()))
}

/// Nanoseconds since the epoch of an RFC 3339 time; `None` when it does not parse.
pub fn unix_nanos(rfc3339: &str) -> Option<u64> {
    let t = time::OffsetDateTime::parse(rfc3339, &time::format_description::well_known::Rfc3339)
        .ok()?;
    u64::try_from(t.unix_timestamp_nanos()).ok()
}

/// The severity of a decision: a refusal is a warning, a failure or a critical act an error,
/// anything else information.
pub fn severity_of(decision: &str) -> i32 {
    match decision {
        "deny" | "block" | "deny_unanswered" => severity::WARN,
        "deny_unjudged" | "failure" | "critical" => severity::ERROR,
        _ => severity::INFO,
    }
}

/// The log record of one line of an audit log (without its newline). The body is the line as
/// written; the attributes are read from it where it is a record, and a line that is not one is
/// still sent, marked [`ATTR_UNPARSED`] (nothing the log holds is left out).
pub fn log_record(line: &str, origin: &Origin<'_>) -> LogRecord {
    let parsed: Option<serde_json::Map<String, Value>> = serde_json::from_str(line).ok();
    let field = |name: &str| -> Option<&str> { parsed.as_ref()?.get(name)?.as_str() };
    let mut attributes = Vec::new();
    let decision = field("decision").unwrap_or_default();
    for (key, name) in [
        (ATTR_REQUIREMENT, "requirement"),
        (ATTR_CODE, "code"),
        (ATTR_DECISION, "decision"),
        (ATTR_BINARY, "binary"),
    ] {
        if let Some(v) = field(name) {
            attributes.push(text(key, v));
        }
    }
    if let Some(session) = field("session_id").or(origin.session_id) {
        attributes.push(text(ATTR_SESSION, session));
    }
    attributes.push(text(ATTR_HOST, origin.host_name));
    let pid = parsed
        .as_ref()
        .and_then(|m| m.get("pid"))
        .and_then(Value::as_i64);
    if let Some(pid) = pid {
        attributes.push(kv(ATTR_PID, any_value::Value::IntValue(pid)));
    }
    if parsed.is_none() {
        attributes.push(kv(ATTR_UNPARSED, any_value::Value::BoolValue(true)));
    }
    LogRecord {
        time_unix_nano: field("time").and_then(unix_nanos).unwrap_or(0),
        observed_time_unix_nano: origin.observed_unix_nano,
        severity_number: severity_of(decision),
        severity_text: decision.to_string(),
        body: Some(AnyValue {
            value: Some(any_value::Value::StringValue(line.to_string())),
        }),
        attributes,
        ..LogRecord::default()
    }
}

/// The request of one batch: one resource (this host's suite), one scope, the records in order.
pub fn request(lines: &[&str], origin: &Origin<'_>) -> ExportLogsServiceRequest {
    ExportLogsServiceRequest {
        resource_logs: vec![ResourceLogs {
            resource: Some(Resource {
                attributes: vec![
                    text("service.name", "agent-guards"),
                    text(ATTR_HOST, origin.host_name),
                    kv(
                        ATTR_PID,
                        any_value::Value::IntValue(i64::from(origin.sender_pid)),
                    ),
                ],
                dropped_attributes_count: 0,
            }),
            scope_logs: vec![ScopeLogs {
                scope: Some(InstrumentationScope {
                    name: SCOPE_NAME.to_string(),
                    version: env!("CARGO_PKG_VERSION").to_string(),
                    ..InstrumentationScope::default()
                }),
                log_records: lines.iter().map(|l| log_record(l, origin)).collect(),
                schema_url: String::new(),
            }],
            schema_url: String::new(),
        }],
    }
}

/// The bytes of [`request`] (the POST body, `application/x-protobuf`).
pub fn encode(lines: &[&str], origin: &Origin<'_>) -> Vec<u8> {
    request(lines, origin).encode_to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin() -> Origin<'static> {
        Origin {
            session_id: Some("folder-id"),
            host_name: "box",
            sender_pid: 42,
            observed_unix_nano: 7,
        }
    }

    fn attr<'a>(r: &'a LogRecord, key: &str) -> Option<&'a any_value::Value> {
        r.attributes
            .iter()
            .find(|a| a.key == key)
            .and_then(|a| a.value.as_ref()?.value.as_ref())
    }

    fn s(v: &str) -> any_value::Value {
        any_value::Value::StringValue(v.to_string())
    }

    #[test]
    fn a_refusal_carries_its_attributes_time_and_whole_line() {
        let line = r#"{"binary":"gh-write-guard","decision":"deny","requirement":"G4","code":"G4.rule","time":"2026-12-07T18:00:00.250Z","session_id":"s-1","command":"git push"}"#;
        let r = log_record(line, &origin());
        assert_eq!(attr(&r, ATTR_REQUIREMENT), Some(&s("G4")));
        assert_eq!(attr(&r, ATTR_CODE), Some(&s("G4.rule")));
        assert_eq!(attr(&r, ATTR_DECISION), Some(&s("deny")));
        assert_eq!(attr(&r, ATTR_BINARY), Some(&s("gh-write-guard")));
        assert_eq!(
            attr(&r, ATTR_SESSION),
            Some(&s("s-1")),
            "the record's own id"
        );
        assert_eq!(attr(&r, ATTR_HOST), Some(&s("box")));
        assert_eq!(attr(&r, ATTR_PID), None, "the record names no pid");
        assert_eq!(r.time_unix_nano, 1_796_666_400_250_000_000);
        assert_eq!(r.observed_time_unix_nano, 7);
        assert_eq!(r.severity_number, severity::WARN);
        assert_eq!(r.severity_text, "deny");
        assert_eq!(r.body.unwrap().value, Some(s(line)));
    }

    #[test]
    fn missing_fields_are_left_out_and_a_damaged_line_is_still_sent() {
        let r = log_record(
            r#"{"binary":"second-line","decision":"recorded","pid":912}"#,
            &origin(),
        );
        assert_eq!(attr(&r, ATTR_REQUIREMENT), None);
        assert_eq!(attr(&r, ATTR_SESSION), Some(&s("folder-id")));
        assert_eq!(attr(&r, ATTR_PID), Some(&any_value::Value::IntValue(912)));
        assert_eq!(r.time_unix_nano, 0, "no time: unknown, as OTLP spells it");
        assert_eq!(r.severity_number, severity::INFO);
        let bad = log_record("{not json", &origin());
        assert_eq!(
            attr(&bad, ATTR_UNPARSED),
            Some(&any_value::Value::BoolValue(true))
        );
        assert_eq!(bad.body.unwrap().value, Some(s("{not json")));
    }

    #[test]
    fn the_tag_bytes_are_the_proto_field_numbers() {
        // A minimal LogRecord, encoded by hand from logs.proto's numbers and wire types:
        // time_unix_nano = 1 fixed64 (tag 0x09), severity_number = 2 varint (0x10),
        // severity_text = 3 (0x1A), body = 5 (0x2A, AnyValue.string_value = 1: 0x0A),
        // attributes = 6 (0x32, KeyValue key = 1: 0x0A, value = 2: 0x12), observed = 11
        // fixed64 ((11 << 3) | 1 = 0x59).
        let r = LogRecord {
            time_unix_nano: 1,
            observed_time_unix_nano: 2,
            severity_number: 13,
            severity_text: "d".into(),
            body: Some(AnyValue {
                value: Some(s("b")),
            }),
            attributes: vec![text("k", "v")],
            ..LogRecord::default()
        };
        let mut want = vec![0x09, 1, 0, 0, 0, 0, 0, 0, 0];
        want.extend([0x10, 13]);
        want.extend([0x1A, 1, b'd']);
        want.extend([0x2A, 3, 0x0A, 1, b'b']);
        want.extend([0x32, 8, 0x0A, 1, b'k', 0x12, 3, 0x0A, 1, b'v']);
        want.extend([0x59, 2, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(r.encode_to_vec(), want);
        // The request: resource_logs = 1, in it scope_logs = 2, in it log_records = 2.
        let bytes = encode(&["x"], &origin());
        assert_eq!(bytes[0], 0x0A);
        let decoded = ExportLogsServiceRequest::decode(bytes.as_slice()).unwrap();
        assert_eq!(decoded.resource_logs[0].scope_logs[0].log_records.len(), 1);
    }

    #[test]
    fn severities_follow_the_decision() {
        assert_eq!(severity_of("block"), severity::WARN);
        assert_eq!(severity_of("critical"), severity::ERROR);
        assert_eq!(severity_of("allow"), severity::INFO);
    }
}
