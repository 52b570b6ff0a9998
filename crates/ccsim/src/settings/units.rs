//! Quantities with units in scenario files: rates ("100Mbps", "1.5 Mb/s", "1Tbit/s", or a
//! number of bit/s), durations ("10ms", "2s", or a number of seconds), and random
//! distributions of times ("1s", `{ uniform = ["0s", "1s"] }`, `{ exponential = "2.5s" }`).
//!
//! Unit prefixes are case-sensitive, as SI's are (`M` mega, `m` milli): a rate with a
//! lower-case `m`, `g` or `t` is refused with the rate probably meant ("did you mean
//! \"10Mbps\"?"). A bare number of seconds is allowed for a duration; `ccsim run` warns
//! about each one but 0 (`scenario::bare_durations`), since `delay = 20` is
//! twenty seconds.
//!
//! ## Ranges
//!
//! Every quantity is checked where it is read, and a value out of range is reported with
//! the value as the user wrote it and the range:
//!
//! - A **rate** is from [`MIN_RATE_BPS`] (1 bit/s) to [`MAX_RATE_BPS`] (1 Tbit/s). Links
//!   and sources run on whole bits per second, so a rate below 1 bit/s would be zero.
//! - A **duration** is 0, or from 1 ns to [`MAX_DURATION_S`] (10^9 s, about 31.7 years).
//!   Simulated time is integer nanoseconds: a positive duration below 1 ns would round to
//!   zero (a period, a gap or an interval of zero time lets time stop), and durations are
//!   added to each other (start + duration + delays), so they stay far inside the 64-bit
//!   clock (2^64 ns, 584 years).

use crate::sim::{Dur, Rng};
use serde::de::{self, Deserializer, IntoDeserializer, Visitor};
use serde::Deserialize;
use std::cell::Cell;
use std::fmt;

/// The lowest rate, bit/s.
pub const MIN_RATE_BPS: f64 = 1.0;
/// The highest rate, bit/s (1 Tbit/s).
pub const MAX_RATE_BPS: f64 = 1e12;
/// The longest duration, seconds (10^9 s, about 31.7 years).
pub const MAX_DURATION_S: f64 = 1e9;
/// The shortest positive duration, seconds: one tick of the nanosecond clock.
pub const MIN_POSITIVE_DURATION_S: f64 = 1e-9;

/// The range of a rate, as messages state it.
pub const RATE_RANGE: &str = "from 1 bit/s to 1 Tbit/s";
/// The range of a duration, as messages state it.
pub const DURATION_RANGE: &str = "0, or from 1 ns to 1e9 s";

/// A data rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate(pub f64);

impl Rate {
    /// Whole bits per second, as links and sources run (at least 1).
    pub fn bps(self) -> u64 {
        self.0.round().clamp(MIN_RATE_BPS, MAX_RATE_BPS) as u64
    }
}

/// A non-negative duration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Duration(pub f64);

impl Duration {
    pub fn dur(self) -> Dur {
        Dur::from_secs_f64(self.0)
    }
}

/// A number as messages show it: short (`1e308`, not 309 digits), exact for integers that
/// an `f64` holds exactly.
pub fn num(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if v == v.trunc() && v.abs() < 1e15 {
        return format!("{}", v as i64);
    }
    let plain = format!("{v}");
    if plain.len() <= 12 {
        plain
    } else {
        format!("{v:e}")
    }
}

/// A value as the user wrote it: a string quoted, a number short.
#[derive(Clone, Debug, PartialEq)]
enum Written {
    Text(String),
    Number(f64),
}

impl fmt::Display for Written {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Written::Text(s) => write!(f, "{s:?}"),
            Written::Number(v) => f.write_str(&num(*v)),
        }
    }
}

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s.char_indices().find(|&(_, c)| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')).map_or(s.len(), |(i, _)| i);
    // "1e" followed by a unit letter would be mis-split; units never start with 'e'.
    let (num, unit) = s.split_at(end);
    Some((num.parse().ok()?, unit.trim()))
}

