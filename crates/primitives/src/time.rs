//! UTC timestamps for records: `YYYY-MM-DDTHH:MM:SS.mmmZ` (RFC 3339, milliseconds, `Z`).

use std::time::{SystemTime, UNIX_EPOCH};
use time::format_description::BorrowedFormatItem;
use time::macros::format_description;
use time::OffsetDateTime;

const FORMAT: &[BorrowedFormatItem<'static>] =
    format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");

/// Seconds since the epoch, now.
pub fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` for a time since the epoch, truncated to the millisecond. Times
/// before the epoch read as the epoch; times past year 9999 as its last millisecond.
pub fn rfc3339(unix_seconds: f64) -> String {
    const LAST: i128 = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z in milliseconds
    let millis = ((unix_seconds * 1000.0).max(0.0) as i128).min(LAST);
    OffsetDateTime::from_unix_timestamp_nanos(millis * 1_000_000)
        .ok()
        .and_then(|t| t.format(FORMAT).ok())
        .unwrap_or_else(|| "1970-01-01T00:00:00.000Z".to_string())
}

/// Now, as [`rfc3339`].
pub fn now_rfc3339() -> String {
    rfc3339(unix_now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        for (secs, want) in [
            (0.0, "1970-01-01T00:00:00.000Z"),
            (951_782_400.5, "2000-02-29T00:00:00.500Z"),
            (1_796_083_200.0, "2026-12-01T00:00:00.000Z"),
            (1_796_083_200.999_9, "2026-12-01T00:00:00.999Z"),
            (-5.0, "1970-01-01T00:00:00.000Z"),
            (1e15, "9999-12-31T23:59:59.999Z"),
        ] {
            assert_eq!(rfc3339(secs), want, "{secs}");
        }
    }
}
