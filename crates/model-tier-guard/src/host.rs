//! The edge: what the hook knows about the machine it runs on — its own environment (which is
//! the session's launch environment), the CLI's command line, the home and project folders.
//!
//! Rules read these through [`Host`] so that fixtures and tests can supply their own; the
//! harness's settings files are read through [`ConfigFiles`] (bounded in size, and never
//! blocking on a FIFO or a device).

use safety_kernel::Grant;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Name of the grant (M4).
pub const GRANT_VAR: &str = "MODEL_TIER_GUARD_ALLOW";

/// Longest CLI command line read from `/proc`.
const MAX_CMDLINE_BYTES: u64 = 256 * 1024;

/// Where Claude Code keeps managed (policy) settings on this platform.
#[cfg(target_os = "macos")]
pub const MANAGED_SETTINGS_DIR: &str = "/Library/Application Support/ClaudeCode";
/// Where Claude Code keeps managed (policy) settings on this platform.
#[cfg(not(target_os = "macos"))]
pub const MANAGED_SETTINGS_DIR: &str = "/etc/claude-code";

#[derive(Debug, Clone, Default)]
pub struct Host {
    pub env: BTreeMap<String, String>,
    /// The CLI's argv (from `/proc/$CLAUDE_PID/cmdline`), without the program. `None`: it could
    /// not be read, so what the CLI was launched with is not known.
    pub launch_args: Option<Vec<String>>,
    /// The folder of `managed-settings.json` and `managed-settings.d/` ([`MANAGED_SETTINGS_DIR`]
    /// for the real process; a scratch folder or none in fixtures and tests).
    pub managed_dir: Option<PathBuf>,
}

impl Host {
    /// The hook's own process: its environment and its CLI's command line.
    pub fn from_process() -> Host {
        let env: BTreeMap<String, String> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        let launch_args = env
            .get("CLAUDE_PID")
            .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|pid| cli_args(pid));
        Host {
            env,
            launch_args,
            managed_dir: Some(PathBuf::from(MANAGED_SETTINGS_DIR)),
        }
    }

    pub fn var(&self, name: &str) -> Option<&str> {
        self.env
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// M4: the grant, read strictly from the launch environment.
    pub fn grant(&self) -> Grant {
        safety_kernel::grant(self.env.get(GRANT_VAR).map(String::as_str))
    }

    pub fn home(&self) -> Option<PathBuf> {
        self.var("HOME")
            .filter(|h| h.starts_with('/'))
            .map(PathBuf::from)
    }

    /// The alias variables of the CLI's environment (settings `env` included: the CLI applies
    /// them to its own environment and its hooks').
    pub fn aliases(&self) -> crate::model_aliases::AliasEnv {
        crate::model_aliases::AliasEnv::from_lookup(|k| self.var(k).map(str::to_string))
    }

    /// The CLI's user folder: `$CLAUDE_CONFIG_DIR` when set (absolute), else `~/.claude`.
    pub fn user_config_dir(&self) -> Option<PathBuf> {
        match self.var("CLAUDE_CONFIG_DIR").filter(|d| d.starts_with('/')) {
            Some(d) => Some(PathBuf::from(d)),
            None => self.home().map(|h| h.join(".claude")),
        }
    }

    /// The user's folders the CLI may read agents and plugins from: [`Self::user_config_dir`],
    /// then `~/.claude` when that is another folder.
    pub fn user_dirs(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = self.user_config_dir().into_iter().collect();
        if let Some(h) = self.home().map(|h| h.join(".claude")) {
            if !dirs.contains(&h) {
                dirs.push(h);
            }
        }
        dirs
    }

    /// The session's project folder: `CLAUDE_PROJECT_DIR`, else the payload's `cwd`.
    pub fn project_dir(&self, cwd: Option<&str>) -> Option<PathBuf> {
        self.var("CLAUDE_PROJECT_DIR")
            .or(cwd)
            .filter(|d| d.starts_with('/'))
            .map(PathBuf::from)
    }

    /// The value of `--name X` / `--name=X` in the CLI's own command line (last one wins).
    pub fn launch_option(&self, name: &str) -> Option<String> {
        option_value(self.launch_args.as_deref()?, name)
    }
}

