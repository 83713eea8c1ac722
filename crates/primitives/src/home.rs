//! The home folder as bash finds it: `$HOME` when it is set, else the password database's entry
//! for the user (bash expands `~` from there when `HOME` is unset, so a guard that did not would
//! miss `~/.claude/settings.json` in a command run with `env -u HOME`; issue 47).

use std::path::PathBuf;

/// `$HOME` from `env` when it is an absolute path, else the user's home from the password
/// database ([`passwd_home`]).
pub fn home(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    env("HOME")
        .filter(|h| h.starts_with('/'))
        .map(PathBuf::from)
        .or_else(passwd_home)
}

/// The effective user's home folder from the password database (`getpwuid_r`).
pub fn passwd_home() -> Option<PathBuf> {
    #[cfg(unix)]
    {
        use std::ffi::CStr;
        use std::os::unix::ffi::OsStrExt;
        let mut buf = vec![0u8; 16 * 1024];
        // SAFETY: `pwd` and `buf` outlive the call; on success `result` points into them and
        // `pw_dir` is a NUL-terminated string inside `buf`.
        unsafe {
            let mut pwd: libc::passwd = std::mem::zeroed();
            let mut result: *mut libc::passwd = std::ptr::null_mut();
            let rc = libc::getpwuid_r(
                libc::geteuid(),
                &mut pwd,
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut result,
            );
            if rc != 0 || result.is_null() || pwd.pw_dir.is_null() {
                return None;
            }
            let dir = CStr::from_ptr(pwd.pw_dir).to_bytes();
            (dir.first() == Some(&b'/')).then(|| PathBuf::from(std::ffi::OsStr::from_bytes(dir)))
        }
    }
    #[cfg(not(unix))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_falls_back_to_the_password_database_as_bash_does() {
        let bash = std::process::Command::new("env")
            .args(["-u", "HOME", "bash", "-c", "echo ~"])
            .output()
            .expect("bash");
        let bash_home = String::from_utf8(bash.stdout).unwrap().trim().to_string();
        assert_eq!(home(&|_| None), Some(PathBuf::from(&bash_home)));
        assert_eq!(
            home(&|k| (k == "HOME").then(|| "/h".to_string())),
            Some(PathBuf::from("/h"))
        );
        assert_eq!(
            home(&|k| (k == "HOME").then(|| "relative".to_string())),
            Some(PathBuf::from(bash_home)),
            "a relative HOME is not a home"
        );
    }
}
