//! Every config key in one table, and the diagnosis of a config file against it.
//!
//! [`KEYS`](crate::diagnose::KEYS) is the single source of truth for what the suite reads: the name, the binary that uses
//! it, its default, what is allowed and a one-line meaning. The loader's list of known keys, the
//! diagnosis (`agent-guards report`, the hooks' notices) and the README's configuration table
//! ([`markdown_table`](crate::diagnose::markdown_table), kept in sync by a test in the root package) are all derived from it.
//!
//! A diagnosis never changes what a binary does with a value; it names what is wrong so a typo is
//! not silent: invalid TOML with its line, an unknown key with the nearest known one, a value
//! outside what is allowed with what is allowed.

use crate::ceilings::{memory_size, parse_tasks, Raw};
use toml::Value;

/// One key the suite reads.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    /// The key as written in the file.
    pub name: &'static str,
    /// The binary (and requirement) that reads it.
    pub used_by: &'static str,
    /// The default, as a reader would write it.
    pub default: &'static str,
    /// What is allowed, in words (also the remedy of an invalid value).
    pub allowed: &'static str,
    /// One line: what the key does.
    pub meaning: &'static str,
    /// Checks a value; `Err` holds what is wrong with it.
    pub check: fn(&Value) -> Result<(), String>,
    /// Written commented-out into the default config, with its meaning above it.
    pub in_default_config: Option<&'static str>,
}

