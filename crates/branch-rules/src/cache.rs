//! Cached rules per (host, owner/repo, branch): the rule types, the ETag to revalidate with, and
//! when they were fetched. The store is a trait so gh-write-guard can keep entries in the session
//! ledger; this module has an in-memory store and a JSON-file store (write-new-then-rename) for
//! tests and standalone use, and the clock the TTL is measured with.

use crate::hosts::canonical_host;
use crate::verdict::RuleType;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What a cache entry is for. Host is canonical; owner and repository are lower-cased (GitHub
/// treats them case-insensitively); the branch is kept as written (branches are case-sensitive).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CacheKey {
    pub host: String,
    pub owner: String,
    pub repo: String,
    pub branch: String,
}

impl CacheKey {
    pub fn new(host: &str, owner: &str, repo: &str, branch: &str) -> Self {
        CacheKey {
            host: canonical_host(host),
            owner: owner.to_ascii_lowercase(),
            repo: repo.to_ascii_lowercase(),
            branch: branch.to_string(),
        }
    }

    /// A flat string form, `host/owner/repo#branch`, for stores keyed by strings (host, owner
    /// and repository cannot contain `#`, so the first `#` separates the branch).
    pub fn as_string(&self) -> String {
        format!("{}/{}/{}#{}", self.host, self.owner, self.repo, self.branch)
    }
}

/// One cached lookup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheEntry {
    /// The rule types (empty: no rules apply).
    pub rules: Vec<RuleType>,
    /// The ETag of the answer, if GitHub sent one.
    pub etag: Option<String>,
    /// When the rules were fetched or last revalidated, in milliseconds since the Unix epoch.
    pub fetched_at_ms: u64,
}

impl CacheEntry {
    /// Whether the entry is younger than `ttl_ms` at `now_ms` (an entry from the future, after
    /// a clock change, is not fresh).
    pub fn is_fresh(&self, now_ms: u64, ttl_ms: u64) -> bool {
        now_ms >= self.fetched_at_ms && now_ms - self.fetched_at_ms < ttl_ms
    }
}

/// Where cached rules are kept. Implementations must be safe to call from one thread at a
/// time; failures to store are reported, never fatal.
pub trait RulesCache {
    fn get(&self, key: &CacheKey) -> Option<CacheEntry>;
    fn put(&self, key: &CacheKey, entry: &CacheEntry) -> Result<(), String>;
}

impl<T: RulesCache + ?Sized> RulesCache for &T {
    fn get(&self, key: &CacheKey) -> Option<CacheEntry> {
        (**self).get(key)
    }
    fn put(&self, key: &CacheKey, entry: &CacheEntry) -> Result<(), String> {
        (**self).put(key, entry)
    }
}

impl<T: RulesCache + ?Sized> RulesCache for std::sync::Arc<T> {
    fn get(&self, key: &CacheKey) -> Option<CacheEntry> {
        (**self).get(key)
    }
    fn put(&self, key: &CacheKey, entry: &CacheEntry) -> Result<(), String> {
        (**self).put(key, entry)
    }
}

/// Entries kept in memory for the life of the value.
#[derive(Debug, Default)]
pub struct MemoryCache {
    entries: Mutex<HashMap<CacheKey, CacheEntry>>,
}

impl MemoryCache {
    pub fn new() -> Self {
        Self::default()
    }
}

impl RulesCache for MemoryCache {
    fn get(&self, key: &CacheKey) -> Option<CacheEntry> {
        self.entries.lock().ok()?.get(key).cloned()
    }
    fn put(&self, key: &CacheKey, entry: &CacheEntry) -> Result<(), String> {
        self.entries
            .lock()
            .map_err(|_| "cache lock poisoned".to_string())?
            .insert(key.clone(), entry.clone());
        Ok(())
    }
}

