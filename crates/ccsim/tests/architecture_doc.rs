//! `docs/architecture.md` against the registries: its table of registered algorithms names
//! every congestion control, queue discipline and router mechanism the core registers.

use ccsim::router::Mechanism;

/// The cells of the row of `kind` in the table under "## Adding an algorithm".
fn row(kind: &str) -> Vec<String> {
    let path = format!("{}/../../docs/architecture.md", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let section = &text[text.find("## Adding an algorithm").expect("an \"Adding an algorithm\" section")..];
    let line = section.lines().find(|l| l.starts_with(&format!("| {kind} |"))).unwrap_or_else(|| panic!("no row for {kind}"));
    line.trim_matches('|').split('|').map(|c| c.trim().to_string()).collect()
}

/// The `quoted` words of a cell.
fn words(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

#[test]
fn every_registered_algorithm_is_in_the_table() {
    let controllers: Vec<&str> = ccsim::tcp::cc::registry().map(|r| r.name).collect();
    let disciplines: Vec<&str> = ccsim::queue::REGISTRY.iter().map(|r| r.name).collect();
    for (kind, names) in [("congestion control", controllers), ("queue discipline", disciplines), ("router mechanism", Mechanism::NAMES.to_vec())] {
        let cells = row(kind);
        assert_eq!(words(&cells[2]), names, "{kind}: the registered names, in registration order");
    }
}
