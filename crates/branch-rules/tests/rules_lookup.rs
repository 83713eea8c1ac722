//! The live lookup against a real HTTP server on 127.0.0.1: response mapping, headers, branch
//! encoding, the deadline (delays, a server that never answers, refused connections), fail-closed
//! verdicts, pagination, and the cache with its TTL and ETag revalidation.

use branch_rules::cache::{JsonFileCache, MemoryCache};
use branch_rules::live::{LiveConfig, LiveRules, Rules, RulesOutcome, RulesSource};
use branch_rules::test_support::{ManualClock, Reply, TestServer};
use branch_rules::token::GhOutcome;
use branch_rules::{Cause, FailClosedPolicy, GitHubHosts, PushKind, RuleType};
use std::collections::HashMap;
use std::time::{Duration, Instant};

const RULES_MAIN: &str = "/repos/octo/hello/rules/branches/main";
const REPO: &str = "/repos/octo/hello";

fn config(server: &TestServer) -> LiveConfig {
    LiveConfig {
        hosts: GitHubHosts::new(["ghe.example.com"]),
        api_base_override: Some(server.base()),
        deadline: Duration::from_millis(1000),
        ..LiveConfig::default()
    }
}

/// An environment with no token and no `gh` (PATH is an empty directory).
fn no_token_env(empty_dir: &tempfile::TempDir) -> HashMap<String, String> {
    HashMap::from([("PATH".to_string(), empty_dir.path().display().to_string())])
}

/// A live lookup against `server` with no token, no `gh` and an in-memory cache; the returned
/// temp dir is the empty PATH (keep it alive as long as the lookup).
fn unauthenticated(
    server: &TestServer,
) -> (
    tempfile::TempDir,
    LiveRules<HashMap<String, String>, MemoryCache>,
) {
    let tmp = tempfile::tempdir().expect("tmp");
    let live = LiveRules::new(config(server), no_token_env(&tmp), MemoryCache::new());
    (tmp, live)
}

fn types(names: &[&str]) -> Vec<RuleType> {
    names.iter().map(|n| RuleType::from(*n)).collect()
}

fn known(outcome: &RulesOutcome) -> (Vec<RuleType>, RulesSource) {
    match outcome {
        RulesOutcome::Known { rules, source } => (rules.clone(), source.clone()),
        other => panic!("expected known rules, got {other:?}"),
    }
}

fn cause(outcome: RulesOutcome) -> Cause {
    match outcome {
        RulesOutcome::Undeterminable(c) => c,
        other => panic!("expected undeterminable, got {other:?}"),
    }
}

#[test]
fn rules_are_fetched_with_githubs_headers() {
    let server = TestServer::with_rules(
        RULES_MAIN,
        &[
            "pull_request",
            "required_status_checks",
            "copilot_code_review",
        ],
    )
    .expect("server");
    let tmp = tempfile::tempdir().expect("tmp");
    let mut env = no_token_env(&tmp);
    env.insert("GH_TOKEN".into(), "ghp_testtoken".into());
    let live = LiveRules::new(config(&server), env, MemoryCache::new());
    let outcome = live.rules_for("github.com", "octo", "hello", "main");
    let (rules, source) = known(&outcome);
    assert_eq!(
        rules,
        types(&[
            "pull_request",
            "required_status_checks",
            "copilot_code_review"
        ])
    );
    assert_eq!(source, RulesSource::Fetched);

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let req = &requests[0];
    assert_eq!(req.method, "GET");
    assert_eq!(req.target, format!("{RULES_MAIN}?per_page=100"));
    assert_eq!(req.header("accept"), Some("application/vnd.github+json"));
    assert_eq!(req.header("x-github-api-version"), Some("2022-11-28"));
    assert!(req
        .header("user-agent")
        .is_some_and(|ua| ua.starts_with("agent-guards-branch-rules/")));
    assert_eq!(req.header("authorization"), Some("Bearer ghp_testtoken"));
    assert_eq!(req.header("if-none-match"), None);
    let notes = live.last_notes();
    assert_eq!(notes.api_base, Some(server.base()));
    assert_eq!(notes.gh, None);
}

#[test]
fn unauthenticated_when_there_is_no_token() {
    let server = TestServer::with_rules(RULES_MAIN, &[]).expect("server");
    let (_path, live) = unauthenticated(&server);
    let (rules, _) = known(&live.rules_for("github.com", "octo", "hello", "main"));
    assert!(rules.is_empty());
    assert_eq!(server.requests()[0].header("authorization"), None);
    assert_eq!(live.last_notes().gh, Some(GhOutcome::Absent));
}

