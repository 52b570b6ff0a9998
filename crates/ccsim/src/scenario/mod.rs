//! Scenario files: parse (TOML), apply overrides, check, and build a [`Simulation`].
//!
//! Nothing here panics on user input: every problem becomes a [`ScenarioError`] that names
//! the file and the field path.

pub mod budget;
pub mod build;
pub mod describe;
pub mod overrides;
mod packet_log;

/// The scenario format's vocabulary, kept at `settings` (below every layer that reads it).
pub use crate::settings::{error, profile, schema, units};

pub use budget::Limits;

use crate::engine::Simulation;
use std::fmt;
use std::path::Path;

/// A problem with a scenario, located by file and field path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file (or "<string>") the scenario came from.
    pub origin: String,
    /// The field path, e.g. `links[2].rate`; empty for whole-file problems.
    pub path: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}: {}", self.origin, self.message)
        } else {
            write!(f, "{}: {}: {}", self.origin, self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// Parses `text` (from `origin`), applies `overrides` (`key.path=value`), replaces the seed
/// if `seed` is given, checks everything and builds the simulation. Relative `[[pcap]]` file
/// names are taken from the current directory.
pub fn load(text: &str, origin: &str, overrides: &[String], seed: Option<u64>) -> Result<Simulation, ScenarioError> {
    load_in(text, origin, overrides, seed, None)
}

/// [`load`] with relative `[[pcap]]` file names taken from `out_dir` (the current directory
/// if None). Building creates the capture files.
pub fn load_in(text: &str, origin: &str, overrides: &[String], seed: Option<u64>, out_dir: Option<&Path>) -> Result<Simulation, ScenarioError> {
    load_with(text, origin, overrides, seed, out_dir, &Limits::default())
}

/// [`load_in`] with the resource limits `limits` (see [`budget`]): a scenario that needs more
/// memory or events than they allow is refused before it is built.
pub fn load_with(
    text: &str,
    origin: &str,
    overrides: &[String],
    seed: Option<u64>,
    out_dir: Option<&Path>,
    limits: &Limits,
) -> Result<Simulation, ScenarioError> {
    let scenario = parse(text, origin, overrides)?;
    build::build_with(&scenario, seed, out_dir, limits).map_err(|(path, message)| ScenarioError { origin: origin.to_string(), path, message })
}

/// Parses `text` (from `origin`) and applies `overrides`, without checking more than the
/// file's structure and types.
pub fn parse(text: &str, origin: &str, overrides: &[String]) -> Result<schema::Scenario, ScenarioError> {
    typed(tree(text, origin, overrides)?, origin)
}

/// The TOML tree of `text` (from `origin`) with `overrides` applied, not checked further.
pub fn tree(text: &str, origin: &str, overrides: &[String]) -> Result<toml::Value, ScenarioError> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| syntax_error(origin, text, &e))?;
    let mut root = toml::Value::Table(table);
    for (i, o) in overrides.iter().enumerate() {
        overrides::apply_nth(&mut root, o, i).map_err(|(path, message)| ScenarioError { origin: origin.to_string(), path, message })?;
    }
    Ok(root)
}

/// The scenario in `root` (a tree from [`tree`]), its structure and types checked. A field
/// missing at the top is named by its own path (`duration: missing field `duration``), as
/// an unknown one is.
fn typed(root: toml::Value, origin: &str) -> Result<schema::Scenario, ScenarioError> {
    serde_path_to_error::deserialize(root).map_err(|e| {
        let path = e.path().to_string();
        let message = error::plain_words(e.into_inner().message());
        let path = match path.as_str() {
            "." => message.strip_prefix("missing field `").and_then(|m| m.strip_suffix('`')).unwrap_or_default().to_string(),
            // A key with a control character (a quoted TOML key may hold one) on one line.
            _ if path.chars().any(char::is_control) => path.escape_debug().to_string(),
            _ => path,
        };
        ScenarioError { origin: origin.to_string(), path, message }
    })
}

/// The most bare-number durations [`bare_durations`] reports.
pub const MAX_BARE_DURATIONS: usize = 16;

