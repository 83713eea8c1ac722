//! Real inotify on real files in temp folders: what touches a set and what does not.

use super::*;
use std::fs;

/// Events with sets watched (each `(id, path, how)`), all checked and quiet.
fn watching(sets: &[(u64, &Path, Watch)]) -> Events {
    let mut e = Events::new().expect("inotify");
    for (id, path, how) in sets {
        assert!(e.watch(*id, path, *how), "{}", path.display());
        e.checked(*id);
    }
    e.drain();
    for (id, ..) in sets {
        assert!(e.is_quiet(*id));
    }
    e
}

fn quiet_after_drain(e: &mut Events, id: u64) -> bool {
    e.drain();
    e.is_quiet(id)
}

#[test]
fn a_write_touches_the_file_s_set_and_an_unrelated_entry_touches_none() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    fs::write(&a, "1").unwrap();
    fs::write(&b, "1").unwrap();
    let mut e = watching(&[(1, &a, Watch::Contents), (2, &b, Watch::Contents)]);
    fs::write(d.path().join("unrelated"), "x").unwrap();
    assert!(quiet_after_drain(&mut e, 1) && quiet_after_drain(&mut e, 2));
    fs::write(&a, "2").unwrap();
    e.drain();
    assert!(!e.is_quiet(1), "written");
    assert!(e.is_quiet(2), "another file's write");
    // Checked again: quiet until the next change (a mode change counts).
    e.checked(1);
    assert!(quiet_after_drain(&mut e, 1));
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&a, fs::Permissions::from_mode(0o600)).unwrap();
    assert!(!quiet_after_drain(&mut e, 1), "chmod");
}

#[test]
fn a_file_replaced_by_a_rename_or_a_folder_renamed_on_the_way_touches_the_set() {
    let d = tempfile::tempdir().unwrap();
    let x = d.path().join("x");
    fs::create_dir(&x).unwrap();
    let config = x.join("config");
    fs::write(&config, "a").unwrap();
    let mut e = watching(&[(1, &config, Watch::Contents)]);
    // git's way: write config.lock, rename it over config.
    fs::write(x.join("config.lock"), "b").unwrap();
    assert!(quiet_after_drain(&mut e, 1), "the lock file alone");
    fs::rename(x.join("config.lock"), &config).unwrap();
    assert!(!quiet_after_drain(&mut e, 1), "replaced");
    e.checked(1);
    // The folder on the way moved and another put in its place.
    fs::rename(&x, d.path().join("y")).unwrap();
    fs::create_dir(&x).unwrap();
    fs::write(&config, "c").unwrap();
    assert!(!quiet_after_drain(&mut e, 1), "a folder on the way renamed");
}

#[test]
fn an_exists_path_counts_only_going_and_an_absent_path_its_coming() {
    let d = tempfile::tempdir().unwrap();
    let head = d.path().join("HEAD");
    fs::write(&head, "ref: refs/heads/main\n").unwrap();
    let absent = d.path().join("sub/config.worktree");
    let mut e = watching(&[(1, &head, Watch::Exists), (2, &absent, Watch::Contents)]);
    // A checkout rewrites HEAD through HEAD.lock: it still exists.
    fs::write(d.path().join("HEAD.lock"), "ref: refs/heads/x\n").unwrap();
    fs::rename(d.path().join("HEAD.lock"), &head).unwrap();
    assert!(quiet_after_drain(&mut e, 1), "rewritten");
    fs::remove_file(&head).unwrap();
    assert!(!quiet_after_drain(&mut e, 1), "removed");
    assert!(e.is_quiet(2));
    // The absent path's first missing folder appears.
    fs::create_dir(d.path().join("sub")).unwrap();
    assert!(!quiet_after_drain(&mut e, 2), "a folder on the way created");
}

