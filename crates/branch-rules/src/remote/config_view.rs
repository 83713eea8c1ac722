//! The repository's git configuration as one git command sees it: the files (through git2) plus
//! the command's own config overrides (`git -c k=v`, `--config-env`, `GIT_CONFIG_COUNT`/
//! `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, `GIT_CONFIG_PARAMETERS`), which git reads last, at
//! the highest priority. Without them, `git -c remote.origin.pushurl=... push` would push
//! somewhere the files do not say.

use super::RemoteError;
use std::borrow::Cow;

/// Config entries given to one git command, in the order git reads them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigOverrides {
    /// (normalised key, value)
    entries: Vec<(String, String)>,
}

impl ConfigOverrides {
    /// No overrides.
    pub fn none() -> Self {
        Self::default()
    }

    /// Overrides from `(key, value)` pairs in the order git reads them. A key git would reject
    /// (no section or no name) is skipped. `git -c key` with no `=` means `true`; pass that as
    /// the value.
    pub fn from_pairs<I, K, V>(pairs: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let entries = pairs
            .into_iter()
            .filter_map(|(k, v)| {
                normalise_key(k.as_ref()).map(|k| (k.into_owned(), v.as_ref().to_string()))
            })
            .collect();
        ConfigOverrides { entries }
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn values<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.entries
            .iter()
            .filter(move |(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// `section.subsection.name` with section and name lower-cased (git's rule; the subsection keeps
/// its case). `None` when there is no section or no name. Borrowed when already so (the rules
/// ask with lower-case literal names a dozen times per push).
fn normalise_key(key: &str) -> Option<Cow<'_, str>> {
    let first = key.find('.')?;
    let last = key.rfind('.')?;
    let section = &key[..first];
    let name = &key[last + 1..];
    if section.is_empty() || name.is_empty() {
        return None;
    }
    let upper = |s: &str| s.bytes().any(|b| b.is_ascii_uppercase());
    if !upper(section) && !upper(name) {
        return Some(Cow::Borrowed(key));
    }
    if first == last {
        return Some(Cow::Owned(format!(
            "{}.{}",
            section.to_ascii_lowercase(),
            name.to_ascii_lowercase()
        )));
    }
    Some(Cow::Owned(format!(
        "{}.{}.{}",
        section.to_ascii_lowercase(),
        &key[first + 1..last],
        name.to_ascii_lowercase()
    )))
}

/// The entries of a repository's config files, read once in libgit2's iteration order (lowest
/// priority first: system, global, the repository's own; within a file, in order). Every
/// question of a judgement is answered from this list: each libgit2 iterator copies every
/// entry of every file, and one push asks a dozen questions in four lookups. A holder that
/// knows the files are unchanged (the exec gate's repository cache) may keep it longer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RepoConfig {
    /// (normalised name, value; `None` for a bare `key` line)
    entries: Vec<(String, Option<String>)>,
}

impl RepoConfig {
    /// The entries of `repo`'s config files as they are now, with the files git includes by a
    /// `hasconfig:` condition in place (libgit2 does not: `config_includes`).
    pub fn read(repo: &git2::Repository) -> Result<Self, RemoteError> {
        use git2::ConfigLevel;
        let (local, worktree) = (
            repo.commondir().join("config"),
            repo.path().join("config.worktree"),
        );
        let file_of = |level: ConfigLevel| match level {
            ConfigLevel::Local => Some(local.clone()),
            ConfigLevel::Worktree => Some(worktree.clone()),
            ConfigLevel::Global => git2::Config::find_global().ok(),
            ConfigLevel::XDG => git2::Config::find_xdg().ok(),
            ConfigLevel::System => git2::Config::find_system().ok(),
            _ => None,
        };
        Self::of_files(&repo.config()?, &file_of)
    }

    #[cfg(test)]
    fn of(config: &git2::Config) -> Result<Self, RemoteError> {
        Self::of_files(config, &|_| None)
    }

    /// The entries of `config`; `file_of` names the file of each level (for the folder a
    /// relative include is read from).
    fn of_files(
        config: &git2::Config,
        file_of: &dyn Fn(git2::ConfigLevel) -> Option<std::path::PathBuf>,
    ) -> Result<Self, RemoteError> {
        let mut listed = Vec::new();
        let mut all = config.entries(None)?;
        while let Some(entry) = all.next() {
            let entry = entry?;
            let value = entry
                .has_value()
                .then(|| String::from_utf8_lossy(entry.value_bytes()).into_owned());
            listed.push(super::config_includes::Listed {
                name: String::from_utf8_lossy(entry.name_bytes()).into_owned(),
                value,
                file: file_of(entry.level()),
            });
        }
        let home = primitives::home::home(&|k| std::env::var(k).ok());
        let entries = super::config_includes::with_hasconfig_includes(listed, home.as_deref())?;
        Ok(RepoConfig { entries })
    }

    /// `(rest of the name, value)` of every valued entry whose normalised name starts with
    /// `prefix` (`"alias."`), in git's order: a later one overrides an earlier.
    pub fn with_prefix<'a>(
        &'a self,
        prefix: &'a str,
    ) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
        self.entries
            .iter()
            .filter_map(move |(k, v)| Some((k.strip_prefix(prefix)?, v.as_deref()?)))
    }
}

