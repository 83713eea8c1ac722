//! The real [`World`]: git2 for repositories (opened once per directory), branch-rules for
//! remotes and the live rules lookup (cache in the session ledger), gh's config files for aliases
//! and enterprise hosts, and the file system for scripts run by path.

use crate::world::{
    DefaultPush, Destination, LookupError, RepoKind, RepoSlug, Rules, World, MAX_SCRIPT_BYTES,
};
use branch_rules::cache::{CacheEntry, CacheKey, RulesCache};
use branch_rules::remote;
use branch_rules::{GitHubHosts, LiveConfig, LiveRules};
use git2::Repository;
use session_store::Ledger;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Key of the rules cache in the session ledger.
const LEDGER_KEY: &str = "gh_write_guard_rules";
/// Most entries kept in the ledger's rules cache (oldest dropped first).
const MAX_CACHE_ENTRIES: usize = 256;
/// Largest gh config file read.
const MAX_GH_CONFIG_BYTES: u64 = 256 * 1024;

/// The rules cache kept in the session ledger (locked, written atomically by session-store).
pub struct LedgerRulesCache {
    ledger: Ledger,
    /// The ledger's rules section as last read, with the file's stamp then: a long-lived
    /// holder (the exec gate's supervisor asks once per judged push) reads and parses the
    /// ledger again only when the file changed. Every write replaces the file (a new inode).
    memo: Mutex<Option<(primitives::stamp::Version, Option<serde_json::Value>)>>,
    /// Where the file's version comes from (a `stat`, unless the holder watches it).
    versions: Arc<dyn primitives::stamp::Versions>,
}

impl LedgerRulesCache {
    pub fn new(ledger: Ledger) -> Self {
        LedgerRulesCache {
            ledger,
            memo: Mutex::new(None),
            versions: Arc::new(primitives::stamp::ByStat),
        }
    }

    /// The ledger's version asked of `versions` (a holder that watches files for changes).
    pub fn with_versions(mut self, versions: Arc<dyn primitives::stamp::Versions>) -> Self {
        self.versions = versions;
        self
    }

    /// The entry for `key` in the ledger's rules section: the section is remembered while the
    /// file is unchanged, else read; only the one entry is copied out.
    fn entry(&self, key: &CacheKey) -> Option<CacheEntry> {
        use serde::Deserialize;
        let stamp = self.versions.settled(self.ledger.path());
        let mut memo = self.memo.lock().unwrap_or_else(|p| p.into_inner());
        let kept = matches!((stamp, memo.as_ref()), (Some(now), Some((then, _))) if now == *then);
        if !kept {
            let section = self.ledger.read().ok()?.remove(LEDGER_KEY);
            let Some(stamp) = stamp else {
                *memo = None;
                return CacheEntry::deserialize(section?.get(key.as_string())?).ok();
            };
            *memo = Some((stamp, section));
        }
        let (_, section) = memo.as_ref()?;
        CacheEntry::deserialize(section.as_ref()?.get(key.as_string())?).ok()
    }
}

impl RulesCache for LedgerRulesCache {
    fn get(&self, key: &CacheKey) -> Option<CacheEntry> {
        self.entry(key)
    }

    fn put(&self, key: &CacheKey, entry: &CacheEntry) -> Result<(), String> {
        *self.memo.lock().unwrap_or_else(|p| p.into_inner()) = None;
        let value = serde_json::to_value(entry).map_err(|e| e.to_string())?;
        self.ledger
            .update(|map| {
                let slot = map
                    .entry(LEDGER_KEY)
                    .or_insert_with(|| serde_json::Value::Object(Default::default()));
                if !slot.is_object() {
                    *slot = serde_json::Value::Object(Default::default());
                }
                if let Some(obj) = slot.as_object_mut() {
                    obj.insert(key.as_string(), value);
                    while obj.len() > MAX_CACHE_ENTRIES {
                        let oldest = obj
                            .iter()
                            .min_by_key(|(_, v)| v.get("fetched_at_ms").and_then(|t| t.as_u64()))
                            .map(|(k, _)| k.clone());
                        match oldest {
                            Some(k) => {
                                obj.remove(&k);
                            }
                            None => break,
                        }
                    }
                }
            })
            .map_err(|e| e.to_string())
    }
}

