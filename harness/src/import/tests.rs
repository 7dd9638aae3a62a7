//! The importer on small sources written here: the C scanner on
//! preprocessed text, the reading of programs, maps, globals and operands
//! (values checked against the kernel's UAPI layouts and clang's register
//! choice as a 7.3 verifier log shows it), and, when the 7.3 tree is here,
//! the whole path through gcc's cpp for both arches.

use std::path::Path;
use std::process::Command;

use super::c_source::*;
use super::*;

fn have_gcc() -> bool {
    Command::new("gcc").arg("--version").output().is_ok_and(|o| o.status.success())
}

#[test]
fn top_level_items_split_functions_and_declarations() {
    let pre = "# 1 \"t.c\"\n\
               struct v { int a; };\n\
               # 5 \"t.c\"\n\
               struct {\n int (*type)[2];\n} m\n#pragma GCC diagnostic push\n __attribute__((section(\".maps\")));\n\
               __attribute__((section(\"socket\"), used)) __attribute__((naked)) void p(void)\n{\n asm volatile (\"r0 = 0; exit;\" ::: \"r0\");\n}\n\
               # 1 \"other.h\" 1\n\
               static int f(int x) { if (x) { return 1; } return 0; }\n\
               int g = 1, h;\n";
    let items = top_level_items(pre);
    let kinds: Vec<(bool, &str, u32)> = items.iter().map(|i| (i.is_function(), i.file.as_str(), i.line)).collect();
    assert_eq!(kinds, vec![(false, "t.c", 1), (false, "t.c", 5), (true, "t.c", 9), (true, "other.h", 1), (false, "other.h", 2)]);
    assert!(items[1].text.contains("section(\".maps\")") && !items[1].text.contains("pragma"));
    let h = func_head(items[2].head()).expect("a function head");
    assert_eq!((h.name.as_str(), h.is_static, h.params.as_str()), ("p", false, "void"));
    assert!(has_attribute(&h.attrs, "naked") && !has_attribute(&h.attrs, "weak"));
    assert_eq!(h.attrs.iter().flat_map(|a| attribute_strings(a, "section")).collect::<Vec<_>>(), vec!["socket"]);
    assert!(items[2].body().starts_with('{') && items[2].body().ends_with('}'));
    let f = func_head(items[3].head()).expect("head");
    assert!(f.is_static && f.name == "f" && param_count(&f.params) == 1);
}

#[test]
fn declarators_and_fields() {
    let names = |d: &str| declarators(d).into_iter().map(|(n, _)| n).collect::<Vec<_>>();
    assert_eq!(names("int a, b[2] = {1, 2};"), vec!["a", "b"]);
    assert_eq!(names("struct { int (*type)[2]; typeof(long long) *key; } m __attribute__((section(\".maps\")));"), vec!["m"]);
    assert_eq!(names("const volatile long foo = 42;"), vec!["foo"]);
    assert_eq!(names("char buf[10] __attribute__((section(\".data.buf\")));"), vec!["buf"]);
    assert!(names("int f(int x);").is_empty());
    assert!(names("struct foo;").is_empty());
    assert!(names("struct foo { int a; };").is_empty());
    assert_eq!(names("static long (* const bpf_x)(void *m) = (void *) 1;"), vec!["bpf_x"]);
    assert_eq!(initializer("x = {1, 2}"), Some("{1, 2}"));
    assert_eq!(initializer("x[3 == 3]"), None);
    let fields: Vec<String> = struct_fields("int (*type)[BPF_MAP_TYPE_ARRAY]; typeof(struct test_val) *value; typeof(struct { int (*type)[1]; }) *values[];")
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(fields, vec!["type", "value", "values"]);
}

#[test]
fn decl_tags_concatenate_their_literals() {
    let a = "btf_decl_tag(\"comment:\" \"12\" \":\" \"test_expect_msg=\" \"R0 \\\"x\\\"\")";
    assert_eq!(attribute_strings(a, "btf_decl_tag"), vec!["comment:12:test_expect_msg=R0 \"x\""]);
}

#[test]
fn asm_clobbers_and_ternaries() {
    let src = "void f(void) { asm volatile (\"r0 = %[a]; exit;\" : : [a]\"i\"(1 ? 2 : 3), [p]\"r\"(&cb) : \"r0\", \"r6\", \"memory\"); }";
    let b = &asm_blocks(src)[0];
    assert_eq!(b.clobbers, vec!["r0", "r6", "memory"]);
    assert_eq!(b.operands.len(), 2);
    assert_eq!(b.operands[0], AsmOperand::Raw("a".into(), "\"i\"(1 ? 2 : 3)".into()));
}

