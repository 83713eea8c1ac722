//! Which layers this host and user can have, decided without side effects on the hot path and
//! reported by `tool-containment --report`. A missing layer is named with its reason; it never
//! fails a command.
//!
//! Non-root users: the mounts and the filter go into a user namespace that maps the user onto
//! itself (`user_namespace`, C10.namespace): the mounts need `CAP_SYS_ADMIN` over the mount
//! namespace and the filter needs it (or `no_new_privs`), and the user namespace gives both
//! without `no_new_privs`. Inside it set-uid programs (`sudo`) gain nothing, so the maintainer
//! can keep them with `AGENT_GUARDS_SECOND_LINE_USER_NAMESPACE=off`: then, as before, no mount
//! layer, and the gate only with the `no_new_privs` opt-in
//! (`AGENT_GUARDS_SECOND_LINE_NO_NEW_PRIVS=1`), which is also the gate's way when the kernel
//! refuses the user namespace.

/// Layer names as reported.
pub const MOUNT: &str = "protected files read-only (mount namespace)";
pub const EXEC_GATE: &str = "exec gate (seccomp user notification)";
pub const NETWORK: &str = "network observed at connect (K5, I1)";

/// The maintainer's switch (in the CLI's environment): `off` disables the second line.
pub const SWITCH_ENV: &str = "AGENT_GUARDS_SECOND_LINE";
/// Opt-in for non-root users: accept `no_new_privs` (breaks `sudo` inside agent commands).
pub const NO_NEW_PRIVS_ENV: &str = "AGENT_GUARDS_SECOND_LINE_NO_NEW_PRIVS";
use crate::user_namespace::{C10_NAMESPACE, USER_NAMESPACE_ENV};

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
    /// Non-root: the mounts and the filter go into a user namespace of the user's own.
    pub user_namespace: bool,
    /// Non-root: the maintainer accepts `no_new_privs` (the gate's way without the namespace).
    pub no_new_privs_opt_in: bool,
}

/// The host facts the plan depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts {
    pub euid: u32,
    /// `/proc/sys/kernel/seccomp/actions_avail` (None: unreadable).
    pub seccomp_actions: Option<String>,
    pub switch: Option<String>,
    pub no_new_privs_opt_in: Option<String>,
    /// `AGENT_GUARDS_SECOND_LINE_USER_NAMESPACE` (`off`: no user namespace, sudo kept).
    pub user_namespace_switch: Option<String>,
}

/// Pure: the plan from the facts.
pub fn plan_from(f: &Facts) -> Plan {
    if f.switch.as_deref().map(str::trim) == Some("off") {
        let off = LayerState::off(format!("turned off by the maintainer ({SWITCH_ENV}=off)"));
        return Plan {
            mount: off.clone(),
            exec_gate: off,
            needs_no_new_privs: false,
            user_namespace: false,
            no_new_privs_opt_in: false,
        };
    }
    let root = f.euid == 0;
    let opt_in = safety_kernel::grant(f.no_new_privs_opt_in.as_deref()).is_granted();
    let user_namespace = !root && f.user_namespace_switch.as_deref().map(str::trim) != Some("off");
    let mount = if root {
        LayerState::on("root: private mount namespace with read-only bind mounts")
    } else if user_namespace {
        LayerState::on(format!(
            "not root: a user namespace mapping the user onto itself, read-only bind mounts, \
             every capability dropped (sudo and other set-uid programs gain nothing inside; \
             {USER_NAMESPACE_ENV}=off keeps them)"
        ))
    } else {
        LayerState::off(format!(
            "not root, {USER_NAMESPACE_ENV}=off: no user namespace, so no read-only mounts"
        ))
    };
    let notif = f
        .seccomp_actions
        .as_deref()
        .is_some_and(|a| a.split_whitespace().any(|w| w == "user_notif"));
    let exec_gate = if !notif {
        LayerState::off("the kernel offers no seccomp user notification (actions_avail)")
    } else if root {
        LayerState::on("root: filter installed with CAP_SYS_ADMIN (sudo keeps working)")
    } else if user_namespace {
        LayerState::on("not root: filter installed inside the user namespace (no no_new_privs)")
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
        needs_no_new_privs: exec_gate.active && !root && !user_namespace,
        exec_gate,
        user_namespace,
        no_new_privs_opt_in: opt_in,
    }
}