/// Every key, in the order the README lists them.
pub const KEYS: &[Key] = &[
    Key {
        name: "primary_checkout",
        used_by: "gh-write-guard (G6)",
        default: "`\"deny\"`",
        allowed: "`\"deny\"`, `\"allow\"`, or a table of repository paths to `\"allow\"`/`\"deny\"`",
        meaning: "whether git may change a primary checkout (a clone that is not a linked worktree)",
        check: check_primary_checkout,
        in_default_config: Some("primary_checkout = \"allow\""),
    },
    Key {
        name: "review_helper",
        used_by: "gh-write-guard (G5)",
        default: "none (G5 off)",
        allowed: "a command name or path",
        meaning: "the maintainer's review-reply helper; when set, hand-rolled `gh api` review replies are refused and pointed to it",
        check: check_string,
        in_default_config: None,
    },
    Key {
        name: "protected_branches",
        used_by: "gh-write-guard (G4)",
        default: "`[]`",
        allowed: "a list of branch names (`*` wildcards)",
        meaning: "branches treated as protected, with main, master and develop, when the live rules cannot be read",
        check: check_strings,
        in_default_config: None,
    },
    Key {
        name: "github_api",
        used_by: "gh-write-guard (G4)",
        default: "`https://api.github.com` (or `https://HOST/api/v3` for an enterprise host)",
        allowed: "an `http://` or `https://` URL",
        meaning: "the API base the branch rules are read from",
        check: check_url,
        in_default_config: None,
    },
    Key {
        name: "rules_timeout_ms",
        used_by: "gh-write-guard (G4)",
        default: "3000 (cut to the hook deadline minus 300; report names a longer value)",
        allowed: "a whole number of milliseconds, 1 or more",
        meaning: "total deadline of the live branch-rules lookup",
        check: check_positive,
        in_default_config: None,
    },
    Key {
        name: "egress_mode",
        used_by: "egress-audit (E5)",
        default: "`\"enforce\"`",
        allowed: "`\"enforce\"` or `\"report\"`",
        meaning: "`\"enforce\"` blocks a red final message once; `\"report\"` only records it",
        check: check_egress_mode,
        in_default_config: Some("egress_mode = \"enforce\""),
    },
    Key {
        name: "egress_extra_phrases",
        used_by: "egress-audit (E6)",
        default: "none",
        allowed: "a table of phrase family to a list of phrases",
        meaning: "extra phrases per family, e.g. `{ command_displacement = [\"please execute\"] }`",
        check: check_phrase_table,
        in_default_config: Some("egress_extra_phrases = { command_displacement = [], execution_receipt = [] }"),
    },
    Key {
        name: "maintainer_only_tiers",
        used_by: "model-tier-guard (M1)",
        default: "`[\"fable\"]`",
        allowed: "a list of model family names",
        meaning: "model families only the maintainer may use; unknown families always count as maintainer-only",
        check: check_strings,
        in_default_config: Some("maintainer_only_tiers = [\"fable\"]"),
    },
    Key {
        name: "trusted_mcp_servers",
        used_by: "model-tier-guard, integrity-signals (K5)",
        default: "`[]`",
        allowed: "a list of MCP server names",
        meaning: "MCP servers whose tools do not taint the session",
        check: check_strings,
        in_default_config: Some("trusted_mcp_servers = []"),
    },
    Key {
        name: "tasks_max",
        used_by: "tool-containment (C5)",
        default: "4096",
        allowed: "a whole number from 64 to 2^31, or `\"max\"` (none)",
        meaning: "task ceiling of each command (`AGENT_CONTAINMENT_TASKS_MAX` in the CLI's environment wins)",
        check: check_tasks_max,
        in_default_config: Some("tasks_max = 4096"),
    },
    Key {
        name: "memory_max",
        used_by: "tool-containment (C5)",
        default: "`\"25%\"` of RAM",
        allowed: "`\"N%\"` (1-100), bytes, `\"NK\"`/`\"NM\"`/`\"NG\"`/`\"NT\"` (at least 256 MiB), or `\"max\"`",
        meaning: "memory ceiling of each command (`AGENT_CONTAINMENT_MEMORY_MAX` in the CLI's environment wins)",
        check: check_memory_max,
        in_default_config: Some("memory_max = \"25%\""),
    },
    Key {
        name: "integrity_mode",
        used_by: "integrity-signals (I5), second-line (I1)",
        default: "`\"observe\"`",
        allowed: "`\"observe\"` or `\"enforce\"`",
        meaning: "`\"enforce\"` also denies critical actions; `\"observe\"` only records and reports (the older key `mode` is read the same)",
        check: check_integrity_mode,
        in_default_config: None,
    },
    Key {
        name: "workspace_root",
        used_by: "integrity-signals (I1)",
        default: "the session's project dir",
        allowed: "an absolute path",
        meaning: "where the agent is expected to work",
        check: check_absolute_path,
        in_default_config: None,
    },
    Key {
        name: "restricted_paths",
        used_by: "integrity-signals (I1)",
        default: "`[]` (beyond `/scoring`, `/rubric`, `/admin`)",
        allowed: "a list of paths",
        meaning: "paths the agent should not read or write",
        check: check_strings,
        in_default_config: None,
    },
    Key {
        name: "network_allow",
        used_by: "integrity-signals (I1, I7)",
        default: "the hosts of the repository's git remotes and the registries its build files name (`Cargo.toml` → crates.io, `package.json` → registry.npmjs.org, ...)",
        allowed: "a list of host names; `\"!host\"` removes a default",
        meaning: "hosts the agent may reach without a signal, beside the defaults",
        check: check_strings,
        in_default_config: None,
    },
    Key {
        name: "integrity_extra_phrases",
        used_by: "integrity-signals (I1, I2)",
        default: "none",
        allowed: "a table of phrase family to a list of phrases",
        meaning: "extra phrases per integrity family (`judge_manipulation`, `claim_*`)",
        check: check_phrase_table,
        in_default_config: None,
    },
    Key {
        name: "integrity_reference_secs",
        used_by: "integrity-signals (I1)",
        default: "none",
        allowed: "a whole number of seconds, 1 or more",
        meaning: "calibrated reference time of a run (time-manipulation signal)",
        check: check_positive,
        in_default_config: None,
    },
    Key {
        name: "hook_deadline_ms",
        used_by: "every hook",
        default: "2000",
        allowed: "a whole number of milliseconds from 100 to 8500 (the CLI waits 10 s)",
        meaning: "watchdog deadline of a hook; past it the hook gives its deliberate failure answer",
        check: check_hook_deadline,
        in_default_config: Some("hook_deadline_ms = 2000"),
    },
    Key {
        name: "otlp_endpoint",
        used_by: "audit-export (issue 45)",
        default: "none (export off)",
        allowed: "an `http://` or `https://` URL",
        meaning: "OpenTelemetry collector the audit records are sent to as OTLP/HTTP logs (`/v1/logs` is appended); `OTEL_EXPORTER_OTLP_ENDPOINT` at launch wins",
        check: check_url,
        in_default_config: None,
    },
    Key {
        name: "credential_broker",
        used_by: "tool-containment (C11, issue 38)",
        default: "`\"on\"`",
        allowed: "`\"on\"` or `\"off\"`",
        meaning: "agent commands hold a placeholder instead of your GitHub token and reach GitHub through the session's broker, which judges every write; `off` gives them your token as the CLI has it",
        check: check_credential_broker,
        in_default_config: None,
    },
    Key {
        name: "audit_journal",
        used_by: "every hook and the exec gate (issue 40)",
        default: "`\"auto\"`",
        allowed: "`\"auto\"`, `\"on\"` or `\"off\"`",
        meaning: "each audit record also goes to journald (or syslog), where the agent's user cannot erase it; `auto` when the socket exists, `on` says a missing one as an undelivered record; `agent-guards report` compares it with each session's `audit.jsonl`",
        check: check_audit_journal,
        in_default_config: None,
    },
    installer_key("installed_by"),
    installer_key("version"),
];

