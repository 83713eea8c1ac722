//! The sub-code constants from `spec/second-line.md`'s code table (see the fixture-embed crate).

fn main() {
    fixture_embed::code_table(env!("CARGO_PKG_NAME"));
}
