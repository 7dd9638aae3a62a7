//! The scalar domain: ranges, tnums and their ALU transfer functions.
