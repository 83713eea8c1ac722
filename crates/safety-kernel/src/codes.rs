//! The shape every binary's sub-code table shares: the [`codes!`](crate::codes!) macro declares a
//! binary's code constants, the list of them and the check that its spec lists each once, so a
//! table is only its codes and what fires each.

/// Declares a binary's sub-codes (`<requirement>.<what fired>`): one `pub const` per code, `ALL`
/// (every code, once, in order), `requirement` (the requirement a code belongs to) and a test that
/// the spec's code table lists each code exactly once
/// ([`code_table_problems`](crate::feedback::code_table_problems)).
///
/// ```ignore
/// safety_kernel::codes! {
///     spec: "../../../spec/model-tier-guard.md";
///     /// M2: the Agent call's own `model` is on the maintainer-only tier.
///     M2_CALL_MODEL = "M2.call-model";
/// }
/// ```
///
/// `spec` is read with `include_str!`, relative to the file that invokes the macro.
#[macro_export]
macro_rules! codes {
    (spec: $spec:literal; $( $(#[$meta:meta])* $name:ident = $code:literal; )+) => {
        $( $(#[$meta])* pub const $name: &str = $code; )+

        /// Every code, once.
        pub const ALL: &[&str] = &[ $($name),+ ];

        /// The requirement a code belongs to.
        pub fn requirement(code: &'static str) -> &'static str {
            $crate::feedback::code_requirement(code)
        }

        #[cfg(test)]
        mod code_table {
            #[test]
            fn the_spec_lists_each_code_once() {
                let spec = include_str!($spec);
                let problems = $crate::feedback::code_table_problems(spec, super::ALL);
                assert!(problems.is_empty(), "{problems:?}");
            }
        }
    };
}

#[cfg(test)]
mod tests {
    mod table {
        crate::codes! {
            spec: "codes.rs";
            /// A code this file names in a row: | `X1.one` | (and once only).
            X1_ONE = "X1.one";
        }
    }

    #[test]
    fn the_macro_declares_constants_list_and_requirement() {
        assert_eq!(table::X1_ONE, "X1.one");
        assert_eq!(table::ALL, &["X1.one"]);
        assert_eq!(table::requirement(table::X1_ONE), "X1");
    }
}
