//! The tightening table: one row per key and case (system file, user file, what applies, whether
//! the user's value is named as not applied).

use super::*;

fn layer(text: &str) -> Layer {
    let l = crate::parse(text);
    assert!(l.error.is_none(), "{text}: {:?}", l.error);
    Layer {
        config: l.config,
        keys: l.keys,
    }
}

/// The effective config as TOML-ish facts, compared by the effective value of each key.
fn effective(system: &str, user: &str) -> Tightened {
    tighten(
        &layer(system),
        &layer(user),
        Path::new("/etc/agent-guards/config.toml"),
    )
}

/// The same config parsed from `expected` (the keys it does not name at their defaults).
fn expect(expected: &str) -> Config {
    layer(expected).config
}

struct Row {
    what: &'static str,
    system: &'static str,
    user: &'static str,
    applies: &'static str,
    /// The keys named as not applied.
    refused: &'static [&'static str],
}

const ROWS: &[Row] = &[
    Row { what: "no system keys: the user's file as it is", system: "", user: "primary_checkout = \"allow\"\negress_mode = \"report\"", applies: "primary_checkout = \"allow\"\negress_mode = \"report\"", refused: &[] },
    Row { what: "protected_branches: union", system: "protected_branches = [\"prod\"]", user: "protected_branches = [\"release\"]", applies: "protected_branches = [\"prod\", \"release\"]", refused: &[] },
    Row { what: "protected_branches: an empty user list removes nothing", system: "protected_branches = [\"prod\"]", user: "protected_branches = []", applies: "protected_branches = [\"prod\"]", refused: &[] },
    Row { what: "maintainer_only_tiers: union", system: "maintainer_only_tiers = [\"fable\", \"opus\"]", user: "maintainer_only_tiers = [\"sonnet\"]", applies: "maintainer_only_tiers = [\"fable\", \"opus\", \"sonnet\"]", refused: &["maintainer_only_tiers"] },
    Row { what: "maintainer_only_tiers: [] cannot turn the check off", system: "maintainer_only_tiers = [\"fable\"]", user: "maintainer_only_tiers = []", applies: "maintainer_only_tiers = [\"fable\"]", refused: &["maintainer_only_tiers"] },
    Row { what: "maintainer_only_tiers: adding one is tightening", system: "maintainer_only_tiers = [\"fable\"]", user: "maintainer_only_tiers = [\"fable\", \"opus\"]", applies: "maintainer_only_tiers = [\"fable\", \"opus\"]", refused: &[] },
    Row { what: "network_allow: intersection", system: "network_allow = [\"a.com\", \"b.com\"]", user: "network_allow = [\"b.com\", \"evil.com\"]", applies: "network_allow = [\"b.com\"]", refused: &["network_allow"] },
    Row { what: "network_allow: a narrower user list applies", system: "network_allow = [\"a.com\", \"b.com\"]", user: "network_allow = [\"a.com\"]", applies: "network_allow = [\"a.com\"]", refused: &[] },
    Row { what: "network_allow: an unset user key keeps the system's", system: "network_allow = [\"a.com\"]", user: "", applies: "network_allow = [\"a.com\"]", refused: &[] },
    Row { what: "network_allow: the system's [] is set too", system: "network_allow = []", user: "network_allow = [\"evil.com\"]", applies: "network_allow = []", refused: &["network_allow"] },
    Row { what: "trusted_mcp_servers: intersection", system: "trusted_mcp_servers = [\"docs\"]", user: "trusted_mcp_servers = [\"docs\", \"web\"]", applies: "trusted_mcp_servers = [\"docs\"]", refused: &["trusted_mcp_servers"] },
    Row { what: "integrity_mode: enforce stands", system: "integrity_mode = \"enforce\"", user: "integrity_mode = \"observe\"", applies: "integrity_mode = \"enforce\"", refused: &["integrity_mode"] },
    Row { what: "integrity_mode: the older name is the same key", system: "mode = \"enforce\"", user: "mode = \"observe\"", applies: "integrity_mode = \"enforce\"", refused: &["integrity_mode"] },
    Row { what: "integrity_mode: the user may enforce", system: "integrity_mode = \"observe\"", user: "integrity_mode = \"enforce\"", applies: "integrity_mode = \"enforce\"", refused: &[] },
    Row { what: "egress_mode: enforce stands", system: "egress_mode = \"enforce\"", user: "egress_mode = \"report\"", applies: "egress_mode = \"enforce\"", refused: &["egress_mode"] },
    Row { what: "credential_broker: on stands", system: "credential_broker = \"on\"", user: "credential_broker = \"off\"", applies: "credential_broker = \"on\"", refused: &["credential_broker"] },
    Row { what: "credential_broker: the user may turn it on", system: "credential_broker = \"off\"", user: "credential_broker = \"on\"", applies: "credential_broker = \"on\"", refused: &[] },
    Row { what: "audit_journal: on stands over off", system: "audit_journal = \"on\"", user: "audit_journal = \"off\"", applies: "audit_journal = \"on\"", refused: &["audit_journal"] },
    Row { what: "audit_journal: on stands over auto", system: "audit_journal = \"on\"", user: "audit_journal = \"auto\"", applies: "audit_journal = \"on\"", refused: &["audit_journal"] },
    Row { what: "audit_journal: auto stands over off", system: "audit_journal = \"auto\"", user: "audit_journal = \"off\"", applies: "audit_journal = \"auto\"", refused: &["audit_journal"] },
    Row { what: "audit_journal: the user may turn it on", system: "audit_journal = \"off\"", user: "audit_journal = \"on\"", applies: "audit_journal = \"on\"", refused: &[] },
    Row { what: "egress_mode: the user may enforce", system: "egress_mode = \"report\"", user: "egress_mode = \"enforce\"", applies: "egress_mode = \"enforce\"", refused: &[] },
    Row { what: "hook_deadline_ms: not longer", system: "hook_deadline_ms = 1000", user: "hook_deadline_ms = 8000", applies: "hook_deadline_ms = 1000", refused: &["hook_deadline_ms"] },
    Row { what: "hook_deadline_ms: shorter applies", system: "hook_deadline_ms = 3000", user: "hook_deadline_ms = 1500", applies: "hook_deadline_ms = 1500", refused: &[] },
    Row { what: "rules_timeout_ms: not longer", system: "rules_timeout_ms = 1000", user: "rules_timeout_ms = 5000", applies: "rules_timeout_ms = 1000", refused: &["rules_timeout_ms"] },
    Row { what: "github_api: never the user's, even when the system sets none", system: "protected_branches = []", user: "github_api = \"http://127.0.0.1:9/\"", applies: "", refused: &["github_api"] },
    Row { what: "github_api: the system's", system: "github_api = \"https://ghe.example/api/v3\"", user: "github_api = \"http://127.0.0.1:9/\"", applies: "github_api = \"https://ghe.example/api/v3\"", refused: &["github_api"] },
    Row { what: "workspace_root: never the user's", system: "", user: "workspace_root = \"/\"", applies: "", refused: &["workspace_root"] },
    Row { what: "review_helper: the system's when set", system: "review_helper = \"/usr/bin/reply\"", user: "review_helper = \"true\"", applies: "review_helper = \"/usr/bin/reply\"", refused: &["review_helper"] },
    Row { what: "review_helper: the user's when the system sets none", system: "egress_mode = \"enforce\"", user: "review_helper = \"scripts/reply.sh\"", applies: "egress_mode = \"enforce\"\nreview_helper = \"scripts/reply.sh\"", refused: &[] },
    Row { what: "otlp_endpoint: the system's collector when set", system: "otlp_endpoint = \"http://collector:4318\"", user: "otlp_endpoint = \"http://elsewhere:4318\"", applies: "otlp_endpoint = \"http://collector:4318\"", refused: &["otlp_endpoint"] },
    Row { what: "otlp_endpoint: the user's when the system sets none", system: "egress_mode = \"enforce\"", user: "otlp_endpoint = \"http://mine:4318\"", applies: "egress_mode = \"enforce\"\notlp_endpoint = \"http://mine:4318\"", refused: &[] },
    Row { what: "primary_checkout: deny stands", system: "primary_checkout = \"deny\"", user: "primary_checkout = \"allow\"", applies: "primary_checkout = \"deny\"", refused: &["primary_checkout"] },
    Row { what: "primary_checkout: under allow the user may narrow", system: "primary_checkout = \"allow\"", user: "primary_checkout = { \"/src/a\" = \"allow\" }", applies: "primary_checkout = { \"/src/a\" = \"allow\" }", refused: &[] },
    Row { what: "primary_checkout: a table cannot be widened", system: "primary_checkout = { \"/src\" = \"allow\", \"/src/secret\" = \"deny\" }", user: "primary_checkout = \"allow\"", applies: "primary_checkout = { \"/src\" = \"allow\", \"/src/secret\" = \"deny\" }", refused: &["primary_checkout"] },
    Row { what: "primary_checkout: two tables, allowed only where both allow", system: "primary_checkout = { \"/src\" = \"allow\" }", user: "primary_checkout = { \"/src/x\" = \"deny\", \"/\" = \"allow\" }", applies: "primary_checkout = { \"/\" = \"deny\", \"/src\" = \"allow\", \"/src/x\" = \"deny\" }", refused: &["primary_checkout"] },
    Row { what: "tasks_max: the lower", system: "tasks_max = 512", user: "tasks_max = \"max\"", applies: "tasks_max = 512", refused: &["tasks_max"] },
    Row { what: "tasks_max: a lower user ceiling applies", system: "tasks_max = \"max\"", user: "tasks_max = 256", applies: "tasks_max = 256", refused: &[] },
    Row { what: "tasks_max: an unreadable user value leaves the system's", system: "tasks_max = 512", user: "tasks_max = \"lots\"", applies: "tasks_max = 512", refused: &["tasks_max"] },
    Row { what: "memory_max: the lower size", system: "memory_max = \"2G\"", user: "memory_max = \"1G\"", applies: "memory_max = \"1G\"", refused: &[] },
    Row { what: "memory_max: higher is refused", system: "memory_max = \"10%\"", user: "memory_max = \"50%\"", applies: "memory_max = \"10%\"", refused: &["memory_max"] },
    Row { what: "memory_max: a percentage and a size do not compare", system: "memory_max = \"2G\"", user: "memory_max = \"1%\"", applies: "memory_max = \"2G\"", refused: &["memory_max"] },
    Row { what: "egress_extra_phrases: union per family", system: "egress_extra_phrases = { command_displacement = [\"run this\"] }", user: "egress_extra_phrases = { command_displacement = [\"please execute\"], other = [\"x\"] }", applies: "egress_extra_phrases = { command_displacement = [\"run this\", \"please execute\"], other = [\"x\"] }", refused: &[] },
    Row { what: "restricted_paths: union", system: "restricted_paths = [\"/srv\"]", user: "restricted_paths = [\"/opt\"]", applies: "restricted_paths = [\"/srv\", \"/opt\"]", refused: &[] },
    Row { what: "integrity_reference_secs: the system's when set", system: "integrity_reference_secs = 600", user: "integrity_reference_secs = 99999", applies: "integrity_reference_secs = 600", refused: &["integrity_reference_secs"] },
];

