//! `--set key.path=value` overrides, applied to the parsed TOML tree before it is checked.
//!
//! A path is dot-separated; an array element is chosen by index (`flows.0.count` or
//! `flows[0].count`), by its `name` (`flows.g1.count`), or all of them with `*`
//! (`flows.*.tcp.ecn`). The value is read as a TOML value (`10`, `0.5`, `true`, `"text"`,
//! `[1, 2]`) and taken as a plain string if it is not one (`100Mbps`). An empty value
//! (`key.path=`) removes the key. `key.path+=value` appends the value to the array at the
//! path, creating the array if the key is absent (`pcap+={ links = ["R1->R2"], file = "a.pcapng" }`).

//!
//! A key path is checked whole before anything changes: every key non-empty, brackets
//! balanced and holding an index or a name (`flows[0]]].count` and `flows.0..count` are
//! errors), and at most [`MAX_KEYS`] keys. Errors name the key path as written (a long one
//! cut short); an override that has no key path is named by its place in the list,
//! `overrides[i]`.

use toml::Value;

/// The most keys a key path may have: no field of a scenario is nested nearly as deep, and
/// a TOML file allows no deeper nesting either. The path is followed (and the value it
/// makes nested) one level per key, so the bound keeps that finite.
pub const MAX_KEYS: usize = 64;

/// The longest key path (characters) an error shows whole; a longer one is cut short.
const SHOWN_CHARS: usize = 120;

/// `text` as a message shows it: control characters escaped, at most [`SHOWN_CHARS`]
/// characters (then "...").
fn shown(text: &str) -> String {
    let escaped = if text.chars().any(char::is_control) { text.escape_debug().to_string() } else { text.to_string() };
    match escaped.char_indices().nth(SHOWN_CHARS) {
        Some((cut, _)) => format!("{}...", &escaped[..cut]),
        None => escaped,
    }
}

/// A problem with an override: (the key path as written, or empty when there is none, and
/// the message).
pub type OverrideError = (String, String);

/// Applies the `index`th override of a list, `spec`, to `root`. An error names the key
/// path, or `overrides[index]` when the override has none.
pub fn apply_nth(root: &mut Value, spec: &str, index: usize) -> Result<(), OverrideError> {
    apply(root, spec).map_err(|(path, m)| if path.is_empty() { (format!("overrides[{index}]"), m) } else { (path, m) })
}

/// Applies one `path=value` override to `root`.
pub fn apply(root: &mut Value, spec: &str) -> Result<(), OverrideError> {
    let (path, raw) = spec.split_once('=').ok_or_else(|| (String::new(), format!("override {} is not of the form key.path=value", quoted(spec))))?;
    let (path, append) = match path.trim().strip_suffix('+') {
        Some(p) => (p.trim(), true),
        None => (path.trim(), false),
    };
    // The path names the field in the one-line error: a control character in it is shown
    // escaped (and refused by `parse_path`), a long path cut short.
    let shown = shown(path);
    let fail = |m: String| (shown.clone(), m);
    let keys = parse_path(path).map_err(|m| fail(format!("malformed key path in override {}: {m}", quoted(spec))))?;
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let value = (!raw.trim().is_empty()).then(|| parse_value(raw.trim()));
    if append {
        let v = value.ok_or_else(|| fail("nothing to append (`key+=value`)".into()))?;
        let mut items = match get(root, &keys) {
            None => Vec::new(),
            Some(Value::Array(a)) => a.clone(),
            Some(_) => return Err(fail(format!("cannot append: {} is not an array", keys.join(".")))),
        };
        items.push(v);
        return set(root, &keys, 0, Some(&Value::Array(items))).map_err(fail);
    }
    set(root, &keys, 0, value.as_ref()).map_err(fail)
}

/// `text` quoted as a message shows it, at most [`SHOWN_CHARS`] characters of it.
fn quoted(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((cut, _)) => format!("{:?}...", &text[..cut]),
        None => format!("{text:?}"),
    }
}

