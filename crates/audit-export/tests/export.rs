//! Issue 45 items 1 and 2 against a real OTLP/HTTP receiver on 127.0.0.1: records arrive with
//! their attributes; a collector that is down, refusing or slow loses nothing and gets every
//! record once; the queue bound is counted and explained.

mod common;

use audit_export::encode::*;
use audit_export::proto::any_value::Value as V;
use audit_export::{flush_with, status_with, Endpoint, Exporter, Limits};
use common::*;
use std::time::{Duration, Instant};

fn exporter(base: &str, limits: Limits) -> Exporter {
    Exporter {
        endpoint: Endpoint {
            url: audit_export::endpoint::logs_url(base),
            headers: vec![("authorization".into(), "Bearer t0k=".into())],
            source: "test",
        },
        limits,
    }
}

fn soon() -> Instant {
    Instant::now() + Duration::from_secs(10)
}

fn s(v: &str) -> Option<V> {
    Some(V::StringValue(v.to_string()))
}

#[test]
fn records_arrive_with_their_attributes_time_and_whole_line() {
    let state = tempfile::tempdir().unwrap();
    write_records(state.path(), "sess-a", 0, 3);
    let rx = Receiver::start("127.0.0.1:0", vec![]);
    let ex = exporter(&rx.base(), Limits::default());
    let report = flush_with(state.path(), &ex, soon()).unwrap();
    assert_eq!((report.sent, report.batches, report.error), (3, 1, None));

    let got = rx.captured();
    assert_eq!(got.len(), 1);
    let c = &got[0];
    assert_eq!(c.path, "/v1/logs");
    assert_eq!(c.header("content-type"), Some("application/x-protobuf"));
    assert_eq!(c.header("authorization"), Some("Bearer t0k="));
    let req = c.decoded();
    let resource = req.resource_logs[0].resource.as_ref().unwrap();
    assert!(resource.attributes.iter().any(|a| a.key == "service.name"));
    let recs = records(&req);
    let line = std::fs::read_to_string(state.path().join("sessions/sess-a/audit.jsonl")).unwrap();
    let lines: Vec<&str> = line.lines().collect();
    for (r, l) in recs.iter().zip(&lines) {
        assert_eq!(body(r), *l, "the whole record is the body");
        assert_eq!(attr(r, ATTR_REQUIREMENT), s("G4"));
        assert_eq!(attr(r, ATTR_CODE), s("G4.rule"));
        assert_eq!(attr(r, ATTR_DECISION), s("deny"));
        assert_eq!(attr(r, ATTR_BINARY), s("gh-write-guard"));
        assert_eq!(attr(r, ATTR_SESSION), s("sess-a"));
        assert!(matches!(attr(r, ATTR_HOST), Some(V::StringValue(h)) if !h.is_empty()));
        assert_eq!(r.time_unix_nano, 1_796_666_400_250_000_000);
    }
    assert_eq!(seqs(&rx.accepted_bodies()), vec![0, 1, 2]);
    // A second run sends nothing more.
    let again = flush_with(state.path(), &ex, soon()).unwrap();
    assert_eq!(again.sent, 0);
    assert_eq!(rx.captured().len(), 1);
    let st = status_with(state.path(), Some(&ex));
    assert_eq!(st.queued.records, 0);
    assert_eq!(st.sent_total, 3);
    assert_eq!(st.last_sent.unwrap().records, 3);
}

#[test]
fn a_collector_down_then_up_gets_every_record_exactly_once() {
    let state = tempfile::tempdir().unwrap();
    write_records(state.path(), "s1", 0, 5);
    write_records(state.path(), "s2", 100, 4);
    let addr = closed_port();
    let ex = exporter(
        &format!("http://{addr}"),
        Limits {
            batch_records: 2,
            ..Limits::default()
        },
    );
    let down = flush_with(state.path(), &ex, soon()).unwrap();
    assert_eq!(down.sent, 0);
    assert!(down.error.is_some(), "{down:?}");
    let st = status_with(state.path(), Some(&ex));
    assert_eq!((st.queued.records, st.queued.sessions), (9, 2));
    assert!(st.last_error.is_some());
    assert!(st.to_string().contains("queued: 9 records"), "{st}");

    // The collector comes up on the same address; more records came meanwhile.
    let rx = Receiver::start(&addr.to_string(), vec![]);
    write_records(state.path(), "s1", 5, 2);
    let up = flush_with(state.path(), &ex, soon()).unwrap();
    assert_eq!((up.sent, up.error.clone()), (11, None), "{up:?}");
    let mut got = seqs(&rx.accepted_bodies());
    got.sort();
    assert_eq!(got, [0, 1, 2, 3, 4, 5, 6, 100, 101, 102, 103]);
    // Nothing twice, in later runs either.
    assert_eq!(flush_with(state.path(), &ex, soon()).unwrap().sent, 0);
    assert_eq!(rx.accepted_bodies().len(), 11);
    assert_eq!(status_with(state.path(), Some(&ex)).queued.records, 0);
}

