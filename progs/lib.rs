//! The project's own suites of annotated BPF programs, one module per suite
//! as the kernel has one `progs/*.c` object per test.

// One module per `progs/<suite>.rs`, found by the build script (build.rs):
// a new suite file is part of the suite as soon as it is there.
include!(concat!(env!("OUT_DIR"), "/suites.rs"));
