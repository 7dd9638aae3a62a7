//! Tracing ctx views that are rewritten: `struct bpf_perf_event_data` ->
//! `struct bpf_perf_event_data_kern` (`pe_prog_convert_ctx_access`).
//! (kprobe, tracepoint, raw_tp, tracing and syscall ctx are read as is.)

use bpf_isa::Insn;
use bpf_isa::op::*;

use super::emit::*;
use super::{Access, Conv, Converted};

/// `pe_prog_convert_ctx_access`: `sample_period` and `addr` come from the
/// `perf_sample_data`, everything else from the saved registers.
pub fn pe_prog_convert_ctx_access(cx: &Conv<'_>, _ty: Access, si: &Insn) -> Converted {
    let pe = &cx.layout.perf_event;
    let (d, s) = (si.dst, si.src);
    // uapi: bpf_user_pt_regs_t regs; __u64 sample_period; __u64 addr;
    let sample_period = crate::uapi::bpf_user_pt_regs_size(cx.arch);
    let r = if si.off == sample_period {
        (vec![ldx(BPF_DW, d, s, pe.kern_data), ldx(BPF_DW, d, d, pe.sample_data_period)], 8)
    } else if si.off == sample_period + 8 {
        (vec![ldx(BPF_DW, d, s, pe.kern_data), ldx(BPF_DW, d, d, pe.sample_data_addr)], 8)
    } else {
        (vec![ldx(BPF_DW, d, s, pe.kern_regs), ldx(BPF_DW, d, d, si.off)], 0)
    };
    Ok(r)
}
