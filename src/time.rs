//! Times as mnemo writes them: every date and time a user sees (backup
//! names, the CLI's listings, log file names) is formatted here, in UTC,
//! from milliseconds since the Unix epoch.
//!
//! This module must never read a clock: the storage supplies the time.

/// A moment in UTC, split into calendar fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Utc {
    /// Year (proleptic Gregorian).
    pub year: i64,
    /// Month, 1 to 12.
    pub month: u32,
    /// Day of the month, 1 to 31.
    pub day: u32,
    /// Hour, 0 to 23.
    pub hour: u32,
    /// Minute, 0 to 59.
    pub minute: u32,
    /// Second, 0 to 59.
    pub second: u32,
}

impl Utc {
    /// The moment `ms` milliseconds after the Unix epoch.
    pub fn at(ms: u64) -> Utc {
        let secs = ms / 1000;
        let (days, rem) = (secs / 86_400, secs % 86_400);
        let (year, month, day) = civil_from_days(days as i64);
        Utc {
            year,
            month,
            day,
            hour: (rem / 3600) as u32,
            minute: ((rem % 3600) / 60) as u32,
            second: (rem % 60) as u32,
        }
    }

    /// `YYYYMMDDTHHMMSSZ` (backup file names).
    pub fn stamp(&self) -> String {
        format!(
            "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }

    /// `YYYY-MM-DD`.
    pub fn date(&self) -> String {
        format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }

    /// `HH:MM`.
    pub fn clock(&self) -> String {
        format!("{:02}:{:02}", self.hour, self.minute)
    }

    /// `YYYY-MM-DD HH:MM` (listings).
    pub fn minute(&self) -> String {
        format!("{} {}", self.date(), self.clock())
    }
}

/// The start of day `YYYY-MM-DD` (UTC) in ms since the Unix epoch; `None`
/// for anything else or a day before 1970.
pub fn parse_date(text: &str) -> Option<u64> {
    let mut parts = text.trim().split('-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let (y, m, d): (i64, u32, u32) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let days = days_from_civil(y, m, d);
    let (yy, mm, dd) = civil_from_days(days);
    if (yy, mm, dd) != (y, m, d) || days < 0 {
        return None;
    }
    u64::try_from(days).ok()?.checked_mul(86_400_000)
}

/// An ISO-8601 / RFC 3339 date and time, as agents write them in their
/// transcripts (`2025-05-26T07:27:40.079Z`, `2025-05-26T09:27:40+02:00`,
/// fractions of any length), in ms since the Unix epoch; `None` for
/// anything else. A time without a zone is read as UTC.
pub fn parse_iso(text: &str) -> Option<i64> {
    let text = text.trim();
    let (date, rest) = (text.get(..10)?, text.get(10..)?);
    let day = parse_date(date)? as i64;
    let rest = rest.strip_prefix(['T', 't', ' '])?;
    let clock = |s: &str| s.parse::<u32>().ok().filter(|_| s.len() == 2);
    let (h, m, s) = (
        clock(rest.get(..2)?)?,
        clock(rest.get(3..5)?)?,
        clock(rest.get(6..8)?)?,
    );
    if rest.get(2..3)? != ":" || rest.get(5..6)? != ":" || h > 23 || m > 59 || s > 60 {
        return None;
    }
    let mut rest = &rest[8..];
    let mut ms = 0i64;
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let first3: String = frac[..digits]
            .chars()
            .chain("000".chars())
            .take(3)
            .collect();
        ms = first3.parse().ok()?;
        rest = &frac[digits..];
    }
    let offset_min: i64 = match rest {
        "" | "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let zone = &rest[1..];
            if !zone.is_ascii() {
                return None;
            }
            let (oh, om) = match zone.len() {
                5 if &zone[2..3] == ":" => (clock(&zone[..2])?, clock(&zone[3..])?),
                4 => (clock(&zone[..2])?, clock(&zone[2..])?),
                2 => (clock(zone)?, 0),
                _ => return None,
            };
            sign * i64::from(oh * 60 + om)
        }
    };
    let secs = i64::from(h) * 3600 + i64::from(m) * 60 + i64::from(s) - offset_min * 60;
    Some(day + secs * 1000 + ms)
}

/// A proleptic Gregorian date to days since 1970-01-01 (H. Hinnant's
/// algorithm).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's
/// algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_fields_and_formats_are_correct() {
        assert_eq!(Utc::at(0).stamp(), "19700101T000000Z");
        // 2026-11-29 19:27:06 UTC
        let t = Utc::at(1_795_980_426_000);
        assert_eq!(t.stamp(), "20261129T192706Z");
        assert_eq!(t.minute(), "2026-11-29 19:27");
        assert_eq!(Utc::at(951_782_400_000).date(), "2000-02-29");
    }

    #[test]
    fn iso_times_parse_with_fractions_and_zones() {
        assert_eq!(parse_iso("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_iso("2026-11-29T19:27:06.5Z"), Some(1_795_980_426_500));
        assert_eq!(
            parse_iso("2026-11-29T19:27:06.123456789Z"),
            Some(1_795_980_426_123)
        );
        assert_eq!(
            parse_iso("2026-11-29T21:27:06+02:00"),
            Some(1_795_980_426_000)
        );
        assert_eq!(
            parse_iso("2026-11-29T14:27:06-0500"),
            Some(1_795_980_426_000)
        );
        assert_eq!(parse_iso("2026-11-29T19:27:06"), Some(1_795_980_426_000));
        for bad in [
            "",
            "2026-11-29",
            "2026-11-29T19:27",
            "2026-11-29T25:00:00Z",
            "2026-11-29T19:27:06.Z",
            "2026-11-29T19:27:06+2",
            "yesterday",
            "2026-11-29T19:27:06Zjunk",
        ] {
            assert_eq!(parse_iso(bad), None, "{bad}");
        }
    }

    #[test]
    fn dates_parse_back() {
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(parse_date("2000-02-29"), Some(951_782_400_000));
        assert_eq!(parse_date("2026-11-29"), Some(1_795_910_400_000));
        for bad in [
            "2001-02-29",
            "2026-13-01",
            "26-11-29",
            "2026-11-29x",
            "",
            "1969-12-31",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
    }
}
