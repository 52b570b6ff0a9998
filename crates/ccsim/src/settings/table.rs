//! A component's own table of settings (a queue discipline's keys, a congestion control's
//! `tcp.<name>` table): reading the keys a serde struct declares, and errors that name the
//! key. The builder prefixes the key with the table's path (`links[1].queue.max_th`).

use serde::de::{self, DeserializeOwned, Visitor};
use std::fmt;

/// A table of settings, as parsed from TOML.
pub type Table = toml::Table;

/// A problem with one key of a component's table (a queue's, a congestion control's): the
/// key (empty for the table as a whole) and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingError {
    pub key: String,
    pub message: String,
}

impl SettingError {
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> SettingError {
        SettingError { key: key.into(), message: message.into() }
    }

    /// The field path of the key under the table at `path`: `links[1].queue.max_th`.
    pub fn path_under(&self, path: &str) -> String {
        if self.key.is_empty() {
            path.to_string()
        } else {
            format!("{path}.{}", self.key)
        }
    }
}

impl fmt::Display for SettingError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.key, self.message)
        }
    }
}

impl std::error::Error for SettingError {}

/// `"a", "b" or "c"`: a list for a message, joined by `conjunction` before its last item.
pub fn one_of(items: &[String], conjunction: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} {conjunction} {last}", init.join(", ")),
    }
}

/// Reads `T` from the keys of `table` that `T` declares (others are left for other
/// structs), naming the key of any problem.
pub fn read<T: DeserializeOwned>(table: &Table) -> Result<T, SettingError> {
    let keys = keys_of::<T>();
    let mine: Table = table.iter().filter(|(k, _)| keys.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect();
    serde_path_to_error::deserialize(toml::Value::Table(mine)).map_err(|e| {
        let key = e.path().to_string();
        let key = if key == "." { String::new() } else { key };
        SettingError::new(key, super::error::plain_words(e.into_inner().message()))
    })
}

/// The keys of a struct that derives `Deserialize` (its serde field names), read from its
/// `Deserialize` impl: derived impls pass them to `deserialize_struct`.
pub fn keys_of<T: DeserializeOwned>() -> Vec<&'static str> {
    let mut keys = Vec::new();
    let _ = T::deserialize(KeyProbe(&mut keys));
    keys
}

/// A deserializer that only records the field names a struct asks for, then fails.
struct KeyProbe<'a>(&'a mut Vec<&'static str>);

impl<'de> de::Deserializer<'de> for KeyProbe<'_> {
    type Error = de::value::Error;

    fn deserialize_struct<V: Visitor<'de>>(self, _: &'static str, fields: &'static [&'static str], _: V) -> Result<V::Value, Self::Error> {
        self.0.extend_from_slice(fields);
        Err(de::Error::custom("keys recorded"))
    }

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Two {
        a: Option<f64>,
        #[serde(rename = "b_key")]
        b: Option<bool>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Empty {}

    fn table(text: &str) -> Table {
        text.parse().unwrap()
    }

    #[test]
    fn keys_are_the_serde_field_names() {
        assert_eq!(keys_of::<Two>(), ["a", "b_key"]);
        assert!(keys_of::<Empty>().is_empty());
    }

    #[test]
    fn read_takes_only_the_keys_of_its_struct_and_names_the_bad_one() {
        let t = table("a = 2\nb_key = true\nother = \"x\"");
        assert_eq!(read::<Two>(&t).unwrap(), Two { a: Some(2.0), b: Some(true) });
        let err = read::<Two>(&table("a = 1\nb_key = 3")).unwrap_err();
        assert_eq!(err.key, "b_key");
        assert!(err.message.contains("expected a boolean"), "{err}");
    }

    #[test]
    fn errors_name_the_path_of_their_key() {
        assert_eq!(SettingError::new("max_th", "bad").path_under("links[1].queue"), "links[1].queue.max_th");
        assert_eq!(SettingError::new("", "bad").path_under("links[1].queue"), "links[1].queue");
        assert_eq!(SettingError::new("w_q", "must be in (0, 1], got 0").to_string(), "w_q: must be in (0, 1], got 0");
    }
}
