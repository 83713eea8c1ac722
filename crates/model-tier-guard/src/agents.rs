//! Agent definitions: the `model:` in the front matter of `.claude/agents/*.md` files, found the
//! way the CLI finds them — project folder first, then the user's `~/.claude/agents`, then
//! plugin agent folders (`plugin:name`). Reads are bounded: a few thousand files per folder, the
//! first 16 KiB of each, three folder levels.

use crate::agent_index::Index;
use crate::host::read_head;
use std::path::{Path, PathBuf};

const MAX_FILES_PER_ROOT: usize = 4000;
const MAX_HEAD_BYTES: u64 = 16 * 1024;
const MAX_DEPTH: usize = 3;
/// Plugin caches nest `<marketplace>/<plugin>/<version>/agents`.
const MAX_PLUGIN_DEPTH: usize = 6;

/// Where a definition was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Project,
    User,
    Plugin,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::User => "user",
            Scope::Plugin => "plugin",
        }
    }
}

/// One agent definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentDef {
    pub name: String,
    /// The front matter's `model:` as written (`inherit`, an alias or an id), if any.
    pub model: Option<String>,
    pub path: PathBuf,
    pub scope: Scope,
}

/// The folders to search.
#[derive(Debug, Clone, Default)]
pub struct AgentDirs {
    pub project: Vec<PathBuf>,
    /// The user's agent folders, first first: `$CLAUDE_CONFIG_DIR/agents` (when set), then
    /// `~/.claude/agents`.
    pub user: Vec<PathBuf>,
    /// Plugin folders, in the same order.
    pub plugins: Vec<PathBuf>,
    /// Where folder indexes are kept ([`crate::agent_index`]); `None` reads every file.
    pub index_dir: Option<PathBuf>,
}

impl AgentDirs {
    /// Project folders (`<dir>/.claude/agents` for each of `project_dirs`), and `agents/` and
    /// `plugins/` of the user's folders: the CLI's config folder (`$CLAUDE_CONFIG_DIR`, as
    /// [`crate::host::Host::user_config_dir`] finds it), then `~/.claude` when that is another
    /// folder. The notes only say that the user settings move with `CLAUDE_CONFIG_DIR`; the
    /// home folder is still searched after it, so a definition the CLI might read there is
    /// never missed (one it does not read cannot run, so judging it costs nothing).
    pub fn new(project_dirs: &[PathBuf], user_dirs: &[PathBuf]) -> AgentDirs {
        let mut project: Vec<PathBuf> = Vec::new();
        for d in project_dirs {
            let p = d.join(".claude/agents");
            if !project.contains(&p) {
                project.push(p);
            }
        }
        let mut user: Vec<PathBuf> = Vec::new();
        let mut plugins: Vec<PathBuf> = Vec::new();
        for d in user_dirs {
            if !user.contains(&d.join("agents")) {
                user.push(d.join("agents"));
                plugins.push(d.join("plugins"));
            }
        }
        AgentDirs {
            project,
            user,
            plugins,
            index_dir: None,
        }
    }

    /// Keeps folder indexes under `dir`.
    pub fn with_index(mut self, dir: Option<PathBuf>) -> AgentDirs {
        self.index_dir = dir;
        self
    }
}

/// The front matter keys we read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrontMatter {
    pub name: Option<String>,
    pub model: Option<String>,
}

/// Parses the YAML front matter between the leading `---` lines (only flat `key: value` lines).
pub fn front_matter(text: &str) -> Option<FrontMatter> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines();
    if lines.next()?.trim_end() != "---" {
        return None;
    }
    let mut fm = FrontMatter::default();
    for line in lines {
        if line.trim_end() == "---" {
            return Some(fm);
        }
        if line.starts_with([' ', '\t', '#']) {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = unquote(strip_comment(value.trim()));
        match key.trim() {
            "name" => fm.name = Some(value.to_string()),
            "model" => fm.model = (!value.is_empty()).then(|| value.to_string()),
            _ => {}
        }
    }
    // No closing line: the CLI would not read this as front matter either, but a file the
    // agent is writing may be cut short; keep what was read.
    Some(fm)
}

