//! C5: the ceilings are the maintainer's.
//!
//! From `AGENT_CONTAINMENT_TASKS_MAX` / `AGENT_CONTAINMENT_MEMORY_MAX` in the CLI's own environment
//! (the environment the prefix inherits, set before any command text runs), else the config keys
//! `tasks_max` / `memory_max`, else the defaults: 4096 tasks, 25% of RAM. Values are validated
//! (tasks 64..2^31 or `max`; memory at least 256 MiB, `N%`, `N`, `NK/M/G/T`, or `max`); an invalid
//! value falls back to the default with a notice. The values are read by guard-config's
//! `ceilings`, the one parser of both; this module picks the source. The command text never
//! reaches this module.

use guard_config::ceilings::{
    below_min_tasks, default_memory, parse_memory, parse_tasks, Raw, BELOW_MIN_MEMORY,
    DEFAULT_TASKS, MIN_MEMORY, MIN_TASKS,
};
pub use guard_config::ceilings::{Memory, Tasks};
use guard_config::{MemoryMax, TasksMax};

/// Resolved ceilings and the notices about values that were not used.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Ceilings {
    pub tasks: Tasks,
    pub memory: Memory,
    pub notices: Vec<String>,
}

pub const TASKS_ENV: &str = "AGENT_CONTAINMENT_TASKS_MAX";
pub const MEMORY_ENV: &str = "AGENT_CONTAINMENT_MEMORY_MAX";

/// Resolves both ceilings. `env_*` are the CLI's own environment values, `cfg_*` the config keys.
pub fn resolve(
    env_tasks: Option<&str>,
    env_memory: Option<&str>,
    cfg_tasks: Option<&TasksMax>,
    cfg_memory: Option<&MemoryMax>,
    ram_bytes: u64,
) -> Ceilings {
    let mut notices = Vec::new();
    let pick = |env: Option<&str>, cfg: Option<&Raw>, env_name: &str, key: &str| match env
        .filter(|v| !v.trim().is_empty())
    {
        Some(v) => Some((Raw::Text(v.to_string()), env_name.to_string())),
        None => cfg.map(|v| (v.clone(), format!("config {key}"))),
    };
    let cfg_tasks = cfg_tasks.map(|c| &c.0);
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
    let memory = match pick(
        env_memory,
        cfg_memory.map(|c| &c.0),
        MEMORY_ENV,
        "memory_max",
    ) {
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
        let cfg_t = TasksMax(Raw::Integer(128));
        let cfg_m = MemoryMax(Raw::Text("2G".into()));
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
}
