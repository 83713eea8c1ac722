//! Embeds `fixtures/tool-containment/**.json` for `--selftest`, and the sub-code constants from
//! `spec/tool-containment.md`'s code table (see the fixture-embed crate).

fn main() {
    fixture_embed::embed(env!("CARGO_PKG_NAME"));
    fixture_embed::code_table(env!("CARGO_PKG_NAME"));
}
