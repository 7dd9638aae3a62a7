//! The trampoline's structure as 7.3's prepare_trampoline lays it out,
//! read back through the disassembler.

use super::*;
use crate::prog_type::{bpf_attach_type as at, bpf_prog_type as pt};
use crate::target::Arch;

/// The 7.3.4 arm64 image's addresses (its kallsyms).
fn ksyms() -> TrampKsyms {
    TrampKsyms {
        bpf_prog_enter_lsm_cgroup: 0xffff8000803b61c0,
        bpf_prog_enter: 0xffff8000803b6250,
        bpf_prog_exit_lsm_cgroup: 0xffff8000803b6760,
        bpf_prog_enter_recur: 0xffff8000803b69a0,
        bpf_prog_exit: 0xffff8000803b6b80,
        bpf_prog_exit_recur: 0xffff8000803b6bd0,
        bpf_prog_enter_sleepable: 0xffff8000803b6ca8,
        bpf_prog_exit_sleepable_recur: 0xffff8000803b6de8,
        bpf_prog_enter_sleepable_recur: 0xffff8000803b6fc0,
        bpf_prog_exit_sleepable: 0xffff8000803b71c8,
        bpf_tramp_enter: 0xffff8000803b79c0,
        bpf_tramp_exit: 0xffff8000803b7a90,
    }
}

fn prog(n: u64, eat: u32) -> BpfTrampNode {
    BpfTrampNode {
        prog: 0xffff8000_8200_0000 + n * 0x1000,
        bpf_func: 0xffff8000_8400_0000 + n * 0x1000,
        prog_type: pt::TRACING,
        expected_attach_type: eat,
        ..Default::default()
    }
}

fn tramp(args: &[u8], nodes: BpfTrampNodes) -> BpfTrampoline {
    let model = BtfFuncModel::new(8, &args.iter().map(|&s| (s, 0)).collect::<Vec<_>>()).unwrap();
    let flags = bpf_trampoline_update_flags(&nodes, 0, false);
    BpfTrampoline { model, flags, nodes, func_addr: 0xffff8000_8012_3400, image: 0xffff8000_8410_0000, im: 0xffff0000_c1a2_b300, ksyms: ksyms() }
}

fn disasm(t: &TrampolineImage, base: u64) -> Vec<String> {
    t.image[..t.len]
        .chunks(4)
        .enumerate()
        .map(|(k, w)| {
            let pc = base + 4 * k as u64;
            crate::jit_disasm::disasm_insn(Arch::Arm64, w, pc, &|a| Some(format!("{a:#x}")))
                .map_or_else(|| format!("<undecodable {:08x}>", u32::from_le_bytes(w.try_into().unwrap())), |d| d.text.trim().replace('\t', " "))
        })
        .collect()
}

#[test]
fn arg_aux() {
    let m = BtfFuncModel::new(8, &[(8, 0), (16, BTF_FMODEL_STRUCT_ARG), (4, 0)]).unwrap();
    assert_eq!(calc_arg_aux(&m), ArgAux { args_in_regs: 3, regs_for_args: 4, bstack_for_args: 0, ostack_for_args: 0 });
    // nine 8-byte args: the ninth on the stack; a 16-byte one that does
    // not fit in the last register goes to the stack with everything after
    let m = BtfFuncModel::new(8, &[(8, 0); 9]).unwrap();
    assert_eq!(calc_arg_aux(&m), ArgAux { args_in_regs: 8, regs_for_args: 8, bstack_for_args: 8, ostack_for_args: 8 });
    let m = BtfFuncModel::new(8, &[(8, 0), (8, 0), (8, 0), (8, 0), (8, 0), (8, 0), (8, 0), (16, 0), (1, 0)]).unwrap();
    assert_eq!(calc_arg_aux(&m), ArgAux { args_in_regs: 7, regs_for_args: 7, bstack_for_args: 24, ostack_for_args: 24 });
}

#[test]
fn print_fentry() {
    let t = tramp(&[8, 8], BpfTrampNodes { fentry: vec![prog(1, at::TRACE_FENTRY)], ..Default::default() });
    let tr = &t;
    let img = arch_prepare_bpf_trampoline(tr, &Arm64Profile::default()).unwrap();
    for l in disasm(&img, tr.image) {
        println!("{l}");
    }
    println!("len {} size {}", img.len, img.image.len());
}