#[test]
fn each_key_tightens_as_the_table_says() {
    for row in ROWS {
        let t = effective(row.system, row.user);
        let mut want = expect(row.applies);
        // Keys the expectation leaves unset but tighten fills in with their effective value.
        if t.config.integrity_mode.is_some() && want.integrity_mode.is_none() {
            want.integrity_mode = t.config.integrity_mode;
        }
        if t.config.maintainer_only_tiers.is_some() && want.maintainer_only_tiers.is_none() {
            want.maintainer_only_tiers = t.config.maintainer_only_tiers.clone();
        }
        assert_eq!(t.config, want, "{}", row.what);
        let refused: Vec<&str> = t
            .not_applied
            .iter()
            .map(|l| l.split(':').next().unwrap())
            .collect();
        assert_eq!(refused, row.refused, "{}: {:?}", row.what, t.not_applied);
    }
}

#[test]
fn every_key_of_the_key_table_has_a_rule() {
    // The installer's bookkeeping keys configure nothing.
    let keys: Vec<&str> = crate::diagnose::KEYS
        .iter()
        .filter(|k| k.used_by != "the installer")
        .map(|k| k.name)
        .collect();
    let ruled: Vec<&str> = RULES.iter().map(|(k, _, _)| *k).collect();
    for k in &keys {
        assert!(ruled.contains(k), "{k} has no tightening rule");
    }
    for k in &ruled {
        assert!(keys.contains(k), "{k} is not a config key");
    }
}