/// Preprocessed text as gcc's cpp leaves a small selftest source.
const PRE: &str = r#"# 1 "t.c"
struct test_val { unsigned int index; int foo[11]; };
struct val_lock { int x; struct bpf_spin_lock_like { int v; } l; };
struct { int (*type)[1]; int (*max_entries)[1]; typeof(long long) *key; typeof(struct test_val) *value; } map_hash_48b __attribute__((section(".maps")));
struct { int (*type)[3]; int (*max_entries)[4]; int (*key_size)[sizeof(int)]; typeof(void (void)) *values[]; } jmp_table __attribute__((section(".maps"))) = { .values = { [0] = 0 } };
struct { int (*type)[12]; int (*max_entries)[1]; typeof(int) *key; typeof(struct { int (*type)[2]; int (*max_entries)[1]; typeof(int) *key; typeof(int) *value; }) *values[]; } outer __attribute__((section(".maps")));
struct { int (*type)[27]; int (*max_entries)[8]; } rb __attribute__((section(".maps")));
extern int bpf_prog_active __attribute__((section(".ksyms")));
extern int bpf_kfunc_x(int a) __attribute__((section(".ksyms")));
const volatile long foo = 42;
int bar;
int vals[] __attribute__((section(".data.vals"))) = {1, 2, 3, 4};
static int c_helper(int x) { return x + 1; }
__attribute__((naked)) static void sub(void)
{
 asm volatile ("r0 = 0; exit;" ::: "r0");
}
__attribute__((naked)) __attribute__((noinline)) int glob_sub(int x, long y)
{
 asm volatile ("r0 = 0; exit;" ::: "r0");
}
__attribute__((naked)) __attribute__((noinline)) int ptr_sub(struct __sk_buff *skb)
{
 asm volatile ("r0 = 0; exit;" ::: "r0");
}
__attribute__((section("socket"), used))
__attribute__((btf_decl_tag("comment:" "7" ":" "test_expect_msg=" "second")))
__attribute__((btf_decl_tag("comment:" "3" ":" "test_description=" "first")))
__attribute__((btf_decl_tag("arg:ctx")))
__attribute__((naked)) void prog(void)
{
 asm volatile ("r1 = %[map_hash_48b] ll; call %[bpf_map_lookup_elem]; r2 = %[off]; r3 = *(u%[sz] *)(r10 - 8); .8byte %[raw]; r4 = %[bpf_prog_active] ll; call %[bpf_kfunc_x]; call sub; call glob_sub; r5 = %[foo] ll; r6 = %[vals] ll; exit;"
 : : [map_hash_48b]"i"(&map_hash_48b), [bpf_map_lookup_elem]"i"(bpf_map_lookup_elem), [off]"i"(__builtin_offsetof(struct test_val, foo) - 8),
     [sz]"i"(sizeof(long) * 8), [raw]"i"(*(long *)&(((struct { unsigned char code; unsigned char regs; short off; int imm; }) { .code = 0xe5, .regs = 0x21, .off = 3, .imm = -1 }))),
     [bpf_prog_active]"i"(&bpf_prog_active), [bpf_kfunc_x]"i"(bpf_kfunc_x), [foo]"i"(&foo), [vals]"i"(&vals)
 : "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory");
}
__attribute__((section("socket"), used)) __attribute__((naked)) void ptrs(void)
{
 asm volatile ("r2 = %[sub]; r1 = %[bar]; r0 = 0; exit;" : : [bar]"r"(&bar), [sub]"r"(&sub) : "r0", "r1", "r2", "r3", "r4", "r5", "memory", "r6");
}
__attribute__((section("socket"), used)) int in_c(void *ctx) { return c_helper(1); }
__attribute__((section("fentry/bpf_fentry_test1"), used)) __attribute__((naked)) void traced(void)
{
 asm volatile ("r0 = 0; exit;" ::: "r0");
}
__attribute__((section("socket"), used)) __attribute__((naked)) void tail(void)
{
 asm volatile ("r2 = %[jmp_table] ll; call c_helper; exit;" : : [jmp_table]"i"(&jmp_table) : "r0");
}
__attribute__((section("socket"), used)) __attribute__((btf_decl_tag("comment:" "9" ":" "test_btf_path=" "x.o"))) __attribute__((naked)) void btf_path(void)
{
 asm volatile ("call ptr_sub; exit;" ::: "r0");
}
"#;

