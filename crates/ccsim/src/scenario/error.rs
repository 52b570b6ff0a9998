//! The error every check of a scenario returns: the field path and the message; `load` adds
//! the file name to make a [`ScenarioError`](super::ScenarioError).

/// A problem with the scenario: (field path, message).
pub type BuildError = (String, String);

/// The error `msg` about the field at `path`.
pub fn fail<T>(path: impl Into<String>, msg: impl Into<String>) -> Result<T, BuildError> {
    Err((path.into(), msg.into()))
}
