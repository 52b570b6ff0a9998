//! `--set key.path=value` overrides, applied to the parsed TOML tree before it is checked.
//!
//! A path is dot-separated; an array element is chosen by index (`flows.0.count` or
//! `flows[0].count`), by its `name` (`flows.g1.count`), or all of them with `*`
//! (`flows.*.tcp.ecn`). The value is read as a TOML value (`10`, `0.5`, `true`, `"text"`,
//! `[1, 2]`) and taken as a plain string if it is not one (`100Mbps`). An empty value
//! (`key.path=`) removes the key. `key.path+=value` appends the value to the array at the
//! path, creating the array if the key is absent (`pcap+={ links = ["R1->R2"], file = "a.pcapng" }`).

use toml::Value;

/// Applies one `path=value` override to `root`.
pub fn apply(root: &mut Value, spec: &str) -> Result<(), String> {
    let (path, raw) = spec.split_once('=').ok_or_else(|| format!("override {spec:?} is not of the form key.path=value"))?;
    let (path, append) = match path.trim().strip_suffix('+') {
        Some(p) => (p, true),
        None => (path, false),
    };
    let path = path.trim().replace('[', ".").replace(']', "");
    let value = (!raw.trim().is_empty()).then(|| parse_value(raw.trim()));
    let keys: Vec<&str> = path.split('.').filter(|k| !k.is_empty()).collect();
    if keys.is_empty() {
        return Err(format!("override {spec:?} has an empty key path"));
    }
    if append {
        let v = value.ok_or_else(|| format!("override {spec:?}: nothing to append"))?;
        let mut items = match get(root, &keys) {
            None => Vec::new(),
            Some(Value::Array(a)) => a.clone(),
            Some(_) => return Err(format!("override {spec:?}: {} is not an array", keys.join("."))),
        };
        items.push(v);
        return set(root, &keys, 0, Some(&Value::Array(items)), spec);
    }
    set(root, &keys, 0, value.as_ref(), spec)
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
fn set(at: &mut Value, keys: &[&str], i: usize, value: Option<&Value>, spec: &str) -> Result<(), String> {
    let (key, last, here) = (keys[i], i + 1 == keys.len(), keys[..i].join("."));
    match at {
        Value::Table(t) if last => {
            match value {
                Some(v) => t.insert(key.to_string(), v.clone()),
                None => t.remove(key),
            };
            Ok(())
        }
        Value::Table(t) => set(t.entry(key.to_string()).or_insert_with(|| Value::Table(Default::default())), keys, i + 1, value, spec),
        Value::Array(a) if key == "*" => match value {
            None if last => {
                a.clear();
                Ok(())
            }
            Some(v) if last => {
                a.iter_mut().for_each(|e| *e = v.clone());
                Ok(())
            }
            _ => a.iter_mut().try_for_each(|e| set(e, keys, i + 1, value, spec)),
        },
        Value::Array(a) => {
            let idx = match key.parse::<usize>() {
                Ok(n) => n,
                Err(_) => a
                    .iter()
                    .position(|e| e.get("name").and_then(Value::as_str) == Some(key))
                    .ok_or_else(|| format!("override {spec:?}: no element named {key:?} in {here}"))?,
            };
            let len = a.len();
            if idx >= len {
                return Err(format!("override {spec:?}: index {idx} out of range for {here} ({len} elements)"));
            }
            match (last, value) {
                (true, Some(v)) => a[idx] = v.clone(),
                (true, None) => {
                    a.remove(idx);
                }
                (false, _) => return set(&mut a[idx], keys, i + 1, value, spec),
            }
            Ok(())
        }
        _ => Err(format!("override {spec:?}: {here} is not a table or an array")),
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
        assert!(apply(&mut d, "duration+=3").unwrap_err().contains("not an array"));
        assert!(apply(&mut d, "pcap+=").unwrap_err().contains("nothing to append"));
    }

    #[test]
    fn errors_name_the_problem() {
        let mut d = doc();
        assert!(apply(&mut d, "flows.7.count=1").unwrap_err().contains("out of range"));
        assert!(apply(&mut d, "flows.g9.count=1").unwrap_err().contains("no element named"));
        assert!(apply(&mut d, "nonsense").unwrap_err().contains("key.path=value"));
    }
}
