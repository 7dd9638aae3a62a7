//! Importing the kernel's own selftests (`tools/testing/selftests/bpf/progs`).

use std::path::{Path, PathBuf};

pub mod c_source;

/// The 7.3 source tree the importer reads (never committed here: the
/// kernel's sources are GPL): `$BPF_SELFTEST_KERNEL_SRC`, else what
/// `scripts/setup-vm.sh --source` fetched, else the oracle kit's cache.
pub fn kernel_source_dir() -> Option<PathBuf> {
    let candidates = [
        std::env::var("BPF_SELFTEST_KERNEL_SRC").ok().map(PathBuf::from),
        Some(Path::new(&std::env::var("BPF_SELFTEST_CACHE").unwrap_or_else(|_| "/var/cache/bpf-selftest".into())).join("linux-7.3")),
        Some(Path::new(&std::env::var("BPF_ORACLE_CACHE").unwrap_or_else(|_| "/var/cache/bpf-oracle".into())).join("linux-7.3")),
    ];
    candidates.into_iter().flatten().find(|d| d.join("tools/testing/selftests/bpf/progs").is_dir())
}
