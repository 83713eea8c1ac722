//! G6: a mutating git operation in a primary checkout is denied.
//!
//! The `gh-g67` branch (issue 5) fills this module; until then it finds nothing. It reads the
//! analysis ([`Analysis::invocations`], each unit's view with `cds` and env), the shared git
//! argument split ([`crate::git_args`]), directories ([`crate::location`]) and the world's
//! [`crate::world::World::repo_kind`], `resolves_to_commit` and `git_aliases`.

use crate::finding::Finding;
use crate::judge::Analysis;

/// Findings of G6 over every invocation of the analysis.
pub fn check(_a: &Analysis<'_>) -> Vec<Finding> {
    Vec::new()
}
