//! G7: a wait loop with no bound is denied.
//!
//! The `gh-g67` branch (issue 5) fills this module; until then it finds nothing. It reads each
//! unit's parse (`Unit::parsed`) and view (`loops`, `origins`, invocations with their wrappers).

use crate::finding::Finding;
use crate::judge::Analysis;

/// Findings of G7 over every unit of the analysis.
pub fn check(_a: &Analysis<'_>) -> Vec<Finding> {
    Vec::new()
}