pub fn parse_rate(s: &str) -> Result<f64, String> {
    let err = || format!("invalid rate {s:?}: expected a number of bit/s or e.g. \"100Mbps\", \"1.5 Mb/s\", \"64kbps\", \"1Tbit/s\"");
    let (n, unit) = split_number(s).ok_or_else(err)?;
    let prefix = unit.trim_end_matches("ps").trim_end_matches("/s").trim_end_matches("it");
    let k = match prefix {
        "" | "b" => 1.0,
        "k" | "K" | "kb" | "Kb" => 1e3,
        "M" | "Mb" => 1e6,
        "G" | "Gb" => 1e9,
        "T" | "Tb" => 1e12,
        _ => return Err(rate_hint(s, unit, prefix).unwrap_or_else(err)),
    };
    Ok(n * k)
}

/// A rate's unit that is a common slip, answered with what was probably meant: a lower-case
/// prefix (`10mbps`, `10 mbit`: SI prefixes are case-sensitive, and `tc` reads `mbps` as
/// megabytes per second) or bytes (`10MBps`).
fn rate_hint(s: &str, unit: &str, prefix: &str) -> Option<String> {
    let number = &s.trim()[..s.trim().len() - unit.len()];
    let (first, rest) = prefix.split_at(prefix.chars().next()?.len_utf8());
    match (first, rest) {
        ("m" | "g" | "t", "" | "b") => {
            let meant = format!("{number}{}{}", first.to_uppercase(), &unit[1..]);
            Some(format!("invalid rate {s:?}: did you mean {meant:?}? (unit prefixes are case-sensitive: \"M\" is mega, \"m\" would be milli)"))
        }
        ("k" | "K" | "M" | "G" | "T", "B") => {
            let bits = split_number(s)?.0 * 8.0;
            Some(format!("invalid rate {s:?}: a rate is in bits; {s:?} in bytes per second is \"{}{first}bps\"", num(bits)))
        }
        _ => None,
    }
}

pub fn parse_duration(s: &str) -> Result<f64, String> {
    let err = || format!("invalid duration {s:?}: expected a number of seconds or e.g. \"10ms\", \"2s\", \"500us\"");
    let (n, unit) = split_number(s).ok_or_else(err)?;
    let k = match unit {
        "" | "s" => 1.0,
        "ms" => 1e-3,
        "us" | "µs" => 1e-6,
        "ns" => 1e-9,
        "min" => 60.0,
        _ => return Err(err()),
    };
    Ok(n * k)
}

struct QuantityVisitor {
    what: &'static str,
    parse: fn(&str) -> Result<f64, String>,
}

impl<'de> Visitor<'de> for QuantityVisitor {
    type Value = (f64, Written);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a {} (a number or a string with a unit)", self.what)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok((v as f64, Written::Number(v as f64)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok((v as f64, Written::Number(v as f64)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok((v, Written::Number(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        (self.parse)(v).map(|x| (x, Written::Text(v.to_string()))).map_err(E::custom)
    }
}

/// Checks a rate as written; the message names the value and the range.
fn check_rate(v: f64, written: &Written) -> Result<f64, String> {
    if v.is_nan() || v <= 0.0 {
        return Err(format!("rate must be positive, got {written} (a rate is {RATE_RANGE})"));
    }
    if !(MIN_RATE_BPS..=MAX_RATE_BPS).contains(&v) {
        return Err(format!("rate {written} is out of range: a rate is {RATE_RANGE}"));
    }
    Ok(v)
}