/// A key reserved for the installer's bookkeeping: any text, never in the default config.
const fn installer_key(name: &'static str) -> Key {
    Key {
        name,
        used_by: "the installer",
        default: "none",
        allowed: "any text",
        meaning: "reserved for the installer's bookkeeping",
        check: check_any,
        in_default_config: None,
    }
}

/// Older names still read, and the key each is now called.
pub const ALIASES: &[(&str, &str)] = &[("mode", "integrity_mode")];

/// The key named `name` (or an older name of it), if the suite reads it.
pub fn key(name: &str) -> Option<&'static Key> {
    let name = ALIASES
        .iter()
        .find(|(old, _)| *old == name)
        .map_or(name, |(_, new)| new);
    KEYS.iter().find(|k| k.name == name)
}

/// One thing wrong with a config file, one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line in the file, where known.
    pub line: Option<usize>,
    /// The key concerned (`None` for a file that is not TOML).
    pub key: Option<String>,
    /// What is wrong and the remedy, in one line.
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {}", self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

/// Every problem of a config text: invalid TOML (with its line), unknown keys (with the nearest
/// known key), invalid values (with what is allowed). Empty when the file is fine.
pub fn diagnose(text: &str) -> Vec<Problem> {
    let table: toml::Table = match text.parse() {
        Ok(t) => t,
        Err(e) => {
            let e: toml::de::Error = e;
            let line = e.span().map(|s| line_at(text, s.start));
            return vec![Problem {
                line,
                key: None,
                message: format!(
                    "invalid TOML: {} (the defaults are in use)",
                    one_line(e.message())
                ),
            }];
        }
    };
    let mut problems: Vec<Problem> = diagnose_table(&table)
        .into_iter()
        .map(|(key, message)| Problem {
            line: line_of_key(text, &key),
            key: Some(key),
            message,
        })
        .collect();
    // The table is sorted by key; a reader goes through the file from the top.
    problems.sort_by_key(|p| p.line.unwrap_or(usize::MAX));
    problems
}

/// The problems of a parsed table, as (key, message), by key.
pub fn diagnose_table(table: &toml::Table) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (name, value) in table {
        match key(name) {
            None => {
                let hint = nearest_key(name)
                    .map(|k| format!("; did you mean `{k}`?"))
                    .unwrap_or_default();
                out.push((
                    name.clone(),
                    format!("unknown key `{}` (ignored){hint}", escape(name)),
                ));
            }
            Some(k) => {
                if let Err(why) = (k.check)(value) {
                    out.push((
                        name.clone(),
                        format!(
                            "`{}` = {}: {why}; allowed: {}",
                            escape(name),
                            escape(&short(&value.to_string())),
                            k.allowed.replace('`', "")
                        ),
                    ));
                }
            }
        }
    }
    out.extend(deadlines_that_cannot_hold(table));
    out
}

