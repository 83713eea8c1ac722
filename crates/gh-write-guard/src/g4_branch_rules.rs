//! G4: a git operation that only lands by bypassing a branch rule is denied.
//!
//! - Explicit bypasses (no lookup): `gh pr merge --admin`; `--no-verify` / `-n` (any short
//!   cluster) on `git commit`; `--no-verify` on push, merge, am; `core.hooksPath` overridden for
//!   commit/merge/push/am/pull by `-c`, `--config-env`, `GIT_CONFIG_COUNT/KEY/VALUE` or
//!   `GIT_CONFIG_PARAMETERS`; API writes to branch protection or rulesets.
//! - Pushes: each destination branch on a GitHub host, its rules asked of the remote's own
//!   repository ([`crate::world::World::rules`]); undeterminable rules fail closed for
//!   main/master/develop and the configured `protected_branches`.
//! - `gh api` writes to `git/refs/heads/<b>` (update, force, delete) are judged as pushes.

use crate::analysis::Analysis;
use crate::finding::{Code, Finding};
use crate::git_push::{BranchUpdate, PushPlan};
use crate::operations::{Op, OpKind};
use crate::world::{Destination, RepoSlug};
use branch_rules::{FailClosedPolicy, PushKind, Refusal};
use command_effects::gh_api::ApiCall;
use command_effects::git::GitCall;
use serde_json::json;

const REMEDY: &str =
    "Open a pull request instead, or hand the maintainer the exact command to run.";

/// Subcommands that run hooks a `core.hooksPath` override or `--no-verify` would skip.
const HOOKED: [&str; 5] = ["commit", "merge", "push", "am", "pull"];

fn command_text(a: &Analysis<'_>, op: &Op) -> String {
    let inv = op.inv(a);
    let unit = &a.units[op.unit];
    let text = match inv.origin.last() {
        None => inv.span.text(&unit.text),
        Some(o) => unit
            .view()
            .origins
            .get(*o)
            .map(|f| f.text.as_str())
            .and_then(|t| t.get(inv.span.range()))
            .unwrap_or(""),
    };
    text.chars().take(160).collect()
}

/// Whether git would skip the hooks: the last `--verify`/`--no-verify` (any unique prefix,
/// e.g. `--no-verif`) or `-n` of `git commit` in a short cluster (`-nm`, `-an`; not `-mn`,
/// where `n` is the message), read with git's option grammar.
fn skips_hooks(call: &GitCall, sub: &str) -> bool {
    match command_effects::git_options::table(sub) {
        Some(table) => {
            command_effects::git_options::parse(table, &call.args).flag("verify") == Some(false)
        }
        None => call
            .args
            .iter()
            .any(|a| a.value.as_deref() == Some("--no-verify")),
    }
}

fn explicit_git_bypass(call: &GitCall) -> Option<String> {
    let sub = call.sub()?;
    if !HOOKED.contains(&sub) {
        return None;
    }
    if let Some(c) = call
        .config
        .iter()
        .find(|c| c.key == "core.hookspath" || c.key.is_empty())
    {
        return Some(if c.key.is_empty() {
            format!(
                "git {sub} with a config setting decided at run time ({})",
                c.via
            )
        } else {
            format!("git {sub} with core.hooksPath overridden ({})", c.via)
        });
    }
    if let Some(switch) = call.hook_skips.first() {
        return Some(format!(
            "git {sub} with {switch}, which switches the repository's hooks off"
        ));
    }
    let no_verify = skips_hooks(call, sub);
    no_verify.then(|| format!("git {sub} --no-verify skips the repository's hooks"))
}

/// G4's refusal of a git call that skips the repository's hooks (`command`: its text, for the
/// evidence; `aliases`: the aliases it was expanded from). Shared with [`crate::exec_argv`].
pub fn hooks_bypass(
    call: &GitCall,
    command: impl FnOnce() -> String,
    aliases: &[String],
) -> Option<Finding> {
    let shape = explicit_git_bypass(call)?;
    Some(Finding::deny(
        Code::G4HooksBypass,
        shape,
        "Let the hooks run (drop --no-verify, the hooksPath override or the hook manager's switch) and fix what they report.",
        json!({"command": command(), "aliases": aliases}),
    ))
}