fn imported() -> Option<ImportedFile> {
    if !have_gcc() {
        crate::require::skip(crate::require::Component::Source, "no gcc to compute values");
        return None;
    }
    Some(import_preprocessed(PRE, "t.c", "t", Path::new("t.c"), Arch::X86_64).expect("imports"))
}

fn prog<'a>(f: &'a ImportedFile, name: &str) -> &'a ImportedProg {
    f.programs.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("no program {name}"))
}

#[test]
fn maps_as_libbpf_creates_them() {
    let Some(f) = imported() else { return };
    let m = |n: &str| f.maps.iter().find(|m| m.name == n).unwrap_or_else(|| panic!("no map {n}")).def.clone();
    let hash = m("map_hash_48b").expect("expressible");
    assert_eq!((hash.map_type, hash.key_size, hash.value_size, hash.max_entries), (1, 8, 48, 1));
    assert_eq!(m("jmp_table").unwrap_err().construct, "map initialiser (.values)");
    let outer = m("outer").expect("map in map");
    assert_eq!((outer.map_type, outer.key_size, outer.value_size), (12, 4, 4));
    let inner = outer.inner.expect("inner");
    assert_eq!((inner.map_type, inner.key_size, inner.value_size, inner.max_entries), (2, 4, 4, 1));
    // libbpf rounds a ring buffer up to a power-of-2 number of pages
    assert_eq!(m("rb").expect("ringbuf").max_entries, 4096);
}

#[test]
fn globals_by_section_with_their_bytes() {
    let Some(f) = imported() else { return };
    let g = |n: &str| f.globals.iter().find(|g| g.name == n).unwrap_or_else(|| panic!("no global {n}")).def.clone().expect("global");
    assert_eq!(g("foo"), GlobalSpec { section: ".rodata".into(), bytes: 42u64.to_le_bytes().to_vec(), align: 8 });
    assert_eq!(g("bar"), GlobalSpec { section: ".bss".into(), bytes: vec![0; 4], align: 4 });
    let vals = g("vals");
    assert_eq!(vals.section, ".data.vals");
    assert_eq!(vals.bytes, [1u32, 2, 3, 4].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>());
    assert_eq!(f.ksyms, vec!["bpf_prog_active"]);
}

#[test]
fn a_program_with_every_operand_kind() {
    let Some(f) = imported() else { return };
    let p = prog(&f, "prog");
    assert!(p.runnable(), "{:?}", p.blocked);
    // tags in __COUNTER__ order; the parameter tag is not a test tag
    assert_eq!(p.tags, vec!["test_description=first", "test_expect_msg=second"]);
    assert_eq!(p.sec, "socket");
    let body = p.body.as_ref().expect("body");
    let op = |n: &str| body.operands.iter().find(|(k, _)| k == n).map(|(_, o)| o.clone());
    assert_eq!(op("map_hash_48b"), Some(Operand::Addr("map_hash_48b".into())));
    assert_eq!(op("bpf_map_lookup_elem"), Some(Operand::Helper("bpf_map_lookup_elem".into(), 1)));
    assert_eq!(op("off"), Some(Operand::Const(-4)));
    // glued to `u` it is pasted into the text, as the compiler pastes it
    assert_eq!(op("sz"), None);
    assert!(body.template.contains("*(u64 *)(r10 - 8)"), "{}", body.template);
    assert_eq!(op("raw"), Some(Operand::Insn(i64::from_le_bytes([0xe5, 0x21, 3, 0, 0xff, 0xff, 0xff, 0xff]))));
    assert_eq!(op("bpf_prog_active"), Some(Operand::Addr("bpf_prog_active__btf".into())));
    assert_eq!(op("bpf_kfunc_x"), Some(Operand::Sym("bpf_kfunc_x".into())));
    // and it assembles, the symbols left to the linker
    let relocs: Vec<String> = assemble(body).expect("assembles").relocs.into_iter().map(|r| r.symbol).collect();
    assert_eq!(relocs, vec!["map_hash_48b", "bpf_prog_active__btf", "bpf_kfunc_x", "sub", "glob_sub", "foo", "vals"]);
    let glob = f.subprogs.iter().find(|s| s.name == "glob_sub").expect("glob_sub");
    assert!(glob.global && glob.nargs == 2 && glob.body.is_ok());
    let sub = f.subprogs.iter().find(|s| s.name == "sub").expect("sub");
    assert!(!sub.global && sub.body.is_ok());
}

