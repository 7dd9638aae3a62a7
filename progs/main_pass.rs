//! The verifier's main pass without calls: programs each of which exercises
//! one rule of `do_check` (stack, ctx, packets, pointer arithmetic, loops,
//! precision, Spectre sanitation), with the message 7.3 gives when it
//! refuses them. Their goldens let `conform` measure the model's main pass
//! end to end, log and diagnostics included.

use bpf_selftest::prelude::*;

/// One array slot of 8 bytes, for direct value access (`slot__value`).
#[map]
static slot: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 8, 1);

#[sec("socket")]
#[kernel("7.3")]
#[description("main pass: reading a register never written")]
#[failure]
#[msg("R3 !read_ok")]
#[msg("Verification failed: Register Type Safety: Unreadable register")]
fn uninit_register() {
    bpf_asm!("r0 = r3; exit;")
}

#[sec("socket")]
#[description("main pass: uninitialized stack read, unprivileged")]
#[success]
#[failure_unpriv]
#[msg_unpriv("invalid read from stack R10 off=-8 size=8")]
fn uninit_stack_unpriv() {
    bpf_asm!("r2 = *(u64 *)(r10 - 8); r0 = 0; exit;")
}

#[sec("socket")]
#[description("main pass: stack write out of bounds")]
#[failure]
#[msg("invalid write to stack R10 off=-520 size=8")]
fn stack_oob() {
    bpf_asm!("*(u64 *)(r10 - 520) = r1; r0 = 0; exit;")
}

#[sec("socket")]
#[description("main pass: spill and fill keep the scalar")]
#[success]
#[retval(5)]
fn spill_fill() {
    bpf_asm!("r1 = 5; *(u64 *)(r10 - 8) = r1; r0 = *(u64 *)(r10 - 8); exit;")
}

#[sec("socket")]
#[kernel("7.3")]
#[description("main pass: a scalar filled from the stack is no pointer")]
#[failure]
#[msg("R3 invalid mem access 'scalar'")]
#[msg("Causal path:")]
fn fill_then_deref() {
    bpf_asm!("r2 = 0; *(u64 *)(r10 - 8) = r2; r3 = *(u64 *)(r10 - 8); r0 = *(u32 *)(r3 + 0); exit;")
}

#[sec("socket")]
#[description("main pass: ctx field past the end of __sk_buff")]
#[failure]
#[msg("invalid bpf_context access off=76 size=4")]
fn ctx_bad_offset() {
    bpf_asm!("r0 = *(u32 *)(r1 + 76); exit;")
}

#[sec("socket")]
#[kernel("7.3")]
#[description("main pass: modified ctx pointer")]
#[failure]
#[msg("dereference of modified ctx ptr R1 off=4 disallowed")]
#[msg("dereference requires the original a context pointer pointer")]
fn ctx_modified() {
    bpf_asm!("r1 += 4; r0 = *(u32 *)(r1 + 0); exit;")
}

#[sec("xdp")]
#[kernel("7.3")]
#[description("main pass: packet access without a bounds check")]
#[failure]
#[msg("invalid access to packet, off=0 size=1, R2(id=0,off=0,r=0)")]
#[msg("Verification failed: Memory Safety: Access outside bounds")]
fn xdp_unchecked() {
    bpf_asm!("r2 = *(u32 *)(r1 + 0); r0 = *(u8 *)(r2 + 0); r0 = 2; exit;")
}

#[sec("xdp")]
#[description("main pass: packet access after a bounds check")]
#[success]
#[retval(2)]
fn xdp_checked() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 0);"
        "r3 = *(u32 *)(r1 + 4);"
        "r4 = r2;"
        "r4 += 8;"
        "if r4 > r3 goto l0_%=;"
        "r0 = *(u8 *)(r2 + 0);"
    "l0_%=:"
        "r0 = 2;"
        "exit;"
    )
}

#[sec("socket")]
#[description("main pass: map value read past its end")]
#[failure]
#[msg("invalid access to map value, value_size=8 off=8 size=4")]
fn map_value_oob() {
    bpf_asm!("r1 = slot__value ll; r0 = *(u32 *)(r1 + 8); exit;")
}

#[sec("socket")]
#[kernel("7.3")]
#[description("main pass: pointer arithmetic the verifier refuses")]
#[failure]
#[msg("R1 bitwise operator &= on pointer prohibited")]
#[msg("Verification failed: Register Type Safety: Bitwise operation on pointer")]
fn ptr_and() {
    bpf_asm!("r1 &= 1; r0 = 0; exit;")
}

#[sec("socket")]
#[description("main pass: returning a pointer, unprivileged")]
#[success]
#[failure_unpriv]
#[msg_unpriv("R0 leaks addr as return value")]
fn ret_ptr_unpriv() {
    bpf_asm!("r0 = r10; exit;")
}

#[sec("socket")]
#[description("main pass: bounded loop")]
#[success]
#[retval(10)]
fn bounded_loop() {
    bpf_asm!(
        "r0 = 0;"
    "l0_%=:"
        "r0 += 1;"
        "if r0 < 10 goto l0_%=;"
        "exit;"
    )
}

#[sec("socket")]
#[description("main pass: infinite loop")]
#[failure]
#[msg("infinite loop detected at insn 1")]
fn infinite_loop() {
    bpf_asm!(
        "r0 = 0;"
    "l0_%=:"
        "if r0 < 10 goto l0_%=;"
        "exit;"
    )
}

#[sec("socket")]
#[description("main pass: may_goto loop whose counter walks off the stack")]
#[failure]
#[msg("invalid read from stack R8 off=0 size=1")]
fn may_goto_unbounded() {
    bpf_asm!(
        "r7 = 0;"
    "l0_%=:"
        "may_goto l1_%=;"
        "r7 += 8;"
        "goto l0_%=;"
    "l1_%=:"
        "r8 = r10;"
        "r8 += -16;"
        "r8 += r7;"
        "r0 = *(u8 *)(r8 + 0);"
        "exit;"
    )
}

#[sec("socket")]
#[description("main pass: map value pointer arithmetic with mixed-sign offset, unprivileged")]
#[success]
#[failure_unpriv]
#[msg_unpriv("R2 has unknown scalar with mixed signed bounds, pointer arithmetic with it prohibited for !root")]
fn map_mixed_bounds_unpriv() {
    bpf_asm!(
        "r1 = slot__value ll;"
        "r2 = *(u8 *)(r1 + 0);"
        "r2 -= 2;"
        "r1 += r2;"
        "r0 = 0;"
        "exit;"
    )
}

#[sec("socket")]
#[description("main pass: a speculative path that would fail is cut off, unprivileged")]
#[success]
#[success_unpriv]
#[retval(0)]
fn speculative_path_unpriv() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 0);"
        "r2 &= 1;"
        "r3 = 0;"
        "if r2 > 3 goto l0_%=;"
        "r0 = 0;"
        "exit;"
    "l0_%=:"
        "r0 = *(u64 *)(r3 + 0);"
        "exit;"
    )
}
