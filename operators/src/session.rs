//! Session settings expressions depend on: the session time zone (`table.local-time-zone`).
//!
//! Only zones with one fixed offset are run natively: `UTC`/`GMT`/`UT`/`Z`, and Java's
//! `ZoneOffset` / `UTC+hh:mm` / `GMT+hh:mm` spellings. Region ids (`Europe/Berlin`) need
//! the JVM's tz database, whose version Rust cannot know, so they are declined.

use crate::error::Decline;

/// The session settings of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// The zone id as the plan gave it.
    pub time_zone: String,
    /// Its fixed offset from UTC, in seconds.
    pub offset_seconds: i32,
    /// The JVM's default locale as a BCP 47 tag (`Locale.getDefault().toLanguageTag()`),
    /// which Java's `String.toUpperCase()` / `toLowerCase()` follow; `None` when not given.
    pub locale: Option<String>,
}

impl Session {
    /// A session in `zone` (a `java.time.ZoneId` id); declined for a region id.
    pub fn new(zone: &str) -> Result<Self, Decline> {
        let offset = fixed_offset(zone).ok_or_else(|| {
            Decline::new(format!(
                "session time zone '{zone}' is not a fixed offset (region time zones need the \
                 JVM's tz database)"
            ))
        })?;
        Ok(Session {
            time_zone: zone.to_string(),
            offset_seconds: offset,
            locale: None,
        })
    }

    /// UTC.
    pub fn utc() -> Self {
        Session {
            time_zone: "UTC".into(),
            offset_seconds: 0,
            locale: Some("en-US".into()),
        }
    }
}

/// The offset of a fixed-offset zone id as `ZoneId.of` reads it, in seconds.
fn fixed_offset(zone: &str) -> Option<i32> {
    let rest = match zone {
        "UTC" | "GMT" | "UT" | "Z" => return Some(0),
        _ => ["UTC", "GMT", "UT"]
            .iter()
            .find_map(|p| zone.strip_prefix(p))
            .unwrap_or(zone),
    };
    zone_offset(rest)
}

/// `ZoneOffset.of`: `+h`, `+hh`, `+hh:mm`, `+hhmm`, `+hh:mm:ss`, `+hhmmss`, within ±18:00.
fn zone_offset(text: &str) -> Option<i32> {
    let (sign, digits) = match text.as_bytes().first()? {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => return None,
    };
    let num = |s: &str| -> Option<i32> {
        if s.len() == 2 && s.bytes().all(|b| b.is_ascii_digit()) {
            s.parse().ok()
        } else {
            None
        }
    };
    let (h, m, s) = match digits.len() {
        1 if digits.as_bytes()[0].is_ascii_digit() => {
            (i32::from(digits.as_bytes()[0] - b'0'), 0, 0)
        }
        2 => (num(digits)?, 0, 0),
        4 => (num(&digits[..2])?, num(&digits[2..])?, 0),
        5 if &digits[2..3] == ":" => (num(&digits[..2])?, num(&digits[3..])?, 0),
        6 => (num(&digits[..2])?, num(&digits[2..4])?, num(&digits[4..])?),
        8 if &digits[2..3] == ":" && &digits[5..6] == ":" => {
            (num(&digits[..2])?, num(&digits[3..5])?, num(&digits[6..])?)
        }
        _ => return None,
    };
    if h > 18 || m > 59 || s > 59 || (h == 18 && (m > 0 || s > 0)) {
        return None;
    }
    Some(sign * (h * 3600 + m * 60 + s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_offsets_parse_as_java_reads_them() {
        for (zone, seconds) in [
            ("UTC", 0),
            ("Z", 0),
            ("+08:00", 8 * 3600),
            ("-05:30", -(5 * 3600 + 30 * 60)),
            ("UTC+8", 8 * 3600),
            ("GMT-0130", -(3600 + 30 * 60)),
            ("+18:00", 18 * 3600),
        ] {
            assert_eq!(
                Session::new(zone).unwrap().offset_seconds,
                seconds,
                "{zone}"
            );
        }
    }

    #[test]
    fn region_zones_and_bad_offsets_decline() {
        for zone in [
            "Europe/Berlin",
            "Asia/Shanghai",
            "+19:00",
            "+1:00",
            "CET",
            "",
        ] {
            assert!(Session::new(zone).is_err(), "{zone}");
        }
    }
}
