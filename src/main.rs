//! `agent-guards`: the admin binary behind `install.sh` — install, uninstall, report, explain.
//! Installed beside the hooks, so all of it works without the clone.

mod install;
mod journal_check;
mod json_text;
mod plugin_layout;
mod registry;
mod report;
mod service_install;
mod settings_merge;
mod system;

use std::path::PathBuf;

const USAGE: &str = "\
agent-guards: install the hook binaries and register them with Claude Code

usage:
  agent-guards install   [--from DIR] [--prefix DIR] [--settings FILE | --project DIR] [--dry-run]
  agent-guards install   --system [--allow-managed-hooks-only] [--from DIR] [--prefix DIR] [--dry-run]
  agent-guards uninstall [--system] [--prefix DIR] [--settings FILE | --project DIR] [--dry-run]
  agent-guards report    [--system] [--prefix DIR] [--settings FILE | --project DIR] [--json]
  agent-guards explain   '<command>' [--cwd DIR] [--live] [--json]
                         why gh-write-guard allows or denies a command
  agent-guards plugin    --out DIR [--from DIR]   write a Claude Code plugin folder (hooks, bin/)
  agent-guards --help | --version

  --from DIR      where the built binaries are (default: this binary's folder)
  --prefix DIR    install prefix (default ~/.local/share/agent-guards; binaries in DIR/bin)
  --settings FILE the Claude Code settings file (default ~/.claude/settings.json)
  --project DIR   use DIR/.claude/settings.json
  --dry-run       print the change, write nothing
  --system        as root: binaries in /usr/local/lib/agent-guards/bin (or --prefix), root's;
                  config /etc/agent-guards/config.toml (a per-user config may only tighten it);
                  hooks in Claude Code's managed settings /etc/claude-code/managed-settings.json.
                  The agent's user can then not rename, replace or remove any of them.
  --allow-managed-hooks-only
                  (install --system) also set allowManagedHooksOnly: only managed hooks run, so
                  the agent cannot add hooks of its own; yours and your plugins' stop running too
  --json          report: the same as JSON; explain: the facts as JSON
  --cwd DIR       explain: judge the command as run in DIR (default: the current folder)
  --live          explain: fetch the branch rules from GitHub (default: offline)

  report exits 1 when the config has problems or the journal holds audit records a session's
  audit.jsonl lost (each is listed), 0 otherwise.";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match run(&args) {
        Ok(lines) => {
            for l in &lines {
                println!("{l}");
            }
            // `report` with problems in the config: said above, and the exit says it too.
            match args.first().map(String::as_str) {
                Some("report") if REPORTED_PROBLEMS.load(std::sync::atomic::Ordering::Relaxed) => 1,
                _ => 0,
            }
        }
        Err(e) => {
            eprintln!("agent-guards: {e}");
            1
        }
    };
    std::process::exit(code);
}

