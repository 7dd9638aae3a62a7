//! `bpf-selftest xlated FILE.s`: the program's xlated dump as a block of
//! attributes to paste above a test (`#[arch(..)]` then one
//! `#[xlated("N: text")]` per insn), for the target arch.

use bpf_isa::Insn;
use bpf_isa::op::{BPF_PSEUDO_MAP_FD, BPF_PSEUDO_MAP_VALUE};

use super::check::{CheckArgs, request};
use crate::backend::{self, LoadOutcome};

pub fn run(a: &CheckArgs) -> Result<(), String> {
    let src = super::read_asm_input(&a.file)?;
    let req = request(a, &src)?;
    let be = backend::by_name(&a.backend)?;
    let out = super::check::load(&*be, &req)?;
    if !out.accepted {
        return Err(format!("{}: rejected: {}", req.name, super::check::rejection(&req, &out)));
    }
    print!("{}", attribute_block(req.arch.name(), &out));
    Ok(())
}

/// `#[arch(A)]` and the dump as `#[xlated]` lines. Lines whose text
/// differs from load to load on a real kernel (a map's id or address,
/// `BPF_F_TEST_RND_HI32` poison) match anything after the `=`.
pub fn attribute_block(arch: &str, out: &LoadOutcome) -> String {
    let varying = varying_lines(&out.xlated_insns);
    let mut s = format!("#[arch({arch})]\n");
    for line in &out.xlated {
        let idx = line.split_once(": ").and_then(|(n, _)| n.parse::<usize>().ok());
        let text = match (idx, line.split_once(" = ")) {
            (Some(i), Some((lhs, _))) if varying.contains(&i) => format!("{lhs} = {{{{.*}}}}"),
            _ => line.clone(),
        };
        s.push_str(&format!("#[xlated({text:?})]\n"));
    }
    s
}

/// Indexes of `ld_imm64` of a map or map value, and of the random
/// immediate of `r12 = imm; r12 <<= 32`.
fn varying_lines(insns: &[Insn]) -> Vec<usize> {
    let mut v = Vec::new();
    let mut k = 0;
    while k < insns.len() {
        let i = insns[k];
        if i.is_ld_imm64() && matches!(i.src, BPF_PSEUDO_MAP_FD | BPF_PSEUDO_MAP_VALUE) {
            v.push(k);
        }
        let shl = insns.get(k + 1).is_some_and(|n| n.code == 0x67 && n.dst == 12 && n.imm == 32);
        if i.code == 0xb7 && i.dst == 12 && shl {
            v.push(k);
        }
        k += if i.is_ld_imm64() { 2 } else { 1 };
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_masks_map_loads_and_quotes() {
        let out = LoadOutcome {
            accepted: true,
            xlated: vec!["0: r1 = 0x1".into(), "2: r0 = *(u32 *)(r1 +0)".into(), "3: exit".into()],
            xlated_insns: vec![
                Insn::new(0x18, 1, BPF_PSEUDO_MAP_FD, 0, 1),
                Insn::new(0, 0, 0, 0, 0),
                Insn::new(0x61, 0, 1, 0, 0),
                Insn::new(0x95, 0, 0, 0, 0),
            ],
            ..LoadOutcome::default()
        };
        assert_eq!(
            attribute_block("x86_64", &out),
            "#[arch(x86_64)]\n#[xlated(\"0: r1 = {{.*}}\")]\n#[xlated(\"2: r0 = *(u32 *)(r1 +0)\")]\n#[xlated(\"3: exit\")]\n"
        );
    }
}