/// Checks a duration as written; the message names the value and the range.
fn check_duration(v: f64, written: &Written) -> Result<f64, String> {
    if v.is_nan() {
        return Err(format!("duration {written} is not a number (a duration is {DURATION_RANGE})"));
    }
    if v < 0.0 {
        return Err(format!("duration must not be negative, got {written} (a duration is {DURATION_RANGE})"));
    }
    if v > MAX_DURATION_S {
        return Err(format!("duration {written} is out of range: a duration is {DURATION_RANGE} (about 31.7 years)"));
    }
    if v > 0.0 && v < MIN_POSITIVE_DURATION_S * 0.5 {
        return Err(format!("duration {written} is below 1 ns, the clock's resolution: a duration is {DURATION_RANGE}"));
    }
    Ok(v)
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Rate, D::Error> {
        let (v, written) = d.deserialize_any(QuantityVisitor { what: "rate", parse: parse_rate })?;
        check_rate(v, &written).map(Rate).map_err(de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let (v, written) = d.deserialize_any(QuantityVisitor { what: "duration", parse: parse_duration })?;
        if matches!(written, Written::Number(x) if x != 0.0) && REFUSE_BARE.with(Cell::get) {
            return Err(de::Error::custom(BARE_SECONDS));
        }
        check_duration(v, &written).map(Duration).map_err(de::Error::custom)
    }
}

thread_local! {
    /// Whether a duration written as a bare number other than 0 is refused with
    /// [`BARE_SECONDS`] instead of read as seconds: only while
    /// `scenario::bare_durations` looks for them, to learn their paths.
    static REFUSE_BARE: Cell<bool> = const { Cell::new(false) };
}

/// The message of a duration refused for being a bare number.
pub(crate) const BARE_SECONDS: &str = "a bare number of seconds";

/// Sets whether this thread refuses durations written as bare numbers (see [`REFUSE_BARE`]).
pub(crate) fn refuse_bare(on: bool) {
    REFUSE_BARE.with(|c| c.set(on));
}

/// A random (or fixed) time: start times, failure times, on/off periods.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeDist {
    Fixed(Duration),
    Uniform { uniform: [Duration; 2] },
    Exponential { exponential: Duration },
}

/// The table forms of [`TimeDist`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DistTable {
    uniform: Option<[Duration; 2]>,
    exponential: Option<Duration>,
}

/// Dispatches on the value's shape by hand: serde's untagged enums would replace the
/// duration's own message ("must not be negative") with a generic one.
struct TimeDistVisitor;

const TIME_DIST: &str = "a duration, { uniform = [low, high] } or { exponential = mean }";