/// `gh api` writes that change protection, rulesets or branches.
fn api_shape(api: &ApiCall) -> Option<ApiShape> {
    if !api.is_write() {
        return None;
    }
    if api.graphql {
        return graphql_shape(api);
    }
    // A run-time segment stays in the path as `${NAME}` (`branches/$B/protection` is still a
    // protection write).
    let path = api.rest_path_template()?;
    let field = |key: &str| -> Option<Option<String>> {
        let f = api
            .fields
            .iter()
            .rev()
            .find(|f| f.key.as_deref() == Some(key))?;
        Some(f.value.clone())
    };
    rest_shape(api.method.as_deref(), &path, &field)
}

/// GraphQL mutations that change branch protection, rulesets or branches (G4 writes).
const RULE_MUTATIONS: &[&str] = &[
    "deleteBranchProtectionRule",
    "updateBranchProtectionRule",
    "createBranchProtectionRule",
    "updateRepositoryRuleset",
    "deleteRepositoryRuleset",
    "createRepositoryRuleset",
    "updateRefs",
    "updateRef",
    "deleteRef",
    "createCommitOnBranch",
    "mergeBranch",
];

fn graphql_shape(api: &ApiCall) -> Option<ApiShape> {
    let command_effects::gh_api::Query::Text(q) = &api.query else {
        return None;
    };
    RULE_MUTATIONS
        .iter()
        .find(|m| command_effects::gh_api::has_word(q, m))
        .map(|m| ApiShape::Protection(format!("graphql {m}")))
}

/// A REST write by path and method, from `gh api` or an HTTP client: protection and rulesets,
/// branch refs (`git/refs/heads/<b>`), file contents committed to a branch (`contents/...`
/// with `branch`, else the default branch), merges into a branch (`merges` with `base`).
/// `field(key)`: `None` absent, `Some(None)` decided at run time.
fn rest_shape(
    method: Option<&str>,
    path: &str,
    field: &dyn Fn(&str) -> Option<Option<String>>,
) -> Option<ApiShape> {
    let parts: Vec<&str> = path.split('/').collect();
    if parts.iter().any(|p| *p == "protection" || *p == "rulesets")
        || (parts.first() == Some(&"orgs") && parts.contains(&"rulesets"))
    {
        return Some(ApiShape::Protection(path.to_string()));
    }
    if parts.len() < 4 || parts[0] != "repos" {
        return None;
    }
    let (owner, repo) = (parts[1].to_string(), parts[2].to_string());
    let method = method.unwrap_or("POST");
    let update = |branch: Option<String>, kind| ApiShape::Ref {
        owner: owner.clone(),
        repo: repo.clone(),
        update: BranchUpdate { branch, kind },
    };
    // repos/o/r/git/refs/heads/<branch...>
    if parts.len() >= 7 && parts[3] == "git" && parts[4] == "refs" && parts[5] == "heads" {
        let branch = parts[6..].join("/");
        let kind = if method == "DELETE" {
            PushKind::Delete
        } else if matches!(field("force"), Some(None))
            || matches!(field("force"), Some(Some(f)) if f == "true")
        {
            PushKind::Force
        } else {
            PushKind::Update
        };
        return Some(update(Some(branch), kind));
    }
    // repos/o/r/contents/<path>: PUT/DELETE commit to `branch` (default branch when absent,
    // which the guard does not know here).
    if parts[3] == "contents" && matches!(method, "PUT" | "DELETE") {
        return Some(update(field("branch").flatten(), PushKind::Update));
    }
    // repos/o/r/merges: merges `head` into `base`.
    if parts[3] == "merges" && parts.len() == 4 {
        return Some(update(field("base").flatten(), PushKind::Update));
    }
    // repos/o/r/merge-upstream: a fork's `branch` brought up to its upstream's.
    if parts[3] == "merge-upstream" && parts.len() == 4 {
        return Some(update(field("branch").flatten(), PushKind::Update));
    }
    // repos/o/r/git/refs (POST): creates `ref`; a tag is no branch.
    if parts.len() == 5 && parts[3] == "git" && parts[4] == "refs" && method == "POST" {
        return match field("ref") {
            Some(Some(r)) => r
                .strip_prefix("refs/heads/")
                .map(|b| update(Some(b.to_string()), PushKind::Create)),
            // Absent (a body from `--input`) or decided at run time: any branch.
            _ => Some(update(None, PushKind::Create)),
        };
    }
    // repos/o/r/branches/<b>/rename: the branch goes (its rules' `deletion`).
    if parts.len() >= 6 && parts[3] == "branches" && parts.last() == Some(&"rename") {
        let branch = parts[4..parts.len() - 1].join("/");
        return Some(update(Some(branch), PushKind::Delete));
    }
    None
}

