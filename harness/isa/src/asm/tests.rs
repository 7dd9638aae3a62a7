//! The assembler's own behaviour: labels, operands, relocations, errors.
//! (Encodings are checked against llvm-mc-19 in tests/isa.rs.)

use super::*;

fn asm(src: &str) -> Program {
    assemble(src).unwrap_or_else(|e| panic!("{src:?}: {e}"))
}

fn err(src: &str) -> AsmError {
    assemble(src).expect_err(src)
}

#[test]
fn separators_comments_and_kernel_string_pasting() {
    // C string literals concatenate without newlines: `;` separates.
    let p = asm("r6 = r10;r6 += -8;/* c */ r0 = 0; // tail\n# hash\nexit;");
    assert_eq!(p.insns.len(), 4);
    let p = asm("r0 = 0 /* spans\n lines */ exit");
    assert_eq!(p.insns.len(), 2);
}

#[test]
fn labels_numeric_and_unique() {
    let p = asm("1: r0 = 0; if r0 != 0 goto 1b; if r0 == 0 goto 1f; 1: exit; l0_%=: goto l0_%=; l_exit%=: exit");
    assert_eq!(p.insns[1].off, -2); // back to the first `1:`
    assert_eq!(p.insns[2].off, 0); // forward to the next `1:`
    assert_eq!(p.insns[4].off, -1);
    assert_eq!(p.labels.get("l0_%="), Some(&4));
    assert_eq!(p.labels.get("l_exit%="), Some(&5));
    // `s%=` is the signed modulo, not a label
    let p = asm("w0 s%= 3");
    assert_eq!(p.insns[0].off, 1);
}

#[test]
fn jump_targets_count_ld_imm64_slots() {
    let p = asm("goto end; r1 = 0x1234567890 ll; end: exit");
    assert_eq!(p.insns[0].off, 2);
    let p = asm("gotol end; r0 = 0; end: exit");
    assert_eq!(p.insns[0].imm, 1);
}

#[test]
fn operands_resolve_through_the_caller() {
    let ops = |n: &str| match n {
        "bpf_get_prandom_u32" => Some(Operand::Imm(7)),
        "off" => Some(Operand::Imm(-8)),
        "map" => Some(Operand::Sym("map_a".into())),
        "kf" => Some(Operand::Sym("bpf_iter_num_new".into())),
        "insn" => Some(Operand::Imm(0x0000_0001_0000_00e5u64 as i64)),
        _ => None,
    };
    // `(r10 %[off])` with a negative operand is how GCC hands `(r10 -8)` over
    let p = assemble_with("r1 = *(u64 *)(r10 %[off])", &ops).unwrap();
    assert_eq!(p.insns[0].off, -8);
    let p = assemble_with(
        "call %[bpf_get_prandom_u32]; r1 = *(u64 *)(r10 + %[off]); r2 = %[map] ll; call %[kf]; .8byte %[insn]; exit",
        &ops,
    )
    .unwrap();
    assert_eq!(p.insns[0], Insn::new(0x85, 0, 0, 0, 7));
    assert_eq!(p.insns[1].off, -8);
    assert_eq!(
        p.relocs,
        vec![
            Reloc { insn: 2, kind: RelocKind::LdImm64, symbol: "map_a".into(), pos: 63 },
            Reloc { insn: 4, kind: RelocKind::Call, symbol: "bpf_iter_num_new".into(), pos: 79 },
        ]
    );
    assert_eq!(p.insns[5], Insn::new(0xe5, 0, 0, 0, 1));
}

#[test]
fn calls_helpers_labels_and_symbols() {
    let p = asm("call bpf_map_lookup_elem; call sub; call other; exit; sub: r0 = 1; exit");
    assert_eq!(p.insns[0], Insn::new(0x85, 0, 0, 0, 1));
    assert_eq!((p.insns[1].src, p.insns[1].imm), (1, 2)); // pseudo call to `sub`
    assert_eq!(p.relocs.len(), 1);
    assert_eq!(p.relocs[0].symbol, "other");
    assert_eq!(p.insns[2].src, 0, "unresolved until linked");
    // the address of a subprogram: BPF_PSEUDO_FUNC
    let p = asm("r2 = cb ll; exit; cb: exit");
    assert_eq!((p.insns[0].src, p.insns[0].imm), (4, 2));
}

