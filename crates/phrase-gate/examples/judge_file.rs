//! Builds the shipped gate and judges one file's text once: what the hook does per stop, without
//! the hook's process around it. For counting instructions by part
//! (`valgrind --tool=callgrind target/release/examples/judge_file MESSAGE.txt`).

fn main() {
    let path = std::env::args().nth(1).expect("usage: judge_file FILE");
    let text = std::fs::read_to_string(path).expect("a readable UTF-8 file");
    let gate = phrase_gate::EgressGate::baseline();
    let record = gate.evaluate(&text);
    println!("{} {}", record.status.as_str(), record.violation_count);
}
