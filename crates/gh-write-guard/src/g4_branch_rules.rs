//! G4: a git operation that only lands by bypassing a branch rule.

use crate::finding::Finding;
use crate::judge::Analysis;

/// Findings of this requirement over every invocation of the analysis.
pub fn check(_a: &Analysis<'_>) -> Vec<Finding> {
    Vec::new()
}
