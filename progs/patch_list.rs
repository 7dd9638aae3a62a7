//! Jumps across the rewrites 7.3's fixups make (inlined map lookups,
//! iterator kfuncs, bpf_loop, division guards, ctx conversions, the tc
//! prologue, may_goto), patches at subprogram starts and ends, and many
//! patches in one program: each pinned by the xlated program, where every
//! branch offset must still land on the insn it meant.

use bpf_selftest::prelude::*;

#[map]
static arr: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 8, 4);

// A forward jump over an inlined array lookup (1 call -> 7 insns): the
// goto's offset grows by the 6 inserted insns.
#[sec("socket")]
#[success]
#[retval(0)]
#[xlated("...")]
#[xlated("3: if r6 == 0x32 goto pc+12")]
#[xlated("4: r2 = r10")]
#[xlated("...")]
#[xlated("13: goto pc+1")]
#[xlated("14: r0 = 0")]
#[xlated("15: r0 = 1")]
#[xlated("16: exit")]
pub fn fwd_over_array_lookup() {
    bpf_asm!(
        "r6 = *(u32 *)(r1 + 0);"
        "r0 = 0;"
        "*(u32 *)(r10 - 4) = r0;"
        "if r6 == 50 goto 1f;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[arr] ll;"
        "call %[bpf_map_lookup_elem];"
        "r0 = 1;"
    "1:"
        "exit;",
        imm_addr(arr),
        imm(bpf_map_lookup_elem),
    )
}

// A loop (3 rounds) whose body does an inlined lookup: the back-edge
// offset grows by the same 6 insns. Each round bumps element 0: 3.
#[sec("socket")]
#[success]
#[retval(3)]
#[xlated("...")]
#[xlated("3: r2 = r10")]
#[xlated("...")]
#[xlated("17: r6 += 1")]
#[xlated("18: if r6 < 0x3 goto pc-16")]
#[xlated("19: r0 = *(u64 *)(r0 +0)")]
#[arch(x86_64, arm64)] // riscv64 zero-extends 32-bit results: other xlated numbering
pub fn back_over_array_lookup() {
    bpf_asm!(
        "r6 = 0;"
        "r0 = 0;"
        "*(u32 *)(r10 - 4) = r0;"
    "1:"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[arr] ll;"
        "call %[bpf_map_lookup_elem];"
        "r1 = *(u64 *)(r0 + 0);"
        "r1 += 1;"
        "*(u64 *)(r0 + 0) = r1;"
        "r6 += 1;"
        "if r6 < 3 goto 1b;"
        "r0 = *(u64 *)(r0 + 0);"
        "exit;",
        imm_addr(arr),
        imm(bpf_map_lookup_elem),
    )
}

// Forward over an inlined bpf_iter_num_new() (1 -> 14 insns), with the
// iterator created on one path only... and destroyed on the same path.
#[sec("socket")]
#[success]
#[retval(0)]
#[kernel("7.3")]
#[xlated("...")]
#[xlated("2: if r6 == 0x32 goto pc+22")]
#[xlated("...")]
#[xlated("21: r1 = r10")]
#[xlated("22: r1 += -8")]
#[xlated("23: goto pc+0")]
#[xlated("24: r0 = 1")]
#[xlated("25: exit")]
pub fn fwd_over_iter_new() {
    bpf_asm!(
        "r6 = *(u32 *)(r1 + 0);"
        "r0 = 0;"
        "if r6 == 50 goto 1f;"
        "r1 = r10;"
        "r1 += -8;"
        "r2 = 0;"
        "r3 = 4;"
        "call %[bpf_iter_num_new];"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_destroy];"
        "r0 = 1;"
    "1:"
        "exit;",
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_destroy),
    )
}

