//! Partial stack slots and variable offsets: narrow fills of wide spills,
//! halves and bytes of slots, zero bytes from BPF_ST, a spilled pointer
//! partly overwritten, the frame pointer spilled, and variable-offset
//! reads and writes over initialized, uninitialized and out-of-frame
//! ranges.

use bpf_selftest::prelude::*;

#[map]
static arr: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 8, 1);

// A 64-bit spill of a small constant, a 32-bit fill of its low half.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(7)]
#[log_level(2)]
#[msg("2: (61) r0 = *(u32 *)(r10 -8)         ; R0=7 R10=fp0 fp-8=7")]
pub fn fill32_low_half_of_spill64() {
    bpf_asm!(
        "r1 = 7;"
        "*(u64 *)(r10 - 8) = r1;"
        "r0 = *(u32 *)(r10 - 8);"
        "exit;"
    )
}

// The high half of the same spill: not the constant.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[log_level(2)]
#[msg("2: (61) r0 = *(u32 *)(r10 -4)         ; R0=scalar(smin=0,smax=umax=0xffffffff,var_off=(0x0; 0xffffffff)) R10=fp0 fp-8=7")]
pub fn fill32_high_half_of_spill64() {
    bpf_asm!(
        "r1 = 7;"
        "*(u64 *)(r10 - 8) = r1;"
        "r0 = *(u32 *)(r10 - 4);"
        "exit;"
    )
}

// A 32-bit spill at the start of a slot whose upper half holds other
// bytes: a 32-bit fill of the upper half is not the spilled register
// (bpf_stack_narrow_access_ok wants the fill at the slot's start).
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[log_level(2)]
#[msg("4: (61) r0 = *(u32 *)(r10 -4)         ; R0=scalar(smin=0,smax=umax=0xffffffff,var_off=(0x0; 0xffffffff)) R10=fp0 fp-8=mmmm0")]
pub fn fill32_upper_half_beside_spill32() {
    bpf_asm!(
        "r1 = 7;"
        "*(u32 *)(r10 - 4) = r1;"
        "w2 = 0;"
        "*(u32 *)(r10 - 8) = r2;"
        "r0 = *(u32 *)(r10 - 4);"
        "r0 = 0;"
        "exit;"
    )
}

// A 64-bit spill of a bounded scalar, an 8-bit fill of its low byte.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("3: (71) r1 = *(u8 *)(r10 -8)          ; R1=scalar(id=1,smin=smin32=0,smax=umax=smax32=umax32=63,var_off=(0x0; 0x3f)) R10=fp0 fp-8=scalar(id=1,smin=smin32=0,smax=umax=smax32=umax32=63,var_off=(0x0; 0x3f))")]
pub fn fill8_of_bounded_spill() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 &= 0x3f;"
        "*(u64 *)(r10 - 8) = r0;"
        "r1 = *(u8 *)(r10 - 8);"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// A 16-bit spill of a constant at the slot start.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0x1234)]
#[log_level(2)]
#[msg("1: (6b) *(u16 *)(r10 -8) = r1         ; R1=4660 R10=fp0 fp-8=??????4660")]
#[msg("2: (69) r0 = *(u16 *)(r10 -8)         ; R0=4660 R10=fp0 fp-8=??????4660")]
pub fn spill16_const() {
    bpf_asm!(
        "r1 = 0x1234;"
        "*(u16 *)(r10 - 8) = r1;"
        "r0 = *(u16 *)(r10 - 8);"
        "exit;"
    )
}

// Two 32-bit BPF_ST zeros: the first is a tracked 32-bit spill, the second
// turns the slot into zero and misc bytes, so the u64 read is unknown
// (0 at run time).
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[log_level(2)]
#[msg("0: (62) *(u32 *)(r10 -8) = 0          ; R10=fp0 fp-8=????0")]
#[msg("1: (62) *(u32 *)(r10 -4) = 0          ; R10=fp0 fp-8=0000mmmm")]
#[msg("2: (79) r0 = *(u64 *)(r10 -8)         ; R0=scalar() R10=fp0 fp-8=0000mmmm")]
pub fn two_st32_zeros_not_zero_slot() {
    bpf_asm!(
        "*(u32 *)(r10 - 8) = 0;"
        "*(u32 *)(r10 - 4) = 0;"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;"
    )
}

// A zero byte stored into a spilled zero: the slot becomes misc bytes
// with one zero byte, and the u64 read an unknown scalar.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[log_level(2)]
#[msg("2: (72) *(u8 *)(r10 -5) = 0           ; R10=fp0 fp-8=mmmm0mmm")]
#[msg("3: (79) r0 = *(u64 *)(r10 -8)         ; R0=scalar() R10=fp0 fp-8=mmmm0mmm")]
pub fn zero_byte_breaks_zero_slot() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 8) = r1;"
        "*(u8 *)(r10 - 5) = 0;"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;"
    )
}

// One byte of a spilled constant rewritten: the slot is misc bytes now.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(511)]
#[log_level(2)]
#[msg("3: (73) *(u8 *)(r10 -8) = r1          ; R1=255 R10=fp0 fp-8=mmmmmmm255")]
#[msg("4: (79) r0 = *(u64 *)(r10 -8)         ; R0=scalar() R10=fp0 fp-8=mmmmmmm255")]
pub fn byte_over_spilled_const() {
    bpf_asm!(
        "r1 = 0x101;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = 0xff;"
        "*(u8 *)(r10 - 8) = r1;"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;"
    )
}

