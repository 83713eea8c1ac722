//! Development replay of the G6 conformance cases (moves into gh-write-guard's replay).
use g67_scratch::g6_primary_checkout::{check, Policy, RepoKind, RepoWorld, Session};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

struct Fake<'a>(&'a Value);

impl RepoWorld for Fake<'_> {
    fn repo_kind(&self, dir: &Path) -> RepoKind {
        let key = dir.to_string_lossy();
        let v = self.0["primary_checkout"]
            .get(key.as_ref())
            .unwrap_or(&self.0["primary_checkout_default"]);
        match v {
            Value::Bool(true) => RepoKind::Primary,
            Value::Bool(false) => RepoKind::Linked,
            _ => RepoKind::NoRepo,
        }
    }
    fn resolves_to_commit(&self, dir: &Path, arg: &str) -> bool {
        for r in self.0["ref_resolves"].as_array().into_iter().flatten() {
            if r[0].as_str() == Some(&dir.to_string_lossy()) && r[1].as_str() == Some(arg) {
                return r[2].as_bool().unwrap_or(false);
            }
        }
        self.0["ref_resolves_default"].as_bool().unwrap_or(false)
    }
    fn aliases(&self, _dir: &Path) -> BTreeMap<String, String> {
        self.0["git_config_aliases"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
            .collect()
    }
}

#[test]
fn g6_fixtures() {
    for f in ["prior-art-misses.json", "shapes.json"] {
        let path = format!("../../fixtures/gh-write-guard/G6/{f}");
        let text = std::fs::read_to_string(path).unwrap();
        replay(&text, 1);
    }
}

#[test]
fn g6_cases() {
    let Ok(text) = std::fs::read_to_string("/work/shared/conformance/gh-write-guard/cases.json")
    else {
        return;
    };
    replay(&text, 50);
}

fn replay(text: &str, min: usize) {
    let cases: Value = serde_json::from_str(text).unwrap();
    let mut bad = Vec::new();
    let mut n = 0;
    for c in cases.as_array().unwrap() {
        if c["requirement"] != 6 || c["env"]["msys_drive_paths"] == true {
            continue;
        }
        n += 1;
        let env = &c["env"];
        let cmd = c["command"].as_str().unwrap();
        let parsed = shell_syntax::parse(cmd);
        let view = shell_syntax::commands(&parsed);
        let session = Session {
            cwd: env["cwd"].as_str().map(PathBuf::from),
            home: Some(PathBuf::from(
                env["environ"]["HOME"].as_str().unwrap_or("/root"),
            )),
        };
        let granted = safety_kernel::truthiness::grant(
            env["environ"]["GH_WRITE_GUARD_ALLOW_PRIMARY_CHECKOUT"].as_str(),
        )
        .is_granted();
        let cfg = c["config"]["primary_checkout"]
            .as_str()
            .map(|s| toml::Value::String(s.to_string()));
        let policy = Policy::from_config(granted, cfg.as_ref());
        let (verdicts, fired) = check(&view, &session, &Fake(env), &policy);
        let got = if fired.is_some() { "deny" } else { "allow" };
        if got != c["expected"].as_str().unwrap() {
            bad.push(format!(
                "{} want {} got {}: {:?} {:?}",
                c["id"], c["expected"], got, cmd, verdicts
            ));
        }
    }
    eprintln!("{} wrong", bad.len());
    for b in &bad {
        eprintln!("{b}");
    }
    assert!(n >= min, "only {n} cases replayed");
    assert!(bad.is_empty());
}
