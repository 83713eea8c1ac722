//! Embeds `fixtures/<package name>/**.json` for `--selftest` (see the fixture-embed crate). Shared
//! by tool-containment and stray-process-sweep (the latter points its `build` key here).

fn main() {
    let name = std::env::var("CARGO_PKG_NAME").expect("cargo sets it");
    fixture_embed::embed(&name);
}
