//! Embeds `fixtures/gh-write-guard/**.json` for `--selftest` (see the fixture-embed crate).

fn main() {
    fixture_embed::embed("gh-write-guard");
}
