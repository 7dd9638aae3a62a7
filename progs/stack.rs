//! The stack: spills and fills of scalars and pointers, constant and
//! zero slots, uninitialized reads (allowed privileged, refused
//! unprivileged), bounds of the 512-byte frame, alignment and
//! variable-offset access.

use bpf_selftest::prelude::*;

// A spilled bounded scalar comes back with its bounds.
#[sec("socket")]
#[success]
#[log_level(2)]
#[msg(
    "2: (7b) *(u64 *)(r10 -8) = r0         ; R0=scalar(id=1,smin=smin32=0,smax=umax=smax32=umax32=15,var_off=(0x0; 0xf)) R10=fp0 fp-8=scalar(id=1,smin=smin32=0,smax=umax=smax32=umax32=15,var_off=(0x0; 0xf))"
)]
#[msg(
    "3: (79) r1 = *(u64 *)(r10 -8)         ; R1=scalar(id=1,smin=smin32=0,smax=umax=smax32=umax32=15,var_off=(0x0; 0xf))"
)]
pub fn spill_fill_keeps_bounds() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 &= 0xf;"
        "*(u64 *)(r10 - 8) = r0;"
        "r1 = *(u64 *)(r10 - 8);"
        "r0 = r1;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// A spilled ctx pointer is still the ctx when filled: skb->len through it.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(50)]
#[msg("0: (7b) *(u64 *)(r10 -8) = r1         ; R1=ctx() R10=fp0 fp-8=ctx()")]
#[msg("2: (79) r2 = *(u64 *)(r10 -8)         ; R2=ctx() R10=fp0 fp-8=ctx()")]
pub fn spill_fill_ctx_pointer() {
    bpf_asm!(
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = 0;"
        "r2 = *(u64 *)(r10 - 8);"
        "r0 = *(u32 *)(r2 + 0);"
        "exit;"
    )
}

// A 4-byte fill of a spilled pointer is not a pointer.
#[sec("socket")]
#[failure]
#[log_level(2)]
#[msg("1: (61) r2 = *(u32 *)(r10 -8)")]
#[msg("invalid size of register fill")]
pub fn fill_half_of_spilled_pointer() {
    bpf_asm!(
        "*(u64 *)(r10 - 8) = r1;"
        "r2 = *(u32 *)(r10 - 8);"
        "r0 = *(u32 *)(r2 + 0);"
        "exit;"
    )
}

// Reading a never-written slot: privileged programs may (the value is
// unknown), unprivileged ones may not.
#[sec("socket")]
#[success]
#[log_level(2)]
#[failure_unpriv]
#[msg("0: (79) r0 = *(u64 *)(r10 -8)         ; R0=scalar() R10=fp0")]
#[msg_unpriv("invalid read from stack R10 off=-8 size=8")]
pub fn read_uninit_slot() {
    bpf_asm!(
        "r0 = *(u64 *)(r10 - 8);"
        "r0 = 0;"
        "exit;"
    )
}

// The frame is 512 bytes: fp-512 is its last slot.
#[sec("socket")]
#[success]
#[retval(7)]
#[log_level(2)]
#[msg("1: (7b) *(u64 *)(r10 -512) = r1       ; R1=7 R10=fp0 fp-512=7")]
pub fn deepest_slot() {
    bpf_asm!(
        "r1 = 7;"
        "*(u64 *)(r10 - 512) = r1;"
        "r0 = *(u64 *)(r10 - 512);"
        "exit;"
    )
}

// ... and fp-520 is outside it.
#[sec("socket")]
#[failure]
#[msg("invalid write to stack R10 off=-520 size=8")]
pub fn write_below_frame() {
    bpf_asm!(
        "r1 = 7;"
        "*(u64 *)(r10 - 520) = r1;"
        "r0 = 0;"
        "exit;"
    )
}

// Nothing lives at or above the frame pointer.
#[sec("socket")]
#[failure]
#[msg("invalid write to stack R10 off=0 size=8")]
pub fn write_above_frame_pointer() {
    bpf_asm!(
        "r1 = 7;"
        "*(u64 *)(r10 + 0) = r1;"
        "r0 = 0;"
        "exit;"
    )
}

