//! `bpf-selftest veristat` on an object clang makes here, through the model
//! and the running kernel side by side (`--backend model,kernel --json`):
//! the kernel's verdicts are the truth, and for programs this small the
//! processed instructions and states are the same on every recent kernel.
//! Skipped, saying why, without clang or bpf(2).

use std::process::Command;

use bpf_selftest::backend::Backend;
use bpf_selftest::backend::kernel::KernelBackend;
use bpf_selftest::require::{self, Component};
use bpf_selftest::target::Arch;
use serde_json::Value;

/// Two socket filters over one hash map: `checked` tests the lookup's
/// result for NULL, `unchecked` reads through it (the verifier refuses
/// `map_value_or_null`).
const SOURCE: &str = r#"
#define SEC(n) __attribute__((section(n), used))
#define __uint(name, val) int (*name)[val]
#define __type(name, val) typeof(val) *name
static void *(*bpf_map_lookup_elem)(void *map, const void *key) = (void *) 1;
struct {
    __uint(type, 1);
    __uint(max_entries, 1);
    __type(key, int);
    __type(value, long);
} vals SEC(".maps");
SEC("socket") int checked(void *ctx) { int k = 0; long *v = bpf_map_lookup_elem(&vals, &k); return v ? *v : 0; }
SEC("socket") int unchecked(void *ctx) { int k = 0; long *v = bpf_map_lookup_elem(&vals, &k); return *v; }
char _license[] SEC("license") = "GPL";
"#;

#[test]
fn model_and_running_kernel_agree_on_a_clang_object() {
    let Some(arch) = Arch::host() else { return };
    if let Err(e) = KernelBackend::default().probe(arch) {
        require::skip(Component::Bpf, &e.0);
        return;
    }
    let Some(clang) = bpf_selftest::import::clang::clang_program() else {
        require::skip(Component::Clang, "clang-19 compiles the veristat test object");
        return;
    };
    let dir = std::env::temp_dir().join(format!("bpf-selftest-veristat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (c, o) = (dir.join("lookups.c"), dir.join("lookups.bpf.o"));
    std::fs::write(&c, SOURCE).expect("write the source");
    let cc = Command::new(clang).args(["-g", "-O2", "--target=bpfel", "-mcpu=v3", "-c"]).arg(&c).arg("-o").arg(&o).output().expect("run clang");
    assert!(cc.status.success(), "clang: {}", String::from_utf8_lossy(&cc.stderr));
    let out = Command::new(env!("CARGO_BIN_EXE_bpf-selftest"))
        .args(["veristat", "--backend", "model,kernel", "--json", "--arch", arch.name()])
        .arg(&o)
        .output()
        .expect("run bpf-selftest veristat");
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "veristat failed: {}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect();
    let names: Vec<&str> = rows.iter().map(|r| r["prog"].as_str().unwrap()).collect();
    assert_eq!(names, ["checked", "unchecked"]);
    for r in &rows {
        let (m, k) = (&r["model"], &r["kernel"]);
        assert!(m.get("error").is_none() && k.get("error").is_none(), "{r}");
        for key in ["verdict", "insns", "states", "peak_states"] {
            assert_eq!(m[key], k[key], "{}: {key}: model {} kernel {}", r["prog"], m[key], k[key]);
        }
    }
    assert_eq!(rows[0]["kernel"]["verdict"], "success");
    assert_eq!(rows[1]["kernel"]["verdict"], "failure");
    assert_eq!(rows[1]["kernel"]["errno"], 13, "EACCES: {}", rows[1]);
    assert!(rows[0]["kernel"]["insns"].as_u64().unwrap() > 0, "the stats line was read: {}", rows[0]);
}
