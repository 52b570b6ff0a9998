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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_types_become_ranges() {
        assert_eq!(plain_words("invalid value: integer `4294967296`, expected u32"), "4294967296 is out of range, expected an integer from 0 to 4294967295");
        assert_eq!(plain_words("invalid type: floating point `1.5`, expected u8"), "invalid type: floating point `1.5`, expected an integer from 0 to 255");
        assert_eq!(plain_words("unknown field `x`"), "unknown field `x`");
    }
}
