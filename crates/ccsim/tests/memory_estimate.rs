//! The resource guard's memory estimate against the measured peak memory of building and
//! running a scenario, on a few sizes of the structures that dominate: flows, and the
//! routing tables of many hosts that are all flow end points. Each size is measured in a
//! child process (this test binary, running the ignored test `child`), as the growth of its
//! peak resident memory (VmHWM) over its resident memory before it parsed the scenario.
//! The estimate must be within a factor of two of the measurement.

use std::process::Command;

fn dumbbell(flows: u32) -> String {
    format!(
        "duration = \"20ms\"\nhosts = [\"S\", \"D\"]\nrouters = [\"R1\", \"R2\"]\n\
         [[links]]\nbetween = [\"S\", \"R1\"]\nrate = \"1Gbps\"\ndelay = \"1ms\"\n\
         [[links]]\nbetween = [\"R1\", \"R2\"]\nrate = \"100Mbps\"\ndelay = \"5ms\"\n\
         [[links]]\nbetween = [\"R2\", \"D\"]\nrate = \"1Gbps\"\ndelay = \"1ms\"\n\
         [[flows]]\nname = \"bulk\"\nfrom = \"S\"\nto = \"D\"\ncount = {flows}\nstart = {{ uniform = [\"0s\", \"10ms\"] }}\n"
    )
}

/// A star of `hosts` hosts sending to one server. The estimate counts every buffer full (an
/// upper bound: a refusal must not come too late); a fan-in of thousands of flows never
/// fills its hosts' uplink buffers, so they are kept small here, where the estimate's
/// other parts (nodes, links, flows, routing) are what is measured.
fn star(hosts: u32) -> String {
    format!(
        "duration = \"20ms\"\nhosts = [\"H{{1..{hosts}}}\", \"S\"]\nrouters = [\"R\"]\n\
         [[links]]\nbetween = [\"H{{1..{hosts}}}\", \"R\"]\nrate = \"10Mbps\"\ndelay = \"1ms\"\nqueue = {{ limit = 10 }}\n\
         [[links]]\nbetween = [\"R\", \"S\"]\nrate = \"1Gbps\"\ndelay = \"1ms\"\n\
         [[flows]]\nfrom = \"H{{1..{hosts}}}\"\nto = \"S\"\nstart = {{ uniform = [\"0s\", \"10ms\"] }}\n"
    )
}

fn kb(key: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux");
    let line = status.lines().find(|l| l.starts_with(key)).expect("the key");
    line[key.len()..].split_whitespace().next().unwrap().parse::<u64>().unwrap() * 1024
}

/// In the child: builds and runs the scenario in `CCSIM_MEASURE`, prints the peak growth.
#[test]
#[ignore = "run by measured_peaks_are_within_twice_the_estimate in a child process"]
fn child() {
    let Ok(text) = std::env::var("CCSIM_MEASURE") else { return };
    let before = kb("VmRSS:");
    let mut sim = ccsim::scenario::load(&text, "measure.toml", &[], None).expect("valid");
    sim.run();
    let json = ccsim::report::Report::new(&mut sim).to_json();
    let peak = kb("VmHWM:");
    println!("PEAK {} {}", peak.saturating_sub(before), json.len());
}

fn measure(text: &str) -> f64 {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child", "--ignored", "--nocapture", "--test-threads", "1"])
        .env("CCSIM_MEASURE", text)
        .output()
        .expect("the child runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let at = stdout.find("PEAK ").unwrap_or_else(|| panic!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    stdout[at..].split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn measured_peaks_are_within_twice_the_estimate() {
    if !std::path::Path::new("/proc/self/status").exists() {
        return;
    }
    let mut report = Vec::new();
    for (name, text) in [
        ("dumbbell, 20000 flows", dumbbell(20_000)),
        ("dumbbell, 100000 flows", dumbbell(100_000)),
        ("star, 3000 hosts", star(3_000)),
        ("star, 8000 hosts", star(8_000)),
    ] {
        let estimate = ccsim::scenario::estimate_memory(&text, "measure.toml", &[]).unwrap();
        let measured = measure(&text);
        let ratio = estimate / measured;
        report.push(format!("{name}: estimate {:.0} MB, measured {:.0} MB, ratio {ratio:.2}", estimate / 1e6, measured / 1e6));
        assert!((0.5..=2.0).contains(&ratio), "{}", report.join("\n"));
    }
    println!("{}", report.join("\n"));
}

/// The event estimate, as the refusal states it, against the events of the run.
#[test]
fn event_estimates_are_within_twice_the_events_run() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let o = ["duration=10s".to_string(), "warmup=0".to_string()];
    for name in ["dumbbell", "dumbbell_red_ecn", "acc_dumbbell", "ackspoof_net1", "das_fig2", "rtred_s1"] {
        let text = std::fs::read_to_string(dir.join(format!("{name}.toml"))).unwrap();
        let tiny = ccsim::scenario::Limits { max_events: Some(1), ..Default::default() };
        let refused = ccsim::scenario::load_with(&text, name, &o, None, None, &tiny).err().expect("refused").message;
        let estimate: f64 =
            refused.split("about ").nth(1).and_then(|t| t.split(' ').next()).and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{refused}"));
        let mut sim = ccsim::scenario::load(&text, name, &o, None).unwrap();
        sim.run();
        let ratio = estimate / sim.events_processed as f64;
        assert!((0.5..=2.0).contains(&ratio), "{name}: estimate {estimate}, {} events run", sim.events_processed);
    }
}
