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
    required_by(env_spec().as_deref(), c)
}

/// [`is_required`] for a given `BPF_SELFTEST_REQUIRE` value (`None`: unset).
pub fn required_by(spec: Option<&str>, c: Component) -> bool {
    spec.is_some_and(|spec| parse(spec).map_or(true, |v| v.contains(&c)))
}

fn env_spec() -> Option<String> {
    std::env::var("BPF_SELFTEST_REQUIRE").ok()
}

/// The line a test prints (or the reason its runner reports) when `c` is
/// missing: `Err` with the failure when `c` is required, else `Ok` with
/// the skip.
pub fn missing(c: Component, why: &str) -> Result<String, String> {
    missing_under(env_spec().as_deref(), c, why)
}

/// [`missing`] for a given `BPF_SELFTEST_REQUIRE` value (`None`: unset).
pub fn missing_under(spec: Option<&str>, c: Component, why: &str) -> Result<String, String> {
    match spec {
        Some(spec) if required_by(Some(spec), c) => {
            let bad = parse(spec).err().map(|e| format!(" ({e})")).unwrap_or_default();
            Err(format!("required component '{c}' is missing: {why} (installed by: {}; BPF_SELFTEST_REQUIRE={spec}{bad})", c.installed_by()))
        }
        _ => Ok(format!("skipped: {why}")),
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

    #[test]
    fn a_required_components_skip_is_a_failure() {
        let why = "no Linux 7.3 source";
        assert_eq!(missing_under(None, Component::Source, why), Ok("skipped: no Linux 7.3 source".into()));
        assert_eq!(missing_under(Some(""), Component::Source, why), Ok("skipped: no Linux 7.3 source".into()));
        assert_eq!(missing_under(Some("none"), Component::Source, why), Ok("skipped: no Linux 7.3 source".into()));
        assert_eq!(missing_under(Some("vm,llvm"), Component::Source, why), Ok("skipped: no Linux 7.3 source".into()));
        for spec in ["all", "source", "vm, source"] {
            let e = missing_under(Some(spec), Component::Source, why).unwrap_err();
            assert!(e.starts_with("required component 'source' is missing: no Linux 7.3 source"), "{e}");
            assert!(e.contains("scripts/setup-vm.sh --source"), "{e}");
        }
        // a typo requires everything, and says so
        let e = missing_under(Some("sources"), Component::Bpf, "bpf(2) is not permitted").unwrap_err();
        assert!(e.starts_with("required component 'bpf' is missing") && e.contains("unknown component 'sources'"), "{e}");
    }
}
