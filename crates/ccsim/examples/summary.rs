//! Runs a scenario file and prints the summary JSON: `cargo run --example summary FILE [key=value]...`.
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: summary FILE [key.path=value]...");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("error: {path}: {e}");
        std::process::exit(2)
    });
    let mut sim = ccsim::scenario::load(&text, path, &args[1..], None).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let t = std::time::Instant::now();
    sim.run();
    let r = ccsim::report::Report::new(&mut sim);
    eprintln!("{} events in {:.3} s", r.events_processed, t.elapsed().as_secs_f64());
    println!("{}", r.to_json());
}