/// The value of `--name X` / `--name=X` in an argv (last one wins).
pub fn option_value(args: &[String], name: &str) -> Option<String> {
    let mut found = None;
    let prefix = format!("{name}=");
    let mut i = 0;
    while i < args.len() {
        if args[i] == name {
            found = args.get(i + 1).cloned();
            i += 1;
        } else if let Some(v) = args[i].strip_prefix(&prefix) {
            found = Some(v.to_string());
        }
        i += 1;
    }
    found
}

/// The CLI's argv without the program: `/proc/<pid>/cmdline` on Linux.
#[cfg(not(target_os = "macos"))]
fn cli_args(pid: &str) -> Option<Vec<String>> {
    read_cmdline(Path::new(&format!("/proc/{pid}/cmdline")))
}

/// The CLI's argv without the program: macOS has no `/proc`; `sysctl(KERN_PROCARGS2)` gives the
/// same argv (for a process of the same user, as the CLI is), bounded by the kernel's `ARG_MAX`.
#[cfg(target_os = "macos")]
fn cli_args(pid: &str) -> Option<Vec<String>> {
    let mut mib = [libc::CTL_KERN, libc::KERN_PROCARGS2, pid.parse().ok()?];
    let mut size: libc::size_t = 0;
    // SAFETY: a size query (no buffer); `size` receives the length the kernel would copy.
    let rc = unsafe {
        libc::sysctl(
            mib.as_mut_ptr(),
            3,
            std::ptr::null_mut(),
            &mut size,
            std::ptr::null_mut(),
            0,
        )
    };
    if rc != 0 || size == 0 || size > 4 * 1024 * 1024 {
        return None;
    }
    let mut buf = vec![0u8; size];
    // SAFETY: `buf` holds `size` bytes and `size` says so; the kernel writes at most that many.
    let rc = unsafe {
        libc::sysctl(
            mib.as_mut_ptr(),
            3,
            buf.as_mut_ptr().cast(),
            &mut size,
            std::ptr::null_mut(),
            0,
        )
    };
    if rc != 0 {
        return None;
    }
    buf.truncate(size);
    parse_procargs2(&buf)
}

/// macOS `KERN_PROCARGS2` bytes: `argc` (native-endian `i32`), the executable path, NUL padding,
/// then `argc` NUL-terminated arguments (the environment follows). Returns argv without the
/// program; `None` when the buffer is short of `argc` arguments (truncated or malformed).
pub fn parse_procargs2(bytes: &[u8]) -> Option<Vec<String>> {
    let argc = i32::from_ne_bytes(bytes.get(..4)?.try_into().ok()?);
    let argc = usize::try_from(argc).ok().filter(|n| *n >= 1)?;
    let rest = &bytes[4..];
    let mut at = rest.iter().position(|b| *b == 0)?;
    while rest.get(at) == Some(&0) {
        at += 1;
    }
    let mut args = Vec::with_capacity(argc);
    let mut tail = &rest[at..];
    while args.len() < argc {
        let end = tail.iter().position(|b| *b == 0)?;
        args.push(String::from_utf8_lossy(&tail[..end]).into_owned());
        tail = &tail[end + 1..];
    }
    args.remove(0);
    Some(args)
}

