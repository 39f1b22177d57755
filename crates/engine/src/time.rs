//! Instants and durations in whole milliseconds, and the notations users type for them.
//!
//! The controller compares `time.Time` values with strict `Before`/`After`; integers make those
//! comparisons exact. Go's zero time (0001-01-01) is representable, which the upstream tests use.

use std::fmt;

/// Milliseconds since the Unix epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

/// 1970-01-01T00:00:00 as a civil time, from which UTC instants are counted.
const UNIX_EPOCH: jiff::civil::DateTime = jiff::civil::date(1970, 1, 1).at(0, 0, 0, 0);

/// `Z`, `z` or `+HH:MM`/`-HH:MM` at the end of an RFC 3339 time: the text before, and the offset.
fn split_offset(text: &str) -> Option<(&str, i64)> {
    if let Some(civil) = text.strip_suffix(['Z', 'z']) {
        return Some((civil, 0));
    }
    let at = text.len().checked_sub(6)?;
    let (civil, offset) = (text.get(..at)?, text.get(at..)?.as_bytes());
    let digit = |i: usize| -> Option<i64> {
        let b = *offset.get(i)?;
        b.is_ascii_digit().then(|| i64::from(b - b'0'))
    };
    let sign = match offset.first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    if offset.get(3) != Some(&b':') {
        return None;
    }
    let (hours, minutes) = (digit(1)? * 10 + digit(2)?, digit(4)? * 10 + digit(5)?);
    if hours > 23 || minutes > 59 {
        return None;
    }
    Some((civil, sign * (hours * 3600 + minutes * 60)))
}

/// A span of milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Duration(pub i64);

impl Timestamp {
    /// Go's `time.Time{}`: 0001-01-01T00:00:00Z.
    pub const GO_ZERO: Timestamp = Timestamp(-62_135_596_800_000);

    // Named like Go's `Time.Add`; saturating, unlike an `ops::Add` impl would suggest.
    #[allow(clippy::should_implement_trait)]
    pub fn add(self, d: Duration) -> Timestamp {
        Timestamp(self.0.saturating_add(d.0))
    }

    #[allow(clippy::should_implement_trait)]
    pub fn sub(self, d: Duration) -> Timestamp {
        Timestamp(self.0.saturating_sub(d.0))
    }

    /// Go's `t.Before(u)`.
    pub fn before(self, other: Timestamp) -> bool {
        self.0 < other.0
    }

    /// Go's `t.After(u)`.
    pub fn after(self, other: Timestamp) -> bool {
        self.0 > other.0
    }

