//! Time parse + view of stdin (no printing): `cargo run --release --example view_time < f`.
use std::io::Read;
fn main() {
    let mut s = String::new();
    std::io::stdin()
        .read_to_string(&mut s)
        .expect("utf-8 input");
    let t = std::time::Instant::now();
    let p = shell_syntax::parse(&s);
    let t1 = t.elapsed();
    let v = shell_syntax::commands(&p);
    let t2 = t.elapsed();
    println!(
        "parse {:?} view {:?} invocations {} parse_error {:?} view_error {:?}",
        t1,
        t2 - t1,
        v.invocations.len(),
        p.error.map(|e| e.kind),
        v.error
    );
}