#[test]
fn enterprise_hosts_use_enterprise_tokens() {
    let server =
        TestServer::with_rules("/repos/team/svc/rules/branches/main", &["update"]).expect("server");
    let tmp = tempfile::tempdir().expect("tmp");
    let mut env = no_token_env(&tmp);
    env.insert("GH_TOKEN".into(), "ghp_dotcom".into());
    env.insert("GITHUB_ENTERPRISE_TOKEN".into(), "ghe_token".into());
    let live = LiveRules::new(config(&server), env, MemoryCache::new());
    let (rules, _) = known(&live.rules_for("ghe.example.com", "team", "svc", "main"));
    assert_eq!(rules, vec![RuleType::Update]);
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer ghe_token")
    );
    // A host that is not GitHub is not asked at all.
    let c = cause(live.rules_for("gitlab.com", "team", "svc", "main"));
    assert_eq!(c, Cause::NotGitHub("gitlab.com".into()));
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn branch_names_are_encoded_as_one_path_segment() {
    let server = TestServer::with_rules(
        "/repos/octo/hello/rules/branches/feature%2Fx%23y",
        &["deletion"],
    )
    .expect("server");
    let (_path, live) = unauthenticated(&server);
    let (rules, _) = known(&live.rules_for("github.com", "octo", "hello", "feature/x#y"));
    assert_eq!(rules, vec![RuleType::Deletion]);
}

