//! Registrations of commands Claude Code runs outside containment (issue 41 item 7,
//! I3.registration): a project's `.mcp.json` (existing: read-only mount; new: refused by the
//! notifier) and the plugins under `~/.claude/plugins`, through the real second line, as root
//! and as uid 65534. The look-alikes work: a `mcp.json` in the project, and the CLI's own state
//! file `~/.claude.json`, which nested launches rewrite (the first line judges it).

mod common;
use common::*;

/// Each write, then its status, as `<name> <status>`.
fn script(w: &World) -> String {
    let (p, h) = (w.project(), w.home());
    format!(
        "echo '{{\"mcpServers\":{{\"x\":{{\"command\":\"sh\"}}}}}}' > {p}/.mcp.json; echo existing $?; \
         mkdir -p {p}/sub && echo '{{}}' > {p}/sub/.mcp.json; echo new $?; \
         mkdir -p {h}/.claude/plugins/evil/hooks; echo plugin-dir $?; \
         echo '{{}}' > {h}/.claude/plugins/known/hooks.json; echo plugin-file $?; \
         mv {h}/.claude/plugins {h}/plugins-away; echo plugin-move $?; \
         echo '{{}}' > {p}/src/mcp.json; echo look-alike $?; \
         echo '{{\"numStartups\":2}}' > {h}/.claude.json; echo cli-state $?",
        p = p.display(),
        h = h.display()
    )
}

fn prepare(w: &World) {
    std::fs::write(w.project().join(".mcp.json"), "{}").unwrap();
    std::fs::create_dir_all(w.home().join(".claude/plugins/known")).unwrap();
    std::fs::write(w.home().join(".claude/plugins/known/hooks.json"), "{}").unwrap();
    std::fs::write(w.home().join(".claude.json"), "{}").unwrap();
}

fn check(w: &World, out: &str) {
    for refused in [
        "existing",
        "new",
        "plugin-dir",
        "plugin-file",
        "plugin-move",
    ] {
        assert!(
            out.lines()
                .any(|l| l.starts_with(refused) && !l.ends_with(" 0")),
            "{refused} refused:\n{out}"
        );
    }
    for works in ["look-alike 0", "cli-state 0"] {
        assert!(out.contains(works), "{works}:\n{out}");
    }
    assert!(
        out.contains("I3.registration"),
        "the line names the code:\n{out}"
    );
    assert_eq!(
        std::fs::read_to_string(w.project().join(".mcp.json")).unwrap(),
        "{}"
    );
    assert!(!w.project().join("sub/.mcp.json").exists());
    assert!(w.home().join(".claude/plugins/known/hooks.json").exists());
    let records = w.wait_record(|r| r["code"] == "I3.registration");
    assert!(
        records.iter().any(|r| r["code"] == "I3.registration"),
        "{records:?}"
    );
}

#[test]
fn as_root_mcp_servers_and_plugins_are_read_only_and_look_alikes_work() {
    let Some(w) = root_world("registrations-root") else {
        return;
    };
    prepare(&w);
    let out = w.ran("bash", &["-c", &script(&w)]);
    check(&w, &format!("{}\n{}", out.stdout, out.stderr));
}

#[test]
fn as_a_non_root_user_mcp_servers_and_plugins_are_read_only() {
    let Some(_) = root_world("registrations-nobody (root to become uid 65534)") else {
        return;
    };
    let w = nobodys_world("registrations-nobody");
    prepare(&w);
    let _ = std::process::Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(w.dir.path())
        .status();
    let out = as_nobody(&w, true, &script(&w));
    check(&w, &out);
}
