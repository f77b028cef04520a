//! Proleptic Gregorian dates of Unix day counts (Howard Hinnant's `civil_from_days` and
//! `days_from_civil`): what RFC 3339 timestamps and calendar-month buckets need, without a
//! date library.

/// Seconds in a day (Unix time has no leap seconds).
pub const DAY: u64 = 86_400;
/// Seconds in an hour.
pub const HOUR: u64 = 3_600;

/// (year, month 1..=12, day 1..=31) of a day count since 1970-01-01.
pub fn civil_from_days(days: u64) -> (u64, u64, u64) {
    // Shift the epoch to 0000-03-01 so leap days fall at the end of a 400-year era.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (y, m, d)
}

/// Day count since 1970-01-01 of a date on or after it (month 1..=12, day 1..=31).
pub fn days_from_civil(y: u64, m: u64, d: u64) -> u64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y / 400;
    let yoe = y % 400;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// RFC 3339 text of Unix seconds in UTC, as Go's `time.Time` marshals it:
/// `2025-01-01T00:00:00Z`.
pub fn rfc3339(unix: u64) -> String {
    let (y, m, d) = civil_from_days(unix / DAY);
    let secs = unix % DAY;
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        secs / HOUR,
        secs / 60 % 60,
        secs % 60
    )
}

/// Unix seconds of an RFC 3339 timestamp as Go marshals `time.Time` (`…T15:55:40Z`, with
/// any fraction of a second, dropped, and `Z` or a `±hh:mm` offset); `None` for anything else
/// or a time before 1970.
pub fn unix_from_rfc3339(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<u64> {
        let digits = b.get(range)?;
        digits.iter().try_fold(0u64, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + u64::from(c - b'0'))
        })
    };
    let at = |i: usize, c: u8| b.get(i) == Some(&c);
    if !(at(4, b'-')
        && at(7, b'-')
        && (at(10, b'T') || at(10, b't'))
        && at(13, b':')
        && at(16, b':'))
    {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if y < 1970
        || !(1..=12).contains(&mo)
        || !(1..=31).contains(&d)
        || h > 23
        || mi > 59
        || sec > 60
    {
        return None;
    }
    let mut i = 19;
    if at(i, b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    let offset: i64 = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) if i + 6 == b.len() && at(i + 3, b':') => {
            let (oh, om) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
            if oh > 23 || om > 59 {
                return None;
            }
            let o = i64::try_from(oh * HOUR + om * 60).ok()?;
            if sign == b'+' { o } else { -o }
        }
        _ => return None,
    };
    let local = days_from_civil(y, mo, d) * DAY + h * HOUR + mi * 60 + sec;
    u64::try_from(i64::try_from(local).ok()?.checked_sub(offset)?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_parses_what_go_marshals() {
        for unix in [0, 1_735_689_600, 951_782_400 + 86_399] {
            assert_eq!(unix_from_rfc3339(&rfc3339(unix)), Some(unix));
        }
        assert_eq!(
            unix_from_rfc3339("2021-03-11T14:57:04.628744154Z"),
            Some(1_615_474_624)
        );
        assert_eq!(
            unix_from_rfc3339("2021-03-11T09:57:04.6-05:00"),
            Some(1_615_474_624)
        );
        for bad in [
            "",
            "2021-03-11",
            "2021-03-11T14:57:04",
            "2021-03-11T14:57:04.Z",
            "2021-13-11T14:57:04Z",
            "1969-12-31T23:59:59Z",
            "2021-03-11T14:57:04Zjunk",
            "２021-03-11T14:57:04Z",
        ] {
            assert_eq!(unix_from_rfc3339(bad), None, "{bad}");
        }
    }

    #[test]
    fn rfc3339_formats_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_735_689_600), "2025-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400 + 86_399), "2000-02-29T23:59:59Z");
    }

    #[test]
    fn days_and_dates_round_trip() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(days_from_civil(2024, 3, 1), 19_783);
        for days in (0..200_000).step_by(7) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }
}
