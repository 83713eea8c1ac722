//! Issue 38's table: each GitHub operation of `fixtures/wire-table/gh-write-guard.json` as the
//! command an agent runs and as the request that command puts on the wire (what gh itself
//! sends: REST, or the GraphQL mutation with its variables; a push's ref updates), judged by
//! the hook's text reader and by the wire reader (the face's `GitHubOp::WireApi`/`WirePush`,
//! what the broker calls) in one world. Both must give the row's code and the same reason, but
//! for the words each reader names the operation by (the text quotes its command, the wire its
//! request line): [`naming_cut`]. A row with `wire_code` is a fact one reader cannot know; its
//! `divergence` says which and why, and both codes are still asserted, so a change to either
//! reader shows here.

use command_effects::git_push::{BranchUpdate, PushKind};
use gh_write_guard::face::{self, GitHubOp, MergeState, RepoSlug, WireApi, WireFacts, WirePush};
use gh_write_guard::fake_world::FakeWorld;
use gh_write_guard::{Analysis, Context, Units};
use serde_json::{json, Value};

/// `main` needs pull requests and is kept from deletion and force pushes; `release` only from
/// force pushes; `gated` may not be created; every other branch has no rule. origin's
/// remote-tracking branches say which branches exist (so a push to `gated` or `topic` is a
/// creation for the text too, as the wire states it).
fn world() -> (FakeWorld, Context) {
    let env = json!({"origin": ["maintainer", "app"],
        "branch_rules": {"main": ["pull_request", "deletion", "non_fast_forward"],
            "release": ["non_fast_forward"], "gated": ["creation"]},
        "branch_rules_default": [], "current_branch": "feature",
        "primary_checkout_default": false,
        "remote_branches": ["origin/main", "origin/feature", "origin/release"],
        "remotes": {"origin": "https://github.com/maintainer/app.git"}});
    FakeWorld::from_env(&env, guard_config::Config::default())
}

/// The node ids GitHub returned in the session (gh looked them up before its mutation: the
/// repository, an issue, a pull request, a protection rule, and the same for `stranger/app`).
const LIVE: [&str; 7] = [
    "R_kgDOlivelive1",
    "I_kwDOlive123456",
    "PR_kwDOlive123456",
    "BPR_kwDOlive12345",
    "R_kgDOstranger1",
    "I_kwDOstranger12",
    "PR_kwDOstranger12",
];

/// The repository GitHub returned each id for (the broker keeps this from the reads gh makes
/// before its mutation: `repository(owner:, name:)` with the id in the answer).
fn repo_of(id: &str) -> Option<(String, String)> {
    let owner = match id {
        "R_kgDOlivelive1" | "I_kwDOlive123456" | "PR_kwDOlive123456" | "BPR_kwDOlive12345" => {
            "maintainer"
        }
        "R_kgDOstranger1" | "I_kwDOstranger12" | "PR_kwDOstranger12" => "stranger",
        _ => return None,
    };
    Some((owner.to_string(), "app".to_string()))
}

/// One reader's answer: the code (`None`: allowed), the reason, and the words it names the
/// operation by.
#[derive(Debug)]
struct Verdict {
    code: Option<String>,
    reason: Option<String>,
    names: Vec<String>,
}

/// The hook's judgement of the command text (every requirement, as the hook runs them).
fn by_text(text: &str, cx: &Context, world: &FakeWorld) -> Verdict {
    let d = gh_write_guard::judge(text, cx, world);
    let units = Units::build(text, cx, world);
    let names = Analysis::new(&units)
        .ops()
        .iter()
        .map(|o| o.label())
        .collect();
    Verdict {
        code: d.deny().map(|f| f.code_str().to_string()),
        reason: d.reason(),
        names,
    }
}

