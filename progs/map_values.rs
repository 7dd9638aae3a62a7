//! Map values and helper arguments: NULL checks in their forms, bounds of
//! accesses at constant and variable offsets, the values seen by the test
//! run, and the errors for bad helper arguments (types, sizes, stack
//! ranges, uninitialized and unbounded lengths).

use bpf_selftest::prelude::*;

#[map]
static vals: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 16, 4);
#[map]
static h: Map = Map::new(BPF_MAP_TYPE_HASH, 4, 8, 4);

// A lookup with an unknown key, NULL-checked with `!= 0`: the value is
// read on the taken edge.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[log_level(2)]
#[msg("8: (55) if r0 != 0x0 goto pc+1        ; R0=0")]
#[msg("from 8 to 10: R0=map_value(id=1,map=vals,ks=4,vs=16) R10=fp0")]
pub fn null_check_jne() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 &= 3;"
        "*(u32 *)(r10 - 4) = r0;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[vals] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 != 0 goto 1f;"
        "exit;"
    "1:"
        "r0 = *(u64 *)(r0 + 8);"
        "exit;",
        imm(bpf_get_prandom_u32),
        imm_addr(vals),
        imm(bpf_map_lookup_elem),
    )
}

// The NULL check done in 32 bits does not make the pointer safe.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("7: (16) if w0 == 0x0 goto pc+1        ; R0=map_value_or_null(id=1,map=h,ks=4,vs=8)")]
#[msg("R0 invalid mem access 'map_value_or_null'")]
#[msg("Verification failed: Register Type Safety: Invalid dereference")]
pub fn null_check_jmp32() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[h] ll;"
        "call %[bpf_map_lookup_elem];"
        "if w0 == 0 goto 1f;"
        "r0 = *(u64 *)(r0 + 0);"
    "1:"
        "r0 = 0;"
        "exit;",
        imm_addr(h),
        imm(bpf_map_lookup_elem),
    )
}

// Arithmetic on a maybe-NULL value pointer is refused before the check.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("6: (85) call bpf_map_lookup_elem#1    ; R0=map_value_or_null(id=1,map=h,ks=4,vs=8)")]
#[msg("R0 pointer arithmetic on map_value_or_null prohibited, null-check it first")]
#[msg("Verification failed: Register Type Safety: Pointer arithmetic before NULL check")]
pub fn arith_on_value_or_null() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[h] ll;"
        "call %[bpf_map_lookup_elem];"
        "r0 += 4;"
        "if r0 == 0 goto 1f;"
        "r0 = *(u32 *)(r0 + 0);"
    "1:"
        "r0 = 0;"
        "exit;",
        imm_addr(h),
        imm(bpf_map_lookup_elem),
    )
}

// A variable offset in [0, 12] and a u32 read in a hash map's 8-byte
// value: the maximum offset is past the end.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("10: (57) r0 &= 12                     ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=12,var_off=(0x0; 0xc))")]
#[msg("invalid access to map value, value_size=8 off=12 size=4")]
#[msg("Verification failed: Memory Safety: Access outside bounds")]
pub fn value_var_off_past_hash_value() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[h] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r6 = r0;"
        "call %[bpf_get_prandom_u32];"
        "r0 &= 12;"
        "r6 += r0;"
        "r0 = *(u32 *)(r6 + 0);"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm_addr(h),
        imm(bpf_map_lookup_elem),
        imm(bpf_get_prandom_u32),
    )
}

// The same with offset up to 13: past the end of the 16-byte value.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("10: (25) if r0 > 0xd goto pc+3        ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=13,var_off=(0x0; 0xf))")]
#[msg("invalid access to map value, value_size=16 off=13 size=4")]
#[msg("Verification failed: Memory Safety: Access outside bounds")]
#[arch(x86_64, arm64)]
pub fn value_var_off_one_past() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[vals] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r6 = r0;"
        "call %[bpf_get_prandom_u32];"
        "if r0 > 13 goto 1f;"
        "r6 += r0;"
        "r0 = *(u32 *)(r6 + 0);"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm_addr(vals),
        imm(bpf_map_lookup_elem),
        imm(bpf_get_prandom_u32),
    )
}

// A signed offset that may be negative.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("11: (65) if r0 s> 0x8 goto pc+3       ; R0=scalar(smin=0xffffffff80000000,smax=smax32=8)")]
#[msg("value -2147483648 makes map_value pointer be out of bounds")]
#[msg("Verification failed: Register Type Safety: Pointer offset is not safe")]
pub fn value_negative_var_off() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[vals] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r6 = r0;"
        "call %[bpf_get_prandom_u32];"
        "r0 = (s32)r0;"
        "if r0 s> 8 goto 1f;"
        "r6 += r0;"
        "r0 = *(u32 *)(r6 + 0);"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm_addr(vals),
        imm(bpf_map_lookup_elem),
        imm(bpf_get_prandom_u32),
    )
}

// A negative constant offset on a value pointer.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("invalid access to map value, value_size=16 off=-4 size=4")]
#[msg("Verification failed: Memory Safety: Access outside bounds")]
pub fn value_negative_const_off() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[vals] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r0 = *(u32 *)(r0 - 4);"
    "1:"
        "r0 = 0;"
        "exit;",
        imm_addr(vals),
        imm(bpf_map_lookup_elem),
    )
}

