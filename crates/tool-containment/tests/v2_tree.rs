//! The cgroup v2 code path against a directory tree that reproduces cgroupfs files.
//!
//! This machine's cgroup2 mount offers only `hugetlb` (v1 holds `pids` and `memory`, and a fresh
//! cgroup2 mount shows the same single hierarchy), so a real v2 hierarchy with those controllers
//! cannot be mounted here. The tree below stands in for it: the probe, the anchor choice, the
//! controller enabling, the ceilings and the move are the production code writing real files;
//! what a tree cannot do (the kernel creating interface files, `cgroup.kill` killing, `rmdir` of a
//! populated-looking directory) is stated in the assertions.
//! Linux only (cgroups); `tests/no_cgroups.rs` covers the other systems.
#![cfg(all(target_os = "linux", not(agent_guards_portable)))]

use std::path::Path;
use std::time::{Duration, Instant};
use tool_containment::c3_groups::enter;
use tool_containment::c4_backends::{choose, probe, Backend};
use tool_containment::c5_ceilings::{Ceilings, Memory, Tasks};
use tool_containment::c7_session_end::stop_session;

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A v2 tree: root, `user.slice` (no processes), `user.slice/app.scope` (holds us).
fn tree(root: &Path) {
    for dir in ["", "user.slice", "user.slice/app.scope"] {
        let d = root.join(dir);
        write(&d.join("cgroup.controllers"), "cpu io memory pids\n");
        write(&d.join("cgroup.subtree_control"), "");
        write(&d.join("cgroup.procs"), "");
    }
    write(&root.join("user.slice/app.scope/cgroup.procs"), "4242\n");
}

fn proc_self(dir: &Path, mount: &Path, own: &str) {
    write(
        &dir.join("mountinfo"),
        &format!(
            "30 25 0:26 / {} rw,nosuid - cgroup2 cgroup2 rw\n22 1 8:1 / / rw - ext4 /dev/sda1 rw\n",
            mount.display()
        ),
    );
    write(&dir.join("cgroup"), &format!("0::{own}\n"));
}

fn v2_backend(tmp: &Path) -> Backend {
    let mount = tmp.join("cgroup");
    tree(&mount);
    proc_self(&tmp.join("self"), &mount, "/user.slice/app.scope");
    let euid = nix::unistd::geteuid().as_raw();
    choose(&probe(&tmp.join("self"), euid, &|_| None))
}

#[test]
fn v2_anchor_is_the_nearest_ancestor_without_processes() {
    let tmp = tempfile::tempdir().unwrap();
    let backend = v2_backend(tmp.path());
    let Backend::V2 { mount, anchor } = &backend else {
        panic!("{backend:?}")
    };
    assert_eq!(mount, &tmp.path().join("cgroup"));
    assert_eq!(anchor, &tmp.path().join("cgroup/user.slice"));
}

#[test]
fn v2_without_pids_and_memory_is_not_used() {
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("cgroup");
    write(&mount.join("cgroup.controllers"), "hugetlb\n");
    write(&mount.join("cgroup.subtree_control"), "");
    write(&mount.join("cgroup.procs"), "1\n");
    proc_self(&tmp.path().join("self"), &mount, "/");
    let facts = probe(&tmp.path().join("self"), 0, &|_| None);
    let why = facts.v2.clone().unwrap_err();
    assert!(why.contains("no pids and memory"), "{why}");
    // And no v1 mounts in this fake mountinfo: nothing usable, and the reasons say why.
    let Backend::None { reasons } = choose(&facts) else {
        panic!()
    };
    assert!(reasons[1].contains("no v1 pids hierarchy"), "{reasons:?}");
}

