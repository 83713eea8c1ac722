//! Parse, view and read the effects of stdin `n` times; prints the time per iteration:
//! `target/release/examples/effects_repeat N < script` (figures in the README).
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
        let p = shell_syntax::parse(black_box(&s));
        let v = shell_syntax::commands(&p);
        let arena = bumpalo::Bump::new();
        let mut k = 0;
        for run in command_effects::program::runs(&v, &arena) {
            if let Some(inv) = v.invocations.get(run.invocation) {
                k += command_effects::effects_of(&run, inv).len();
            }
        }
        black_box(k);
    }
    println!("{:?} per iteration", t.elapsed() / n.max(1) as u32);
}