/// The wire reader's judgement of the row's request, through the face the broker uses.
fn by_wire(row: &Value, cx: &Context, world: &FakeWorld) -> Verdict {
    let wire = &row["wire"];
    if let Some(repo) = wire["push"].as_str() {
        let (owner, name) = repo.split_once('/').expect("push names owner/repo");
        let updates: Vec<BranchUpdate> = wire["updates"]
            .as_array()
            .expect("updates")
            .iter()
            .map(|u| BranchUpdate {
                branch: Some(u[0].as_str().expect("branch").to_string()),
                kind: match u[1].as_str() {
                    Some("create") => PushKind::Create,
                    Some("update") => PushKind::Update,
                    Some("force") => PushKind::Force,
                    Some("delete") => PushKind::Delete,
                    k => panic!("{}: update kind {k:?}", row["id"]),
                },
            })
            .collect();
        let refs: Vec<&str> = updates
            .iter()
            .flat_map(|u| &u.branch)
            .map(String::as_str)
            .collect();
        let names = vec![
            format!("git push (on the wire) to {repo}: {}", refs.join(" ")),
            "git push".to_string(),
        ];
        let push = WirePush {
            repo: RepoSlug {
                host: "github.com".into(),
                owner: owner.into(),
                repo: name.into(),
            },
            updates,
        };
        return verdict(face::judge(&GitHubOp::WirePush(&push), cx, world), names);
    }
    let body = match &wire["body"] {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    let method = wire["method"].as_str().expect("method");
    let path = wire["path"].as_str().expect("path");
    let api = WireApi::from_request("api.github.com", method, path, body.as_bytes());
    let merge = row["merge_state"]
        .as_str()
        .map(|s| MergeState::Reported(s.to_string()));
    let live = |id: &str| LIVE.contains(&id);
    let facts = WireFacts {
        merge: merge.as_ref(),
        live_id: &live,
        repo_of: &repo_of,
    };
    // The wire reader's own labels (`wire_api::judge_api`).
    let label = match api.call.graphql {
        true => "a GraphQL mutation".to_string(),
        false => format!("{method} {}", api.call.rest_path().unwrap_or_default()),
    };
    let names = vec![format!("{label} (on the wire, api.github.com)"), label];
    verdict(
        face::judge(&GitHubOp::WireApi(&api, &facts), cx, world),
        names,
    )
}

fn verdict(r: Option<face::Refusal>, names: Vec<String>) -> Verdict {
    Verdict {
        code: r.as_ref().map(|r| r.code.clone()),
        reason: r.map(|r| r.reason),
        names,
    }
}

/// `reason` with the words its reader names the operation by cut to `<op>`: the command a G4
/// remedy quotes (`Command: ...`, to its end: the reason may be clipped inside it) and the
/// reader's labels (`gh api`, `PATCH repos/o/r/...`), longest first. What is left is what
/// both readers must say alike.
fn naming_cut(reason: &str, names: &[String]) -> String {
    let (head, quoted) = match reason.split_once(" Command: ") {
        Some((h, _)) => (h, true),
        None => (reason, false),
    };
    let mut names: Vec<&String> = names.iter().collect();
    names.sort_by_key(|n| std::cmp::Reverse(n.len()));
    let mut cut = head.to_string();
    for n in names {
        cut = cut.replace(n.as_str(), "<op>");
    }
    match quoted {
        true => format!("{cut} Command: <op>"),
        false => cut,
    }
}

#[test]
fn every_operation_gets_the_same_code_and_reason_from_its_text_and_its_wire() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/wire-table/gh-write-guard.json"
    );
    let rows: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).expect("table"))
        .expect("the table is JSON");
    let (world, cx) = world();
    let (mut agree, mut code_only, mut diverge, mut failures) = (0, 0, 0, Vec::new());
    for row in &rows {
        let id = row["id"].as_str().expect("id");
        let text = row["text"].as_str().expect("text");
        let want = row["code"].as_str();
        let want_wire = match row.get("wire_code") {
            Some(c) => c.as_str(),
            None => want,
        };
        let t = by_text(text, &cx, &world);
        let w = by_wire(row, &cx, &world);
        if t.code.as_deref() != want || w.code.as_deref() != want_wire {
            failures.push(format!(
                "{id}: want text {want:?} wire {want_wire:?}, got text {:?} wire {:?}\n    text: {:?}\n    wire: {:?}",
                t.code, w.code, t.reason, w.reason
            ));
            continue;
        }
        if row.get("wire_code").is_some() {
            assert!(
                row["divergence"].as_str().is_some_and(|d| !d.is_empty()) && want != want_wire,
                "{id}: a wire_code row says why the readers differ, and they do"
            );
            diverge += 1;
            continue;
        }
        if let (Some(tr), Some(wr)) = (&t.reason, &w.reason) {
            // Both readers' names are cut from both reasons: a label one reader uses may be
            // plain words in the other's reason ("a GraphQL mutation").
            let names: Vec<String> = t.names.iter().chain(&w.names).cloned().collect();
            let (tc, wc) = (naming_cut(tr, &names), naming_cut(wr, &names));
            if let Some(why) = row.get("reason_differs") {
                // The refused shape differs for the reason the row gives; the remedy (after
                // the shape's first sentence) is one.
                let remedy = |r: &str| r.split_once(". ").map(|(_, rest)| rest.to_string());
                assert!(
                    why.as_str().is_some_and(|w| !w.is_empty())
                        && tc != wc
                        && remedy(tr) == remedy(wr),
                    "{id}: the reasons differ only as the row says\n    text: {tr}\n    wire: {wr}"
                );
                code_only += 1;
                continue;
            } else if tc != wc {
                failures.push(format!(
                    "{id}: reasons differ\n    text: {tr}\n    wire: {wr}\n    cut:  {tc}\n          {wc}"
                ));
                continue;
            }
        }
        agree += 1;
    }
    println!(
        "wire table: {} rows, {agree} agree (code and reason), {code_only} agree on the code with the reason \
         differing as listed, {diverge} listed divergences, {} failures",
        rows.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        rows.len() >= 60 && agree >= 60,
        "{} rows, {agree} agreeing",
        rows.len()
    );
}

#[test]
fn the_naming_cut_keeps_what_the_readers_must_share() {
    let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    // Only the operation's own words are cut; a different rule or branch stays different.
    let a = naming_cut(
        "G4.rule: push to main on o/r would bypass its `pull_request` rule. Open a pull request. Command: gh api -X PATCH x",
        &names(&["gh api"]),
    );
    let b = naming_cut(
        "G4.rule: push to main on o/r would bypass its `pull_request` rule. Open a pull request. Command: PATCH x (on the wire, h)",
        &names(&["PATCH x"]),
    );
    assert_eq!(a, b);
    let c = naming_cut(
        "G4.rule: push to dev on o/r would bypass its `pull_request` rule. Open a pull request. Command: PATCH x",
        &names(&["PATCH x"]),
    );
    assert_ne!(a, c);
    assert_eq!(
        naming_cut("G2.node-id: gh api with an id.", &names(&["gh api"])),
        "G2.node-id: <op> with an id."
    );
}