/// Pure: the plan once the kernel refused the user namespace (`why`): no mount layer, and the
/// gate only under the `no_new_privs` opt-in.
pub fn without_user_namespace(p: &Plan, why: &str) -> Plan {
    let exec_gate = match (p.exec_gate.active, p.no_new_privs_opt_in) {
        (true, true) => LayerState::on(format!(
            "not root, no user namespace, {NO_NEW_PRIVS_ENV}=1: no_new_privs set (sudo fails inside agent commands)"
        )),
        (true, false) => LayerState::off(format!(
            "not root and no user namespace ({C10_NAMESPACE}): the filter would need no_new_privs; opt in with {NO_NEW_PRIVS_ENV}=1"
        )),
        (false, _) => p.exec_gate.clone(),
    };
    Plan {
        mount: LayerState::off(format!("{C10_NAMESPACE}: {why}")),
        needs_no_new_privs: exec_gate.active,
        exec_gate,
        user_namespace: false,
        no_new_privs_opt_in: p.no_new_privs_opt_in,
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
        user_namespace_switch: env(USER_NAMESPACE_ENV),
    })
}

/// The report: the plan, with the mount layer tried for real in a throw-away child.
pub fn report(env: &dyn Fn(&str) -> Option<String>) -> Vec<Layer> {
    let mut p = plan(env);
    let network = match p.exec_gate.active {
        true => LayerState::on("with the exec gate: non-local connects recorded (taint, I1 evidence); refused outside network_allow in enforce mode"),
        false => LayerState::off("needs the exec gate's notifier"),
    };
    if p.user_namespace {
        if try_in_child(|| {
            // SAFETY: getuid/getgid cannot fail.
            let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
            crate::user_namespace::enter(uid, gid).is_ok()
        })
        .is_err()
        {
            let why = crate::user_namespace::why_refused(&crate::user_namespace::Switches::read());
            p = without_user_namespace(&p, &why);
        }
    } else if p.mount.active
        && try_in_child(|| {
            // SAFETY: plain unshare in the throw-away child.
            unsafe { libc::unshare(libc::CLONE_NEWNS) == 0 }
        })
        .is_err()
    {
        p.mount = LayerState::off("unshare(CLONE_NEWNS) is refused here");
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

/// Runs `attempt` in a throw-away child (namespaces it enters die with it).
fn try_in_child(attempt: impl FnOnce() -> bool) -> Result<(), ()> {
    // SAFETY: the child only makes the attempt and exits.
    match unsafe { libc::fork() } {
        -1 => Err(()),
        0 => {
            let ok = attempt();
            // SAFETY: leaving the child without running destructors.
            unsafe { libc::_exit(if ok { 0 } else { 1 }) }
        }
        child => {
            let mut status = 0;
            // SAFETY: reaping our own child.
            unsafe { libc::waitpid(child, &mut status, 0) };
            if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
                Ok(())
            } else {
                Err(())
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
            user_namespace_switch: None,
        }
    }

    #[test]
    fn root_gets_both_layers_and_a_non_root_user_gets_them_in_a_user_namespace() {
        let all = "kill_process kill_thread trap errno user_notif trace log allow";
        let p = plan_from(&facts(0, all));
        assert!(p.mount.active && p.exec_gate.active && !p.needs_no_new_privs);
        assert!(!p.user_namespace);
        // Non-root: both layers, in a user namespace, no no_new_privs.
        let p = plan_from(&facts(1000, all));
        assert!(p.mount.active && p.exec_gate.active && p.user_namespace);
        assert!(!p.needs_no_new_privs && p.mount.why.contains(USER_NAMESPACE_ENV));
        // The kernel refuses the namespace: no mounts, the gate only with the opt-in.
        let refused = without_user_namespace(&p, "sysctl says no");
        assert!(!refused.mount.active && refused.mount.why.starts_with(C10_NAMESPACE));
        assert!(!refused.exec_gate.active && refused.exec_gate.why.contains(NO_NEW_PRIVS_ENV));
        let mut f = facts(1000, all);
        f.no_new_privs_opt_in = Some("1".into());
        let refused = without_user_namespace(&plan_from(&f), "sysctl says no");
        assert!(refused.exec_gate.active && refused.needs_no_new_privs);
        // The maintainer keeps sudo: the plan before the user namespace.
        let mut f = facts(1000, all);
        f.user_namespace_switch = Some("off".into());
        let p = plan_from(&f);
        assert!(!p.mount.active && !p.exec_gate.active && !p.user_namespace);
        assert!(p.exec_gate.why.contains("sudo"));
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
