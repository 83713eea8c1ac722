//! An error and its sources on one line: HTTP clients (reqwest) put the reason a request failed
//! (refused, timed out, a certificate) in a source, not in the top-level message, and a reason a
//! maintainer reads must carry it.

/// `e`'s message, then each source's, joined by `": "`.
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    #[derive(Debug)]
    struct Outer(std::io::Error);
    impl std::fmt::Display for Outer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("request failed")
        }
    }
    impl std::error::Error for Outer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn the_sources_follow_the_message() {
        let e = Outer(std::io::Error::other("connection refused"));
        assert_eq!(super::chain(&e), "request failed: connection refused");
    }
}
