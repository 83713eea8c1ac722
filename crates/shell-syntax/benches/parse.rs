//! Speed targets: a typical one-line command (parse + view) < 20 µs; 1 MiB of script < 20 ms;
//! 4 MiB < 5x the 1 MiB time; 10,000 nesting levels return the depth error quickly.
//! Every iteration builds and drops the tree (and the view), so from the second iteration on
//! a parse reuses the emptied arena of the previous one, as a long-lived caller would; the
//! first parse of a fresh process (a hook) is measured with `examples/repeat` (README).
//! Run: `cargo bench -p shell-syntax --bench parse`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

const ONE_LINER: &str = r#"cd /repo && GH_REPO=o/r gh pr create --title "Fix: $(git log -1 --format=%s)" --body-file /tmp/b.md 2>&1 | tee /tmp/out || true"#;

/// A realistic mix of script constructs, repeated to `size` bytes.
fn script(size: usize) -> String {
    let block = r#"#!/usr/bin/env bash
set -euo pipefail
deploy() {
  local target="${1:-staging}"
  for host in $(cat hosts.txt); do
    ssh "$host" "sudo systemctl restart app" || echo "failed: $host" >&2
  done
}
while read -r line; do
  case "$line" in
    *.rs|*.toml) cargo fmt -- "$line" ;;
    \#*) continue ;;
    *) echo "skip ${line##*/}" ;;
  esac
done < files.txt
if [[ -n ${CI:-} && $count -lt 10 ]]; then
  timeout 600 bash -c 'until gh pr checks; do sleep 30; done'
fi
cat <<REPORT > /tmp/report.md
Build $(date +%F) on $(hostname): ${#items[@]} items
REPORT
git log --oneline | head -n 5 | awk '{print $1}' | xargs -I{} git show --stat {}
export PATH="$HOME/.local/bin:$PATH"; arr=(a b "c d"); echo $(( ${#arr[@]} * 2 ))
"#;
    let mut s = String::with_capacity(size + block.len());
    while s.len() < size {
        s.push_str(block);
    }
    s
}

fn nested(n: usize) -> String {
    format!("{}echo x{}", "$(".repeat(n), ")".repeat(n))
}

fn bench(c: &mut Criterion) {
    c.bench_function("one_liner_parse_and_view", |b| {
        b.iter(|| {
            let p = shell_syntax::parse(black_box(ONE_LINER));
            black_box(&shell_syntax::commands(&p));
        })
    });

    let mut g = c.benchmark_group("script");
    g.sample_size(10);
    for mib in [1usize, 4] {
        let src = script(mib << 20);
        g.throughput(Throughput::Bytes(src.len() as u64));
        g.bench_with_input(
            BenchmarkId::new("parse", format!("{mib}MiB")),
            &src,
            |b, s| b.iter(|| black_box(shell_syntax::parse(s))),
        );
        g.bench_with_input(
            BenchmarkId::new("parse_and_view", format!("{mib}MiB")),
            &src,
            |b, s| {
                b.iter(|| {
                    let p = shell_syntax::parse(s);
                    black_box(&shell_syntax::commands(&p));
                })
            },
        );
    }
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
