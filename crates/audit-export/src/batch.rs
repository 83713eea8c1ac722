//! Cutting what a log holds past the cursor into complete lines and batches: pure functions.
//!
//! Only complete lines are taken (a line is complete once its newline is written; a writer's
//! append is one write under the log's lock, but a reader does not take that lock), so the cursor
//! always stops at a line's start. A batch holds at least one line, so a line longer than the
//! byte budget still goes, alone.

/// Complete lines of `bytes`: each line's range without its newline, and the bytes they span with
/// their newlines (where the next read starts).
pub fn complete_lines(bytes: &[u8]) -> (Vec<std::ops::Range<usize>>, usize) {
    let mut lines = Vec::new();
    let mut start = 0;
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'\n' {
            lines.push(start..i);
            start = i + 1;
        }
    }
    (lines, start)
}

/// The number of lines in each batch, in order: at most `max_records` lines and about
/// `max_bytes` bytes each (a batch's first line is always taken).
pub fn plan(line_lengths: &[usize], max_records: usize, max_bytes: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let (mut n, mut bytes) = (0usize, 0usize);
    for len in line_lengths {
        if n > 0 && (n >= max_records.max(1) || bytes + len > max_bytes) {
            out.push(n);
            (n, bytes) = (0, 0);
        }
        n += 1;
        bytes += len;
    }
    if n > 0 {
        out.push(n);
    }
    out
}

/// Lines in `bytes` (newlines).
pub fn count_lines(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|b| **b == b'\n').count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partial_last_line_waits_for_its_newline() {
        let (lines, used) = complete_lines(b"a\nbb\n\nccc");
        assert_eq!(lines, vec![0..1, 2..4, 5..5]);
        assert_eq!(used, 6);
        assert_eq!(complete_lines(b"no newline yet"), (vec![], 0));
    }

    #[test]
    fn batches_respect_both_bounds_and_never_split_or_drop_a_line() {
        assert_eq!(plan(&[10; 5], 2, 1000), vec![2, 2, 1]);
        assert_eq!(plan(&[10; 5], 100, 25), vec![2, 2, 1]);
        assert_eq!(
            plan(&[100, 1, 1], 100, 10),
            vec![1, 2],
            "a long line goes alone"
        );
        assert_eq!(plan(&[], 10, 10), Vec::<usize>::new());
        let lens = [3, 90, 7, 7, 7, 50, 1];
        assert_eq!(plan(&lens, 3, 60).iter().sum::<usize>(), lens.len());
    }
}