fn strip_comment(v: &str) -> &str {
    if v.starts_with(['"', '\'']) {
        return v;
    }
    v.split(" #").next().unwrap_or(v).trim()
}

fn unquote(v: &str) -> &str {
    let v = v.trim();
    for q in ['"', '\''] {
        if v.len() >= 2 && v.starts_with(q) && v.ends_with(q) {
            return &v[1..v.len() - 1];
        }
    }
    v
}

/// Finds the definition the CLI would use for `subagent_type`. Project definitions win over
/// user ones, user over plugin ones; `plugin:name` is looked up only among plugins.
pub fn find(subagent_type: &str, dirs: &AgentDirs) -> Option<AgentDef> {
    if let Some((plugin, name)) = subagent_type.split_once(':') {
        return dirs
            .plugins
            .iter()
            .find_map(|root| find_plugin(root, plugin, name, subagent_type));
    }
    let index = dirs.index_dir.as_deref();
    for root in &dirs.project {
        if let Some(d) = find_in(root, subagent_type, Scope::Project, MAX_DEPTH, index) {
            return Some(d);
        }
    }
    dirs.user
        .iter()
        .find_map(|root| find_in(root, subagent_type, Scope::User, MAX_DEPTH, index))
}

fn md_files(root: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    let mut dirs = Vec::new();
    for e in entries.flatten() {
        if out.len() >= MAX_FILES_PER_ROOT {
            return;
        }
        let p = e.path();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() {
            dirs.push(p);
        } else if p.extension().is_some_and(|x| x == "md") {
            // Only regular files (or links to them): a FIFO named `x.md` would block the read.
            let regular = kind.is_file()
                || (kind.is_symlink() && std::fs::metadata(&p).is_ok_and(|m| m.is_file()));
            if regular {
                out.push(p);
            }
        }
    }
    if depth > 1 {
        for d in dirs {
            md_files(&d, depth - 1, out);
        }
    }
}

fn find_in(
    root: &Path,
    name: &str,
    scope: Scope,
    depth: usize,
    index_dir: Option<&Path>,
) -> Option<AgentDef> {
    let mut files = Vec::new();
    md_files(root, depth, &mut files);
    // The file named after the agent is the likely one: read it first.
    files.sort_by_key(|p| p.file_stem().is_none_or(|s| s != name));
    // One buffer for the whole scan: folders of hundreds of definitions are read per dispatch.
    let mut buf = vec![0u8; MAX_HEAD_BYTES as usize];
    let mut index: Option<Index> = None;
    let mut found = None;
    for (i, path) in files.iter().enumerate() {
        let named_file = path.file_stem().is_some_and(|s| s == name);
        let def = match index_dir {
            // The named file is read directly; the index pays off for the rest of the folder.
            Some(dir) if !(i == 0 && named_file) => index
                .get_or_insert_with(|| Index::load(dir, root))
                .get_or_read(path, || read_definition(path, &mut buf, None)),
            _ => read_definition(path, &mut buf, Some(name)),
        };
        if let Some((def_name, model)) = def.filter(|(n, _)| n == name) {
            found = Some(AgentDef {
                name: def_name,
                model,
                path: path.clone(),
                scope,
            });
            break;
        }
    }
    if let Some(ix) = index.as_mut() {
        if found.is_none() {
            ix.retain(&files);
        }
        ix.save();
    }
    found
}