/// clang gives an "r" operand the first register of r1-r5, r0, r6-r9 the
/// clobbers leave, in operand order, loaded before the block: the 7.3 log
/// of verifier_subprog_precision's callback_result_precise (clobbers r0-r6)
/// shows `vals` in r7 and the callback in r8.
#[test]
fn imm_ptr_registers_as_clang_allocates_them() {
    let Some(f) = imported() else { return };
    let body = prog(&f, "ptrs").body.clone().expect("body");
    assert!(body.template.starts_with("r7 = %[bar] ll;\nr8 = %[sub] ll;\nr2 = r8; r1 = r7;"), "{}", body.template);
    assert_eq!(body.operands, vec![("bar".to_string(), Operand::Addr("bar".into())), ("sub".to_string(), Operand::Addr("sub".into()))]);
    let p = assemble(&body).expect("assembles");
    assert_eq!(p.insns.len(), 8);
}

#[test]
fn what_cannot_run_says_why() {
    let Some(f) = imported() else { return };
    let why = |n: &str| prog(&f, n).blocked.iter().map(|b| b.construct.clone()).collect::<Vec<_>>();
    assert_eq!(why("in_c"), vec!["written in C"]);
    // fentry on a kernel function: the runner gives attach_btf_id
    assert!(why("traced").is_empty(), "{:?}", why("traced"));
    let tail = why("tail");
    assert!(tail.contains(&"map initialiser (.values)".to_string()) && tail.contains(&"calls a C function".to_string()), "{tail:?}");
    let bp = why("btf_path");
    assert!(bp.contains(&"annotation __btf_path".to_string()), "{bp:?}");
    // a global subprog with a pointer argument needs its BTF types
    assert!(bp.iter().any(|c| c == "subprog: global subprog with typed arguments"), "{bp:?}");
    // the two socket programs and the fentry one
    assert_eq!(f.runnable(), 3);
}

#[test]
fn rust_attributes_for_tags() {
    use super::rust::attribute;
    assert_eq!(attribute("test_expect_failure").as_deref(), Ok("#[failure]"));
    assert_eq!(attribute("test_expect_msg=R0 \"x\"\t").as_deref(), Ok("#[msg(\"R0 \\\"x\\\"\\t\")]"));
    assert_eq!(attribute("test_retval=-14").as_deref(), Ok("#[retval(-14)]"));
    assert_eq!(attribute("test_retval=0xbadcafe").as_deref(), Ok("#[retval(0xbadcafe)]"));
    assert_eq!(attribute("test_retval=_INT_MIN").as_deref(), Ok("#[retval(_INT_MIN)]"));
    assert!(attribute("test_retval=(1 << 3)").is_err());
    assert_eq!(attribute("test_arch=ARM64").as_deref(), Ok("#[arch(arm64)]"));
    assert_eq!(attribute("test_caps_unpriv=39|12").as_deref(), Ok("#[caps_unpriv(39 | 12)]"));
    assert_eq!(attribute("test_prog_flags=!BPF_F_TEST_RND_HI32").as_deref(), Ok("#[flag(!BPF_F_TEST_RND_HI32)]"));
    assert_eq!(attribute("load_mode=jited").as_deref(), Ok("#[load_if_jited]"));
    assert!(attribute("test_btf_path=x.o").is_err());
}

/// The literals the module is written with read as the same program.
#[test]
fn rendered_templates_assemble_the_same() {
    let t = "\t\tr1 = 0;\t\t\t\\\n\tif r1 == 0 goto l0_%=;\t// c;\nl0_%=:\tr0 = 1;\t\texit;\t";
    let pieces = super::rust::template_pieces(t);
    assert_eq!(pieces[0], "r1 = 0;");
    let joined: String = pieces.concat();
    let a = bpf_isa::assemble(t).expect("original");
    let b = bpf_isa::assemble(&joined).expect("rendered");
    assert_eq!(a.insns, b.insns);
}