/// Where rules come from in the real world.
pub type LiveLookup = LiveRules<HashMap<String, String>, Arc<dyn RulesCache + Send + Sync>>;

/// The machine the hook runs on. What does not change between judgements (the hosts, the
/// live rules lookup with its HTTP client, the environment) is shared by [`RealWorld::again`];
/// the repositories are opened per world.
pub struct RealWorld {
    hosts: Arc<GitHubHosts>,
    rules: Arc<LiveLookup>,
    env: Arc<BTreeMap<String, String>>,
    /// By directory, searched by the path's bytes: a judgement asks about one or two
    /// directories many times, and hashing a `Path` walks its components.
    repos: RefCell<Vec<(PathBuf, Option<OpenRepo>)>>,
    /// Local branches per directory, listed once per judgement (a push asks up to three times).
    branches: RefCell<HashMap<PathBuf, Vec<String>>>,
    lender: Option<Arc<dyn RepoLender>>,
}

/// A repository opened for a directory, with its config files' entries once read.
pub struct OpenRepo {
    pub repo: Repository,
    /// Read on the first question about the config (origin, remotes, default push, aliases).
    pub config: Option<Arc<remote::RepoConfig>>,
    /// Answers worked out from the repository and those entries alone, kept with them.
    pub derived: Derived,
}

impl OpenRepo {
    pub fn new(repo: Repository) -> OpenRepo {
        OpenRepo {
            repo,
            config: None,
            derived: Derived::default(),
        }
    }
}

/// What a push asks several times (G3 the origin, G3 and G4 the push destinations, G6 the
/// kind), from the repository's paths and config entries alone: as valid as
/// [`OpenRepo::config`], so kept as long as it is. Destinations are kept only for lookups
/// without the command's own config, with the hosts they were classified against.
#[derive(Default)]
pub struct Derived {
    kind: Option<RepoKind>,
    /// The branch `HEAD` names, with the version of the file it was read from (asked of the
    /// lender: unlike the files a lending depends on, `HEAD` changes with every checkout).
    head: Option<(primitives::stamp::Version, Option<String>)>,
    origin: Option<Option<RepoSlug>>,
    destinations: Vec<KeptDestinations>,
}

/// A remote's push destinations, and the GitHub hosts they were classified against.
type KeptDestinations = (
    String,
    Arc<GitHubHosts>,
    Result<Vec<Destination>, remote::RemoteError>,
);

/// Most remotes whose destinations one repository keeps.
const MAX_KEPT_REMOTES: usize = 16;

/// A longer-lived owner of opened repositories (the exec gate's supervisor): it lends one for
/// a directory only when it can show that discovering afresh would open the same repository
/// with the same config files, and gets it back (with the entries read from them) when the
/// world is dropped.
pub trait RepoLender: Send + Sync {
    fn lend(&self, dir: &Path) -> Option<OpenRepo>;
    fn give_back(&self, dir: PathBuf, repo: OpenRepo);
    /// The settled version of a file in a lent repository (`HEAD`, for what is kept with it)
    /// or of the folder a push runs in; `None`: not settled, look at the file itself.
    fn file_version(&self, path: &Path) -> Option<primitives::stamp::Version> {
        primitives::stamp::settled(path)
    }
}

/// Settings of the real world, from the context.
pub struct RealWorldConfig {
    /// The hook's environment.
    pub env: BTreeMap<String, String>,
    pub api_base_override: Option<String>,
    pub rules_deadline: Duration,
    pub cache: Arc<dyn RulesCache + Send + Sync>,
}

impl RealWorld {
    pub fn new(cfg: RealWorldConfig) -> RealWorld {
        let hosts = GitHubHosts::new(enterprise_hosts(&cfg.env));
        let live = LiveConfig {
            hosts: hosts.clone(),
            api_base_override: cfg.api_base_override,
            deadline: cfg.rules_deadline,
            ..LiveConfig::default()
        };
        let env: HashMap<String, String> = cfg
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        RealWorld {
            hosts: Arc::new(hosts),
            rules: Arc::new(LiveRules::new(live, env, cfg.cache)),
            env: Arc::new(cfg.env),
            repos: RefCell::new(Vec::new()),
            branches: RefCell::new(HashMap::new()),
            lender: None,
        }
    }

