//! Paths as the rules compare them: absolute, lexically normalised, `~` expanded; plus the small
//! glob matcher that decides whether a pattern a command names could reach a given path.
//!
//! Normalisation is lexical (no file system access): a hook judges the text of a call before it
//! runs, and the path it names may not exist yet.

use std::path::{Component, Path, PathBuf};

/// Removes `.` and resolves `..` lexically: command-effects' one normaliser.
pub use command_effects::dirs::normalise;

/// `text` as an absolute normalised path: `~` and `~/...` use `home`, a relative path is joined to
/// `base`. `None` when it cannot be made absolute (no base, no home).
pub fn absolute(text: &str, base: Option<&Path>, home: Option<&Path>) -> Option<PathBuf> {
    let expanded: PathBuf = if text == "~" {
        home?.to_path_buf()
    } else if let Some(rest) = text.strip_prefix("~/") {
        home?.join(rest)
    } else {
        PathBuf::from(text)
    };
    let joined = if expanded.is_absolute() {
        expanded
    } else {
        base?.join(expanded)
    };
    through_proc_self(joined, base).map(|p| normalise(&p))
}

/// `/proc/self/root/x` (or `thread-self`) is `/x`; `/proc/self/cwd/x` is `x` in `base` (the
/// process that opens it runs there); a few levels deep. `None` for `cwd` without a base.
fn through_proc_self(mut path: PathBuf, base: Option<&Path>) -> Option<PathBuf> {
    for _ in 0..8 {
        let comps: Vec<Component> = path.components().collect();
        let names: Vec<String> = comps
            .iter()
            .take(4)
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let is_proc_self = names.len() == 4
            && names[0] == "/"
            && names[1] == "proc"
            && (names[2] == "self" || names[2] == "thread-self");
        let rest: PathBuf = comps.iter().skip(4).collect();
        path = match (is_proc_self, names.get(3).map(String::as_str)) {
            (true, Some("root")) => Path::new("/").join(rest),
            (true, Some("cwd")) => base?.join(rest),
            _ => return Some(path),
        };
    }
    Some(path)
}

/// `path` (absolute, normalised) with the symlinks among its existing leading components
/// followed, as the file system is when the hook runs; `None` when that changes nothing or
/// nothing of it exists. Only links are read (no file is opened: a FIFO cannot hang it).
pub fn through_links(path: &Path) -> Option<PathBuf> {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    while std::fs::symlink_metadata(&existing).is_err() {
        rest.push(existing.file_name()?.to_owned());
        if !existing.pop() {
            return None;
        }
    }
    let mut out = std::fs::canonicalize(&existing).ok()?;
    out.extend(rest.iter().rev());
    (out != path).then_some(out)
}

/// True when `path` is `root` or inside it (component-wise; `/scoring2` is not in `/scoring`).
pub fn is_within(path: &Path, root: &Path) -> bool {
    path.starts_with(root)
}

/// True when `text` holds an unquoted glob character the shell would expand.
pub fn has_glob(text: &str) -> bool {
    text.contains(['*', '?', '['])
}

/// Shell-style match of a whole string: `*` any run (also across `/`, which only widens what a
/// pattern may reach), `?` one character, `[...]` one character of a class (treated as any).
pub fn glob_matches(pattern: &str, text: &str) -> bool {
    primitives::wildcard::matches(pattern, primitives::wildcard::Dialect::Shell, text)
}

/// True when a glob `pattern` (absolute) could name `target` or something inside it.
pub fn glob_reaches(pattern: &str, target: &Path) -> bool {
    let t = target.to_string_lossy();
    glob_matches(pattern, &t) || glob_matches(pattern, &format!("{t}/x")) || {
        // The literal directory part before the first glob character inside the target.
        let lit_end = pattern.find(['*', '?', '[']).unwrap_or(pattern.len());
        let lit = &pattern[..lit_end];
        let dir = match lit.rfind('/') {
            Some(i) => &lit[..i.max(1)],
            None => "",
        };
        !dir.is_empty() && Path::new(dir).starts_with(target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_of_one_path() {
        let home = Some(Path::new("/home/u"));
        let base = Some(Path::new("/work/p"));
        let want = Some(PathBuf::from("/home/u/.claude/settings.json"));
        for text in [
            "~/.claude/settings.json",
            "/home/u//.claude/./settings.json",
            "/home/u/x/../.claude/settings.json",
            "/proc/self/root/home/u/.claude/settings.json",
            "/proc/thread-self/root/proc/self/root/home/u/.claude/settings.json",
            "/proc/self/cwd/../../home/u/.claude/settings.json",
            "../../home/u/.claude/settings.json",
        ] {
            assert_eq!(absolute(text, base, home), want, "{text}");
        }
        assert_eq!(
            absolute("/proc/self/cwd/a", base, home),
            Some(PathBuf::from("/work/p/a"))
        );
        assert_eq!(absolute("/proc/self/cwd/a", None, home), None);
        assert_eq!(
            absolute("/proc/self/status", base, home),
            Some(PathBuf::from("/proc/self/status"))
        );
    }

    #[test]
    fn normalises_lexically() {
        assert_eq!(normalise(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(normalise(Path::new("/../x")), PathBuf::from("/x"));
        assert_eq!(normalise(Path::new("a/../../b")), PathBuf::from("../b"));
        // A `..` after one kept stays (it was dropped: `../..` read as the start).
        assert_eq!(normalise(Path::new("../../b")), PathBuf::from("../../b"));
        assert_eq!(normalise(Path::new("./a/./b/..")), PathBuf::from("a"));
    }

    #[test]
    fn absolute_expands_home_and_base() {
        let h = Path::new("/home/u");
        let b = Path::new("/w/p");
        assert_eq!(
            absolute("~/.claude", Some(b), Some(h)),
            Some(PathBuf::from("/home/u/.claude"))
        );
        assert_eq!(
            absolute("../q", Some(b), Some(h)),
            Some(PathBuf::from("/w/q"))
        );
        assert_eq!(absolute("x", None, Some(h)), None);
        assert_eq!(
            absolute("/etc//passwd", None, None),
            Some(PathBuf::from("/etc/passwd"))
        );
    }

    #[test]
    fn within_is_component_wise() {
        assert!(is_within(Path::new("/scoring/a"), Path::new("/scoring")));
        assert!(is_within(Path::new("/scoring"), Path::new("/scoring")));
        assert!(!is_within(Path::new("/scoring2"), Path::new("/scoring")));
    }

    #[test]
    fn globs() {
        assert!(glob_matches(
            "/h/.claude/settings*.json",
            "/h/.claude/settings.local.json"
        ));
        assert!(glob_matches("/scor?ng", "/scoring"));
        assert!(glob_matches("/s[a-z]oring", "/scoring"));
        assert!(!glob_matches("/h/*.txt", "/h/a.json"));
        assert!(glob_reaches(
            "/h/.local/share/agent-guards/bin/*",
            Path::new("/h/.local/share/agent-guards")
        ));
        assert!(glob_reaches(
            "/h/.local/*",
            Path::new("/h/.local/share/agent-guards")
        ));
        assert!(!glob_reaches(
            "/w/src/*.rs",
            Path::new("/h/.local/share/agent-guards")
        ));
    }
}
