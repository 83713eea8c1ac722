//! Embeds `fixtures/integrity-signals/**.json` for `--selftest` (see the fixture-embed crate).

fn main() {
    fixture_embed::embed("integrity-signals");
}
