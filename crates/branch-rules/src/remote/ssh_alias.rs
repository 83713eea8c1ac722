//! ssh host aliases: `git@work-gh:owner/repo` reaches github.com when `~/.ssh/config` says
//! `Host work-gh` / `HostName github.com`. Without this, such a remote would look like some other
//! host and a push to it would escape G4. The reader follows ssh_config(5) where it decides the
//! host name: `Host` patterns (`*`, `?`, `!negation`), `Match all|host|originalhost` (any other
//! `Match` criterion is not evaluated and its block is taken as not applying), `Include` (globs
//! in the last component, relative to `~/.ssh`), the first `HostName` obtained wins, `%h` and
//! `%%` tokens. Files are read once, bounded in size, count and nesting.

use primitives::wildcard::{self, Dialect};
use std::path::{Path, PathBuf};

/// Largest config file read; larger ones are ignored.
const FILE_LIMIT: u64 = 256 * 1024;
/// At most this many files (includes counted) and this deep.
const MAX_FILES: usize = 64;
const MAX_DEPTH: usize = 8;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    /// `Host` patterns: the block applies when one matches and no negated one does.
    Host(Vec<String>),
    /// `Match` criteria; `None` when one cannot be evaluated here.
    Match(Option<Vec<(String, Vec<String>)>>),
    HostName(String),
    /// Entering an included file: its Host/Match lines end at its end.
    IncludeStart,
    IncludeEnd,
}

/// The `HostName` directives of one or more ssh config files, with includes inlined.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SshAliases {
    entries: Vec<Entry>,
}

impl SshAliases {
    /// No aliases.
    pub fn none() -> Self {
        Self::default()
    }

    /// Reads the user's config then the system's, as ssh does: `home/.ssh/config`, then
    /// `/etc/ssh/ssh_config`. Missing files are skipped.
    pub fn load_default(home: Option<&Path>) -> Self {
        let mut files = Vec::new();
        if let Some(home) = home {
            files.push(home.join(".ssh/config"));
        }
        files.push(PathBuf::from("/etc/ssh/ssh_config"));
        Self::load(&files, home.map(|h| h.join(".ssh")).as_deref())
    }

    /// Reads these files in order; relative `Include` paths resolve against `ssh_dir`.
    pub fn load(files: &[PathBuf], ssh_dir: Option<&Path>) -> Self {
        let mut loader = Loader {
            entries: Vec::new(),
            files_read: 0,
            ssh_dir: ssh_dir.map(Path::to_path_buf),
        };
        for file in files {
            loader.read_file(file, 0);
        }
        SshAliases {
            entries: loader.entries,
        }
    }

    /// Parses config text directly (includes resolve against `ssh_dir`).
    pub fn parse(text: &str, ssh_dir: Option<&Path>) -> Self {
        let mut loader = Loader {
            entries: Vec::new(),
            files_read: 0,
            ssh_dir: ssh_dir.map(Path::to_path_buf),
        };
        loader.parse_text(text, 0);
        SshAliases {
            entries: loader.entries,
        }
    }

    /// The host ssh would connect to for `alias` (lower-cased), when a `HostName` applies.
    pub fn hostname_for(&self, alias: &str) -> Option<String> {
        let alias = alias.to_ascii_lowercase();
        // (applies) for the current block; a stack so an include's blocks end with it.
        let mut stack = vec![true];
        for entry in &self.entries {
            match entry {
                Entry::Host(patterns) => {
                    if let Some(top) = stack.last_mut() {
                        *top = host_matches(patterns, &alias);
                    }
                }
                Entry::Match(criteria) => {
                    let applies = criteria.as_ref().is_some_and(|c| match_applies(c, &alias));
                    if let Some(top) = stack.last_mut() {
                        *top = applies;
                    }
                }
                Entry::IncludeStart => {
                    let outer = stack.last().copied().unwrap_or(true);
                    stack.push(outer);
                }
                Entry::IncludeEnd => {
                    if stack.len() > 1 {
                        stack.pop();
                    }
                }
                Entry::HostName(value) => {
                    if stack.iter().all(|applies| *applies) {
                        let expanded = value.replace("%h", &alias).replace("%%", "%");
                        return Some(expanded.to_ascii_lowercase());
                    }
                }
            }
        }
        None
    }
}

