//! Speed targets: a typical one-line command (parse + view) < 20 µs; 1 MiB of script < 20 ms;
//! 4 MiB < 5x the 1 MiB time; 10,000 nesting levels return the depth error quickly.
//! Every iteration builds and drops the tree (and the view), so from the second iteration on
//! a parse reuses the emptied arena of the previous one, as a long-lived caller would; the
//! first parse of a fresh process (a hook) is measured with `examples/repeat` (BENCHMARKS.md).
//! Run: `cargo bench -p shell-syntax --bench parse`.

mod common;

use common::{on_scripts, ONE_LINER};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn nested(n: usize) -> String {
    format!("{}echo x{}", "$(".repeat(n), ")".repeat(n))
}

/// Parse `src` and build its view.
fn parse_and_view(src: &str) {
    let p = shell_syntax::parse(src);
    black_box(&shell_syntax::commands(&p));
}

fn bench(c: &mut Criterion) {
    c.bench_function("one_liner_parse_and_view", |b| {
        b.iter(|| parse_and_view(black_box(ONE_LINER)))
    });

    let mut g = c.benchmark_group("script");
    g.sample_size(10);
    on_scripts(&mut g, "parse", |s| {
        black_box(shell_syntax::parse(s));
    });
    on_scripts(&mut g, "parse_and_view", parse_and_view);
    g.finish();

    let deep = nested(10_000);
    c.bench_function("nesting_10000_levels", |b| {
        b.iter(|| {
            let p = shell_syntax::parse(black_box(&deep));
            assert!(p.error.is_some());
            black_box(p)
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