// Backward from after an inlined bpf_iter_num_next() to before it and
// forward across the whole loop: three inlined kfuncs between them.
#[sec("socket")]
#[success]
#[retval(6)]
#[kernel("7.3")]
#[xlated("...")]
#[xlated("19: r1 = r10")]
#[xlated("20: r1 += -8")]
#[xlated("21: r0 = *(u32 *)(r1 +0)")]
#[xlated("...")]
#[xlated("30: if r0 == 0x0 goto pc+3")]
#[xlated("31: r1 = *(u32 *)(r0 +0)")]
#[xlated("32: r7 += r1")]
#[xlated("33: goto pc-15")]
#[xlated("34: r1 = r10")]
#[xlated("35: r1 += -8")]
#[xlated("36: goto pc+0")]
#[arch(x86_64, arm64)] // riscv64 zero-extends 32-bit results: other xlated numbering
pub fn jumps_across_iter_kfuncs() {
    bpf_asm!(
        "r7 = 0;"
        "r1 = r10;"
        "r1 += -8;"
        "r2 = 1;"
        "r3 = 4;"
        "call %[bpf_iter_num_new];"
    "1:"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_next];"
        "if r0 == 0 goto 2f;"
        "r1 = *(u32 *)(r0 + 0);"
        "r7 += r1;"
        "goto 1b;"
    "2:"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_destroy];"
        "r0 = r7;"
        "exit;",
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_next),
        imm(bpf_iter_num_destroy),
    )
}

#[subprog]
fn loop_cb() {
    bpf_asm!(
        "r0 = *(u64 *)(r2 + 0);"
        "r0 += 2;"
        "*(u64 *)(r2 + 0) = r0;"
        "r0 = 0;"
        "exit;"
    )
}

// Forward over an inlined bpf_loop() (1 -> 18 insns) and the call of the
// callback inside it, whose pc-relative offset also moves.
#[sec("socket")]
#[success]
#[retval(8)]
#[xlated("...")]
#[xlated("3: if r6 != 0x32 goto pc+25")]
#[xlated("4: r1 = 4")]
#[xlated("5: r2 = 0x100000019")]
#[xlated("...")]
#[xlated("22: call pc+8")]
#[xlated("...")]
#[xlated("29: r0 = *(u64 *)(r10 -8)")]
#[xlated("30: exit")]
#[xlated("31: r0 = *(u64 *)(r2 +0)")]
pub fn fwd_over_bpf_loop() {
    bpf_asm!(
        "r6 = *(u32 *)(r1 + 0);"
        "r0 = 0;"
        "*(u64 *)(r10 - 8) = r0;"
        "if r6 != 50 goto 1f;"
        "r1 = 4;"
        "r2 = %[loop_cb] ll;"
        "r3 = r10;"
        "r3 += -8;"
        "r4 = 0;"
        "call %[bpf_loop];"
    "1:"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;",
        imm_addr(loop_cb),
        imm(bpf_loop),
    )
}

// A subprogram whose first insn is a division by a register (patched
// into a zero guard): the caller's `call` must land on the guard.
#[subprog]
fn div_first() {
    bpf_asm!(
        "r1 /= r2;"
        "r0 = r1;"
        "exit;"
    )
}

#[sec("socket")]
#[success]
#[retval(5)]
#[xlated("2: call pc+1")]
#[xlated("3: exit")]
#[xlated("4: if r2 != 0x0 goto pc+2")]
#[xlated("5: w1 ^= w1")]
#[xlated("6: goto pc+1")]
#[xlated("7: r1 /= r2")]
#[xlated("8: r0 = r1")]
#[arch(x86_64, arm64)]
pub fn patch_at_subprog_start() {
    bpf_asm!(
        "r1 = 10;"
        "r2 = 2;"
        "call %[div_first];"
        "exit;",
        imm(div_first),
    )
}

// A subprogram whose last insn before exit is a 32-bit modulo (patched
// with a guard and a zero-extension), followed by a second subprogram
// whose start moves by the patch.
#[subprog]
fn mod_last() {
    bpf_asm!(
        "w0 = w1;"
        "w0 %= w2;"
        "exit;"
    )
}

#[subprog]
fn after_mod() {
    bpf_asm!(
        "r0 = r1;"
        "r0 += 100;"
        "exit;"
    )
}

