//! stray-process-sweep: at SessionEnd, finds the processes that outlived the Claude Code session
//! and reports them (requirements S1–S5). It never sends a signal.
//!
//! [`s1_discovery`] and [`s2_report`] are pure over a process table; [`sweep`] reads the real one;
//! [`s3_delivery`] stores the JSON copy and repeats an unread report at the next SessionStart;
//! [`s4_limits`] says what the sweep could not see; [`hook`] wires the two events.

pub mod codes;
pub mod hook;
pub mod s1_discovery;
pub mod s2_report;
pub mod s3_delivery;
pub mod s4_limits;
pub mod selftest;
pub mod sweep;
