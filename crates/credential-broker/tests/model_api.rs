//! M3 at the wire (issue 39) with real parts: the real `curl` and a Python `urllib` script that
//! takes the key from its environment (the broker's placeholder) reach a loopback model API
//! over TLS through the broker. A request for the maintainer-only tier is refused in the API's
//! own shape and never reaches the server; an allowed model is answered, the server having
//! checked the real key; a streamed answer's first event is not held back; no real credential
//! reaches what the client sees. Written from the requirement first.

mod support;

use credential_broker::audit::{CredentialUse, Outcome};
use support::model_api::{ModelScene, BEDROCK, GATEWAY, HOLD, MODEL_KEY, MODEL_TOKEN};

/// `curl` a Messages request for `model` to `url`, the key from the environment.
fn curl_messages(s: &ModelScene, url: &str, model: &str, extra: &[(&str, &str)]) -> String {
    let body = format!(
        r#"{{"model":"{model}","max_tokens":8,"messages":[{{"role":"user","content":"hi"}}]}}"#
    );
    s.run(
        &format!(
            "curl -sS -i --suppress-connect-headers --max-time 20 -H \"x-api-key: $ANTHROPIC_API_KEY\" \
             -H 'anthropic-version: 2023-06-01' -H 'content-type: application/json' -d '{body}' {url}"
        ),
        extra,
    )
}

const MESSAGES: &str = "https://api.anthropic.com/v1/messages";

/// A client of the API as a script writes one: urllib, the key and base URL from its
/// environment, the proxy and CA from the environment too. Prints the status, the body, and
/// for a stream the monotonic time its whole first event arrived and when the stream ended.
const PY_CLIENT: &str = r#"
import json, os, sys, time, urllib.request, urllib.error
model, stream = sys.argv[1], sys.argv[2] == "stream"
base = os.environ.get("ANTHROPIC_BASE_URL", "https://api.anthropic.com")
body = json.dumps({"model": model, "max_tokens": 8, "stream": stream,
                   "messages": [{"role": "user", "content": "hi"}]}).encode()
req = urllib.request.Request(base + "/v1/messages", data=body, headers={
    "x-api-key": os.environ["ANTHROPIC_API_KEY"], "anthropic-version": "2023-06-01",
    "content-type": "application/json"})
try:
    with urllib.request.urlopen(req, timeout=20) as r:
        print("status", r.status)
        if stream:
            first = b""
            while not first.endswith(b"\n\n"):  # the whole first event
                line = r.readline()
                if not line:
                    break
                first += line
            print("first_at", time.monotonic())
            rest = r.read()
            print("end_at", time.monotonic())
            print((first + rest).decode())
        else:
            print(r.read().decode())
except urllib.error.HTTPError as e:
    print("status", e.code)
    print(e.read().decode())
"#;

fn python(s: &ModelScene, model: &str, stream: bool) -> String {
    let script = s.dir.path().join("client.py");
    std::fs::write(&script, PY_CLIENT).unwrap();
    let mode = if stream { "stream" } else { "once" };
    s.run(&format!("python3 {} {model} {mode}", script.display()), &[])
}

fn value_after(text: &str, key: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {key} in {text}"))
}