/// `gh repo sync <destination>`: the destination's `--branch` (else its default branch,
/// unknown here) brought up to the source's, by a hard reset with `--force`. Without a
/// destination gh syncs the local clone (git's own commands, not a GitHub write).
fn repo_sync_shape(args: &command_effects::gh::GhArgs) -> Option<(String, ApiShape)> {
    if args.top.as_deref() != Some("repo") || args.sub() != Some("sync") {
        return None;
    }
    let dest = args.positionals.first()?.as_deref()?;
    let dest = dest
        .trim_start_matches("https://")
        .trim_start_matches("http://");
    let parts: Vec<&str> = dest
        .trim_end_matches('/')
        .trim_end_matches(".git")
        .split('/')
        .collect();
    let (host, owner, repo) = match parts[..] {
        [o, r] => ("github.com", o, r),
        [h, o, r] => (h, o, r),
        _ => return None,
    };
    let branch = args
        .values(&["-b", "--branch"])
        .last()
        .map(|v| v.map(String::from));
    let kind = match args.bool_flag(&["--force"]) == Some(true) {
        true => PushKind::Force,
        false => PushKind::Update,
    };
    let update = BranchUpdate {
        branch: branch.flatten(),
        kind,
    };
    let shape = ApiShape::Ref {
        owner: owner.to_string(),
        repo: repo.to_string(),
        update,
    };
    Some((host.to_string(), shape))
}

/// An HTTP client's write to the REST API (`curl -X DELETE .../protection`).
fn http_shape(method: &str, url: &str) -> Option<ApiShape> {
    let path = command_effects::gh_api::rest_path(url);
    rest_shape(Some(method), &path, &|_| Some(None))
}

enum ApiShape {
    Protection(String),
    Ref {
        owner: String,
        repo: String,
        update: BranchUpdate,
    },
}

fn kind_word(kind: PushKind) -> &'static str {
    match kind {
        PushKind::Update => "push to",
        PushKind::Force => "force push to",
        PushKind::Delete => "deletion of",
        PushKind::Create => "creation of",
    }
}

/// What G4 reads about one push besides its plan: the world its repository is in, the branch
/// rules, the folder it acts in, its label and its text for the reason. The command line's
/// operations and an exec's literal argv ([`crate::exec_argv`]) both fill it.
pub(crate) struct PushSite<'s> {
    pub world: &'s dyn crate::world::World,
    pub rules: &'s dyn branch_rules::Rules,
    /// The folder the push acts in (after `-C`); `None`: decided at run time.
    pub dir: Option<&'s std::path::Path>,
    /// `git push` ([`Op::label`]).
    pub label: &'s str,
    /// The command's text, as the reason and the evidence show it.
    pub command: &'s dyn Fn() -> String,
}

/// `f` over the [`PushSite`] of an operation of the command line.
fn with_site<T>(a: &Analysis<'_>, op: &Op, f: impl FnOnce(&PushSite<'_>) -> T) -> T {
    let label = op.label();
    let command = || command_text(a, op);
    f(&PushSite {
        world: a.world,
        rules: a.rules(),
        dir: op.dir.as_deref(),
        label: &label,
        command: &command,
    })
}

