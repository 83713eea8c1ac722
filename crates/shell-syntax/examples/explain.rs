//! Print the syntax tree and the command view of a script given as the first argument (or on
//! stdin): `cargo run -p shell-syntax --example explain -- 'git push || true'`.

use std::io::Read;

fn main() {
    let src = match std::env::args().nth(1) {
        Some(s) => s,
        None => {
            let mut s = String::new();
            if std::io::stdin()
                .take(16 << 20)
                .read_to_string(&mut s)
                .is_err()
            {
                eprintln!("stdin is not UTF-8");
                std::process::exit(2);
            }
            s
        }
    };
    let parsed = shell_syntax::parse(&src);
    print!("{}", shell_syntax::printer::print_parsed(&parsed));
    println!("--- view");
    print!(
        "{}",
        shell_syntax::printer::print_view(&shell_syntax::commands(&parsed))
    );
}
