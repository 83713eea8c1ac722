//! Repositories opened once per directory for a supervisor's life (one agent command) and lent
//! to each judged exec, so a `git commit` or `git push` does not pay libgit2's discovery and
//! config parse again. A repository is lent only while every file its opening read is as it
//! was: the folders discovery walked (their entries: a `.git` appearing or a folder replaced),
//! the `.git` file or folder, the git dir's `commondir`, `gitdir`, `config.worktree` and
//! `HEAD`, the common dir's `config`, `objects` and `refs`, and the global, XDG and system
//! config files (absent counts too). What libgit2 reads per lookup anyway (HEAD's target,
//! refs, objects) stays live. A repository whose config includes other files, that has no
//! work tree, or whose watched files changed within a second of opening it is not kept.
//!
//! The `stat`s are the truth; the kernel's change events ([`crate::fs_events`]) spare them:
//! a repository whose files no event touched since they were last checked is lent without
//! looking (13 `stat`s were a tenth of the supervisor's time for a push).

use crate::fs_events::{Events, Watch};
use gh_write_guard::face::{OpenRepo, RepoLender};
use git2::Repository;
use std::collections::HashMap;
use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
// A watched file changed within `SETTLED` of the opening may have changed while libgit2 read
// it (and file times can be as coarse as a second): such a repository is not kept.
use primitives::stamp::{before, Version, Versions, SETTLED};
use std::time::SystemTime;

/// Most directories kept (a command works in a handful).
const MAX_KEPT: usize = 64;

/// A watched file's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stamp {
    Absent,
    Exists,
    File {
        dev: u64,
        ino: u64,
        uid: u32,
        mode: u32,
        size: u64,
        times: [(i64, i64); 2],
    },
}

fn stamp(path: &Path, watch: Watch) -> Stamp {
    let Ok(m) = std::fs::metadata(path) else {
        return Stamp::Absent;
    };
    let (size, times) = match watch {
        Watch::Exists => return Stamp::Exists,
        Watch::Identity => (0, [(0, 0); 2]),
        Watch::Contents => (
            m.size(),
            [(m.mtime(), m.mtime_nsec()), (m.ctime(), m.ctime_nsec())],
        ),
    };
    Stamp::File {
        dev: m.dev(),
        ino: m.ino(),
        uid: m.uid(),
        mode: m.mode(),
        size,
        times,
    }
}

/// Every watched file with the state it had when the repository was opened.
type Watched = Vec<(PathBuf, Watch, Stamp)>;

struct Kept {
    /// With its config files' entries once a judgement read them: the files are watched, so
    /// the entries hold as long as the repository is lent.
    repo: OpenRepo,
    watched: Watched,
    /// Its set in the change events, when every watched file could be watched.
    events: Option<u64>,
}

/// The supervisor's repositories, by the directory a rule asked about.
#[derive(Default)]
pub struct RepoCache {
    /// By the directory's bytes (hashing a `Path` walks its components; twice per exec).
    kept: Mutex<HashMap<OsString, Kept>>,
    /// Lent out: what they were watched by; not lent: when the world started discovering.
    lent: Mutex<HashMap<OsString, Result<Lent, SystemTime>>>,
    changes: Mutex<Changes>,
    /// How many times the watched files were checked by `stat` (the tests count them).
    checks: AtomicUsize,
    /// The same for the single files of [`RepoCache::settled`].
    file_checks: AtomicUsize,
}

/// A kept repository lent out: its watched files and its set in the change events.
type Lent = (Watched, Option<u64>);

/// The change events, made at the first repository kept.
#[derive(Default)]
struct Changes {
    events: Option<Events>,
    tried: bool,
    next_id: u64,
    /// The sets watched now (at most [`MAX_WATCHED`]).
    live: std::collections::HashSet<u64>,
    /// Single files whose version is asked on every judgement ([`RepoCache::settled`]): their
    /// set (`None`: not watched) and their version when last checked (`None`: not settled).
    files: HashMap<OsString, (Option<u64>, Option<Version>)>,
    /// `None`: the events are read before every check; `Some(read)`: a judgement is under
    /// way ([`RepoCache::judgement_starts`]) and they are read once in it.
    once: Option<bool>,
}

impl Changes {
    /// Reads the events queued so far (once per judgement while one is under way).
    fn drain(&mut self) {
        if self.once == Some(true) {
            return;
        }
        if let Some(events) = self.events.as_mut() {
            events.drain();
        }
        if self.once.is_some() {
            self.once = Some(true);
        }
    }

