//! The command-line surface every binary shares besides its hook mode: `--help`/`-h` prints the
//! usage text, `--version`/`-V` prints `<name> <version>` (both exit 0), and a usage error goes to
//! stderr with exit 2. One place, so the binaries cannot drift apart in these answers.

/// A binary's name, version and usage text.
#[derive(Clone, Copy, Debug)]
pub struct Cli {
    /// The binary's name, as installed.
    pub name: &'static str,
    /// The binary crate's `env!("CARGO_PKG_VERSION")`.
    pub version: &'static str,
    /// The `--help` text.
    pub help: &'static str,
}

/// Exit code of a usage error.
pub const USAGE_EXIT: i32 = 2;

impl Cli {
    /// `version` is the binary crate's `env!("CARGO_PKG_VERSION")`.
    pub const fn new(name: &'static str, version: &'static str, help: &'static str) -> Cli {
        Cli {
            name,
            version,
            help,
        }
    }

    /// Runs a binary whose mode is its first argument and exits with the mode's code. `dispatch`
    /// gets the first argument (`None`: no arguments) and the rest, and answers `None` for a first
    /// argument it does not take; that one is answered as `--help`/`--version` or a usage error.
    pub fn main(&self, dispatch: impl FnOnce(Option<&str>, &[String]) -> Option<i32>) -> ! {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let first = args.first().map(String::as_str);
        let code = dispatch(first, args.get(1..).unwrap_or_default())
            .unwrap_or_else(|| self.other_argument(first.unwrap_or_default()));
        std::process::exit(code)
    }

    /// Answers `--help`/`-h` and `--version`/`-V` on stdout with exit code 0; `None` for any
    /// other argument.
    pub fn help_or_version(&self, arg: &str) -> Option<i32> {
        match arg {
            "--help" | "-h" => Some(self.print_help()),
            "--version" | "-V" => Some(self.print_version()),
            _ => None,
        }
    }

    /// Prints the usage text on stdout; returns exit code 0.
    pub fn print_help(&self) -> i32 {
        println!("{}", self.help);
        0
    }

    /// Prints `<name> <version>` on stdout; returns exit code 0.
    pub fn print_version(&self) -> i32 {
        println!("{}", self.version_line());
        0
    }

    /// An argument no mode of the binary takes: `--help`/`--version` are answered, anything else
    /// is a usage error naming it.
    pub fn other_argument(&self, arg: &str) -> i32 {
        self.help_or_version(arg)
            .unwrap_or_else(|| self.usage_error(&format!("unknown argument {arg:?}")))
    }

    /// Prints `<name>: <message> (see <name> --help)` on stderr; returns the usage exit code.
    pub fn usage_error(&self, message: &str) -> i32 {
        eprintln!("{}", self.usage_error_line(message));
        USAGE_EXIT
    }

    /// Prints `<name>: <message>`, a blank line and the usage text on stderr; returns the usage
    /// exit code.
    pub fn usage_error_with_help(&self, message: &str) -> i32 {
        eprintln!("{}: {message}\n\n{}", self.name, self.help);
        USAGE_EXIT
    }

    fn version_line(&self) -> String {
        format!("{} {}", self.name, self.version)
    }

    fn usage_error_line(&self, message: &str) -> String {
        format!("{0}: {message} (see {0} --help)", self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLI: Cli = Cli {
        name: "some-guard",
        version: "1.2.3",
        help: "some-guard: usage",
    };

    #[test]
    fn help_and_version_exit_zero_and_nothing_else_is_taken() {
        assert_eq!(CLI.help_or_version("--help"), Some(0));
        assert_eq!(CLI.help_or_version("-h"), Some(0));
        assert_eq!(CLI.help_or_version("--version"), Some(0));
        assert_eq!(CLI.help_or_version("-V"), Some(0));
        assert_eq!(CLI.help_or_version("--helpx"), None);
        assert_eq!(CLI.help_or_version("help"), None);
        assert_eq!(CLI.other_argument("-V"), 0);
        assert_eq!(CLI.other_argument("--bogus"), USAGE_EXIT);
        assert_eq!(CLI.usage_error_with_help("x"), USAGE_EXIT);
    }

    #[test]
    fn the_lines_name_the_binary() {
        assert_eq!(CLI.version_line(), "some-guard 1.2.3");
        assert_eq!(
            CLI.usage_error_line("unknown argument \"--bogus\""),
            "some-guard: unknown argument \"--bogus\" (see some-guard --help)"
        );
    }
}