/// The JSON body of a curl `-i` answer.
fn json_body(text: &str) -> serde_json::Value {
    let body = text.rsplit("\r\n\r\n").next().unwrap_or_default();
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn assert_m3_refusal(text: &str) {
    assert!(text.starts_with("HTTP/1.1 403"), "{text}");
    assert!(text.contains("X-Agent-Guards-Code: M3.launch"), "{text}");
    let v = json_body(text);
    assert_eq!(v["type"], "error", "{text}");
    assert_eq!(v["error"]["type"], "permission_error", "{text}");
    let m = v["error"]["message"].as_str().unwrap_or_default();
    assert!(m.starts_with("agent-guards: M3.launch"), "{m}");
}

#[test]
fn the_tier_is_refused_in_the_apis_shape_and_never_reaches_the_server() {
    let s = ModelScene::new();
    for model in ["claude-fable-5", "fable", "claude-fable-5-20261001"] {
        assert_m3_refusal(&curl_messages(&s, MESSAGES, model, &[]));
    }
    assert!(s.api.seen().is_empty(), "{:?}", s.api.seen());
    let d = s.sink.decisions_at_least(3);
    assert_eq!(d.len(), 3, "{d:?}");
    for one in &d {
        assert_eq!(one.outcome, Outcome::Refused);
        assert_eq!(one.code.as_deref(), Some("M3.launch"));
        assert_eq!(one.credential, CredentialUse::NotSent);
        assert_eq!(one.host, "api.anthropic.com");
        assert!(
            one.peer
                .as_ref()
                .and_then(|p| p.exe.clone())
                .unwrap_or_default()
                .contains("curl"),
            "{:?}",
            one.peer
        );
    }
    assert_eq!(d[0].models, [Some("claude-fable-5".to_string())]);
}

#[test]
fn an_allowed_model_is_answered_with_the_real_key_which_the_client_never_sees() {
    let s = ModelScene::new();
    let text = curl_messages(&s, MESSAGES, "claude-haiku-4-5", &[]);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    let key = s
        .broker
        .model_key_placeholder
        .clone()
        .expect("a key placeholder");
    // The server echoed the key it got: the client sees the placeholder in its place.
    let v = json_body(&text);
    assert_eq!(v["content"][0]["text"], format!("the key I got: {key}"));
    let seen = s.api.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].auth, "real", "the broker added the real key");
    assert_eq!(seen[0].model.as_deref(), Some("claude-haiku-4-5"));
    let d = s.sink.decisions_at_least(1);
    assert_eq!(d[0].outcome, Outcome::Allowed);
    assert_eq!(d[0].credential, CredentialUse::Added);
    assert_eq!(d[0].upstream_status, Some(200));
}

#[test]
fn a_python_script_with_the_key_from_its_env_gets_the_refusal_and_an_answer() {
    let s = ModelScene::new();
    let refused = python(&s, "claude-fable-5", false);
    assert!(refused.starts_with("status 403"), "{refused}");
    assert!(refused.contains("\"permission_error\""), "{refused}");
    assert!(refused.contains("agent-guards: M3.launch"), "{refused}");
    let allowed = python(&s, "claude-sonnet-4-5", false);
    assert!(allowed.starts_with("status 200"), "{allowed}");
    assert_eq!(s.api.models(), [Some("claude-sonnet-4-5".to_string())]);
    assert_eq!(s.api.seen()[0].auth, "real");
}

#[test]
fn a_streamed_answer_is_relayed_as_it_arrives() {
    let s = ModelScene::new();
    let text = python(&s, "claude-haiku-4-5", true);
    assert!(text.starts_with("status 200"), "{text}");
    assert!(text.contains("message_stop"), "{text}");
    let first_at = value_after(&text, "first_at");
    let end_at = value_after(&text, "end_at");
    let sent = s.api.first_sent.lock().unwrap()[0];
    let lag = first_at - sent;
    eprintln!(
        "first event: server sent at {sent:.6}, client read at {first_at:.6}: {:.3} ms later",
        lag * 1e3
    );
    // Held back, the first event would come with the rest, HOLD later.
    assert!(
        lag < HOLD.as_secs_f64() / 4.0,
        "the first event was held {lag:.3} s"
    );
    assert!(end_at - first_at > HOLD.as_secs_f64() * 0.9, "{text}");
}

