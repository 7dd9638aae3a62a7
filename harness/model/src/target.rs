//! What is arch-dependent in the load pipeline.

use std::fmt;
use std::str::FromStr;

/// `PAGE_SIZE`: 4 KiB on both 7.3 images (and every arch here).
pub const PAGE_SIZE: u64 = 4096;

/// The architectures the model targets (test_loader's `__arch_*` set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    X86_64,
    Arm64,
    Riscv64,
    S390x,
    Loongarch64,
}

impl Arch {
    pub const ALL: [Arch; 5] = [Arch::X86_64, Arch::Arm64, Arch::Riscv64, Arch::S390x, Arch::Loongarch64];

    /// The arch this binary runs on, if it is one of ours.
    pub fn host() -> Option<Arch> {
        match std::env::consts::ARCH {
            "x86_64" => Some(Arch::X86_64),
            "aarch64" => Some(Arch::Arm64),
            "riscv64" => Some(Arch::Riscv64),
            "s390x" => Some(Arch::S390x),
            "loongarch64" => Some(Arch::Loongarch64),
            _ => None,
        }
    }

    /// The arch's name (`x86_64`, `arm64`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86_64",
            Arch::Arm64 => "arm64",
            Arch::Riscv64 => "riscv64",
            Arch::S390x => "s390x",
            Arch::Loongarch64 => "loongarch64",
        }
    }

    /// `bpf_jit_needs_zext()`: whether the verifier inserts explicit zero
    /// extensions after 32-bit defs whose upper half is read.
    pub fn jit_needs_zext(self) -> bool {
        matches!(self, Arch::Riscv64 | Arch::S390x)
    }

    /// `CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS` in the kernels we target:
    /// test_loader neither runs `BPF_F_ANY_ALIGNMENT` programs nor their
    /// unpriv subtests without it. riscv64 only has it with
    /// `RISCV_EFFICIENT_UNALIGNED_ACCESS`, which distribution kernels leave off.
    pub fn efficient_unaligned_access(self) -> bool {
        !matches!(self, Arch::Riscv64)
    }

    /// Whether the kernel JITs programs (`prog->jit_requested`): the Debian
    /// 7.3 kernels of all five arches build the JIT and turn it on. Not
    /// whether the model has one ([`Arch::has_jit`]).
    pub fn kernel_jits(self) -> bool {
        true
    }

    /// Whether the model has a JIT for this arch (the others are xlated only).
    pub fn has_jit(self) -> bool {
        matches!(self, Arch::X86_64 | Arch::Arm64)
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Arch {
    type Err = String;
    fn from_str(s: &str) -> Result<Arch, String> {
        match s {
            "x86_64" | "x86-64" | "amd64" | "X86_64" => Ok(Arch::X86_64),
            "arm64" | "aarch64" | "ARM64" => Ok(Arch::Arm64),
            "riscv64" | "RISCV64" => Ok(Arch::Riscv64),
            "s390x" => Ok(Arch::S390x),
            "loongarch64" | "loongarch" | "LOONGARCH" => Ok(Arch::Loongarch64),
            _ => Err(format!("unknown arch '{s}' (x86_64, arm64, riscv64, s390x, loongarch64)")),
        }
    }
}