/// The durations of the scenario in `text` with `overrides` that are written as bare
/// numbers other than 0, which are read as seconds (`delay = 20` is twenty seconds), with
/// their field paths, in the order of the scenario's fields: for a warning that a unit
/// would make them plain. At most [`MAX_BARE_DURATIONS`]; none for a scenario that does not
/// load (its error says why), and none among a queue discipline's own keys.
pub fn bare_durations(text: &str, origin: &str, overrides: &[String]) -> Vec<(String, f64)> {
    let Ok(mut root) = tree(text, origin, overrides) else { return Vec::new() };
    let mut found = Vec::new();
    units::refuse_bare(true);
    // Each pass finds the next one, which is then set to 0 (allowed) for the next pass.
    while found.len() < MAX_BARE_DURATIONS {
        let Err(e) = serde_path_to_error::deserialize::<_, schema::Scenario>(root.clone()) else { break };
        if e.inner().message() != units::BARE_SECONDS {
            break;
        }
        let Some(value) = value_at(&mut root, e.path()) else { break };
        let Some(seconds) = value.as_float().or(value.as_integer().map(|i| i as f64)) else { break };
        *value = toml::Value::Integer(0);
        // A value that is no duration at all (inf, NaN) is the load's error to report.
        if seconds.is_finite() {
            found.push((e.path().to_string(), seconds));
        }
    }
    units::refuse_bare(false);
    found
}

/// The value at a serde path in a TOML tree.
fn value_at<'a>(root: &'a mut toml::Value, path: &serde_path_to_error::Path) -> Option<&'a mut toml::Value> {
    use serde_path_to_error::Segment;
    path.iter().try_fold(root, |at, segment| match segment {
        Segment::Seq { index } => at.get_mut(*index),
        Segment::Map { key } => at.get_mut(key.as_str()),
        Segment::Enum { .. } | Segment::Unknown => None,
    })
}

/// The memory (bytes) the scenario in `text` with `overrides` is estimated to need, as the
/// resource guard computes it before building (see [`budget`]).
pub fn estimate_memory(text: &str, origin: &str, overrides: &[String]) -> Result<f64, ScenarioError> {
    let err = |path: &str, message: String| ScenarioError { origin: origin.to_string(), path: path.to_string(), message };
    let sc = parse(text, origin, overrides)?;
    let mut ids = std::collections::HashMap::new();
    for name in sc.hosts.iter().chain(&sc.routers).flat_map(|p| expand_names(p).unwrap_or_default()) {
        let n = ids.len() as u32;
        ids.entry(name).or_insert(n);
    }
    Ok(budget::memory(&sc, &ids).map_err(|(path, m)| err(&path, m))?.total())
}

