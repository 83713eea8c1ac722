//! Embeds `fixtures/egress-audit/**.json` for `--selftest`, and the sub-code constants from
//! `spec/egress-audit.md`'s code table (see the fixture-embed crate).

fn main() {
    fixture_embed::embed("egress-audit");
    fixture_embed::code_table("egress-audit");
}
