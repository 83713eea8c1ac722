//! Parse (and view) stdin `n` times, for instruction counts under callgrind:
//! `valgrind --tool=callgrind target/release/examples/repeat 1000 [parse] < one-liner.sh`.
use std::hint::black_box;
use std::io::Read;

fn main() {
    let mut s = String::new();
    std::io::stdin()
        .read_to_string(&mut s)
        .expect("utf-8 input");
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let parse_only = args.next().as_deref() == Some("parse");
    let t = std::time::Instant::now();
    for _ in 0..n {
        let p = shell_syntax::parse(black_box(&s));
        if !parse_only {
            black_box(shell_syntax::commands(&p));
        }
        black_box(p);
    }
    println!("{:?} per iteration", t.elapsed() / n.max(1) as u32);
}
