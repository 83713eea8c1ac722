//! Embeds `fixtures/model-tier-guard/**.json` for `--selftest`, and the sub-code constants from
//! `spec/model-tier-guard.md`'s code table (see the fixture-embed crate).

fn main() {
    fixture_embed::embed("model-tier-guard");
    fixture_embed::code_table("model-tier-guard");
}
