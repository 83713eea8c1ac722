//! The repository's git configuration as one git command sees it: the files (through git2) plus
//! the command's own config overrides (`git -c k=v`, `--config-env`, `GIT_CONFIG_COUNT`/
//! `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, `GIT_CONFIG_PARAMETERS`), which git reads last, at
//! the highest priority. Without them, `git -c remote.origin.pushurl=... push` would push
//! somewhere the files do not say.

use super::RemoteError;

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
            .filter_map(|(k, v)| normalise_key(k.as_ref()).map(|k| (k, v.as_ref().to_string())))
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
/// its case). `None` when there is no section or no name.
fn normalise_key(key: &str) -> Option<String> {
    let first = key.find('.')?;
    let last = key.rfind('.')?;
    let section = &key[..first];
    let name = &key[last + 1..];
    if section.is_empty() || name.is_empty() {
        return None;
    }
    if first == last {
        return Some(format!(
            "{}.{}",
            section.to_ascii_lowercase(),
            name.to_ascii_lowercase()
        ));
    }
    Some(format!(
        "{}.{}.{}",
        section.to_ascii_lowercase(),
        &key[first + 1..last],
        name.to_ascii_lowercase()
    ))
}

/// Files plus overrides, read the way git reads them.
pub(crate) struct ConfigView<'o> {
    config: git2::Config,
    overrides: &'o ConfigOverrides,
}

impl<'o> ConfigView<'o> {
    pub(crate) fn open(
        repo: &git2::Repository,
        overrides: &'o ConfigOverrides,
    ) -> Result<Self, RemoteError> {
        Ok(ConfigView {
            config: repo.config()?,
            overrides,
        })
    }

    /// All values of a multi-valued key: the files' in git's order, then the overrides'.
    pub(crate) fn multivar(&self, name: &str) -> Result<Vec<String>, RemoteError> {
        let mut out = Vec::new();
        match self.config.multivar(name, None) {
            Ok(mut entries) => {
                while let Some(entry) = entries.next() {
                    let entry = entry?;
                    if entry.has_value() {
                        out.push(String::from_utf8_lossy(entry.value_bytes()).into_owned());
                    }
                }
            }
            Err(e) if e.code() == git2::ErrorCode::NotFound => {}
            // A name libgit2 cannot parse (odd characters in a remote argument) is simply unset.
            Err(e) if e.class() == git2::ErrorClass::Config => {}
            Err(e) => return Err(e.into()),
        }
        if let Some(key) = normalise_key(name) {
            out.extend(self.overrides.values(&key).map(str::to_string));
        }
        Ok(out)
    }

    /// A single-valued key: the last override, else the files' (last one wins); unset → `None`.
    pub(crate) fn get_string(&self, name: &str) -> Option<String> {
        let overridden = normalise_key(name)
            .and_then(|key| self.overrides.values(&key).last().map(str::to_string));
        overridden.or_else(|| self.config.get_string(name).ok())
    }

    /// A boolean key; unset or not a boolean → `None`.
    pub(crate) fn get_bool(&self, name: &str) -> Option<bool> {
        let overridden = normalise_key(name)
            .and_then(|key| self.overrides.values(&key).last().map(str::to_string));
        match overridden {
            Some(value) => git2::Config::parse_bool(value).ok(),
            None => self.config.get_bool(name).ok(),
        }
    }

    /// (name, value) of every entry whose normalised name matches `wanted`, files then overrides.
    pub(crate) fn entries_where(
        &self,
        glob: &str,
        wanted: impl Fn(&str) -> bool,
    ) -> Result<Vec<(String, String)>, RemoteError> {
        let mut out = Vec::new();
        let mut entries = self.config.entries(Some(glob))?;
        while let Some(entry) = entries.next() {
            let entry = entry?;
            if !entry.has_value() {
                continue;
            }
            let name = String::from_utf8_lossy(entry.name_bytes()).into_owned();
            if wanted(&name) {
                out.push((
                    name,
                    String::from_utf8_lossy(entry.value_bytes()).into_owned(),
                ));
            }
        }
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
        assert_eq!(normalise_key("nodot"), None);
        assert_eq!(normalise_key(".x"), None);
        assert_eq!(normalise_key("x."), None);
        let o = ConfigOverrides::from_pairs([("a.b", "1"), ("bad", "2"), ("A.B", "3")]);
        assert_eq!(o.values("a.b").collect::<Vec<_>>(), ["1", "3"]);
        assert!(!o.is_empty());
        assert!(ConfigOverrides::none().is_empty());
    }
}