    fn start(&mut self) {
        if !self.tried {
            self.tried = true;
            self.events = Events::new();
        }
    }
}

/// Most single files watched ([`RepoCache::settled`]: gh's hosts file, the session's ledger,
/// the `HEAD` of the repositories kept).
const MAX_FILES: usize = 16;

/// Most repositories a supervisor watches (~17 inotify watches each: the watches and the one
/// inotify instance count against limits the maintainer's other tools share); more are
/// checked by `stat` only.
const MAX_WATCHED: usize = 8;

impl std::fmt::Debug for RepoCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kept = self.kept.lock().map(|k| k.len()).unwrap_or(0);
        write!(f, "RepoCache({kept} kept)")
    }
}

impl RepoCache {
    fn current(&self, watched: &[(PathBuf, Watch, Stamp)]) -> bool {
        self.checks.fetch_add(1, Ordering::Relaxed);
        watched.iter().all(|(p, w, s)| stamp(p, *w) == *s)
    }

    /// Whether a kept repository's watched files are as they were: no event touched them
    /// since they were last checked, else checked now.
    fn unchanged(&self, k: &Kept) -> bool {
        let mut changes = self.changes.lock().unwrap_or_else(|p| p.into_inner());
        if changes.events.is_none() || k.events.is_none() {
            return self.current(&k.watched);
        }
        changes.drain();
        let (Some(events), Some(id)) = (changes.events.as_mut(), k.events) else {
            return self.current(&k.watched);
        };
        if events.is_quiet(id) {
            return true;
        }
        // Checked after the drain: a change before it is seen here, one after by an event.
        let now = self.current(&k.watched);
        if now {
            events.checked(id);
        }
        now
    }

    /// Watches a newly kept repository's files; its set, or `None` if one cannot be watched.
    fn watch(&self, watched: &Watched) -> Option<u64> {
        let mut changes = self.changes.lock().unwrap_or_else(|p| p.into_inner());
        changes.start();
        let id = changes.next_id;
        changes.next_id += 1;
        if changes.live.len() >= MAX_WATCHED {
            return None;
        }
        let events = changes.events.as_mut()?;
        if !watched.iter().all(|(p, w, _)| events.watch(id, p, *w)) {
            events.forget(id);
            return None;
        }
        events.drain();
        changes.live.insert(id);
        let events = changes.events.as_mut()?;
        // Checked once the watches are in place (the stamps were taken before).
        if self.current(watched) {
            events.checked(id);
        }
        Some(id)
    }

    /// A judgement starts: the change events are read once in it (each read is a system
    /// call, and one judgement asks about a repository and a few files). A change that comes
    /// later in the same judgement is one that came just after it.
    pub fn judgement_starts(&self) {
        self.changes.lock().unwrap_or_else(|p| p.into_inner()).once = Some(false);
    }

    /// Lets go of every kept repository and of the change events' inotify instance (the
    /// supervisor of a command whose background processes outlive it, idle for a while): the
    /// per-user inotify limits are shared with the maintainer's editors. The next judged exec
    /// opens and watches afresh. A repository lent out now is not taken back.
    pub fn release(&self) {
        let kept = std::mem::take(&mut *self.kept.lock().unwrap_or_else(|p| p.into_inner()));
        drop(kept);
        self.lent.lock().unwrap_or_else(|p| p.into_inner()).clear();
        let mut changes = self.changes.lock().unwrap_or_else(|p| p.into_inner());
        *changes = Changes {
            next_id: changes.next_id,
            ..Changes::default()
        };
    }

    fn forget(&self, id: Option<u64>) {
        let mut changes = self.changes.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(id) = id {
            changes.live.remove(&id);
            if let Some(events) = changes.events.as_mut() {
                events.forget(id);
            }
        }
    }
}