    /// A world for one more judgement: the same hosts, environment and rules lookup (its
    /// client and the notes of its latest request), no repository opened yet. The exec gate
    /// judges many execs per command; building the lookup and reading gh's hosts for each
    /// was a tenth of a judged exec.
    pub fn again(&self) -> RealWorld {
        RealWorld {
            hosts: self.hosts.clone(),
            rules: self.rules.clone(),
            env: self.env.clone(),
            repos: RefCell::new(Vec::new()),
            branches: RefCell::new(HashMap::new()),
            lender: self.lender.clone(),
        }
    }

    /// Repositories lent by `lender` (else discovered per world) and given back on drop.
    pub fn with_lender(mut self, lender: Arc<dyn RepoLender>) -> RealWorld {
        self.lender = Some(lender);
        self
    }

    /// The live lookup, for the audit notes of the last request.
    pub fn live_rules(&self) -> &LiveLookup {
        &self.rules
    }

    /// The gh config file that names enterprise hosts (`hosts.yml` in gh's config dir), read
    /// when the world is built: a holder of [`RealWorld::again`] checks it for changes.
    pub fn hosts_file(&self) -> Option<PathBuf> {
        self.gh_config_dir().map(|d| d.join("hosts.yml"))
    }

    fn with_open<T>(&self, dir: &Path, f: impl FnOnce(&mut OpenRepo) -> T) -> Option<T> {
        let mut repos = self.repos.borrow_mut();
        let at = match repos
            .iter()
            .position(|(d, _)| d.as_os_str() == dir.as_os_str())
        {
            Some(at) => at,
            None => {
                let opened = self.lender.as_ref().and_then(|l| l.lend(dir)).or_else(|| {
                    let found = crate::g6_repo_kind::existing_ancestor(dir)?;
                    Repository::discover(found).ok().map(OpenRepo::new)
                });
                repos.push((dir.to_path_buf(), opened));
                repos.len() - 1
            }
        };
        repos[at].1.as_mut().map(f)
    }

    fn with_repo<T>(&self, dir: &Path, f: impl FnOnce(&Repository) -> T) -> Option<T> {
        self.with_open(dir, |o| f(&o.repo))
    }

    /// `f` over the repository at `dir` and its config files' entries, read once per world
    /// (or kept by the lender while the files are unchanged).
    fn with_config<T>(
        &self,
        dir: &Path,
        f: impl FnOnce(&Repository, &remote::RepoConfig) -> T,
    ) -> Option<Result<T, remote::RemoteError>> {
        self.with_open(dir, |o| {
            let config = match &o.config {
                Some(c) => c.clone(),
                None => {
                    let c = Arc::new(remote::RepoConfig::read(&o.repo)?);
                    o.config = Some(c.clone());
                    c
                }
            };
            Ok(f(&o.repo, &config))
        })
    }

    /// The push destinations of `remote` in the repository at `dir` without the command's own
    /// config, worked out once per kept repository and set of hosts.
    fn kept_destinations(
        &self,
        dir: &Path,
        remote: &str,
    ) -> Option<Result<Vec<Destination>, remote::RemoteError>> {
        let same = |h: &Arc<GitHubHosts>| Arc::ptr_eq(h, &self.hosts) || **h == *self.hosts;
        let kept = self.with_open(dir, |o| {
            let found = o.derived.destinations.iter();
            found
                .filter(|(r, h, _)| r == remote && same(h))
                .map(|(_, _, d)| d.clone())
                .next()
        })?;
        if let Some(found) = kept {
            return Some(found);
        }
        let none = remote::ConfigOverrides::none();
        let found = self
            .with_config(dir, |_, c| {
                remote::push_destinations_in(c, remote, &self.hosts, &none)
            })?
            .and_then(|d| d);
        self.with_open(dir, |o| {
            if o.derived.destinations.len() < MAX_KEPT_REMOTES {
                let hosts = self.hosts.clone();
                let entry = (remote.to_string(), hosts, found.clone());
                o.derived.destinations.push(entry);
            }
        });
        Some(found)
    }