/// The keys of a path: `a.b`, `a[0].b`, `a.0.b`, `a[name]`; `*` selects every element.
fn parse_path(path: &str) -> Result<Vec<String>, String> {
    if path.is_empty() {
        return Err("the key path is empty".into());
    }
    if let Some(c) = path.chars().find(|c| c.is_control()) {
        return Err(format!("a control character ({c:?}) in the key path"));
    }
    let mut keys: Vec<String> = Vec::new();
    let mut chars = path.chars().peekable();
    // Whether a key must come next (at the start and after a '.').
    let mut need_key = true;
    while let Some(&c) = chars.peek() {
        match c {
            '.' => {
                if need_key {
                    return Err("an empty key (two dots, or a dot at the start)".into());
                }
                chars.next();
                need_key = true;
            }
            '[' => {
                if keys.is_empty() {
                    return Err("'[' with no key before it".into());
                }
                if need_key {
                    return Err("an empty key before '['".into());
                }
                chars.next();
                let mut inner = String::new();
                loop {
                    match chars.next() {
                        Some(']') => break,
                        Some('[') => return Err("'[' inside brackets".into()),
                        Some(c) => inner.push(c),
                        None => return Err("'[' without its ']'".into()),
                    }
                }
                let inner = inner.trim();
                if inner.is_empty() {
                    return Err("empty brackets".into());
                }
                keys.push(inner.to_string());
                match chars.peek() {
                    None | Some('.') | Some('[') => {}
                    Some(c) => return Err(format!("{c:?} after ']' (expected '.', '[' or the end)")),
                }
            }
            ']' => return Err("']' without its '['".into()),
            _ => {
                if !need_key {
                    return Err("a key right after ']' (expected '.' or '[')".into());
                }
                let mut key = String::new();
                while let Some(&c) = chars.peek() {
                    if matches!(c, '.' | '[' | ']') {
                        break;
                    }
                    key.push(c);
                    chars.next();
                }
                let key = key.trim();
                if key.is_empty() {
                    return Err("an empty key".into());
                }
                keys.push(key.to_string());
                need_key = false;
            }
        }
    }
    if need_key {
        return Err("the key path ends with a dot".into());
    }
    if keys.len() > MAX_KEYS {
        return Err(format!("{} keys, more than {MAX_KEYS} (no field of a scenario is nested that deep)", keys.len()));
    }
    Ok(keys)
}

/// The value at `keys` (tables by key, arrays by index or element name), if there is one.
fn get<'a>(at: &'a Value, keys: &[&str]) -> Option<&'a Value> {
    let Some((key, rest)) = keys.split_first() else { return Some(at) };
    let next = match at {
        Value::Table(t) => t.get(*key)?,
        Value::Array(a) => match key.parse::<usize>() {
            Ok(n) => a.get(n)?,
            Err(_) => a.iter().find(|e| e.get("name").and_then(Value::as_str) == Some(key))?,
        },
        _ => return None,
    };
    get(next, rest)
}

/// Sets (or removes, for `None`) the value at `keys[i..]` below `at`.
fn set(at: &mut Value, keys: &[&str], i: usize, value: Option<&Value>) -> Result<(), String> {
    let (key, last, here) = (keys[i], i + 1 == keys.len(), keys[..i].join("."));
    match at {
        Value::Table(t) if last => {
            match value {
                Some(v) => t.insert(key.to_string(), v.clone()),
                None => t.remove(key),
            };
            Ok(())
        }
        Value::Table(t) => set(t.entry(key.to_string()).or_insert_with(|| Value::Table(Default::default())), keys, i + 1, value),
        Value::Array(a) if key == "*" => match value {
            None if last => {
                a.clear();
                Ok(())
            }
            Some(v) if last => {
                a.iter_mut().for_each(|e| *e = v.clone());
                Ok(())
            }
            _ => a.iter_mut().try_for_each(|e| set(e, keys, i + 1, value)),
        },
        Value::Array(a) => {
            let idx = match key.parse::<usize>() {
                Ok(n) => n,
                Err(_) => {
                    a.iter().position(|e| e.get("name").and_then(Value::as_str) == Some(key)).ok_or_else(|| format!("no element named {key:?} in {here}"))?
                }
            };
            let len = a.len();
            if idx >= len {
                return Err(format!("index {idx} out of range for {here} ({len} element{})", if len == 1 { "" } else { "s" }));
            }
            match (last, value) {
                (true, Some(v)) => a[idx] = v.clone(),
                (true, None) => {
                    a.remove(idx);
                }
                (false, _) => return set(&mut a[idx], keys, i + 1, value),
            }
            Ok(())
        }
        _ => Err(format!("cannot set a key below {here}: it is not a table or an array")),
    }
}

