//! More of what unprivileged programs may not do (the `@unpriv` runs):
//! comparisons of ctx with constants, corrupting a spilled pointer,
//! spilled pointers as helper memory, subtracting two map value pointers;
//! what nobody may do (dereferencing a modified ctx); and what they still
//! may do: a variable offset into a map value, masked through r12.

use bpf_selftest::prelude::*;

#[map]
static slots: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 16, 2);

// A pointer compared with a non-zero constant.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[log_level(2)]
#[failure_unpriv]
#[msg_unpriv("R1 pointer comparison prohibited")]
#[msg("1: (15) if r1 == 0x5 goto pc+1        ; R1=ctx()")]
pub fn ctx_compare_with_const() {
    bpf_asm!(
        "r0 = 0;"
        "if r1 == 5 goto 1f;"
        "r0 = 0;"
    "1:"
        "exit;"
    )
}

// Constant arithmetic on the ctx pointer, then an access through it:
// refused privileged and unprivileged alike.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[failure_unpriv]
#[msg_unpriv("dereference of modified ctx ptr R1 off=4 disallowed")]
#[msg_unpriv("Verification failed: Register Type Safety: Invalid dereference")]
#[msg("0: (07) r1 += 4                       ; R1=ctx(imm=4)")]
#[msg("dereference of modified ctx ptr R1 off=4 disallowed")]
#[msg("Verification failed: Register Type Safety: Invalid dereference")]
pub fn ctx_const_arith_access() {
    bpf_asm!(
        "r1 += 4;"
        "r0 = *(u32 *)(r1 + 0);"
        "exit;"
    )
}

// A byte stored over a spilled pointer.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[log_level(2)]
#[failure_unpriv]
#[msg_unpriv("attempt to corrupt spilled pointer on stack")]
#[msg_unpriv("Verification failed: Memory Safety: Stack spill corruption")]
#[msg("2: (73) *(u8 *)(r10 -8) = r2          ; R2=0 R10=fp0 fp-8=mmmmmmm0")]
pub fn corrupt_spilled_pointer() {
    bpf_asm!(
        "*(u64 *)(r10 - 8) = r1;"
        "r2 = 0;"
        "*(u8 *)(r10 - 8) = r2;"
        "r0 = 0;"
        "exit;"
    )
}

// Spilled stack addresses as the value of a map update: unprivileged,
// the slots holding pointers may not be read as helper memory.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[log_level(2)]
#[failure_unpriv]
#[msg_unpriv("invalid read from stack R3 off -24+0 size 16")]
#[msg("3: (7b) *(u64 *)(r10 -24) = r1        ; R1=fp0 R10=fp0 fp-24=fp0")]
pub fn stack_addr_as_map_value() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r1 = r10;"
        "*(u64 *)(r10 - 24) = r1;"
        "*(u64 *)(r10 - 16) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r3 = r10;"
        "r3 += -24;"
        "r1 = %[slots] ll;"
        "r4 = 0;"
        "call %[bpf_map_update_elem];"
        "r0 = 0;"
        "exit;",
        imm_addr(slots),
        imm(bpf_map_update_elem),
    )
}

// A bounded variable offset into a map value: allowed unprivileged too,
// with the offset masked through r12 (alu_limit 8) and a speculative path
// walked without it.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[log_level(2)]
#[success_unpriv]
#[msg("12: (79) r0 = *(u64 *)(r6 +0)         ; R0=scalar() R6=map_value(map=slots,ks=4,vs=16,smin=smin32=0,smax=umax=smax32=umax32=8,var_off=(0x0; 0x8))")]
#[msg_unpriv("from 11 to 12 (speculative execution)")]
// the masking of the offset (x86_64 has a `nospec` before it, so the
// indexes differ per arch)
#[xlated_unpriv("r0 &= 8")]
#[xlated_unpriv("w12 = 8")]
#[xlated_unpriv("r12 -= r0")]
#[xlated_unpriv("r12 |= r0")]
#[xlated_unpriv("r12 = -r12")]
#[xlated_unpriv("r12 s>>= 63")]
#[xlated_unpriv("r12 &= r0")]
#[xlated_unpriv("r6 += r12")]
#[arch(x86_64, arm64)] // riscv64 zero-extends 32-bit results: other xlated numbering
pub fn map_value_var_off_unpriv_ok() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[slots] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r6 = r0;"
        "call %[bpf_get_prandom_u32];"
        "r0 &= 8;"
        "r6 += r0;"
        "r0 = *(u64 *)(r6 + 0);"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm_addr(slots),
        imm(bpf_map_lookup_elem),
        imm(bpf_get_prandom_u32),
    )
}

// Subtracting two map value pointers: a scalar privileged, refused
// unprivileged.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[log_level(2)]
#[failure_unpriv]
#[msg_unpriv("R1 pointer -= pointer prohibited")]
#[msg("10: (1f) r1 -= r0                     ; R0=map_value(map=slots,ks=4,vs=16) R1=scalar()")]
#[msg("12: (17) r0 -= 8                      ; R0=scalar(id=1-8)")]
pub fn map_value_ptr_diff() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[slots] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r1 = r0;"
        "r1 += 8;"
        "r1 -= r0;"
        "r0 = r1;"
        "r0 -= 8;"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm_addr(slots),
        imm(bpf_map_lookup_elem),
    )
}
