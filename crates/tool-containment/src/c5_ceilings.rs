//! C5: the ceilings are the maintainer's.
//!
//! From `AGENT_CONTAINMENT_TASKS_MAX` / `AGENT_CONTAINMENT_MEMORY_MAX` in the CLI's own environment
//! (the environment the prefix inherits, set before any command text runs), else the config keys
//! `tasks_max` / `memory_max`, else the defaults: 4096 tasks, 25% of RAM. Values are validated
//! (tasks 64..2^31 or `max`; memory at least 256 MiB, `N%`, `N`, `NK/M/G/T`, or `max`); an invalid
//! value falls back to the default with a notice. The command text never reaches this module.

use guard_config::diagnose::{memory_text, MemoryText};

/// The task ceiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Tasks {
    Max,
    Limit(u64),
}

/// The memory ceiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Memory {
    Max,
    Bytes(u64),
}

/// Resolved ceilings and the notices about values that were not used.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Ceilings {
    pub tasks: Tasks,
    pub memory: Memory,
    pub notices: Vec<String>,
}

pub const DEFAULT_TASKS: u64 = 4096;
pub const MIN_TASKS: u64 = 64;
pub const MAX_TASKS: u64 = 1 << 31;
pub const MIN_MEMORY: u64 = 256 * 1024 * 1024;
pub const TASKS_ENV: &str = "AGENT_CONTAINMENT_TASKS_MAX";
pub const MEMORY_ENV: &str = "AGENT_CONTAINMENT_MEMORY_MAX";

/// One raw value and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub enum Raw {
    Text(String),
    Integer(i64),
    Other(String),
}

impl Raw {
    pub fn from_toml(v: &toml::Value) -> Raw {
        match v {
            toml::Value::String(s) => Raw::Text(s.clone()),
            toml::Value::Integer(i) => Raw::Integer(*i),
            other => Raw::Other(other.to_string()),
        }
    }

    fn text(&self) -> String {
        match self {
            Raw::Text(s) | Raw::Other(s) => s.clone(),
            Raw::Integer(i) => i.to_string(),
        }
    }
}

/// Parses a task ceiling.
pub fn parse_tasks(raw: &Raw) -> Result<Tasks, String> {
    let n = match raw {
        Raw::Text(s) if s.trim().eq_ignore_ascii_case("max") => return Ok(Tasks::Max),
        Raw::Text(s) => s
            .trim()
            .parse::<u64>()
            .map_err(|_| "not a number".to_string())?,
        Raw::Integer(i) => u64::try_from(*i).map_err(|_| "negative".to_string())?,
        Raw::Other(_) => return Err("not a number or \"max\"".into()),
    };
    if (MIN_TASKS..=MAX_TASKS).contains(&n) {
        Ok(Tasks::Limit(n))
    } else {
        Err(format!("outside {MIN_TASKS}..2^31"))
    }
}

/// Parses a memory ceiling against the host's RAM.
pub fn parse_memory(raw: &Raw, ram_bytes: u64) -> Result<Memory, String> {
    let bytes = match raw {
        Raw::Integer(i) => u64::try_from(*i).map_err(|_| "negative".to_string())?,
        Raw::Other(_) => return Err("not a size".into()),
        Raw::Text(s) => match memory_text(s)? {
            MemoryText::Max => return Ok(Memory::Max),
            MemoryText::Percent(pct) => (u128::from(ram_bytes) * u128::from(pct) / 100) as u64,
            MemoryText::Bytes(n) => u64::try_from(n).map_err(|_| "too large".to_string())?,
        },
    };
    if bytes < MIN_MEMORY {
        return Err(BELOW_MIN_MEMORY.into());
    }
    Ok(Memory::Bytes(bytes))
}

/// The default memory ceiling: 25% of RAM (never below the 256 MiB floor).
pub fn default_memory(ram_bytes: u64) -> Memory {
    Memory::Bytes((ram_bytes / 4).max(MIN_MEMORY))
}

/// Resolves both ceilings. `env_*` are the CLI's own environment values, `cfg_*` the config keys.
const BELOW_MIN_MEMORY: &str = "below 256 MiB";

/// A task value that is a number (or numeric text) under [`MIN_TASKS`], zero and negatives included.
fn below_min_tasks(raw: &Raw) -> bool {
    match raw {
        Raw::Integer(i) => *i < MIN_TASKS as i64,
        Raw::Text(s) => s.trim().parse::<i64>().is_ok_and(|n| n < MIN_TASKS as i64),
        Raw::Other(_) => false,
    }
}