impl<'de> Visitor<'de> for TimeDistVisitor {
    type Value = TimeDist;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(TIME_DIST)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<TimeDist, E> {
        Duration::deserialize(v.into_deserializer()).map(TimeDist::Fixed)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<TimeDist, E> {
        Duration::deserialize(v.into_deserializer()).map(TimeDist::Fixed)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<TimeDist, E> {
        Duration::deserialize(v.into_deserializer()).map(TimeDist::Fixed)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<TimeDist, E> {
        Duration::deserialize(v.into_deserializer()).map(TimeDist::Fixed)
    }
    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<TimeDist, A::Error> {
        match DistTable::deserialize(de::value::MapAccessDeserializer::new(map))? {
            DistTable { uniform: Some(uniform), exponential: None } => Ok(TimeDist::Uniform { uniform }),
            DistTable { uniform: None, exponential: Some(exponential) } => Ok(TimeDist::Exponential { exponential }),
            _ => Err(de::Error::custom(format!("expected {TIME_DIST}"))),
        }
    }
}

impl<'de> Deserialize<'de> for TimeDist {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TimeDist, D::Error> {
        d.deserialize_any(TimeDistVisitor)
    }
}

impl TimeDist {
    pub fn draw(&self, rng: &mut Rng) -> Dur {
        match *self {
            TimeDist::Fixed(d) => d.dur(),
            TimeDist::Uniform { uniform: [lo, hi] } => Dur::from_secs_f64(rng.uniform_range(lo.0, hi.0)),
            TimeDist::Exponential { exponential } => Dur::from_secs_f64(rng.exponential(exponential.0)),
        }
    }

    /// A problem with the distribution's parameters, if any.
    pub fn check(&self) -> Option<String> {
        match *self {
            TimeDist::Uniform { uniform: [lo, hi] } if lo.0 > hi.0 => Some(format!("uniform low {} is greater than high {}", num(lo.0), num(hi.0))),
            TimeDist::Exponential { exponential } if exponential.0 <= 0.0 => Some("exponential mean must be positive".into()),
            _ => None,
        }
    }
}

/// A size in bytes as a person reads it: `145 MB`, `1.2 GB`.
pub fn bytes_text(b: f64) -> String {
    if b >= 1e12 {
        format!("{:.1} TB", b / 1e12)
    } else if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else {
        format!("{:.0} MB", (b / 1e6).max(1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("100Mbps").unwrap(), 100e6);
        assert_eq!(parse_rate("1.5 Mb/s").unwrap(), 1.5e6);
        assert_eq!(parse_rate("64kbps").unwrap(), 64e3);
        assert_eq!(parse_rate("1Gbit/s").unwrap(), 1e9);
        assert_eq!(parse_rate("800").unwrap(), 800.0);
        assert!(parse_rate("10 furlongs").is_err());
    }

    #[test]
    fn terabits_are_read_as_the_range_message_says() {
        for text in ["1Tbps", "1Tbit/s", "1 Tb/s", "1T", "1 Tbit"] {
            assert_eq!(parse_rate(text), Ok(MAX_RATE_BPS), "{text}");
        }
        assert!(RATE_RANGE.ends_with("to 1 Tbit/s"));
    }

    #[test]
    fn lower_case_prefixes_and_bytes_get_the_rate_probably_meant() {
        assert_eq!(
            parse_rate("10mbps").unwrap_err(),
            "invalid rate \"10mbps\": did you mean \"10Mbps\"? (unit prefixes are case-sensitive: \"M\" is mega, \"m\" would be milli)"
        );
        assert!(parse_rate("10 mbit").unwrap_err().contains("did you mean \"10 Mbit\"?"));
        assert!(parse_rate("1.5 gb/s").unwrap_err().contains("did you mean \"1.5 Gb/s\"?"));
        assert!(parse_rate("2tbit/s").unwrap_err().contains("did you mean \"2Tbit/s\"?"));
        assert_eq!(parse_rate("10MBps").unwrap_err(), "invalid rate \"10MBps\": a rate is in bits; \"10MBps\" in bytes per second is \"80Mbps\"");
        assert!(parse_rate("10 xbps").unwrap_err().starts_with("invalid rate \"10 xbps\": expected"));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10ms").unwrap(), 0.01);
        assert_eq!(parse_duration("2s").unwrap(), 2.0);
        assert!((parse_duration("500us").unwrap() - 5e-4).abs() < 1e-15);
        assert_eq!(parse_duration("1.5").unwrap(), 1.5);
        assert!(parse_duration("3 fortnights").is_err());
    }

    #[test]
    fn time_distributions_keep_the_durations_own_errors() {
        #[derive(Deserialize)]
        struct W {
            d: TimeDist,
        }
        let parse = |v: &str| toml::from_str::<W>(&format!("d = {v}")).map(|w| w.d).map_err(|e| e.message().to_string());
        assert_eq!(parse("\"2s\""), Ok(TimeDist::Fixed(Duration(2.0))));
        assert_eq!(parse("{ exponential = 1 }"), Ok(TimeDist::Exponential { exponential: Duration(1.0) }));
        assert_eq!(parse("{ uniform = [0, \"1s\"] }"), Ok(TimeDist::Uniform { uniform: [Duration(0.0), Duration(1.0)] }));
        assert!(parse("-1").unwrap_err().contains("must not be negative"));
        assert!(parse("\"5 parsecs\"").unwrap_err().contains("invalid duration"));
        assert!(parse("{ uniform = [0, 1], exponential = 1 }").unwrap_err().contains("expected a duration"));
        assert!(parse("{ normal = 1 }").unwrap_err().contains("unknown field `normal`"));
    }
}
