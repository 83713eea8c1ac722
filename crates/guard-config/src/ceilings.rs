//! C5's ceilings, `tasks_max` and `memory_max`: what a value is written as and what it reads as.
//!
//! The one parser of both ceilings, for the config keys (here), their diagnosis ([`crate::diagnose`])
//! and tool-containment's environment overrides. A value is kept as written ([`Raw`]) so the
//! loader never rejects the file over it: tool-containment falls back per key with a notice, and
//! a value under the minimum falls back to the minimum, never to the looser default.

use serde::{Deserialize, Deserializer, Serialize};

/// The default task ceiling.
pub const DEFAULT_TASKS: u64 = 4096;
/// The lowest task ceiling accepted.
pub const MIN_TASKS: u64 = 64;
/// The highest task ceiling accepted (short of `max`).
pub const MAX_TASKS: u64 = 1 << 31;
/// The lowest memory ceiling accepted: 256 MiB.
pub const MIN_MEMORY: u64 = 256 * 1024 * 1024;
/// The reason given for a memory ceiling under [`MIN_MEMORY`].
pub const BELOW_MIN_MEMORY: &str = "below 256 MiB";

/// A ceiling as written: TOML text or integer, or an environment variable's text.
#[derive(Debug, Clone, PartialEq)]
pub enum Raw {
    /// Text (`"max"`, `"512M"`, `"25%"`, `"4096"`).
    Text(String),
    /// A TOML integer.
    Integer(i64),
    /// Any other TOML value, as TOML.
    Other(String),
}

impl Raw {
    /// The raw form of a TOML value.
    pub fn from_toml(v: &toml::Value) -> Raw {
        match v {
            toml::Value::String(s) => Raw::Text(s.clone()),
            toml::Value::Integer(i) => Raw::Integer(*i),
            other => Raw::Other(other.to_string()),
        }
    }

    /// The value as a notice quotes it.
    pub fn text(&self) -> String {
        match self {
            Raw::Text(s) | Raw::Other(s) => s.clone(),
            Raw::Integer(i) => i.to_string(),
        }
    }
}

/// Any TOML value reads as a [`Raw`]: a bad ceiling is the ceiling's problem, not the file's.
impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Raw, D::Error> {
        toml::Value::deserialize(d).map(|v| Raw::from_toml(&v))
    }
}

/// The task ceiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Tasks {
    /// No ceiling.
    Max,
    /// At most this many tasks.
    Limit(u64),
}

/// The memory ceiling, resolved against the host's RAM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Memory {
    /// No ceiling.
    Max,
    /// At most this many bytes.
    Bytes(u64),
}

/// A memory ceiling as written, before the host's RAM is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemorySize {
    /// `max`: no ceiling.
    Max,
    /// `N%` of the host's RAM, 1 to 100.
    Percent(u64),
    /// A size of at least [`MIN_MEMORY`]: bytes, or digits with a binary unit (`K`, `M`, `G`, `T`).
    Bytes(u64),
}

/// Config `tasks_max`, as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(transparent)]
pub struct TasksMax(pub Raw);

/// Config `memory_max`, as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(transparent)]
pub struct MemoryMax(pub Raw);

/// Reads a task ceiling: `max`, or a whole number from [`MIN_TASKS`] to [`MAX_TASKS`].
pub fn parse_tasks(raw: &Raw) -> Result<Tasks, String> {
    let n = match raw {
        Raw::Text(s) if s.trim().eq_ignore_ascii_case("max") => return Ok(Tasks::Max),
        Raw::Text(s) => s
            .trim()
            .parse::<i64>()
            .map_err(|_| "not a number".to_string())?,
        Raw::Integer(i) => *i,
        Raw::Other(_) => return Err("not a number or \"max\"".into()),
    };
    match u64::try_from(n) {
        Ok(n) if (MIN_TASKS..=MAX_TASKS).contains(&n) => Ok(Tasks::Limit(n)),
        _ => Err(format!("outside {MIN_TASKS}..2^31")),
    }
}

/// A task value that is a number (or numeric text) under [`MIN_TASKS`], zero and negatives
/// included: it asked for a tighter bound, so the minimum, not the default, is the safe answer.
pub fn below_min_tasks(raw: &Raw) -> bool {
    match raw {
        Raw::Integer(i) => *i < MIN_TASKS as i64,
        Raw::Text(s) => s.trim().parse::<i64>().is_ok_and(|n| n < MIN_TASKS as i64),
        Raw::Other(_) => false,
    }
}