pub fn resolve(
    env_tasks: Option<&str>,
    env_memory: Option<&str>,
    cfg_tasks: Option<&toml::Value>,
    cfg_memory: Option<&toml::Value>,
    ram_bytes: u64,
) -> Ceilings {
    let mut notices = Vec::new();
    let pick = |env: Option<&str>, cfg: Option<&toml::Value>, env_name: &str, key: &str| match env
        .filter(|v| !v.trim().is_empty())
    {
        Some(v) => Some((Raw::Text(v.to_string()), env_name.to_string())),
        None => cfg.map(|v| (Raw::from_toml(v), format!("config {key}"))),
    };
    let tasks = match pick(env_tasks, cfg_tasks, TASKS_ENV, "tasks_max") {
        None => Tasks::Limit(DEFAULT_TASKS),
        Some((raw, from)) => parse_tasks(&raw).unwrap_or_else(|why| {
            // A value below the minimum asked for a tighter bound: the minimum is the closest
            // safe answer, never the looser default.
            let (use_, said) = if below_min_tasks(&raw) {
                (MIN_TASKS, format!("the minimum {MIN_TASKS}"))
            } else {
                (DEFAULT_TASKS, format!("the default {DEFAULT_TASKS}"))
            };
            notices.push(format!(
                "{}: {from}={:?} is invalid ({why}); using {said} tasks",
                crate::codes::C5_TASKS_INVALID,
                raw.text()
            ));
            Tasks::Limit(use_)
        }),
    };
    let memory = match pick(env_memory, cfg_memory, MEMORY_ENV, "memory_max") {
        None => default_memory(ram_bytes),
        Some((raw, from)) => parse_memory(&raw, ram_bytes).unwrap_or_else(|why| {
            if why == BELOW_MIN_MEMORY {
                notices.push(format!(
                    "{}: {from}={:?} is invalid ({why}); using the minimum 256 MiB",
                    crate::codes::C5_MEMORY_INVALID,
                    raw.text()
                ));
                return Memory::Bytes(MIN_MEMORY);
            }
            notices.push(format!(
                "{}: {from}={:?} is invalid ({why}); using the default 25% of RAM",
                crate::codes::C5_MEMORY_INVALID,
                raw.text()
            ));
            default_memory(ram_bytes)
        }),
    };
    Ceilings {
        tasks,
        memory,
        notices,
    }
}

/// Total RAM of the host, in bytes (0 when unknown).
#[cfg(target_os = "linux")]
pub fn host_ram_bytes() -> u64 {
    // SAFETY: sysinfo fills the struct we pass; zeroed is a valid initial value.
    let mut info: libc::sysinfo = unsafe { std::mem::zeroed() };
    if unsafe { libc::sysinfo(&mut info) } != 0 {
        return 0;
    }
    (info.totalram as u64).saturating_mul(u64::from(info.mem_unit.max(1)))
}

/// Total RAM of the host: not read off Linux, where no ceiling is set (see `no_cgroups`).
#[cfg(not(target_os = "linux"))]
pub fn host_ram_bytes() -> u64 {
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    #[test]
    fn defaults() {
        let c = resolve(None, None, None, None, 16 * GIB);
        assert_eq!(c.tasks, Tasks::Limit(4096));
        assert_eq!(c.memory, Memory::Bytes(4 * GIB));
        assert!(c.notices.is_empty());
    }

    #[test]
    fn env_wins_over_config_and_invalid_falls_back_with_notice() {
        let cfg_t = toml::Value::Integer(128);
        let cfg_m = toml::Value::String("2G".into());
        let c = resolve(Some("max"), None, Some(&cfg_t), Some(&cfg_m), 16 * GIB);
        assert_eq!(c.tasks, Tasks::Max);
        assert_eq!(c.memory, Memory::Bytes(2 * GIB));
        // Too low: the stricter minimum, never the looser default (issue 18).
        let c = resolve(Some("12"), Some("100M"), None, None, 16 * GIB);
        assert_eq!(c.tasks, Tasks::Limit(MIN_TASKS));
        assert_eq!(c.memory, Memory::Bytes(MIN_MEMORY));
        assert_eq!(c.notices.len(), 2, "{:?}", c.notices);
        assert!(c.notices[0].contains(TASKS_ENV));
        assert!(c.notices[0].contains("the minimum 64"));
        let c = resolve(Some("-5"), None, None, None, 16 * GIB);
        assert_eq!(c.tasks, Tasks::Limit(MIN_TASKS));
        // Not a number at all: the default, with the notice.
        let c = resolve(Some("lots"), Some("big"), None, None, 16 * GIB);
        assert_eq!(c.tasks, Tasks::Limit(4096));
        assert_eq!(c.memory, Memory::Bytes(4 * GIB));
    }

    #[test]
    fn memory_forms() {
        let r = |s: &str| parse_memory(&Raw::Text(s.into()), 8 * GIB);
        assert_eq!(r("50%"), Ok(Memory::Bytes(4 * GIB)));
        assert_eq!(r("512m"), Ok(Memory::Bytes(512 << 20)));
        assert_eq!(r("1T"), Ok(Memory::Bytes(1 << 40)));
        assert_eq!(r("max"), Ok(Memory::Max));
        assert_eq!(r("268435456"), Ok(Memory::Bytes(268_435_456)));
        assert!(r("255M").is_err());
        assert!(r("0%").is_err());
        assert!(r("1.5G").is_err());
        assert!(r("99999999999T").is_err());
        assert!(parse_memory(&Raw::Integer(-1), GIB).is_err());
    }

    #[test]
    fn task_bounds() {
        assert_eq!(parse_tasks(&Raw::Integer(64)), Ok(Tasks::Limit(64)));
        assert!(parse_tasks(&Raw::Integer(63)).is_err());
        assert_eq!(
            parse_tasks(&Raw::Integer(1 << 31)),
            Ok(Tasks::Limit(1 << 31))
        );
        assert!(parse_tasks(&Raw::Integer((1 << 31) + 1)).is_err());
        assert!(parse_tasks(&Raw::Other("true".into())).is_err());
    }
}