/// A definition's `(name, model)`; the name defaults to the file stem. With `only`, a file
/// that cannot define that name (not named after it, name not in its head) is skipped unparsed.
fn read_definition(
    path: &Path,
    buf: &mut [u8],
    only: Option<&str>,
) -> Option<(String, Option<String>)> {
    let (_, n) = read_head(path, buf)?;
    let head = &buf[..n];
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned())?;
    if let Some(name) = only {
        if stem != name && !contains(head, name.as_bytes()) {
            return None;
        }
    }
    let fm = front_matter(&String::from_utf8_lossy(head))?;
    Some((fm.name.unwrap_or(stem), fm.model))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

fn find_plugin(root: &Path, plugin: &str, name: &str, full: &str) -> Option<AgentDef> {
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    let mut visited = 0usize;
    while let Some((dir, depth)) = stack.pop() {
        visited += 1;
        if visited > MAX_FILES_PER_ROOT {
            return None;
        }
        let agents = dir.join("agents");
        let in_plugin = dir.components().any(|c| c.as_os_str() == plugin);
        if in_plugin && agents.is_dir() {
            if let Some(mut d) = find_in(&agents, name, Scope::Plugin, MAX_DEPTH, None) {
                d.name = full.to_string();
                return Some(d);
            }
        }
        if depth >= MAX_PLUGIN_DEPTH {
            continue;
        }
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.flatten() {
                if e.file_type().is_ok_and(|t| t.is_dir()) && e.file_name() != "agents" {
                    stack.push((e.path(), depth + 1));
                }
            }
        }
    }
    None
}

