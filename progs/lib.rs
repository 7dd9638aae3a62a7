//! The project's own suites of annotated BPF programs.
