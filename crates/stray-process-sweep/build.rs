//! Embeds `fixtures/stray-process-sweep/**.json` for `--selftest`, and the sub-code constants from
//! `spec/stray-process-sweep.md`'s code table (see the fixture-embed crate).

fn main() {
    fixture_embed::embed(env!("CARGO_PKG_NAME"));
    fixture_embed::code_table(env!("CARGO_PKG_NAME"));
}
