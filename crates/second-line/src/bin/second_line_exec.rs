//! `second-line-exec PROGRAM [ARGS...]`: the prefix's second-line steps, then exec the program.
//! The same code path `tool-containment` runs for an agent command, without the cgroup; used by
//! the crate's tests and benchmarks and for diagnosing a host (`--report`).

#[cfg(target_os = "linux")]
fn main() {
    use std::os::unix::process::CommandExt;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let env = |k: &str| std::env::var(k).ok();
    if args.first().map(String::as_str) == Some("--report") {
        for l in second_line::layers::report_lines(&second_line::layers::report(&env)) {
            println!("{l}");
        }
        return;
    }
    if args.first().map(String::as_str) == Some("--exec-gate-service") {
        std::process::exit(second_line::service::serve_until_failure(
            "second-line-exec",
        ));
    }
    let Some((program, rest)) = args.split_first() else {
        eprintln!("usage: second-line-exec PROGRAM [ARGS...] | --report | --exec-gate-service");
        std::process::exit(2);
    };
    let entered = second_line::enter::enter_agent_command(&env);
    for n in &entered.notices {
        eprintln!("{n}");
    }
    if let Some(why) = &entered.refused {
        eprintln!("{why}");
        std::process::exit(126);
    }
    let err = std::process::Command::new(program).args(rest).exec();
    eprintln!("second-line-exec: {program}: {err}");
    std::process::exit(127);
}

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("second-line-exec: Linux only");
    std::process::exit(2);
}
