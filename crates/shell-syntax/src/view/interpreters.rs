//! The interpreters that run code given on their command line, and the options that give it:
//! one table for every reader (the view's nested scripts, integrity-signals' paths and inline
//! scripts, durable memory, model-tier-guard's written files, the test-run heuristics). Shells
//! are [`super::is_shell`]'s.

/// One interpreter: its program names and the options whose next word is code it runs.
#[derive(Debug)]
pub struct Interpreter {
    /// Program names (normalised, see [`super::normalise_program`]).
    pub names: &'static [&'static str],
    /// `python3 -c CODE`, `perl -e CODE`, `php -r CODE`, `node --eval CODE`, `deno eval CODE`.
    pub code_options: &'static [&'static str],
}

/// Every interpreter the suite reads code of.
pub const INTERPRETERS: &[Interpreter] = &[
    Interpreter {
        names: &["python", "python2", "python3", "pypy", "pypy3"],
        code_options: &["-c"],
    },
    Interpreter {
        names: &["node", "nodejs", "bun", "deno"],
        code_options: &["-e", "--eval", "-p", "--print", "eval"],
    },
    Interpreter {
        names: &["perl"],
        code_options: &["-e", "-E"],
    },
    Interpreter {
        names: &["ruby"],
        code_options: &["-e"],
    },
    Interpreter {
        names: &["php"],
        code_options: &["-r"],
    },
    Interpreter {
        names: &["lua"],
        code_options: &["-e"],
    },
    Interpreter {
        names: &["rscript"],
        code_options: &["-e"],
    },
];

/// The interpreter `name` (normalised) is, if any.
pub fn interpreter(name: &str) -> Option<&'static Interpreter> {
    INTERPRETERS.iter().find(|i| i.names.contains(&name))
}

/// Whether `name` (normalised) is an interpreter of [`INTERPRETERS`].
pub fn is_interpreter(name: &str) -> bool {
    interpreter(name).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_in_one_row() {
        let mut seen = std::collections::HashSet::new();
        for i in INTERPRETERS {
            assert!(!i.code_options.is_empty());
            for n in i.names {
                assert!(seen.insert(*n), "{n} twice");
                assert!(!super::super::is_shell(n), "{n} is a shell");
            }
        }
        assert_eq!(
            interpreter("python3").map(|i| i.code_options),
            Some(&["-c"][..])
        );
        assert!(is_interpreter("deno") && !is_interpreter("bash") && !is_interpreter("cat"));
    }
}
