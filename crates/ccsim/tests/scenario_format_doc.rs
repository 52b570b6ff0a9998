//! `docs/scenario-format.md` against the code: the queue table documents every key a queue
//! takes (the common ones and each registered discipline's), says which disciplines take
//! it, and gives its true default.

use ccsim::queue::choose;
use ccsim::queue::spec::{self, QueueContext, Table};
use ccsim::queue::{Limit, REGISTRY};
use ccsim::settings::schema::QueueSpec;
use ccsim::signal::SignalPolicy;

/// One row of the queue table.
struct Row {
    keys: Vec<String>,
    who: String,
    default: String,
    meaning: String,
}

fn queue_table() -> Vec<Row> {
    let path = format!("{}/../../docs/scenario-format.md", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let section = &text[text.find("### Queues").expect("a Queues section")..];
    let rows: Vec<Row> = section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2) // header and separator
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            assert_eq!(cells.len(), 4, "{l}");
            Row { keys: backticked(cells[0]), who: cells[1].into(), default: cells[2].into(), meaning: cells[3].into() }
        })
        .collect();
    assert!(rows.len() > 10, "the table was not found");
    rows
}

/// The `quoted` words of a cell.
fn backticked(cell: &str) -> Vec<String> {
    cell.split('`').skip(1).step_by(2).map(String::from).collect()
}

fn discipline_keys() -> Vec<&'static str> {
    let mut keys: Vec<&str> = REGISTRY.iter().flat_map(|r| (r.keys)()).collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

fn takers(key: &str) -> Vec<&'static str> {
    REGISTRY.iter().filter(|r| (r.keys)().contains(&key)).map(|r| r.name).collect()
}

#[test]
fn every_key_is_documented_once_and_nothing_else() {
    let mut documented: Vec<String> = queue_table().into_iter().flat_map(|r| r.keys).collect();
    let mut expected: Vec<String> = QueueSpec::COMMON_KEYS.iter().chain(discipline_keys().iter()).map(|k| k.to_string()).collect();
    documented.sort_unstable();
    expected.sort_unstable();
    assert_eq!(documented, expected);
}

#[test]
fn each_key_names_the_disciplines_that_take_it() {
    let rows = queue_table();
    for row in &rows {
        for key in &row.keys {
            if QueueSpec::COMMON_KEYS.contains(&key.as_str()) {
                assert!(row.who.starts_with("all") || row.who.starts_with("with"), "{key}: {}", row.who);
                continue;
            }
            let names = takers(key);
            let family = REGISTRY.iter().find(|r| r.name == names[0]).and_then(|r| r.family);
            let members = |f| REGISTRY.iter().filter(|r| r.family == Some(f)).map(|r| r.name).collect::<Vec<_>>();
            match family {
                Some(f) if members(f) == names => assert_eq!(row.who, format!("{f} family"), "{key}"),
                _ => {
                    let named = backticked(&row.who);
                    assert!(named.len() >= names.len() && named[..names.len()] == names, "{key}: {} (taken by {names:?})", row.who);
                }
            }
        }
    }
    let discipline = rows.iter().find(|r| r.keys == ["discipline"]).unwrap();
    let listed = backticked(&discipline.meaning);
    for reg in REGISTRY {
        for name in std::iter::once(&reg.name).chain(reg.aliases) {
            assert!(listed.iter().any(|n| n == name), "discipline {name} is not listed: {}", discipline.meaning);
        }
    }
}

/// Values for the keys a discipline requires, so that it builds.
fn required_values() -> Table {
    "min_th = 5\nmax_th = 15\nrisk_th = 20\nk = 20".parse().unwrap()
}

fn build(name: &str, table: &Table) -> Result<String, spec::SettingError> {
    let ctx = QueueContext { link_bps: 10_000_000, limit: Limit::Packets(100), profile: Default::default(), delay: ccsim::sim::Dur::ZERO };
    choose::build(name, table, &ctx, QueueSpec::COMMON_KEYS, || ccsim::settings::external::Site { name: "l".into(), rng: ccsim::sim::Rng::from_seed(1) })
        .map(|d| format!("{d:?}"))
}

