//! stray-process-sweep: SessionEnd (sweep and report) and SessionStart (repeat an unread report).

const HELP: &str = "\
stray-process-sweep — report processes that outlived a Claude Code session; never kills

USAGE:
  stray-process-sweep              hook mode: a SessionEnd or SessionStart payload on stdin
  stray-process-sweep --selftest   replay the embedded fixtures, print a JSON record
  stray-process-sweep --help | --version

SessionEnd: report to stderr with exit 2, JSON copy under $XDG_STATE_HOME/agent-guards/.
SessionStart: an unread report of the same project is shown once as systemMessage.
Linux only (/proc): elsewhere SessionEnd reports that it cannot see processes.";

const CLI: hook_io::Cli = hook_io::Cli::new("stray-process-sweep", env!("CARGO_PKG_VERSION"), HELP);

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] => stray_process_sweep::hook::run(),
        ["--selftest"] => std::process::exit(hook_replay::print_selftest(
            stray_process_sweep::selftest::run(),
        )),
        other => {
            let answered = match other {
                [flag] => CLI.help_or_version(flag),
                _ => None,
            };
            let code =
                answered.unwrap_or_else(|| CLI.usage_error_with_help("unexpected arguments"));
            std::process::exit(code);
        }
    }
}