/// Judges one branch update on one GitHub repository (`remote`: the named remote the push
/// goes through, for its tracking refs).
fn judge_update(
    site: &PushSite<'_>,
    slug: &RepoSlug,
    update: &BranchUpdate,
    policy: &FailClosedPolicy,
    remote: Option<&str>,
) -> Option<Finding> {
    let RepoSlug { host, owner, repo } = slug;
    let what = site.label;
    let command = site.command;
    let Some(branch) = &update.branch else {
        return Some(Finding::deny(
            Code::G4RunTimeBranch,
            format!("{what} to a branch decided at run time on {owner}/{repo}"),
            format!("Name the branch literally. {REMEDY}"),
            json!({"repository": slug.to_string(), "kind": update.kind, "command": command()}),
        ));
    };
    let outcome = site.rules.rules_for(host, owner, repo, branch);
    let evidence = |extra: serde_json::Value| json!({"repository": slug.to_string(), "branch": branch, "kind": update.kind, "rules": format!("{outcome:?}"), "command": command(), "detail": extra});
    // With no remote-tracking branch the push may create the branch: `creation` too.
    // Asked only when a creation rule would refuse (a ref lookup in the repository).
    let may_create = || {
        update.kind == PushKind::Update
            && remote.is_some_and(|r| {
                site.dir
                    .and_then(|d| site.world.remote_tracking_branch(d, r, branch))
                    == Some(false)
            })
    };
    let refusal = outcome.refusal_with(branch, update.kind, may_create, policy)?;
    // A push that may create the branch, refused by a `creation` rule, is named as the
    // creation it is: the words the wire uses for the same update, where it states the creation.
    let kind = match refusal {
        Refusal::Rule(branch_rules::RuleType::Creation) => kind_word(PushKind::Create),
        _ => kind_word(update.kind),
    };
    Some(
        match refusal {
            Refusal::Rule(rule) => Finding::deny(
                Code::G4Rule,
                format!("{kind} {branch} on {owner}/{repo} would bypass its `{rule}` rule"),
                format!("{REMEDY} Command: {}", command()),
                evidence(json!({"rule": rule.to_string()})),
            ),
            Refusal::FailClosed(cause) => Finding::deny(
                Code::G4FailClosed,
                format!("{kind} {branch} on {owner}/{repo}: its branch rules could not be read, and {branch} is protected by default"),
                format!("{REMEDY} Command: {}", command()),
                evidence(json!({"cause": cause.to_string()})),
            ),
        },
    )
}

/// G4's refusal of a pull request merge past the base branch's requirements (`refused`: how
/// the reader knows: `--admin` in the text, the merge state GitHub reports on the wire). The
/// one remedy both readers give.
pub(crate) fn admin_merge(refused: String, evidence: serde_json::Value) -> Finding {
    Finding::deny(
        Code::G4AdminMerge,
        refused,
        "Merge without --admin once the requirements are met (reviews, checks), or hand the maintainer the exact command to run.",
        evidence,
    )
}

pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    let policy = FailClosedPolicy::new(&a.cx.config.protected_branches);
    for op in a.ops() {
        match &op.kind {
            OpKind::Gh { args, api, .. } => {
                if args.top.as_deref() == Some("pr")
                    && args.sub() == Some("merge")
                    && args.bool_flag(&["--admin"]) == Some(true)
                {
                    out.push(admin_merge(
                        "gh pr merge --admin bypasses the branch's merge requirements".into(),
                        json!({"command": command_text(a, op)}),
                    ));
                }
                let host = api
                    .as_ref()
                    .and_then(|c| c.hostname.clone())
                    .unwrap_or_else(|| "github.com".into());
                let shape = api.as_ref().and_then(api_shape);
                out.extend(judge_api_write(a, op, shape, &host, &policy));
                if let Some((host, shape)) = repo_sync_shape(args) {
                    out.extend(judge_api_write(a, op, Some(shape), &host, &policy));
                }
                if args.top.as_deref() == Some("ruleset")
                    && !matches!(args.sub(), None | Some("list" | "view" | "check"))
                {
                    out.push(Finding::deny(
                        Code::G4RulesetWrite,
                        "a ruleset write",
                        "Only the maintainer changes branch rules.",
                        json!({"command": command_text(a, op)}),
                    ));
                }
            }
            OpKind::Git { call, expanded } => {
                out.extend(hooks_bypass(call, || command_text(a, op), &expanded.chain));
                // A subcommand decided at run time (a word, an autocorrected typo) may be a
                // push of these arguments: judged as one.
                if call.may_push() {
                    let plan = a.push_plan(op, call);
                    let mut found = with_site(a, op, |site| check_push(site, &plan, &policy));
                    if found.iter().any(|f| f.code == Some(Code::G4RunTimeBranch)) {
                        match on_each_path(a, op, call, &policy) {
                            Paths::Refused(f) => {
                                found.retain(|f| f.code != Some(Code::G4RunTimeBranch));
                                found.insert(0, f);
                            }
                            Paths::AllAllowed => {
                                found.retain(|f| f.code != Some(Code::G4RunTimeBranch))
                            }
                            Paths::Unknown => {}
                        }
                    }
                    out.extend(found);
                }
            }
            OpKind::HttpWrite { method, url, .. } => {
                let shape = http_shape(method, url);
                out.extend(judge_api_write(a, op, shape, "github.com", &policy));
            }
        }
    }
    out
}

