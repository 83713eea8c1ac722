//! Embeds `fixtures/egress-audit/**.json` for `--selftest` (see the fixture-embed crate).

fn main() {
    fixture_embed::embed("egress-audit");
}
