//! Ages as the report prints them.

/// `59s`, `1m30s`, `4h12m`, `3d4h`: two units at most, the larger first.
pub fn format_age(seconds: u64) -> String {
    let (d, h, m, s) = (
        seconds / 86_400,
        (seconds % 86_400) / 3600,
        (seconds % 3600) / 60,
        seconds % 60,
    );
    if d > 0 {
        format!("{d}d{h}h")
    } else if h > 0 {
        format!("{h}h{m}m")
    } else if m > 0 {
        format!("{m}m{s}s")
    } else {
        format!("{s}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_the_requirement() {
        assert_eq!(format_age(0), "0s");
        assert_eq!(format_age(59), "59s");
        assert_eq!(format_age(90), "1m30s");
        assert_eq!(format_age(4 * 3600 + 12 * 60 + 5), "4h12m");
        assert_eq!(format_age(3 * 86_400 + 4 * 3600), "3d4h");
    }
}