#[cfg_attr(target_os = "macos", allow(dead_code))]
fn read_cmdline(path: &Path) -> Option<Vec<String>> {
    let bytes = primitives::read::prefix(path, MAX_CMDLINE_BYTES)?;
    let mut args: Vec<String> = bytes
        .split(|b| *b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    if args.last().is_some_and(String::is_empty) {
        args.pop();
    }
    if args.is_empty() {
        return None;
    }
    args.remove(0);
    Some(args)
}

/// Reads at most `limit` bytes of a file as text (lossy). `None` when it cannot be opened.
pub fn read_prefix(path: &Path, limit: u64) -> Option<String> {
    let cap = usize::try_from(limit.min(64 * 1024)).unwrap_or(64 * 1024);
    let mut buf = vec![0u8; cap];
    let (file, filled) = read_head(path, &mut buf)?;
    buf.truncate(filled);
    if filled == cap && limit > cap as u64 {
        // A larger file with a larger bound: read the rest, still bounded.
        file.take(limit - cap as u64).read_to_end(&mut buf).ok()?;
    }
    Some(String::from_utf8_lossy(&buf).into_owned())
}

/// Reads the start of a file into `buf` and returns the open file and the bytes read.
///
/// Agent folders are scanned on every dispatch, so a small file costs one `read`: a short read
/// of a regular file means its end. Regular files only, opened without waiting: a FIFO the agent
/// puts among its definitions or settings is unreadable, never a hang (issue 47).
pub fn read_head(path: &Path, buf: &mut [u8]) -> Option<(std::fs::File, usize)> {
    let mut f =
        primitives::no_wait::open_regular(path, std::fs::OpenOptions::new().read(true)).ok()?;
    let mut filled = 0;
    while filled < buf.len() {
        match f.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => {
                filled += n;
                if filled < buf.len() {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    Some((f, filled))
}

/// Largest settings file read; a larger one is not read at all (and counts as unreadable).
pub const SETTINGS_MAX_BYTES: u64 = 1024 * 1024;
/// Most files read from a `*.d/` folder of settings.
pub const DROP_INS_MAX: usize = 64;

/// What reading one settings file gave.
#[derive(Debug, Clone, PartialEq)]
pub enum SettingsFile {
    /// No such file (the CLI skips it too).
    Absent,
    /// The file's JSON object.
    Json(serde_json::Map<String, Value>),
    /// The file is there but could not be read as a JSON object within the bounds: the cause.
    Unreadable(String),
}

/// The harness's own configuration files, as the hook reads them.
pub trait ConfigFiles {
    /// One settings file.
    fn settings(&self, path: &Path) -> SettingsFile;
    /// The `*.json` files of a drop-in folder, by name; empty when there is no folder. An error
    /// when the folder cannot be listed or holds more than [`DROP_INS_MAX`] of them.
    fn drop_ins(&self, dir: &Path) -> Result<Vec<PathBuf>, String>;
}

/// The real file system.
#[derive(Debug, Clone, Copy, Default)]
pub struct Fs;

impl ConfigFiles for Fs {
    fn settings(&self, path: &Path) -> SettingsFile {
        let text = match read_regular(path, SETTINGS_MAX_BYTES) {
            Ok(Some(t)) => t,
            Ok(None) => return SettingsFile::Absent,
            Err(e) => return SettingsFile::Unreadable(e),
        };
        match serde_json::from_slice::<Value>(&text) {
            Ok(Value::Object(m)) => SettingsFile::Json(m),
            Ok(_) => SettingsFile::Unreadable("not a JSON object".into()),
            Err(e) => SettingsFile::Unreadable(format!("not valid JSON ({e})")),
        }
    }

    fn drop_ins(&self, dir: &Path) -> Result<Vec<PathBuf>, String> {
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) if is_absent(&e) => return Ok(Vec::new()),
            Err(e) => return Err(e.to_string()),
        };
        let mut out = Vec::new();
        // Bounded: a folder of many unrelated files is not walked to its end.
        for entry in entries.take(DROP_INS_MAX * 16) {
            let path = entry.map_err(|e| e.to_string())?.path();
            if path.extension().is_some_and(|x| x == "json") {
                if out.len() == DROP_INS_MAX {
                    return Err(format!("more than {DROP_INS_MAX} settings files"));
                }
                out.push(path);
            }
        }
        out.sort();
        Ok(out)
    }
}

fn is_absent(e: &std::io::Error) -> bool {
    // ENOTDIR: a component of the path is a file, so the file cannot exist either.
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
}

/// Reads a regular file of at most `limit` bytes. `Ok(None)`: there is no such file.
///
/// Opened non-blocking, so a FIFO or a device in a settings path cannot stall the hook; only a
/// regular file is read.
pub fn read_regular(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, String> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if is_absent(&e) => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() > limit {
        return Err(format!("larger than {limit} bytes"));
    }
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > limit {
        return Err(format!("larger than {limit} bytes"));
    }
    Ok(Some(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_in_an_argv() {
        let a: Vec<String> = ["-p", "x", "--model", "opus", "--model=fable"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(option_value(&a, "--model").as_deref(), Some("fable"));
        assert_eq!(option_value(&a, "--agents"), None);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn cmdline_of_this_process() {
        let args = read_cmdline(Path::new("/proc/self/cmdline"));
        assert!(args.is_some());
    }

    #[test]
    fn macos_procargs2_layout() {
        let mut b = 3i32.to_ne_bytes().to_vec();
        b.extend_from_slice(
            b"/usr/local/bin/node\0\0\0\0node\0--model\0opus\0PATH=/bin\0HOME=/h\0",
        );
        assert_eq!(
            parse_procargs2(&b),
            Some(vec!["--model".to_string(), "opus".to_string()])
        );
        // Cut inside the arguments: not a partial argv that could hide a --model.
        assert_eq!(parse_procargs2(&b[..b.len() - 30]), None);
        assert_eq!(parse_procargs2(&0i32.to_ne_bytes()), None);
        assert_eq!(parse_procargs2(b"ab"), None);
        let mut one = 1i32.to_ne_bytes().to_vec();
        one.extend_from_slice(b"/bin/claude\0claude\0");
        assert_eq!(parse_procargs2(&one), Some(vec![]));
    }

    #[test]
    fn bounded_reads() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("f");
        std::fs::write(&p, "a".repeat(100_000)).unwrap();
        assert_eq!(read_prefix(&p, 10).unwrap().len(), 10);
        assert_eq!(read_prefix(&p, 70_000).unwrap().len(), 70_000);
        assert_eq!(read_prefix(&p, 1 << 20).unwrap().len(), 100_000);
        std::fs::write(&p, "short").unwrap();
        assert_eq!(read_prefix(&p, 16 * 1024).unwrap(), "short");
        assert!(read_prefix(&t.path().join("none"), 10).is_none());
    }

    #[test]
    fn drop_ins_are_json_files_by_name_and_bounded() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("managed-settings.d");
        assert_eq!(Fs.drop_ins(&d), Ok(Vec::new()));
        std::fs::create_dir_all(&d).unwrap();
        for name in ["20-b.json", "10-a.json", "notes.txt"] {
            std::fs::write(d.join(name), "{}").unwrap();
        }
        let names: Vec<String> = Fs
            .drop_ins(&d)
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["10-a.json", "20-b.json"]);
        for i in 0..DROP_INS_MAX {
            std::fs::write(d.join(format!("x{i}.json")), "{}").unwrap();
        }
        assert!(Fs.drop_ins(&d).unwrap_err().contains("more than"));
        // A file where the folder should be holds no drop-ins.
        assert_eq!(Fs.drop_ins(&d.join("10-a.json")), Ok(Vec::new()));
    }

    #[test]
    fn settings_files_read_as_json_objects() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("settings.json");
        assert_eq!(Fs.settings(&p), SettingsFile::Absent);
        assert_eq!(Fs.settings(&p.join("below-a-file")), SettingsFile::Absent);
        std::fs::write(&p, r#"{"model": "sonnet"}"#).unwrap();
        assert!(matches!(Fs.settings(&p), SettingsFile::Json(m) if m["model"] == "sonnet"));
        std::fs::write(&p, b"\xff\xfe").unwrap();
        assert!(matches!(Fs.settings(&p), SettingsFile::Unreadable(c) if c.contains("JSON")));
        assert_eq!(read_regular(&p, 1), Err("larger than 1 bytes".into()));
    }

    #[test]
    fn grant_is_strict() {
        let mut h = Host::default();
        h.env.insert(GRANT_VAR.into(), "tru".into());
        assert!(!h.grant().is_granted());
        h.env.insert(GRANT_VAR.into(), "YES".into());
        assert!(h.grant().is_granted());
    }
}