#[test]
fn rendered_module_has_the_declarations() {
    let Some(f) = imported() else { return };
    let m = super::rust::render(&f);
    assert!(m.contains("#[map]\nstatic map_hash_48b: Map = Map::new(BPF_MAP_TYPE_HASH, 8, 48, 1);"), "{m}");
    assert!(m.contains("static outer__inner: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 4, 1);"), "{m}");
    assert!(m.contains("#[global(rodata)]\nstatic foo: u64 = 0x2a;"), "{m}");
    assert!(m.contains("#[global(\".data.vals\")]\nstatic vals: [u32; 4] = [0x1, 0x2, 0x3, 0x4];"), "{m}");
    assert!(m.contains("static bpf_prog_active__btf: () = ();"), "{m}");
    assert!(m.contains("#[subprog(global, nargs = 2)]\nfn glob_sub()"), "{m}");
    assert!(m.contains("#[sec(\"socket\")]\n#[description(\"first\")]\n#[msg(\"second\")]\nfn prog()"), "{m}");
    assert!(m.contains("imm_addr(bpf_prog_active__btf),") && m.contains("%[bpf_prog_active__btf] ll"), "{m}");
    assert!(m.contains("imm_insn(raw = Insn::new(0xe5, 1, 2, 3, -1)),"), "{m}");
    assert!(m.contains("// program `in_c` is not imported:\n//   - written in C"), "{m}");
}

/// A source through gcc's cpp with the 7.3 headers, for both arches: the
/// `#ifdef`s bpf_misc.h derives from the target arch, macro values in tags,
/// and UAPI layouts (`struct bpf_perf_event_data` starts with the arch's
/// pt_regs: 21 words on x86_64, 34 on arm64).
#[test]
fn preprocessed_per_arch_with_the_kernel_headers() {
    let Some(tree) = cpp::source_tree() else {
        crate::require::skip(crate::require::Component::Source, "no Linux 7.3 source (BPF_SELFTEST_KERNEL_SRC or the caches)");
        return;
    };
    if !have_gcc() || Command::new("cpp").arg("--version").output().is_err() {
        crate::require::skip(crate::require::Component::Source, "gcc's cpp is not installed");
        return;
    }
    let dir = std::env::temp_dir().join(format!("bpf-selftest-import-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let src = dir.join("verifier_tiny.c");
    std::fs::write(
        &src,
        r#"#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <errno.h>
#include <bpf/bpf_helpers.h>
#include "bpf_misc.h"

SEC("perf_event")
__success __retval(-EFAULT) __caps_unpriv(CAP_BPF)
#ifdef SPEC_V4
__xlated_unpriv("spec_v4")
#endif
#if defined(__TARGET_ARCH_arm64)
__msg("arm64")
#endif
__naked void tiny(void)
{
	asm volatile ("r0 = *(u64 *)(r1 + %[sp]); r0 = %[data]; exit;"
	:: __imm_const(sp, offsetof(struct bpf_perf_event_data, sample_period)),
	   __imm_const(data, offsetof(struct __sk_buff, data))
	: __clobber_all);
}
char _license[] SEC("license") = "GPL";
"#,
    )
    .expect("write");
    let run = |arch| import_file(&src, &ImportOptions { arch, tree: Some(tree.clone()) }).expect("imports");
    let x86 = run(Arch::X86_64);
    let arm = run(Arch::Arm64);
    let _ = std::fs::remove_dir_all(&dir);
    let (px, pa) = (prog(&x86, "tiny"), prog(&arm, "tiny"));
    assert!(px.runnable() && pa.runnable(), "{:?} {:?}", px.blocked, pa.blocked);
    assert_eq!(px.tags, vec!["test_expect_success", "test_retval=-14", "test_caps_unpriv=39", "test_expect_xlated_unpriv=spec_v4"]);
    assert_eq!(pa.tags, vec!["test_expect_success", "test_retval=-14", "test_caps_unpriv=39", "test_expect_msg=arm64"]);
    let consts = |p: &ImportedProg| {
        p.body
            .as_ref()
            .expect("body")
            .operands
            .iter()
            .filter_map(|(n, o)| if let Operand::Const(v) = o { Some((n.clone(), *v)) } else { None })
            .collect::<Vec<_>>()
    };
    assert_eq!(consts(px), vec![("sp".to_string(), 168), ("data".to_string(), 76)]);
    assert_eq!(consts(pa), vec![("sp".to_string(), 272), ("data".to_string(), 76)]);
}

/// The scanner on arbitrary text: unbalanced braces, stray quotes and
/// backslashes, non-ASCII, cut-off attributes. It may read nonsense, but
/// never panics.
#[test]
fn odd_input_never_panics() {
    const ALPHABET: &[&str] = &[
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        ";",
        ",",
        "=",
        "\"",
        "'",
        "\\",
        "\n",
        "#",
        " ",
        "*",
        "&",
        "é",
        "∀",
        "a",
        "x1",
        "_",
        ":",
        "?",
        "%[",
        "]",
        "__attribute__((",
        "section(\".maps\")",
        "naked",
        "asm volatile (",
        "struct ",
        "typeof(",
        "static ",
        "int ",
        "void f(void)",
        "# 1 \"t.c\"\n",
    ];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..3000 {
        let len = (next() % 60) as usize;
        let text: String = (0..len).map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize]).collect();
        for it in top_level_items(&text) {
            let _ = func_head(it.head());
            let _ = split_attributes(it.head());
            let _ = asm_blocks(it.body());
        }
        let _ = declarators(&text);
        let _ = struct_fields(&text);
        let _ = asm_blocks(&text);
        let _ = first_brace_body(&text);
        let _ = super::rust::template_pieces(&text);
        let _ = prototype_name(&text);
        let _ = super::rust::attribute(&text);
    }
}

