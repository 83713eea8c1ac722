//! G3: a write aimed at another owner without the maintainer's grant.

use crate::finding::Finding;
use crate::judge::Analysis;

/// Findings of this requirement over every invocation of the analysis.
pub fn check(_a: &Analysis<'_>) -> Vec<Finding> {
    Vec::new()
}