// Write then read a value through two lookups of the same key.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(42)]
#[log_level(2)]
#[msg("14: (85) call bpf_map_lookup_elem#1   ; R0=map_value_or_null(id=2,map=vals,ks=4,vs=16)")]
#[msg("16: (61) r0 = *(u32 *)(r0 +12)        ; R0=scalar(smin=0,smax=umax=0xffffffff,var_off=(0x0; 0xffffffff))")]
pub fn value_write_then_lookup_again() {
    bpf_asm!(
        "r1 = 2;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[vals] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r1 = 0x2a;"
        "*(u32 *)(r0 + 12) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[vals] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r0 = *(u32 *)(r0 + 12);"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm_addr(vals),
        imm(bpf_map_lookup_elem),
    )
}

// A scalar where a map is expected.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("R1 type=scalar expected=map_ptr")]
#[msg("Verification failed: Call Type Safety: Invalid call argument")]
pub fn scalar_as_map_arg() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = 0;"
        "call %[bpf_map_lookup_elem];"
        "r0 = 0;"
        "exit;",
        imm(bpf_map_lookup_elem),
    )
}

// A key that runs past the top of the frame: only 2 bytes at fp-2.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("3: (07) r2 += -2                      ; R2=fp-2")]
#[msg("invalid read from stack R2 off=-2 size=4")]
pub fn key_crosses_frame_top() {
    bpf_asm!(
        "r1 = 0;"
        "*(u16 *)(r10 - 2) = r1;"
        "r2 = r10;"
        "r2 += -2;"
        "r1 = %[h] ll;"
        "call %[bpf_map_lookup_elem];"
        "r0 = 0;"
        "exit;",
        imm_addr(h),
        imm(bpf_map_lookup_elem),
    )
}

// Update with a value only half initialized (unprivileged refuses the
// read of the uninitialized half).
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[log_level(2)]
#[failure_unpriv]
#[msg_unpriv("invalid read from stack R3 off -24+8 size 16")]
#[msg("10: (85) call bpf_map_update_elem#2   ; R0=scalar()")]
pub fn update_value_half_init() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "*(u64 *)(r10 - 24) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r3 = r10;"
        "r3 += -24;"
        "r1 = %[vals] ll;"
        "r4 = 0;"
        "call %[bpf_map_update_elem];"
        "exit;",
        imm_addr(vals),
        imm(bpf_map_update_elem),
    )
}

// bpf_skb_load_bytes with an unbounded length.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("R4 min value is negative, either use unsigned or 'var &= const'")]
pub fn skb_load_bytes_unbounded_len() {
    bpf_asm!(
        "r6 = r1;"
        "call %[bpf_get_prandom_u32];"
        "r4 = r0;"
        "r1 = r6;"
        "r2 = 0;"
        "r3 = r10;"
        "r3 += -16;"
        "call %[bpf_skb_load_bytes];"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
        imm(bpf_skb_load_bytes),
    )
}

// ... with a length bounded to [1, 16]: accepted and run.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[log_level(2)]
#[msg("4: (07) r4 += 1                       ; R4=scalar(smin=umin=smin32=umin32=1,smax=umax=smax32=umax32=16,var_off=(0x0; 0x1f))")]
pub fn skb_load_bytes_bounded_len() {
    bpf_asm!(
        "r6 = r1;"
        "call %[bpf_get_prandom_u32];"
        "r4 = r0;"
        "r4 &= 15;"
        "r4 += 1;"
        "r1 = r6;"
        "r2 = 0;"
        "r3 = r10;"
        "r3 += -16;"
        "call %[bpf_skb_load_bytes];"
        "exit;",
        imm(bpf_get_prandom_u32),
        imm(bpf_skb_load_bytes),
    )
}

// ... with a length of zero.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("R4 invalid zero-sized read: u64=[0,0]")]
pub fn skb_load_bytes_zero_len() {
    bpf_asm!(
        "r2 = 0;"
        "r3 = r10;"
        "r3 += -16;"
        "r4 = 0;"
        "call %[bpf_skb_load_bytes];"
        "r0 = 0;"
        "exit;",
        imm(bpf_skb_load_bytes),
    )
}

// ... into a buffer smaller than the length.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("invalid write to stack R3 off=-8 size=16")]
pub fn skb_load_bytes_buffer_too_small() {
    bpf_asm!(
        "r2 = 0;"
        "r3 = r10;"
        "r3 += -8;"
        "r4 = 16;"
        "call %[bpf_skb_load_bytes];"
        "r0 = 0;"
        "exit;",
        imm(bpf_skb_load_bytes),
    )
}

// A helper argument register that a previous call clobbered.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("R2 !read_ok")]
#[msg("Verification failed: Register Type Safety: Unreadable register")]
pub fn helper_arg_clobbered_by_call() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "call %[bpf_get_prandom_u32];"
        "r1 = %[h] ll;"
        "call %[bpf_map_lookup_elem];"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
        imm_addr(h),
        imm(bpf_map_lookup_elem),
    )
}

// A map value pointer may be a key of another lookup.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[log_level(2)]
#[msg("6: (85) call bpf_map_lookup_elem#1    ; R0=map_value(map=vals,ks=4,vs=16)")]
#[msg("12: (15) if r0 == 0x0 goto pc+2       ; R0=map_value(id=1,map=h,ks=4,vs=8)")]
pub fn value_as_key() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[vals] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r2 = r0;"
        "r1 = %[h] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r0 = 1;"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm_addr(vals),
        imm_addr(h),
        imm(bpf_map_lookup_elem),
    )
}
