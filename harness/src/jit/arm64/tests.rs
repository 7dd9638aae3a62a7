use super::*;
use crate::golden::Golden;

fn golden(path: &str) -> Golden {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../expected/linux-7.3/arm64").join(path);
    Golden::parse(&std::fs::read_to_string(p).unwrap()).unwrap()
}

#[test]
fn debug_one() {
    let g = golden("bpf_loop/loop_counts_to_ten.txt");
    let prog = JitProgram::from_xlated_dump(&g.xlated_insns, &[32, 0], 0);
    for f in &prog.funcs { eprintln!("func start {} len {}", f.start, f.insns.len()); }
    let r = bpf_int_jit_compile(&prog, &Arm64Profile::default());
    eprintln!("{:?}", r.as_ref().err());
}
