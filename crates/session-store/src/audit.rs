//! The JSON-lines audit log: the maintainer's full evidence, one record per line.
//!
//! Lines are appended under an exclusive lock on the log file so that parallel hooks (the CLI runs
//! every matching hook at once) never interleave, whatever a line's length.

use crate::StoreError;
use serde_json::{Map, Value};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

/// One audit log file.
#[derive(Debug, Clone)]
pub struct AuditLog {
    path: PathBuf,
}

impl AuditLog {
    /// The log at `path` (created on the first append).
    pub fn at(path: PathBuf) -> AuditLog {
        AuditLog { path }
    }

    /// Where the log is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record; `time` is added when absent. The record must be a JSON object.
    pub fn append(&self, record: &Value) -> Result<(), StoreError> {
        let mut record = match record {
            Value::Object(m) => m.clone(),
            other => {
                let mut m = Map::new();
                m.insert("record".into(), other.clone());
                m
            }
        };
        if !record.contains_key("time") {
            record.insert("time".into(), Value::String(crate::time::now_rfc3339()));
        }
        let mut line = Value::Object(record).to_string();
        line.push('\n');
        if let Some(parent) = self.path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| StoreError::io(parent, e))?;
        }
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(|e| StoreError::io(&self.path, e))?;
        file.lock().map_err(|e| StoreError::io(&self.path, e))?;
        // One write of the whole line while holding the lock.
        let result = file.write_all(line.as_bytes());
        let _ = file.unlock();
        result.map_err(|e| StoreError::io(&self.path, e))
    }

    /// Reads every record (lines that do not parse are skipped and counted).
    pub fn read_all(&self) -> Result<(Vec<Value>, usize), StoreError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
            Err(e) => return Err(StoreError::io(&self.path, e)),
        };
        let mut bad = 0;
        let mut out = Vec::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            match serde_json::from_str(line) {
                Ok(v) => out.push(v),
                Err(_) => bad += 1,
            }
        }
        Ok((out, bad))
    }
}