/// Deadlines that cannot hold together (issue 47): a rules lookup longer than the hook's own
/// deadline leaves is cut, and the reader should know it was.
fn deadlines_that_cannot_hold(table: &toml::Table) -> Option<(String, String)> {
    let rules = table.get("rules_timeout_ms")?.as_integer()?;
    let hook = table
        .get("hook_deadline_ms")
        .and_then(Value::as_integer)
        .unwrap_or(crate::DEFAULT_HOOK_DEADLINE_MS as i64)
        .clamp(
            crate::MIN_HOOK_DEADLINE_MS as i64,
            crate::MAX_HOOK_DEADLINE_MS as i64,
        );
    let room = hook - crate::RULES_HEADROOM_MS as i64;
    (rules > room).then(|| {
        (
            "rules_timeout_ms".to_string(),
            format!(
                "`rules_timeout_ms` = {rules} does not fit in the hook deadline ({hook} ms, less {} for the rest of the judgement): the lookup is cut to {} ms",
                crate::RULES_HEADROOM_MS,
                room.max(50)
            ),
        )
    })
}

/// The known key closest to `name` by edit distance, when it is close enough to be a typo.
pub fn nearest_key(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    KEYS.iter()
        .map(|k| (edit_distance(&lower, k.name), k.name))
        .filter(|(d, k)| *d <= (k.len() / 3).max(2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// The README's configuration table (markdown), generated from [`KEYS`].
pub fn markdown_table() -> String {
    let mut s =
        String::from("| key | used by | default | allowed | meaning |\n|---|---|---|---|---|\n");
    for k in KEYS {
        s.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            k.name, k.used_by, k.default, k.allowed, k.meaning
        ));
    }
    s
}

/// The default config the installer writes: every key a user is likely to change, commented out,
/// with its meaning above it.
pub fn default_config() -> String {
    let mut s = String::from(
        "# agent-guards configuration. Every key is optional; the values shown are the defaults.\n\
         # `agent-guards report` names any problem in this file. All keys: see the README.\n",
    );
    for k in KEYS {
        if let Some(line) = k.in_default_config {
            let meaning = k.meaning.replace('`', "");
            s.push_str(&format!("\n# {} — {meaning}.\n", k.used_by));
            if k.name == "primary_checkout" {
                s.push_str(
                    "# Default \"deny\": git may change a repository only from a linked worktree (git worktree add);\n\
                     # uncomment to let the agent commit, push and reset in your ordinary clones.\n",
                );
            }
            s.push_str(&format!("# {line}\n"));
        }
    }
    s
}

fn check_any(_: &Value) -> Result<(), String> {
    Ok(())
}

fn check_string(v: &Value) -> Result<(), String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Ok(()),
        Value::String(_) => Err("empty".into()),
        other => Err(format!("a {}, not text", other.type_str())),
    }
}

fn check_strings(v: &Value) -> Result<(), String> {
    match v {
        Value::Array(items) if items.iter().all(Value::is_str) => Ok(()),
        Value::Array(_) => Err("an entry is not text".into()),
        other => Err(format!("a {}, not a list", other.type_str())),
    }
}

fn check_phrase_table(v: &Value) -> Result<(), String> {
    match v {
        Value::Table(t) => match t.iter().find(|(_, v)| check_strings(v).is_err()) {
            Some((family, _)) => Err(format!("`{}` is not a list of phrases", escape(family))),
            None => Ok(()),
        },
        other => Err(format!("a {}, not a table", other.type_str())),
    }
}

fn one_of(v: &Value, words: &[&str]) -> Result<(), String> {
    match v {
        Value::String(s) if words.iter().any(|w| s.eq_ignore_ascii_case(w)) => Ok(()),
        Value::String(_) => Err("not a recognised word".into()),
        other => Err(format!("a {}, not text", other.type_str())),
    }
}

