//! I3: guard tampering and durable memory.
//!
//! Writes to what keeps the guards in place are denied in every mode, and recorded as a critical
//! signal: hook registrations (`settings*.json` directly in a `.claude` folder), the other
//! registrations of commands the CLI runs outside containment (`.mcp.json`, `~/.claude.json`,
//! `~/.claude/plugins`), the suite's
//! binaries (`~/.local/share/agent-guards`, `$XDG_DATA_HOME/agent-guards`, the folder this binary
//! runs from when it is installed), the config (file and folder) and the state dir (ledgers, audit
//! logs, reports; `~/.local/state/agent-guards` and `$XDG_STATE_HOME/agent-guards`).
//!
//! A Bash command is a write when it writes a protected path (redirection, `tee`, `sed -i`, `cp`
//! onto it, `mv`, `rm`, `ln`, `chmod`, `truncate`, `dd of=`, `install`...), names one outside a
//! known read-only use, removes/moves/re-permissions a folder that holds one, or runs an
//! interpreter one-liner that mentions one.
//!
//! Durable memory (`CLAUDE.md`, `CLAUDE.local.md`, `.claude/` agents, commands, skills, rules and
//! memory folders) may not be written while the session is tainted (K5).

use crate::bash_facts::{Access, BashFacts, PathUse};
use crate::paths;
use std::path::{Path, PathBuf};

/// The protected locations, from the hook's environment.
#[derive(Debug, Clone, Default)]
pub struct Protected {
    /// Folders protected whole (and their ancestors, for destructive operations).
    pub roots: Vec<PathBuf>,
    /// Single files.
    pub files: Vec<PathBuf>,
    /// Files and folders that register commands the CLI runs outside containment: MCP servers
    /// of the local and user scopes (`~/.claude.json`) and plugins (`~/.claude/plugins`), with
    /// their `$CLAUDE_CONFIG_DIR` counterparts. A `.mcp.json` anywhere is one too
    /// ([`is_outside_registration`]).
    pub registrations: Vec<PathBuf>,
    pub home: Option<PathBuf>,
}

/// Which protected thing a write reaches; it picks the deny's code ([`crate::codes::tamper`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protects {
    HookRegistration,
    /// MCP servers and plugins: commands the CLI runs outside containment.
    Registration,
    Config,
    State,
    Binaries,
    /// Named by parts in a one-liner, or matched by a glob: which of them is not known.
    GuardFiles,
}

impl Protects {
    /// The words the reason and the evidence use.
    pub fn describe(self) -> &'static str {
        match self {
            Protects::HookRegistration => "a hook registration",
            Protects::Registration => {
                "a registration of commands Claude Code runs outside containment (MCP servers, plugins)"
            }
            Protects::Config => "the agent-guards config",
            Protects::State => "the agent-guards ledger and audit log",
            Protects::Binaries => "the agent-guards binaries",
            Protects::GuardFiles => "the agent-guards files",
        }
    }
}

/// What was protected, for the reason and the evidence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub path: String,
    pub what: Protects,
    pub how: String,
}