    fn gh_config_dir(&self) -> Option<PathBuf> {
        gh_config_dir(&self.env)
    }
}

impl Drop for RealWorld {
    fn drop(&mut self) {
        if let Some(lender) = &self.lender {
            for (dir, repo) in self.repos.get_mut().drain(..) {
                if let Some(repo) = repo {
                    lender.give_back(dir, repo);
                }
            }
        }
    }
}

/// gh's config dir: `GH_CONFIG_DIR`, else `$XDG_CONFIG_HOME/gh`, else `~/.config/gh`.
pub fn gh_config_dir(env: &BTreeMap<String, String>) -> Option<PathBuf> {
    if let Some(d) = env.get("GH_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    if let Some(x) = env.get("XDG_CONFIG_HOME").filter(|d| d.starts_with('/')) {
        return Some(Path::new(x).join("gh"));
    }
    env.get("HOME")
        .filter(|h| h.starts_with('/'))
        .map(|h| Path::new(h).join(".config/gh"))
}

/// How much of a file's start is looked at for a NUL byte (a binary program, not a script).
const BINARY_HEAD: usize = 512;

fn read_bounded(path: &Path, limit: u64) -> Result<String, LookupError> {
    let fail = |e: std::io::Error| LookupError(format!("{}: {e}", path.display()));
    // Non-blocking and regular-only on the handle itself: a FIFO swapped in after the caller's
    // check must not hang the hook.
    let mut file = primitives::no_wait::open_regular(path, std::fs::OpenOptions::new().read(true))
        .map_err(fail)?;
    // A program, not a script: bash itself refuses a file with a NUL near its start ("cannot
    // execute binary file"); what a program does is the exec gate's to judge. Only its start
    // is read.
    let mut bytes = Vec::new();
    (&mut file)
        .take(BINARY_HEAD as u64)
        .read_to_end(&mut bytes)
        .map_err(fail)?;
    if bytes.contains(&0) {
        return Err(LookupError(format!(
            "{}: a binary program, not a script",
            path.display()
        )));
    }
    file.take((limit + 1).saturating_sub(bytes.len() as u64))
        .read_to_end(&mut bytes)
        .map_err(fail)?;
    if bytes.len() as u64 > limit {
        return Err(LookupError::too_large(path));
    }
    // bash runs bytes: a script that is not valid UTF-8 is still read (its words in ASCII stay
    // whole), never left unseen for one odd byte.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The branch the `HEAD` file in `git_dir` names (`Some(None)`: detached), read as git wrote it
/// (libgit2's lookup stats, opens and reads it through its ref database on every push); `None`
/// when a regular file says anything else (text written by hand), for libgit2 to answer.
/// Opened without blocking, and anything but a regular file names no branch (libgit2 would
/// block on a FIFO there, and so would the judgement). libgit2 opens no reftable repository,
/// so its placeholder `refs/heads/.invalid` never reaches this.
fn head_file_branch(git_dir: &Path) -> Option<Option<String>> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(git_dir.join("HEAD"))
        .ok()?;
    let mut buf = [0u8; 512];
    let read = file.read(&mut buf);
    if let Some(found) = read
        .as_ref()
        .ok()
        .and_then(|n| head_text_branch(&buf[..*n]))
    {
        return Some(found);
    }
    match file.metadata() {
        Ok(m) if m.is_file() => None,
        _ => Some(None),
    }
}

/// The branch `HEAD` names: its file as git wrote it, else libgit2's reading.
fn head_of(r: &Repository) -> Option<String> {
    if let Some(read) = head_file_branch(r.path()) {
        return read;
    }
    // A symbolic HEAD names its branch even before the first commit.
    let head = r.find_reference("HEAD").ok()?;
    let target = head.symbolic_target().ok().flatten()?;
    target.strip_prefix("refs/heads/").map(str::to_string)
}

