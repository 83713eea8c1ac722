//! Embeds `fixtures/model-tier-guard/**.json` for `--selftest` (see the fixture-embed crate).

fn main() {
    fixture_embed::embed("model-tier-guard");
}
