//! The running kernel, through bpf(2).

use super::{Backend, LoadOutcome, LoadRequest, Unavailable};
use crate::target::Arch;

#[derive(Default)]
pub struct KernelBackend;

impl Backend for KernelBackend {
    fn name(&self) -> &'static str {
        "kernel"
    }
    fn probe(&self, _arch: Arch) -> Result<(), Unavailable> {
        Err(Unavailable("kernel: backend not implemented yet".into()))
    }
    fn kernel_release(&self) -> String {
        String::new()
    }
    fn load(&self, _req: &LoadRequest) -> Result<LoadOutcome, Unavailable> {
        Err(Unavailable("kernel: backend not implemented yet".into()))
    }
}