/// What a `HEAD` file's text names: `Some(Some(branch))`, `Some(None)` when detached, `None`
/// when it is neither git's symbolic form nor an object id on one line.
fn head_text_branch(bytes: &[u8]) -> Option<Option<String>> {
    let line = std::str::from_utf8(bytes).ok()?.strip_suffix('\n')?;
    if matches!(line.len(), 40 | 64) && line.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Some(None);
    }
    let target = line.strip_prefix("ref: ")?;
    let plain = !target.is_empty() && !target.ends_with('/') && !target.contains(['\n', '\0', ' ']);
    plain.then(|| target.strip_prefix("refs/heads/").map(str::to_string))
}

/// Enterprise hosts: `GH_HOST` when it is not github.com, and the hosts in gh's `hosts.yml`.
fn enterprise_hosts(env: &BTreeMap<String, String>) -> Vec<String> {
    let mut hosts: Vec<String> = env.get("GH_HOST").cloned().into_iter().collect();
    if let Some(dir) = gh_config_dir(env) {
        if let Ok(text) = read_bounded(&dir.join("hosts.yml"), MAX_GH_CONFIG_BYTES) {
            hosts.extend(crate::gh_config::top_level_keys(&text));
        }
    }
    hosts
}

impl World for RealWorld {
    fn origin(&self, dir: &Path) -> Option<RepoSlug> {
        if let Some(kept) = self.with_open(dir, |o| o.derived.origin.clone())? {
            return kept;
        }
        let slug = self
            .with_config(dir, |_, c| remote::origin_slug_in(c))
            .and_then(Result::ok)
            .flatten();
        self.with_open(dir, |o| o.derived.origin = Some(slug.clone()));
        slug
    }

    fn push_destinations(
        &self,
        dir: &Path,
        remote: &str,
        overrides: &[(String, String)],
    ) -> Result<Vec<Destination>, LookupError> {
        let found = match overrides.is_empty() {
            true => self.kept_destinations(dir, remote).map(Ok),
            false => {
                let overrides = remote::ConfigOverrides::from_pairs(overrides.iter().cloned());
                self.with_config(dir, |_, c| {
                    remote::push_destinations_in(c, remote, &self.hosts, &overrides)
                })
            }
        };
        match found {
            Some(Ok(Ok(d))) => Ok(d),
            Some(Ok(Err(e))) => Err(LookupError(e.to_string())),
            Some(Err(e)) => Err(LookupError(e.to_string())),
            // Outside a repository git still pushes to a URL or path given as the remote; a
            // remote's name means a repository made later in the command (a clone).
            None if crate::git_push::names_a_remote(remote) => Err(LookupError(format!(
                "no repository at {} when the command was read: the remote `{remote}` is not known until it runs",
                dir.display()
            ))),
            None => Ok(vec![remote::classify_url(remote, &self.hosts)]),
        }
    }

    fn dir_exists(&self, dir: &Path) -> bool {
        // Asked of the lender first: it answers a folder it watches without a `stat`.
        use primitives::stamp::Version;
        match self.lender.as_ref().and_then(|l| l.file_version(dir)) {
            Some(Version::File {
                owner_mode: (_, mode),
                ..
            }) => mode & libc::S_IFMT == libc::S_IFDIR,
            _ => dir.is_dir(),
        }
    }

    fn default_push(
        &self,
        dir: &Path,
        explicit_remote: Option<&str>,
        overrides: &[(String, String)],
    ) -> Result<DefaultPush, LookupError> {
        let overrides = remote::ConfigOverrides::from_pairs(overrides.iter().cloned());
        match self.with_config(dir, |r, c| {
            remote::default_push_in(r, c, explicit_remote, &overrides)
        }) {
            Some(Ok(Ok(p))) => Ok(p),
            Some(Ok(Err(e))) => Err(LookupError(e.to_string())),
            Some(Err(e)) => Err(LookupError(e.to_string())),
            None => Err(LookupError(format!("{}: not a repository", dir.display()))),
        }
    }