fn parse_value(raw: &str) -> Value {
    match format!("v = {raw}").parse::<toml::Table>() {
        Ok(mut t) => t.remove("v").unwrap_or_else(|| Value::String(raw.into())),
        Err(_) => Value::String(raw.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> Value {
        Value::Table("duration = 5\n[[flows]]\nname = \"g1\"\ncount = 1\n[[flows]]\nname = \"g2\"\n".parse().unwrap())
    }

    #[test]
    fn sets_by_index_name_and_creates_tables() {
        let mut d = doc();
        apply(&mut d, "flows.0.count=10").unwrap();
        apply(&mut d, "flows[1].count=3").unwrap();
        apply(&mut d, "flows.g1.tcp.mss=512").unwrap();
        apply(&mut d, "duration=20s").unwrap();
        assert_eq!(d["flows"][0]["count"].as_integer(), Some(10));
        assert_eq!(d["flows"][1]["count"].as_integer(), Some(3));
        assert_eq!(d["flows"][0]["tcp"]["mss"].as_integer(), Some(512));
        assert_eq!(d["duration"].as_str(), Some("20s"));
        apply(&mut d, "flows.0.count=").unwrap();
        assert!(d["flows"][0].get("count").is_none(), "an empty value removes the key");
    }

    #[test]
    fn a_star_selects_every_element() {
        let mut d = doc();
        apply(&mut d, "flows.*.tcp.ecn=true").unwrap();
        assert!(d["flows"].as_array().unwrap().iter().all(|f| f["tcp"]["ecn"].as_bool() == Some(true)));
        apply(&mut d, "flows.*.tcp=").unwrap();
        assert!(d["flows"].as_array().unwrap().iter().all(|f| f.get("tcp").is_none()));
    }

    #[test]
    fn plus_equals_appends() {
        let mut d = doc();
        apply(&mut d, "pcap+={ links = [\"A->B\"], file = \"a.pcapng\" }").unwrap();
        apply(&mut d, "pcap += { nodes = [\"R1\"], file = \"b.pcap\" }").unwrap();
        apply(&mut d, "flows+={ name = \"g3\" }").unwrap();
        assert_eq!(d["pcap"].as_array().unwrap().len(), 2);
        assert_eq!(d["pcap"][1]["file"].as_str(), Some("b.pcap"));
        assert_eq!(d["flows"][2]["name"].as_str(), Some("g3"));
        assert!(apply(&mut d, "duration+=3").unwrap_err().1.contains("not an array"));
        assert!(apply(&mut d, "pcap+=").unwrap_err().1.contains("nothing to append"));
    }

    #[test]
    fn errors_name_the_problem() {
        let mut d = doc();
        let err = |d: &mut Value, spec: &str| apply(d, spec).unwrap_err();
        assert_eq!(err(&mut d, "flows.7.count=1"), ("flows.7.count".into(), "index 7 out of range for flows (2 elements)".into()));
        assert!(err(&mut d, "flows.g9.count=1").1.contains("no element named"));
        assert!(err(&mut d, "nonsense").1.contains("key.path=value"));
        assert!(err(&mut d, "duration.x=1").1.contains("not a table or an array"));
    }

    #[test]
    fn malformed_key_paths_are_refused_and_change_nothing() {
        let before = doc();
        for spec in [
            "flows[0]]].count=1",
            "flows.0..count=1",
            ".duration=1",
            "duration.=1",
            "flows[0.count=1",
            "flows[].count=1",
            "flows[0]count=1",
            "[0].count=1",
            "flows]0[.count=1",
            "flows[[0]].count=1",
            "=1",
            " . =1",
        ] {
            let mut d = doc();
            let (path, message) = apply(&mut d, spec).unwrap_err();
            assert!(message.starts_with("malformed key path"), "{spec}: {message}");
            assert_eq!(path, spec.split_once('=').unwrap().0.trim(), "{spec}");
            assert_eq!(d, before, "{spec} changed the document");
        }
        let mut d = doc();
        apply(&mut d, "flows[g2].count=4").unwrap();
        assert_eq!(d["flows"][1]["count"].as_integer(), Some(4));
    }

    #[test]
    fn a_key_path_deeper_than_any_field_is_refused_without_descending() {
        // 21,700 parts used to recurse once per part and overflow the stack.
        for parts in [MAX_KEYS + 1, 21_700, 1_000_000] {
            let mut d = doc();
            let spec = format!("{}=1", vec!["a"; parts].join("."));
            let (path, message) = apply(&mut d, &spec).unwrap_err();
            assert_eq!(message.split(": ").last().unwrap(), format!("{parts} keys, more than {MAX_KEYS} (no field of a scenario is nested that deep)"));
            assert!(message.starts_with("malformed key path in override \"a.a.a") && message.len() < 400, "{message}");
            assert!(path.starts_with("a.a.a") && path.ends_with("...") && path.len() <= SHOWN_CHARS + 3, "{path}");
            assert_eq!(d, doc(), "{parts} parts changed the document");
        }
        let mut d = doc();
        apply(&mut d, &format!("{}=1", vec!["a"; MAX_KEYS].join("."))).unwrap();
        let mut at = &d["a"];
        for _ in 1..MAX_KEYS {
            at = &at["a"];
        }
        assert_eq!(at.as_integer(), Some(1));
    }

    #[test]
    fn an_override_without_a_key_path_is_named_by_its_place() {
        let mut d = doc();
        assert_eq!(apply_nth(&mut d, "nonsense", 3).unwrap_err().0, "overrides[3]");
        assert_eq!(apply_nth(&mut d, "=5", 0).unwrap_err().0, "overrides[0]");
        assert_eq!(apply_nth(&mut d, "flows.9.count=1", 2).unwrap_err().0, "flows.9.count");
    }

    #[test]
    fn a_control_character_in_a_key_path_is_refused_on_one_line() {
        let before = doc();
        for spec in ["0\n0=0", "flows.0\t.count=1", "dura\rtion=1s"] {
            let mut d = doc();
            let (path, message) = apply(&mut d, spec).unwrap_err();
            assert!(message.starts_with("malformed key path") && message.contains("a control character"), "{spec:?}: {message}");
            assert!(!path.chars().any(char::is_control) && !message.chars().any(char::is_control), "{path:?}: {message:?}");
            assert_eq!(d, before, "{spec:?} changed the document");
        }
    }
}
