//! Objects compiled here from small C sources with clang 19; the expected
//! layouts were read off `llvm-objdump-19 -d -r` of the same objects and
//! worked through libbpf's relocation order by hand.

use super::*;
use crate::link::{Func, LinkReloc};
use crate::map::flags::{BPF_F_MMAPABLE, BPF_F_RDONLY_PROG};
use crate::map::types::*;
use crate::prog_type::{SCHED_CLS, SOCKET_FILTER};
use crate::require::{Component, skip};

/// The object clang 19 makes of `src` (`name.bpf.o`), or `None` (the test
/// is skipped) without clang.
fn compile(name: &str, src: &str) -> Option<BpfObject> {
    compile_bytes(name, src).map(|b| BpfObject::open_bytes(&b, name).unwrap_or_else(|e| panic!("{e}")))
}

fn compile_bytes(name: &str, src: &str) -> Option<Vec<u8>> {
    let Some(clang) = crate::import::clang::clang_program() else {
        skip(Component::Clang, "clang-19 compiles the C test objects");
        return None;
    };
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("bpf-selftest-object-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let c = dir.join(format!("{name}.c"));
    let o = dir.join(format!("{name}.bpf.o"));
    std::fs::write(&c, src).expect("write source");
    let out = std::process::Command::new(clang)
        .args(["-g", "-O2", "--target=bpfel", "-mcpu=v3", "-Wno-incompatible-pointer-types", "-c"])
        .arg(&c)
        .arg("-o")
        .arg(&o)
        .output()
        .expect("run clang");
    assert!(out.status.success(), "clang failed: {}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(&o).expect("read the object");
    let _ = std::fs::remove_dir_all(&dir);
    Some(bytes)
}

/// The definitions selftests take from bpf_helpers.h, without the headers.
const PRELUDE: &str = r#"
#define SEC(n) __attribute__((section(n), used))
#define __ksym __attribute__((section(".ksyms")))
#define __kconfig __attribute__((section(".kconfig")))
#define __uint(name, val) int (*name)[val]
#define __type(name, val) typeof(val) *name
#define __array(name, val) typeof(val) *name[]
typedef unsigned int u32;
typedef unsigned long long u64;
static void *(*bpf_map_lookup_elem)(void *map, const void *key) = (void *) 1;
static long (*bpf_tail_call)(void *ctx, void *map, u32 idx) = (void *) 12;
static long (*bpf_loop)(u32 nr, void *cb, void *ctx, u64 flags) = (void *) 181;
char _license[] SEC("license") = "GPL";
"#;

const MAPS_AND_CALLS: &str = r#"
int entry_b(void *ctx);

struct {
	__uint(type, 1);
	__uint(max_entries, 16);
	__type(key, u32);
	__type(value, u64);
} hmap SEC(".maps");

struct {
	__uint(type, 3);
	__uint(max_entries, 4);
	__uint(key_size, 4);
	__array(values, int (void *));
} jmp SEC(".maps") = { .values = { [2] = (void *)&entry_b } };

int counter;
int data_var = 7;
const volatile int ro = 3;
static volatile int sdata = 5;

static __attribute__((noinline)) int helper(int x) { return x + counter; }
__attribute__((noinline)) int gfunc(int a, int b) { return a * b + data_var; }
static int cb(u32 i, void *ctx) { counter++; return 0; }

SEC("socket") int entry_a(void *ctx)
{
	u32 k = 0;
	u64 *v = bpf_map_lookup_elem(&hmap, &k);
	bpf_loop(1, cb, 0, 0);
	return helper(ro) + (v ? *v : 0) + sdata;
}

SEC("?tc") int entry_b(void *ctx)
{
	bpf_tail_call(ctx, &jmp, 0);
	return gfunc(1, helper(2));
}
"#;

#[test]
fn programs_and_subprograms_as_libbpf_collects_them() {
    let Some(obj) = compile("t1", &format!("{PRELUDE}{MAPS_AND_CALLS}")) else { return };
    assert_eq!(obj.name, "t1");
    assert_eq!(obj.license, "GPL");
    // sections in index order: ?tc before socket
    let progs: Vec<(&str, &str, bool)> = obj.programs().map(|p| (p.name.as_str(), p.sec_name.as_str(), p.autoload)).collect();
    assert_eq!(progs, vec![("entry_b", "?tc", false), ("entry_a", "socket", true)]);
    let b = obj.program("entry_b").expect("entry_b");
    assert_eq!(b.sec_def.map(|d| d.prog_type), Some(SCHED_CLS));
    assert_eq!(obj.program("entry_a").and_then(|p| p.sec_def).map(|d| d.prog_type), Some(SOCKET_FILTER));
    let subs: Vec<(&str, usize, bool, u32)> = obj.subprograms().map(|p| (p.name.as_str(), p.insns.len(), p.global, p.nargs)).collect();
    assert_eq!(subs, vec![("gfunc", 6, true, 2), ("cb", 7, false, 2), ("helper", 5, false, 1)]);
}

#[test]
fn btf_maps_and_global_data_maps() {
    let Some(obj) = compile("t1", &format!("{PRELUDE}{MAPS_AND_CALLS}")) else { return };
    // .maps in its DATASEC's order (jmp first: clang lists it so), then
    // .data, .rodata, .bss by section index
    let names: Vec<&str> = obj.maps().iter().map(|m| m.def.name.as_str()).collect();
    assert_eq!(names, vec!["jmp", "hmap", "t1.data", "t1.rodata", "t1.bss"]);
    let d: Vec<MapDef> = obj.map_defs();
    assert_eq!((d[0].map_type, d[0].key_size, d[0].value_size, d[0].max_entries), (BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 4));
    assert_eq!(d[0].prog_slots, vec![(2, "entry_b".to_string())]);
    assert_eq!((d[1].map_type, d[1].key_size, d[1].value_size, d[1].max_entries, d[1].map_flags), (BPF_MAP_TYPE_HASH, 4, 8, 16, 0));
    // data_var = 7 then the static sdata = 5
    assert_eq!((d[2].map_type, d[2].key_size, d[2].value_size, d[2].max_entries), (BPF_MAP_TYPE_ARRAY, 4, 8, 1));
    assert_eq!(d[2].init, vec![(vec![0; 4], vec![7, 0, 0, 0, 5, 0, 0, 0])]);
    assert_eq!((d[2].map_flags, d[2].frozen), (BPF_F_MMAPABLE, false));
    assert_eq!((d[3].map_flags, d[3].frozen, d[3].init[0].1.clone()), (BPF_F_MMAPABLE | BPF_F_RDONLY_PROG, true, vec![3, 0, 0, 0]));
    assert_eq!((d[4].value_size, d[4].map_flags, d[4].init.len()), (4, BPF_F_MMAPABLE, 0));
    assert_eq!(obj.maps()[4].kind, MapKind::Bss);
}

#[test]
fn subprograms_appended_in_libbpf_order() {
    let Some(obj) = compile("t1", &format!("{PRELUDE}{MAPS_AND_CALLS}")) else { return };
    // entry_a (27 insns): insn 9 takes cb's address (.text+0x30: insn 6),
    // so cb comes first, then helper (called at 17)
    let a = obj.link("entry_a").expect("links");
    assert_eq!(a.insns.len(), 27 + 7 + 5);
    let funcs: Vec<(&str, usize)> = a.funcs.iter().map(|f| (f.name.as_str(), f.start)).collect();
    assert_eq!(funcs, vec![("entry_a", 0), ("cb", 27), ("helper", 34)]);
    assert_eq!((a.insns[9].src, a.insns[9].imm), (BPF_PSEUDO_FUNC, 27 - 9 - 1));
    assert_eq!((a.insns[17].src, a.insns[17].imm), (BPF_PSEUDO_CALL, 34 - 17 - 1));
    assert_eq!(
        a.relocs,
        vec![
            LinkReloc::Map { insn: 4, map: 1 },
            LinkReloc::MapValue { insn: 14, map: 3, off: 0 },
            // the static sdata: against .data, its offset in the insn
            LinkReloc::MapValue { insn: 21, map: 2, off: 4 },
            LinkReloc::MapValue { insn: 27, map: 4, off: 0 },
            LinkReloc::MapValue { insn: 34, map: 4, off: 0 },
        ]
    );
    // entry_b (10 insns): helper at its call (insn 5), then gfunc (insn 8)
    let b = obj.link("entry_b").expect("links");
    assert_eq!(b.insns.len(), 10 + 5 + 6);
    assert_eq!(
        b.funcs,
        vec![
            Func { name: "entry_b".into(), start: 0, global: true, nargs: 0 },
            Func { name: "helper".into(), start: 10, global: false, nargs: 1 },
            Func { name: "gfunc".into(), start: 15, global: true, nargs: 2 },
        ]
    );
    assert_eq!((b.insns[5].imm, b.insns[8].imm), (10 - 5 - 1, 15 - 8 - 1));
    assert_eq!(
        b.relocs,
        vec![LinkReloc::Map { insn: 0, map: 0 }, LinkReloc::MapValue { insn: 10, map: 4, off: 0 }, LinkReloc::MapValue { insn: 16, map: 2, off: 0 }]
    );
    assert!(obj.link("helper").is_err(), "a subprogram is not a program");
}

const EXTERNS_AND_UNSUPPORTED: &str = r#"
extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;
extern int bpf_prog_active __ksym;
extern unsigned int LINUX_KERNEL_VERSION __kconfig;

struct sk { int a; int b; } __attribute__((preserve_access_index));

struct inner { __uint(type, 2); __uint(max_entries, 1); __type(key, int); __type(value, int); } inner SEC(".maps");
struct {
	__uint(type, 12);
	__uint(max_entries, 2);
	__type(key, int);
	__array(values, struct { __uint(type, 2); __uint(max_entries, 1); __type(key, int); __type(value, int); });
} outer SEC(".maps") = { .values = { [1] = &inner } };

SEC("tc") int kfuncs(void *ctx)
{
	bpf_rcu_read_lock();
	bpf_rcu_read_unlock();
	return 0;
}

SEC("tc") int ksym_var(void *ctx) { return (long)&bpf_prog_active; }
SEC("tc") int kconfig(void *ctx) { return LINUX_KERNEL_VERSION; }
SEC("tc") int core(struct sk *s) { return s->b; }
SEC("tc") int uses_outer(void *ctx) { return (long)&outer; }
SEC("tc") int uses_inner(void *ctx) { return (long)&inner; }
"#;

#[test]
fn ksyms_link_and_the_unsupported_is_named() {
    let Some(obj) = compile("t2", &format!("{PRELUDE}{EXTERNS_AND_UNSUPPORTED}")) else { return };
    let k = obj.link("kfuncs").expect("kfunc calls link");
    assert_eq!(
        k.relocs,
        vec![LinkReloc::Kfunc { insn: 0, name: "bpf_rcu_read_lock".into() }, LinkReloc::Kfunc { insn: 1, name: "bpf_rcu_read_unlock".into() }]
    );
    assert!(k.insns[..2].iter().all(|i| i.src == BPF_PSEUDO_KFUNC_CALL));
    assert_eq!(obj.link("ksym_var").expect("typed ksym").relocs, vec![LinkReloc::BtfId { insn: 0, name: "bpf_prog_active".into() }]);
    let e = |p: &str| obj.link(p).expect_err("unsupported").0;
    assert!(e("kconfig").contains("extern 'LINUX_KERNEL_VERSION' in '.kconfig' is not supported yet"), "{}", e("kconfig"));
    // a CO-RE record is kept for the backend, with what libbpf reports it by
    let core = obj.link("core").expect("CO-RE links").relocs;
    let [LinkReloc::Core { insn: 0, relo }] = core.as_slice() else { panic!("{core:?}") };
    assert_eq!((relo.prog.as_str(), relo.idx, relo.prog_insn, relo.access.as_str(), relo.kind), ("core", 0, 0, "0:1", super::core::FIELD_BYTE_OFFSET));
    assert!(obj.link("uses_outer").is_ok());
    let outer = &obj.maps().iter().find(|m| m.real_name == "outer").expect("outer").def;
    assert_eq!(outer.inner_slots, [(1, "inner".to_string())]);
    assert_eq!(
        (outer.map_type, outer.value_size, outer.inner.as_ref().map(|i| (i.name.as_str(), i.map_type, i.value_size))),
        (12, 4, Some(("outer.inner", 2, 4)))
    );
    assert_eq!(obj.link("uses_inner").expect("inner is a map").relocs, vec![LinkReloc::Map { insn: 0, map: 0 }]);
}

/// `check t1.bpf.o --prog P` on the model: the object's programs, maps,
/// global data and subprograms are what the verifier accepts.
#[test]
fn object_programs_load_in_the_model() {
    use crate::backend::Backend;
    let Some(bytes) = compile_bytes("t1", &format!("{PRELUDE}{MAPS_AND_CALLS}")) else { return };
    for (prog, ty) in [("entry_a", SOCKET_FILTER), ("entry_b", SCHED_CLS)] {
        let mut a = crate::cli::check::CheckArgs::new("t1.bpf.o", "socket_filter", crate::target::Arch::X86_64);
        a.prog = Some(prog.into());
        let req = crate::cli::check::request(&a, &bytes).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((req.name.as_str(), req.prog_type, req.maps.len(), req.license.as_str()), (prog, ty, 5, "GPL"));
        let out = crate::backend::model::ModelBackend.load(&req).map_err(|u| u.0).expect("the model loads");
        assert!(out.accepted, "{prog}: errno {}\n{}", out.errno, out.log);
    }
    let mut a = crate::cli::check::CheckArgs::new("t1.bpf.o", "socket_filter", crate::target::Arch::X86_64);
    let e = crate::cli::check::request(&a, &bytes).expect_err("which program?");
    assert!(e.contains("--prog (one of: entry_b, entry_a)"), "{e}");
    a.prog = Some("cb".into());
    assert!(crate::cli::check::request(&a, &bytes).is_err(), "a subprogram is not loadable");
}

#[test]
fn not_an_object_is_an_error() {
    assert!(BpfObject::open_bytes(b"not elf", "x").is_err());
    assert!(BpfObject::open(Path::new("/nonexistent/x.bpf.o")).is_err());
    assert_eq!(object_name(Path::new("/a/verifier_and.bpf.o")), "verifier_and");
}

/// Programs whose CO-RE relocations name kernel types; each has one.
const CORE_PROGS: &str = r#"
struct task_struct { int pid; int no_such_field___; } __attribute__((preserve_access_index));
struct task_struct___mine { int tgid; int no_such_field; } __attribute__((preserve_access_index));
struct sk_buff { unsigned char pkt_type:3; } __attribute__((preserve_access_index));
enum bpf_map_type___x { BPF_MAP_TYPE_ARRAY___x = 9, BPF_MAP_TYPE_NO_SUCH = 77 };

SEC("socket") int field_off(struct task_struct *t) { return t->pid; }
SEC("socket") int flavor_off(struct task_struct___mine *t) { return t->tgid; }
SEC("socket") int field_size(struct task_struct *t) { return __builtin_preserve_field_info(t->pid, 1); }
SEC("socket") int field_exists(struct task_struct *t) { return __builtin_preserve_field_info(t->pid, 2); }
SEC("socket") int field_missing(struct task_struct___mine *t) { return __builtin_preserve_field_info(t->no_such_field, 2); }
SEC("socket") int field_missing_read(struct task_struct___mine *t) { return t->no_such_field; }
SEC("socket") int bf_rshift(struct sk_buff *s) { return __builtin_preserve_field_info(s->pkt_type, 5); }
SEC("socket") int type_size(void *ctx) { return __builtin_preserve_type_info(*(struct task_struct *)0, 1); }
SEC("socket") int type_exists(void *ctx) { return __builtin_preserve_type_info(*(struct task_struct___mine *)0, 0); }
SEC("socket") long type_id_target(void *ctx) { return __builtin_btf_type_id(*(struct task_struct *)0, 1); }
SEC("socket") long type_id_local(void *ctx) { return __builtin_btf_type_id(*(struct task_struct *)0, 0); }
SEC("socket") int enum_value(void *ctx) { return __builtin_preserve_enum_value(*(enum bpf_map_type___x *)BPF_MAP_TYPE_ARRAY___x, 1); }
SEC("socket") int enum_missing(void *ctx) { return __builtin_preserve_enum_value(*(enum bpf_map_type___x *)BPF_MAP_TYPE_NO_SUCH, 0); }
"#;

/// The recorded BTF of the x86_64 7.3 image, read with [`crate::btf::Btf`]
/// alone (not the relocator), or `None` (the test is skipped).
fn recorded_x86_btf() -> Option<(crate::btf::Btf, std::sync::Arc<super::core::RawBtf>)> {
    let Ok(path) = super::core::recorded_vmlinux_btf_path(crate::target::Arch::X86_64) else {
        skip(Component::Vm, "the recorded vmlinux BTF of the 7.3 image is the CO-RE target");
        return None;
    };
    let btf = crate::btf::Btf::parse(&std::fs::read(&path).expect("read")).expect("parse");
    Some((btf, super::core::target_btf_file(&path).expect("target")))
}

/// The byte offset of member `field` of `strukt` in `btf`, by a plain walk.
fn member_offset(btf: &crate::btf::Btf, strukt: &str, field: &str) -> i64 {
    let id = btf.find_by_name_kind(strukt, crate::btf::BTF_KIND_STRUCT).expect("struct");
    let m = btf.members(id).into_iter().find(|m| btf.name(m.name_off) == Some(field)).expect("member");
    i64::from(m.offset & 0xff_ffff) / 8
}

#[test]
fn core_relocations_against_the_recorded_7_3_btf() {
    use crate::btf::{BTF_KIND_STRUCT, BTF_KIND_TYPEDEF};
    let Some((vmlinux, target)) = recorded_x86_btf() else { return };
    let Some(obj) = compile("core", &format!("{PRELUDE}{CORE_PROGS}")) else { return };
    let relocated = |prog: &str| -> (Insn, Result<crate::backend::LoadRequest, super::core::CoreFailure>) {
        let req = obj.load_request(prog, crate::target::Arch::X86_64).unwrap_or_else(|e| panic!("{e}"));
        let cores: Vec<usize> = req.prog.relocs.iter().filter_map(|r| if let LinkReloc::Core { insn, .. } = r { Some(*insn) } else { None }).collect();
        assert_eq!(cores.len(), 1, "{prog}: {:?}", req.prog.relocs);
        let r = super::core::relocate_request(&req, &target);
        let insn = r.as_ref().map_or(req.prog.insns[cores[0]], |r| r.prog.insns[cores[0]]);
        (insn, r)
    };
    let task = vmlinux.find_by_name_kind("task_struct", BTF_KIND_STRUCT).expect("task_struct");
    let pid = member_offset(&vmlinux, "task_struct", "pid");
    let tgid = member_offset(&vmlinux, "task_struct", "tgid");
    assert_ne!(pid, 0);
    let (i, _) = relocated("field_off");
    assert_eq!((i.code, i.off as i64), (BPF_LDX | BPF_MEM | BPF_W, pid), "offsetof(task_struct, pid)");
    let (i, _) = relocated("flavor_off");
    assert_eq!(i.off as i64, tgid, "task_struct___mine is task_struct");
    assert_eq!(relocated("field_size").0.imm, 4);
    assert_eq!(relocated("field_exists").0.imm, 1);
    assert_eq!(relocated("field_missing").0.imm, 0);
    // a read of a field the kernel lacks: libbpf's poisoned call
    let (i, r) = relocated("field_missing_read");
    assert!(r.is_ok());
    assert_eq!((i.code, i.imm), (BPF_JMP | BPF_CALL, 195_896_080));
    assert_eq!(relocated("bf_rshift").0.imm, 64 - 3, "sk_buff.pkt_type is 3 bits");
    assert_eq!(relocated("type_size").0.imm as u64, vmlinux.resolve_size(task).expect("size"));
    assert_eq!(relocated("type_exists").0.imm, 1);
    assert_eq!(relocated("type_id_target").0.imm as u32, task);
    let local = obj.btf.as_ref().expect("BTF").find_by_name_kind("task_struct", BTF_KIND_STRUCT).expect("local");
    assert_eq!(relocated("type_id_local").0.imm as u32, local);
    assert_eq!(relocated("enum_value").0.imm, 2, "BPF_MAP_TYPE_ARRAY");
    assert_eq!(relocated("enum_missing").0.imm, 0);
    assert!(vmlinux.find_by_name_kind("u32", BTF_KIND_TYPEDEF).is_some());
}

/// Through the model: relocated, the read of `pid` is accepted (its
/// offset is the 7.3 kernel's), and a reachable poisoned read is the
/// verifier's "invalid func unknown#195896080".
#[test]
fn core_programs_through_the_model() {
    use crate::backend::Backend;
    let Some(_) = recorded_x86_btf() else { return };
    let src = format!(
        "{PRELUDE}{}",
        r#"
struct task_struct { int pid; } __attribute__((preserve_access_index));
struct task_struct___mine { int no_such_field; } __attribute__((preserve_access_index));
SEC("socket") int ok(void *ctx) { return __builtin_preserve_field_info(((struct task_struct *)0)->pid, 1); }
SEC("socket") int poisoned(struct task_struct___mine *t) { return t->no_such_field; }
"#
    );
    let Some(obj) = compile("core2", &src) else { return };
    let req = obj.load_request("ok", crate::target::Arch::X86_64).expect("request");
    let out = crate::backend::model::ModelBackend.load(&req).map_err(|u| u.0).expect("the model loads");
    assert!(out.accepted, "{}", out.log);
    let req = obj.load_request("poisoned", crate::target::Arch::X86_64).expect("request");
    let out = crate::backend::model::ModelBackend.load(&req).map_err(|u| u.0).expect("the model loads");
    assert!(!out.accepted);
    assert!(out.log.contains("invalid func unknown#195896080"), "{}", out.log);
}

/// `__arena` globals (`.addr_space.1`) and the arena map they go in.
const ARENA: &str = r#"
#define __arena __attribute__((address_space(1)))
#define __ulong(name, val) enum { ___##name = val } name
struct {
	__uint(type, 33);
	__uint(map_flags, 1 << 10);
	__uint(max_entries, 4);
	__ulong(map_extra, 0x100000000ull);
} arena SEC(".maps");

int __arena counter = 5;
char __arena buf[5000];

SEC("syscall") int bump(void *ctx) { counter++; return counter + buf[10]; }
"#;

/// libbpf's `init_arena_map_data` and the relocation of `ld_imm64` of
/// arena globals: the data goes at the end of the arena, rounded up to
/// pages, and each reference is an offset into the arena map's value.
#[test]
fn arena_globals_at_the_end_of_the_arena() {
    let Some(obj) = compile("t4", &format!("{PRELUDE}{ARENA}")) else { return };
    let arena = &obj.maps()[0].def;
    assert_eq!((arena.map_type, arena.max_entries, arena.map_extra), (BPF_MAP_TYPE_ARENA, 4, 1 << 32));
    let (off, data) = arena.arena_data.clone().expect("the arena holds the globals");
    // 5004 bytes or more (clang orders and aligns them): two pages, at the
    // end of the four
    assert!((5004..=8192).contains(&data.len()), "{}", data.len());
    assert_eq!(off, 4 * 4096 - 2 * 4096);
    assert!(data.windows(4).any(|w| w == 5u32.to_le_bytes()), "counter's initial value is in the data");
    let l = obj.link("bump").expect("arena globals link");
    let offs: Vec<u32> = l.relocs.iter().filter_map(|r| if let LinkReloc::MapValue { map: 0, off, .. } = r { Some(*off) } else { None }).collect();
    assert!(!offs.is_empty() && offs.iter().all(|&o| u64::from(o) >= off && u64::from(o) < off + data.len() as u64), "{:?}", l.relocs);
    // each reference's offset lands on its variable's bytes
    assert!(offs.iter().any(|&o| data[(u64::from(o) - off) as usize..][..4] == 5u32.to_le_bytes()), "{offs:?}");
}

/// What libbpf refuses of arena globals, each a clear error.
#[test]
fn arena_globals_need_one_arena_big_enough() {
    let no_map = "int __attribute__((address_space(1))) v = 1;\nSEC(\"syscall\") int p(void *c) { return v; }\n";
    let Some(b) = compile_bytes("t5", &format!("{PRELUDE}{no_map}")) else { return };
    let e = BpfObject::open_bytes(&b, "t5").expect_err("no arena map").0;
    assert!(e.contains("to use global __arena variables the ARENA map should be explicitly declared"), "{e}");
    let small = ARENA.replace("__uint(max_entries, 4)", "__uint(max_entries, 1)");
    let Some(b) = compile_bytes("t6", &format!("{PRELUDE}{small}")) else { return };
    let e = BpfObject::open_bytes(&b, "t6").expect_err("arena too small").0;
    assert!(e.contains("declared ARENA map size (4096) is too small to hold global __arena variables"), "{e}");
    let two = format!("{ARENA}\nstruct {{ __uint(type, 33); __uint(map_flags, 1 << 10); __uint(max_entries, 1); }} arena2 SEC(\".maps\");\n");
    let Some(b) = compile_bytes("t7", &format!("{PRELUDE}{two}")) else { return };
    let e = BpfObject::open_bytes(&b, "t7").expect_err("two arenas").0;
    assert!(e.contains("only single ARENA map is supported"), "{e}");
}

/// The model runs an arena program with its globals copied in, as libbpf
/// leaves the arena after its mmap and memcpy.
#[test]
fn arena_globals_in_the_model() {
    use crate::backend::Backend;
    let Some(obj) = compile("t8", &format!("{PRELUDE}{ARENA}")) else { return };
    let mut req = obj.load_request("bump", crate::target::Arch::X86_64).expect("request");
    req.test_run = Some(crate::backend::TestRunInput::test_loader(req.prog_type));
    let out = crate::backend::model::ModelBackend.load(&req).map_err(|u| u.0).expect("the model loads");
    assert!(out.accepted, "errno {}\n{}", out.errno, out.log);
    assert_eq!(out.retval, Some(6), "counter starts at 5, buf[10] at 0");
}
