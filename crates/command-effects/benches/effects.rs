//! Speed targets of issue 16: a one-line command through the layer (parse + view + runs +
//! effects) < 20 µs; 1 MiB of script < 60 ms, linear to 4 MiB; 50,000 assignments < 50 ms.
//! Run: `cargo bench -p command-effects --bench effects`. Inputs are the shell-syntax bench's
//! (`ONE_LINER`, its script block repeated) plus 50,000 `aN=vN` lines.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

const ONE_LINER: &str = r#"cd /repo && GH_REPO=o/r gh pr create --title "Fix: $(git log -1 --format=%s)" --body-file /tmp/b.md 2>&1 | tee /tmp/out || true"#;

/// The shell-syntax bench's block, repeated to `size` bytes.
fn script(size: usize) -> String {
    let block = include_str!("block.sh");
    let mut s = String::with_capacity(size + block.len());
    while s.len() < size {
        s.push_str(block);
    }
    s
}

fn assignments(n: usize) -> String {
    (0..n).map(|i| format!("a{i}=v{i}\n")).collect()
}

/// Parse, view, resolve every run and read its effects.
fn layer(src: &str) -> usize {
    let p = shell_syntax::parse(src);
    let v = shell_syntax::commands(&p);
    let arena = bumpalo::Bump::new();
    let mut n = 0;
    for run in command_effects::program::runs(&v, &arena) {
        if let Some(inv) = v.invocations.get(run.invocation) {
            n += command_effects::effects_of(&run, inv).len();
        }
    }
    n
}

fn bench(c: &mut Criterion) {
    c.bench_function("one_liner_layer", |b| {
        b.iter(|| black_box(layer(black_box(ONE_LINER))))
    });
    let mut g = c.benchmark_group("script_layer");
    g.sample_size(10);
    for mib in [1usize, 4] {
        let src = script(mib << 20);
        g.throughput(Throughput::Bytes(src.len() as u64));
        g.bench_with_input(
            BenchmarkId::new("parse_view_effects", format!("{mib}MiB")),
            &src,
            |b, s| b.iter(|| black_box(layer(s))),
        );
    }
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
