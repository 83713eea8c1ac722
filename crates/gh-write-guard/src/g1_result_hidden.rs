//! G1: a GitHub write whose result is thrown away.

use crate::finding::Finding;
use crate::judge::Analysis;

/// Findings of this requirement over every invocation of the analysis.
pub fn check(_a: &Analysis<'_>) -> Vec<Finding> {
    Vec::new()
}