fn check_primary_checkout(v: &Value) -> Result<(), String> {
    match v {
        Value::Table(t) => match t
            .iter()
            .find(|(_, v)| one_of(v, &["allow", "deny"]).is_err())
        {
            Some((path, _)) => Err(format!(
                "the entry for {} is not \"allow\" or \"deny\"",
                escape(path)
            )),
            None => Ok(()),
        },
        other => one_of(other, &["allow", "deny"]),
    }
}

/// A word-valued key: the same reading as the loader's ([`crate::values`]).
fn check_word<T: std::str::FromStr<Err = String>>(v: &Value) -> Result<(), String> {
    match v {
        Value::String(s) => s.parse::<T>().map(drop),
        other => Err(format!("a {}, not text", other.type_str())),
    }
}

fn check_credential_broker(v: &Value) -> Result<(), String> {
    check_word::<crate::CredentialBroker>(v)
}

fn check_audit_journal(v: &Value) -> Result<(), String> {
    check_word::<crate::AuditJournal>(v)
}

fn check_egress_mode(v: &Value) -> Result<(), String> {
    check_word::<crate::EgressMode>(v)
}

fn check_integrity_mode(v: &Value) -> Result<(), String> {
    check_word::<crate::IntegrityMode>(v)
}

fn check_url(v: &Value) -> Result<(), String> {
    check_string(v)?;
    let s = v.as_str().unwrap_or_default();
    if s.starts_with("https://") || s.starts_with("http://") {
        Ok(())
    } else {
        Err("not an http(s) URL".into())
    }
}

fn check_absolute_path(v: &Value) -> Result<(), String> {
    check_string(v)?;
    if v.as_str().unwrap_or_default().starts_with('/') {
        Ok(())
    } else {
        Err("not an absolute path".into())
    }
}

fn integer(v: &Value) -> Result<i64, String> {
    v.as_integer()
        .ok_or_else(|| format!("a {}, not a whole number", v.type_str()))
}

fn check_positive(v: &Value) -> Result<(), String> {
    match integer(v)? {
        n if n >= 1 => Ok(()),
        _ => Err("below 1".into()),
    }
}

fn check_hook_deadline(v: &Value) -> Result<(), String> {
    match integer(v)? {
        n if (crate::MIN_HOOK_DEADLINE_MS as i64..=crate::MAX_HOOK_DEADLINE_MS as i64)
            .contains(&n) =>
        {
            Ok(())
        }
        _ => Err(format!(
            "outside {}..{} (it is clamped: the answer must come within the CLI's {} ms timeout)",
            crate::MIN_HOOK_DEADLINE_MS,
            crate::MAX_HOOK_DEADLINE_MS,
            crate::CLI_TIMEOUT_MS
        )),
    }
}

fn check_tasks_max(v: &Value) -> Result<(), String> {
    match v {
        Value::String(_) | Value::Integer(_) => parse_tasks(&Raw::from_toml(v)).map(drop),
        other => integer(other).map(drop),
    }
}

fn check_memory_max(v: &Value) -> Result<(), String> {
    match v {
        Value::String(_) | Value::Integer(_) => memory_size(&Raw::from_toml(v)).map(drop),
        other => Err(format!("a {}, not a size", other.type_str())),
    }
}

/// Levenshtein distance over bytes (keys are ASCII; anything else is just far away).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let subst = prev[j] + usize::from(ca != cb);
            cur[j + 1] = subst.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn line_at(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// The line where a top-level `key =` (bare or quoted) is written.
fn line_of_key(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            let l = l.trim_start();
            let rest = l
                .strip_prefix(key)
                .or_else(|| l.strip_prefix(&format!("\"{key}\"")))
                .or_else(|| l.strip_prefix(&format!("'{key}'")));
            rest.is_some_and(|r| r.trim_start().starts_with('='))
        })
        .map(|i| i + 1)
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn short(text: &str) -> String {
    let t = one_line(text);
    match t.char_indices().nth(60) {
        Some((i, _)) => format!("{}...", &t[..i]),
        None => t,
    }
}

/// Text from the file, made safe for one line of a report: control characters escaped.
pub(crate) fn escape(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().collect()
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
#[path = "diagnose_tests.rs"]
mod tests;
