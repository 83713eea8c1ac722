//! The password database's facts the suite needs: the effective user, and a system account by
//! name (the exec-gate service's own user, issue 40).

/// The effective user id (`0` where there is no such notion).
pub fn effective_uid() -> u32 {
    #[cfg(unix)]
    {
        // SAFETY: geteuid cannot fail.
        unsafe { libc::geteuid() }
    }
    #[cfg(not(unix))]
    {
        0
    }
}

/// One account of the password database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Account {
    /// The user id.
    pub uid: u32,
    /// The primary group id.
    pub gid: u32,
}

/// The account called `name` (`getpwnam_r`), or `None` when there is none.
pub fn account(name: &str) -> Option<Account> {
    #[cfg(unix)]
    {
        let name = std::ffi::CString::new(name).ok()?;
        let mut buf = vec![0u8; 16 * 1024];
        // SAFETY: `pwd` and `buf` outlive the call; on success `result` points into them.
        unsafe {
            let mut pwd: libc::passwd = std::mem::zeroed();
            let mut result: *mut libc::passwd = std::ptr::null_mut();
            let rc = libc::getpwnam_r(
                name.as_ptr(),
                &mut pwd,
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut result,
            );
            (rc == 0 && !result.is_null()).then_some(Account {
                uid: pwd.pw_uid,
                gid: pwd.pw_gid,
            })
        }
    }
    #[cfg(not(unix))]
    {
        let _ = name;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_is_uid_0_and_a_made_up_name_is_no_one() {
        assert_eq!(account("root"), Some(Account { uid: 0, gid: 0 }));
        assert_eq!(account("no-such-account-agent-guards-test"), None);
        assert_eq!(account("a\0b"), None);
    }
}
