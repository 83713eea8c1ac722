//! I3 inside agent commands, for real: a script writes each protected file through ordinary
//! file calls; each write fails with EROFS, the file is unchanged, the command's stderr gets one
//! line naming I3 and the session's audit log one record with path, time and system call.
//! Look-alikes (other JSON in `.claude`, the project's own files) are written normally.

mod common;
use common::*;

const WRITER: &str = r#"
import errno, os, sys
for p in sys.argv[1:]:
    try:
        with open(p, "w") as f:
            f.write("tampered")
        print("wrote", p)
    except OSError as e:
        print("refused", p, errno.errorcode[e.errno])
"#;

#[test]
fn each_protected_file_is_read_only_with_an_i3_line_and_record() {
    let Some(w) = root_world("i3") else {
        return;
    };
    let home = w.home();
    let project = w.project();
    let protected = [
        home.join(".claude/settings.json"),
        project.join(".claude/settings.json"),
        // Does not exist yet: no mount point, the notifier refuses creating it.
        project.join(".claude/settings.local.json"),
        home.join(".config/agent-guards/config.toml"),
        home.join(".local/share/agent-guards/bin/gh-write-guard"),
        w.session_dir().join("ledger.json"),
    ];
    let allowed = [
        project.join(".claude/notes.json"),
        project.join("src/main.py"),
    ];
    let before: Vec<Option<String>> = protected
        .iter()
        .map(|p| std::fs::read_to_string(p).ok())
        .collect();
    let mut args: Vec<String> = vec!["-c".into(), WRITER.into()];
    args.extend(
        protected
            .iter()
            .chain(&allowed)
            .map(|p| p.display().to_string()),
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = w.ran("python3", &args);
    assert!(out.status.success(), "{}\n{}", out.stdout, out.stderr);
    for (p, was) in protected.iter().zip(&before) {
        out.prints(&[&format!("refused {} EROFS", p.display())]);
        assert_eq!(
            &std::fs::read_to_string(p).ok(),
            was,
            "{} unchanged",
            p.display()
        );
        let line = format!("agent-guards: refused writing {} (I3.", p.display());
        assert_eq!(out.said(&line), 1, "one line for {}", p.display());
    }
    for p in &allowed {
        out.prints(&[&format!("wrote {}", p.display())]);
        assert_eq!(std::fs::read_to_string(p).unwrap(), "tampered");
    }
    let last = protected.last().unwrap().display().to_string();
    let records = w.wait_record(|r| r["path"] == last.as_str());
    for p in &protected {
        let r = records
            .iter()
            .find(|r| r["path"] == p.display().to_string().as_str())
            .unwrap_or_else(|| panic!("a record for {}: {records:?}", p.display()));
        assert_eq!(r["requirement"], "I3");
        assert_eq!(r["syscall"], "openat");
        assert!(
            r["time"].as_str().is_some_and(|t| t.starts_with("20")),
            "{r}"
        );
        assert_eq!(r["program"], "python3");
    }
    assert!(!records.iter().any(|r| r["path"]
        .as_str()
        .is_some_and(|p| p.ends_with("notes.json"))));
}

#[test]
fn removing_renaming_and_shell_redirections_are_refused_too() {
    let Some(w) = root_world("i3-shell") else {
        return;
    };
    let settings = w.home().join(".claude/settings.json");
    let before = std::fs::read_to_string(&settings).unwrap();
    let script = format!(
        "rm -f {s}; mv {s} /tmp/moved-$$; echo x >> {s}; : > .claude/settings.local.json; echo done",
        s = settings.display()
    );
    let out = w.ran("bash", &["-c", &script]);
    assert_eq!(out.stdout.trim(), "done");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), before);
    assert!(!w.project().join(".claude/settings.local.json").exists());
    assert_eq!(out.said("(I3.settings: "), 4, "{}", out.stderr);
    let records = w.wait_record(|r| {
        r["syscall"] == "openat" && r["path_as_given"] == ".claude/settings.local.json"
    });
    let calls: Vec<&str> = records
        .iter()
        .filter_map(|r| r["syscall"].as_str())
        .collect();
    assert!(calls.contains(&"unlinkat"), "{calls:?}");
    assert!(
        calls.contains(&"renameat2") || calls.contains(&"rename"),
        "{calls:?}"
    );
}

#[test]
fn hooks_outside_the_prefix_still_write_the_state_dir() {
    let Some(w) = root_world("i3-outside") else {
        return;
    };
    assert!(w.run("true", &[]).status.success());
    // The namespace is the command's own: the host (where hooks run) still writes.
    let f = w.home().join(".claude/settings.json");
    std::fs::write(&f, "{\"hooks\":{\"x\":1}}").unwrap();
    assert!(std::fs::read_to_string(&f).unwrap().contains("\"x\""));
}
