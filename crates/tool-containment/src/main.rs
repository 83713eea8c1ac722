//! tool-containment: `CLAUDE_CODE_SHELL_PREFIX` wrapper (one argument) and SessionEnd hook (none).

use tool_containment::c1_invocation::{parse_args, Mode};
use tool_containment::modes;
use tool_containment::no_cgroups::{self, CONTAINMENT_HERE};

const HELP: &str = "\
tool-containment — bound every agent command (task and memory ceilings), stop leftovers at session end

USAGE:
  tool-containment '<script>'   prefix mode (CLAUDE_CODE_SHELL_PREFIX): run the script with the
                                CLI's shell, inside a per-command cgroup when it is an agent command
  tool-containment              SessionEnd hook: read the payload on stdin, stop and report
  tool-containment --report     which backend this host offers, and why not when none
  tool-containment --exec-gate-service
                                a system install's exec-gate service (as root, or from its unit)
  tool-containment --selftest   replay the embedded fixtures, print a JSON record
  tool-containment --help | --version

Ceilings: AGENT_CONTAINMENT_TASKS_MAX / AGENT_CONTAINMENT_MEMORY_MAX, or tasks_max / memory_max in
~/.config/agent-guards/config.toml (defaults 4096 tasks, 25% of RAM).
Linux only: elsewhere the prefix runs the command unchanged and --report says why.";

const CLI: hook_io::Cli = hook_io::Cli::new("tool-containment", env!("CARGO_PKG_VERSION"), HELP);

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let code = match parse_args(&args) {
        Mode::Prefix(script) if CONTAINMENT_HERE => modes::run_prefix(&script),
        Mode::Prefix(script) => no_cgroups::run_prefix(&script),
        Mode::SessionEnd if CONTAINMENT_HERE => modes::run_session_end(),
        Mode::SessionEnd => no_cgroups::run_session_end(),
        Mode::Report if CONTAINMENT_HERE => modes::run_report(),
        Mode::Report => {
            println!("{}", no_cgroups::report());
            0
        }
        Mode::RunFromEnv => modes::run_from_env(),
        Mode::ExecGateService => tool_containment::c10_second_line::exec_gate_service(),
        Mode::Selftest => hook_replay::print_selftest(tool_containment::selftest::run()),
        Mode::Help => CLI.print_help(),
        Mode::Version => CLI.print_version(),
        Mode::Usage(why) => CLI.usage_error_with_help(&why),
    };
    std::process::exit(code);
}
