//! What the benchmark and `examples/effects_repeat` time: the whole layer over one text.

/// Parse, view, resolve every run and read its effects; the number of effects.
pub fn layer(src: &str) -> usize {
    let p = shell_syntax::parse(src);
    let v = shell_syntax::commands(&p);
    let arena = bumpalo::Bump::new();
    let mut n = 0;
    for run in command_effects::program::runs(&v, &arena) {
        if let Some(inv) = v.invocations.get(run.invocation) {
            n += command_effects::effects_of(&run, inv).len();
        }
    }
    n
}
