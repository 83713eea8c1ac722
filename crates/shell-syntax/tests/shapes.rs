//! Snapshot of the tree and command view for every shape in `corpus/shapes.sh`.

mod common;

use shell_syntax::printer::{print_parsed, print_view};

#[test]
fn shapes_snapshots() {
    let shapes = common::shapes();
    assert!(shapes.len() >= 300, "corpus has {} shapes", shapes.len());
    for (name, src) in shapes {
        let parsed = shell_syntax::parse(&src);
        let view = shell_syntax::commands(&parsed);
        let out = format!(
            "--- source\n{src}\n--- tree\n{}--- view\n{}",
            print_parsed(&parsed),
            print_view(&view)
        );
        insta::with_settings!({ snapshot_path => "snapshots/shapes", prepend_module_to_snapshot => false, omit_expression => true }, {
            insta::assert_snapshot!(name, out);
        });
    }
}