#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(103)]
#[xlated("2: call pc+3")]
#[xlated("3: r1 = r0")]
#[xlated("4: call pc+10")]
#[xlated("5: exit")]
#[xlated("6: w0 = w1")]
#[xlated("...")]
#[xlated("10: if w2 == 0x0 goto pc+2")]
#[xlated("11: w0 %= w2")]
#[xlated("12: goto pc+1")]
#[xlated("13: w0 = w0")]
#[xlated("14: exit")]
#[xlated("15: r0 = r1")]
#[arch(x86_64, arm64)]
pub fn patch_at_subprog_end() {
    bpf_asm!(
        "r1 = 7;"
        "r2 = 4;"
        "call %[mod_last];"
        "r1 = r0;"
        "call %[after_mod];"
        "exit;",
        imm(mod_last),
        imm(after_mod),
    )
}

// A jump whose target is itself patched (a division by a register): it
// lands on the first insn of the patch, the guard (skb->len 50 & 2 == 2).
#[sec("socket")]
#[success]
#[retval(12)]
#[xlated("3: if r1 != 0x0 goto pc+1")]
#[xlated("4: r0 = 0")]
#[xlated("5: if r1 != 0x0 goto pc+2")]
#[xlated("6: w0 ^= w0")]
#[xlated("7: goto pc+1")]
#[xlated("8: r0 /= r1")]
pub fn jump_to_patched_insn() {
    bpf_asm!(
        "r0 = 24;"
        "r1 = *(u32 *)(r1 + 0);"
        "r1 &= 2;"
        "if r1 != 0 goto 1f;"
        "r0 = 0;"
    "1:"
        "r0 /= r1;"
        "exit;",
    )
}

// Many patches in one program: ctx conversions (narrow and full), three
// division/modulo guards and an inlined lookup, with forward and
// backward jumps between them.
#[sec("socket")]
#[success]
#[retval(68)]
#[xlated("0: r6 = r1")]
#[xlated("1: r7 = *(u32 *)(r6 +112)")]
#[xlated("2: r8 = *(u32 *)(r6 +112)")]
#[xlated("3: w8 &= 255")]
#[xlated("...")]
#[xlated("7: if r2 != 0x0 goto pc+2")]
#[xlated("8: w7 ^= w7")]
#[xlated("9: goto pc+1")]
#[xlated("10: r7 /= r2")]
#[xlated("11: if r3 == 0x0 goto pc+1")]
#[xlated("12: r8 %= r3")]
#[xlated("13: r9 += 1")]
// the back-edge lands on the first guard
#[xlated("14: if r9 < 0x2 goto pc-8")]
#[xlated("15: if w3 == 0x0 goto pc+2")]
#[xlated("16: w7 %= w3")]
#[xlated("17: goto pc+1")]
#[xlated("18: w7 = w7")]
#[xlated("19: r0 = 0")]
#[xlated("20: *(u32 *)(r10 -4) = r0")]
// forward over the inlined lookup and a ctx conversion, to the exit
#[xlated("21: if r7 > 0x64 goto pc+18")]
#[xlated("...")]
#[xlated("33: r1 = *(u32 *)(r6 +112)")]
#[xlated("...")]
#[xlated("39: r0 += 10")]
#[xlated("40: exit")]
pub fn many_patches() {
    bpf_asm!(
        "r6 = r1;"
        "r7 = *(u32 *)(r6 + 0);"
        "r8 = *(u8 *)(r6 + 0);"
        "r9 = 0;"
        "r2 = 3;"
        "r3 = 7;"
    "1:"
        "r7 /= r2;"
        "r8 %= r3;"
        "r9 += 1;"
        "if r9 < 2 goto 1b;"
        "w7 %= w3;"
        "r0 = 0;"
        "*(u32 *)(r10 - 4) = r0;"
        "if r7 > 100 goto 2f;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[arr] ll;"
        "call %[bpf_map_lookup_elem];"
        "r1 = *(u32 *)(r6 + 0);"
        "*(u64 *)(r0 + 0) = r1;"
        "r0 = *(u64 *)(r0 + 0);"
        "r0 += r7;"
        "r0 += r8;"
        "r0 += r9;"
        "r0 += 10;"
    "2:"
        "exit;",
        imm_addr(arr),
        imm(bpf_map_lookup_elem),
    )
}