struct Loader {
    entries: Vec<Entry>,
    files_read: usize,
    ssh_dir: Option<PathBuf>,
}

impl Loader {
    fn read_file(&mut self, path: &Path, depth: usize) {
        if self.files_read >= MAX_FILES || depth > MAX_DEPTH {
            return;
        }
        // Opened without blocking and checked on the handle: a FIFO swapped in after a check
        // by path would hold the guard's answer until its deadline (issue 47).
        let Ok(file) =
            primitives::no_wait::open_regular(path, std::fs::OpenOptions::new().read(true))
        else {
            return;
        };
        if file.metadata().map_or(true, |m| m.len() > FILE_LIMIT) {
            return;
        }
        let mut bytes = Vec::new();
        if std::io::Read::read_to_end(&mut std::io::Read::take(file, FILE_LIMIT), &mut bytes)
            .is_err()
        {
            return;
        }
        self.files_read += 1;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        self.parse_text(&text, depth);
    }

    fn parse_text(&mut self, text: &str, depth: usize) {
        for line in text.lines() {
            let Some((keyword, args)) = split_directive(line) else {
                continue;
            };
            match keyword.as_str() {
                "host" => self.entries.push(Entry::Host(
                    args.iter().map(|a| a.to_ascii_lowercase()).collect(),
                )),
                "match" => self.entries.push(Entry::Match(parse_match(&args))),
                "hostname" => {
                    if let Some(value) = args.first() {
                        self.entries.push(Entry::HostName(value.clone()));
                    }
                }
                "include" => {
                    for pattern in &args {
                        for file in self.include_files(pattern) {
                            self.entries.push(Entry::IncludeStart);
                            self.read_file(&file, depth + 1);
                            self.entries.push(Entry::IncludeEnd);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// The files an `Include` argument names (a `*`/`?` glob in its last component only).
    fn include_files(&self, pattern: &str) -> Vec<PathBuf> {
        let path = if let Some(rest) = pattern.strip_prefix("~/") {
            match self.ssh_dir.as_ref().and_then(|d| d.parent()) {
                Some(home) => home.join(rest),
                None => return Vec::new(),
            }
        } else if Path::new(pattern).is_absolute() {
            PathBuf::from(pattern)
        } else {
            match &self.ssh_dir {
                Some(dir) => dir.join(pattern),
                None => return Vec::new(),
            }
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !name.contains(['*', '?']) {
            return vec![path];
        }
        let Some(dir) = path.parent() else {
            return Vec::new();
        };
        let Ok(read) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let wanted = wildcard::Wildcard::new(&name, Dialect::StarQuestion);
        let mut files: Vec<PathBuf> = read
            .filter_map(Result::ok)
            .filter(|e| wanted.is_match(&e.file_name().to_string_lossy()))
            .map(|e| e.path())
            .collect();
        files.sort();
        files
    }
}

/// `Keyword args...` or `Keyword=args...`, with double-quoted arguments; comments skipped.
fn split_directive(line: &str) -> Option<(String, Vec<String>)> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let split = line.find(|c: char| c.is_whitespace() || c == '=')?;
    let keyword = line[..split].to_ascii_lowercase();
    let rest = line[split..].trim_start();
    let rest = rest.strip_prefix('=').unwrap_or(rest).trim_start();
    let mut args = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in rest.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !current.is_empty() {
                    args.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        args.push(current);
    }
    Some((keyword, args))
}

/// `Match` criteria we can evaluate: `all`, `host`, `originalhost` (each with a pattern list).
fn parse_match(args: &[String]) -> Option<Vec<(String, Vec<String>)>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let criterion = args[i].to_ascii_lowercase();
        match criterion.as_str() {
            "all" => {
                out.push((criterion, Vec::new()));
                i += 1;
            }
            "host" | "originalhost" => {
                let list = args.get(i + 1)?;
                let patterns = list.split(',').map(|p| p.to_ascii_lowercase()).collect();
                out.push((criterion, patterns));
                i += 2;
            }
            _ => return None,
        }
    }
    Some(out)
}

fn match_applies(criteria: &[(String, Vec<String>)], alias: &str) -> bool {
    criteria
        .iter()
        .all(|(criterion, patterns)| match criterion.as_str() {
            "all" => true,
            _ => host_matches(patterns, alias),
        })
}

/// ssh's pattern-list rule: some pattern matches and no negated pattern does.
fn host_matches(patterns: &[String], host: &str) -> bool {
    let mut matched = false;
    for p in patterns {
        if let Some(negated) = p.strip_prefix('!') {
            if wildcard::matches(negated, Dialect::StarQuestion, host) {
                return false;
            }
        } else if wildcard::matches(p, Dialect::StarQuestion, host) {
            matched = true;
        }
    }
    matched
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_first_value_wins() {
        let cfg = SshAliases::parse(
            "# personal\nHost work-gh gh-*\n  HostName github.com\n  User git\n\
             Host gh-special\n  HostName other.example\n\
             Host=quoted\n  HostName=\"ghe.example.com\"\n\
             Host * !bastion\n  HostName %h.internal\n",
            None,
        );
        assert_eq!(cfg.hostname_for("work-gh").as_deref(), Some("github.com"));
        // The first HostName obtained wins, even when a later block also matches.
        assert_eq!(
            cfg.hostname_for("gh-special").as_deref(),
            Some("github.com")
        );
        assert_eq!(
            cfg.hostname_for("Quoted").as_deref(),
            Some("ghe.example.com")
        );
        assert_eq!(cfg.hostname_for("box").as_deref(), Some("box.internal"));
        assert_eq!(cfg.hostname_for("bastion"), None);
    }

    #[test]
    fn match_blocks() {
        let cfg = SshAliases::parse(
            "Match originalhost corp-gh\n HostName github.com\n\
             Match exec \"true\" host x\n HostName never.example\n\
             Match all\n HostName fallback.example\n",
            None,
        );
        assert_eq!(cfg.hostname_for("corp-gh").as_deref(), Some("github.com"));
        assert_eq!(cfg.hostname_for("x").as_deref(), Some("fallback.example"));
    }

    #[test]
    fn globals_before_any_host_apply_everywhere() {
        let cfg = SshAliases::parse(
            "HostName everywhere.example\nHost a\nHostName a.example\n",
            None,
        );
        assert_eq!(cfg.hostname_for("a").as_deref(), Some("everywhere.example"));
        assert_eq!(SshAliases::none().hostname_for("a"), None);
    }

    #[test]
    fn includes_inline_and_end_their_blocks() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("conf.d")).unwrap();
        std::fs::write(
            dir.path().join("conf.d/10-gh.conf"),
            "Host alias-one\n HostName github.com\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("conf.d/ignored.txt"),
            "Host alias-two\n HostName x\n",
        )
        .unwrap();
        let cfg = SshAliases::parse(
            "Include conf.d/*.conf\nHostName after-include.example\n",
            Some(dir.path()),
        );
        assert_eq!(cfg.hostname_for("alias-one").as_deref(), Some("github.com"));
        assert_eq!(
            cfg.hostname_for("alias-two").as_deref(),
            Some("after-include.example")
        );
        // A self-including file stops at the depth limit instead of looping.
        std::fs::write(dir.path().join("loop"), "Include loop\n").unwrap();
        let cfg = SshAliases::load(&[dir.path().join("loop")], Some(dir.path()));
        assert_eq!(cfg.hostname_for("a"), None);
    }

    #[test]
    fn host_patterns_with_negation() {
        let pats = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(host_matches(&pats(&["gh-*"]), "gh-work"));
        assert!(!host_matches(&pats(&["gh-?"]), "gh-ab"));
        assert!(host_matches(&pats(&["?x*"]), "ax"));
        assert!(!host_matches(&pats(&["gh-*", "!gh-private"]), "gh-private"));
        assert!(host_matches(&pats(&["gh-*", "!gh-private"]), "gh-work"));
        assert!(!host_matches(&pats(&["!gh-private"]), "other"));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_in_place_of_a_config_is_skipped_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("config");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.expect("mkfifo (coreutils)").success());
        let real = dir.path().join("real");
        std::fs::write(&real, "Host gh\n  HostName github.com\n").unwrap();
        let start = std::time::Instant::now();
        let aliases = SshAliases::load(&[fifo, real], None);
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
        assert_eq!(aliases.hostname_for("gh").as_deref(), Some("github.com"));
    }
}