// Stack accesses must be aligned to their size.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("misaligned stack access off 0+-4 size 8")]
pub fn misaligned_stack_write() {
    bpf_asm!(
        "r1 = 7;"
        "*(u64 *)(r10 - 4) = r1;"
        "r0 = 0;"
        "exit;"
    )
}

// A BPF_ST of 0 makes a zero slot: the fill is the constant 0.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(0)]
#[msg("0: (7a) *(u64 *)(r10 -8) = 0          ; R10=fp0 fp-8=0")]
#[msg("1: (79) r0 = *(u64 *)(r10 -8)         ; R0=0 R10=fp0 fp-8=0")]
pub fn store_imm_zero_slot() {
    bpf_asm!(
        "*(u64 *)(r10 - 8) = 0;"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;"
    )
}

// A BPF_ST of a non-zero imm: the slot becomes a spilled constant.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(42)]
#[msg("0: (7a) *(u64 *)(r10 -8) = 42         ; R10=fp0 fp-8=42")]
#[msg("1: (79) r0 = *(u64 *)(r10 -8)         ; R0=42 R10=fp0 fp-8=42")]
pub fn store_imm_const_slot() {
    bpf_asm!(
        "*(u64 *)(r10 - 8) = 42;"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;"
    )
}

// A 32-bit spill of a constant into the upper half of a slot (fp-4) is
// not tracked: the slot becomes misc bytes and the fill an unknown u32.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(7)]
#[msg("1: (63) *(u32 *)(r10 -4) = r1         ; R1=7 R10=fp0 fp-8=mmmm????")]
#[msg(
    "2: (61) r0 = *(u32 *)(r10 -4)         ; R0=scalar(smin=0,smax=umax=0xffffffff,var_off=(0x0; 0xffffffff)) R10=fp0 fp-8=mmmm????"
)]
pub fn spill32_const_high_half_lost() {
    bpf_asm!(
        "w1 = 7;"
        "*(u32 *)(r10 - 4) = r1;"
        "r0 = *(u32 *)(r10 - 4);"
        "exit;"
    )
}

// At the start of a slot (fp-8) the same 32-bit spill is tracked and the
// fill is the constant.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(7)]
#[msg("1: (63) *(u32 *)(r10 -8) = r1         ; R1=7 R10=fp0 fp-8=????7")]
#[msg("2: (61) r0 = *(u32 *)(r10 -8)         ; R0=7 R10=fp0 fp-8=????7")]
pub fn spill32_const_tracked() {
    bpf_asm!(
        "w1 = 7;"
        "*(u32 *)(r10 - 8) = r1;"
        "r0 = *(u32 *)(r10 - 8);"
        "exit;"
    )
}

// Byte stores make misc slots: the u64 read of them is an unknown scalar.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(0x201)]
#[msg("3: (73) *(u8 *)(r10 -8) = r1          ; R1=1 R10=fp0 fp-8=mmmmmmm1")]
#[msg("5: (73) *(u8 *)(r10 -7) = r1          ; R1=2 R10=fp0 fp-8=mmmmmmmm")]
#[msg("6: (79) r0 = *(u64 *)(r10 -8)         ; R0=scalar() R10=fp0 fp-8=mmmmmmmm")]
pub fn bytes_then_u64_read() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = 1;"
        "*(u8 *)(r10 - 8) = r1;"
        "r1 = 2;"
        "*(u8 *)(r10 - 7) = r1;"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;"
    )
}

// A byte store into a spilled pointer turns it into a scalar: the fill
// cannot be dereferenced.
#[sec("socket")]
#[failure]
#[log_level(2)]
#[msg("2: (73) *(u8 *)(r10 -8) = r2          ; R2=0 R10=fp0 fp-8=mmmmmmm0")]
#[msg("3: (79) r1 = *(u64 *)(r10 -8)         ; R1=scalar() R10=fp0 fp-8=mmmmmmm0")]
#[msg("R1 invalid mem access 'scalar'")]
#[arch(x86_64, arm64)]
pub fn spilled_pointer_clobbered() {
    bpf_asm!(
        "*(u64 *)(r10 - 8) = r1;"
        "r2 = 0;"
        "*(u8 *)(r10 - 8) = r2;"
        "r1 = *(u64 *)(r10 - 8);"
        "r0 = *(u32 *)(r1 + 0);"
        "exit;"
    )
}

