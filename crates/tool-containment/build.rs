//! Embeds `fixtures/tool-containment/**.json` for `--selftest` (see the fixture-embed crate).

fn main() {
    fixture_embed::embed(env!("CARGO_PKG_NAME"));
}
