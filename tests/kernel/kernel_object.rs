//! Programs of clang-built objects loaded on the running kernel with the
//! object's own BTF ([`BpfObject::load_request`]): what only the object's
//! BTF gets past the verifier (map BTF for `bpf_spin_lock`, a global
//! function's typed ctx argument) and the source lines `line_info` puts in
//! the log. Skipped, with the reason, without clang-19 or bpf(2).

use bpf_selftest::backend::kernel::KernelBackend;
use bpf_selftest::backend::{Backend, BtfMode, LoadOutcome, LoadRequest};
use bpf_selftest::object::BpfObject;
use bpf_selftest::require::{self, Component};
use bpf_selftest::target::Arch;

const SRC: &str = r#"
#define SEC(n) __attribute__((section(n), used))
#define __uint(name, val) int (*name)[val]
#define __type(name, val) typeof(val) *name
typedef unsigned int u32;
struct bpf_spin_lock { u32 val; };
struct __sk_buff { u32 len; };
static void *(*bpf_map_lookup_elem)(void *map, const void *key) = (void *) 1;
static long (*bpf_spin_lock)(struct bpf_spin_lock *l) = (void *) 93;
static long (*bpf_spin_unlock)(struct bpf_spin_lock *l) = (void *) 94;
char _license[] SEC("license") = "GPL";

struct val { struct bpf_spin_lock lock; int cnt; };
struct { __uint(type, 2); __uint(max_entries, 1); __type(key, u32); __type(value, struct val); } locked SEC(".maps");
int counter;
__attribute__((visibility("hidden"))) int hidden_var = 4;

SEC("tc") int spin(void *ctx)
{
	u32 k = 0;
	struct val *v = bpf_map_lookup_elem(&locked, &k);
	if (!v)
		return 0;
	bpf_spin_lock(&v->lock);
	v->cnt++;
	bpf_spin_unlock(&v->lock);
	return counter + hidden_var;
}

__attribute__((noinline)) int skb_len(struct __sk_buff *skb)
{
	return skb ? skb->len : 0;
}

SEC("tc") int global_ctx(struct __sk_buff *skb)
{
	return skb_len(skb);
}
"#;

/// The object clang-19 makes of [`SRC`] (compiled once), and the host
/// arch, or `None` (the test is skipped) without clang or bpf(2).
fn setup() -> Option<(BpfObject, KernelBackend, Arch)> {
    static OBJECT: std::sync::OnceLock<Option<Vec<u8>>> = std::sync::OnceLock::new();
    let arch = Arch::host()?;
    let kb = KernelBackend::default();
    if let Err(e) = kb.probe(arch) {
        require::skip(Component::Bpf, &e.0);
        return None;
    }
    let Some(bytes) = OBJECT.get_or_init(compile) else {
        require::skip(Component::Clang, "clang-19 compiles the C test objects");
        return None;
    };
    Some((BpfObject::open_bytes(bytes, "obj_btf").unwrap_or_else(|e| panic!("{e}")), kb, arch))
}

fn compile() -> Option<Vec<u8>> {
    let clang = bpf_selftest::import::clang::clang_program()?;
    let dir = std::env::temp_dir().join(format!("bpf-selftest-kernel-object-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (c, o) = (dir.join("obj_btf.c"), dir.join("obj_btf.bpf.o"));
    std::fs::write(&c, SRC).expect("write the source");
    let out = std::process::Command::new(clang).args(["-g", "-O2", "--target=bpfel", "-mcpu=v3", "-c"]).arg(&c).arg("-o").arg(&o).output().expect("run clang");
    assert!(out.status.success(), "clang failed: {}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(&o).expect("read the object");
    let _ = std::fs::remove_dir_all(&dir);
    Some(bytes)
}

fn load(kb: &KernelBackend, req: &LoadRequest) -> LoadOutcome {
    kb.load(req).unwrap_or_else(|u| panic!("{}: {}", req.name, u.0))
}

#[test]
fn spin_lock_needs_the_maps_btf() {
    let Some((obj, kb, arch)) = setup() else { return };
    let req = obj.load_request("spin", arch).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(req.btf, BtfMode::Object(_)));
    let locked = &req.maps[0];
    assert!(locked.btf_key_type_id != 0 && locked.btf_value_type_id != 0, "{locked:?}");
    let out = load(&kb, &req);
    assert!(out.accepted, "errno {}\n{}", out.errno, out.log);
    // the made-up BTF has no types for the map: 7.3 and the running kernel
    // refuse a spin lock in a map without BTF
    let made_up = LoadRequest { btf: BtfMode::FuncInfo, ..req };
    let out = load(&kb, &made_up);
    assert!(!out.accepted, "a spin lock without map BTF was accepted");
    assert!(out.log.contains("has to have BTF in order to use bpf_spin_lock"), "{}", out.log);
}

#[test]
fn a_global_function_gets_its_ctx_argument_from_btf() {
    let Some((obj, kb, arch)) = setup() else { return };
    let req = obj.load_request("global_ctx", arch).unwrap_or_else(|e| panic!("{e}"));
    let out = load(&kb, &LoadRequest { log_level: 2, ..req.clone() });
    assert!(out.accepted, "errno {}\n{}", out.errno, out.log);
    assert!(out.log.contains("Func#1 ('skb_len') is global and assumed valid."), "{}", out.log);
    // with the made-up BTF its argument is an int, which it may not read
    let out = load(&kb, &LoadRequest { btf: BtfMode::FuncInfo, ..req });
    assert!(!out.accepted, "a scalar argument was dereferenced");
}

#[test]
fn line_info_puts_source_lines_in_the_log() {
    let Some((obj, kb, arch)) = setup() else { return };
    let req = LoadRequest { log_level: 2, ..obj.load_request("spin", arch).unwrap_or_else(|e| panic!("{e}")) };
    let BtfMode::Object(ob) = &req.btf else { panic!("no object BTF") };
    assert!(ob.line_info.as_ref().is_some_and(|l| l.cnt() > 3), "{ob:?}");
    let out = load(&kb, &req);
    assert!(out.accepted, "errno {}\n{}", out.errno, out.log);
    assert!(out.log.contains("; bpf_spin_lock(&v->lock); @ obj_btf.c:24"), "{}", out.log);
    assert!(out.log.contains("; return counter + hidden_var; @ obj_btf.c:27"), "{}", out.log);
}
