//! M3: skills and slash commands whose front matter names a `model:` — invoking one runs that
//! turn on its model. Found where the CLI finds them: `.claude/skills/<name>/SKILL.md` and
//! `.claude/commands/**/<name>.md` of the project folders and the user's folders, and
//! `plugin:name` in the `skills/` and `commands/` folders of that plugin. Every definition that
//! answers to the name is judged (the precedence among them does not matter: the highest
//! model is what a maintainer must allow).

use crate::agents::{md_files, read_definition, unreadable_model, walk_plugin};
use crate::m3_launch::Requested;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// Plugin folders walked at most (the depth bound is [`crate::agents`]'s).
const MAX_PLUGIN_DIRS: usize = 4000;

/// The folders skills and commands are read from.
#[derive(Debug, Clone, Default)]
pub struct SkillDirs {
    /// `.claude` folders of the project, then the user's config folders.
    pub claude_dirs: Vec<PathBuf>,
    /// The user's `plugins` folders.
    pub plugins: Vec<PathBuf>,
}

impl SkillDirs {
    pub fn new(project_dirs: &[PathBuf], user_dirs: &[PathBuf]) -> SkillDirs {
        let mut claude_dirs: Vec<PathBuf> =
            project_dirs.iter().map(|d| d.join(".claude")).collect();
        claude_dirs.extend(user_dirs.iter().cloned());
        claude_dirs.dedup();
        SkillDirs {
            plugins: user_dirs.iter().map(|d| d.join("plugins")).collect(),
            claude_dirs,
        }
    }
}

/// The name a slash-command prompt invokes (`/review now` → `review`), if it is one.
pub fn invoked_by_prompt(prompt: &str) -> Option<&str> {
    let rest = prompt.trim_start().strip_prefix('/')?;
    let name = rest.split_whitespace().next()?;
    (!name.is_empty() && !name.contains('/')).then_some(name)
}

/// Models the skills and commands called `name` run on.
pub fn requested_models(name: &str, dirs: &SkillDirs) -> Vec<Requested> {
    let name = name.trim().trim_start_matches('/');
    let mut out = Vec::new();
    match name.split_once(':') {
        Some((plugin, short)) if !plugin.is_empty() => {
            for root in &dirs.plugins {
                for base in plugin_folders(root, plugin) {
                    scan(&base, short, &mut out);
                }
            }
            // Subfolder commands are also spelled `folder:name`.
            for base in &dirs.claude_dirs {
                scan(base, short, &mut out);
            }
        }
        _ => {
            for base in &dirs.claude_dirs {
                scan(base, name, &mut out);
            }
        }
    }
    out
}

/// Looks for `name` in `base/skills` and `base/commands`.
fn scan(base: &Path, name: &str, out: &mut Vec<Requested>) {
    let mut buf = Vec::new();
    for (folder, what) in [("skills", "skill"), ("commands", "command")] {
        let root = base.join(folder);
        if !root.is_dir() {
            continue;
        }
        let files = match md_files(&root) {
            Ok(f) => f,
            Err(why) => {
                out.push(Requested {
                    model: Some(unreadable_model(&format!(
                        "{} could not be read whole: {why}",
                        root.display()
                    ))),
                    source: format!("the {what} folder {}", root.display()),
                });
                continue;
            }
        };
        for path in files {
            let is_skill_file = path.file_name().is_some_and(|f| f == "SKILL.md");
            let folder_name = path
                .parent()
                .and_then(Path::file_name)
                .map(|s| s.to_string_lossy().into_owned());
            let Some((def_name, model)) = read_definition(&path, &mut buf) else {
                continue;
            };
            let stem_name = if is_skill_file {
                folder_name.clone().unwrap_or_default()
            } else {
                path.file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default()
            };
            let answers = def_name == name || stem_name == name;
            let Some(model) = model.filter(|m| !m.eq_ignore_ascii_case("inherit")) else {
                continue;
            };
            if answers {
                out.push(Requested {
                    model: Some(model),
                    source: format!("the {what} {}", path.display()),
                });
            }
        }
    }
}

/// Folders of the plugin `plugin` under `root` that hold `skills/` or `commands/`.
fn plugin_folders(root: &Path, plugin: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    walk_plugin(
        root,
        plugin,
        &["skills", "commands"],
        MAX_PLUGIN_DIRS,
        &mut |dir| {
            found.push(dir.to_path_buf());
            ControlFlow::Continue(())
        },
    );
    found
}

/// Whether a path is a skill or a slash command (`.claude/skills/**.md`,
/// `.claude/commands/**.md`, a plugin's `skills/` or `commands/`).
pub fn is_skill_or_command_path(path: &str) -> bool {
    let p = path.replace('\\', "/");
    p.ends_with(".md")
        && (p.contains("/.claude/skills/")
            || p.contains("/.claude/commands/")
            || (p.contains("/.claude/plugins/")
                && (p.contains("/skills/") || p.contains("/commands/"))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_files::{folders, models_of, write_all};

    fn models(name: &str, dirs: &SkillDirs) -> Vec<String> {
        models_of(requested_models(name, dirs))
            .into_iter()
            .flatten()
            .collect()
    }

    #[test]
    fn skills_and_commands_name_their_models() {
        let f = folders();
        let (project, home) = (f.project, f.home.join(".claude"));
        write_all(&[
            (
                &project,
                ".claude/skills/deep-think/SKILL.md",
                "---\nname: deep-think\ndescription: d\nmodel:\n  fable\n---\nThink.\n",
            ),
            (
                &project,
                ".claude/commands/ops/ship.md",
                "---\n{description: d, model: claude-fable-5}\n---\nShip.\n",
            ),
            (&home, "commands/lint.md", "---\nmodel: haiku\n---\nLint.\n"),
            (
                &home,
                "plugins/cache/m/kit/1.0/skills/big/SKILL.md",
                "---\nname: big\nmodel: fable\n---\n",
            ),
        ]);
        let dirs = SkillDirs::new(std::slice::from_ref(&project), &[home]);
        // Plugin skills answer only to `plugin:name`, so a bare `big` names none.
        let none: &[&str] = &[];
        for (name, want) in [
            ("deep-think", &["fable"][..]),
            ("ship", &["claude-fable-5"]),
            ("ops:ship", &["claude-fable-5"]),
            ("lint", &["haiku"]),
            ("kit:big", &["fable"]),
            ("absent", none),
            ("big", none),
        ] {
            assert_eq!(models(name, &dirs), want, "{name}");
        }
    }

    #[test]
    fn prompts_and_paths() {
        for (prompt, invoked) in [
            ("/ship now", Some("ship")),
            ("  /kit:big", Some("kit:big")),
            ("see /usr/bin", None),
            ("/usr/bin/x", None),
        ] {
            assert_eq!(invoked_by_prompt(prompt), invoked, "{prompt}");
        }
        for (path, is) in [
            ("/w/.claude/skills/x/SKILL.md", true),
            ("/w/.claude/commands/a/b.md", true),
            ("/h/.claude/plugins/m/p/skills/s/SKILL.md", true),
            ("/w/docs/skills/x.md", false),
        ] {
            assert_eq!(is_skill_or_command_path(path), is, "{path}");
        }
    }
}