/// Entries in one JSON file (`{"entries": {"host/owner/repo#branch": entry}}`), replaced whole
/// on every write by writing a new file beside it and renaming it over the old one, so a reader
/// never sees half a file. Concurrent writers may lose each other's entries (last rename wins);
/// that costs a refetch, never a wrong answer. A missing, oversized or corrupt file reads as empty.
#[derive(Debug, Clone)]
pub struct JsonFileCache {
    path: PathBuf,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct CacheFile {
    entries: HashMap<String, CacheEntry>,
}

/// Files larger than this are ignored (and replaced on the next write).
const FILE_LIMIT: u64 = 4 << 20;

impl JsonFileCache {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        JsonFileCache { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn load(&self) -> CacheFile {
        // Regular files only, opened without waiting (a FIFO in the state dir: issue 47).
        let Ok(file) =
            primitives::no_wait::open_regular(&self.path, std::fs::OpenOptions::new().read(true))
        else {
            return CacheFile::default();
        };
        let mut bytes = Vec::new();
        if file.take(FILE_LIMIT + 1).read_to_end(&mut bytes).is_err()
            || bytes.len() as u64 > FILE_LIMIT
        {
            return CacheFile::default();
        }
        serde_json::from_slice(&bytes).unwrap_or_default()
    }
}

impl RulesCache for JsonFileCache {
    fn get(&self, key: &CacheKey) -> Option<CacheEntry> {
        self.load().entries.remove(&key.as_string())
    }

    fn put(&self, key: &CacheKey, entry: &CacheEntry) -> Result<(), String> {
        let mut file = self.load();
        file.entries.insert(key.as_string(), entry.clone());
        let bytes = serde_json::to_vec(&file).map_err(|e| e.to_string())?;
        primitives::atomic::write_atomically(&self.path, &bytes, None)
            .map_err(|e| format!("writing {}: {e}", self.path.display()))
    }
}

/// The time the TTL is measured against.
pub trait Clock {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> u64;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(at: u64) -> CacheEntry {
        CacheEntry {
            rules: vec![RuleType::PullRequest, RuleType::Other("new_kind".into())],
            etag: Some("W/\"abc\"".into()),
            fetched_at_ms: at,
        }
    }

    #[test]
    fn keys_normalise() {
        let a = CacheKey::new("GitHub.com", "Owner", "Repo", "Feature/X");
        let b = CacheKey::new("ssh.github.com:443", "owner", "repo", "Feature/X");
        assert_eq!(a, b);
        assert_eq!(a.as_string(), "github.com/owner/repo#Feature/X");
        assert_ne!(a, CacheKey::new("github.com", "owner", "repo", "feature/x"));
    }

    #[test]
    fn freshness() {
        let e = entry(1_000);
        assert!(e.is_fresh(1_000, 60_000));
        assert!(e.is_fresh(60_999, 60_000));
        assert!(!e.is_fresh(61_000, 60_000));
        assert!(!e.is_fresh(999, 60_000));
    }

    #[test]
    fn memory_store() {
        let c = MemoryCache::new();
        let k = CacheKey::new("github.com", "o", "r", "main");
        assert_eq!(c.get(&k), None);
        c.put(&k, &entry(5)).unwrap();
        assert_eq!(c.get(&k), Some(entry(5)));
    }

    #[test]
    fn json_file_store() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rules.json");
        let c = JsonFileCache::new(&path);
        let k1 = CacheKey::new("github.com", "o", "r", "main");
        let k2 = CacheKey::new("ghe.example.com", "o", "r", "a#b");
        assert_eq!(c.get(&k1), None);
        c.put(&k1, &entry(1)).unwrap();
        c.put(&k2, &entry(2)).unwrap();
        // A second handle on the same file sees both (the data is on disk, not in the value).
        let again = JsonFileCache::new(&path);
        assert_eq!(again.get(&k1), Some(entry(1)));
        assert_eq!(again.get(&k2), Some(entry(2)));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"new_kind\""), "{text}");
        // No temp files are left behind.
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
        // A corrupt file reads as empty and is replaced on the next write.
        std::fs::write(&path, b"{not json").unwrap();
        assert_eq!(c.get(&k1), None);
        c.put(&k1, &entry(3)).unwrap();
        assert_eq!(c.get(&k1), Some(entry(3)));
        // A store in a directory that does not exist reports the failure.
        let missing = JsonFileCache::new(dir.path().join("no/such/dir/rules.json"));
        assert!(missing.put(&k1, &entry(1)).is_err());
    }
}
