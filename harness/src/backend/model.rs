//! The model of the 7.3 load pipeline. The verifier is not there yet, so it
//! says so and every test it would run is skipped with that reason.

use super::{Backend, LoadOutcome, LoadRequest, Unavailable};
use crate::target::Arch;

#[derive(Default)]
pub struct ModelBackend;

impl Backend for ModelBackend {
    fn name(&self) -> &'static str {
        "model"
    }
    fn probe(&self, _arch: Arch) -> Result<(), Unavailable> {
        Err(Unavailable("model: the verifier model is not implemented yet".into()))
    }
    fn kernel_release(&self) -> String {
        "7.3.4+deb13 (model)".into()
    }
    fn load(&self, _req: &LoadRequest) -> Result<LoadOutcome, Unavailable> {
        Err(Unavailable("model: the verifier model is not implemented yet".into()))
    }
}