// The same clobber unprivileged is refused at the store.
#[sec("socket")]
#[success]
#[failure_unpriv]
#[retval(0)]
#[msg_unpriv("2: (73) *(u8 *)(r10 -8) = r2")]
#[msg_unpriv("attempt to corrupt spilled pointer on stack")]
#[msg_unpriv("Verification failed: Memory Safety: Stack spill corruption")]
pub fn spilled_pointer_clobber_unpriv() {
    bpf_asm!(
        "*(u64 *)(r10 - 8) = r1;"
        "r2 = 0;"
        "*(u8 *)(r10 - 8) = r2;"
        "r0 = 0;"
        "exit;"
    )
}

// Stack pointer arithmetic: a store through fp-8 computed in r1.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(5)]
#[msg("3: (7b) *(u64 *)(r1 +8) = r2          ; R1=fp-16 R2=5 fp-8=5")]
pub fn stack_ptr_arith() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -16;"
        "r2 = 5;"
        "*(u64 *)(r1 + 8) = r2;"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;"
    )
}

// A variable-offset read (fp-16 + [0, 8]) of two initialized slots.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[failure_unpriv]
#[retval(3)]
#[msg(
    "8: R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=8,var_off=(0x0; 0x8)) R1=fp(smin=smin32=-16,smax=smax32=-8,umin=0xfffffffffffffff0,umax=0xfffffffffffffff8,umin32=0xfffffff0,umax32=0xfffffff8,var_off=(0xfffffffffffffff0; 0x8))"
)]
#[msg("8: (79) r0 = *(u64 *)(r1 +0)          ; R0=scalar()")]
#[msg_unpriv(
    "R1 variable stack access prohibited for !root, var_off=(0xfffffffffffffff0; 0x8) off=-16"
)]
pub fn var_off_read_initialized() {
    bpf_asm!(
        "r1 = 3;"
        "*(u64 *)(r10 - 8) = r1;"
        "*(u64 *)(r10 - 16) = r1;"
        "call %[bpf_get_prandom_u32];"
        "r0 &= 8;"
        "r1 = r10;"
        "r1 += -16;"
        "r1 += r0;"
        "r0 = *(u64 *)(r1 + 0);"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// A variable-offset write; every slot it may hit loses its spilled value.
#[sec("socket")]
#[success]
#[log_level(2)]
// both slots the write may hit become misc
#[msg("R2=1 fp-8=mmmmmmmm fp-16=mmmmmmmm")]
#[msg("10: (79) r0 = *(u64 *)(r10 -16)       ; R0=scalar() R10=fp0 fp-16=mmmmmmmm")]
pub fn var_off_write() {
    bpf_asm!(
        "r1 = 3;"
        "*(u64 *)(r10 - 8) = r1;"
        "*(u64 *)(r10 - 16) = r1;"
        "call %[bpf_get_prandom_u32];"
        "r0 &= 8;"
        "r1 = r10;"
        "r1 += -16;"
        "r1 += r0;"
        "r2 = 1;"
        "*(u64 *)(r1 + 0) = r2;"
        "r0 = *(u64 *)(r10 - 16);"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// A variable offset that may reach above the frame.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("invalid variable-offset write to stack R1 var_off=(0x8; 0xfffffffffffffff0) off=0 size=8")]
pub fn var_off_out_of_frame() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 &= 16;"
        "r1 = r10;"
        "r1 += -8;"
        "r1 += r0;"
        "r2 = 1;"
        "*(u64 *)(r1 + 0) = r2;"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// An unbounded variable offset.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("math between fp pointer and register with unbounded min value is not allowed")]
#[msg("Verification failed: Register Type Safety: Pointer offset is not safe")]
pub fn var_off_unbounded() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r1 = r10;"
        "r1 += r0;"
        "r2 = 1;"
        "*(u64 *)(r1 + 0) = r2;"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// Stack depth (log level 4): the deepest slot used, rounded to 8.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(4)]
#[retval(0)]
// fp-44 rounds the depth up to 48
#[msg("stack depth max 48")]
#[msg("subprog 0 (stack_depth_stats) main insns_self 5 insns_total 5 stack 48")]
pub fn stack_depth_stats() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 8) = r1;"
        "*(u32 *)(r10 - 44) = r1;"
        "r0 = 0;"
        "exit;"
    )
}
