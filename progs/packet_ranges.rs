//! More direct packet access, in tc and xdp: values the test run reads
//! and writes through checked ranges, the length as the difference of
//! two packet pointers, `>=` checks with the operands reversed, variable
//! offsets added before the check (masked or not), comparisons between
//! two data pointers (no range), and a helper that invalidates packet
//! pointers in tc.

use bpf_selftest::prelude::*;

// xdp: 14 bytes checked, the EtherType read (0 in the test input): XDP_PASS.
#[sec("xdp")]
#[kernel("7.3")]
#[success]
#[retval(2)]
#[log_level(2)]
#[msg("5: (2d) if r4 > r3 goto pc+2          ; R3=pkt_end() R4=pkt(r=14,imm=14)")]
#[msg("6: (69) r0 = *(u16 *)(r2 +12)         ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=0xffff,var_off=(0x0; 0xffff)) R2=pkt(r=14)")]
pub fn xdp_ethertype_checked() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 0);"
        "r3 = *(u32 *)(r1 + 4);"
        "r0 = 1;"
        "r4 = r2;"
        "r4 += 14;"
        "if r4 > r3 goto 1f;"
        "r0 = *(u16 *)(r2 + 12);"
        "r0 += 2;"
    "1:"
        "exit;"
    )
}

// data_end - data is the packet length (64 in the test run).
#[sec("xdp")]
#[kernel("7.3")]
#[success]
#[retval(64)]
#[log_level(2)]
#[msg("2: (bf) r0 = r3                       ; R0=pkt_end() R3=pkt_end()")]
#[msg("3: (1f) r0 -= r2                      ; R0=scalar() R2=pkt(r=0)")]
#[arch(x86_64)]
#[jited("\tsubq\t%rsi, %rax")]
#[arch(arm64)]
#[jited("\tsub\tx8, x8, x1")]
pub fn xdp_len_from_pointers() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 0);"
        "r3 = *(u32 *)(r1 + 4);"
        "r0 = r3;"
        "r0 -= r2;"
        "exit;"
    )
}

// Write a byte through a checked range and read it back.
#[sec("xdp")]
#[kernel("7.3")]
#[success]
#[retval(66)]
#[log_level(2)]
#[msg("7: (73) *(u8 *)(r2 +7) = r5           ; R2=pkt(r=8) R5=66")]
pub fn xdp_write_then_read() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 0);"
        "r3 = *(u32 *)(r1 + 4);"
        "r0 = 0;"
        "r4 = r2;"
        "r4 += 8;"
        "if r4 > r3 goto 1f;"
        "r5 = 0x42;"
        "*(u8 *)(r2 + 7) = r5;"
        "r0 = *(u8 *)(r2 + 7);"
    "1:"
        "exit;"
    )
}

// `data_end >= data + 8` with the end on the left.
#[sec("tc")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[log_level(2)]
#[msg("5: (3d) if r3 >= r4 goto pc+1         ; R3=pkt_end() R4=pkt(r=0xfffffffffffffffe,imm=8)")]
#[msg("from 5 to 7: R2=pkt(r=8) R10=fp0")]
#[arch(x86_64, arm64)]
pub fn tc_end_jge_data() {
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

// A masked variable offset added before the check: the range holds at
// the variable position.
#[sec("tc")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[log_level(2)]
#[msg("7: (07) r4 += 4                       ; R4=pkt(id=1,r=0,smin=umin=4,smax=umax=19,smin32=0,smax32=umax32=31,var_off=(0x0; 0x1f))")]
#[msg("8: (2d) if r4 > r3 goto pc+1          ; R3=pkt_end() R4=pkt(id=1,r=19,smin=umin=4,smax=umax=19,smin32=0,smax32=umax32=31,var_off=(0x0; 0x1f))")]
#[arch(x86_64, arm64)]
pub fn var_off_masked_then_checked() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 76);"
        "r3 = *(u32 *)(r1 + 80);"
        "r5 = *(u32 *)(r1 + 0);"
        "r5 &= 15;"
        "r2 += r5;"
        "r0 = 0;"
        "r4 = r2;"
        "r4 += 4;"
        "if r4 > r3 goto 1f;"
        "r0 = *(u32 *)(r2 + 0);"
    "1:"
        "exit;"
    )
}

