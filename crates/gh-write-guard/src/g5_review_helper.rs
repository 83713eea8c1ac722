//! G5: a hand-rolled reply or resolve on a review thread where a review helper exists.

use crate::finding::Finding;
use crate::judge::Analysis;

/// Findings of this requirement over every invocation of the analysis.
pub fn check(_a: &Analysis<'_>) -> Vec<Finding> {
    Vec::new()
}
