//! The broker's own sub-codes (C11), for refusals no guard rule makes: the request could not
//! be read or judged, or carried no placeholder. A rule's refusal keeps the rule's own code
//! (`G4.rule`, `G3.other-owner`), the same the command text gets.

/// A write that does not present the session's placeholder (the real token, another
/// credential, none): never sent with the real token, and not sent at all.
pub const NO_PLACEHOLDER: &str = "C11.no-placeholder";
/// A request that is not HTTP/1.1 as the broker reads it.
pub const MALFORMED: &str = "C11.malformed";
/// A head or body over its bound.
pub const PAST_BOUND: &str = "C11.past-bound";
/// A `git-receive-pack` body whose ref commands cannot be read (or a signed push).
pub const UNREAD_PUSH: &str = "C11.unread-push";
/// A write to a GitHub web host that no rule reads (not a push).
pub const UNKNOWN_WRITE: &str = "C11.unknown-write";
/// GitHub did not answer in time, or could not be reached.
pub const UPSTREAM: &str = "C11.upstream";
