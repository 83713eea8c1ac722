//! Which layers this host and user can have, decided without side effects on the hot path and
//! reported by `tool-containment --report`. A missing layer is named with its reason; it never
//! fails a command.
//!
//! Non-root users: a seccomp filter needs `CAP_SYS_ADMIN` or `no_new_privs`, and `no_new_privs`
//! makes `sudo` and every other set-uid program fail for the rest of the command. So for a
//! non-root user the exec gate is off unless the maintainer opts in with
//! `AGENT_GUARDS_SECOND_LINE_NO_NEW_PRIVS=1` in the CLI's environment; the mount layer needs
//! `CAP_SYS_ADMIN` in the initial user namespace (a user namespace would change the uid `sudo`
//! and file ownership see) and is off.

/// Layer names as reported.
pub const MOUNT: &str = "protected files read-only (mount namespace)";
pub const EXEC_GATE: &str = "exec gate (seccomp user notification)";
pub const NETWORK: &str = "network observed at connect (K5, I1)";

/// The maintainer's switch (in the CLI's environment): `off` disables the second line.
pub const SWITCH_ENV: &str = "AGENT_GUARDS_SECOND_LINE";
/// Opt-in for non-root users: accept `no_new_privs` (breaks `sudo` inside agent commands).
pub const NO_NEW_PRIVS_ENV: &str = "AGENT_GUARDS_SECOND_LINE_NO_NEW_PRIVS";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerState {
    pub active: bool,
    pub why: String,
}

impl LayerState {
    pub fn on(why: impl Into<String>) -> LayerState {
        LayerState {
            active: true,
            why: why.into(),
        }
    }
    pub fn off(why: impl Into<String>) -> LayerState {
        LayerState {
            active: false,
            why: why.into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    pub name: &'static str,
    pub state: LayerState,
}

/// What the prefix will try for one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub mount: LayerState,
    pub exec_gate: LayerState,
    /// The filter is installed under `no_new_privs` (non-root opt-in).
    pub needs_no_new_privs: bool,
}

/// The host facts the plan depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts {
    pub euid: u32,
    /// `/proc/sys/kernel/seccomp/actions_avail` (None: unreadable).
    pub seccomp_actions: Option<String>,
    pub switch: Option<String>,
    pub no_new_privs_opt_in: Option<String>,
}

/// Pure: the plan from the facts.
pub fn plan_from(f: &Facts) -> Plan {
    if f.switch.as_deref().map(str::trim) == Some("off") {
        let off = LayerState::off(format!("turned off by the maintainer ({SWITCH_ENV}=off)"));
        return Plan {
            mount: off.clone(),
            exec_gate: off,
            needs_no_new_privs: false,
        };
    }
    let root = f.euid == 0;
    let opt_in = safety_kernel::grant(f.no_new_privs_opt_in.as_deref()).is_granted();
    let mount = if root {
        LayerState::on("root: private mount namespace with read-only bind mounts")
    } else {
        LayerState::off("not root: a mount namespace needs CAP_SYS_ADMIN (see the spec, C10)")
    };
    let notif = f
        .seccomp_actions
        .as_deref()
        .is_some_and(|a| a.split_whitespace().any(|w| w == "user_notif"));
    let exec_gate = if !notif {
        LayerState::off("the kernel offers no seccomp user notification (actions_avail)")
    } else if root {
        LayerState::on("root: filter installed with CAP_SYS_ADMIN (sudo keeps working)")
    } else if opt_in {
        LayerState::on(format!(
            "not root, {NO_NEW_PRIVS_ENV}=1: no_new_privs set (sudo fails inside agent commands)"
        ))
    } else {
        LayerState::off(format!(
            "not root: the filter would need no_new_privs, which breaks sudo; opt in with {NO_NEW_PRIVS_ENV}=1"
        ))
    };
    Plan {
        mount,
        needs_no_new_privs: exec_gate.active && !root,
        exec_gate,
    }
}

/// The plan of this process.
pub fn plan(env: &dyn Fn(&str) -> Option<String>) -> Plan {
    plan_from(&Facts {
        // SAFETY: geteuid cannot fail.
        euid: unsafe { libc::geteuid() },
        seccomp_actions: std::fs::read_to_string("/proc/sys/kernel/seccomp/actions_avail").ok(),
        switch: env(SWITCH_ENV),
        no_new_privs_opt_in: env(NO_NEW_PRIVS_ENV),
    })
}

/// The report: the plan, with the mount layer tried for real in a throw-away child.
pub fn report(env: &dyn Fn(&str) -> Option<String>) -> Vec<Layer> {
    let mut p = plan(env);
    let network = match p.exec_gate.active {
        true => LayerState::on("with the exec gate: non-local connects recorded (taint, I1 evidence); refused outside network_allow in enforce mode"),
        false => LayerState::off("needs the exec gate's notifier"),
    };
    if p.mount.active {
        if let Err(e) = try_unshare() {
            p.mount = LayerState::off(e);
        }
    }
    vec![
        Layer {
            name: MOUNT,
            state: p.mount,
        },
        Layer {
            name: EXEC_GATE,
            state: p.exec_gate,
        },
        Layer {
            name: NETWORK,
            state: network,
        },
    ]
}

/// Lines for `--report`.
pub fn report_lines(layers: &[Layer]) -> Vec<String> {
    layers
        .iter()
        .map(|l| {
            let state = if l.state.active { "active" } else { "off" };
            format!("second line: {}: {state} ({})", l.name, l.state.why)
        })
        .collect()
}

fn try_unshare() -> Result<(), String> {
    // SAFETY: the child only calls unshare and exits.
    match unsafe { libc::fork() } {
        -1 => Err("fork failed".into()),
        0 => {
            // SAFETY: as above.
            let r = unsafe { libc::unshare(libc::CLONE_NEWNS) };
            unsafe { libc::_exit(if r == 0 { 0 } else { 1 }) }
        }
        child => {
            let mut status = 0;
            // SAFETY: reaping our own child.
            unsafe { libc::waitpid(child, &mut status, 0) };
            if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
                Ok(())
            } else {
                Err("unshare(CLONE_NEWNS) is refused here".into())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(euid: u32, actions: &str) -> Facts {
        Facts {
            euid,
            seccomp_actions: Some(actions.into()),
            switch: None,
            no_new_privs_opt_in: None,
        }
    }

    #[test]
    fn root_gets_both_layers_and_a_non_root_user_keeps_sudo_unless_opting_in() {
        let all = "kill_process kill_thread trap errno user_notif trace log allow";
        let p = plan_from(&facts(0, all));
        assert!(p.mount.active && p.exec_gate.active && !p.needs_no_new_privs);
        let p = plan_from(&facts(1000, all));
        assert!(!p.mount.active && !p.exec_gate.active);
        assert!(p.exec_gate.why.contains("sudo"));
        let mut f = facts(1000, all);
        f.no_new_privs_opt_in = Some("1".into());
        let p = plan_from(&f);
        assert!(p.exec_gate.active && p.needs_no_new_privs && !p.mount.active);
        // No user_notif: no gate, the mount layer stays.
        let p = plan_from(&facts(0, "kill_process errno allow"));
        assert!(p.mount.active && !p.exec_gate.active);
        let mut f = facts(0, all);
        f.switch = Some("off".into());
        let p = plan_from(&f);
        assert!(!p.mount.active && !p.exec_gate.active);
    }
}