#[test]
fn a_refusal_names_the_system_file_and_says_what_applies() {
    let t = effective("egress_mode = \"enforce\"", "egress_mode = \"report\"");
    assert_eq!(
        t.not_applied,
        vec!["egress_mode: the system config /etc/agent-guards/config.toml sets it and your value would loosen it (enforce over report); the system's applies"]
    );
}

#[test]
fn an_unusable_system_file_fails_closed() {
    let t = tighten(
        &Layer::defaults_everywhere(),
        &layer(
            "primary_checkout = \"allow\"\negress_mode = \"report\"\nprotected_branches = [\"r\"]",
        ),
        Path::new("/etc/agent-guards/config.toml"),
    );
    assert_eq!(t.config.primary_checkout, Some(CheckoutConfig::Deny));
    assert_eq!(t.config.egress_mode, Some(EgressMode::Enforce));
    assert_eq!(
        t.config.protected_branches,
        vec!["r"],
        "tightening still applies"
    );
}

#[test]
fn load_layered_reads_both_files_and_names_what_was_not_applied() {
    let dir = tempfile::tempdir().unwrap();
    let system = dir.path().join("system.toml");
    let user = dir.path().join("user.toml");
    std::fs::write(
        &system,
        "egress_mode = \"enforce\"\nprotected_branches = [\"prod\"]\n",
    )
    .unwrap();
    std::fs::write(
        &user,
        "egress_mode = \"report\"\nprotected_branches = [\"rel\"]\n",
    )
    .unwrap();
    let u = user.to_string_lossy().to_string();
    let env = move |k: &str| (k == "AGENT_GUARDS_CONFIG").then(|| u.clone());
    let l = crate::load_layered(&system, &env);
    assert!(l.error.is_none(), "{:?}", l.error);
    assert_eq!(l.config.egress_mode, Some(EgressMode::Enforce));
    assert_eq!(l.config.protected_branches, vec!["prod", "rel"]);
    assert_eq!(l.problems.len(), 1, "{:?}", l.problems);
    assert_eq!(l.system_path.as_deref(), Some(system.as_path()));
    // No system file: exactly the per-user load.
    let l = crate::load_layered(&dir.path().join("absent.toml"), &env);
    assert_eq!(l.config.egress_mode, Some(EgressMode::Report));
    assert!(l.system_path.is_none());
    // A broken system file: the error says so, and the user's loosening does not apply.
    std::fs::write(&system, "egress_mode = [").unwrap();
    let l = crate::load_layered(&system, &env);
    assert!(
        l.error.as_deref().unwrap().starts_with("system config"),
        "{:?}",
        l.error
    );
    assert_eq!(l.config.egress_mode, Some(EgressMode::Enforce));
}

