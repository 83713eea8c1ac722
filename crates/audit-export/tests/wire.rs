//! The wire format checked independently of our own message definitions: the bytes a real flush
//! sent are decoded by the official OpenTelemetry Python package (`opentelemetry-proto` from
//! PyPI, generated from the same `.proto` files every collector is built from). When Python or
//! the package cannot be had here, the check says so loudly (`hook_replay::skip`); the hand
//! check of the tag bytes (`encode::tests::the_tag_bytes_are_the_proto_field_numbers`) runs
//! everywhere.

mod common;

use audit_export::{flush_with, Endpoint, Exporter, Limits};
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const DECODE: &str = r#"
import json, sys
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
req = ExportLogsServiceRequest()
req.ParseFromString(open(sys.argv[1], "rb").read())
out = []
for rl in req.resource_logs:
    res = {kv.key: kv.value.WhichOneof("value") and getattr(kv.value, kv.value.WhichOneof("value")) for kv in rl.resource.attributes}
    for sl in rl.scope_logs:
        for r in sl.log_records:
            attrs = {}
            for kv in r.attributes:
                kind = kv.value.WhichOneof("value")
                attrs[kv.key] = getattr(kv.value, kind)
            out.append({
                "scope": sl.scope.name,
                "resource": res,
                "time": r.time_unix_nano,
                "observed": r.observed_time_unix_nano,
                "severity": r.severity_number,
                "severity_text": r.severity_text,
                "body": r.body.string_value,
                "attributes": attrs,
            })
print(json.dumps(out))
"#;

/// A Python that imports the official package: the one at hand, else one with the package
/// installed by pip into the test's target folder. `Err` says why neither works.
fn python_with_otlp() -> Result<(String, Option<PathBuf>), String> {
    let python = ["python3", "python"]
        .into_iter()
        .find(|p| {
            Command::new(p)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .ok_or("no python3 on PATH")?;
    let imports = |path: Option<&Path>| {
        let mut c = Command::new(python);
        c.args([
            "-c",
            "import opentelemetry.proto.collector.logs.v1.logs_service_pb2",
        ]);
        if let Some(p) = path {
            c.env("PYTHONPATH", p);
        }
        c.output().is_ok_and(|o| o.status.success())
    };
    if imports(None) {
        return Ok((python.to_string(), None));
    }
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("otlp-py");
    if imports(Some(&target)) {
        return Ok((python.to_string(), Some(target)));
    }
    let pip = Command::new(python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--target",
        ])
        .arg(&target)
        .arg("opentelemetry-proto")
        .output()
        .map_err(|e| format!("pip did not run: {e}"))?;
    if pip.status.success() && imports(Some(&target)) {
        Ok((python.to_string(), Some(target)))
    } else {
        Err(format!(
            "pip install opentelemetry-proto failed: {}",
            String::from_utf8_lossy(&pip.stderr)
                .lines()
                .last()
                .unwrap_or_default()
        ))
    }
}

#[test]
fn the_official_python_package_decodes_what_a_flush_sent() {
    let (python, path) = match python_with_otlp() {
        Ok(x) => x,
        Err(why) => {
            hook_replay::skip::cannot_run(
                "the_official_python_package_decodes_what_a_flush_sent",
                &why,
            );
            return;
        }
    };
    let state = tempfile::tempdir().unwrap();
    write_records(state.path(), "sess-w", 0, 2);
    // A record of the second line (it names a pid) and a damaged line.
    let log = session_store::Session::new(state.path(), Some("sess-w")).audit();
    log.append(
        &serde_json::json!({"binary": "second-line", "decision": "deny_unjudged",
        "requirement": "C10", "code": "C10.unjudged", "pid": 4242, "time": "2026-12-07T18:00:01Z"}),
    )
    .unwrap();
    std::fs::OpenOptions::new()
        .append(true)
        .open(log.path())
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"{damaged\n"))
        .unwrap();
    let rx = Receiver::start("127.0.0.1:0", vec![]);
    let ex = Exporter {
        endpoint: Endpoint {
            url: audit_export::endpoint::logs_url(&rx.base()),
            headers: vec![],
            source: "test",
        },
        limits: Limits::default(),
    };
    let r = flush_with(state.path(), &ex, Instant::now() + Duration::from_secs(10)).unwrap();
    assert_eq!(r.sent, 4, "{r:?}");
    let captured = rx.captured();
    let file = state.path().join("captured.bin");
    std::fs::write(&file, &captured[0].body).unwrap();

    let mut c = Command::new(&python);
    c.args(["-c", DECODE]).arg(&file);
    if let Some(p) = &path {
        c.env("PYTHONPATH", p);
    }
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let decoded: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let recs = decoded.as_array().unwrap();
    assert_eq!(recs.len(), 4);
    let lines: Vec<String> = std::fs::read_to_string(log.path())
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    for (r, line) in recs.iter().zip(&lines) {
        assert_eq!(r["body"], line.as_str());
        assert_eq!(r["scope"], "agent-guards.audit");
        assert_eq!(r["resource"]["service.name"], "agent-guards");
        assert_eq!(r["resource"]["process.pid"], std::process::id());
        assert!(r["attributes"]["host.name"]
            .as_str()
            .is_some_and(|h| !h.is_empty()));
        assert!(r["observed"].as_u64().unwrap() > 1_700_000_000_000_000_000);
    }
    let a = &recs[0]["attributes"];
    assert_eq!(a["agent_guards.requirement"], "G4");
    assert_eq!(a["agent_guards.code"], "G4.rule");
    assert_eq!(a["agent_guards.decision"], "deny");
    assert_eq!(a["agent_guards.binary"], "gh-write-guard");
    assert_eq!(a["session.id"], "sess-w");
    assert_eq!(recs[0]["time"], 1_796_666_400_250_000_000u64);
    assert_eq!(recs[0]["severity"], 13, "SEVERITY_NUMBER_WARN");
    assert_eq!(recs[0]["severity_text"], "deny");
    let sl = &recs[2];
    assert_eq!(sl["attributes"]["process.pid"], 4242);
    assert_eq!(
        sl["attributes"]["session.id"], "sess-w",
        "the folder's name"
    );
    assert_eq!(sl["time"], 1_796_666_401_000_000_000u64);
    assert_eq!(sl["severity"], 17, "SEVERITY_NUMBER_ERROR");
    assert_eq!(recs[3]["attributes"]["agent_guards.unparsed"], true);
    assert_eq!(recs[3]["time"], 0);
}
