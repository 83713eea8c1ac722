//! Registrations of commands Claude Code runs outside containment (issue 41 item 7,
//! I3.registration): a project's `.mcp.json` (existing: read-only mount; new, beside a
//! `.claude` folder the session reads: refused by the notifier) and the plugins under
//! `~/.claude/plugins`, through the real second line, as root and as uid 65534. The look-alikes
//! work: a `mcp.json` in the project, a `.mcp.json` in another folder (a clone's), and the CLI's
//! own state file `~/.claude.json`, which nested launches rewrite (the first line judges it).

mod common;
use common::*;

/// Each write, then its status, as `<name> <status>`.
fn script(w: &World) -> String {
    let (p, h) = (w.project(), w.home());
    format!(
        "echo '{{\"mcpServers\":{{\"x\":{{\"command\":\"sh\"}}}}}}' > {p}/.mcp.json; echo existing $?; \
         echo '{{}}' > {p}/../.mcp.json; echo new $?; \
         mkdir -p {p}/sub && echo '{{}}' > {p}/sub/.mcp.json; echo other-folder $?; \
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
    for works in ["look-alike 0", "cli-state 0", "other-folder 0"] {
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
    assert!(!w.project().join("../.mcp.json").exists());
    assert!(w.home().join(".claude/plugins/known/hooks.json").exists());
    let records = w.wait_record(|r| r["code"] == "I3.registration");
    assert!(
        records.iter().any(|r| r["code"] == "I3.registration"),
        "{records:?}"
    );
}

#[test]
fn as_root_mcp_servers_and_plugins_are_read_only_and_look_alikes_work() {
    if let Some((w, out)) = gated_script("registrations-root", RunAs::Root, prepare, script) {
        check(&w, &out);
    }
}

#[test]
fn as_a_non_root_user_mcp_servers_and_plugins_are_read_only() {
    if let Some((w, out)) = gated_script("registrations-nobody", RunAs::Nobody, prepare, script) {
        check(&w, &out);
    }
}
