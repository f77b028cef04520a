//! RFC 3339 text for Unix seconds, as Go's `time.Time` marshals it in UTC.

use firn_core::calendar::{DAY, civil_from_days};

/// `2025-01-01T00:00:00Z` for Unix seconds.
pub fn rfc3339(unix: u64) -> String {
    let days = unix / DAY;
    let secs = unix % DAY;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_735_689_600), "2025-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400 + 86_399), "2000-02-29T23:59:59Z");
    }
}
