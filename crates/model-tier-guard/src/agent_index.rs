//! A per-folder index of agent definitions (file → `name`, `model`), kept in the state dir so a
//! dispatch does not re-read hundreds of definitions: each file is checked with one `stat`, and
//! only files whose stamp (mtime, ctime, size, inode) changed are read again. The ctime is part
//! of the stamp because it cannot be set back by the user, so an edit cannot hide behind a
//! restored mtime.

use crate::host::read_prefix;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

const MAX_INDEX_BYTES: u64 = 8 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    stamp: [i64; 5],
    name: String,
    model: Option<String>,
}

/// The index of one definitions folder.
#[derive(Debug)]
pub struct Index {
    path: PathBuf,
    entries: BTreeMap<String, Entry>,
    dirty: bool,
}

fn stamp(path: &Path) -> Option<[i64; 5]> {
    let m = std::fs::metadata(path).ok()?;
    if !m.is_file() {
        return None;
    }
    Some([
        m.mtime(),
        m.mtime_nsec(),
        m.ctime()
            .wrapping_mul(1_000_000_000)
            .wrapping_add(m.ctime_nsec()),
        i64::try_from(m.size()).unwrap_or(i64::MAX),
        i64::try_from(m.ino()).unwrap_or(i64::MAX),
    ])
}

impl Index {
    /// The index of `root`, kept under `cache_dir` (empty when missing or unreadable).
    pub fn load(cache_dir: &Path, root: &Path) -> Index {
        // A safe, collision-free file name for the folder's path (hashed when not plain).
        let name = session_store::session_dir_name(&root.to_string_lossy());
        let path = cache_dir.join(format!("{name}.json"));
        let entries = read_prefix(&path, MAX_INDEX_BYTES)
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        Index {
            path,
            entries,
            dirty: false,
        }
    }

    /// The definition's `(name, model)`, from the index when the file is unchanged, else from
    /// `read` (and remembered).
    pub fn get_or_read(
        &mut self,
        file: &Path,
        read: impl FnOnce() -> Option<(String, Option<String>)>,
    ) -> Option<(String, Option<String>)> {
        let key = file.to_string_lossy().into_owned();
        let Some(now) = stamp(file) else {
            return read();
        };
        if let Some(e) = self.entries.get(&key).filter(|e| e.stamp == now) {
            return Some((e.name.clone(), e.model.clone()));
        }
        let (name, model) = read()?;
        self.entries.insert(
            key,
            Entry {
                stamp: now,
                name: name.clone(),
                model: model.clone(),
            },
        );
        self.dirty = true;
        Some((name, model))
    }

    /// Forgets files that are gone.
    pub fn retain(&mut self, files: &[PathBuf]) {
        let keep: std::collections::BTreeSet<String> = files
            .iter()
            .map(|f| f.to_string_lossy().into_owned())
            .collect();
        let before = self.entries.len();
        self.entries.retain(|k, _| keep.contains(k));
        self.dirty |= self.entries.len() != before;
    }

    /// Writes the index when it changed (new file, then rename: parallel hooks never see half
    /// an index). Failures only cost speed.
    pub fn save(&self) {
        if !self.dirty {
            return;
        }
        let Some(parent) = self.path.parent() else {
            return;
        };
        if std::fs::create_dir_all(parent).is_err() {
            return;
        }
        let Ok(body) = serde_json::to_vec(&self.entries) else {
            return;
        };
        let tmp = self
            .path
            .with_extension(format!("tmp-{}", std::process::id()));
        if std::fs::write(&tmp, body).is_ok() && std::fs::rename(&tmp, &self.path).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_once_and_notices_changes() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("agents");
        std::fs::create_dir_all(&root).unwrap();
        let f = root.join("a.md");
        std::fs::write(&f, "x").unwrap();
        let cache = t.path().join("cache");
        let mut reads = 0;
        let mut ix = Index::load(&cache, &root);
        let got = ix.get_or_read(&f, || {
            reads += 1;
            Some(("a".into(), Some("haiku".into())))
        });
        assert_eq!(got, Some(("a".into(), Some("haiku".into()))));
        ix.save();
        let mut ix = Index::load(&cache, &root);
        let got = ix.get_or_read(&f, || {
            reads += 1;
            None
        });
        assert_eq!(got.unwrap().1.as_deref(), Some("haiku"));
        assert_eq!(reads, 1, "unchanged file served from the index");
        std::fs::write(&f, "changed").unwrap();
        let got = ix.get_or_read(&f, || {
            reads += 1;
            Some(("a".into(), Some("fable".into())))
        });
        assert_eq!(got.unwrap().1.as_deref(), Some("fable"));
        assert_eq!(reads, 2);
        ix.retain(&[]);
        assert!(ix.entries.is_empty());
    }
}
