//! The error every check of a scenario returns: the field path and the message; `load` adds
//! the file name to make a [`ScenarioError`](super::ScenarioError).

/// A problem with the scenario: (field path, message).
pub type BuildError = (String, String);

/// The error `msg` about the field at `path`.
pub fn fail<T>(path: impl Into<String>, msg: impl Into<String>) -> Result<T, BuildError> {
    Err((path.into(), msg.into()))
}

/// A serde message in the words of the scenario format: integer types become their ranges
/// (`expected u32` -> `expected an integer from 0 to 4294967295`), and an integer out of its
/// type's range says so.
pub fn plain_words(message: &str) -> String {
    let mut m = message.trim().replace('\n', "; ");
    if let Some(rest) = m.strip_prefix("invalid value: integer `") {
        if let Some((n, tail)) = rest.split_once("`, ") {
            m = format!("{n} is out of range, {tail}");
        }
    }
    for (ty, range) in [
        ("u8", "from 0 to 255"),
        ("u16", "from 0 to 65535"),
        ("u32", "from 0 to 4294967295"),
        ("u64", "from 0 to 18446744073709551615"),
        ("usize", "from 0 to 18446744073709551615"),
        ("i64", "from -9223372036854775808 to 9223372036854775807"),
    ] {
        if let Some(head) = m.strip_suffix(&format!("expected {ty}")) {
            m = format!("{head}expected an integer {range}");
        }
    }
    m
}

/// The one of `candidates` that `word` was probably meant to be: the same but for case,
/// `-` or a space for `_` (`fq-codel`), or one or two letters off (`codell`, `fq_codle`).
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let norm = |w: &str| w.trim().to_lowercase().replace(['-', ' '], "_");
    let w = norm(word);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = edits(&w, &norm(c));
        if d <= if w.chars().count() > 4 { 2 } else { 1 } && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// The Levenshtein distance between `a` and `b` (letters inserted, removed or replaced),
/// or `usize::MAX` for words too long to be names.
fn edits(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len() > 64 || b.len() > 64 {
        return usize::MAX;
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1).min(row[j] + 1).min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_a_user_probably_meant() {
        let names = ["droptail", "red", "pie", "codel", "fq_codel"];
        assert_eq!(did_you_mean("fq-codel", names), Some("fq_codel"));
        assert_eq!(did_you_mean("FQ_CoDel", names), Some("fq_codel"));
        assert_eq!(did_you_mean("fq_codle", names), Some("fq_codel"));
        assert_eq!(did_you_mean("piie", names), Some("pie"));
        assert_eq!(did_you_mean("blue", names), None);
        assert_eq!(did_you_mean(&"x".repeat(1000), names), None);
    }

    #[test]
    fn integer_types_become_ranges() {
        assert_eq!(plain_words("invalid value: integer `4294967296`, expected u32"), "4294967296 is out of range, expected an integer from 0 to 4294967295");
        assert_eq!(plain_words("invalid type: floating point `1.5`, expected u8"), "invalid type: floating point `1.5`, expected an integer from 0 to 255");
        assert_eq!(plain_words("unknown field `x`"), "unknown field `x`");
    }
}
