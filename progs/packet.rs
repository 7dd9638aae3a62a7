//! Direct packet access: the range a comparison against data_end proves,
//! reads and writes within it, the errors past it, pointer arithmetic on
//! packet pointers, helpers that invalidate them, and legacy LD_ABS/LD_IND.

use bpf_selftest::prelude::*;

// data + 1 <= data_end proves one readable byte (r=1).
#[sec("tc")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(0)]
#[msg("5: (2d) if r4 > r3 goto pc+1          ; R3=pkt_end() R4=pkt(r=1,imm=1)")]
#[msg(
    "6: (71) r0 = *(u8 *)(r2 +0)           ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff))"
)]
pub fn read_byte_checked() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 76);"
        "r3 = *(u32 *)(r1 + 80);"
        "r0 = 1;"
        "r4 = r2;"
        "r4 += 1;"
        "if r4 > r3 goto 1f;"
        "r0 = *(u8 *)(r2 + 0);"
    "1:"
        "exit;"
    )
}

// Without the comparison there is no range.
#[sec("tc")]
#[kernel("7.3")]
#[failure]
#[msg("invalid access to packet, off=0 size=1, R2(id=0,off=0,r=0)")]
#[msg("R2 min value is outside of the allowed memory range")]
#[msg("Verification failed: Memory Safety: Access outside bounds")]
pub fn read_unchecked() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 76);"
        "r0 = *(u8 *)(r2 + 0);"
        "exit;"
    )
}

// Four bytes proven, eight read.
#[sec("tc")]
#[failure]
#[msg("invalid access to packet, off=0 size=8, R2(id=0,off=0,r=4)")]
#[arch(x86_64, arm64)]
pub fn read_past_checked_range() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 76);"
        "r3 = *(u32 *)(r1 + 80);"
        "r0 = 0;"
        "r4 = r2;"
        "r4 += 4;"
        "if r4 > r3 goto 1f;"
        "r0 = *(u64 *)(r2 + 0);"
    "1:"
        "exit;"
    )
}

// The comparison the other way round (data_end >= data + 8) proves the
// same range on the taken branch.
#[sec("tc")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(0)]
#[msg("5: (3d) if r3 >= r4 goto pc+1         ; R3=pkt_end() R4=pkt(r=0xfffffffffffffffe,imm=8)")]
#[msg("from 5 to 7: R2=pkt(r=8) R10=fp0")]
#[arch(x86_64, arm64)]
pub fn check_with_end_on_left() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 76);"
        "r3 = *(u32 *)(r1 + 80);"
        "r0 = 1;"
        "r4 = r2;"
        "r4 += 8;"
        "if r3 >= r4 goto 1f;"
        "exit;"
    "1:"
        "r0 = *(u64 *)(r2 + 0);"
        "exit;"
    )
}

// A strict < against data_end proves one byte less than <=.
#[sec("xdp")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(0)]
// r4 < data_end: one byte more than r4 <= data_end would give
#[msg("5: (ad) if r4 < r3 goto pc+1          ; R3=pkt_end() R4=pkt(r=0xffffffffffffffff,imm=8)")]
#[msg("from 5 to 7: R2=pkt(r=9) R10=fp0")]
#[arch(x86_64, arm64)]
pub fn check_strict_less() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 0);"
        "r3 = *(u32 *)(r1 + 4);"
        "r0 = 1;"
        "r4 = r2;"
        "r4 += 8;"
        "if r4 < r3 goto 1f;"
        "exit;"
    "1:"
        "r0 = *(u64 *)(r2 + 0);"
        "exit;"
    )
}