/// A TOML syntax error as one line: `line L`, the column, what was found there, and what
/// the parser expected (when it says).
fn syntax_error(origin: &str, text: &str, e: &toml::de::Error) -> ScenarioError {
    let said = e.message().trim().replace('\n', "; ");
    let (path, place) = match e.span() {
        Some(span) => {
            let at = floor_char_boundary(text, span.start);
            let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let line = text[..at].matches('\n').count() + 1;
            let column = text[line_start..at].chars().count() + 1;
            let found = match text[at..].chars().next() {
                None => "the file ends in the middle of a key or value".to_string(),
                Some(c) if c.is_control() && c != '\n' && c != '\t' => format!("found a control character (U+{:04X})", c as u32),
                Some('\n') => "found the end of the line".to_string(),
                Some(c) => format!("found {c:?}"),
            };
            (format!("line {line}"), format!(" at column {column}: {found}"))
        }
        None => (String::new(), String::new()),
    };
    let message = match (said.is_empty(), place.is_empty()) {
        (true, true) => "not valid TOML".to_string(),
        (true, false) => format!("not valid TOML{place}"),
        (false, _) => format!("not valid TOML{place}: {said}"),
    };
    ScenarioError { origin: origin.to_string(), path, message }
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The most names one range (`"S{1..N}"`) expands to.
pub const MAX_RANGE: u32 = 1_000_000;

/// How many names `name` expands to, without expanding it (0 if it is malformed:
/// [`expand_names`] says why).
pub fn count_names(name: &str) -> u64 {
    let Some(open) = name.find('{') else { return 1 };
    let Some(close) = name[open..].find('}').map(|c| c + open) else { return 0 };
    let Some((a, b)) = name[open + 1..close].split_once("..") else { return 0 };
    match (a.trim().parse::<u32>(), b.trim().parse::<u32>()) {
        (Ok(a), Ok(b)) if a <= b && b - a < MAX_RANGE => (b - a) as u64 + 1,
        _ => 0,
    }
}

/// Expands `"S{1..3}"` to `["S1", "S2", "S3"]` (inclusive); other names stand alone.
pub fn expand_names(name: &str) -> Result<Vec<String>, String> {
    let Some(open) = name.find('{') else { return Ok(vec![name.to_string()]) };
    let close = name[open..].find('}').map(|c| c + open).ok_or_else(|| format!("{name:?}: unclosed '{{'"))?;
    let inner = &name[open + 1..close];
    let (a, b) = inner.split_once("..").ok_or_else(|| format!("{name:?}: a range is written {{first..last}}"))?;
    let bound = |x: &str| -> Result<u32, String> {
        let x = x.trim();
        if !x.is_empty() && x.chars().all(|c| c.is_ascii_digit()) {
            x.parse().map_err(|_| format!("{name:?}: {x} is out of range (a range's bounds are from 0 to {})", u32::MAX))
        } else {
            Err(format!("{name:?}: {x:?} is not a whole number"))
        }
    };
    let (a, b) = (bound(a)?, bound(b)?);
    if a > b {
        return Err(format!("{name:?}: range first {a} is greater than last {b}"));
    }
    if b - a >= MAX_RANGE {
        return Err(format!("{name:?}: a range holds at most {MAX_RANGE} names, this one {}", b as u64 - a as u64 + 1));
    }
    let (pre, post) = (&name[..open], &name[close + 1..]);
    Ok((a..=b).map(|i| format!("{pre}{i}{post}")).collect())
}

/// The flows `sel` names: one flow (`g[k]`) or a whole group (`g`); `path` for errors.
pub(crate) fn select_flows(
    sel: &str,
    path: &str,
    groups: &std::collections::HashMap<String, (usize, usize)>,
) -> Result<std::ops::Range<usize>, crate::settings::error::BuildError> {
    let (group, one) = match sel.split_once('[') {
        Some((g, rest)) => (g, Some(rest.trim_end_matches(']').parse::<usize>().map_err(|_| (path.to_string(), format!("bad flow index in {sel:?}")))?)),
        None => (sel, None),
    };
    let &(a, b) = groups.get(group).ok_or_else(|| (path.to_string(), format!("unknown flow group {group:?}")))?;
    match one {
        Some(k) if k < b - a => Ok(a + k..a + k + 1),
        Some(k) => crate::settings::error::fail(path, format!("group {group:?} has {} flows, no index {k}", b - a)),
        None => Ok(a..b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_ranges() {
        assert_eq!(expand_names("S{1..3}").unwrap(), vec!["S1", "S2", "S3"]);
        assert_eq!(expand_names("R0").unwrap(), vec!["R0"]);
        assert!(expand_names("S{3..1}").is_err());
        assert!(expand_names("S{1..").is_err());
        assert_eq!(
            expand_names("A{1..4294967296}").unwrap_err(),
            "\"A{1..4294967296}\": 4294967296 is out of range (a range's bounds are from 0 to 4294967295)"
        );
        assert_eq!(expand_names("A{1..x}").unwrap_err(), "\"A{1..x}\": \"x\" is not a whole number");
        assert_eq!(expand_names("A{1..2000000}").unwrap_err(), "\"A{1..2000000}\": a range holds at most 1000000 names, this one 2000000");
        for name in ["S{1..3}", "R0", "S{1..", "S{3..1}", "x{0..999999}"] {
            assert_eq!(count_names(name), expand_names(name).map_or(0, |v| v.len() as u64), "{name}");
        }
    }

    #[test]
    fn bare_durations_are_found_with_their_paths() {
        let text = "duration = 30\nwarmup = \"1s\"\nhosts = [\"A\", \"B\"]\n[[links]]\nbetween = [\"A\", \"B\"]\nrate = \"1Mbps\"\ndelay = 0\n\
                    [[flows]]\nfrom = \"A\"\nto = \"B\"\nstart = { uniform = [0, 0.5] }\n";
        let found = bare_durations(text, "t.toml", &["links.0.delay=20".into()]);
        assert_eq!(found, vec![("duration".into(), 30.0), ("flows[0].start.uniform[1]".into(), 0.5), ("links[0].delay".into(), 20.0)]);
        assert!(bare_durations(text, "t.toml", &["links.0.delay=20ms".into(), "duration=30s".into(), "flows.0.start=0".into()]).is_empty());
        assert!(bare_durations("not toml", "t.toml", &[]).is_empty());
        // Durations are read as seconds again afterwards.
        assert!(parse(text, "t.toml", &[]).is_ok());
    }

    #[test]
    fn syntax_errors_say_what_was_found_where() {
        let msg = |text: &str| load(text, "t.toml", &[], None).err().unwrap().to_string();
        assert_eq!(msg("duration = \"1s\"\nname ="), "t.toml: line 2: not valid TOML at column 7: the file ends in the middle of a key or value");
        assert_eq!(
            msg("duration = \"1s\" # a\u{1}b\n"),
            "t.toml: line 1: not valid TOML at column 20: found a control character (U+0001): expected newline, `#`"
        );
        assert_eq!(msg("a = 1\na = 2"), "t.toml: line 2: not valid TOML at column 1: found 'a': duplicate key `a` in document root");
    }
}