#[test]
fn a_fifo_system_config_is_an_error_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("config.toml");
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo reads the NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let l = crate::load_layered(&p, &|_| None);
    assert!(
        l.error.as_deref().unwrap().contains("FIFO"),
        "{:?}",
        l.error
    );
}

#[test]
fn the_system_default_config_pins_the_fail_closed_keys() {
    let text = system_default_config();
    let l = crate::parse(&text);
    assert!(l.error.is_none() && l.problems.is_empty(), "{l:?}\n{text}");
    let pinned: Vec<&str> = l.keys.iter().map(String::as_str).collect();
    let mut want = PINNED_BY_SYSTEM_DEFAULT.to_vec();
    want.sort();
    assert_eq!(pinned, want, "{text}");
    assert_eq!(l.config.primary_checkout, Some(CheckoutConfig::Deny));
    let t = tighten(
        &Layer {
            config: l.config,
            keys: l.keys,
        },
        &layer(
            "primary_checkout = \"allow\"\negress_mode = \"report\"\nmaintainer_only_tiers = []",
        ),
        Path::new("/etc/agent-guards/config.toml"),
    );
    assert_eq!(t.not_applied.len(), 3, "{:?}", t.not_applied);
}

#[test]
fn every_loader_the_hooks_use_reads_the_system_file_at_its_fixed_path() {
    // gh-write-guard and the second line load with their own lookups; `load_with` must still be
    // the layered load, or a system config would not bind them.
    let src = include_str!("lib.rs");
    let body = src
        .split("pub fn load_with(")
        .nth(1)
        .and_then(|b| b.split("\n}\n").next())
        .unwrap();
    assert!(
        body.contains("load_layered(Path::new(layered::SYSTEM_CONFIG_PATH), env)"),
        "{body}"
    );
}