impl Protected {
    /// Builds the set from an environment lookup and the running binary's path.
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>, exe: Option<&Path>) -> Protected {
        // Unset HOME: bash expands `~` from the password database, and so do we.
        let home = primitives::home::home(env);
        let mut roots = Vec::new();
        if let Some(h) = &home {
            roots.push(h.join(".local/share/agent-guards"));
            roots.push(h.join(".local/state/agent-guards"));
            roots.push(h.join(".config/agent-guards"));
        }
        for (var, sub) in [
            ("XDG_DATA_HOME", "agent-guards"),
            ("XDG_STATE_HOME", "agent-guards"),
            ("XDG_CONFIG_HOME", "agent-guards"),
        ] {
            if let Some(x) = env(var).filter(|x| x.starts_with('/')) {
                roots.push(Path::new(&x).join(sub));
            }
        }
        // An installed binary's folder (any --prefix); a build tree's `target/` is not an install.
        if let Some(dir) = exe.and_then(Path::parent) {
            if !dir.components().any(|c| c.as_os_str() == "target") {
                roots.push(dir.to_path_buf());
            }
        }
        let mut files = Vec::new();
        if let Some(c) = guard_config::config_path(env) {
            // A relative `AGENT_GUARDS_CONFIG` is read from the hook's folder, the folder the
            // harness starts hooks in (issue 42): protect it there.
            let c = if c.is_relative() {
                match std::env::current_dir() {
                    Ok(d) => d.join(c),
                    Err(_) => c,
                }
            } else {
                c
            };
            files.push(paths::normalise(&c));
        }
        let roots = roots.iter().map(|r| paths::normalise(r)).collect();
        let mut registrations = Vec::new();
        let config_dir = env("CLAUDE_CONFIG_DIR").filter(|c| c.starts_with('/'));
        for base in home.iter().cloned().chain(config_dir.map(PathBuf::from)) {
            registrations.push(paths::normalise(&base.join(".claude.json")));
        }
        if let Some(h) = &home {
            registrations.push(h.join(".claude/plugins"));
        }
        if let Some(c) = env("CLAUDE_CONFIG_DIR").filter(|c| c.starts_with('/')) {
            registrations.push(paths::normalise(&Path::new(&c).join("plugins")));
        }
        Protected {
            roots,
            files,
            registrations,
            home,
        }
    }

    /// Why `path` (absolute) is protected, if it is, in the reason's words (the exec gate's
    /// refusals use them too).
    pub fn protects(&self, path: &Path) -> Option<&'static str> {
        self.protection(path).map(Protects::describe)
    }

    /// What `path` (absolute) is, if it is protected.
    pub fn protection(&self, path: &Path) -> Option<Protects> {
        if is_hook_registration(path) {
            return Some(Protects::HookRegistration);
        }
        if is_outside_registration(path)
            || self.registrations.iter().any(|r| paths::is_within(path, r))
        {
            return Some(Protects::Registration);
        }
        if self.files.iter().any(|f| f == path) {
            return Some(Protects::Config);
        }
        self.roots
            .iter()
            .find(|r| paths::is_within(path, r))
            .map(|r| self.what_root(r))
    }

    fn what_root(&self, root: &Path) -> Protects {
        let s = root.to_string_lossy();
        if s.contains("/state/") || s.ends_with("/state") || s.contains(".local/state") {
            Protects::State
        } else if s.contains("config") {
            Protects::Config
        } else {
            Protects::Binaries
        }
    }

    /// Whether a use of a path reaches something protected.
    pub fn hit(&self, u: &PathUse) -> Option<Hit> {
        let how = match u.access {
            Access::Read => return None,
            Access::Write { .. } => format!("{} writes it", u.program_label()),
            Access::Names => format!("{} names it (not a known read-only use)", u.program_label()),
        };
        let destructive = matches!(u.access, Access::Write { destructive: true });
        let hit = |path: String, what| {
            Some(Hit {
                path,
                what,
                how: how.clone(),
            })
        };
        match (&u.path, u.glob) {
            (Some(p), false) => {
                // As written, then through the symlinks that exist now (`ln -s ~/.claude
                // /tmp/c` earlier makes `/tmp/c/settings.json` a hook registration).
                let real = paths::through_links(p);
                std::iter::once(p.as_path())
                    .chain(real.as_deref())
                    .find_map(|q| self.literal_hit(q, u.fills, destructive))
                    .and_then(|what| hit(p.display().to_string(), what))
            }
            (Some(p), true) => {
                let pat = p.to_string_lossy();
                let registrations = self.registrations.iter();
                for r in self.roots.iter().chain(&self.files).chain(registrations) {
                    if paths::glob_reaches(&pat, r)
                        && (destructive
                            || paths::is_within(Path::new(literal_dir(&pat)), r)
                            || self.files.contains(r)
                            || self.registrations.contains(r))
                    {
                        return hit(
                            pat.to_string(),
                            self.protection(r).unwrap_or(Protects::GuardFiles),
                        );
                    }
                }
                if let Some(dir) = Path::new(&*pat).parent() {
                    if dir.file_name().is_some_and(|n| n == ".claude")
                        && ["settings.json", "settings.local.json"]
                            .iter()
                            .any(|n| paths::glob_matches(&pat, &dir.join(n).to_string_lossy()))
                    {
                        return hit(pat.to_string(), Protects::HookRegistration);
                    }
                }
                None
            }
            (None, _) => {
                // Not made absolute (a `cd` we could not follow): the location-free rule still holds.
                let p = Path::new(&u.text);
                let name = p
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let in_claude = p.parent().is_some_and(|d| d.ends_with(".claude"));
                let registration = is_hook_registration(p)
                    || (u.glob && in_claude && paths::glob_matches(&name, "settings.json"));
                let what = match registration {
                    true => Protects::HookRegistration,
                    false if is_outside_registration(p) => Protects::Registration,
                    false => return None,
                };
                Some(Hit {
                    path: u.text.clone(),
                    what,
                    how: how.clone(),
                })
            }
        }
    }

    /// What a write to the literal path `p` reaches: `fills` when entries land inside it,
    /// `destructive` when it is removed, moved or re-permissioned with what it holds.
    fn literal_hit(&self, p: &Path, fills: bool, destructive: bool) -> Option<Protects> {
        if let Some(what) = self.protection(p) {
            return Some(what);
        }
        if fills || destructive {
            // A folder that holds a protected one: filled from an archive or a tree, or
            // removed/moved whole.
            if let Some(r) = self.roots.iter().find(|r| r.starts_with(p)) {
                return Some(self.what_root(r));
            }
        }
        // The user's `~/.claude` (a copy of a `.claude` folder elsewhere, as a backup, is not
        // filled into a place Claude Code reads).
        let user_claude = self.home.as_ref().map(|h| h.join(".claude"));
        if fills && user_claude.is_some_and(|c| c.starts_with(p)) {
            return Some(Protects::HookRegistration);
        }
        if destructive && p.file_name().is_some_and(|n| n == ".claude") {
            return Some(Protects::HookRegistration);
        }
        None
    }

    /// The first protected location an inline script mentions.
    pub fn script_hit(&self, program: &str, text: &str) -> Option<Hit> {
        let how = format!("a {program} one-liner mentions it");
        let lower = text.to_ascii_lowercase();
        if lower.contains(".claude") && lower.contains("settings") && lower.contains(".json") {
            return Some(Hit {
                path: ".claude/settings*.json".into(),
                what: Protects::HookRegistration,
                how,
            });
        }
        for token in text.split(|c: char| c.is_whitespace() || "'\"`()[]{},;<>=+".contains(c)) {
            let expanded = match (&self.home, token) {
                (Some(h), t) if t.starts_with("~/") => format!("{}{}", h.display(), &t[1..]),
                (Some(h), t) if t.contains("$HOME") || t.contains("${HOME}") => t
                    .replace("${HOME}", &h.to_string_lossy())
                    .replace("$HOME", &h.to_string_lossy()),
                (_, t) => t.to_string(),
            };
            if !expanded.starts_with('/') {
                continue;
            }
            let p = paths::normalise(Path::new(&expanded));
            if let Some(what) = self.protection(&p) {
                return Some(Hit {
                    path: p.display().to_string(),
                    what,
                    how,
                });
            }
        }
        // Paths built from parts (`Path.home() / ".local/state/agent-guards"`).
        if lower.contains("agent-guards")
            && [".local/state", ".local/share", ".config", "/bin"]
                .iter()
                .any(|s| lower.contains(s))
        {
            return Some(Hit {
                path: "agent-guards files".into(),
                what: Protects::GuardFiles,
                how,
            });
        }
        None
    }

    /// Every protected location a Bash command reaches.
    pub fn bash_hits(&self, facts: &BashFacts) -> Vec<Hit> {
        let mut out: Vec<Hit> = facts.paths.iter().filter_map(|u| self.hit(u)).collect();
        // A write whose target is built at run time from text that names a protected location
        // (`printf -v p '%s/.claude/settings.json' "$HOME"; echo x > "$p"`, `for f in
        // ~/.claude/settings*.json; do ...`): fail closed (issue 42).
        for w in &facts.run_time_writes {
            if let Some(mut h) = w
                .sources
                .iter()
                .find_map(|t| self.script_hit(&w.program, t))
            {
                h.how = format!(
                    "{} writes a path decided at run time, built from text that names it",
                    w.program
                );
                out.push(h);
            }
        }
        out.extend(
            facts
                .scripts
                .iter()
                .filter_map(|s| self.script_hit(&s.program, &s.text)),
        );
        out
    }
}

