//! Every kind of failure that mutated scenarios and override strings once found (panics,
//! memory exhaustion, time that never advances, work without bound, messages without a
//! field path or with a wrong one) gives a one-line `FILE: field: message` at once, within
//! the resources of a machine with 4 GB of memory.

use ccsim::scenario::{load_with, Limits};
use std::time::{Duration, Instant};

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

/// A star of `n` hosts around one router, and a sink; flows from every host, or from one.
fn star(n: u32, every_host: bool) -> String {
    let from = if every_host { format!("H{{1..{n}}}") } else { "H1".into() };
    format!(
        "duration = \"1s\"\nhosts = [\"H{{1..{n}}}\", \"S\"]\nrouters = [\"R\"]\n\
         [[links]]\nbetween = [\"H{{1..{n}}}\", \"R\"]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
         [[links]]\nbetween = [\"R\", \"S\"]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
         [[flows]]\nfrom = \"{from}\"\nto = \"S\"\n"
    )
}

/// Limits as on a machine with 4 GB to give (the issue's `ulimit -v 4000000`).
const FOUR_GB: Limits = Limits { max_memory: Some(4_000_000_000), max_events: None, force: false };

fn error_of(text: &str, overrides: &[&str]) -> String {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let started = Instant::now();
    let result = load_with(text, "bad.toml", &o, None, None, &FOUR_GB);
    assert!(started.elapsed() < Duration::from_secs(10), "{overrides:?} took {:?}", started.elapsed());
    match result {
        Ok(_) => panic!("accepted: {:?}", &overrides[..overrides.len().min(3)]),
        Err(e) => e.to_string(),
    }
}

/// The message with its estimate's number left out ("about N GB"): estimates follow the
/// sizes of the data structures, which change.
fn vague(message: &str) -> String {
    match message.split_once("needs about ") {
        Some((head, tail)) => format!("{head}needs about N{}", &tail[tail.find(' ').unwrap_or(0)..]),
        None => message.to_string(),
    }
}

#[test]
fn each_kind_of_bad_input_gives_one_line_naming_the_field() {
    let udp_onoff = |on: &str, off: &str| format!("flows.f.udp={{ rate = \"1Mbps\", on = {on}, off = {off} }}");
    let (exp, tick) = (udp_onoff("{ exponential = \"1e-300s\" }", "{ exponential = \"1e-300s\" }"), udp_onoff("\"1ns\"", "\"1ns\""));
    let series: Vec<String> =
        (0..200).map(|i| format!("series+={{ kind = \"queue\", link = \"{}\", interval = \"1us\" }}", if i % 2 == 0 { "A->R" } else { "R->B" })).collect();
    let mut series_args: Vec<&str> = series.iter().map(String::as_str).collect();
    series_args.extend(["duration=1000s", "series.*.max_points=1000000000"]);
    let cases: Vec<(String, Vec<&str>, &str)> = vec![
        // Panics.
        (BASE.into(), vec!["links.0.rate=0.3"], "bad.toml: links[0].rate: rate 0.3 is out of range: a rate is from 1 bit/s to 1 Tbit/s"),
        // Memory.
        (BASE.into(), vec!["flows.f.count=20000000"], "bad.toml: flows[0].count: this scenario needs about 65.5 GB of memory (limit 4.0 GB: the limit given); use --force to run anyway"),
        (BASE.into(), vec!["flows.f.count=100000000"], "bad.toml: flows[0].count: this scenario needs about 327.3 GB of memory (limit 4.0 GB: the limit given); use --force to run anyway"),
        (BASE.into(), vec!["flows.f.count=2147483648"], "bad.toml: flows[0].count: this scenario needs about 7.0 TB of memory (limit 4.0 GB: the limit given); use --force to run anyway"),
        (BASE.into(), vec!["flows.f.to=\"B{1..1000000}\"", "hosts=[\"A\", \"B{1..1000000}\"]", "flows.f.count=4295"], "bad.toml: flows: the scenario has 4295000000 flows, more than 4294967294 (flow indices are 32-bit)"),
        (star(40_000, true), vec!["flows.0.count=100"], "bad.toml: flows[0].count: this scenario needs about 8.1 GB of memory (limit 4.0 GB: the limit given); use --force to run anyway"),
        (star(999_999, false), vec![], "bad.toml: links: this scenario needs about 8.0 GB of memory (limit 4.0 GB: the limit given); use --force to run anyway"),
        (
            "duration = \"1s\"\nhosts = [\"A\", \"B\"]\nrouters = [\"R{1..40}\"]\n[ack_spoofing]\ntable_size = 16777216\n\
             [[links]]\nbetween = [\"A\", \"R1\"]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
             [[links]]\nbetween = [\"R{1..39}\", \"R{2..40}\"]\nrate = \"10Mbps\"\ndelay = \"1ms\"\nqueue = { discipline = \"red\", min_th = 5, max_th = 15, signal = \"spoof\" }\n\
             [[links]]\nbetween = [\"R40\", \"B\"]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n[[flows]]\nfrom = \"A\"\nto = \"B\"\n"
                .into(),
            vec![],
            "bad.toml: ack_spoofing.table_size: this scenario needs about 80.5 GB of memory (limit 4.0 GB: the limit given); use --force to run anyway",
        ),
        // Time that never advances.
        (BASE.into(), vec!["flows.f.transport=udp", "flows.f.udp={ rate = \"1e18\", packet_size = 1 }", "duration=1us"], "bad.toml: flows[0].udp.rate: rate \"1e18\" is out of range: a rate is from 1 bit/s to 1 Tbit/s"),
        (BASE.into(), vec!["links.*.rate=1e308", "links.*.delay=0", "duration=1us"], "bad.toml: links[0].rate: rate 1e308 is out of range: a rate is from 1 bit/s to 1 Tbit/s"),
        (BASE.into(), vec!["flows.f.transport=udp", "flows.f.app=onoff", &exp, "duration=1us"], "bad.toml: flows[0].udp.off.exponential: duration \"1e-300s\" is below 1 ns, the clock's resolution: a duration is 0, or from 1 ns to 1e9 s"),
        // Work without bound.
        (BASE.into(), vec!["duration=1e308s"], "bad.toml: duration: duration \"1e308s\" is out of range: a duration is 0, or from 1 ns to 1e9 s (about 31.7 years)"),
        (BASE.into(), vec!["duration=1e10s"], "bad.toml: duration: duration \"1e10s\" is out of range: a duration is 0, or from 1 ns to 1e9 s (about 31.7 years)"),
        (BASE.into(), vec!["duration=1e8s"], "bad.toml: duration: this scenario needs about 4.9e11 events over its 100000000 s (limit 1e10 events); use --force to run anyway, or allow more with --max-events"),
        (BASE.into(), vec!["flows.f.transport=udp", "flows.f.app=onoff", &tick, "duration=30s"], "bad.toml: flows[0].udp: this scenario needs about 1.5e10 events over its 30 s (limit 1e10 events); use --force to run anyway, or allow more with --max-events"),
        (BASE.into(), series_args, "bad.toml: series[0].interval: this scenario needs about 3.2 TB of memory (limit 4.0 GB: the limit given); use --force to run anyway"),
        // Messages.
        (BASE.into(), vec!["duration=inf"], "bad.toml: duration: duration inf is out of range: a duration is 0, or from 1 ns to 1e9 s (about 31.7 years)"),
        ("duration = \"1s\"\nname =".into(), vec![], "bad.toml: line 2: not valid TOML at column 7: the file ends in the middle of a key or value"),
        ("duration = \"1s\" # a\u{1}b\n".into(), vec![], "bad.toml: line 1: not valid TOML at column 20: found a control character (U+0001): expected newline, `#`"),
        (BASE.into(), vec!["hosts=[\"A{1..4294967296}\", \"B\"]"], "bad.toml: hosts[0]: \"A{1..4294967296}\": 4294967296 is out of range (a range's bounds are from 0 to 4294967295)"),
        (BASE.into(), vec!["flows.f.count=4294967296"], "bad.toml: flows[0].count: 4294967296 is out of range, expected an integer from 0 to 4294967295"),
        (BASE.into(), vec!["links.0.loss=1e300"], "bad.toml: links[0].loss: must be in [0, 1), got 1e300"),
        (BASE.into(), vec!["links.0.delay=1e300"], "bad.toml: links[0].delay: duration 1e300 is out of range: a duration is 0, or from 1 ns to 1e9 s (about 31.7 years)"),
        (BASE.into(), vec!["seed=18446744073709551616"], "bad.toml: seed: must be an integer from 0 to 18446744073709551615, got \"18446744073709551616\""),
        (BASE.into(), vec!["flows[0]]].count=1"], "bad.toml: flows[0]]].count: malformed key path in override \"flows[0]]].count=1\": ']' after ']' (expected '.', '[' or the end)"),
        (BASE.into(), vec!["flows.0..count=1"], "bad.toml: flows.0..count: malformed key path in override \"flows.0..count=1\": an empty key (two dots, or a dot at the start)"),
        (BASE.into(), vec!["pcap+={ file = \"/dev/full\", links = [\"A->R\"] }"], "bad.toml: pcap[0].file: cannot create /dev/full: No space left on device (os error 28)"),
    ];
    let mut wrong = Vec::new();
    for (text, overrides, expected) in &cases {
        let got = error_of(text, overrides);
        assert!(!got.contains('\n'), "not one line: {got}");
        if vague(&got) != vague(expected) {
            wrong.push(format!("{:?}\n  expected: {expected}\n  got:      {got}", overrides.iter().take(3).collect::<Vec<_>>()));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn many_fine_series_are_bounded_by_their_points_and_run() {
    // 200 series sampled every microsecond keep their default 100000 points each: the
    // sampling stops there, and the run ends.
    let series: Vec<String> =
        (0..200).map(|i| format!("series+={{ kind = \"queue\", link = \"{}\", interval = \"1us\" }}", if i % 2 == 0 { "A->R" } else { "R->B" })).collect();
    let mut o: Vec<String> = series;
    o.push("duration=10s".into());
    let started = Instant::now();
    let mut sim = load_with(BASE, "ok.toml", &o, None, None, &FOUR_GB).expect("accepted");
    sim.run();
    assert!(sim.is_finished() && sim.stalled.is_none());
    assert!(sim.series.iter().all(|s| s.truncated && s.t.len() == 100_000));
    assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
}

#[test]
fn a_run_whose_packets_outgrow_the_memory_is_stopped_naming_the_link() {
    // A 1 Gb/s UDP source into a 10 Mb/s link with a buffer that never fills: the packets
    // queued grow by about 120,000 a second. The estimate before the build bounds only the
    // structures (the packets a run will hold have no bound worth refusing on: see
    // `MemoryGuard`), so the run starts and the guard stops it once it has grown past the
    // limit, naming the link that holds the packets.
    let limits = Limits { max_memory: Some(150_000_000), max_events: None, force: false };
    let o: Vec<String> = ["flows.f.transport=udp", "flows.f.udp={ rate = \"1Gbps\" }", "links.0.queue={ limit = 1000000000 }", "duration=100s"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let started = Instant::now();
    let mut sim = load_with(BASE, "flood.toml", &o, None, None, &limits).expect("accepted");
    sim.run();
    let stall = sim.stalled.clone().expect("stopped by the memory guard");
    assert!(matches!(stall.reason, ccsim::engine::StallReason::Memory { .. }), "{stall:?}");
    assert_eq!(stall.path, "links[0]");
    let message = stall.message();
    assert!(message.starts_with("the run's memory grew by ") && message.contains("in link A->R") && message.contains("(the limit given)"), "{message}");
    assert!(sim.now.as_secs_f64() < 60.0, "stopped only at {} s", sim.now.as_secs_f64());
    assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
    // Forced, the same run is not watched.
    let forced = load_with(BASE, "flood.toml", &o, None, None, &Limits { force: true, ..limits }).expect("accepted");
    assert!(forced.memory_guard.is_none());
}

#[test]
fn pie_updates_every_tupdate_count_in_the_event_estimate() {
    // PIE's updates run lazily, one by one: with `tupdate = "1ns"` a 1e6 s run is 1e15 of
    // them, which the estimate once left out ("about 2.5e9 events").
    let pie = "links.1.queue={ discipline = \"pie\", tupdate = \"1ns\" }";
    let msg = error_of(BASE, &[pie, "duration=1e6"]);
    assert!(msg.starts_with("bad.toml: links[1].queue.tupdate: this scenario needs about 2e15 events over its 1000000 s"), "{msg}");
    // The default 15 ms adds 67 updates a second per direction: a short run stays accepted.
    let o: Vec<String> = ["links.1.queue={ discipline = \"pie\" }".to_string(), "duration=10s".into()].into();
    assert!(load_with(BASE, "ok.toml", &o, None, None, &FOUR_GB).is_ok());
}

/// Requests to stop are seen by every armed thread of the process: one such test at a time.
static STOP_TESTS: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn a_request_to_stop_ends_a_step_that_would_run_for_days() {
    use ccsim::sim::stop;
    let _one = STOP_TESTS.lock().unwrap_or_else(|e| e.into_inner());
    // The flow starts after 1e5 s of an idle PIE queue updated every nanosecond: its first
    // packet makes the queue catch up 1e14 updates in one event (days of work), so the run
    // loop alone, which looks between events, would not see the request for days.
    let o: Vec<String> =
        ["links.0.queue={ discipline = \"pie\", tupdate = \"1ns\" }", "flows.f.start=1e5", "duration=2e5"].iter().map(|s| s.to_string()).collect();
    let limits = Limits { force: true, ..FOUR_GB };
    let mut sim = load_with(BASE, "long.toml", &o, None, None, &limits).expect("accepted when forced");
    stop::arm();
    let requester = std::thread::spawn(|| {
        std::thread::sleep(Duration::from_millis(300));
        stop::request();
        Instant::now()
    });
    let reached = sim.run_slice(sim.stop_at, u64::MAX);
    let stopped = Instant::now();
    let requested = requester.join().unwrap();
    stop::disarm();
    assert!(!reached);
    assert!(stopped.duration_since(requested) < Duration::from_secs(5), "stopped {:?} after the request", stopped.duration_since(requested));
    let stall = sim.stalled.clone().expect("a cut step stops the run");
    assert_eq!(stall.reason, ccsim::engine::StallReason::Interrupted);
    assert!(stall.message().starts_with("the run was interrupted at 100000."), "{}", stall.message());
}

#[test]
fn a_request_to_stop_between_events_ends_the_slice_and_the_run_goes_on() {
    use ccsim::sim::stop;
    let _one = STOP_TESTS.lock().unwrap_or_else(|e| e.into_inner());
    let run = |interrupt: bool| {
        let o: Vec<String> = vec!["links.1.queue={ discipline = \"pie\" }".into()];
        let mut sim = load_with(BASE, "ok.toml", &o, None, None, &FOUR_GB).unwrap();
        stop::arm();
        if interrupt {
            stop::request();
            assert!(!sim.run_slice(sim.stop_at, u64::MAX), "the slice ends at the next look");
            assert!(sim.stalled.is_none() && sim.events_processed == stop::CHECK_EVENTS, "{}", sim.events_processed);
            stop::arm();
        }
        assert!(sim.run_slice(sim.stop_at, u64::MAX));
        stop::disarm();
        ccsim::report::Report::new(&mut sim).to_json()
    };
    assert_eq!(run(true), run(false), "stopping between events changes nothing");
}

#[test]
fn second_campaign_errors_name_where_they_are() {
    let deep = format!("{}=1", vec!["a"; 21_700].join("."));
    let no_duration = BASE.replace("duration = \"1s\"\n", "");
    let cases: Vec<(String, Vec<&str>, String)> = vec![
        // A key path deep enough to overflow the stack once.
        (BASE.into(), vec![&deep], format!("bad.toml: {}...: malformed key path in override", "a.".repeat(60))),
        // No field path once.
        (BASE.into(), vec!["nonsense"], "bad.toml: overrides[0]: override \"nonsense\" is not of the form key.path=value".into()),
        (BASE.into(), vec!["duration=2s", "=1"], "bad.toml: overrides[1]: malformed key path in override \"=1\": the key path is empty".into()),
        (no_duration, vec![], "bad.toml: duration: missing field `duration`".into()),
        (BASE.into(), vec!["flows.0.my key=1"], "bad.toml: flows[0].my key: unknown field `my key`".into()),
        (BASE.into(), vec!["links.0.queue.my key=1"], "bad.toml: links[0].queue.my key: unknown field `my key`".into()),
        (BASE.into(), vec!["my key=1"], "bad.toml: my key: unknown field `my key`".into()),
    ];
    for (text, overrides, expected) in &cases {
        let got = error_of(text, overrides);
        assert!(
            got.starts_with(expected.as_str()),
            "{:?}\n  expected: {expected}\n  got:      {got}",
            overrides.iter().map(|o| &o[..o.len().min(40)]).collect::<Vec<_>>()
        );
    }
}

#[test]
fn a_key_with_a_control_character_is_named_on_one_line() {
    let msg = error_of(&format!("\"a\\nb\" = 1\n{BASE}"), &[]);
    assert!(msg.starts_with("bad.toml: a\\nb: unknown field `a; b`"), "{msg}");
    let msg = error_of(BASE, &["links.0.\"x\ty\"=1"]);
    assert!(!msg.contains('\t') && !msg.contains('\n'), "{msg}");
}

#[test]
fn no_other_discipline_hides_work_per_unit_of_time() {
    // The periodic rules of the other disciplines are O(1) per packet whatever their period:
    // RED's idle decay is one power, ARED's interval and CoDel's control law are looked at
    // once per packet. After an idle day their first packets cost what any packet costs.
    for queue in [
        "{ discipline = \"red\", min_th = 5, max_th = 15 }",
        "{ discipline = \"red\", min_th = 5, max_th = 15, idle = \"ns2\" }",
        "{ discipline = \"ared\", min_th = 5, max_th = 15, interval = \"1ns\" }",
        "{ discipline = \"codel\", interval = \"1ns\", target = \"1ns\" }",
        "{ discipline = \"fq_codel\", interval = \"1ns\", target = \"1ns\" }",
        "{ discipline = \"pie\" }",
    ] {
        let o: Vec<String> = vec![format!("links.*.queue={queue}"), "flows.f.start=86400s".into(), "duration=86500s".into()];
        let mut sim = load_with(BASE, "idle.toml", &o, None, None, &FOUR_GB).unwrap_or_else(|e| panic!("{queue}: {e}"));
        let started = Instant::now();
        let stop = sim.stop_at;
        sim.run_until_at_most(stop, 100_000);
        assert!(sim.now.as_secs_f64() > 86400.0 && sim.stalled.is_none(), "{queue}");
        assert!(started.elapsed() < Duration::from_secs(10), "{queue}: {:?}", started.elapsed());
    }
}