#[test]
fn a_500_then_200_resends_the_refused_batch_only() {
    let state = tempfile::tempdir().unwrap();
    write_records(state.path(), "s", 0, 5);
    let rx = Receiver::start("127.0.0.1:0", vec![OK, Reply { status: 500, ..OK }]);
    let ex = exporter(
        &rx.base(),
        Limits {
            batch_records: 2,
            ..Limits::default()
        },
    );
    let first = flush_with(state.path(), &ex, soon()).unwrap();
    assert_eq!(
        first.sent, 2,
        "the first batch went, the second was refused"
    );
    assert!(first.error.as_deref().unwrap().contains("500"), "{first:?}");
    let second = flush_with(state.path(), &ex, soon()).unwrap();
    assert_eq!((second.sent, second.error), (3, None));
    // Five requests in all: [0,1] ok, [2,3] 500, [2,3] ok, [4] ok.
    let statuses: Vec<u16> = rx.captured().iter().map(|c| c.status).collect();
    assert_eq!(statuses, [200, 500, 200, 200]);
    assert_eq!(seqs(&rx.accepted_bodies()), [0, 1, 2, 3, 4]);
}

#[test]
fn a_slow_collector_past_the_deadline_returns_in_time_and_loses_nothing() {
    let state = tempfile::tempdir().unwrap();
    write_records(state.path(), "s", 0, 4);
    let slow = Receiver::start(
        "127.0.0.1:0",
        vec![Reply {
            delay: Duration::from_secs(5),
            ..OK
        }],
    );
    let ex = exporter(&slow.base(), Limits::default());
    let started = Instant::now();
    let r = flush_with(
        state.path(),
        &ex,
        Instant::now() + Duration::from_millis(700),
    )
    .unwrap();
    let took = started.elapsed();
    assert!(
        took < Duration::from_millis(1500),
        "returned after {took:?}"
    );
    assert_eq!(r.sent, 0);
    assert!(r.error.is_some() || r.out_of_time, "{r:?}");
    // Unanswered in time: not a success, the cursor stayed; a later run sends every record.
    let rx = Receiver::start("127.0.0.1:0", vec![]);
    let ex = exporter(&rx.base(), Limits::default());
    assert_eq!(flush_with(state.path(), &ex, soon()).unwrap().sent, 4);
    assert_eq!(seqs(&rx.accepted_bodies()), [0, 1, 2, 3]);
}

#[test]
fn past_the_queue_bound_the_oldest_are_skipped_counted_and_explained() {
    let state = tempfile::tempdir().unwrap();
    write_records(state.path(), "s", 0, 100);
    let log = state.path().join("sessions/s/audit.jsonl");
    let len = std::fs::metadata(&log).unwrap().len();
    let line_len = len / 100;
    let bound = line_len * 10 + line_len / 2; // ten and a half records
    let limits = Limits {
        max_queue_bytes: bound,
        ..Limits::default()
    };
    let down = exporter(&format!("http://{}", closed_port()), limits.clone());
    let st = status_with(state.path(), Some(&down));
    let q = st
        .queue_full
        .clone()
        .expect("over the bound is reported before a run");
    assert_eq!(q.over_bound_sessions, 1);
    assert_eq!(
        st.queued.records, 10,
        "what will be sent: the newest within the bound"
    );

    let r = flush_with(state.path(), &down, soon()).unwrap();
    assert_eq!(r.skipped, 90, "{r:?}");
    let st = status_with(state.path(), Some(&down));
    let q = st.queue_full.clone().unwrap();
    assert_eq!(q.skipped_records, 90);
    assert_eq!(q.over_bound_sessions, 0);
    let said = st.to_string();
    assert!(said.contains("queue full: 90 records ("), "{said}");
    assert!(
        said.contains("remain in the session's audit.jsonl"),
        "{said}"
    );
    // The log is untouched: every record is still there.
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 100);

    let rx = Receiver::start("127.0.0.1:0", vec![]);
    let up = exporter(&rx.base(), limits);
    assert_eq!(flush_with(state.path(), &up, soon()).unwrap().sent, 10);
    assert_eq!(seqs(&rx.accepted_bodies()), (90..100).collect::<Vec<_>>());
}