/// Most pushes [`on_each_path`] judges for one call.
const MAX_PATHS: usize = 16;

/// What the pushes a run-time branch may stand for came to ([`on_each_path`]).
enum Paths {
    /// One is refused: this refusal.
    Refused(Finding),
    /// The values are all the branch can be, and none is refused.
    AllAllowed,
    /// Not known (a value the text does not give, or more than [`MAX_PATHS`]).
    Unknown,
}

/// A push whose branch is decided at run time from values the text gives it (`B=feature/x;
/// if ...; then B=main; fi; git push origin HEAD:$B`): each combination of those values judged
/// as if written literally. The first refusal is returned, named as the rule's own (`G4.rule`:
/// its remedy, a pull request or the maintainer, is right whichever path runs; "name the branch
/// literally" would lead to the same refusal). When the values are all the branch can be (a
/// `for` loop's literal words around the push) and none is refused, the push is allowed.
fn on_each_path(a: &Analysis<'_>, op: &Op, call: &GitCall<'_>, policy: &FailClosedPolicy) -> Paths {
    let env = &op.inv(a).env;
    let mut calls = vec![call.clone()];
    let mut complete = true;
    for (i, arg) in call.args.iter().enumerate() {
        if arg.value.is_some() {
            continue;
        }
        let Some(c) = env.candidates(&arg.word) else {
            return Paths::Unknown;
        };
        complete &= c.complete;
        if calls.len() * c.values.len() > MAX_PATHS {
            return Paths::Unknown;
        }
        calls = calls
            .iter()
            .flat_map(|call| {
                c.values.iter().map(move |v| {
                    let mut call = call.clone();
                    call.args[i].value = Some(v.as_str().into());
                    call
                })
            })
            .collect();
    }
    let mut clean = true;
    for c in &calls {
        let plan = crate::git_push::plan(c, op.dir.as_deref(), a.world, &op.head);
        let found = with_site(a, op, |site| check_push(site, &plan, policy));
        clean &= found.is_empty();
        let refused = found.into_iter().find(|f| {
            f.verdict == crate::finding::Verdict::Deny && f.code != Some(Code::G4RunTimeBranch)
        });
        if let Some(mut f) = refused {
            let branch = f.evidence["branch"]
                .as_str()
                .unwrap_or("this one")
                .to_string();
            f.refused = format!(
                "{} (the branch is decided at run time, and on one path the command's text \
                 takes it is {branch})",
                f.refused
            );
            return Paths::Refused(f);
        }
    }
    if complete && clean {
        Paths::AllAllowed
    } else {
        Paths::Unknown
    }
}

/// An API write (`gh api`, an HTTP client) to branch protection, or to a branch ref on `host`.
fn judge_api_write(
    a: &Analysis<'_>,
    op: &Op,
    shape: Option<ApiShape>,
    host: &str,
    policy: &FailClosedPolicy,
) -> Option<Finding> {
    with_site(a, op, |site| judge_shape(site, shape?, host, policy))
}