/// A file's settled version, checked by `stat` only when an event touched the file (or its
/// folders) since the last check, or when it cannot be watched.
impl Versions for RepoCache {
    fn settled(&self, path: &Path) -> Option<Version> {
        let mut changes = self.changes.lock().unwrap_or_else(|p| p.into_inner());
        changes.start();
        changes.drain();
        let ch = &mut *changes;
        let Some(events) = ch.events.as_mut() else {
            return primitives::stamp::settled(path);
        };
        let id = match ch.files.get(path.as_os_str()) {
            Some((Some(id), Some(v))) if events.is_quiet(*id) => return Some(*v),
            Some((id, _)) => *id,
            None if ch.files.len() < MAX_FILES => {
                let id = ch.next_id;
                ch.next_id += 1;
                // Watched before the `stat`: a change after it is an event.
                let watched = events.watch(id, path, Watch::Contents);
                if !watched {
                    events.forget(id);
                }
                watched.then_some(id)
            }
            None => return primitives::stamp::settled(path),
        };
        self.file_checks.fetch_add(1, Ordering::Relaxed);
        let v = primitives::stamp::settled(path);
        if let (Some(id), Some(_)) = (id, v) {
            events.checked(id);
        }
        ch.files.insert(path.as_os_str().to_owned(), (id, v));
        v
    }
}

impl RepoLender for RepoCache {
    fn file_version(&self, path: &Path) -> Option<Version> {
        Versions::settled(self, path)
    }

    fn lend(&self, dir: &Path) -> Option<OpenRepo> {
        let kept = self
            .kept
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(dir.as_os_str());
        let mut lent = self.lent.lock().unwrap_or_else(|p| p.into_inner());
        match kept {
            Some(k) if self.unchanged(&k) => {
                lent.insert(dir.as_os_str().to_owned(), Ok((k.watched, k.events)));
                Some(k.repo)
            }
            other => {
                self.forget(other.and_then(|k| k.events));
                // Directories outside any repository are never given back.
                // A repository lent out then is not taken back: its watches go too.
                if lent.len() >= MAX_KEPT {
                    for (_, how) in lent.drain() {
                        self.forget(how.ok().and_then(|(_, id)| id));
                    }
                }
                lent.insert(dir.as_os_str().to_owned(), Err(SystemTime::now()));
                None
            }
        }
    }

    fn give_back(&self, dir: PathBuf, repo: OpenRepo) {
        let how = self
            .lent
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(dir.as_os_str());
        let (watched, events) = match how {
            Some(Ok(lent)) => lent,
            Some(Err(opened)) => match watch_list(&dir, &repo.repo, opened) {
                Some(w) => {
                    let id = self.watch(&w);
                    (w, id)
                }
                None => return,
            },
            None => return,
        };
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        if kept.len() >= MAX_KEPT {
            for (_, k) in kept.drain() {
                self.forget(k.events);
            }
        }
        let before = kept.insert(
            dir.into_os_string(),
            Kept {
                repo,
                watched,
                events,
            },
        );
        self.forget(before.and_then(|k| k.events));
    }
}

/// What must stay as it is for `repo` (opened by discovery from `dir` at `opened`) to be
/// what a discovery now would open; `None`: not kept.
fn watch_list(dir: &Path, repo: &Repository, opened: SystemTime) -> Option<Watched> {
    let work = repo.workdir()?;
    let start = gh_write_guard::face::existing_ancestor(dir)?;
    if !start.starts_with(work) || includes_files(repo) {
        return None;
    }
    let mut files: Vec<(PathBuf, Watch)> = start
        .ancestors()
        .take_while(|d| d.starts_with(work))
        .map(|d| (d.to_path_buf(), Watch::Contents))
        .collect();
    let dot_git = work.join(".git");
    let git_dir = repo.path();
    let common = repo.commondir();
    files.push((
        dot_git.clone(),
        match dot_git.is_dir() {
            true => Watch::Identity,
            false => Watch::Contents,
        },
    ));
    files.push((git_dir.to_path_buf(), Watch::Identity));
    for (f, w) in [
        ("commondir", Watch::Contents),
        ("gitdir", Watch::Contents),
        ("config.worktree", Watch::Contents),
        ("HEAD", Watch::Exists),
    ] {
        files.push((git_dir.join(f), w));
    }
    files.push((common.join("config"), Watch::Contents));
    files.push((common.join("objects"), Watch::Identity));
    files.push((common.join("refs"), Watch::Identity));
    files.extend(user_configs().into_iter().map(|p| (p, Watch::Contents)));
    let settled = opened.checked_sub(SETTLED)?;
    let mut out = Vec::with_capacity(files.len());
    for (p, w) in files {
        let s = stamp(&p, w);
        if let Stamp::File { times, .. } = s {
            if w == Watch::Contents && times.iter().any(|t| !before(*t, settled)) {
                return None;
            }
        }
        out.push((p, w, s));
    }
    Some(out)
}

