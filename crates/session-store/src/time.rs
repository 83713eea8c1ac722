//! UTC timestamps for records: the workspace's one RFC 3339 helper ([`primitives::time`]),
//! re-exported here where every record writer already looks.

pub use primitives::time::{now_rfc3339, rfc3339, unix_now};