/// Set by `report` when the config it read has problems or the journal holds records a log lost
/// (the exit code is 1 then).
static REPORTED_PROBLEMS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn run(args: &[String]) -> Result<Vec<String>, String> {
    let Some(cmd) = args.first() else {
        return Err("missing command (see agent-guards --help)".into());
    };
    match cmd.as_str() {
        "--help" | "-h" => return Ok(vec![USAGE.to_string()]),
        "--version" | "-V" => {
            return Ok(vec![format!("agent-guards {}", env!("CARGO_PKG_VERSION"))])
        }
        "install" | "uninstall" | "report" => {}
        "plugin" => return plugin(&args[1..]),
        "explain" => explain(&args[1..]),
        // The README's configuration table, generated from guard-config's list of keys.
        "config-table" => return Ok(vec![guard_config::diagnose::markdown_table()]),
        // The binaries the installer stages, one per line (used by the tests and the CI script).
        "binaries" => return Ok(registry::BINARIES.iter().map(|b| b.to_string()).collect()),
        other => {
            return Err(format!(
                "unknown command {other:?} (see agent-guards --help)"
            ))
        }
    }
    let system_mode = args.iter().any(|a| a == "--system");
    let env = |k: &str| std::env::var(k).ok();
    let home = std::env::var("HOME")
        .ok()
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    let home = match (&home, system_mode) {
        (Some(h), _) => h.clone(),
        (None, true) => PathBuf::from("/nonexistent"),
        (None, false) => return Err("HOME is not set".into()),
    };
    let mut target = install::Target {
        from: std::env::current_exe()
            .ok()
            .and_then(|p| p.parent().map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from(".")),
        prefix: home.join(".local/share/agent-guards"),
        settings: home.join(".claude/settings.json"),
        config: guard_config::config_path(&|k| std::env::var(k).ok()),
        state_dir: session_store::state_dir(&|k| std::env::var(k).ok()).ok(),
        dry_run: false,
    };
    if system_mode {
        let sys = system::paths(&env);
        target.prefix = PathBuf::from(system::DEFAULT_PREFIX);
        target.settings = sys.managed_settings;
        target.config = Some(sys.config);
        target.state_dir = None;
    }
    let mut managed_only = false;
    let mut as_json = false;
    let mut i = 1;
    while i < args.len() {
        let flag = args[i].as_str();
        let mut value = || {
            i += 1;
            args.get(i)
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag {
            "--from" => target.from = PathBuf::from(value()?),
            "--prefix" => target.prefix = PathBuf::from(value()?),
            "--settings" | "--project" if system_mode => {
                return Err(format!(
                    "{flag} does not go with --system: a system install registers in Claude Code's managed settings"
                ))
            }
            "--settings" => target.settings = PathBuf::from(value()?),
            "--project" => target.settings = PathBuf::from(value()?).join(".claude/settings.json"),
            "--dry-run" => target.dry_run = true,
            "--system" => {}
            "--allow-managed-hooks-only" if system_mode && cmd == "install" => managed_only = true,
            "--allow-managed-hooks-only" => {
                return Err("--allow-managed-hooks-only goes with install --system (it is a managed setting)".into())
            }
            "--json" if cmd == "report" => as_json = true,
            other => {
                return Err(format!(
                    "unknown option {other:?} (see agent-guards --help)"
                ))
            }
        }
        i += 1;
    }
    for p in [&mut target.from, &mut target.prefix, &mut target.settings] {
        if p.is_relative() {
            *p = std::env::current_dir()
                .map_err(|e| e.to_string())?
                .join(&*p);
        }
    }
    match cmd.as_str() {
        "install" if system_mode => system::install(&target, managed_only),
        "uninstall" if system_mode => system::uninstall(&target),
        "install" => install::install(&target),
        "uninstall" => install::uninstall(&target),
        _ => {
            let sys = system::paths(&env);
            let r = report::build(&report::Where {
                prefix: target.prefix.clone(),
                settings: target.settings.clone(),
                state_dir: target.state_dir.clone(),
                config: target.config.clone(),
                kinds: report::Kinds {
                    system_prefix: if system_mode {
                        target.prefix.clone()
                    } else {
                        PathBuf::from(system::DEFAULT_PREFIX)
                    },
                    managed_settings: sys.managed_settings,
                    system_config: sys.config,
                    user_prefix: if system_mode {
                        home.join(".local/share/agent-guards")
                    } else {
                        target.prefix.clone()
                    },
                    user_settings: if system_mode {
                        home.join(".claude/settings.json")
                    } else {
                        target.settings.clone()
                    },
                },
            });
            let problems = r["config"]["problems"]
                .as_array()
                .is_some_and(|p| !p.is_empty())
                || r["audit_journal"]["missing"]
                    .as_array()
                    .is_some_and(|m| !m.is_empty());
            REPORTED_PROBLEMS.store(problems, std::sync::atomic::Ordering::Relaxed);
            Ok(if as_json {
                vec![serde_json::to_string_pretty(&r).unwrap_or_default()]
            } else {
                report::render(&r)
            })
        }
    }
}

/// `agent-guards explain '<cmd>'`: gh-write-guard's explain, from the folder this binary is in
/// (installed: the bin dir; in the clone: target/release). Its exit code is passed on.
fn explain(args: &[String]) -> ! {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(|d| d.join("gh-write-guard")))
        .filter(|p| p.exists());
    let Some(guard) = beside else {
        eprintln!(
            "agent-guards: gh-write-guard is not beside this binary (install first: ./install.sh)"
        );
        std::process::exit(1);
    };
    match std::process::Command::new(&guard)
        .arg("explain")
        .args(args)
        .status()
    {
        Ok(s) => std::process::exit(s.code().unwrap_or(1)),
        Err(e) => {
            eprintln!("agent-guards: {}: {e}", guard.display());
            std::process::exit(1);
        }
    }
}

fn plugin(args: &[String]) -> Result<Vec<String>, String> {
    let mut out = None;
    let mut from = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("."));
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--out" => out = args.get(i + 1).map(PathBuf::from),
            "--from" => {
                from = args
                    .get(i + 1)
                    .map(PathBuf::from)
                    .ok_or("--from needs a value")?
            }
            other => {
                return Err(format!(
                    "unknown option {other:?} (see agent-guards --help)"
                ))
            }
        }
        i += 2;
    }
    let out = out.ok_or("plugin needs --out DIR")?;
    plugin_layout::write(&out, &from)
}
