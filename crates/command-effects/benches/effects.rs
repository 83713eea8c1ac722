//! Speed targets of issue 16: a one-line command through the layer (parse + view + runs +
//! effects) < 20 µs; 1 MiB of script < 60 ms, linear to 4 MiB; 50,000 assignments < 50 ms.
//! Run: `cargo bench -p command-effects --bench effects`. Inputs are the shell-syntax bench's
//! (its one-liner, its script block repeated) plus 50,000 `aN=vN` lines; and the scripts a
//! command writes then runs (`scripts_run` over 2,000 `echo ... > fN.sh; bash fN.sh` pairs:
//! one pass, so it must stay linear).

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
    let written: String = (0..2000)
        .map(|i| format!("echo 'echo hi' > f{i}.sh; bash f{i}.sh\n"))
        .collect();
    g.bench_with_input(
        BenchmarkId::new("scripts_run", "2000_written_then_run"),
        &written,
        |b, s| b.iter(|| black_box(scripts_run_in_tmp(s))),
    );
    g.finish();
}

/// `scripts_run` from `/p` on a disk that holds nothing (every script is one the command wrote).
fn scripts_run_in_tmp(text: &str) -> usize {
    use command_effects::dirs::DirCx;
    use command_effects::scripts::{scripts_run, Reading};
    use std::path::Path;
    let cx = DirCx {
        home: None,
        cdpath: None,
        is_dir: &|_: &Path| false,
    };
    let at = Reading {
        base: Path::new("/p"),
        dirs: &cx,
        read: &|_: &Path| None,
        written: &[],
    };
    scripts_run(text, &at).len()
}

criterion_group!(benches, bench);
criterion_main!(benches);