#[test]
fn not_found_means_no_rules_only_for_a_readable_repository() {
    let server = TestServer::start().expect("server");
    // Rules 404 everywhere (unrouted); the repository answers 200.
    server.route(REPO, Reply::json(200, r#"{"full_name":"octo/hello"}"#));
    let (_path, live) = unauthenticated(&server);
    let (rules, source) = known(&live.rules_for("github.com", "octo", "hello", "main"));
    assert!(rules.is_empty());
    assert_eq!(source, RulesSource::NotFoundReadable);
    assert_eq!(server.count(REPO), 1);

    // Unreadable repository (404 for it as well): undeterminable, not "no rules".
    let c = cause(live.rules_for("github.com", "octo", "private", "main"));
    assert_eq!(c, Cause::RepositoryUnreadable { status: 404 });
    assert_eq!(server.count("/repos/octo/private"), 1);
}

#[test]
fn error_statuses_are_undeterminable() {
    let server = TestServer::start().expect("server");
    let cases: Vec<(&str, Reply)> = vec![
        ("s401", Reply::error(401, "Bad credentials")),
        (
            "s403",
            Reply::error(403, "Resource not accessible by integration"),
        ),
        ("s500", Reply::error(500, "Server Error")),
        (
            "s502",
            Reply::Full {
                status: 502,
                headers: vec![],
                body: "<html>bad gateway</html>".into(),
            },
        ),
        (
            "rl429",
            Reply::error(429, "slow down").with_header("Retry-After", "30"),
        ),
        (
            "rl403",
            Reply::error(403, "API rate limit exceeded").with_header("x-ratelimit-remaining", "0"),
        ),
        ("badjson", Reply::json(200, "{\"type\": \"update\"")),
        ("notarray", Reply::json(200, r#"{"type":"update"}"#)),
        ("notype", Reply::json(200, r#"[{"ruleset_id":1}]"#)),
        ("closed", Reply::Close),
        (
            "stray304",
            Reply::Full {
                status: 304,
                headers: vec![],
                body: String::new(),
            },
        ),
    ];
    for (branch, reply) in &cases {
        server.route(
            &format!("/repos/octo/hello/rules/branches/{branch}"),
            reply.clone(),
        );
    }
    let (_path, live) = unauthenticated(&server);
    let get = |b: &str| cause(live.rules_for("github.com", "octo", "hello", b));

    assert_eq!(
        get("s401"),
        Cause::Status {
            status: 401,
            detail: "Bad credentials".into()
        }
    );
    assert!(matches!(get("s403"), Cause::Status { status: 403, .. }));
    assert!(matches!(get("s500"), Cause::Status { status: 500, .. }));
    assert_eq!(
        get("s502"),
        Cause::Status {
            status: 502,
            detail: String::new()
        }
    );
    assert_eq!(
        get("rl429"),
        Cause::RateLimited {
            status: 429,
            retry_after: Some("30".into())
        }
    );
    assert_eq!(
        get("rl403"),
        Cause::RateLimited {
            status: 403,
            retry_after: None
        }
    );
    for malformed in ["badjson", "notarray", "notype"] {
        assert!(matches!(get(malformed), Cause::Malformed(_)), "{malformed}");
    }
    assert!(
        matches!(get("closed"), Cause::Transport(_) | Cause::Connect(_)),
        "a closed connection"
    );
    // A 304 we did not ask for (no ETag sent) is not an answer.
    assert!(matches!(get("stray304"), Cause::Status { status: 304, .. }));
}

#[test]
fn the_deadline_bounds_a_server_that_hangs_or_is_slow() {
    let server = TestServer::start().expect("server");
    server.route(RULES_MAIN, Reply::Hang);
    server.route(
        "/repos/octo/hello/rules/branches/slow",
        Reply::Delay(
            Duration::from_millis(2500),
            Box::new(Reply::rules(&["update"])),
        ),
    );
    server.route(
        "/repos/octo/hello/rules/branches/quick",
        Reply::Delay(
            Duration::from_millis(50),
            Box::new(Reply::rules(&["update"])),
        ),
    );
    let tmp = tempfile::tempdir().expect("tmp");
    let mut cfg = config(&server);
    cfg.deadline = Duration::from_millis(400);
    let live = LiveRules::new(cfg, no_token_env(&tmp), MemoryCache::new());
    let policy = FailClosedPolicy::default();

    for branch in ["main", "slow"] {
        let started = Instant::now();
        let outcome = live.rules_for("github.com", "octo", "hello", branch);
        let took = started.elapsed();
        assert_eq!(
            outcome,
            RulesOutcome::Undeterminable(Cause::Timeout),
            "{branch}"
        );
        // Generous bound: the point is we did not wait for the server (2.5 s / forever).
        assert!(took < Duration::from_millis(2000), "{branch} took {took:?}");
    }
    let (rules, _) = known(&live.rules_for("github.com", "octo", "hello", "quick"));
    assert_eq!(rules, vec![RuleType::Update]);

    // Fail closed: main is denied, a feature branch is allowed.
    let hung = live.rules_for("github.com", "octo", "hello", "main");
    assert!(hung
        .refusal("main", PushKind::Update, false, &policy)
        .is_some());
    let hung = RulesOutcome::Undeterminable(Cause::Timeout);
    assert!(hung
        .refusal("feature/x", PushKind::Update, false, &policy)
        .is_none());
}

#[test]
fn a_server_that_is_down_is_undeterminable_and_fails_closed() {
    // A port that was just ours and is now closed: connection refused.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr").port()
    };
    let tmp = tempfile::tempdir().expect("tmp");
    let cfg = LiveConfig {
        api_base_override: Some(format!("http://127.0.0.1:{port}")),
        deadline: Duration::from_millis(1000),
        ..LiveConfig::default()
    };
    let live = LiveRules::new(cfg, no_token_env(&tmp), MemoryCache::new());
    let policy = FailClosedPolicy::new(["release/*"]);
    for branch in ["main", "master", "develop", "release/2", "feature/x"] {
        let outcome = live.rules_for("github.com", "octo", "hello", branch);
        assert!(
            matches!(outcome, RulesOutcome::Undeterminable(Cause::Connect(_))),
            "{outcome:?}"
        );
        let denied = outcome
            .refusal(branch, PushKind::Update, false, &policy)
            .is_some();
        assert_eq!(denied, branch != "feature/x", "{branch}");
    }
}

#[test]
fn an_unresolvable_host_is_undeterminable() {
    let tmp = tempfile::tempdir().expect("tmp");
    let cfg = LiveConfig {
        // `.invalid` never resolves (RFC 6761).
        api_base_override: Some("http://api.github.invalid".into()),
        deadline: Duration::from_millis(2000),
        ..LiveConfig::default()
    };
    let live = LiveRules::new(cfg, no_token_env(&tmp), MemoryCache::new());
    let c = cause(live.rules_for("github.com", "octo", "hello", "main"));
    // Without a resolver the lookup may also run out of time; either way it is not an answer.
    assert!(matches!(c, Cause::Connect(_) | Cause::Timeout), "{c:?}");
}

#[test]
fn further_pages_are_followed() {
    let server = TestServer::start().expect("server");
    let page2 = format!("{}{RULES_MAIN}?per_page=100&page=2", server.base());
    server.route_with(RULES_MAIN, move |req| {
        if req.target.contains("page=2") {
            Reply::rules(&["non_fast_forward"])
        } else {
            Reply::rules(&["deletion"]).with_header(
                "Link",
                &format!("<{page2}>; rel=\"next\", <{page2}>; rel=\"last\""),
            )
        }
    });
    let (_path, live) = unauthenticated(&server);
    let (rules, _) = known(&live.rules_for("github.com", "octo", "hello", "main"));
    assert_eq!(rules, types(&["deletion", "non_fast_forward"]));
    assert_eq!(server.count(RULES_MAIN), 2);
}

#[test]
fn a_next_link_to_another_origin_is_not_followed() {
    let server = TestServer::start().expect("server");
    server.route(
        RULES_MAIN,
        Reply::rules(&["deletion"])
            .with_header("Link", "<http://elsewhere.invalid/x?page=2>; rel=\"next\""),
    );
    let tmp = tempfile::tempdir().expect("tmp");
    let mut env = no_token_env(&tmp);
    env.insert("GH_TOKEN".into(), "ghp_secret".into());
    let live = LiveRules::new(config(&server), env, MemoryCache::new());
    let (rules, _) = known(&live.rules_for("github.com", "octo", "hello", "main"));
    assert_eq!(rules, types(&["deletion"]));
}

#[test]
fn cache_ttl_and_etag_revalidation() {
    let server = TestServer::start().expect("server");
    server.route_rules_with_etag(RULES_MAIN, &["pull_request", "deletion"], "\"v1\"");
    let tmp = tempfile::tempdir().expect("tmp");
    let clock = ManualClock::at(1_000_000);
    let cache = MemoryCache::new();
    let live = LiveRules::with_clock(config(&server), no_token_env(&tmp), &cache, &clock);
    let ask = || live.rules_for("github.com", "octo", "hello", "main");
    let expected = types(&["pull_request", "deletion"]);

    assert_eq!(known(&ask()), (expected.clone(), RulesSource::Fetched));
    clock.advance(Duration::from_secs(30));
    // Within the TTL: answered from the cache, no request.
    assert_eq!(known(&ask()), (expected.clone(), RulesSource::Cache));
    assert_eq!(server.count(RULES_MAIN), 1);

    // Past the TTL: one conditional request, answered 304, cached rules reused.
    clock.advance(Duration::from_secs(31));
    assert_eq!(known(&ask()), (expected.clone(), RulesSource::Revalidated));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].header("if-none-match"), Some("\"v1\""));

    // The revalidation refreshed the entry's time: fresh again.
    clock.advance(Duration::from_secs(59));
    assert_eq!(known(&ask()), (expected.clone(), RulesSource::Cache));
    assert_eq!(server.count(RULES_MAIN), 2);

    // The rules change (new ETag): past the TTL the new rules are fetched.
    server.route_rules_with_etag(RULES_MAIN, &["update"], "\"v2\"");
    clock.advance(Duration::from_secs(2));
    assert_eq!(known(&ask()), (types(&["update"]), RulesSource::Fetched));
    assert_eq!(server.count(RULES_MAIN), 3);

    // Past the TTL with the server failing: a stale entry is not an answer.
    server.route(RULES_MAIN, Reply::error(500, "boom"));
    clock.advance(Duration::from_secs(61));
    assert!(matches!(
        ask(),
        RulesOutcome::Undeterminable(Cause::Status { status: 500, .. })
    ));

    // Branches are cached separately.
    server.route(
        "/repos/octo/hello/rules/branches/dev",
        Reply::rules(&["non_fast_forward"]),
    );
    let (rules, _) = known(&live.rules_for("github.com", "octo", "hello", "dev"));
    assert_eq!(rules, types(&["non_fast_forward"]));
}

#[test]
fn a_json_file_cache_is_shared_by_separate_processes_worth_of_lookups() {
    let server = TestServer::start().expect("server");
    server.route_rules_with_etag(RULES_MAIN, &["merge_queue"], "W/\"abc\"");
    let tmp = tempfile::tempdir().expect("tmp");
    let path = tmp.path().join("rules-cache.json");
    // Two independent lookups (as two hook processes would be), one file; owner and repository
    // are case-insensitive on GitHub, so the second spelling hits the same entry.
    for (round, (owner, repo)) in [("octo", "hello"), ("Octo", "Hello")]
        .into_iter()
        .enumerate()
    {
        let live = LiveRules::new(
            config(&server),
            no_token_env(&tmp),
            JsonFileCache::new(&path),
        );
        let (rules, source) = known(&live.rules_for("github.com", owner, repo, "main"));
        assert_eq!(rules, vec![RuleType::MergeQueue]);
        let expected = if round == 0 {
            RulesSource::Fetched
        } else {
            RulesSource::Cache
        };
        assert_eq!(source, expected);
    }
    assert_eq!(server.count(RULES_MAIN), 1);
    let stored = std::fs::read_to_string(&path).expect("cache file");
    assert!(stored.contains("github.com/octo/hello#main"), "{stored}");
    assert!(stored.contains("merge_queue"), "{stored}");
    // Nothing secret is stored.
    assert!(!stored.to_lowercase().contains("bearer"));
}

/// `GET /repos/{o}/{r}/branches/{b}` as GitHub answers it (trimmed).
fn branch_body(name: &str, protected: bool) -> String {
    serde_json::json!({
        "name": name,
        "commit": {"sha": "6dcb09b5b57875f334f61aebed695e2e4193db5e"},
        "protected": protected,
        "protection": {
            "enabled": protected,
            "required_status_checks": {"enforcement_level": "non_admins", "contexts": []}
        },
        "protection_url": format!("https://api.github.com/repos/octo/hello/branches/{name}/protection"),
    })
    .to_string()
}

#[test]
fn classic_protection_is_asked_when_no_ruleset_applies() {
    let server = TestServer::start().expect("server");
    let rules = |b: &str| format!("/repos/octo/hello/rules/branches/{b}");
    let branch = |b: &str| format!("/repos/octo/hello/branches/{b}");
    for b in ["main", "open", "broken", "garbled", "ruled"] {
        server.route(&rules(b), Reply::rules(&[]));
    }
    server.route(&rules("ruled"), Reply::rules(&["deletion"]));
    server.route(&branch("main"), Reply::json(200, branch_body("main", true)));
    server.route(
        &branch("open"),
        Reply::json(200, branch_body("open", false)),
    );
    server.route(&branch("broken"), Reply::error(500, "Server Error"));
    server.route(
        &branch("garbled"),
        Reply::json(200, r#"{"name":"garbled"}"#),
    );
    // "fresh" has no rules route either: rules 404, repository readable, branch 404 (new).
    server.route(REPO, Reply::json(200, r#"{"full_name":"octo/hello"}"#));
    let (_path, live) = unauthenticated(&server);
    let ask = |b: &str| live.rules_for("github.com", "octo", "hello", b);
    let policy = FailClosedPolicy::default();

    let main = ask("main");
    assert_eq!(known(&main).0, vec![RuleType::ClassicProtection]);
    assert!(main
        .refusal("main", PushKind::Update, false, &policy)
        .is_some());
    assert_eq!(known(&ask("open")).0, vec![]);
    assert!(matches!(
        cause(ask("broken")),
        Cause::Status { status: 500, .. }
    ));
    assert!(matches!(cause(ask("garbled")), Cause::Malformed(_)));
    assert_eq!(known(&ask("fresh")).0, vec![]);
    // A ruleset rule answers by itself: no classic lookup.
    assert_eq!(known(&ask("ruled")).0, vec![RuleType::Deletion]);
    assert_eq!(server.count(&branch("ruled")), 0);

    // Old GHES without the rules endpoint: 404, readable repository, classic protection on.
    server.route(
        &branch("legacy"),
        Reply::json(200, branch_body("legacy", true)),
    );
    assert_eq!(known(&ask("legacy")).0, vec![RuleType::ClassicProtection]);

    // Switched off, the classic flag is not asked.
    let tmp2 = tempfile::tempdir().expect("tmp");
    let mut cfg = config(&server);
    cfg.classic_protection = false;
    let live = LiveRules::new(cfg, no_token_env(&tmp2), MemoryCache::new());
    let before = server.count(&branch("main"));
    assert_eq!(
        known(&live.rules_for("github.com", "octo", "hello", "main")).0,
        vec![]
    );
    assert_eq!(server.count(&branch("main")), before);
}