    /// `self - earlier`.
    pub fn since(self, earlier: Timestamp) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }

    /// RFC 3339 with a `Z` offset, seconds precision unless there are milliseconds.
    pub fn to_rfc3339(self) -> String {
        // Civil UTC time: jiff's Timestamp stops a day short of 9999-12-31, Go's does not.
        let utc = UNIX_EPOCH.checked_add(jiff::SignedDuration::from_millis(self.0));
        match utc {
            Ok(t) if self.0 % 1000 == 0 => t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
            Ok(t) => t.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
            Err(_) => format!("{}ms since the epoch", self.0),
        }
    }

    /// Parses an RFC 3339 timestamp (`2026-11-29T15:04:05Z`, with an offset or fraction).
    ///
    /// As Go's `time.Parse(time.RFC3339, ...)`, which the API server uses: any year from 0000 to
    /// 9999 with any offset, and a fraction of any length (digits past the nanosecond dropped).
    pub fn parse_rfc3339(text: &str) -> Option<Timestamp> {
        let text = text.trim();
        api_form(text.as_bytes()).or_else(|| Timestamp::parse_general(text))
    }

    /// Any RFC 3339 form, through jiff.
    fn parse_general(text: &str) -> Option<Timestamp> {
        let (civil, offset_secs) = split_offset(text)?;
        let (whole, fraction) = match civil.split_once('.') {
            Some((w, f)) if !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) => {
                (w, f.get(..f.len().min(9)).unwrap_or(f))
            }
            Some(_) => return None,
            None => (civil, ""),
        };
        // Exactly YYYY-MM-DDTHH:MM:SS before the fraction (jiff also reads other forms).
        let shape = whole.as_bytes();
        if shape.len() != 19 || !matches!(shape.get(10), Some(b'T' | b't')) {
            return None;
        }
        let text = if fraction.is_empty() {
            whole.replace('t', "T")
        } else {
            format!("{}.{fraction}", whole.replace('t', "T"))
        };
        let at: jiff::civil::DateTime = text.parse().ok()?;
        let since = at.duration_since(UNIX_EPOCH);
        let millis = since
            .as_millis()
            .checked_sub(i128::from(offset_secs) * 1000)?;
        i64::try_from(millis).ok().map(Timestamp)
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ`, the one form the API server writes (`metav1.Time`'s
/// `MarshalJSON`), read without the general parser's allocation: the instant `parse_rfc3339`
/// gives for it (a test compares them), or `None` for any other text, which the general
/// parser reads. A serve sync reads two of these for each of its pods.
fn api_form(b: &[u8]) -> Option<Timestamp> {
    let at = |i: usize| b.get(i).copied();
    let fixed = [
        (4, b'-'),
        (7, b'-'),
        (10, b'T'),
        (13, b':'),
        (16, b':'),
        (19, b'Z'),
    ];
    if b.len() != 20 || fixed.iter().any(|&(i, c)| at(i) != Some(c)) {
        return None;
    }
    let number = |from: usize, to: usize| -> Option<i64> {
        (b.get(from..to)?.iter()).try_fold(0i64, |n, &d| {
            d.is_ascii_digit().then(|| n * 10 + i64::from(d - b'0'))
        })
    };
    let (year, month, day) = (number(0, 4)?, number(5, 7)?, number(8, 10)?);
    let (hour, minute, second) = (number(11, 13)?, number(14, 16)?, number(17, 19)?);
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let month_days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => return None,
    };
    if !(1..=month_days).contains(&day) || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    // Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    Some(Timestamp(
        (((days * 24 + hour) * 60 + minute) * 60 + second) * 1000,
    ))
}

impl Duration {
    pub const ZERO: Duration = Duration(0);

    pub const fn from_secs(secs: i64) -> Duration {
        Duration(secs * 1000)
    }

    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1000.0
    }

    pub fn millis(self) -> i64 {
        self.0
    }

    /// Parses a Go-style duration: `300ms`, `45s`, `10m`, `1h30m`, `1.5h`, `0`, and days (`7d`,
    /// `1d12h`), which Go's `time.ParseDuration` lacks but kubectl's ages and Prometheus's ranges
    /// use. Negative values are refused; callers that want an age say so.
    pub fn parse(text: &str) -> Result<Duration, String> {
        let s = text.trim();
        if s.is_empty() {
            return Err("an empty duration".into());
        }
        if s == "0" {
            return Ok(Duration::ZERO);
        }
        // The text as a message shows it: escaped and cut to 80 characters with its length.
        let shown = || crate::quote::quoted(s);
        let mut total: i128 = 0;
        let mut rest = s;
        while !rest.is_empty() {
            let num_len = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(rest.len());
            if num_len == 0 {
                return Err(format!(
                    "{} is not a duration (expected forms like 45s, 5m, 1h30m, 7d)",
                    shown()
                ));
            }
            let (num, tail) = rest.split_at(num_len);
            let unit_len = tail
                .find(|c: char| c.is_ascii_digit() || c == '.')
                .unwrap_or(tail.len());
            let (unit, tail) = tail.split_at(unit_len);
            let unit_ms: i128 = match unit {
                "ms" => 1,
                "s" => 1000,
                "m" => 60_000,
                "h" => 3_600_000,
                "d" => 86_400_000,
                "" => {
                    return Err(format!(
                        "{} has a number without a unit (use ms, s, m, h or d)",
                        shown()
                    ));
                }
                other => {
                    return Err(format!(
                        "{} has an unknown unit {} (use ms, s, m, h or d)",
                        shown(),
                        crate::quote::quoted(other)
                    ));
                }
            };
            total += parse_scaled(num, unit_ms).ok_or_else(|| {
                format!(
                    "{} is not a duration (bad number {})",
                    shown(),
                    crate::quote::quoted(num)
                )
            })?;
            if total > i128::from(i64::MAX) {
                return Err(format!("{} is too long a duration", shown()));
            }
            rest = tail;
        }
        i64::try_from(total)
            .map(Duration)
            .map_err(|_| format!("{} is too long a duration", shown()))
    }
}

/// `num` (decimal, maybe with a fraction) times `unit_ms`, truncated to whole milliseconds.
fn parse_scaled(num: &str, unit_ms: i128) -> Option<i128> {
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    if (int.is_empty() && frac.is_empty()) || frac.contains('.') || int.len() > 18 {
        return None;
    }
    let int_value: i128 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let frac = &frac[..frac.len().min(12)];
    let frac_value: i128 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    let frac_scale = 10i128.pow(u32::try_from(frac.len()).ok()?);
    Some(int_value.checked_mul(unit_ms)? + frac_value * unit_ms / frac_scale)
}

/// A standard duration (a timeout) in milliseconds, saturating.
impl From<std::time::Duration> for Duration {
    fn from(d: std::time::Duration) -> Duration {
        Duration(i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
    }
}

impl fmt::Display for Duration {
    /// Kubernetes-style: `5m0s` is written `5m`, `90s` as `1m30s`, `0.5s` as `500ms`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0;
        if ms == 0 {
            return write!(f, "0s");
        }
        let sign = if ms < 0 { "-" } else { "" };
        let ms = ms.unsigned_abs();
        if ms < 1000 {
            return write!(f, "{sign}{ms}ms");
        }
        let (h, m, s, rem) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
        write!(f, "{sign}")?;
        if h > 0 {
            write!(f, "{h}h")?;
        }
        if m > 0 {
            write!(f, "{m}m")?;
        }
        if s > 0 || rem > 0 {
            if rem > 0 {
                write!(f, "{s}.{rem:03}s")?;
            } else {
                write!(f, "{s}s")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_servers_form_reads_as_the_general_parser_reads_it() {
        let mut compared = 0;
        for year in [
            0, 1, 4, 100, 1600, 1900, 1969, 1970, 1999, 2000, 2024, 2026, 2100, 9999,
        ] {
            for month in 0..=13 {
                for day in [0, 1, 15, 28, 29, 30, 31, 32] {
                    for (h, m, sec) in [(0, 0, 0), (23, 59, 59), (12, 5, 60), (24, 0, 0)] {
                        let text = format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{sec:02}Z");
                        let general = Timestamp::parse_general(&text);
                        match api_form(text.as_bytes()) {
                            Some(fast) => assert_eq!(Some(fast), general, "{text}"),
                            None => assert!(general.is_none() || sec == 60, "{text}"),
                        }
                        compared += usize::from(general.is_some());
                    }
                }
            }
        }
        assert!(compared > 1000, "{compared}");
        for other in [
            "2026-11-29T15:04:05+01:00",
            "2026-11-29t15:04:05z",
            "2026-11-29T15:04:05.5Z",
        ] {
            assert_eq!(api_form(other.as_bytes()), None, "{other}");
            assert!(Timestamp::parse_rfc3339(other).is_some(), "{other}");
        }
    }

    #[test]
    fn a_timeout_is_written_as_kubernetes_writes_durations() {
        let shown = |d: std::time::Duration| Duration::from(d).to_string();
        assert_eq!(shown(std::time::Duration::from_secs(5)), "5s");
        assert_eq!(shown(std::time::Duration::from_millis(1500)), "1.500s");
        assert_eq!(shown(std::time::Duration::from_secs(90)), "1m30s");
    }

    #[test]
    fn rfc3339_times_go_reads_are_read() {
        for (text, shown) in [
            ("9999-12-31T23:59:59Z", "9999-12-31T23:59:59Z"),
            (
                "9999-12-31T23:59:59.999999999+00:00",
                "9999-12-31T23:59:59.999Z",
            ),
            (
                "2026-11-29T15:04:05.1234567891234Z",
                "2026-11-29T15:04:05.123Z",
            ),
            ("2026-11-29T16:04:05+01:00", "2026-11-29T15:04:05Z"),
            ("0000-01-01T00:00:00Z", "0000-01-01T00:00:00Z"),
            ("2026-11-29t15:04:05z", "2026-11-29T15:04:05Z"),
        ] {
            let t = Timestamp::parse_rfc3339(text).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(t.to_rfc3339(), shown, "{text}");
        }
        for text in [
            "2026-11-29",
            "2026-11-29T15:04:05",
            "2026-02-30T15:04:05Z",
            "2026-11-29T15:04:05.Z",
            "2026-11-29T15:04Z",
            "2026-11-29T15:04:05+24:00",
            "10000-01-01T00:00:00Z",
            "2026-11-29 15:04:05Z",
        ] {
            assert_eq!(Timestamp::parse_rfc3339(text), None, "{text}");
        }
    }

    #[test]
    fn go_style_durations_parse() {
        for (text, ms) in [
            ("0", 0),
            ("300ms", 300),
            ("45s", 45_000),
            ("10m", 600_000),
            ("1h30m", 5_400_000),
            ("4m59s", 299_000),
            ("1.5h", 5_400_000),
            ("0.5s", 500),
            ("7d", 604_800_000),
            ("1d12h", 129_600_000),
            ("0.5d", 43_200_000),
        ] {
            assert_eq!(Duration::parse(text), Ok(Duration(ms)), "{text}");
        }
    }

    #[test]
    fn bad_durations_are_refused() {
        for text in ["", "5", "5x", "-5s", "m", "1..5s", "s5"] {
            assert!(Duration::parse(text).is_err(), "{text}");
        }
    }

    #[test]
    fn durations_print_like_kubernetes() {
        assert_eq!(Duration::from_secs(300).to_string(), "5m");
        assert_eq!(Duration::from_secs(90).to_string(), "1m30s");
        assert_eq!(Duration(500).to_string(), "500ms");
        assert_eq!(Duration::from_secs(3600).to_string(), "1h");
    }

    #[test]
    fn rfc3339_round_trips() {
        let t = Timestamp::parse_rfc3339("2026-11-29T15:04:05Z").unwrap();
        assert_eq!(t.to_rfc3339(), "2026-11-29T15:04:05Z");
        let t = Timestamp::parse_rfc3339("2026-11-29T16:04:05.250+01:00").unwrap();
        assert_eq!(t.to_rfc3339(), "2026-11-29T15:04:05.250Z");
        assert!(Timestamp::parse_rfc3339("yesterday").is_none());
    }

    #[test]
    fn comparisons_are_strict_like_go() {
        let t = Timestamp(1000);
        assert!(!t.before(t) && !t.after(t));
        assert!(Timestamp::GO_ZERO.before(Timestamp::GO_ZERO.add(Duration::from_secs(60))));
    }
}
