//! Fuzz the parser and the command view: any input must return (tree + error, view) without
//! panicking, hanging or overflowing the stack, and the printer must render the result.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = shell_syntax::parse(src);
    if let Some(e) = &parsed.error {
        assert!(e.pos <= src.len() + 1, "error position out of range");
        assert!(e.unparsed_from <= src.len());
    }
    let view = shell_syntax::commands(&parsed);
    let _ = shell_syntax::printer::print_parsed(&parsed);
    let _ = shell_syntax::printer::print_view(&view);
    for inv in &view.invocations {
        for a in &inv.args {
            let _ = a.word.static_value();
        }
    }
});
