//! Time parse + view of stdin (no printing): `cargo run --release --example view_time < f`.
use std::io::Read;
fn main() {
    let mut s = String::new();
    std::io::stdin()
        .read_to_string(&mut s)
        .expect("utf-8 input");
    let parse_only = std::env::args().nth(1).as_deref() == Some("parse");
    let t = std::time::Instant::now();
    let p = shell_syntax::parse(&s);
    if parse_only {
        println!(
            "parse {:?} error {:?}",
            t.elapsed(),
            p.error.map(|e| e.kind)
        );
        return;
    }
    let t1 = t.elapsed();
    let v = shell_syntax::commands(&p);
    let t2 = t.elapsed();
    println!(
        "parse {:?} view {:?} invocations {} parse_error {:?} view_error {:?}",
        t1,
        t2 - t1,
        v.invocations.len(),
        p.error.as_ref().map(|e| &e.kind),
        v.error
    );
}
