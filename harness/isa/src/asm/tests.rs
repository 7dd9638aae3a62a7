//! The assembler's own behaviour: labels, operands, relocations, errors.
//! (Encodings are checked against llvm-mc-19 in tests/model/isa.rs.)

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
    let p = assemble_with("call %[bpf_get_prandom_u32]; r1 = *(u64 *)(r10 + %[off]); r2 = %[map] ll; call %[kf]; .8byte %[insn]; exit", &ops).unwrap();
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

/// Runs `f` on a thread with a 2 MiB stack, the smallest the assembler runs
/// on (a test thread's; rustc's, which runs the proc macros, has more).
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(2 << 20).spawn(f).expect("spawn").join().expect("no panic, no overflow")
}

fn deep(open: &str, n: usize, middle: &str, close: &str) -> String {
    let mut s = String::with_capacity((open.len() + close.len()) * n + middle.len());
    for _ in 0..n {
        s.push_str(open);
    }
    s.push_str(middle);
    for _ in 0..n {
        s.push_str(close);
    }
    s
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    on_small_stack(|| {
        let cases = [
            (format!("r0 = 1 + {}", deep("(", 40_000, "1", ")")), 10),
            (format!(".8byte {}", deep("(", 100_000, "1", ")")), 8),
            // the `-` of the offset is the first level
            (format!("*(u64 *)(r10 - {}) = 0", deep("(", 100_000, "8", ")")), 15),
            (format!("r0 = {}", deep("-", 100_000, "1", "")), 6),
            (format!("r1 = 0\nr0 = {}", deep("-~(!", 100_000, "1", ")")), 6),
        ];
        for (src, col) in cases {
            let e = assemble(&src).expect_err("too deep");
            assert_eq!(e.kind, AsmErrorKind::TooDeep, "{}", e.msg);
            assert_eq!(e.msg, format!("expression nested too deep (more than {MAX_NESTING} levels)"));
            // the token that goes one level past the limit
            let line = src.lines().count();
            assert_eq!(e.line, line);
            let line_start = src.rfind('\n').map_or(0, |k| k + 1);
            assert_eq!(e.pos, line_start + col - 1 + MAX_NESTING, "{e}");
            assert_eq!(e.col, col + MAX_NESTING);
        }
        // up to the limit is fine, at every place an expression stands
        let p = assemble(&format!("r0 = 1 + {}", deep("(", MAX_NESTING, "1", ")"))).unwrap();
        assert_eq!(p.insns[0].imm, 2);
        let p = assemble(&format!("r0 = {}", deep("-", MAX_NESTING, "1", ""))).unwrap();
        assert_eq!(p.insns[0].imm, 1);
        let p = assemble(&format!("*(u64 *)(r10 - {}) = 0", deep("(", MAX_NESTING - 1, "8", ")"))).unwrap();
        assert_eq!(p.insns[0].off, -8);
        let p = assemble(&format!("if r0 > {} goto +0", deep("(", MAX_NESTING, "3", ")"))).unwrap();
        assert_eq!(p.insns[0].imm, 3);
    });
}

#[test]
fn deep_rept_nesting_is_an_error() {
    on_small_stack(|| {
        let src = deep(".rept 1\n", 10_000, "r0 = 1\n", ".endr\n");
        let e = assemble(&src).expect_err("too deep");
        assert_eq!(e.kind, AsmErrorKind::TooDeep);
        assert_eq!((e.line, e.col), (MAX_NESTING + 1, 1), "{e}");
        assert_eq!(e.msg, format!(".rept nested too deep (more than {MAX_NESTING} levels)"));
        // so is one inside a body gone through no times
        let src = format!(".rept 0\n{}", deep(".rept 1\n", 10_000, "", ".endr\n"));
        let e = assemble(&src).expect_err("too deep");
        assert_eq!((e.kind, e.line), (AsmErrorKind::TooDeep, MAX_NESTING + 1), "{e}");
        let p = assemble(&deep(".rept 1\n", MAX_NESTING, "r0 = 1\n", ".endr\n")).unwrap();
        assert_eq!(p.insns.len(), 1);
        let p = assemble(&deep(".rept 2\n", 10, "r0 += 1\n", ".endr\n")).unwrap();
        assert_eq!(p.insns.len(), 1024);
    });
}

