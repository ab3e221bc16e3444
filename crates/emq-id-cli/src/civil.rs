//! ISO-8601 instants ⇄ Unix milliseconds, in UTC, without a date library.
//! Days ⇄ civil dates use Howard Hinnant's public-domain algorithms.

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + if m <= 2 { 1 } else { 0 }, m, d)
}

/// `2026-01-27T15:11:37.641Z` for a Unix time in milliseconds.
pub fn format_ms(unix_ms: i64) -> String {
    let days = unix_ms.div_euclid(86_400_000);
    let ms_of_day = unix_ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    let (h, min, s, ms) = (ms_of_day / 3_600_000, ms_of_day / 60_000 % 60, ms_of_day / 1000 % 60, ms_of_day % 1000);
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{min:02}:{s:02}.{ms:03}Z")
}

/// Parses `YYYY-MM-DD`, optionally followed by `THH:MM[:SS[.fff…]]` (or a space
/// for `T`) and `Z` or `±HH:MM`. No offset means UTC. Digits below a
/// millisecond are truncated.
pub fn parse_ms(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let part = b.get(from..from + len)?;
        part.iter().all(u8::is_ascii_digit).then(|| std::str::from_utf8(part).ok()?.parse().ok())?
    };
    let (y, m, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let mut at = 10;
    let (mut h, mut min, mut s, mut ms) = (0, 0, 0, 0);
    if matches!(b.get(at), Some(b'T' | b't' | b' ')) {
        h = num(at + 1, 2)?;
        (b.get(at + 3) == Some(&b':')).then_some(())?;
        min = num(at + 4, 2)?;
        at += 6;
        if b.get(at) == Some(&b':') {
            s = num(at + 1, 2)?;
            at += 3;
            if matches!(b.get(at), Some(b'.' | b',')) {
                at += 1;
                let digits = b[at..].iter().take_while(|c| c.is_ascii_digit()).count();
                if digits == 0 {
                    return None;
                }
                let frac = std::str::from_utf8(&b[at..at + digits.min(3)]).ok()?;
                ms = frac.parse::<i64>().ok()? * 10i64.pow(3 - digits.min(3) as u32);
                at += digits;
            }
        }
        if h > 23 || min > 59 || s > 60 {
            return None;
        }
    }
    let offset_min = match b.get(at) {
        None => 0,
        Some(b'Z' | b'z') if at + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) if at + 6 == b.len() && b[at + 3] == b':' => {
            let off = num(at + 1, 2)? * 60 + num(at + 4, 2)?;
            if sign == b'+' {
                off
            } else {
                -off
            }
        }
        _ => return None,
    };
    let days = days_from_civil(y, m, d);
    if civil_from_days(days) != (y, m, d) {
        return None; // 2026-02-30 and the like
    }
    Some(((days * 24 + h) * 60 + min - offset_min) * 60_000 + s * 1000 + ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_instants() {
        for (text, ms) in [
            ("1970-01-01T00:00:00.000Z", 0),
            ("2024-01-01T00:00:00.000Z", 1_704_067_200_000),
            ("2026-01-27T15:11:37.641Z", 1_769_526_697_641),
            ("1969-12-31T23:59:59.999Z", -1),
        ] {
            assert_eq!(format_ms(ms), text);
            assert_eq!(parse_ms(text), Some(ms), "{text}");
        }
    }

    #[test]
    fn spellings() {
        let t = 1_769_526_697_641;
        assert_eq!(parse_ms("2026-01-27 15:11:37.641"), Some(t));
        assert_eq!(parse_ms("2026-01-27T17:11:37.641+02:00"), Some(t));
        assert_eq!(parse_ms("2026-01-27T15:11:37.641999Z"), Some(t));
        assert_eq!(parse_ms("2026-01-27T15:11Z"), Some(t - 37_641));
        assert_eq!(parse_ms("2024-01-01"), Some(1_704_067_200_000));
        for bad in ["2026-02-30", "2026-13-01", "2026-01-27T25:00Z", "2026-01-27T15:11:37.Z", "yesterday", ""] {
            assert_eq!(parse_ms(bad), None, "{bad}");
        }
    }
}