#[test]
fn v2_enter_enables_controllers_sets_ceilings_and_moves_the_pid() {
    let tmp = tempfile::tempdir().unwrap();
    let backend = v2_backend(tmp.path());
    let anchor = tmp.path().join("cgroup/user.slice");
    let ceilings = Ceilings {
        tasks: Tasks::Limit(128),
        memory: Memory::Bytes(512 << 20),
        notices: vec![],
    };
    let leaf = anchor.join("agent-guards/session-s1/cmd-0-z");
    let dirs = enter(&backend, "session-s1", "cmd-0-z", &ceilings, 777).unwrap();
    assert_eq!(dirs, vec![leaf.clone()]);
    let read = |p: &Path| std::fs::read_to_string(p).unwrap();
    for parent in [
        &anchor,
        &anchor.join("agent-guards"),
        &anchor.join("agent-guards/session-s1"),
    ] {
        assert_eq!(
            read(&parent.join("cgroup.subtree_control")),
            "+pids +memory"
        );
    }
    assert_eq!(read(&leaf.join("pids.max")), "128");
    assert_eq!(read(&leaf.join("memory.max")), (512u64 << 20).to_string());
    assert_eq!(read(&leaf.join("cgroup.procs")), "777");
    assert!(
        !leaf.join("memory.swap.max").exists(),
        "no swap file, nothing written"
    );
    // Where the kernel offers memory.swap.max (made in advance here), swap is turned off.
    let leaf1 = anchor.join("agent-guards/session-s1/cmd-1-a");
    write(&leaf1.join("memory.swap.max"), "max\n");
    enter(&backend, "session-s1", "cmd-1-a", &ceilings, 778).unwrap();
    assert_eq!(read(&leaf1.join("memory.swap.max")), "0");
    // Unlimited ceilings are written as `max`.
    let unlimited = Ceilings {
        tasks: Tasks::Max,
        memory: Memory::Max,
        notices: vec![],
    };
    let leaf2 = anchor.join("agent-guards/session-s1/cmd-2-b");
    enter(&backend, "session-s1", "cmd-2-b", &unlimited, 778).unwrap();
    assert_eq!(read(&leaf2.join("pids.max")), "max");
    assert_eq!(read(&leaf2.join("memory.max")), "max");
}

#[test]
fn v2_session_end_writes_cgroup_kill_then_kills_what_is_listed() {
    let tmp = tempfile::tempdir().unwrap();
    let backend = v2_backend(tmp.path());
    let ceilings = Ceilings {
        tasks: Tasks::Limit(64),
        memory: Memory::Bytes(256 << 20),
        notices: vec![],
    };
    let mut child = std::process::Command::new("sleep")
        .arg("311")
        .spawn()
        .unwrap();
    // spawn() returns before the child has exec'd: wait until /proc shows `sleep 311`, so the
    // report's command line is the sleep's, not the forked test binary's.
    let started = Instant::now();
    while !std::fs::read(format!("/proc/{}/cmdline", child.id()))
        .unwrap_or_default()
        .starts_with(b"sleep\x00311")
    {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "sleep did not start"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    enter(&backend, "session-s2", "cmd-9-c", &ceilings, child.id()).unwrap();
    let leaf = tmp
        .path()
        .join("cgroup/user.slice/agent-guards/session-s2/cmd-9-c");
    write(&leaf.join("cgroup.kill"), "");
    let reaper = std::thread::spawn(move || child.wait().unwrap());
    let report = stop_session(
        &backend,
        "session-s2",
        Instant::now() + Duration::from_secs(3),
    );
    assert_eq!(
        std::fs::read_to_string(leaf.join("cgroup.kill")).unwrap(),
        "1"
    );
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        reaper.join().unwrap().signal(),
        Some(9),
        "the listed process was stopped"
    );
    assert_eq!(report.stopped.len(), 1);
    assert!(report.stopped[0].commands[0]
        .cmdline
        .starts_with("sleep 311"));
    assert!(report.survivors.is_empty());
    // A tree keeps the interface files, so rmdir fails here where cgroupfs would succeed; the
    // failure is reported, never hidden.
    assert!(
        report.failures.iter().any(|f| f.contains("cannot remove")),
        "{:?}",
        report.failures
    );
}
