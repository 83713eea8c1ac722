//! The benchmark inputs of shell-syntax, shared with command-effects' benchmark (which
//! includes this file by path): the one-line command and the script block repeated to 1 and
//! 4 MiB (`block.sh`, a realistic mix of script constructs).
#![allow(dead_code)]

use criterion::measurement::Measurement;
use criterion::{BenchmarkGroup, BenchmarkId, Throughput};

/// A typical one-line command of an agent.
pub const ONE_LINER: &str = r#"cd /repo && GH_REPO=o/r gh pr create --title "Fix: $(git log -1 --format=%s)" --body-file /tmp/b.md 2>&1 | tee /tmp/out || true"#;

/// `block.sh` repeated to at least `size` bytes.
pub fn script(size: usize) -> String {
    let block = include_str!("../block.sh");
    let mut s = String::with_capacity(size + block.len());
    while s.len() < size {
        s.push_str(block);
    }
    s
}

/// Times `f` on the script of 1 and of 4 MiB, as `name/1MiB` and `name/4MiB` in `g`.
pub fn on_scripts<M: Measurement>(g: &mut BenchmarkGroup<'_, M>, name: &str, f: impl Fn(&str)) {
    for mib in [1usize, 4] {
        let src = script(mib << 20);
        g.throughput(Throughput::Bytes(src.len() as u64));
        g.bench_with_input(BenchmarkId::new(name, format!("{mib}MiB")), &src, |b, s| {
            b.iter(|| f(s))
        });
    }
}
