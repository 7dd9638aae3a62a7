//! Arbitrary bytes as a BPF object: opening it with libbpf's semantics,
//! its maps, and linking each of its programs give a value or an error,
//! never a panic or an unbounded allocation.
#![no_main]

use bpf_selftest::object::BpfObject;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(obj) = BpfObject::open_bytes(data, "fuzz") {
        let _ = obj.map_defs();
        let names: Vec<String> = obj.programs().map(|p| p.name.clone()).collect();
        for name in names {
            let _ = obj.link(&name);
        }
    }
});