/// prog_tests/verifier.c's `init_test_val_map`: `index = (6 + 1) *
/// sizeof(int)`, `foo[6] = 0xabcdef12`, at key 0 of the named map only.
#[test]
fn test_progs_setup_for_two_suites() {
    let (k, v) = test_progs_setup("verifier_array_access", "map_array_ro", 48).expect("setup");
    assert_eq!(k, vec![0, 0, 0, 0]);
    assert_eq!(&v[0..4], &28u32.to_le_bytes());
    assert_eq!(&v[28..32], &0xabcd_ef12u32.to_le_bytes());
    assert_eq!(v.iter().filter(|&&b| b != 0).count(), 5);
    assert!(test_progs_setup("verifier_value_ptr_arith", "map_array_48b", 48).is_some());
    assert!(test_progs_setup("verifier_array_access", "map_array_48b", 48).is_none());
    assert!(test_progs_setup("verifier_and", "map_array_ro", 48).is_none());
}

#[test]
fn kernel_xlated_lines_in_two_arch_blocks_keep_holding_on_every_arch() {
    use super::rust::kernel_meaning_order;
    let tags: Vec<String> = ["test_expect_success", "test_arch=X86_64", "test_expect_xlated=a", "test_jited=j", "test_arch=ARM64", "test_expect_xlated=b"]
        .map(String::from)
        .to_vec();
    assert_eq!(
        kernel_meaning_order(&tags),
        ["test_expect_success", "test_expect_xlated=a", "test_expect_xlated=b", "test_arch=X86_64", "test_jited=j", "test_arch=ARM64"]
    );
    // one block with xlated lines: as written
    let tags: Vec<String> = ["test_arch=X86_64", "test_arch=ARM64", "test_expect_xlated=a"].map(String::from).to_vec();
    assert_eq!(kernel_meaning_order(&tags), ["test_arch=X86_64", "test_arch=ARM64", "test_expect_xlated=a"]);
}

#[test]
fn known_failures_by_arch_with_unpriv_names() {
    let text = "# a comment\n\
                \n\
                x86_64 verifier_a/p rnd_hi32 patches\n\
                arm64 verifier_a/q only on arm64\n\
                * verifier_b/r @unpriv model: a reason with  spaces \n\
                * verifier_b/no_reason\n\
                  * verifier_c/s indented\n";
    let x86 = known_failures(text, Arch::X86_64);
    let want = |v: &[(&str, &str)]| v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>();
    assert_eq!(x86, want(&[("verifier_a/p", "rnd_hi32 patches"), ("verifier_b/r @unpriv", "model: a reason with  spaces"), ("verifier_c/s", "indented")]));
    let arm = known_failures(text, Arch::Arm64);
    assert_eq!(arm, want(&[("verifier_a/q", "only on arm64"), ("verifier_b/r @unpriv", "model: a reason with  spaces"), ("verifier_c/s", "indented")]));
}

#[test]
fn attach_targets_the_runner_gives() {
    use super::attach_target_section as why;
    for sec in [
        "tp_btf/sys_enter",
        "?tp_btf/task_newtask",
        "lsm/file_mprotect",
        "lsm.s/bpf",
        "lsm_cgroup/socket_create",
        "iter/task",
        "iter.s/bpf_map",
        "fmod_ret/bpf_modify_return_test",
    ] {
        assert_eq!(why(sec), None, "{sec}");
    }
    assert!(why("lsm").is_some_and(|w| w.contains("no BTF-based attach target")));
    assert!(why("?struct_ops/test_1").is_some_and(|w| w.contains("struct_ops map")));
    assert!(why("freplace/foo").is_some_and(|w| w.contains("attach_prog_fd")));
    assert_eq!(why("socket"), None);
}
