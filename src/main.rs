//! `agent-guards`: the admin binary behind `install.sh` (install, uninstall, report).
//! The installer issue completes it; for now it prints its usage.

fn main() {
    eprintln!("agent-guards: the installer is driven by install.sh; see README.md");
    std::process::exit(2);
}