fn literal_dir(pattern: &str) -> &str {
    let end = pattern.find(['*', '?', '[']).unwrap_or(pattern.len());
    match pattern[..end].rfind('/') {
        Some(0) => "/",
        Some(i) => &pattern[..i],
        None => "",
    }
}

impl PathUse {
    fn program_label(&self) -> String {
        if self.program.is_empty() {
            "a redirection".to_string()
        } else {
            format!("`{}`", self.program)
        }
    }
}

/// `settings*.json` directly in a `.claude` folder.
pub fn is_hook_registration(path: &Path) -> bool {
    let in_claude = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|n| n == ".claude");
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    in_claude && name.starts_with("settings") && name.ends_with(".json")
}

/// A `.mcp.json`: project-scope MCP servers, which the CLI starts outside containment in the
/// folder it is the project root of (any folder can become one).
pub fn is_outside_registration(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == ".mcp.json")
}

/// Durable memory: `CLAUDE.md`/`CLAUDE.local.md` anywhere, and agents, commands, skills, rules
/// and memory under a `.claude` folder (including `~/.claude/projects/*/memory`).
pub fn is_durable_memory(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    if name == "CLAUDE.md" || name == "CLAUDE.local.md" {
        return true;
    }
    let comps: Vec<String> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    comps.iter().enumerate().any(|(i, c)| {
        c == ".claude"
            && comps.get(i + 1).is_some_and(|n| {
                matches!(
                    n.as_str(),
                    "agents" | "commands" | "skills" | "rules" | "memory" | "memories"
                ) || (n == "projects" && comps[i + 2..].iter().any(|m| m == "memory"))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bash_facts::{analyse, Env};

    fn protected() -> Protected {
        let env = |k: &str| match k {
            "HOME" => Some("/home/u".to_string()),
            "XDG_STATE_HOME" => Some("/x/state".to_string()),
            _ => None,
        };
        Protected::from_env(&env, Some(Path::new("/opt/ag/bin/integrity-signals")))
    }

    fn hits(cmd: &str) -> Vec<Hit> {
        let p = protected();
        p.bash_hits(&analyse(cmd, &Env::project(true)))
    }

    #[test]
    fn issue_tamper_commands_are_hits() {
        for cmd in [
            "echo '{}' > ~/.claude/settings.json",
            "sed -i 's/deny/allow/' .claude/settings.local.json",
            "rm ~/.local/share/agent-guards/bin/gh-write-guard",
            "echo x >> /x/state/agent-guards/sessions/s/audit.jsonl",
            "cd ~/.claude && tee settings.json < /tmp/x",
            "cp /tmp/evil.json $HOME/.claude/settings.json",
            "cp /tmp/settings.json ~/.claude/",
            "mv ~/.config/agent-guards/config.toml /tmp/",
            "ln -sf /dev/null /home/u/.local/share/agent-guards/bin/egress-audit",
            "chmod -x /opt/ag/bin/gh-write-guard",
            "truncate -s0 ~/.local/state/agent-guards/sessions/s/ledger.json",
            "dd if=/dev/zero of=/home/u/.local/share/agent-guards/bin/x",
            "install -m755 evil /opt/ag/bin/egress-audit",
            "rm -rf ~/.local",
            "rm ~/.local/share/agent-guards/bin/*",
            "bash -c 'echo {} > ~/.claude/settings.json'",
            "python3 -c \"open('/home/u/.claude/settings.json','w').write('{}')\"",
            "node -e \"require('fs').writeFileSync(require('os').homedir()+'/.claude/settings.local.json','{}')\"",
            "vim ~/.config/agent-guards/config.toml",
            "perl -pi -e 's/a/b/' .claude/settings.json",
        ] {
            assert!(!hits(cmd).is_empty(), "not denied: {cmd}");
        }
    }

    #[test]
    fn variables_from_the_hooks_environment_unless_reassigned() {
        let p = protected();
        let vars = [("XDG_STATE_HOME".to_string(), "/x/state".to_string())];
        let env = Env {
            vars: &vars,
            ..Env::project(true)
        };
        let hits = |cmd: &str| p.bash_hits(&analyse(cmd, &env));
        assert!(!hits("rm -rf \"$XDG_STATE_HOME/agent-guards\"").is_empty());
        assert!(!hits("echo > /proc/self/root/x/state/agent-guards/a.jsonl").is_empty());
        assert!(hits("XDG_STATE_HOME=/tmp/s; rm -rf $XDG_STATE_HOME/agent-guards").is_empty());
        assert!(hits("rm -rf $XDG_CACHE_HOME/agent-guards").is_empty());
    }

    #[test]
    fn a_relative_config_path_is_protected_in_the_hooks_folder() {
        let env = |k: &str| match k {
            "HOME" => Some("/home/u".to_string()),
            "AGENT_GUARDS_CONFIG" => Some("cfg/guards.toml".to_string()),
            _ => None,
        };
        let p = Protected::from_env(&env, None);
        let here = std::env::current_dir().unwrap().join("cfg/guards.toml");
        assert!(p.protects(&here).is_some(), "{}", here.display());
    }

    #[test]
    fn existing_symlinks_are_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let home = root.join("home");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::create_dir_all(home.join(".local/state/agent-guards")).unwrap();
        std::fs::create_dir_all(root.join("other")).unwrap();
        std::os::unix::fs::symlink(home.join(".claude"), root.join("c")).unwrap();
        std::os::unix::fs::symlink(home.join(".local/state"), root.join("s")).unwrap();
        std::os::unix::fs::symlink(root.join("other"), root.join("o")).unwrap();
        let home_text = home.to_string_lossy().into_owned();
        let p = Protected::from_env(&|k: &str| (k == "HOME").then(|| home_text.clone()), None);
        let env = Env {
            cwd: Some(&root),
            home: Some(&home),
            vars: &[],
        };
        let hits = |cmd: &str| p.bash_hits(&analyse(cmd, &env));
        assert!(!hits("echo '{}' > c/settings.json").is_empty());
        assert!(!hits("rm -rf s/agent-guards").is_empty());
        assert!(!hits("echo x > s/agent-guards/new/audit.jsonl").is_empty());
        assert!(hits("echo '{}' > o/settings.json").is_empty());
        assert!(hits("cat c/settings.json").is_empty());
    }

    /// Each of `hit` reaches a protected location; none of `clean` does.
    fn hits_and_look_alikes(hit: &[&str], clean: &[&str]) {
        for cmd in hit {
            assert!(!hits(cmd).is_empty(), "{cmd}");
        }
        for cmd in clean {
            assert_eq!(hits(cmd), vec![], "{cmd}");
        }
    }

    #[test]
    fn folders_filled_from_an_archive_or_a_tree() {
        hits_and_look_alikes(
            &[
                "tar -xf /tmp/s.tar -C ~/.claude",
                "tar xzf /tmp/s.tgz --directory=/home/u/.local/state",
                "cd ~ && tar -xf /tmp/s.tar",
                "unzip -o /tmp/s.zip -d ~/.claude",
                "cp -r /tmp/dotclaude/. ~/.claude/",
                "cp -a /tmp/state /home/u/.local/state/agent-guards",
                "cp -rt ~/.local/state /tmp/agent-guards",
            ],
            &[
                "tar -xf /tmp/s.tar -C /tmp/out",
                "tar -cf /tmp/b.tar -C ~/.claude .",
                "tar -czf /tmp/b.tgz src",
                "unzip /tmp/s.zip -d build",
                "cp -r .claude /tmp/claude-backup",
                "cp -r ~/.claude/ /tmp/backup/",
                "cp -r src ~/.claude-notes/",
            ],
        );
    }

    #[test]
    fn what_find_exec_commands_do_to_the_files_found() {
        hits_and_look_alikes(
            &[
                "find ~/.local/state/agent-guards -type f -exec rm {} +",
                "find ~/.claude -maxdepth 1 -name settings.json -exec rm -f {} \\;",
                "find /home/u/.local -name agent-guards -exec rm -rf {} +",
                "find ~/.claude -name 'settings*.json' -exec sed -i s/a/b/ {} +",
            ],
            &[
                "find ~/.claude -name '*.json' -exec cat {} \\;",
                "find . -name '*.pyc' -exec rm {} +",
                "find ~ -name '*.tmp' -exec rm {} +",
                "find ~/.local/state/agent-guards -name '*.jsonl' -exec wc -l {} +",
            ],
        );
    }

    #[test]
    fn words_piped_into_xargs() {
        hits_and_look_alikes(
            &[
                "echo ~/.claude/settings.json | xargs rm",
                "printf '%s\\n' ~/.local/state/agent-guards | xargs -n 1 rm -rf",
                "echo -n /home/u/.claude/settings.local.json | xargs truncate -s 0",
            ],
            &[
                "echo ~/.claude/settings.json | xargs cat",
                "echo /tmp/a /tmp/b | xargs rm",
                "echo ~/.claude/settings.json | tee /tmp/l | xargs wc -l",
            ],
        );
    }

    #[test]
    fn read_only_uses_and_other_json_are_not_hits() {
        for cmd in [
            "cat ~/.claude/settings.json",
            "jq .hooks ~/.claude/settings.json",
            "grep -n hooks .claude/settings.local.json",
            "diff ~/.claude/settings.json /tmp/x.json",
            "cp ~/.claude/settings.json /tmp/backup.json",
            "ls -la ~/.local/share/agent-guards/bin",
            "sha256sum /opt/ag/bin/egress-audit",
            "echo '{}' > package.json",
            "echo '{}' > ~/.claude/keybindings.json",
            "sed -i s/a/b/ config/settings.json",
            "tail -n 5 ~/.local/state/agent-guards/sessions/s/audit.jsonl",
            "rm -rf build target",
        ] {
            assert!(hits(cmd).is_empty(), "denied: {cmd}: {:?}", hits(cmd));
        }
    }

    #[test]
    fn paths_and_memory() {
        let p = protected();
        assert_eq!(
            p.protects(Path::new("/home/u/.claude/settings.json")),
            Some("a hook registration")
        );
        assert_eq!(
            p.protects(Path::new("/w/.claude/settings.local.json")),
            Some("a hook registration")
        );
        assert!(p.protects(Path::new("/w/settings.json")).is_none());
        assert!(p
            .protects(Path::new("/x/state/agent-guards/sessions/s/ledger.json"))
            .is_some());
        assert!(p
            .protects(Path::new("/home/u/.config/agent-guards/config.toml"))
            .is_some());
        assert!(is_durable_memory(Path::new("/w/CLAUDE.md")));
        assert!(is_durable_memory(Path::new("/w/.claude/agents/x.md")));
        assert!(is_durable_memory(Path::new(
            "/home/u/.claude/projects/-w/memory/notes.md"
        )));
        assert!(!is_durable_memory(Path::new("/w/README.md")));
    }
}
