use super::*;
use crate::golden::Golden;

fn golden(path: &str) -> Golden {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../expected/linux-7.3/arm64").join(path);
    Golden::parse(&std::fs::read_to_string(p).unwrap()).unwrap()
}

#[test]
fn debug_one() {
    let g = golden("subprogs/call_depth_max.txt");
    let prog = JitProgram::from_xlated_dump(&g.xlated_insns, &[], 0);
    for f in &prog.funcs { eprintln!("func start {} len {}", f.start, f.insns.len()); }
    let r = bpf_int_jit_compile(&prog, &Arm64Profile::default()).unwrap();
    for l in crate::jit_disasm::test_loader_text(Arch::Arm64, &r).iter().take(40) { eprintln!("{l}"); }
}