    fn remote_tracking_branch(&self, dir: &Path, remote: &str, branch: &str) -> Option<bool> {
        // Only a configured remote has tracking refs; a URL says nothing.
        if remote.contains(['/', ':']) {
            return None;
        }
        self.with_repo(dir, |r| {
            r.find_reference(&format!("refs/remotes/{remote}/{branch}"))
                .is_ok()
        })
    }

    fn head_branch(&self, dir: &Path) -> Option<String> {
        self.with_open(dir, |o| {
            // Kept with the repository while the lender says the file is unchanged (a
            // checkout rewrites it; the lender's watch or `stat` tells).
            let version = self
                .lender
                .as_ref()
                .and_then(|l| l.file_version(&o.repo.path().join("HEAD")));
            if let (Some(now), Some((then, branch))) = (version, &o.derived.head) {
                if now == *then {
                    return branch.clone();
                }
            }
            let branch = head_of(&o.repo);
            o.derived.head = version.map(|v| (v, branch.clone()));
            branch
        })
        .flatten()
    }

    fn remote_tracking_branches(&self, dir: &Path, remote: &str) -> Vec<String> {
        let prefix = format!("{remote}/");
        self.with_repo(dir, |r| {
            let mut out = Vec::new();
            if let Ok(branches) = r.branches(Some(git2::BranchType::Remote)) {
                for (b, _) in branches.flatten().take(10_000) {
                    if let Ok(Some(name)) = b.name() {
                        match name.strip_prefix(&prefix) {
                            Some("HEAD") | None => {}
                            Some(branch) => out.push(branch.to_string()),
                        }
                    }
                }
            }
            out
        })
        .unwrap_or_default()
    }

    fn local_branches(&self, dir: &Path) -> Vec<String> {
        if let Some(known) = self.branches.borrow().get(dir) {
            return known.clone();
        }
        let listed = self
            .with_repo(dir, |r| {
                let mut out = Vec::new();
                if let Ok(branches) = r.branches(Some(git2::BranchType::Local)) {
                    for (b, _) in branches.flatten().take(10_000) {
                        if let Ok(Some(name)) = b.name() {
                            out.push(name.to_string());
                        }
                    }
                }
                out
            })
            .unwrap_or_default();
        self.branches
            .borrow_mut()
            .insert(dir.to_path_buf(), listed.clone());
        listed
    }

    fn is_github_host(&self, host: &str) -> bool {
        self.hosts.is_github(host)
    }

    fn rules(&self) -> &dyn Rules {
        &*self.rules
    }

    fn repo_kind(&self, dir: &Path) -> RepoKind {
        self.with_open(dir, |o| {
            *o.derived
                .kind
                .get_or_insert_with(|| crate::g6_repo_kind::kind_of(&o.repo))
        })
        .unwrap_or(RepoKind::NoRepo)
    }

    fn resolves_to_commit(&self, dir: &Path, arg: &str) -> bool {
        self.with_repo(dir, |r| {
            r.revparse_single(arg)
                .and_then(|o| o.peel_to_commit())
                .is_ok()
        })
        .unwrap_or(false)
    }

    fn git_aliases(&self, dir: &Path) -> BTreeMap<String, String> {
        let read = |config: git2::Config| {
            let mut out = BTreeMap::new();
            if let Ok(mut entries) = config.entries(Some(r"^alias\.")) {
                while let Some(Ok(e)) = entries.next() {
                    if let (Ok(name), Ok(value)) = (e.name(), e.value()) {
                        if let Some(alias) = name.strip_prefix("alias.") {
                            out.insert(alias.to_string(), value.to_string());
                        }
                    }
                }
            }
            out
        };
        let from_repo = self.with_config(dir, |_, c| {
            c.with_prefix("alias.")
                .map(|(a, v)| (a.to_string(), v.to_string()))
                .collect()
        });
        match from_repo {
            Some(Ok(aliases)) => aliases,
            _ => git2::Config::open_default().map(read).unwrap_or_default(),
        }
    }

