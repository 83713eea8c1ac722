//! Test-only: the files a test puts in its temp folders (agent definitions, skills, settings).

use std::path::Path;

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
