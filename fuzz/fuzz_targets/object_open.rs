//! Arbitrary bytes as a BPF object: opening it with libbpf's semantics,
//! its maps, and each of its programs' load request (the object loader's
//! one path, `BpfObject::load_request`: linking with the subprograms it
//! reaches, map and global relocations, the section's type, the BTF and its
//! `func_info`/`line_info`) give a value or an error, never a panic or an
//! unbounded allocation.
#![no_main]

use bpf_selftest::object::BpfObject;
use bpf_selftest::target::Arch;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(obj) = BpfObject::open_bytes(data, "fuzz") {
        let _ = obj.map_defs();
        for p in obj.programs() {
            // the arch is only carried in the request: one is enough
            if let Ok(req) = obj.load_request(&p.name, Arch::X86_64) {
                assert_eq!(req.name, p.name);
            }
        }
    }
});