    fn git_autocorrect(&self, dir: &Path) -> Option<String> {
        let from_repo = self.with_config(dir, |_, c| {
            let found = c.with_prefix("help.").filter(|(k, _)| *k == "autocorrect");
            found.last().map(|(_, v)| v.to_string())
        });
        match from_repo {
            Some(Ok(value)) => value,
            _ => git2::Config::open_default()
                .and_then(|c| c.get_string("help.autocorrect"))
                .ok(),
        }
    }

    fn gh_aliases(&self) -> BTreeMap<String, String> {
        self.gh_config_dir()
            .and_then(|d| read_bounded(&d.join("config.yml"), MAX_GH_CONFIG_BYTES).ok())
            .map(|text| crate::gh_config::aliases(&text))
            .unwrap_or_default()
    }

    fn is_dir(&self, path: &Path) -> bool {
        path.is_dir()
    }

    fn read_script(&self, path: &Path) -> Result<String, LookupError> {
        let meta =
            std::fs::metadata(path).map_err(|e| LookupError(format!("{}: {e}", path.display())))?;
        if !meta.is_file() {
            return Err(LookupError(format!(
                "{}: not a regular file",
                path.display()
            )));
        }
        read_bounded(path, MAX_SCRIPT_BYTES)
    }

    fn read_config_file(&self, path: &Path) -> Result<Option<String>, LookupError> {
        match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            _ => self.read_script(path).map(Some),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_files_text_names_a_branch_only_in_gits_own_forms() {
        let branch = |b: &str| Some(Some(b.to_string()));
        let sym40 = "ref: refs/heads/abcdefghijklmnopqrstuvwx\n";
        assert_eq!(sym40.len(), 41, "as long as an object id");
        for (text, want) in [
            ("ref: refs/heads/main\n", branch("main")),
            ("ref: refs/heads/feature/x\n", branch("feature/x")),
            (sym40, branch("abcdefghijklmnopqrstuvwx")),
            (&format!("{}\n", "a1".repeat(20)), Some(None)),
            (&format!("{}\n", "b2".repeat(32)), Some(None)),
            // A symbolic HEAD outside refs/heads names no branch (libgit2 says the same).
            ("ref: refs/remotes/origin/main\n", Some(None)),
            // Anything else is libgit2's to read.
            ("ref: refs/heads/main", None),
            ("ref: refs/heads/\n", None),
            ("ref: refs/heads/a b\n", None),
            ("ref: refs/heads/main\n\n", None),
            (&format!("{}\n", "g1".repeat(20)), None),
            ("", None),
        ] {
            assert_eq!(head_text_branch(text.as_bytes()), want, "{text:?}");
        }
        assert_eq!(head_text_branch(b"ref: refs/heads/\xff\n"), None);
    }

    fn entry(etag: &str) -> CacheEntry {
        CacheEntry {
            rules: Vec::new(),
            etag: Some(etag.into()),
            fetched_at_ms: 1,
        }
    }

    #[test]
    fn the_ledgers_rules_are_remembered_until_another_writer_changes_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.json");
        let key = CacheKey::new("github.com", "acme", "widget", "main");
        let ours = LedgerRulesCache::new(Ledger::at(path.clone()));
        ours.put(&key, &entry("one")).unwrap();
        // Settled: read once, then answered from memory while the file is unchanged.
        std::thread::sleep(Duration::from_millis(2100));
        assert_eq!(ours.get(&key).and_then(|e| e.etag).as_deref(), Some("one"));
        assert!(ours.memo.lock().unwrap().is_some(), "remembered");
        assert_eq!(ours.get(&key).and_then(|e| e.etag).as_deref(), Some("one"));
        // The hook (another process, another holder) writes the ledger: read again.
        let hook = LedgerRulesCache::new(Ledger::at(path.clone()));
        hook.put(&key, &entry("two")).unwrap();
        std::thread::sleep(Duration::from_millis(2100));
        assert_eq!(ours.get(&key).and_then(|e| e.etag).as_deref(), Some("two"));
        // A version written within the last second is read, and never remembered.
        hook.put(&key, &entry("three")).unwrap();
        assert_eq!(
            ours.get(&key).and_then(|e| e.etag).as_deref(),
            Some("three")
        );
        assert!(ours.memo.lock().unwrap().is_none(), "not settled yet");
    }
}
