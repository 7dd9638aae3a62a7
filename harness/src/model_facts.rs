//! The model's kernel facts checked against the 7.3 source subset, where
//! it is (`scripts/setup-vm.sh --source`).

use crate::verifier::errno::errno_name;

/// The errno names against `include/uapi/asm-generic/errno*.h`.
#[test]
fn generic_errno_numbers_are_the_uapi_headers() {
    let Some(src) = crate::import::kernel_source_dir() else {
        crate::require::skip(crate::require::Component::Source, "no Linux 7.3 source for include/uapi/asm-generic/errno*.h");
        return;
    };
    let mut checked = 0;
    for f in ["errno-base.h", "errno.h"] {
        let text = std::fs::read_to_string(src.join("include/uapi/asm-generic").join(f)).unwrap();
        for l in text.lines() {
            let mut w = l.split_whitespace();
            if let (Some("#define"), Some(name), Some(v)) = (w.next(), w.next(), w.next())
                && let Ok(v) = v.parse::<i32>()
            {
                // an alias (EWOULDBLOCK) names an earlier number
                let ours = errno_name(v);
                assert!(ours == name || ours != "E?", "{name} = {v}: ours {ours:?}");
                if ours == name {
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 130, "{checked} names checked");
}
