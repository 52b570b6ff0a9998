//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod dumbbell;
pub mod tshark;

use ccsim::engine::Simulation;
use ccsim::report::Report;

pub fn load(text: &str) -> Simulation {
    ccsim::scenario::load(text, "<test>", &[], None).unwrap_or_else(|e| panic!("{e}"))
}

pub fn run(text: &str) -> (Simulation, Report) {
    let mut sim = load(text);
    sim.run();
    let report = Report::new(&mut sim);
    (sim, report)
}

pub fn scenario_file(name: &str) -> String {
    let path = format!("{}/../../scenarios/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Index of the link named `name` ("A->B").
pub fn link(sim: &Simulation, name: &str) -> usize {
    sim.net.links.iter().position(|l| l.name == name).unwrap_or_else(|| panic!("no link {name}"))
}
