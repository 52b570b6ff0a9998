//! Scenario files: parse (TOML), apply overrides, check, and build a [`Simulation`].
//!
//! Nothing here panics on user input: every problem becomes a [`ScenarioError`] that names
//! the file and the field path.

pub mod build;
pub mod describe;
pub mod error;
pub mod overrides;
mod packet_log;
pub mod profile;
pub mod schema;
pub mod units;

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
    let scenario = parse(text, origin, overrides)?;
    build::build(&scenario, seed, out_dir).map_err(|(path, message)| ScenarioError { origin: origin.to_string(), path, message })
}

/// Parses `text` (from `origin`) and applies `overrides`, without checking more than the
/// file's structure and types.
pub fn parse(text: &str, origin: &str, overrides: &[String]) -> Result<schema::Scenario, ScenarioError> {
    let err = |path: &str, message: String| ScenarioError { origin: origin.to_string(), path: path.to_string(), message };
    let table: toml::Table =
        text.parse().map_err(|e: toml::de::Error| err("", format!("not valid TOML: {}", e.message().trim().replace('\n', "; "))).with_span(text, e.span()))?;
    let mut root = toml::Value::Table(table);
    for o in overrides {
        overrides::apply(&mut root, o).map_err(|m| err("", m))?;
    }
    serde_path_to_error::deserialize(root).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        err(&path, e.into_inner().message().trim().replace('\n', "; "))
    })
}

impl ScenarioError {
    fn with_span(mut self, text: &str, span: Option<std::ops::Range<usize>>) -> ScenarioError {
        if let Some(span) = span {
            let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
            self.path = format!("line {line}");
        }
        self
    }
}

/// Expands `"S{1..3}"` to `["S1", "S2", "S3"]` (inclusive); other names stand alone.
pub fn expand_names(name: &str) -> Result<Vec<String>, String> {
    let Some(open) = name.find('{') else { return Ok(vec![name.to_string()]) };
    let close = name[open..].find('}').map(|c| c + open).ok_or_else(|| format!("{name:?}: unclosed '{{'"))?;
    let inner = &name[open + 1..close];
    let (a, b) = inner.split_once("..").ok_or_else(|| format!("{name:?}: a range is written {{first..last}}"))?;
    let a: u32 = a.trim().parse().map_err(|_| format!("{name:?}: {a:?} is not a number"))?;
    let b: u32 = b.trim().parse().map_err(|_| format!("{name:?}: {b:?} is not a number"))?;
    if a > b {
        return Err(format!("{name:?}: range first {a} is greater than last {b}"));
    }
    if b - a >= 1_000_000 {
        return Err(format!("{name:?}: range too large"));
    }
    let (pre, post) = (&name[..open], &name[close + 1..]);
    Ok((a..=b).map(|i| format!("{pre}{i}{post}")).collect())
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
    }
}