/// Files plus overrides, read the way git reads them: the files' entries ([`RepoConfig`]),
/// then the command's own settings.
pub(crate) struct ConfigView<'o> {
    files: &'o RepoConfig,
    overrides: &'o ConfigOverrides,
}

impl<'o> ConfigView<'o> {
    pub(crate) fn new(files: &'o RepoConfig, overrides: &'o ConfigOverrides) -> Self {
        ConfigView { files, overrides }
    }

    /// The files' entries named `name` (normalised as libgit2 does; a name it could not parse
    /// is simply unset), in order.
    fn named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Option<String>> + 'a {
        let key = normalise_key(name);
        self.files
            .entries
            .iter()
            .filter(move |(k, _)| key.as_deref() == Some(k.as_str()))
            .map(|(_, v)| v)
    }

    /// All values of a multi-valued key: the files' in git's order, then the overrides'.
    pub(crate) fn multivar(&self, name: &str) -> Result<Vec<String>, RemoteError> {
        let mut out: Vec<String> = self.named(name).flatten().cloned().collect();
        if let Some(key) = normalise_key(name) {
            out.extend(self.overrides.values(&key).map(str::to_string));
        }
        Ok(out)
    }

    /// The value that decides a single-valued key: the last override, else the files' last
    /// entry (the highest priority file's last line); `None` when unset.
    fn last(&self, name: &str) -> Option<Option<String>> {
        let overridden = normalise_key(name)
            .and_then(|key| self.overrides.values(&key).last().map(str::to_string));
        match overridden {
            Some(v) => Some(Some(v)),
            None => self.named(name).last().cloned(),
        }
    }

    /// A single-valued key (a bare `key` line is empty, as libgit2 reads it); unset → `None`.
    pub(crate) fn get_string(&self, name: &str) -> Option<String> {
        self.last(name).map(Option::unwrap_or_default)
    }

    /// A boolean key (a bare `key` line is true); unset or not a boolean → `None`.
    pub(crate) fn get_bool(&self, name: &str) -> Option<bool> {
        match self.last(name)? {
            None => Some(true),
            Some(value) => git2::Config::parse_bool(value).ok(),
        }
    }

    /// (name, value) of every entry whose normalised name is `wanted`, files then overrides.
    pub(crate) fn entries_where(
        &self,
        wanted: impl Fn(&str) -> bool,
    ) -> Result<Vec<(String, String)>, RemoteError> {
        let mut out: Vec<(String, String)> = self
            .files
            .entries
            .iter()
            .filter(|(k, _)| wanted(k))
            .filter_map(|(k, v)| Some((k.clone(), v.clone()?)))
            .collect();
        out.extend(
            self.overrides
                .entries
                .iter()
                .filter(|(k, _)| wanted(k))
                .cloned(),
        );
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_answers_what_libgit2_answers() {
        // Two levels (the repository's file wins), duplicates (the last line wins), a bare
        // key, subsection case, an included file, and names libgit2 cannot parse.
        let dir = tempfile::tempdir().unwrap();
        let system = dir.path().join("system");
        let local = dir.path().join("local");
        let included = dir.path().join("included");
        std::fs::write(
            &system,
            "[push]\n\tdefault = matching\n[remote \"origin\"]\n\turl = sys-url\n\tmirror = true\n\
             [url \"https://x/\"]\n\tinsteadOf = x:\n[alias]\n\tp = sys\n\tst = status\n",
        )
        .unwrap();
        std::fs::write(&included, "[remote \"origin\"]\n\tpushurl = inc-push\n").unwrap();
        std::fs::write(
            &local,
            format!(
                "[remote \"origin\"]\n\turl = a\n\turl = b\n\tmirror\n\tpush = HEAD:main\n\
                 [remote \"Origin\"]\n\turl = upper\n[push]\n\tdefault = simple\n\tdefault = upstream\n\
                 [Push]\n\tautoSetupRemote = no\n[branch \"main\"]\n\tremote = origin\n\tmerge\n\
                 [include]\n\tpath = {}\n[url \"git@h:\"]\n\tpushInsteadOf = h:\n\
                 [Alias]\n\tp = push\n\tShip = push origin main\n\tbare\n",
                included.display()
            ),
        )
        .unwrap();
        let mut config = git2::Config::new().unwrap();
        config
            .add_file(&system, git2::ConfigLevel::System, false)
            .unwrap();
        config
            .add_file(&local, git2::ConfigLevel::Local, false)
            .unwrap();
        let none = ConfigOverrides::none();
        let files = RepoConfig::of(&config).unwrap();
        let view = ConfigView::new(&files, &none);
        let mut keys = 0;
        for key in [
            "remote.origin.url",
            "remote.Origin.url",
            "REMOTE.origin.URL",
            "remote.origin.pushurl",
            "remote.origin.push",
            "remote.origin.mirror",
            "push.default",
            "push.autosetupremote",
            "branch.main.remote",
            "branch.main.merge",
            "remote.nothere.url",
            "url.https://x/.insteadof",
            "url.git@h:.pushinsteadof",
            "nodot",
            "remote.a b.url",
        ] {
            let mut files = Vec::new();
            if let Ok(mut it) = config.multivar(key, None) {
                while let Some(e) = it.next() {
                    let e = e.unwrap();
                    if e.has_value() {
                        files.push(e.value().unwrap().to_string());
                    }
                }
            }
            assert_eq!(view.multivar(key).unwrap(), files, "{key}");
            assert_eq!(view.get_string(key), config.get_string(key).ok(), "{key}");
            assert_eq!(view.get_bool(key), config.get_bool(key).ok(), "{key}");
            keys += usize::from(!files.is_empty());
        }
        assert!(keys >= 9, "{keys}");
        assert_eq!(
            view.multivar("remote.origin.url").unwrap(),
            ["sys-url", "a", "b"]
        );
        assert_eq!(view.get_string("push.default").as_deref(), Some("upstream"));
        assert_eq!(view.get_bool("remote.origin.mirror"), Some(true));
        let rewrites = view.entries_where(|n| n.starts_with("url.")).unwrap();
        assert_eq!(rewrites.len(), 2, "{rewrites:?}");
        // Aliases as gh-write-guard reads them: libgit2's `^alias\.` entries, later wins.
        let mut libgit2 = std::collections::BTreeMap::new();
        let mut it = config.entries(Some(r"^alias\.")).unwrap();
        while let Some(e) = it.next() {
            let e = e.unwrap();
            if e.has_value() {
                let name = e
                    .name()
                    .unwrap()
                    .strip_prefix("alias.")
                    .unwrap()
                    .to_string();
                libgit2.insert(name, e.value().unwrap().to_string());
            }
        }
        let ours: std::collections::BTreeMap<String, String> = files
            .with_prefix("alias.")
            .map(|(a, v)| (a.to_string(), v.to_string()))
            .collect();
        assert_eq!(ours, libgit2);
        assert_eq!(ours.get("p").map(String::as_str), Some("push"));
        assert_eq!(ours.len(), 3, "{ours:?}");
    }

    #[test]
    fn keys_normalise_like_git() {
        assert_eq!(
            normalise_key("Remote.Origin.PushURL").as_deref(),
            Some("remote.Origin.pushurl")
        );
        assert_eq!(
            normalise_key("url.git@github.com:me/.pushInsteadOf").as_deref(),
            Some("url.git@github.com:me/.pushinsteadof")
        );
        assert_eq!(
            normalise_key("Push.Default").as_deref(),
            Some("push.default")
        );
        // Already normalised: the name itself, not a copy.
        assert!(matches!(
            normalise_key("remote.Origin.url"),
            Some(Cow::Borrowed("remote.Origin.url"))
        ));
        assert_eq!(normalise_key("nodot"), None);
        assert_eq!(normalise_key(".x"), None);
        assert_eq!(normalise_key("x."), None);
        let o = ConfigOverrides::from_pairs([("a.b", "1"), ("bad", "2"), ("A.B", "3")]);
        assert_eq!(o.values("a.b").collect::<Vec<_>>(), ["1", "3"]);
        assert!(!o.is_empty());
        assert!(ConfigOverrides::none().is_empty());
    }
}