#[test]
fn a_contents_folder_counts_its_entries_an_identity_folder_only_itself() {
    let d = tempfile::tempdir().unwrap();
    let (git, work) = (d.path().join("git"), d.path().join("work"));
    fs::create_dir(&git).unwrap();
    fs::create_dir(&work).unwrap();
    let mut e = watching(&[(1, &git, Watch::Identity), (2, &work, Watch::Contents)]);
    fs::write(git.join("index.lock"), "x").unwrap();
    fs::remove_file(git.join("index.lock")).unwrap();
    assert!(
        quiet_after_drain(&mut e, 1),
        "entries of an identity folder"
    );
    fs::write(work.join(".git"), "gitdir: elsewhere\n").unwrap();
    assert!(
        !quiet_after_drain(&mut e, 2),
        "an entry of a contents folder"
    );
    assert!(e.is_quiet(1));
    fs::rename(&git, d.path().join("git2")).unwrap();
    assert!(!quiet_after_drain(&mut e, 1), "the identity folder moved");
}

#[test]
fn a_link_on_the_way_is_not_watched_and_a_forgotten_set_is_not_quiet() {
    let d = tempfile::tempdir().unwrap();
    let x = d.path().join("x");
    fs::create_dir(&x).unwrap();
    fs::write(x.join("config"), "a").unwrap();
    std::os::unix::fs::symlink(&x, d.path().join("link")).unwrap();
    let mut e = Events::new().unwrap();
    assert!(!e.watch(1, &d.path().join("link/config"), Watch::Contents));
    assert!(!e.watch(1, &d.path().join("link"), Watch::Identity));
    assert!(e.watch(2, &x.join("config"), Watch::Contents));
    e.checked(2);
    e.forget(2);
    e.drain();
    assert!(!e.is_quiet(2));
    // Its interests went with it: a write touches nothing and the queue reads fine.
    fs::write(x.join("config"), "b").unwrap();
    e.checked(3);
    assert!(quiet_after_drain(&mut e, 3));
}

#[test]
fn events_are_read_from_the_kernel_s_layout() {
    let head = std::mem::size_of::<libc::inotify_event>();
    let mut buf = Vec::new();
    for (wd, mask, name) in [(3i32, IN_CREATE, &b"config"[..]), (-1, IN_Q_OVERFLOW, b"")] {
        let len = if name.is_empty() { 0 } else { 16 };
        buf.extend(wd.to_ne_bytes());
        buf.extend(mask.to_ne_bytes());
        buf.extend(0u32.to_ne_bytes());
        buf.extend((len as u32).to_ne_bytes());
        let mut padded = name.to_vec();
        padded.resize(len, 0);
        buf.extend(padded);
    }
    assert_eq!(buf.len(), 2 * head + 16);
    let got: Vec<_> = linux::events(&buf).collect();
    assert_eq!(
        got,
        vec![
            (3, IN_CREATE, &b"config"[..]),
            (-1, IN_Q_OVERFLOW, &b""[..])
        ]
    );
    // Which sets an event touches.
    let mut interests = Interests::new();
    interests.insert(
        3,
        vec![
            Interest {
                id: 1,
                name: Some("config".into()),
                mask: ENTRY_EVENTS,
            },
            Interest {
                id: 2,
                name: None,
                mask: GONE,
            },
            Interest {
                id: 4,
                name: None,
                mask: ENTRY_EVENTS | IN_ATTRIB,
            },
        ],
    );
    assert_eq!(
        touched_by(&interests, 3, IN_MOVED_TO, b"config"),
        vec![1, 4]
    );
    assert_eq!(touched_by(&interests, 3, IN_CREATE, b"index.lock"), vec![4]);
    assert_eq!(
        touched_by(&interests, 3, IN_ATTRIB, b"child"),
        Vec::<u64>::new()
    );
    assert_eq!(touched_by(&interests, 3, IN_ATTRIB, b""), vec![4]);
    assert_eq!(touched_by(&interests, 3, IN_MOVE_SELF, b""), vec![2]);
    assert_eq!(
        touched_by(&interests, 9, IN_CREATE, b"config"),
        Vec::<u64>::new()
    );
}