// may_goto: the loop's budget lives in a hidden stack slot below the
// program's own (fp-16 here); the prologue sets it and each may_goto
// becomes a load, test, decrement and store.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(5)]
// the budget (0xffff) and the timestamp slot, below fp-8
#[xlated("0: *(u64 *)(r10 -24) = 65535")]
#[xlated("1: *(u64 *)(r10 -16) = 0")]
#[xlated("2: r0 = 0")]
#[xlated("3: *(u64 *)(r10 -8) = r0")]
#[xlated("4: r12 = *(u64 *)(r10 -24)")]
#[xlated("5: if r12 == 0x0 goto pc+7")]
#[xlated("6: r12 -= 1")]
#[xlated("7: if r12 != 0x0 goto pc+2")]
#[xlated("8: r12 = -24")]
#[xlated("9: call unknown")]
#[xlated("10: *(u64 *)(r10 -24) = r12")]
#[xlated("11: r0 += 1")]
#[xlated("12: if r0 < 0x5 goto pc-9")]
#[xlated("13: exit")]
pub fn may_goto_loop() {
    bpf_asm!(
        "r0 = 0;"
        "*(u64 *)(r10 - 8) = r0;"
    "1:"
        "may_goto 2f;"
        "r0 += 1;"
        "if r0 < 5 goto 1b;"
    "2:"
        "exit;",
    )
}

// Direct packet writes in tc add a prologue before insn 0, and may_goto
// one more: a loop jumping back to the program's first insn (bounded by
// may_goto, each round bumping the first packet byte) crosses both.
#[sec("tc")]
#[kernel("7.3")]
#[success]
#[retval(0)]
// may_goto's slots first, then the unclone prologue, then insn 0
#[xlated("0: *(u64 *)(r10 -16) = 65535")]
#[xlated("1: *(u64 *)(r10 -8) = 0")]
#[xlated("2: r6 = *(u8 *)(r1 +126)")]
#[xlated("...")]
#[xlated("11: r1 = r6")]
#[xlated("12: r2 = *(u64 *)(r1 +208)")]
#[xlated("...")]
#[xlated("26: *(u64 *)(r10 -16) = r12")]
// the back-edge to insn 0 lands after both prologues
#[xlated("27: goto pc-16")]
#[xlated("28: r0 = 0")]
pub fn back_to_first_insn_with_prologue() {
    bpf_asm!(
    "1:"
        "r2 = *(u32 *)(r1 + 76);"
        "r3 = *(u32 *)(r1 + 80);"
        "r4 = r2;"
        "r4 += 1;"
        "if r4 > r3 goto 2f;"
        "r5 = *(u8 *)(r2 + 0);"
        "r5 += 1;"
        "*(u8 *)(r2 + 0) = r5;"
        "may_goto 2f;"
        "goto 1b;"
    "2:"
        "r0 = 0;"
        "exit;",
    )
}

// LD_ABS (patched into a call and an error exit) inside a loop.
#[sec("socket")]
#[success]
#[retval(3)]
#[xlated("2: r2 = 0")]
#[xlated("3: r1 = r6")]
#[xlated("4: call unknown")]
#[xlated("5: if r0 s>= 0x0 goto pc+2")]
#[xlated("6: w0 ^= w0")]
#[xlated("7: exit")]
#[xlated("8: r7 += 1")]
#[xlated("9: if r7 < 0x3 goto pc-8")]
#[arch(x86_64, arm64)] // riscv64 zero-extends 32-bit results: other xlated numbering
pub fn ld_abs_in_loop() {
    bpf_asm!(
        "r6 = r1;"
        "r7 = 0;"
    "1:"
        "r0 = *(u8 *)skb[0];"
        "r7 += 1;"
        "if r7 < 3 goto 1b;"
        "r0 = r7;"
        "exit;",
    )
}
