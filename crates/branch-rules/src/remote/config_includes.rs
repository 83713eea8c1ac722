//! `[includeIf "hasconfig:remote.*.url:<pattern>"] path = <file>`: git reads the file when any
//! remote's URL matches the pattern; libgit2 does not know the condition and leaves the entry
//! as a plain key, so a push's destination and refspecs set in such a file were not seen
//! (issue 38's red team: `git push origin` from a branch pushed to `main` at another URL, both
//! lines allowed it). Here the condition is evaluated and the file's entries are put where git
//! reads them: right after the include, so later entries of the including file still win.
//!
//! The pattern is matched with `*` crossing `/` (git's own `*` does not): a wider match applies
//! a file git might not, never misses one it does. A file the condition names that git would
//! refuse, or one that includes further files, is an error: the caller judges the config as
//! unreadable, not as the files alone say.

use super::RemoteError;
use primitives::wildcard::{Dialect, Wildcard};
use std::path::{Path, PathBuf};

/// The largest included file read (git config files are small).
const MAX_INCLUDED_BYTES: u64 = 1024 * 1024;

/// The pattern of an `includeif.hasconfig:remote.*.url:<pattern>.path` entry name (libgit2's
/// normalised name: section and variable lower-cased, the condition as written).
fn hasconfig_pattern(name: &str) -> Option<&str> {
    name.strip_prefix("includeif.")?
        .strip_suffix(".path")?
        .strip_prefix("hasconfig:remote.*.url:")
}

/// One entry as libgit2 lists it, with the file it came from (`None`: not known).
pub(crate) struct Listed {
    pub name: String,
    pub value: Option<String>,
    pub file: Option<PathBuf>,
}

/// `listed` with the files that `hasconfig:` includes name put in place, in git's order.
pub(crate) fn with_hasconfig_includes(
    listed: Vec<Listed>,
    home: Option<&Path>,
) -> Result<Vec<(String, Option<String>)>, RemoteError> {
    let urls: Vec<String> = listed
        .iter()
        .filter(|e| is_remote_url(&e.name))
        .filter_map(|e| e.value.clone())
        .collect();
    let mut out = Vec::with_capacity(listed.len());
    for e in listed {
        let pattern = hasconfig_pattern(&e.name).map(str::to_string);
        let include = pattern
            .filter(|p| {
                let w = Wildcard::new(p, Dialect::Shell);
                urls.iter().any(|u| w.is_match(u))
            })
            .and_then(|_| e.value.clone());
        let origin = e.file.clone();
        out.push((e.name, e.value));
        if let Some(path) = include {
            out.extend(included(&path, origin.as_deref(), home)?);
        }
    }
    Ok(out)
}

/// `remote.<name>.url`.
fn is_remote_url(name: &str) -> bool {
    name.strip_prefix("remote.")
        .and_then(|r| r.strip_suffix(".url"))
        .is_some_and(|n| !n.is_empty())
}

/// The entries of the file an include names (relative to the including file's folder, `~/` from
/// the home). A missing file is no entries (git skips it too).
fn included(
    path: &str,
    from: Option<&Path>,
    home: Option<&Path>,
) -> Result<Vec<(String, Option<String>)>, RemoteError> {
    let file = match (path.strip_prefix("~/"), from.and_then(Path::parent)) {
        (Some(rest), _) => match home {
            Some(h) => h.join(rest),
            None => return Err(RemoteError(format!("{path}: no home to expand ~ with"))),
        },
        (None, _) if path.starts_with('/') => PathBuf::from(path),
        (None, Some(dir)) => dir.join(path),
        (None, None) => {
            return Err(RemoteError(format!(
                "{path}: a relative include whose file is not known"
            )))
        }
    };
    if std::fs::symlink_metadata(&file).is_err() {
        return Ok(Vec::new());
    }
    let bytes = primitives::read::prefix(&file, MAX_INCLUDED_BYTES + 1)
        .filter(|b| b.len() as u64 <= MAX_INCLUDED_BYTES)
        .ok_or_else(|| {
            RemoteError(format!(
                "{}: an included config file that cannot be read whole",
                file.display()
            ))
        })?;
    let text = String::from_utf8_lossy(&bytes);
    let entries = command_effects::git_config_files::entries(&text).ok_or_else(|| {
        RemoteError(format!(
            "{}: an included config file git would refuse",
            file.display()
        ))
    })?;
    if entries
        .iter()
        .any(|(k, _)| k.starts_with("include.") || k.starts_with("includeif."))
    {
        return Err(RemoteError(format!(
            "{}: an included config file that includes further files",
            file.display()
        )));
    }
    Ok(entries.into_iter().map(|(k, v)| (k, Some(v))).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(name: &str, value: &str, file: &Path) -> Listed {
        Listed {
            name: name.into(),
            value: Some(value.into()),
            file: Some(file.to_path_buf()),
        }
    }

    #[test]
    fn a_matching_condition_puts_the_file_in_place_and_others_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config");
        std::fs::write(
            dir.path().join("evil.cfg"),
            "[remote \"origin\"]\n\tpush = HEAD:refs/heads/main\n",
        )
        .unwrap();
        let entries = |pattern: &str| {
            with_hasconfig_includes(
                vec![
                    listed(
                        "remote.origin.url",
                        "https://github.com/maintainer/app.git",
                        &config,
                    ),
                    listed(
                        &format!("includeif.hasconfig:remote.*.url:{pattern}.path"),
                        "evil.cfg",
                        &config,
                    ),
                    listed("user.name", "m", &config),
                ],
                None,
            )
            .unwrap()
        };
        let got = entries("https://github.com/**");
        assert_eq!(got.len(), 4, "{got:?}");
        assert_eq!(
            got[2],
            (
                "remote.origin.push".into(),
                Some("HEAD:refs/heads/main".into())
            )
        );
        assert_eq!(got[3].0, "user.name", "after the include, in git's order");
        assert_eq!(
            entries("https://gitlab.com/**").len(),
            3,
            "no remote matches"
        );
        // A missing file is skipped, as git does.
        let gone = with_hasconfig_includes(
            vec![
                listed("remote.o.url", "https://github.com/a/b", &config),
                listed(
                    "includeif.hasconfig:remote.*.url:**.path",
                    "nope.cfg",
                    &config,
                ),
            ],
            None,
        )
        .unwrap();
        assert_eq!(gone.len(), 2);
        // A file that includes more is not read as if it did not.
        std::fs::write(dir.path().join("more.cfg"), "[include]\n\tpath = x\n").unwrap();
        assert!(with_hasconfig_includes(
            vec![
                listed("remote.o.url", "https://github.com/a/b", &config),
                listed(
                    "includeif.hasconfig:remote.*.url:**.path",
                    "more.cfg",
                    &config
                ),
            ],
            None,
        )
        .is_err());
    }
}
