//! The gate over 1 MiB of text (target: under 5 ms). `cargo bench -p egress-audit --bench gate`

use phrase_gate::EgressGate;
use std::time::Instant;

fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut v: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn text_of(sentence: &str) -> String {
    let mut text = String::new();
    while text.len() < 1024 * 1024 {
        text.push_str(sentence);
    }
    text.push_str("You can run make smoke.");
    text
}

fn main() {
    let build = median_ms(50, || {
        std::hint::black_box(EgressGate::baseline());
    });
    println!("gate construction: median {build:.3} ms");
    let gate = EgressGate::baseline();
    let ascii =
        text_of("The build finished and the report lists every changed file with its size. ");
    let unicode =
        text_of("The build finished and the report\u{2019}s list names every changed file. ");
    for (name, t) in [("ascii 1 MiB", &ascii), ("unicode 1 MiB", &unicode)] {
        let whole = median_ms(50, || {
            std::hint::black_box(gate.evaluate(t));
        });
        let norm = median_ms(50, || {
            std::hint::black_box(phrase_gate::normalise(t));
        });
        println!("gate {name}: median {whole:.3} ms (normalise alone {norm:.3} ms) over 50 runs");
    }
}
