//! What the tests need from outside the project, and what a test does when
//! it is missing.
//!
//! By default a test that needs something the project's setup installs
//! (`scripts/setup-vm.sh --source`, llvm-19, clang-19) or that the machine
//! must offer (bpf(2) as root) is skipped when it is missing, saying what
//! and why. `BPF_SELFTEST_REQUIRE` turns those skips into failures: `all`,
//! or a comma-separated list of [`Component`] names (`vm,source`). CI sets
//! `all`, so that a green run proves the setup installed everything.

use std::fmt;

/// Something a test can need that is not part of the project itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Component {
    /// llvm-mc-19 and llvm-objdump-19 (`apt-get install llvm-19`).
    Llvm,
    /// clang-19 (`apt-get install clang-19`).
    Clang,
    /// The Linux 7.3 source subset (`scripts/setup-vm.sh --source`).
    Source,
    /// QEMU and the Debian 7.3 images, and a guest booted from them
    /// (`scripts/setup-vm.sh`).
    Vm,
    /// bpf(2) on the running kernel (root).
    Bpf,
}

impl Component {
    pub const ALL: [Component; 5] = [Component::Llvm, Component::Clang, Component::Source, Component::Vm, Component::Bpf];

    /// The name `BPF_SELFTEST_REQUIRE` uses.
    pub fn name(self) -> &'static str {
        match self {
            Component::Llvm => "llvm",
            Component::Clang => "clang",
            Component::Source => "source",
            Component::Vm => "vm",
            Component::Bpf => "bpf",
        }
    }

    /// What installs it.
    pub fn installed_by(self) -> &'static str {
        match self {
            Component::Llvm => "apt-get install llvm-19",
            Component::Clang => "apt-get install clang-19",
            Component::Source => "scripts/setup-vm.sh --source",
            Component::Vm => "scripts/setup-vm.sh",
            Component::Bpf => "running the tests as root on a kernel with bpf(2)",
        }
    }
}

impl fmt::Display for Component {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The components `spec` (a `BPF_SELFTEST_REQUIRE` value) names.
pub fn parse(spec: &str) -> Result<Vec<Component>, String> {
    let mut v = Vec::new();
    for w in spec.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        if w == "all" {
            v.extend(Component::ALL);
        } else if w != "none" {
            let c = Component::ALL.into_iter().find(|c| c.name() == w).ok_or_else(|| {
                let names: Vec<&str> = Component::ALL.iter().map(|c| c.name()).collect();
                format!("BPF_SELFTEST_REQUIRE: unknown component '{w}' (all, none, {})", names.join(", "))
            })?;
            v.push(c);
        }
    }
    Ok(v)
}

/// Whether `BPF_SELFTEST_REQUIRE` makes `c` required. A value that names
/// an unknown component requires everything (and [`skip`] says why), so
/// that a typo never turns a failure back into a skip.
pub fn is_required(c: Component) -> bool {
    match std::env::var("BPF_SELFTEST_REQUIRE") {
        Ok(spec) => parse(&spec).map_or(true, |v| v.contains(&c)),
        Err(_) => false,
    }
}

/// The line a test prints (or the reason its runner reports) when `c` is
/// missing: `Err` with the failure when `c` is required, else `Ok` with
/// the skip.
pub fn missing(c: Component, why: &str) -> Result<String, String> {
    if is_required(c) {
        let spec = std::env::var("BPF_SELFTEST_REQUIRE").unwrap_or_default();
        let bad = parse(&spec).err().map(|e| format!(" ({e})")).unwrap_or_default();
        Err(format!("required component '{c}' is missing: {why} (installed by: {}; BPF_SELFTEST_REQUIRE={spec}{bad})", c.installed_by()))
    } else {
        Ok(format!("skipped: {why}"))
    }
}

/// Skips the calling test (prints why; the caller returns) unless `c` is
/// required, in which case the test fails here naming what is missing.
#[track_caller]
pub fn skip(c: Component, why: &str) {
    match missing(c, why) {
        Ok(line) => eprintln!("{line}"),
        Err(e) => panic!("{e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_all_and_lists() {
        assert_eq!(parse("all").unwrap(), Component::ALL.to_vec());
        assert_eq!(parse("vm, source").unwrap(), vec![Component::Vm, Component::Source]);
        assert_eq!(parse("").unwrap(), vec![]);
        assert_eq!(parse("none").unwrap(), vec![]);
        assert!(parse("qemu").unwrap_err().contains("unknown component 'qemu'"));
    }
}