/// Whether the config reads other files (`include.path`, `includeIf.*.path`): those are not
/// watched, so such a repository is opened afresh every time.
fn includes_files(repo: &Repository) -> bool {
    let Ok(config) = repo.config() else {
        return true;
    };
    let Ok(mut entries) = config.entries(Some(r"^include")) else {
        return true;
    };
    entries.next().is_some()
}

/// The config files outside the repository libgit2 reads (this process's `HOME` and
/// `XDG_CONFIG_HOME`, as libgit2 finds them), existing or not.
fn user_configs() -> Vec<PathBuf> {
    let mut out = vec![PathBuf::from("/etc/gitconfig")];
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(home) = var("HOME") {
        out.push(home.join(".gitconfig"));
        out.push(home.join(".config/git/config"));
    }
    if let Some(xdg) = var("XDG_CONFIG_HOME") {
        out.push(xdg.join("git/config"));
    }
    for found in [
        git2::Config::find_global(),
        git2::Config::find_xdg(),
        git2::Config::find_system(),
    ]
    .into_iter()
    .flatten()
    {
        if !out.contains(&found) {
            out.push(found);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use hook_replay::git::{git, init_with_commit};
    use std::io::Write;
    use std::time::Duration;

    /// Lends `dir`'s repository the way `RealWorld` does: kept, else discovered; given back.
    fn round(cache: &RepoCache, dir: &Path) -> bool {
        let (repo, kept) = match cache.lend(dir) {
            Some(r) => (r, true),
            None => (OpenRepo::new(Repository::discover(dir).unwrap()), false),
        };
        cache.give_back(dir.to_path_buf(), repo);
        kept
    }

    #[test]
    fn a_watched_file_is_checked_again_only_after_an_event_touched_it() {
        let tmp = tempfile::tempdir().unwrap();
        let at = |n: &str| tmp.path().join(n);
        let (replaced, written, removed, created) =
            (at("hosts.yml"), at("ledger"), at("HEAD"), at("later"));
        for f in [&replaced, &written, &removed] {
            std::fs::write(f, "a\n").unwrap();
        }
        std::thread::sleep(SETTLED + Duration::from_millis(100));
        let cache = RepoCache::default();
        let all = [&replaced, &written, &removed, &created];
        let first: Vec<_> = all.iter().map(|f| Versions::settled(&cache, f)).collect();
        for (f, v) in all.iter().zip(&first) {
            assert_eq!(*v, Some(primitives::stamp::version(f)), "{}", f.display());
        }
        let checks = cache.file_checks.load(Ordering::Relaxed);
        for _ in 0..3 {
            let again: Vec<_> = all.iter().map(|f| Versions::settled(&cache, f)).collect();
            assert_eq!(again, first, "unchanged");
        }
        assert_eq!(
            cache.file_checks.load(Ordering::Relaxed),
            checks,
            "no stat while no event touched them"
        );
        // Replaced by a rename (git's and the ledger's way), written in place, removed, made.
        std::fs::write(at("new"), "b\n").unwrap();
        std::fs::rename(at("new"), &replaced).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&written)
            .unwrap()
            .write_all(b"b\n")
            .unwrap();
        std::fs::remove_file(&removed).unwrap();
        std::fs::write(&created, "c\n").unwrap();
        std::thread::sleep(SETTLED + Duration::from_millis(100));
        for (f, before) in all.iter().zip(&first) {
            let now = Versions::settled(&cache, f);
            assert_eq!(now, Some(primitives::stamp::version(f)), "{}", f.display());
            assert_ne!(now, *before, "{}", f.display());
        }
        assert_eq!(Versions::settled(&cache, &removed), Some(Version::Absent));
    }

    #[test]
    fn a_settled_repository_is_kept_until_a_watched_file_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        init_with_commit(&repo, &[("f", "a\n")]);
        let cache = RepoCache::default();
        // Changed within the last second: opened afresh, not kept.
        assert!(!round(&cache, &repo));
        assert!(!round(&cache, &repo));
        std::thread::sleep(SETTLED + Duration::from_millis(100));
        assert!(
            !round(&cache, &repo),
            "the first opening of a settled repository"
        );
        assert!(round(&cache, &repo), "kept");
        // No event touched the files since they were watched: lent without a `stat`.
        let checks = cache.checks.load(Ordering::Relaxed);
        assert!(round(&cache, &repo), "still kept");
        assert!(round(&cache, &repo), "still kept");
        assert_eq!(cache.checks.load(Ordering::Relaxed), checks);
        // HEAD moving does not matter (read live); the config changing does.
        git(&repo, &["checkout", "-q", "-b", "topic"]);
        assert!(round(&cache, &repo), "HEAD is read live");
        git(&repo, &["config", "alias.p", "push"]);
        assert!(!round(&cache, &repo), "the config changed");
        // A `.git` appearing in a folder between the directory and the work tree.
        let sub = repo.join("sub");
        std::fs::create_dir(&sub).unwrap();
        std::thread::sleep(SETTLED + Duration::from_millis(100));
        assert!(!round(&cache, &sub));
        assert!(round(&cache, &sub));
        git(&sub, &["init", "-q"]);
        assert!(!round(&cache, &sub), "a repository of its own now");
    }

    #[test]
    fn at_most_max_watched_repositories_are_spared_their_stats() {
        let tmp = tempfile::tempdir().unwrap();
        let repos: Vec<PathBuf> = (0..=MAX_WATCHED)
            .map(|i| tmp.path().join(format!("r{i}")))
            .collect();
        for r in &repos {
            init_with_commit(r, &[]);
        }
        std::thread::sleep(SETTLED + Duration::from_millis(100));
        let cache = RepoCache::default();
        for r in &repos {
            assert!(!round(&cache, r), "the first opening");
            assert!(round(&cache, r), "kept");
        }
        // The watched ones lend without a stat; the one over the bound is checked each time.
        let checks = cache.checks.load(Ordering::Relaxed);
        for r in &repos {
            assert!(round(&cache, r), "still kept");
        }
        assert_eq!(cache.checks.load(Ordering::Relaxed), checks + 1);
    }

    #[test]
    fn a_repository_dropped_while_lent_gives_its_watches_back() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        init_with_commit(&repo, &[]);
        let outside: Vec<PathBuf> = (0..MAX_KEPT)
            .map(|i| tmp.path().join(format!("o{i}")))
            .collect();
        std::thread::sleep(SETTLED + Duration::from_millis(100));
        let cache = RepoCache::default();
        assert!(!round(&cache, &repo));
        let live = |c: &RepoCache| c.changes.lock().unwrap().live.len();
        assert_eq!(live(&cache), 1);
        // Lent out while the folders outside any repository fill the lent list.
        let lent = cache.lend(&repo).expect("kept");
        for d in &outside {
            assert!(cache.lend(d).is_none());
        }
        cache.give_back(repo.clone(), lent);
        assert_eq!(live(&cache), 0, "its set is no longer watched");
        assert!(!round(&cache, &repo), "opened again");
        assert_eq!(live(&cache), 1);
    }

    #[test]
    fn a_released_cache_gives_its_inotify_instance_back_and_watches_again_when_used() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        init_with_commit(&repo, &[]);
        std::thread::sleep(SETTLED + Duration::from_millis(100));
        let cache = RepoCache::default();
        assert!(!round(&cache, &repo));
        let fd_of = |c: &RepoCache| c.changes.lock().unwrap().events.is_some();
        assert!(fd_of(&cache), "watched");
        cache.release();
        // Dropping the events closes their descriptor.
        assert!(!fd_of(&cache), "the instance is closed");
        assert!(cache.kept.lock().unwrap().is_empty());
        // Used again: opened afresh, then kept and watched by a new instance.
        assert!(!round(&cache, &repo), "opened again");
        assert!(fd_of(&cache), "watched again");
        assert!(round(&cache, &repo), "kept again");
        let checks = cache.checks.load(Ordering::Relaxed);
        assert!(round(&cache, &repo));
        assert_eq!(
            cache.checks.load(Ordering::Relaxed),
            checks,
            "spared by events"
        );
    }

    #[test]
    fn a_config_that_includes_files_is_never_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        init_with_commit(&repo, &[]);
        let extra = tmp.path().join("extra.cfg");
        std::fs::write(&extra, "[alias]\n\tp = push\n").unwrap();
        git(&repo, &["config", "include.path", extra.to_str().unwrap()]);
        std::thread::sleep(SETTLED + Duration::from_millis(100));
        let cache = RepoCache::default();
        for _ in 0..3 {
            assert!(!round(&cache, &repo));
        }
    }
}
