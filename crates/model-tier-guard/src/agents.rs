//! Agent definitions: the `model:` in the front matter of `.claude/agents/*.md` files, found the
//! way the CLI finds them — project folder first, then the user's `~/.claude/agents`, then
//! plugin agent folders (`plugin:name`). Reads are bounded: a few thousand files per folder, the
//! first 16 KiB of each, three folder levels.

use crate::host::read_head;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// Definitions read per folder; a folder with more cannot be judged whole (fail closed).
const MAX_FILES_PER_ROOT: usize = 50_000;
/// Folder levels walked under an agents folder; deeper ones make the folder unreadable.
const MAX_DEPTH: usize = 32;
/// The first read of each file: most front matter ends well within it.
const FIRST_READ_BYTES: usize = 16 * 1024;
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
        }
    }
}

/// The front matter keys we read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrontMatter {
    pub name: Option<String>,
    /// The model the file sets: the one value, the highest of competing ones, or a note of no
    /// known family when it cannot be read (so it is judged as the tier).
    pub model: Option<String>,
}

/// Parses the YAML front matter between the leading `---` lines ([`crate::front_matter`]).
pub fn front_matter(text: &str) -> Option<FrontMatter> {
    let fm = crate::front_matter::parse(text)?;
    Some(FrontMatter {
        model: decisive_model(&fm),
        name: fm.name,
    })
}

/// The model to judge for a front matter: a `model` that cannot be read is a model of no known
/// family (fail closed); of several values, the highest ranked (`inherit` only when alone).
pub fn decisive_model(fm: &crate::front_matter::FrontMatter) -> Option<String> {
    if let Some(why) = &fm.unreadable {
        return Some(unreadable_model(why));
    }
    let named: Vec<&String> = fm
        .models
        .iter()
        .filter(|m| !m.eq_ignore_ascii_case("inherit"))
        .collect();
    if named.is_empty() {
        return fm.models.first().cloned();
    }
    named
        .into_iter()
        .rev()
        .max_by_key(|m| crate::m1_tiers::Family::of(m).rank())
        .cloned()
}

/// A model standing for one that could not be read: of no known family, so every rule treats it
/// as the maintainer-only tier, and the reason says why.
pub fn unreadable_model(why: &str) -> String {
    format!("(unreadable definition: {why})")
}

/// Finds the definition the CLI would use for `subagent_type`. Project definitions win over
/// user ones, user over plugin ones; `plugin:name` is looked up only among plugins. A folder
/// that could not be read whole (past the file or depth bound) and did not hold the name
/// answers with a definition of an unreadable model: one there may set any model.
pub fn find(subagent_type: &str, dirs: &AgentDirs) -> Option<AgentDef> {
    if let Some((plugin, name)) = subagent_type.split_once(':') {
        return dirs
            .plugins
            .iter()
            .find_map(|root| find_plugin(root, plugin, name, subagent_type));
    }
    for root in &dirs.project {
        if let Some(d) = find_in(root, subagent_type, Scope::Project) {
            return Some(d);
        }
    }
    dirs.user
        .iter()
        .find_map(|root| find_in(root, subagent_type, Scope::User))
}

/// The `.md` files under `root` (links to regular files included, linked folders not
/// followed). `Err` when the walk stopped at a bound: the list is then incomplete.
pub fn md_files(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() {
                if depth + 1 >= MAX_DEPTH {
                    return Err(format!("folders nested deeper than {MAX_DEPTH} levels"));
                }
                stack.push((p, depth + 1));
            } else if p.extension().is_some_and(|x| x == "md") {
                // Only regular files (or links to them): a FIFO named `x.md` would block the read.
                let regular = kind.is_file()
                    || (kind.is_symlink() && std::fs::metadata(&p).is_ok_and(|m| m.is_file()));
                if regular {
                    if out.len() >= MAX_FILES_PER_ROOT {
                        return Err(format!("more than {MAX_FILES_PER_ROOT} files"));
                    }
                    out.push(p);
                }
            }
        }
    }
    Ok(out)
}