/// Whether a path is an agent definition (`.../.claude/agents/**.md` or a plugin's
/// `agents/*.md`).
pub fn is_definition_path(path: &str) -> bool {
    let p = path.replace('\\', "/");
    p.ends_with(".md")
        && (p.contains("/.claude/agents/")
            || (p.contains("/.claude/plugins/") && p.contains("/agents/")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn front_matter_keys() {
        let fm =
            front_matter("---\nname: \"rev\"\ndescription: x: y\nmodel: opus # fast\n---\nbody")
                .unwrap();
        assert_eq!(fm.name.as_deref(), Some("rev"));
        assert_eq!(fm.model.as_deref(), Some("opus"));
        assert_eq!(front_matter("no front matter"), None);
        assert_eq!(
            front_matter("---\nname: a\n").unwrap().name.as_deref(),
            Some("a")
        );
        assert_eq!(front_matter("---\nmodel:\n---\n").unwrap().model, None);
    }

    #[test]
    fn project_wins_over_user_and_names_come_from_front_matter() {
        let t = tempfile::tempdir().unwrap();
        let project = t.path().join("p");
        let home = t.path().join("h");
        write(
            &home.join(".claude/agents/rev.md"),
            "---\nname: rev\nmodel: fable\n---\n",
        );
        write(
            &home.join(".claude/agents/only-user.md"),
            "---\nname: only-user\nmodel: opus\n---\n",
        );
        write(
            &project.join(".claude/agents/x/review.md"),
            "---\nname: rev\nmodel: haiku\n---\n",
        );
        write(
            &project.join(".claude/agents/plain.md"),
            "---\ndescription: d\n---\n",
        );
        let dirs = AgentDirs::new(std::slice::from_ref(&project), &[home.join(".claude")]);
        let d = find("rev", &dirs).unwrap();
        assert_eq!(
            (d.scope, d.model.as_deref()),
            (Scope::Project, Some("haiku"))
        );
        let d = find("only-user", &dirs).unwrap();
        assert_eq!((d.scope, d.model.as_deref()), (Scope::User, Some("opus")));
        let d = find("plain", &dirs).unwrap();
        assert_eq!(d.model, None, "name from the file stem, no model");
        assert!(find("absent", &dirs).is_none());
    }

    #[test]
    fn indexed_scans_see_in_place_edits() {
        let t = tempfile::tempdir().unwrap();
        let project = t.path().join("p");
        let home = t.path().join("h");
        for i in 0..20 {
            write(
                &project.join(format!(".claude/agents/a{i}.md")),
                &format!("---\nname: a{i}\nmodel: haiku\n---\n"),
            );
        }
        write(
            &home.join(".claude/agents/u.md"),
            "---\nname: helper\nmodel: sonnet\n---\n",
        );
        let dirs = AgentDirs::new(std::slice::from_ref(&project), &[home.join(".claude")])
            .with_index(Some(t.path().join("index")));
        for _ in 0..2 {
            let d = find("helper", &dirs).unwrap();
            assert_eq!((d.scope, d.model.as_deref()), (Scope::User, Some("sonnet")));
        }
        assert!(std::fs::read_dir(t.path().join("index")).unwrap().count() >= 1);
        // A project file rewritten in place to shadow the user's agent is seen at once.
        std::fs::write(
            project.join(".claude/agents/a7.md"),
            "---\nname: helper\nmodel: fable\n---\n",
        )
        .unwrap();
        let d = find("helper", &dirs).unwrap();
        assert_eq!(
            (d.scope, d.model.as_deref()),
            (Scope::Project, Some("fable"))
        );
    }

    #[test]
    fn plugin_agents() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path();
        write(
            &home.join(".claude/plugins/cache/market/toolkit/1.0.0/agents/deep.md"),
            "---\nname: deep\nmodel: fable\n---\n",
        );
        let dirs = AgentDirs::new(&[], &[home.join(".claude")]);
        let d = find("toolkit:deep", &dirs).unwrap();
        assert_eq!(
            (d.scope, d.model.as_deref()),
            (Scope::Plugin, Some("fable"))
        );
        assert!(find("other:deep", &dirs).is_none());
        assert!(
            find("deep", &dirs).is_none(),
            "plugin agents answer only to plugin:name"
        );
    }

    #[test]
    fn claude_config_dir_moves_the_user_folder() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let cfg = t.path().join("cfg");
        for (path, name, model) in [
            (cfg.join("agents/deep.md"), "deep", "fable"),
            (home.join(".claude/agents/deep.md"), "deep", "haiku"),
            (home.join(".claude/agents/old.md"), "old", "opus"),
            (cfg.join("plugins/cache/m/kit/1/agents/p.md"), "p", "fable"),
        ] {
            write(&path, &format!("---\nname: {name}\nmodel: {model}\n---\n"));
        }
        let mut host = crate::host::Host::default();
        host.env.insert("HOME".into(), home.display().to_string());
        host.env
            .insert("CLAUDE_CONFIG_DIR".into(), cfg.display().to_string());
        let dirs = AgentDirs::new(&[], &host.user_dirs());
        // `$CLAUDE_CONFIG_DIR/agents` answers first.
        let d = find("deep", &dirs).unwrap();
        assert_eq!((d.scope, d.model.as_deref()), (Scope::User, Some("fable")));
        assert!(d.path.starts_with(&cfg), "{}", d.path.display());
        // The home folder is still searched after it.
        assert_eq!(find("old", &dirs).unwrap().model.as_deref(), Some("opus"));
        assert_eq!(
            find("kit:p", &dirs).unwrap().model.as_deref(),
            Some("fable")
        );
        // Unset: `~/.claude` only.
        host.env.remove("CLAUDE_CONFIG_DIR");
        let dirs = AgentDirs::new(&[], &host.user_dirs());
        assert_eq!(dirs.user, [home.join(".claude/agents")]);
        assert_eq!(find("deep", &dirs).unwrap().model.as_deref(), Some("haiku"));
        assert!(find("kit:p", &dirs).is_none());
    }

    #[test]
    fn definition_paths() {
        assert!(is_definition_path("/w/.claude/agents/a.md"));
        assert!(is_definition_path("/h/.claude/plugins/m/p/agents/a.md"));
        assert!(!is_definition_path("/w/docs/agents/a.md"));
        assert!(!is_definition_path("/w/.claude/agents/a.txt"));
    }
}