/// The required keys `name` takes, with their values.
fn base(name: &str, rows: &[Row]) -> Table {
    let keys = (spec::find(name).unwrap().keys)();
    let required: Vec<&String> = rows.iter().filter(|r| r.default == "required").flat_map(|r| &r.keys).collect();
    let values = required_values();
    let mut table = Table::new();
    for key in required.into_iter().filter(|k| keys.contains(&k.as_str())) {
        let value = values.get(key).unwrap_or_else(|| panic!("add a value for the required key {key} to required_values()"));
        table.insert(key.clone(), value.clone());
    }
    table
}

#[test]
fn documented_defaults_are_the_real_ones() {
    let rows = queue_table();
    for row in &rows {
        for key in &row.keys {
            if QueueSpec::COMMON_KEYS.contains(&key.as_str()) {
                check_common_default(key, &row.default);
                continue;
            }
            for name in takers(key) {
                let base = base(name, &rows);
                if row.default == "required" {
                    let mut without = base.clone();
                    without.remove(key);
                    let err = build(name, &without).unwrap_err();
                    assert_eq!(err.key, *key, "{name}: {err}");
                    assert!(err.message.starts_with("required"), "{name}: {err}");
                    continue;
                }
                let literal = default_for(&row.default, name);
                assert_eq!(
                    literal.len(),
                    1,
                    "{key}: the default of a discipline's key is `a TOML value`, required, or `a value` for `name`s; ... , not {:?}",
                    row.default
                );
                let value: Table = format!("v = {}", literal[0]).parse().unwrap_or_else(|e| panic!("{key}: {e}"));
                let mut with = base.clone();
                with.insert(key.clone(), value["v"].clone());
                let (implicit, explicit) = (build(name, &base).unwrap(), build(name, &with).unwrap());
                assert_eq!(implicit, explicit, "{name}: {key} = {} is not the default", literal[0]);
            }
        }
    }
}

/// The default a row gives for discipline `name`: the cell's one backticked value, or, when
/// the cell gives several (`` `v1` for `a`; `v2` for `b`, `c` ``), the value of the part that
/// names `name`.
fn default_for(cell: &str, name: &str) -> Vec<String> {
    if !cell.contains(';') {
        return backticked(cell);
    }
    let parts: Vec<&str> = cell.split(';').filter(|part| backticked(part).iter().skip(1).any(|n| n == name)).collect();
    assert_eq!(parts.len(), 1, "{cell:?} gives no single default for {name}");
    backticked(parts[0]).into_iter().take(1).collect()
}

/// The defaults of the common keys that the builder applies; the others (`limit_bytes`,
/// `drop_areas`, and ACC's) are absent values.
fn check_common_default(key: &str, default: &str) {
    let literal = backticked(default);
    let unquoted = || literal[0].trim_matches('"').to_string();
    match key {
        "discipline" => assert_eq!(unquoted(), spec::DEFAULT_DISCIPLINE),
        "limit" => assert_eq!(literal[0], QueueSpec::DEFAULT_LIMIT.to_string()),
        "signal" => assert_eq!(SignalPolicy::from_name(&unquoted()), Some(SignalPolicy::default())),
        _ => {}
    }
}

#[test]
fn a_key_of_the_wrong_discipline_is_rejected_naming_the_path() {
    let text = r#"
duration = "1s"
hosts = ["A", "B"]
[[links]]
between = ["A", "B"]
rate = "10Mbps"
delay = "1ms"
queue = { discipline = "ared", min_th = 5, max_th = 15, risk_th = 20 }
[[flows]]
from = "A"
to = "B"
"#;
    let err = ccsim::scenario::load(text, "s.toml", &[], None).err().expect("rejected");
    assert_eq!(err.to_string(), "s.toml: links[0].queue.risk_th: only for discipline \"rtred\", not for discipline \"ared\"");
}
