//! tool-containment: every agent command in its own cgroup with a task and a memory ceiling
//! (requirements C1–C9), and a SessionEnd mode that stops what the session left running.
//!
//! One module per requirement; [`modes`] wires them into the binary's modes, [`selftest`]
//! replays the fixtures under `fixtures/tool-containment/`. Off Linux (or built with
//! `--cfg agent_guards_portable`) the binary's modes are [`no_cgroups`]'s instead.

pub mod c10_second_line;
pub mod c1_invocation;
pub mod c2_agent_commands;
pub mod c3_groups;
pub mod c4_backends;
pub mod c5_ceilings;
pub mod c6_notice;
pub mod c7_report;
pub mod c7_session_end;
pub mod c7_verify;
pub mod codes;
pub mod modes;
pub mod no_cgroups;
pub mod selftest;
