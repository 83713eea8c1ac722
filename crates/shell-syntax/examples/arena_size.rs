//! The arena a parse of stdin fills, for the memory figures in the crate README:
//! `target/release/examples/arena_size < script.sh`.
use std::io::Read;

fn main() {
    let mut s = String::new();
    std::io::stdin()
        .read_to_string(&mut s)
        .expect("utf-8 input");
    let p = shell_syntax::parse(&s);
    println!(
        "script {} bytes; arena after parse {} bytes ({:.1} per script byte)",
        s.len(),
        p.arena_used(),
        p.arena_used() as f64 / s.len().max(1) as f64
    );
    let v = shell_syntax::commands(&p);
    println!(
        "arena after view {} bytes; {} invocations",
        p.arena_used(),
        v.invocations.len()
    );
}