#[test]
fn rept_bodies_repeat_as_written() {
    // a body that ends inside a data slot, numeric labels per round, skipped bodies
    let p = asm(".rept 2; .long 0x95; .endr; .rept 3; 1: r0 += 1; goto 1b; .endr; .rept 0; nonsense; .rept 9; .endr; .endr; exit");
    assert_eq!(p.insns.len(), 8);
    assert_eq!(p.insns[0], Insn::new(0x95, 0, 0, 0, 0x95));
    assert!(p.insns[1..7].chunks(2).all(|c| c[1].off == -2));
    let e = err(".endr");
    assert_eq!(e.msg, ".endr without .rept");
    let e = err(".rept 2; r0 = 0; .endr exit");
    assert!(e.msg.contains("expected end of statement"), "{}", e.msg);
    // bodies gone through over and over, whether they make insns or not:
    // known to be too many when the inner `.rept` starts
    for src in
        [".rept 1048576; .rept 1048576; .endr; .endr".to_string(), format!(".rept 70000\n{}", deep(".rept 1\n", MAX_NESTING - 1, "1: goto 1b\n", ".endr\n"))]
    {
        let e = err(&src);
        assert!(e.msg.contains(&format!("more than {MAX_REPT_TOTAL} times")), "{}", e.msg);
    }
}

#[test]
fn programs_over_the_kernel_limit_stop_at_the_first_slot_past_it() {
    let mut src = "exit\n".repeat(MAX_PROG_INSNS);
    assert_eq!(asm(&src).insns.len(), MAX_PROG_INSNS);
    src.push_str("r0 = 1\n");
    src.push_str(&"r0 = 1 +\n".repeat(1000));
    let e = assemble(&src).expect_err("too large");
    assert_eq!((e.kind, e.line, e.col), (AsmErrorKind::TooManyInsns, MAX_PROG_INSNS + 1, 1));
    assert!(e.msg.contains(&format!("more than {MAX_PROG_INSNS} instructions")) && e.msg.contains("E2BIG"), "{}", e.msg);
}

#[test]
fn every_way_of_making_slots_counts_against_the_limit() {
    let limited = |src: &str| assemble_limited(src.as_bytes(), &|_| None, 1000);
    // up to the limit
    for src in [".rept 1000; exit; .endr", ".rept 998; exit; .endr; r1 = 1 ll", ".rept 10; .rept 100; .byte 0x95, 0, 0, 0, 0, 0, 0, 0; .endr; .endr"] {
        assert_eq!(limited(src).unwrap().insns.len(), 1000, "{src}");
    }
    // one past it, however it comes, and the statement that went past it
    for (src, col) in [
        (".rept 1000; exit; .endr; exit", 26),
        (".rept 1001; exit; .endr", 13),
        (".rept 999; exit; .endr; r1 = 1 ll", 25),
        (".rept 10; .rept 101; exit; .endr; .endr", 22),
        (".8byte 0x95, 0x95, 0x95; .rept 1048576; .8byte 0x95, 0x95, 0x95; .endr", 41),
        (&format!(".8byte {}0", "0, ".repeat(5000)), 1),
        (&format!(".rept 1000; exit; .endr; .long {}0", "0, ".repeat(5000)), 26),
    ] {
        let e = limited(src).expect_err(src);
        assert_eq!((e.kind, e.line, e.col), (AsmErrorKind::TooManyInsns, 1, col), "{src}: {e}");
    }
}

