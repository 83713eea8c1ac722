//! Speed targets of issue 16: a one-line command through the layer (parse + view + runs +
//! effects) < 20 µs; 1 MiB of script < 60 ms, linear to 4 MiB; 50,000 assignments < 50 ms.
//! Run: `cargo bench -p command-effects --bench effects`. Inputs are the shell-syntax bench's
//! (its one-liner, its script block repeated) plus 50,000 `aN=vN` lines.

mod common;
#[path = "../../shell-syntax/benches/common/mod.rs"]
mod inputs;

use common::layer;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;

fn assignments(n: usize) -> String {
    (0..n).map(|i| format!("a{i}=v{i}\n")).collect()
}

fn bench(c: &mut Criterion) {
    c.bench_function("one_liner_layer", |b| {
        b.iter(|| black_box(layer(black_box(inputs::ONE_LINER))))
    });
    let mut g = c.benchmark_group("script_layer");
    g.sample_size(10);
    inputs::on_scripts(&mut g, "parse_view_effects", |s| {
        black_box(layer(s));
    });
    let src = assignments(50_000);
    g.bench_with_input(
        BenchmarkId::new("parse_view_effects", "50k_assignments"),
        &src,
        |b, s| b.iter(|| black_box(layer(s))),
    );
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