// A variable offset [0, 15] added before the check: the range covers it.
#[sec("xdp")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg(
    "9: (2d) if r4 > r3 goto pc+1          ; R3=pkt_end() R4=pkt(id=1,r=17,smin=umin=2,smax=umax=17,smin32=0,smax32=umax32=31,var_off=(0x0; 0x1f))"
)]
#[arch(x86_64, arm64)]
pub fn var_offset_then_check() {
    bpf_asm!(
        "r6 = r1;"
        "call %[bpf_get_prandom_u32];"
        "r2 = *(u32 *)(r6 + 0);"
        "r3 = *(u32 *)(r6 + 4);"
        "r0 &= 0xf;"
        "r2 += r0;"
        "r4 = r2;"
        "r4 += 2;"
        "r0 = 0;"
        "if r4 > r3 goto 1f;"
        "r0 = *(u16 *)(r2 + 0);"
    "1:"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// tc may write the packet: store then read back.
#[sec("tc")]
#[kernel("7.3")]
#[success]
#[retval(5)]
// direct packet writes add the skb-unclone prologue (bpf_skb_pull_data)
#[xlated("0: r6 = *(u8 *)(r1 +126)")]
#[xlated("1: w6 &= 1")]
#[xlated("2: if r6 == 0x0 goto pc+7")]
#[xlated("3: r6 = r1")]
#[xlated("4: r2 ^= r2")]
#[xlated("5: call unknown")]
#[xlated("6: if r0 == 0x0 goto pc+2")]
#[xlated("7: w0 = 2")]
#[xlated("8: exit")]
#[xlated("9: r1 = r6")]
#[xlated("10: r2 = *(u64 *)(r1 +208)")]
pub fn tc_write_packet() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 76);"
        "r3 = *(u32 *)(r1 + 80);"
        "r0 = 0;"
        "r4 = r2;"
        "r4 += 1;"
        "if r4 > r3 goto 1f;"
        "r5 = 5;"
        "*(u8 *)(r2 + 0) = r5;"
        "r0 = *(u8 *)(r2 + 0);"
    "1:"
        "exit;"
    )
}

// cgroup_skb may read the packet but not write it.
#[sec("cgroup/skb")]
#[failure]
#[msg("cannot write into packet")]
pub fn cgroup_skb_write_packet() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 76);"
        "r3 = *(u32 *)(r1 + 80);"
        "r0 = 1;"
        "r4 = r2;"
        "r4 += 1;"
        "if r4 > r3 goto 1f;"
        "r5 = 5;"
        "*(u8 *)(r2 + 0) = r5;"
    "1:"
        "exit;"
    )
}

// XDP metadata: data_meta up to data is the range once checked.
#[sec("xdp")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(2)]
#[msg("0: (61) r2 = *(u32 *)(r1 +8)          ; R1=ctx() R2=pkt_meta(r=0)")]
#[msg("5: (2d) if r4 > r3 goto pc+1          ; R3=pkt(r=0) R4=pkt_meta(r=4,imm=4)")]
#[xlated("0: r2 = *(u64 *)(r1 +16)")]
#[arch(x86_64, arm64)]
pub fn xdp_meta_checked() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 8);"
        "r3 = *(u32 *)(r1 + 0);"
        "r0 = 2;"
        "r4 = r2;"
        "r4 += 4;"
        "if r4 > r3 goto 1f;"
        "r0 = *(u32 *)(r2 + 0);"
    "1:"
        "exit;"
    )
}

// bpf_xdp_adjust_head() invalidates every packet pointer taken before it.
#[sec("xdp")]
#[failure]
#[msg("8: (85) call bpf_xdp_adjust_head#44")]
#[msg("R7 invalid mem access 'scalar'")]
pub fn xdp_adjust_head_invalidates() {
    bpf_asm!(
        "r6 = r1;"
        "r7 = *(u32 *)(r1 + 0);"
        "r3 = *(u32 *)(r1 + 4);"
        "r4 = r7;"
        "r4 += 1;"
        "if r4 > r3 goto 1f;"
        "r1 = r6;"
        "r2 = 0;"
        "call %[bpf_xdp_adjust_head];"
        "r0 = *(u8 *)(r7 + 0);"
    "1:"
        "r0 = 2;"
        "exit;",
        imm(bpf_xdp_adjust_head),
    )
}

// No arithmetic on pkt_end.
#[sec("xdp")]
#[kernel("7.3")]
#[failure]
#[msg("R3 pointer arithmetic on pkt_end prohibited")]
#[msg("Verification failed: Register Type Safety: Pointer arithmetic is not allowed")]
pub fn pkt_end_arith() {
    bpf_asm!(
        "r3 = *(u32 *)(r1 + 4);"
        "r3 += 1;"
        "r0 = 2;"
        "exit;"
    )
}

