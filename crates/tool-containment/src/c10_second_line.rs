//! C10: the second line (crate `second-line`) wired into the prefix, SessionEnd and `--report`.
//! The prefix calls [`enter`] for an agent command before it places itself in the command's
//! group, so the supervisor it starts stays outside the group, the mount namespace and the
//! filter. A layer the host cannot offer is reported, never fatal.

/// Sets up the second line for the agent command about to be exec'd; prints what failed.
#[cfg(target_os = "linux")]
pub fn enter() {
    let env = |k: &str| std::env::var(k).ok();
    for n in second_line::enter::enter_agent_command(&env).notices {
        eprintln!("{n}");
    }
}

/// Stops the ended session's supervisors (each also exits once its processes are gone).
#[cfg(target_os = "linux")]
pub fn stop(session_id: &str) -> Vec<u32> {
    let env = |k: &str| std::env::var(k).ok();
    match session_store::state_dir(&env) {
        Ok(dir) => {
            second_line::stop_session(session_store::Session::new(&dir, Some(session_id)).dir())
        }
        Err(_) => Vec::new(),
    }
}

/// The layers for `--report`.
#[cfg(target_os = "linux")]
pub fn report_lines() -> Vec<String> {
    let env = |k: &str| std::env::var(k).ok();
    second_line::layers::report_lines(&second_line::layers::report(&env))
}

#[cfg(not(target_os = "linux"))]
pub fn enter() {}

#[cfg(not(target_os = "linux"))]
pub fn stop(_session_id: &str) -> Vec<u32> {
    Vec::new()
}

#[cfg(not(target_os = "linux"))]
pub fn report_lines() -> Vec<String> {
    vec!["second line: off (Linux only: mount namespaces and seccomp user notification)".into()]
}