fn find_in(root: &Path, name: &str, scope: Scope) -> Option<AgentDef> {
    let (mut files, incomplete) = match md_files(root) {
        Ok(f) => (f, None),
        Err(why) => (Vec::new(), Some(why)),
    };
    // The file named after the agent is the likely one: read it first.
    files.sort_by_key(|p| p.file_stem().is_none_or(|s| s != name));
    let mut buf = Vec::new();
    for path in &files {
        let Some((def_name, model)) = read_definition(path, &mut buf) else {
            continue;
        };
        if def_name == name {
            return Some(AgentDef {
                name: def_name,
                model,
                path: path.clone(),
                scope,
            });
        }
    }
    incomplete.map(|why| AgentDef {
        name: name.to_string(),
        model: Some(unreadable_model(&format!(
            "the folder could not be read whole: {why}"
        ))),
        path: root.to_path_buf(),
        scope,
    })
}

/// A definition's `(name, model)`; the name defaults to the file stem. Every file is parsed
/// (no cache is trusted: a name or model the agent could rewrite in a cache would hide the file).
pub fn read_definition(path: &Path, buf: &mut Vec<u8>) -> Option<(String, Option<String>)> {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned())?;
    match read_front(path, buf)? {
        Front::Text(text) => {
            let fm = front_matter(&text)?;
            Some((fm.name.unwrap_or(stem), fm.model))
        }
        Front::TooLong(head) => {
            // What could be read names the agent; the model cannot be known.
            let name = crate::front_matter::block(&head)
                .map(crate::front_matter::parse_block)
                .and_then(|fm| fm.name)
                .unwrap_or(stem);
            Some((
                name,
                Some(unreadable_model("its front matter is over 1 MiB")),
            ))
        }
    }
}

enum Front {
    /// The file's start, holding the whole front matter (or no front matter).
    Text(String),
    /// The front matter does not end within the bound: what was read.
    TooLong(String),
}

/// Reads a file's start until its front matter has ended: 16 KiB first (most files), then
/// more up to [`crate::front_matter::MAX_FRONT_MATTER_BYTES`].
fn read_front(path: &Path, buf: &mut Vec<u8>) -> Option<Front> {
    use std::io::Read;
    buf.clear();
    buf.resize(FIRST_READ_BYTES, 0);
    let (file, n) = read_head(path, buf)?;
    buf.truncate(n);
    if n == FIRST_READ_BYTES && !front_matter_closed(buf) {
        let limit = crate::front_matter::MAX_FRONT_MATTER_BYTES as u64;
        file.take(limit - n as u64).read_to_end(buf).ok()?;
        if !front_matter_closed(buf) && buf.len() as u64 >= limit {
            return Some(Front::TooLong(String::from_utf8_lossy(buf).into_owned()));
        }
    }
    Some(Front::Text(String::from_utf8_lossy(buf).into_owned()))
}

/// Whether `head` has no front matter or its front matter has closed.
fn front_matter_closed(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    let Some(block) = crate::front_matter::block(&text) else {
        return true;
    };
    // `block` returns the rest when no closing line was found.
    let after = text.find(block).map(|i| i + block.len()).unwrap_or(0);
    after < text.len()
}

fn find_plugin(root: &Path, plugin: &str, name: &str, full: &str) -> Option<AgentDef> {
    let mut found = None;
    walk_plugin(
        root,
        plugin,
        &["agents"],
        MAX_FILES_PER_ROOT,
        &mut |dir| match find_in(&dir.join("agents"), name, Scope::Plugin) {
            Some(mut d) => {
                d.name = full.to_string();
                found = Some(d);
                ControlFlow::Break(())
            }
            None => ControlFlow::Continue(()),
        },
    );
    found
}

