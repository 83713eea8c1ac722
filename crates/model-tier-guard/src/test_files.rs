//! Test-only: the files a test puts in its temp folders (agent definitions, skills, settings),
//! and what a test reads back from the requests the rules find.

use crate::m3_launch::Requested;
use std::path::{Path, PathBuf};

/// Writes `text` at `path`, making its folders.
pub fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Writes each `(folder, path under it, text)`.
pub fn write_all(files: &[(&Path, &str, &str)]) {
    for (folder, path, text) in files {
        write(&folder.join(path), text);
    }
}

/// A temp folder holding a project folder (`p`) and a home folder (`h`), removed on drop.
pub struct Folders {
    _dir: tempfile::TempDir,
    pub project: PathBuf,
    pub home: PathBuf,
}

/// Makes an empty [`Folders`].
pub fn folders() -> Folders {
    let dir = tempfile::tempdir().unwrap();
    let (project, home) = (dir.path().join("p"), dir.path().join("h"));
    Folders {
        _dir: dir,
        project,
        home,
    }
}

/// The model each request names, in order (`None`: one that could not be learned).
pub fn models_of(requests: Vec<Requested>) -> Vec<Option<String>> {
    requests.into_iter().map(|r| r.model).collect()
}
