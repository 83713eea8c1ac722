//! The gate over 1 MiB of text (target: under 5 ms). `cargo bench -p egress-audit --bench gate`

use phrase_gate::EgressGate;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let gate = EgressGate::baseline();
    let sentence = "The build finished and the report lists every changed file with its size. ";
    let mut text = String::new();
    while text.len() < 1024 * 1024 {
        text.push_str(sentence);
    }
    text.push_str("You can run make smoke.");
    let mut mixed = text.replace("report", "Report\u{2019}s");
    mixed.truncate(1024 * 1024);
    for (name, t) in [("ascii 1 MiB", &text), ("unicode 1 MiB", &mixed)] {
        let mut samples = Vec::new();
        for _ in 0..50 {
            let start = Instant::now();
            let r = gate.evaluate(t);
            samples.push(start.elapsed().as_secs_f64() * 1000.0);
            std::hint::black_box(r);
        }
        println!(
            "gate {name}: median {:.3} ms over {} runs",
            median(samples),
            50
        );
    }
}
