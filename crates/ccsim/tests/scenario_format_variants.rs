//! `docs/scenario-format.md` against the congestion-control registry: every registered
//! variant has its row (with its loss recovery), and every key of a variant's own table is
//! documented once, with its true default.

use ccsim::settings::table::Table;
use ccsim::tcp::cc::registry;
use ccsim::tcp::cc::spec::{self, CcContext, Recovery};
use ccsim::tcp::NewRenoConfig;

/// The rows (cells) of the table whose header starts with `header`, below `#### Variants`.
fn table(header: &str) -> Vec<Vec<String>> {
    let path = format!("{}/../../docs/scenario-format.md", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let section = &text[text.find("#### Variants").expect("a Variants section")..];
    let start = section.find(header).unwrap_or_else(|| panic!("a table headed {header:?}"));
    section[start..]
        .lines()
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| l.trim_matches('|').split('|').map(|c| c.trim().to_string()).collect())
        .collect()
}

/// The `quoted` word of a cell.
fn word(cell: &str) -> &str {
    cell.split('`').nth(1).unwrap_or("")
}

#[test]
fn every_registered_variant_has_its_row_and_nothing_else() {
    let rows = table("| variant |");
    let documented: Vec<&str> = rows.iter().map(|r| word(&r[0])).collect();
    let registered: Vec<&str> = registry().map(|r| r.name).collect();
    assert_eq!(documented, registered, "the variants table lists the registry in its order");
    for (row, reg) in rows.iter().zip(registry()) {
        let recovery = match reg.recovery {
            Recovery::Reno => "RFC 5681",
            Recovery::NewReno => "RFC 6582",
        };
        assert_eq!(row[1], recovery, "{}", reg.name);
        let own = if (reg.keys)().is_empty() { "none".to_string() } else { format!("`{}.*`", reg.name) };
        assert_eq!(row[2], own, "{}", reg.name);
    }
}

#[test]
fn every_own_key_is_documented_once_with_its_true_default() {
    let rows = table("| key |");
    let mut documented: Vec<String> = rows.iter().map(|r| word(&r[0]).to_string()).collect();
    let mut registered: Vec<String> = registry().flat_map(|r| (r.keys)().into_iter().map(move |k| format!("{}.{k}", r.name))).collect();
    documented.sort_unstable();
    registered.sort_unstable();
    assert_eq!(documented, registered);
    let ctx = CcContext { window: NewRenoConfig::default(), full_ack_given: false, profile: Default::default() };
    for row in &rows {
        let (name, key) = word(&row[0]).split_once('.').unwrap();
        let reg = spec::find(name).unwrap();
        let default = format!("v = {}", word(&row[1])).parse::<Table>().unwrap()["v"].clone();
        let given: Table = [(key.to_string(), default)].into_iter().collect();
        let with = spec::build(reg, &given, &ctx).unwrap_or_else(|e| panic!("{name}.{key}: {e}"));
        let without = spec::build(reg, &Table::new(), &ctx).unwrap();
        assert_eq!(with, without, "{name}.{key}: the documented default {} is not the default", row[1]);
    }
}

#[test]
fn a_key_of_another_variant_or_no_variant_is_refused_naming_the_path() {
    let load = |sets: &[&str]| {
        let text = "duration = \"1s\"\nhosts = [\"A\", \"B\"]\n[[links]]\nbetween = [\"A\", \"B\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flows]]\nfrom = \"A\"\nto = \"B\"\n";
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        ccsim::scenario::load(text, "v.toml", &sets, None).map(|_| ()).unwrap_err().to_string()
    };
    assert_eq!(load(&["flows.0.tcp.cubic.beta=0.8"]), "v.toml: flows[0].tcp.cubic: only for `variant = \"cubic\"`, not for variant \"newreno\"");
    assert_eq!(
        load(&["flows.0.tcp.variant=cubic", "flows.0.tcp.cubic.beta=1.5"]),
        "v.toml: flows[0].tcp.cubic.beta: must be between 0 and 1 (exclusive), got 1.5"
    );
    let e = load(&["flows.0.tcp.variant=cubic", "flows.0.tcp.cubic.bta=0.5"]);
    assert!(e.starts_with("v.toml: flows[0].tcp.cubic.bta: unknown field `bta`: variant \"cubic\" takes `c`, `beta`"), "{e}");
    let e = load(&["flows.0.tcp.vegas.alpha=2"]);
    assert!(e.starts_with("v.toml: flows[0].tcp.vegas: unknown field `vegas`"), "{e}");
    assert_eq!(
        load(&["flows.0.tcp.variant=reno", "flows.0.tcp.full_ack=ssthresh"]),
        "v.toml: flows[0].tcp.full_ack: not for `variant = \"reno\"` (Reno leaves recovery with cwnd = ssthresh)"
    );
}