#[test]
fn a_replaced_log_is_sent_from_its_start_and_a_fifo_does_not_block() {
    let state = tempfile::tempdir().unwrap();
    write_records(state.path(), "s", 0, 2);
    let rx = Receiver::start("127.0.0.1:0", vec![]);
    let ex = exporter(&rx.base(), Limits::default());
    assert_eq!(flush_with(state.path(), &ex, soon()).unwrap().sent, 2);
    let log = state.path().join("sessions/s/audit.jsonl");
    std::fs::remove_file(&log).unwrap();
    write_records(state.path(), "s", 10, 3);
    assert_eq!(flush_with(state.path(), &ex, soon()).unwrap().sent, 3);
    assert_eq!(seqs(&rx.accepted_bodies()), [0, 1, 10, 11, 12]);
    // A FIFO in place of another session's log: skipped at once.
    let fifo_dir = state.path().join("sessions/f");
    std::fs::create_dir_all(&fifo_dir).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(fifo_dir.join("audit.jsonl"))
        .status()
        .unwrap();
    assert!(made.success());
    write_records(state.path(), "s", 20, 1);
    let started = Instant::now();
    let r = flush_with(state.path(), &ex, soon()).unwrap();
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(r.sent, 1);
}

#[test]
fn off_by_default_and_one_sender_at_a_time() {
    let state = tempfile::tempdir().unwrap();
    write_records(state.path(), "s", 0, 1);
    let off = audit_export::Exporter::from_config(&|_| None, &Default::default()).unwrap();
    assert!(off.is_none());
    assert!(status_with(state.path(), None)
        .to_string()
        .contains("OTLP export: off"));
    // The config key turns it on.
    let loaded = guard_config::parse("otlp_endpoint = \"http://127.0.0.1:4318\"\n");
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
    let on = audit_export::Exporter::from_config(&|_| None, &loaded.config)
        .unwrap()
        .unwrap();
    assert_eq!(on.endpoint.url, "http://127.0.0.1:4318/v1/logs");
    assert!(!guard_config::parse("otlp_endpoint = \"4318\"\n")
        .problems
        .is_empty());
    // A sender holding the lock: a second one does not wait and sends nothing.
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(state.path().join(audit_export::state::LOCK_FILE))
        .unwrap();
    lock.lock().unwrap();
    let rx = Receiver::start("127.0.0.1:0", vec![]);
    let started = Instant::now();
    let r = flush_with(
        state.path(),
        &exporter(&rx.base(), Limits::default()),
        soon(),
    )
    .unwrap();
    assert!(r.busy && r.sent == 0, "{r:?}");
    assert!(started.elapsed() < Duration::from_secs(1));
    lock.unlock().unwrap();
    let r = flush_with(
        state.path(),
        &exporter(&rx.base(), Limits::default()),
        soon(),
    )
    .unwrap();
    assert_eq!(r.sent, 1);
}

#[test]
fn a_partial_success_moves_the_cursor_and_is_said() {
    let state = tempfile::tempdir().unwrap();
    write_records(state.path(), "s", 0, 2);
    let rx = Receiver::start("127.0.0.1:0", vec![Reply { rejected: 1, ..OK }]);
    let ex = exporter(&rx.base(), Limits::default());
    let r = flush_with(state.path(), &ex, soon()).unwrap();
    assert_eq!(r.sent, 2);
    assert!(
        r.rejected
            .as_deref()
            .unwrap()
            .contains("rejected 1 records: too old"),
        "{r:?}"
    );
    // Resending would be rejected again: the collector took the batch.
    assert_eq!(flush_with(state.path(), &ex, soon()).unwrap().sent, 0);
    let st = status_with(state.path(), Some(&ex));
    assert!(st.last_error.unwrap().message.contains("too old"));
}
