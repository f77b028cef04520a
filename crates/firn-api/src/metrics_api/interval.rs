//! Time buckets of a series: hours, UTC days, weeks starting Monday and calendar months.

const HOUR: u64 = 3_600;
const DAY: u64 = 86_400;

/// The `timeInterval` of a series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interval {
    /// On the hour.
    Hour,
    /// 00:00 UTC.
    Day,
    /// Monday 00:00 UTC.
    Week,
    /// The 1st, 00:00 UTC.
    Month,
}

impl Interval {
    /// Every wire name, as `timeInterval` accepts them.
    pub const NAMES: [&'static str; 4] = ["hour", "day", "week", "month"];

    /// Parses a wire name.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "hour" => Some(Interval::Hour),
            "day" => Some(Interval::Day),
            "week" => Some(Interval::Week),
            "month" => Some(Interval::Month),
            _ => None,
        }
    }

    /// Start of the bucket holding `ts`.
    pub fn start_of(self, ts: u64) -> u64 {
        match self {
            Interval::Hour => ts - ts % HOUR,
            Interval::Day => ts - ts % DAY,
            Interval::Week => {
                // 1970-01-01 was a Thursday: three days after a Monday.
                let day = ts / DAY;
                day.saturating_sub((day + 3) % 7) * DAY
            }
            Interval::Month => {
                let (y, m, _) = civil_from_days(ts / DAY);
                days_from_civil(y, m, 1) * DAY
            }
        }
    }

    /// Start of the bucket after the one starting at `start`.
    pub fn next(self, start: u64) -> u64 {
        match self {
            Interval::Hour => start + HOUR,
            Interval::Day => start + DAY,
            Interval::Week => start + 7 * DAY,
            Interval::Month => {
                let (y, m, _) = civil_from_days(start / DAY);
                let (y, m) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
                days_from_civil(y, m, 1) * DAY
            }
        }
    }

    /// Start of the bucket before the one starting at `start` (`None` before 1970).
    pub fn prev(self, start: u64) -> Option<u64> {
        start.checked_sub(1).map(|t| self.start_of(t))
    }
}

/// (year, month 1..=12, day 1..=31) of a day count since 1970-01-01 (proleptic Gregorian).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
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

/// Day count since 1970-01-01 of a date on or after it.
fn days_from_civil(y: u64, m: u64, d: u64) -> u64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y / 400;
    let yoe = y % 400;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_start_where_the_calendar_says() {
        // 2023-11-14 22:13:20 UTC, a Tuesday.
        let t = 1_700_000_000;
        assert_eq!(Interval::Hour.start_of(t), 1_699_999_200);
        assert_eq!(Interval::Day.start_of(t), 1_699_920_000);
        assert_eq!(Interval::Week.start_of(t), 1_699_833_600); // Monday 2023-11-13
        assert_eq!(Interval::Month.start_of(t), 1_698_796_800); // 2023-11-01
        assert_eq!(Interval::Month.next(1_698_796_800), 1_701_388_800); // 2023-12-01
        assert_eq!(Interval::Month.next(1_701_388_800), 1_704_067_200); // 2024-01-01
        assert_eq!(Interval::Month.prev(1_704_067_200), Some(1_701_388_800));
        assert_eq!(Interval::Month.start_of(1_709_164_800), 1_706_745_600); // 2024-02-29 → 02-01
        // The week of 1970-01-01 began in 1969: clamp to the epoch.
        assert_eq!(Interval::Week.start_of(0), 0);
    }
}
