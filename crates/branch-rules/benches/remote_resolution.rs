//! Remote resolution in a real repository (git2, no network): what gh-write-guard pays on every
//! `git push` / `gh` call before any rules lookup, and the whole G4 path when the rules are
//! cached. Target: well under 1 ms (the guard's whole call has 5 ms).
//!
//! Run: `cargo bench -p branch-rules --bench remote_resolution`

#[path = "../tests/common/mod.rs"]
mod common;

use branch_rules::cache::{CacheEntry, CacheKey, Clock, JsonFileCache, RulesCache, SystemClock};
use branch_rules::live::{LiveConfig, LiveRules, Rules};
use branch_rules::remote::{
    default_push, discover, origin_slug, push_destinations, Destination, PushTarget,
};
use branch_rules::{FailClosedPolicy, GitHubHosts, PushKind, RuleType};
use criterion::{criterion_group, criterion_main, Criterion};
use std::collections::HashMap;
use std::hint::black_box;

/// A checkout with an https origin, an ssh pushurl rewrite, a fork remote and an upstream.
fn checkout() -> common::Fixture {
    let fx = common::Fixture::new();
    fx.git(&[
        "remote",
        "add",
        "origin",
        "https://github.com/octo/hello.git",
    ]);
    fx.git(&["remote", "add", "fork", "git@github.com:me/hello.git"]);
    fx.git(&[
        "config",
        "url.ssh://git@github.com/.pushInsteadOf",
        "https://github.com/",
    ]);
    fx.git(&["config", "url.git@github.com:.insteadOf", "gh:"]);
    fx.git(&["config", "branch.main.remote", "origin"]);
    fx.git(&["config", "branch.main.merge", "refs/heads/main"]);
    for i in 0..20 {
        fx.git(&["branch", &format!("topic/{i}")]);
    }
    fx
}

fn bench(c: &mut Criterion) {
    let fx = checkout();
    let sub = fx.work();
    let hosts = GitHubHosts::new(["ghe.example.com"]);

    c.bench_function("discover+push_destinations(origin)", |b| {
        b.iter(|| {
            let repo = discover(black_box(&sub)).expect("repo");
            push_destinations(&repo, "origin", &hosts).expect("dest")
        })
    });

    c.bench_function("discover+origin_slug", |b| {
        b.iter(|| {
            let repo = discover(black_box(&sub)).expect("repo");
            origin_slug(&repo).expect("origin")
        })
    });

    c.bench_function("discover+default_push+destinations", |b| {
        b.iter(|| {
            let repo = discover(black_box(&sub)).expect("repo");
            let push = default_push(&repo, None).expect("push");
            push_destinations(&repo, &push.remote, &hosts).expect("dest")
        })
    });

    // The whole G4 decision for a bare `git push` whose rules are in a fresh file cache.
    let tmp = tempfile::tempdir().expect("tmp");
    let cache = JsonFileCache::new(tmp.path().join("cache.json"));
    cache
        .put(
            &CacheKey::new("github.com", "octo", "hello", "main"),
            &CacheEntry {
                rules: vec![RuleType::PullRequest, RuleType::NonFastForward],
                etag: Some("\"e\"".into()),
                fetched_at_ms: SystemClock.now_ms(),
            },
        )
        .expect("prefill");
    let config = LiveConfig {
        hosts: hosts.clone(),
        api_base_override: Some("http://127.0.0.1:9".into()),
        ..LiveConfig::default()
    };
    let live = LiveRules::new(config, HashMap::<String, String>::new(), cache);
    let policy = FailClosedPolicy::default();
    c.bench_function("g4_bare_push_cached_rules", |b| {
        b.iter(|| {
            let repo = discover(black_box(&sub)).expect("repo");
            let push = default_push(&repo, None).expect("push");
            let PushTarget::Branch { dst, .. } = push.target else {
                panic!("branch push expected");
            };
            let mut denied = false;
            for dest in push_destinations(&repo, &push.remote, &hosts).expect("dest") {
                if let Destination::GitHub(slug) = dest {
                    let outcome = live.rules_for(&slug.host, &slug.owner, &slug.repo, &dst);
                    denied |= outcome
                        .refusal(&dst, PushKind::Update, false, &policy)
                        .is_some();
                }
            }
            assert!(denied);
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