/// Walks the folders under `root` (a `plugins` folder; caches nest
/// `<marketplace>/<plugin>/<version>/...`) up to `MAX_PLUGIN_DEPTH` levels and `max_dirs`
/// folders, and visits each folder of the plugin `plugin` that holds one of the `wanted` folders
/// (`agents`, `skills`, `commands`), which are not walked into. Agents and skills share it.
pub fn walk_plugin(
    root: &Path,
    plugin: &str,
    wanted: &[&str],
    max_dirs: usize,
    visit: &mut dyn FnMut(&Path) -> ControlFlow<()>,
) {
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    let mut visited = 0usize;
    while let Some((dir, depth)) = stack.pop() {
        visited += 1;
        if visited > max_dirs {
            return;
        }
        let in_plugin = dir.components().any(|c| c.as_os_str() == plugin);
        if in_plugin && wanted.iter().any(|w| dir.join(w).is_dir()) && visit(&dir).is_break() {
            return;
        }
        if depth >= MAX_PLUGIN_DEPTH {
            continue;
        }
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.flatten() {
                let name = e.file_name();
                let skip = wanted.iter().any(|w| name == *w);
                if !skip && e.file_type().is_ok_and(|t| t.is_dir()) {
                    stack.push((e.path(), depth + 1));
                }
            }
        }
    }
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
    use crate::test_files::{folders, write, write_all};

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
        let f = folders();
        let (project, home) = (f.project, f.home);
        write_all(&[
            (
                &home,
                ".claude/agents/rev.md",
                "---\nname: rev\nmodel: fable\n---\n",
            ),
            (
                &home,
                ".claude/agents/only-user.md",
                "---\nname: only-user\nmodel: opus\n---\n",
            ),
            (
                &project,
                ".claude/agents/x/review.md",
                "---\nname: rev\nmodel: haiku\n---\n",
            ),
            (
                &project,
                ".claude/agents/plain.md",
                "---\ndescription: d\n---\n",
            ),
        ]);
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
    fn in_place_edits_deep_folders_and_yaml_shapes_are_seen() {
        let f = folders();
        let (project, home) = (f.project, f.home);
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
        let dirs = AgentDirs::new(std::slice::from_ref(&project), &[home.join(".claude")]);
        let d = find("helper", &dirs).unwrap();
        assert_eq!((d.scope, d.model.as_deref()), (Scope::User, Some("sonnet")));
        // A project file rewritten in place to shadow the user's agent, its model on the next
        // line, is seen at once.
        std::fs::write(
            project.join(".claude/agents/a7.md"),
            "---\n\"name\": helper\nmodel:\n  fable\n---\n",
        )
        .unwrap();
        let d = find("helper", &dirs).unwrap();
        assert_eq!(
            (d.scope, d.model.as_deref()),
            (Scope::Project, Some("fable"))
        );
        // Six folders down.
        write(
            &project.join(".claude/agents/a/b/c/d/e/f/deep.md"),
            "---\n{name: deep, model: fable}\n---\n",
        );
        assert_eq!(find("deep", &dirs).unwrap().model.as_deref(), Some("fable"));
    }

    #[test]
    fn a_folder_past_the_bounds_is_unreadable_not_empty() {
        let f = folders();
        let project = f.project;
        let mut deep = project.join(".claude/agents");
        for i in 0..MAX_DEPTH + 1 {
            deep = deep.join(format!("d{i}"));
        }
        write(&deep.join("x.md"), "---\nname: x\nmodel: fable\n---\n");
        let dirs = AgentDirs::new(std::slice::from_ref(&project), &[]);
        let d = find("x", &dirs).unwrap();
        assert_eq!(
            crate::m1_tiers::Family::of(d.model.as_deref().unwrap()).rank(),
            3,
            "{d:?}"
        );
        assert!(d.model.unwrap().contains("deeper"));
    }

    #[test]
    fn more_than_four_thousand_definitions_are_all_read() {
        let f = folders();
        let project = f.project;
        let dir = project.join(".claude/agents");
        std::fs::create_dir_all(&dir).unwrap();
        for i in 0..4100 {
            std::fs::write(
                dir.join(format!("a{i:05}.md")),
                format!("---\nname: a{i}\nmodel: haiku\n---\n"),
            )
            .unwrap();
        }
        std::fs::write(dir.join("zzzz.md"), "---\nname: late\nmodel: fable\n---\n").unwrap();
        let dirs = AgentDirs::new(std::slice::from_ref(&project), &[]);
        assert_eq!(find("late", &dirs).unwrap().model.as_deref(), Some("fable"));
    }

    #[test]
    fn a_long_description_in_a_file_does_not_hide_the_model() {
        let f = folders();
        let project = f.project;
        let desc = "word ".repeat(8 * 1024);
        write(
            &project.join(".claude/agents/big.md"),
            &format!("---\nname: big\ndescription: {desc}\nmodel: fable\n---\nbody\n"),
        );
        let dirs = AgentDirs::new(std::slice::from_ref(&project), &[]);
        assert_eq!(find("big", &dirs).unwrap().model.as_deref(), Some("fable"));
        let huge = "w".repeat(2 * 1024 * 1024);
        write(
            &project.join(".claude/agents/huge.md"),
            &format!("---\nname: huge\ndescription: {huge}\nmodel: haiku\n---\n"),
        );
        let d = find("huge", &dirs).unwrap();
        assert!(d.model.unwrap().contains("over 1 MiB"));
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