#[test]
fn an_unreadable_model_and_an_unknown_family_count_as_the_tier() {
    let s = ModelScene::new();
    let bad = s.run(
        &format!("curl -sS -i --max-time 20 -H \"x-api-key: $ANTHROPIC_API_KEY\" -d 'not json' {MESSAGES}"),
        &[],
    );
    assert_m3_refusal(bad.trim_start_matches("HTTP/1.1 200 Connection Established\r\n\r\n"));
    assert_m3_refusal(&curl_messages(&s, MESSAGES, "gpt-5", &[]));
    for (path, body) in [
        (
            "/v1/messages/count_tokens",
            r#"{"model":"claude-fable-5","messages":[]}"#,
        ),
        (
            "/v1/messages/batches",
            r#"{"requests":[{"custom_id":"a","params":{"model":"claude-haiku-4-5"}},{"custom_id":"b","params":{"model":"claude-fable-5"}}]}"#,
        ),
    ] {
        let text = s.run(
            &format!(
                "curl -sS -i --suppress-connect-headers --max-time 20 -H \"x-api-key: $ANTHROPIC_API_KEY\" -d '{body}' https://api.anthropic.com{path}"
            ),
            &[],
        );
        assert_m3_refusal(&text);
    }
    assert!(s.api.seen().is_empty(), "{:?}", s.api.seen());
}

#[test]
fn the_grant_lets_the_tier_through_and_aliases_resolve_through_the_launch_environment() {
    let granted = ModelScene::with(|c| c.model.grant = Some("1".into()));
    let text = curl_messages(&granted, MESSAGES, "claude-fable-5", &[]);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert_eq!(granted.api.models(), [Some("claude-fable-5".to_string())]);
    let aliased = ModelScene::with(|c| {
        c.model.alias_env.insert(
            "ANTHROPIC_DEFAULT_SONNET_MODEL".into(),
            "claude-fable-5".into(),
        );
    });
    assert_m3_refusal(&curl_messages(&aliased, MESSAGES, "sonnet", &[]));
    assert!(aliased.api.seen().is_empty());
}

#[test]
fn the_base_url_host_is_judged_and_alone_gets_the_key() {
    let s = ModelScene::with(|c| {
        c.model.base_url = Some(format!("https://{GATEWAY}/anthropic"));
    });
    let url = format!("https://{GATEWAY}/anthropic/v1/messages");
    assert_m3_refusal(&curl_messages(&s, &url, "claude-fable-5", &[]));
    let ok = curl_messages(&s, &url, "claude-haiku-4-5", &[]);
    assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
    // The key is the gateway's: to api.anthropic.com the placeholder goes as it came.
    let elsewhere = curl_messages(&s, MESSAGES, "claude-haiku-4-5", &[]);
    assert!(elsewhere.starts_with("HTTP/1.1 401"), "{elsewhere}");
    let seen = s.api.seen();
    assert_eq!(
        seen.iter()
            .map(|r| (r.host.as_str(), r.auth))
            .collect::<Vec<_>>(),
        [(GATEWAY, "real"), ("api.anthropic.com", "other")]
    );
    // The Python client with the base URL from its environment.
    let script = s.dir.path().join("client.py");
    std::fs::write(&script, PY_CLIENT).unwrap();
    let base = format!("https://{GATEWAY}/anthropic");
    let py = s.run(
        &format!("python3 {} claude-fable-5 once", script.display()),
        &[("ANTHROPIC_BASE_URL", &base)],
    );
    assert!(
        py.starts_with("status 403") && py.contains("M3.launch"),
        "{py}"
    );
}

#[test]
fn bedrock_paths_are_judged_and_their_signature_passes_unchanged() {
    let s = ModelScene::new();
    let call = |model: &str| {
        s.run(
            &format!(
                "curl -sS -i --suppress-connect-headers --max-time 20 -H 'Authorization: AWS4-HMAC-SHA256 Credential=x' \
                 -d '{{}}' https://{BEDROCK}/model/{model}/invoke"
            ),
            &[],
        )
    };
    assert_m3_refusal(&call("us.anthropic.claude-fable-5-v1%3A0"));
    let ok = call("us.anthropic.claude-haiku-4-5-20251001-v1%3A0");
    assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
    let d = s.sink.decisions_at_least(2);
    assert_eq!(d[1].credential, CredentialUse::Unchanged);
    assert_eq!(s.api.seen().len(), 1);
}