// An unmasked u32 added to a packet pointer.
#[sec("tc")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("6: (07) r4 += 4                       ; R4=pkt(id=1,r=0,smin=umin=4,smax=umax=0x100000003,var_off=(0x0; 0x1ffffffff))")]
#[msg("7: (2d) if r4 > r3 goto pc+1          ; R3=pkt_end() R4=pkt(id=1,r=0,smin=umin=4,smax=umax=0x100000003,var_off=(0x0; 0x1ffffffff))")]
#[msg("invalid access to packet, off=0 size=4, R2(id=1,off=0,r=0)")]
#[msg("Verification failed: Memory Safety: Access outside bounds")]
#[arch(x86_64, arm64)]
pub fn var_off_unmasked() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 76);"
        "r3 = *(u32 *)(r1 + 80);"
        "r5 = *(u32 *)(r1 + 0);"
        "r2 += r5;"
        "r0 = 0;"
        "r4 = r2;"
        "r4 += 4;"
        "if r4 > r3 goto 1f;"
        "r0 = *(u32 *)(r2 + 0);"
    "1:"
        "exit;"
    )
}

// Comparing two data pointers proves nothing about data_end.
#[sec("tc")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("4: (2d) if r4 > r2 goto pc+1          ; R2=pkt(r=0) R4=pkt(r=0,imm=4)")]
#[msg("from 4 to 6: R2=pkt(r=0) R10=fp0")]
#[msg("invalid access to packet, off=0 size=4, R2(id=0,off=0,r=0)")]
#[msg("Verification failed: Memory Safety: Access outside bounds")]
#[arch(x86_64, arm64)]
pub fn compare_two_data_pointers() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 76);"
        "r0 = 0;"
        "r4 = r2;"
        "r4 += 4;"
        "if r4 > r2 goto 1f;"
        "exit;"
    "1:"
        "r0 = *(u32 *)(r2 + 0);"
        "exit;"
    )
}

// bpf_skb_pull_data() may move the packet: the old pointer is unusable.
#[sec("tc")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("6: (2d) if r4 > r8 goto pc+4          ; R4=pkt(r=4,imm=4) R8=pkt_end()")]
#[msg("9: (85) call bpf_skb_pull_data#39     ;")]
#[msg("R7 invalid mem access 'scalar'")]
#[msg("Verification failed: Register Type Safety: Invalid dereference")]
#[arch(x86_64, arm64)]
pub fn pull_data_invalidates() {
    bpf_asm!(
        "r6 = r1;"
        "r7 = *(u32 *)(r6 + 76);"
        "r8 = *(u32 *)(r6 + 80);"
        "r0 = 0;"
        "r4 = r7;"
        "r4 += 4;"
        "if r4 > r8 goto 1f;"
        "r1 = r6;"
        "r2 = 4;"
        "call %[bpf_skb_pull_data];"
        "r0 = *(u32 *)(r7 + 0);"
    "1:"
        "exit;",
        imm(bpf_skb_pull_data),
    )
}

// The range survives a copy of the pointer with a constant added.
#[sec("tc")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[log_level(2)]
#[msg("7: (2d) if r4 > r3 goto pc+1          ; R3=pkt_end() R4=pkt(r=8,imm=8)")]
#[msg("8: (69) r0 = *(u16 *)(r6 +4)          ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=0xffff,var_off=(0x0; 0xffff))")]
pub fn range_shared_by_copy_plus_const() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 76);"
        "r3 = *(u32 *)(r1 + 80);"
        "r6 = r2;"
        "r6 += 2;"
        "r0 = 0;"
        "r4 = r2;"
        "r4 += 8;"
        "if r4 > r3 goto 1f;"
        "r0 = *(u16 *)(r6 + 4);"
    "1:"
        "exit;"
    )
}