#[test]
fn numeric_labels_resolve_in_linear_time() {
    let n = 60_000;
    let mut src = String::with_capacity(n * 40);
    for _ in 0..n {
        src.push_str("1: r0 += 1\nif r0 > 5 goto 1f\ngoto 1b\n");
    }
    src.push_str("1: exit\n");
    let t = std::time::Instant::now();
    let p = asm(&src);
    // a quadratic search took 110 s for this in a debug build, linear 1.5 s
    assert!(t.elapsed().as_secs() < 20, "{:?}", t.elapsed());
    assert_eq!(p.insns.len(), 3 * n + 1);
    for k in 0..n {
        assert_eq!(p.insns[3 * k + 1].off, 1, "forward to the next round's label");
        assert_eq!(p.insns[3 * k + 2].off, -3, "back to this round's label");
    }
}

#[test]
fn bytes_that_are_not_utf8() {
    // inside comments, as llvm-mc-19 takes them
    let p = assemble_bytes(b"r0 = 1 # caf\xe9 \xff\n// \xc3\x28\nr0 = 2 /* \xfe\n */ exit\n").unwrap();
    assert_eq!(p.insns.len(), 3);
    // elsewhere: line and byte column
    let e = assemble_bytes(b"r0 = 1\n\xc3\xa9r0 \xff= 2\n").expect_err("not UTF-8");
    assert_eq!(e.kind, AsmErrorKind::Syntax, "a valid character out of place: {e}");
    assert_eq!((e.line, e.col, e.msg.as_str()), (2, 1, "unexpected character 'é'"));
    let e = assemble_bytes(b"r0 = 1\nr0 \xff= 2\n").expect_err("not UTF-8");
    assert_eq!(e.kind, AsmErrorKind::Encoding);
    assert_eq!((e.line, e.col, e.pos), (2, 4, 10));
    assert_eq!(e.msg, "byte 0xff is not UTF-8 (byte column 4; only comments may hold such bytes)");
    // after a multi-byte character the byte column is past the character column
    let e = assemble_bytes(b"# \xc3\xa9\nexit; r0 = 1 \xc3\x28").expect_err("not UTF-8");
    assert_eq!((e.line, e.col), (2, 14));
    assert!(e.msg.contains("byte 0xc3") && e.msg.contains("byte column 14"), "{}", e.msg);
    let e = assemble_bytes(b"exit\n\xe9").expect_err("not UTF-8");
    assert_eq!((e.line, e.col), (2, 1));
    let e = assemble_bytes_with(b"call %[a\xffb]", &|_| None).expect_err("not UTF-8");
    assert_eq!((e.line, e.col, e.kind), (1, 9, AsmErrorKind::Encoding));
    // the first error in the text wins: a later bad byte is not read
    let e = assemble_bytes(b"r0 = = 1\n\xff").expect_err("syntax");
    assert_eq!(e.line, 1);
}

#[test]
fn a_huge_token_is_quoted_short() {
    let name = "a".repeat(1 << 20);
    for src in [
        name.clone(),
        format!("r0 = {name}"),
        format!("r0 = {name}(r1)"),
        format!("goto {name}"),
        format!("r0 = 1 {name}"),
        format!("r0 = 1 + {name}"),
        format!("{name}: {name}: exit"),
        format!("r0 = %[{name}]"),
        format!("r9{name} = 1"),
        format!("r{} = 1", "9".repeat(1 << 20)),
    ] {
        let e = assemble(&src).expect_err("bad");
        assert!(e.msg.len() < 200, "{} bytes: {}…", e.msg.len(), &e.msg[..100]);
        assert!(e.msg.contains(&format!("{}…", "a".repeat(38))) || e.msg.contains(&format!("{}…", "9".repeat(38))), "{}", e.msg);
    }
    let e = err(&format!("1{name}"));
    assert_eq!(e.msg, "malformed number '1a'");
}

#[test]
fn a_helper_name_defined_as_a_label_is_that_label() {
    let p = asm("call bpf_map_lookup_elem; exit; bpf_map_lookup_elem: r0 = 0; exit");
    assert_eq!((p.insns[0].src, p.insns[0].imm), (BPF_PSEUDO_CALL, 1));
    let p = asm("call bpf_map_lookup_elem; exit");
    assert_eq!((p.insns[0].src, p.insns[0].imm), (0, 1));
    assert!(p.relocs.is_empty());
}
