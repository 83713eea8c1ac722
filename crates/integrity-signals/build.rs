//! Embeds `fixtures/integrity-signals/**.json` for `--selftest`, and the sub-code constants from
//! `spec/integrity-signals.md`'s code table (see the fixture-embed crate).

fn main() {
    fixture_embed::embed("integrity-signals");
    fixture_embed::code_table("integrity-signals");
}
