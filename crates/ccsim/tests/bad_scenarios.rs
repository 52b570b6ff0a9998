//! Broken scenarios are rejected before the run with a message naming the file and field.

const BASE: &str = r#"
duration = "1s"
hosts = ["A", "B"]
routers = ["R"]
[[links]]
between = ["A", "R"]
rate = "10Mbps"
delay = "1ms"
[[links]]
between = ["R", "B"]
rate = "10Mbps"
delay = "1ms"
[[flows]]
name = "f"
from = "A"
to = "B"
"#;

fn error_of(text: &str, overrides: &[&str]) -> String {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    match ccsim::scenario::load(text, "bad.toml", &o, None) {
        Ok(_) => panic!("accepted: {overrides:?}\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn broken_scenarios_are_rejected_with_the_field_named() {
    let cases: &[(&[&str], &str)] = &[
        (&["links.0.rat=5"], "bad.toml: links[0].rat: unknown field `rat`, expected one of `between`"),
        (&["links.0.rate=-5"], "bad.toml: links[0].rate: rate must be positive"),
        (&["links.0.rate=0"], "bad.toml: links[0].rate: rate must be positive"),
        (&["links.0.rate=fast"], "bad.toml: links[0].rate: invalid rate \"fast\""),
        (&["links.0.delay=-1"], "bad.toml: links[0].delay: duration must not be negative"),
        (&["flows.0.to=Z"], "bad.toml: flows[0].to: unknown node \"Z\""),
        (&["links.1.between=[\"R\", \"Q\"]"], "bad.toml: links[1].between: unknown node \"Q\""),
        (&["flows.0.start={ uniform = [\"2s\", \"1s\"] }"], "bad.toml: flows[0].start: uniform low 2 is greater than high 1"),
        (&["flows.0.count=0"], "bad.toml: flows[0].count: must be at least 1"),
        (&["flows.0.tcp.variant=vegas"], "bad.toml: flows[0].tcp.variant: unknown variant \"vegas\""),
        (&["flows.0.tcp.mss=0"], "bad.toml: flows[0].tcp.mss: must be between 1 and 65000"),
        (&["flows.0.tcp.sack=1"], "bad.toml: flows[0].tcp.sack: invalid type: integer `1`, expected a boolean"),
        (&["flows.0.tcp.sack=true", "flows.0.tcp.partial_ack_timer=impatient"], "bad.toml: flows[0].tcp.partial_ack_timer: only without `sack`"),
        (&["flows.0.tcp.prr=true"], "bad.toml: flows[0].tcp.prr: only with `sack = true` or `ecn_response = \"cwr\"`"),
        (&["flows.0.tcp.rack=true"], "bad.toml: flows[0].tcp.rack: only with `sack = true`"),
        (&["flows.0.tcp.rto_min_on=srtt"], "bad.toml: flows[0].tcp.rto_min_on: unknown value \"srtt\" (expected \"rto\" or \"variance\")"),
        (
            &["flows.0.tcp.rtt_arithmetic=ns2", "flows.0.tcp.rto_min_on=variance"],
            "bad.toml: flows[0].tcp.rto_min_on: \"variance\" only with `rtt_arithmetic = \"rfc6298\"`",
        ),
        (&["flows.0.tcp.ecn_response=halve"], "bad.toml: flows[0].tcp.ecn_response: unknown value \"halve\" (expected \"immediate\" or \"cwr\")"),
        (&["profile=bsd"], "bad.toml: profile: unknown variant `bsd`, expected one of `rfc`, `ns2`, `linux`"),
        (&["links.1.queue.limit=0"], "bad.toml: links[1].queue.limit: must be at least 1"),
        (&["links.1.queue.discipline=fifo9"], "bad.toml: links[1].queue.discipline: unknown discipline \"fifo9\""),
        (&["links.0.loss=1.5"], "bad.toml: links[0].loss: must be in [0, 1)"),
        (&["warmup=2s"], "bad.toml: warmup: must be shorter than the duration"),
        (&["duration=0"], "bad.toml: duration: must be positive"),
        (&["flows.0.app=finite"], "bad.toml: flows[0].bytes: required for `app = \"finite\"`"),
        (&["flows.0.transport=udp"], "bad.toml: flows[0].udp: required for `transport = \"udp\"`"),
        (&["hosts=[\"A\", \"A\", \"B\"]"], "bad.toml: hosts[1]: duplicate node name \"A\""),
        (&["series=[{ kind = \"queue\", link = \"X->Y\", interval = \"1s\" }]"], "bad.toml: series[0].link: unknown link \"X->Y\""),
        (&["flows.3.count=1"], "bad.toml: flows.3.count: index 3 out of range for flows (1 element)"),
        (&["links.1.queue.signal=flag"], "bad.toml: links[1].queue.signal: unknown signal \"flag\" (expected \"drop\", \"ecn\" or \"spoof\")"),
        (&["links.0.queue.signal=spoof"], "bad.toml: links[0].queue.signal: \"spoof\" is for routers: the queue of A->R is at host \"A\""),
        (&["ack_spoofing.dupacks=0"], "bad.toml: ack_spoofing.dupacks: must be between 1 and 64, got 0"),
        (&["ack_spoofing.table_size=0"], "bad.toml: ack_spoofing.table_size: must be between 1 and"),
        (&["ack_spoofing.asymmetric_threshold=0"], "bad.toml: ack_spoofing.asymmetric_threshold: must be at least 1"),
        (&["ack_spoofing.pending_timeout=0"], "bad.toml: ack_spoofing.pending_timeout: must be positive"),
        (&["ack_spoofing.below_real_ack=true"], "bad.toml: ack_spoofing.below_real_ack: unknown field `below_real_ack`"),
    ];
    let mismatches: Vec<String> = cases
        .iter()
        .map(|(overrides, expected)| (overrides, expected, error_of(BASE, overrides)))
        .filter(|(_, expected, msg)| !msg.starts_with(**expected))
        .map(|(o, e, m)| format!("for {o:?}\n  expected: {e}\n  got:      {m}"))
        .collect();
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn unreachable_destination_is_rejected() {
    let text = BASE.replace("between = [\"R\", \"B\"]", "from = \"R\"\nto = \"B\"");
    let msg = error_of(&text, &[]);
    assert_eq!(msg, "bad.toml: flows[0]: A is unreachable from B");
}

#[test]
fn syntax_errors_name_the_line() {
    let msg = error_of("duration = \"1s\"\nhosts = [\"A\" \"B\"]\n", &[]);
    assert!(msg.starts_with("bad.toml: line 2: not valid TOML"), "{msg}");
}

#[test]
fn the_base_scenario_is_valid() {
    assert!(ccsim::scenario::load(BASE, "ok.toml", &[], None).is_ok());
}
