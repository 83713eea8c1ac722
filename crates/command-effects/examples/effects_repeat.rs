//! Parse, view and read the effects of stdin `n` times (the benchmark's `layer`); prints the
//! time per iteration: `target/release/examples/effects_repeat N < script` (BENCHMARKS.md).
#[path = "../benches/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::io::Read;

fn main() {
    let mut s = String::new();
    std::io::stdin()
        .read_to_string(&mut s)
        .expect("utf-8 input");
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1);
    let t = std::time::Instant::now();
    for _ in 0..n {
        black_box(common::layer(black_box(&s)));
    }
    println!("{:?} per iteration", t.elapsed() / n.max(1) as u32);
}