// A constant offset beyond the 64K a packet pointer may carry: the
// arithmetic is allowed, the access is not.
#[sec("xdp")]
#[failure]
#[msg("invalid access to packet, off=65536 size=1, R2(id=0,off=65536,r=0)")]
pub fn pkt_offset_too_large() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 0);"
        "r3 = *(u32 *)(r1 + 4);"
        "r2 += 0x10000;"
        "r4 = r2;"
        "r4 += 1;"
        "r0 = 2;"
        "if r4 > r3 goto 1f;"
        "r0 = *(u8 *)(r2 + 0);"
    "1:"
        "exit;"
    )
}

// A spilled packet pointer keeps its range through the fill.
#[sec("tc")]
#[success]
#[log_level(2)]
#[retval(0)]
#[msg("6: (7b) *(u64 *)(r10 -8) = r2         ; R2=pkt(r=2) R10=fp0 fp-8=pkt(r=2)")]
#[msg("7: (79) r5 = *(u64 *)(r10 -8)         ; R5=pkt(r=2) R10=fp0 fp-8=pkt(r=2)")]
pub fn spill_fill_keeps_range() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 76);"
        "r3 = *(u32 *)(r1 + 80);"
        "r0 = 1;"
        "r4 = r2;"
        "r4 += 2;"
        "if r4 > r3 goto 1f;"
        "*(u64 *)(r10 - 8) = r2;"
        "r5 = *(u64 *)(r10 - 8);"
        "r0 = *(u16 *)(r5 + 0);"
    "1:"
        "exit;"
    )
}

// Legacy LD_ABS: a byte at offset 12 of the (zeroed) frame; xlated shows
// the inlined load with its bounds check.
#[sec("socket")]
#[success]
#[retval(0)]
#[xlated("0: r6 = r1")]
#[xlated("1: r2 = 12")]
#[xlated("2: r1 = r6")]
#[xlated("3: call unknown")]
#[xlated("4: if r0 s>= 0x0 goto pc+2")]
#[xlated("5: w0 ^= w0")]
#[xlated("6: exit")]
#[xlated("7: exit")]
#[arch(x86_64, arm64)] // riscv64 zero-extends 32-bit results: other xlated numbering
pub fn ld_abs_byte() {
    bpf_asm!(
        "r6 = r1;"
        "r0 = *(u8 *)skb[12];"
        "exit;"
    )
}

// LD_IND: register plus immediate offset, a half-word.
#[sec("socket")]
#[success]
#[retval(0)]
#[xlated("2: r2 = r7")]
#[xlated("3: r2 += 10")]
#[xlated("4: r1 = r6")]
#[xlated("5: call unknown")]
pub fn ld_ind_half() {
    bpf_asm!(
        "r6 = r1;"
        "r7 = 2;"
        "r0 = *(u16 *)skb[r7 + 10];"
        "exit;"
    )
}

// LD_ABS past the end of the packet ends the program with 0.
#[sec("socket")]
#[success]
#[retval(0)]
// the failed load exits with 0 before r0 = 7
#[xlated("...")]
#[xlated("5: w0 ^= w0")]
#[xlated("6: exit")]
#[xlated("7: r0 = 7")]
#[arch(x86_64, arm64)] // riscv64 zero-extends 32-bit results: other xlated numbering
pub fn ld_abs_past_end() {
    bpf_asm!(
        "r6 = r1;"
        "r0 = *(u32 *)skb[1000];"
        "r0 = 7;"
        "exit;"
    )
}

// LD_ABS needs the skb in r6.
#[sec("socket")]
#[failure]
#[msg("at the time of BPF_LD_ABS|IND R6 != pointer to skb")]
pub fn ld_abs_without_r6() {
    bpf_asm!(
        "r6 = 0;"
        "r0 = *(u8 *)skb[12];"
        "exit;"
    )
}

// LD_ABS clobbers r1-r5: reading r2 after it fails.
#[sec("socket")]
#[failure]
#[msg("3: (bf) r0 = r2")]
#[msg("R2 !read_ok")]
pub fn ld_abs_clobbers_args() {
    bpf_asm!(
        "r6 = r1;"
        "r2 = 1;"
        "r0 = *(u8 *)skb[12];"
        "r0 = r2;"
        "exit;"
    )
}
