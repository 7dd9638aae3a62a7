//! Real kernels and their sources: the kernel backend on the running kernel
//! (`kernel_backend`; clang's objects with their BTF, `kernel_object`;
//! `veristat` on the model and the running kernel), the vm backend on 7.3 under QEMU (`vm_backend`), and
//! the assembler on every naked-asm block of 7.3's own selftests
//! (`kernel_asm`). Each skips, saying why, without what it needs. One test
//! binary (`cargo test --test kernel`).

mod backend_common;
mod kernel_asm;
mod kernel_backend;
mod kernel_object;
mod veristat;
mod vm_backend;