#[test]
fn non_model_endpoints_pass_through_with_the_key_and_streamed_bodies() {
    let s = ModelScene::new();
    let models = s.run(
        "curl -sS -i --suppress-connect-headers --max-time 20 -H \"x-api-key: $ANTHROPIC_API_KEY\" https://api.anthropic.com/v1/models",
        &[],
    );
    assert!(models.starts_with("HTTP/1.1 200"), "{models}");
    // A chunked upload to a non-model endpoint, streamed through in its own framing.
    let logged = s.run(
        "head -c 300000 /dev/zero | tr '\\0' a | curl -sS -i --suppress-connect-headers --max-time 20 \
         -H \"x-api-key: $ANTHROPIC_API_KEY\" -H 'Transfer-Encoding: chunked' --data-binary @- \
         https://api.anthropic.com/api/event_logging/batch",
        &[],
    );
    assert!(logged.starts_with("HTTP/1.1 200"), "{logged}");
    assert_eq!(json_body(&logged)["received"], 300000);
    assert!(
        s.api.seen().iter().all(|r| r.auth == "real"),
        "{:?}",
        s.api.seen()
    );
    let d = s.sink.decisions_at_least(s.api.seen().len());
    assert!(
        d.iter()
            .all(|d| d.outcome == Outcome::Allowed && d.models.is_empty()),
        "{d:?}"
    );
}

#[test]
fn the_auth_token_pair_and_the_environment_agent_commands_get() {
    let s = ModelScene::with(|c| {
        c.model.api_key = None;
        c.model.auth_token = Some(MODEL_TOKEN.into());
    });
    let env = s.broker.client_env();
    let token = s
        .broker
        .model_token_placeholder
        .clone()
        .expect("a token placeholder");
    assert!(env.contains(&("ANTHROPIC_AUTH_TOKEN".into(), token.clone())));
    assert!(
        !env.iter().any(|(k, _)| k == "ANTHROPIC_API_KEY"),
        "no key held, none given"
    );
    assert!(!env
        .iter()
        .any(|(_, v)| v.contains(MODEL_TOKEN) || v.contains(MODEL_KEY)));
    let text = s.run(
        &format!(
            "curl -sS -i --suppress-connect-headers --max-time 20 -H \"Authorization: Bearer $ANTHROPIC_AUTH_TOKEN\" \
             -d '{{\"model\":\"claude-haiku-4-5\",\"messages\":[]}}' {MESSAGES}"
        ),
        &[],
    );
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert_eq!(s.api.seen()[0].auth, "real");
}

#[test]
fn plain_http_to_the_model_api_is_refused_and_other_hosts_stay_tunnels() {
    let s = ModelScene::new();
    let text = s.run(
        "curl -sS -i --max-time 20 -H \"x-api-key: $ANTHROPIC_API_KEY\" -d '{}' http://api.anthropic.com/v1/messages",
        &[],
    );
    assert!(text.starts_with("HTTP/1.1 403"), "{text}");
    assert!(text.contains("C11.unknown-write"), "{text}");
    // console.anthropic.com (the CLI's token refresh) is no terminated host: a tunnel.
    let echo = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = echo.local_addr().unwrap().port();
    let mut t = std::net::TcpStream::connect(("127.0.0.1", s.broker.port)).unwrap();
    use std::io::{Read, Write};
    write!(
        t,
        "CONNECT 127.0.0.1:{port} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
    )
    .unwrap();
    let mut head = [0u8; 39];
    t.read_exact(&mut head).unwrap();
    assert!(head.starts_with(b"HTTP/1.1 200"));
    let _ = echo.accept().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert_eq!(s.sink.connects().len(), 1, "reported as a tunnel");
}