// Half of a spilled ctx pointer overwritten (privileged): the fill is a
// scalar and may not be dereferenced.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("3: (79) r1 = *(u64 *)(r10 -8)         ; R1=scalar() R10=fp0 fp-8=0000mmmm")]
#[msg("R1 invalid mem access 'scalar'")]
#[msg("Verification failed: Register Type Safety: Invalid dereference")]
#[arch(x86_64, arm64)]
pub fn spilled_pointer_half_overwritten() {
    bpf_asm!(
        "*(u64 *)(r10 - 8) = r1;"
        "r2 = 0;"
        "*(u32 *)(r10 - 4) = r2;"
        "r1 = *(u64 *)(r10 - 8);"
        "r0 = *(u32 *)(r1 + 0);"
        "exit;"
    )
}

// The frame pointer spilled and filled is still a stack pointer.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(5)]
#[log_level(2)]
#[msg("2: (7b) *(u64 *)(r10 -8) = r1         ; R1=fp-16 R10=fp0 fp-8=fp-16")]
#[msg("5: (7b) *(u64 *)(r2 +0) = r3          ; R2=fp-16 R3=5 fp-16=5")]
pub fn spill_frame_pointer() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -16;"
        "*(u64 *)(r10 - 8) = r1;"
        "r2 = *(u64 *)(r10 - 8);"
        "r3 = 5;"
        "*(u64 *)(r2 + 0) = r3;"
        "r0 = *(u64 *)(r10 - 16);"
        "exit;"
    )
}

// A variable-offset read across an initialized and an uninitialized
// slot: allowed privileged, refused unprivileged.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[failure_unpriv]
#[msg_unpriv("R1 variable stack access prohibited for !root, var_off=(0xfffffffffffffff0; 0x8) off=-16")]
#[msg("7: (79) r0 = *(u64 *)(r1 +0)          ; R0=scalar() R1=fp(smin=smin32=-16,smax=smax32=-8,umin=0xfffffffffffffff0,umax=0xfffffffffffffff8,umin32=0xfffffff0,umax32=0xfffffff8,var_off=(0xfffffffffffffff0; 0x8)) fp-16=0")]
pub fn var_off_read_half_initialized() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 16) = r1;"
        "call %[bpf_get_prandom_u32];"
        "r0 &= 8;"
        "r1 = r10;"
        "r1 += -16;"
        "r1 += r0;"
        "r0 = *(u64 *)(r1 + 0);"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// A variable-offset write turns the slots it may hit into misc bytes:
// the constant spilled there is lost.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("9: (73) *(u8 *)(r1 +0) = r2           ; R1=fp(smin=smin32=-16,smax=smax32=-8,umin=0xfffffffffffffff0,umax=0xfffffffffffffff8,umin32=0xfffffff0,umax32=0xfffffff8,var_off=(0xfffffffffffffff0; 0x8)) R2=1 fp-8=mmmmmmmm fp-16=mmmmmmmm")]
#[msg("10: (79) r0 = *(u64 *)(r10 -8)        ; R0=scalar() R10=fp0 fp-8=mmmmmmmm")]
pub fn var_off_write_clobbers_spill() {
    bpf_asm!(
        "r1 = 3;"
        "*(u64 *)(r10 - 16) = r1;"
        "*(u64 *)(r10 - 8) = r1;"
        "call %[bpf_get_prandom_u32];"
        "r0 &= 8;"
        "r1 = r10;"
        "r1 += -16;"
        "r1 += r0;"
        "r2 = 1;"
        "*(u8 *)(r1 + 0) = r2;"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// A variable offset whose range reaches past fp-0.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("invalid variable-offset read from stack R1 var_off=(0x0; 0xffffffffffffffff) off=0 size=1")]
pub fn var_off_read_above_frame() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 8) = r1;"
        "call %[bpf_get_prandom_u32];"
        "r0 &= 15;"
        "r1 = r10;"
        "r1 += -8;"
        "r1 += r0;"
        "r0 = *(u8 *)(r1 + 0);"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// A variable-offset stack pointer passed to a helper as the key.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[log_level(2)]
#[msg("4: (57) r0 &= 4                       ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=4,var_off=(0x0; 0x4))")]
#[msg("7: (0f) r2 += r0")]
#[msg("10: (85) call bpf_map_lookup_elem#1   ;")]
#[xlated("10: r1 += 296")]
#[xlated("11: r0 = *(u32 *)(r2 +0)")]
#[xlated("12: if r0 >= 0x1 goto pc+3")]
#[xlated("13: r0 <<= 3")]
#[xlated("14: r0 += r1")]
#[xlated("15: goto pc+1")]
#[xlated("16: r0 = 0")]
#[arch(x86_64, arm64)] // riscv64 zero-extends 32-bit results: other xlated numbering
pub fn var_off_stack_as_helper_mem() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 16) = r1;"
        "*(u64 *)(r10 - 8) = r1;"
        "call %[bpf_get_prandom_u32];"
        "r0 &= 4;"
        "r2 = r10;"
        "r2 += -16;"
        "r2 += r0;"
        "r1 = %[arr] ll;"
        "call %[bpf_map_lookup_elem];"
        "r0 = 0;"
        "exit;",
        imm_addr(arr),
        imm(bpf_map_lookup_elem),
        imm(bpf_get_prandom_u32),
    )
}