/// Reads a memory ceiling without the host's RAM; the error is one line.
pub fn memory_size(raw: &Raw) -> Result<MemorySize, String> {
    let bytes = match raw {
        Raw::Integer(i) => u64::try_from(*i).map_err(|_| "negative".to_string())?,
        Raw::Other(_) => return Err("not a size".into()),
        Raw::Text(s) => return memory_text(s),
    };
    at_least_min(bytes)
}

fn at_least_min(bytes: u64) -> Result<MemorySize, String> {
    if bytes < MIN_MEMORY {
        Err(BELOW_MIN_MEMORY.into())
    } else {
        Ok(MemorySize::Bytes(bytes))
    }
}

/// Memory ceiling text (surrounding blanks ignored): `max`, `N%`, or digits and a unit.
fn memory_text(text: &str) -> Result<MemorySize, String> {
    let s = text.trim();
    if s.eq_ignore_ascii_case("max") {
        return Ok(MemorySize::Max);
    }
    if let Some(p) = s.strip_suffix('%') {
        return match p.trim().parse::<u64>() {
            Ok(pct @ 1..=100) => Ok(MemorySize::Percent(pct)),
            _ => Err("not a percentage from 1 to 100".into()),
        };
    }
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, unit) = s.split_at(split);
    let n: u128 = digits.parse().map_err(|_| "not a size".to_string())?;
    let shift = match unit.to_ascii_uppercase().as_str() {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => {
            let unit = crate::diagnose::escape(unit);
            return Err(format!("unknown unit {unit} (use K, M, G or T)"));
        }
    };
    let bytes = u64::try_from(n.saturating_mul(1 << shift)).map_err(|_| "too large".to_string())?;
    at_least_min(bytes)
}

/// Reads a memory ceiling against the host's RAM: a percentage must also come to at least
/// [`MIN_MEMORY`].
pub fn parse_memory(raw: &Raw, ram_bytes: u64) -> Result<Memory, String> {
    match memory_size(raw)? {
        MemorySize::Max => Ok(Memory::Max),
        MemorySize::Bytes(b) => Ok(Memory::Bytes(b)),
        MemorySize::Percent(pct) => {
            let bytes = (u128::from(ram_bytes) * u128::from(pct) / 100) as u64;
            at_least_min(bytes)?;
            Ok(Memory::Bytes(bytes))
        }
    }
}

/// The default memory ceiling: 25% of RAM (never below the 256 MiB floor).
pub fn default_memory(ram_bytes: u64) -> Memory {
    Memory::Bytes((ram_bytes / 4).max(MIN_MEMORY))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    #[test]
    fn memory_forms() {
        let r = |s: &str| parse_memory(&Raw::Text(s.into()), 8 * GIB);
        assert_eq!(r("50%"), Ok(Memory::Bytes(4 * GIB)));
        assert_eq!(r("512m"), Ok(Memory::Bytes(512 << 20)));
        assert_eq!(r("1T"), Ok(Memory::Bytes(1 << 40)));
        assert_eq!(r("max"), Ok(Memory::Max));
        assert_eq!(r("268435456"), Ok(Memory::Bytes(268_435_456)));
        assert_eq!(r("255M"), Err(BELOW_MIN_MEMORY.to_string()));
        assert_eq!(
            r("1%").unwrap_err(),
            BELOW_MIN_MEMORY,
            "a percentage under the floor"
        );
        assert!(r("0%").is_err());
        assert!(r("1.5G").is_err());
        assert_eq!(r("99999999999T"), Err("too large".to_string()));
        assert!(parse_memory(&Raw::Integer(-1), GIB).is_err());
        assert_eq!(
            memory_size(&Raw::Text("50%".into())),
            Ok(MemorySize::Percent(50))
        );
    }

    #[test]
    fn task_bounds() {
        assert_eq!(parse_tasks(&Raw::Integer(64)), Ok(Tasks::Limit(64)));
        assert!(parse_tasks(&Raw::Integer(63)).is_err());
        assert!(parse_tasks(&Raw::Integer(-5)).is_err());
        assert_eq!(
            parse_tasks(&Raw::Integer(1 << 31)),
            Ok(Tasks::Limit(1 << 31))
        );
        assert!(parse_tasks(&Raw::Integer((1 << 31) + 1)).is_err());
        assert!(parse_tasks(&Raw::Other("true".into())).is_err());
        assert_eq!(parse_tasks(&Raw::Text(" MAX ".into())), Ok(Tasks::Max));
        assert!(below_min_tasks(&Raw::Text("-5".into())));
        assert!(!below_min_tasks(&Raw::Text("lots".into())));
    }
}