#[test]
fn errors_name_line_column_and_what_was_expected() {
    let e = err("r0 = 1;\n  r1 = *(u99 *)(r10 - 8);");
    assert_eq!((e.line, e.col), (2, 10));
    assert!(e.msg.contains("expected u8, u16, u32 or u64"), "{}", e.msg);
    let e = err("r0 += w1");
    assert!(e.msg.contains("same width"), "{}", e.msg);
    let e = err("goto nowhere");
    assert_eq!(e.msg, "undefined label 'nowhere'");
    assert_eq!((e.line, e.col), (1, 6));
    let e = err("r12 = 1");
    assert_eq!(e.msg, "'r12' is not a BPF register (r0-r11, w0-w11)");
    let e = err("r0 = 1 / 0");
    assert!(e.msg.contains("division by zero"), "{}", e.msg);
    let e = err(".byte 1; exit");
    assert!(e.msg.contains("8-byte slot"), "{}", e.msg);
    let e = err(".rept 2; r0 = 0");
    assert_eq!(e.msg, ".rept without .endr");
    let e = err("if r0 == 0 goto +40000");
    assert!(e.msg.contains("does not fit 16 bits"), "{}", e.msg);
    let e = err("x: x: exit");
    assert!(e.msg.contains("defined twice"), "{}", e.msg);
    let e = err("call %[nope]");
    assert_eq!(e.msg, "unknown operand %[nope]");
    let e = err("r0 = 1 r1 = 2");
    assert!(e.msg.contains("expected end of statement"), "{}", e.msg);
    let e = err("goto 1b");
    assert!(e.msg.contains("no label 1"), "{}", e.msg);
}

#[test]
fn never_panics_on_mangled_input() {
    // Every prefix and a byte-flipped copy of a varied program.
    let src = "r1 = %[m] ll; lock *(u64 *)(r10 - 8) += r1; r0 = atomic_fetch_xor((u32 *)(r1 + 4), r0);\
               w0 = cmpxchg32_32(r1 + 0, w0, w2); r0 = *(u16 *)skb[r6 + 4]; if w1 s<= 0x10 goto 1f;\
               1: r0 = be64 r0; r3 = addr_space_cast(r3, 1, 0); .8byte 0x1234; /* x */ exit";
    let ops = |_: &str| Some(Operand::Sym("m".into()));
    for end in 0..=src.len() {
        if src.is_char_boundary(end) {
            let _ = assemble_with(&src[..end], &ops);
        }
    }
    let bytes = src.as_bytes();
    for i in 0..bytes.len() {
        for b in [b'%', b'[', b'(', b'*', b'-', b'9', b'x', b';', b'\n', 0xff] {
            let mut v = bytes.to_vec();
            v[i] = b;
            let s = String::from_utf8_lossy(&v);
            let _ = assemble_with(&s, &ops);
        }
    }
}

#[test]
fn constant_expressions_as_llvm_evaluates_them() {
    // 32-bit immediates keep the low 32 bits, as LLVM 19 does silently
    let p = asm("r0 = 0x1ffffffff; if w1 & 1 != 1 goto +0; r0 = 2 + 3 * 4; r1 = 1 << 3 | 1; r2 = 0xffffffff00000000LL ll");
    assert_eq!(p.insns[0].imm, -1);
    assert_eq!(p.insns[1].imm, 0); // `1 != 1` is 0; true would be -1
    assert_eq!(p.insns[2].imm, 14);
    assert_eq!(p.insns[3].imm, 9);
    assert_eq!((p.insns[4].imm, p.insns[5].imm), (0, -1));
}

#[test]
fn data_directives_and_rept() {
    let p = asm("l0: .byte 0xe5; .byte 0; .short -3; .long 0; .rept 3; r0 += 1; .endr; exit");
    assert_eq!(p.insns[0], Insn::new(0xe5, 0, 0, -3, 0));
    assert_eq!(p.insns.len(), 5);
    assert_eq!(p.insns[3], Insn::new(0x07, 0, 0, 0, 1));
    let p = asm(".8byte 0x95, 0x95; .rept 2; .rept 2; exit; .endr; .endr");
    assert_eq!(p.insns.len(), 6);
}