/// G4 over one API call read off the wire ([`crate::wire_api`]) to `host`: what [`check`]
/// finds for the same `gh api` call.
pub(crate) fn check_api(
    site: &PushSite<'_>,
    api: &ApiCall,
    host: &str,
    policy: &FailClosedPolicy,
) -> Option<Finding> {
    judge_shape(site, api_shape(api)?, host, policy)
}

/// A protection write is refused; a branch update is judged as a push to it.
fn judge_shape(
    site: &PushSite<'_>,
    shape: ApiShape,
    host: &str,
    policy: &FailClosedPolicy,
) -> Option<Finding> {
    match shape {
        ApiShape::Protection(path) => Some(Finding::deny(
            Code::G4ProtectionWrite,
            "an API write that changes branch protection or rulesets",
            "Only the maintainer changes branch rules; hand them the exact command to run.",
            json!({"endpoint": path, "command": (site.command)()}),
        )),
        ApiShape::Ref {
            owner,
            repo,
            update,
        } => {
            let slug = RepoSlug {
                host: host.to_string(),
                owner,
                repo,
            };
            judge_update(site, &slug, &update, policy, None)
        }
    }
}

/// G4 over one push's plan: each branch it updates on a GitHub repository against that
/// branch's rules; an unknown destination fails closed for the protected-by-default branches.
pub(crate) fn check_push(
    site: &PushSite<'_>,
    plan: &PushPlan,
    policy: &FailClosedPolicy,
) -> Vec<Finding> {
    let mut out = Vec::new();
    if plan.nothing.is_some() {
        return out;
    }
    match &plan.destinations {
        Ok(dests) => {
            for d in dests {
                match d {
                    Destination::GitHub(slug) => {
                        for u in &plan.updates {
                            let remote = plan.remote.as_deref();
                            out.extend(judge_update(site, slug, u, policy, remote));
                        }
                    }
                    Destination::GitHubUnrecognised { host, url } => {
                        out.extend(undeterminable(
                            site,
                            &plan.updates,
                            policy,
                            &format!("{url} on {host} names no repository"),
                        ));
                    }
                    Destination::OtherHost { .. } | Destination::Local { .. } => {}
                }
            }
        }
        Err(e) => out.extend(undeterminable(site, &plan.updates, policy, &e.0)),
    }
    out
}

/// Fail closed for protected-by-default branches when the destination is unknown.
fn undeterminable(
    site: &PushSite<'_>,
    updates: &[BranchUpdate],
    policy: &FailClosedPolicy,
    cause: &str,
) -> Vec<Finding> {
    updates
        .iter()
        .filter(|u| {
            u.branch
                .as_deref()
                .is_none_or(|b| policy.denies_undeterminable(b))
        })
        .map(|u| {
            let branch = u
                .branch
                .as_deref()
                .unwrap_or("a branch decided at run time");
            let command = (site.command)();
            Finding::deny(
                Code::G4UnknownDestination,
                format!(
                    "{} {branch}: where the push goes could not be determined",
                    kind_word(u.kind)
                ),
                format!("{REMEDY} Command: {command}"),
                json!({"cause": cause, "kind": u.kind, "command": command}),
            )
        })
        .take(1)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use command_effects::git::parse_git;

    /// [`explicit_git_bypass`] of the git call `cmd` runs.
    fn bypass(cmd: &str) -> Option<String> {
        let p = shell_syntax::parse(cmd);
        let v = shell_syntax::commands(&p);
        explicit_git_bypass(&parse_git(&v.invocations[0]))
    }

    #[test]
    fn commit_clusters() {
        // (command, whether it skips the hooks)
        let cases = [
            ("git commit -n -m x", true),
            ("git commit -nm x", true),
            ("git commit -an", true),
            ("git commit --no-verify", true),
            ("git -c core.hooksPath=/dev/null commit", true),
            ("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/x git commit -m y", true),
            ("git commit -mn", false),
            ("git commit -m 'x -n'", false),
            ("git commit -m x -- -n", false),
            ("git status -n", false),
            ("git -c core.hooksPath=.githooks config --list", false),
        ];
        for (cmd, skips) in cases {
            assert_eq!(bypass(cmd).is_some(), skips, "{cmd}: {:?}", bypass(cmd));
        }
    }
}
