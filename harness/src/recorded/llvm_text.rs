//! test_loader's `__jited` text of JIT images, made by LLVM itself: the
//! recorders' source of the text in the JIT goldens, which the project's own
//! printer ([`crate::jit_disasm`]) is checked against and so must not write.
//!
//! libLLVM-19 is opened at run time (`dlopen`, nothing linked) and driven
//! through its disassembler C API the way 7.3's `jit_disasm_helpers.c`
//! drives it: a context with the `PrintImmHex` option and a symbol callback;
//! a first pass over the function that collects the targets of branches
//! (`In_Branch` references below the function length, at most 32, in the
//! order met, duplicates kept), sorted and named `L0`, `L1`, ...; then a
//! second pass that prints each instruction, the callback now answering a
//! branch with the first entry equal to its target, and a line at a target
//! taking the entry glibc's `bsearch` lands on. A line is the pc in hex, a
//! tab, the bytes as `xx ` padded to 12 bytes' width, the label with a
//! colon, and LLVM's text (64-byte buffer, so at most 63 characters); the
//! first pass gives LLVM a 1-byte buffer. Each function is `func #i:`, its
//! lines and an empty line.
//!
//! The helper asks for the host's triple, CPU and features; the images
//! recorded here are another arch's as often as not, so the context is
//! made for the image's arch: `x86_64-pc-linux-gnu` with no CPU or
//! features, `aarch64-linux-gnu` with `+all` (what the recorded goldens
//! were printed with).

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::sync::OnceLock;

use crate::target::Arch;

type Ctx = *mut c_void;
type SymbolLookup = extern "C" fn(*mut c_void, u64, *mut u64, u64, *mut *const c_char) -> *const c_char;
type CreateFn = unsafe extern "C" fn(*const c_char, *const c_char, *const c_char, *mut c_void, c_int, *const c_void, SymbolLookup) -> Ctx;
type SetOptionsFn = unsafe extern "C" fn(Ctx, u64) -> c_int;
type DisasmFn = unsafe extern "C" fn(Ctx, *const u8, u64, u64, *mut c_char, usize) -> usize;
type DisposeFn = unsafe extern "C" fn(Ctx);

/// `LLVMDisassembler_Option_PrintImmHex`.
const PRINT_IMM_HEX: u64 = 2;
/// `LLVMDisassembler_ReferenceType_In_Branch`.
const REF_IN_BRANCH: u64 = 1;
/// `LLVMDisassembler_ReferenceType_InOut_None`.
const REF_NONE: u64 = 0;
/// The helper's `MAX_LOCAL_LABELS`.
const MAX_LABELS: usize = 32;

/// The library names tried, in order.
const LIBRARIES: [&str; 2] = ["libLLVM.so.19.1", "libLLVM-19.so"];

struct Llvm {
    create: CreateFn,
    set_options: SetOptionsFn,
    disasm: DisasmFn,
    dispose: DisposeFn,
}

/// The library, opened and its X86 and AArch64 disassemblers initialised
/// once per process.
fn llvm() -> Result<&'static Llvm, String> {
    static LIB: OnceLock<Result<Llvm, String>> = OnceLock::new();
    LIB.get_or_init(open).as_ref().map_err(Clone::clone)
}

fn open() -> Result<Llvm, String> {
    let mut handle = std::ptr::null_mut();
    for name in LIBRARIES {
        let c = CString::new(name).map_err(|e| e.to_string())?;
        // SAFETY: a NUL-terminated name; the handle is never closed.
        handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if !handle.is_null() {
            break;
        }
    }
    if handle.is_null() {
        return Err(format!("libLLVM-19 cannot be opened ({}): apt-get install llvm-19", LIBRARIES.join(", ")));
    }
    let sym = |name: &str| -> Result<*mut c_void, String> {
        let c = CString::new(name).map_err(|e| e.to_string())?;
        // SAFETY: a live handle and a NUL-terminated name.
        let p = unsafe { libc::dlsym(handle, c.as_ptr()) };
        if p.is_null() { Err(format!("libLLVM-19 has no {name}")) } else { Ok(p) }
    };
    for target in ["X86", "AArch64"] {
        for part in ["TargetInfo", "TargetMC", "Disassembler"] {
            let f = sym(&format!("LLVMInitialize{target}{part}"))?;
            // SAFETY: LLVMInitialize* take nothing and return nothing.
            unsafe { std::mem::transmute::<*mut c_void, unsafe extern "C" fn()>(f)() };
        }
    }
    // SAFETY: the C API's signatures, as declared in llvm-c/Disassembler.h.
    unsafe {
        Ok(Llvm {
            create: std::mem::transmute::<*mut c_void, CreateFn>(sym("LLVMCreateDisasmCPUFeatures")?),
            set_options: std::mem::transmute::<*mut c_void, SetOptionsFn>(sym("LLVMSetDisasmOptions")?),
            disasm: std::mem::transmute::<*mut c_void, DisasmFn>(sym("LLVMDisasmInstruction")?),
            dispose: std::mem::transmute::<*mut c_void, DisposeFn>(sym("LLVMDisasmDispose")?),
        })
    }
}

/// Whether libLLVM-19 can be used here (for skips and errors).
pub fn available() -> Result<(), String> {
    llvm().map(|_| ())
}

/// The symbol callback's state: the helper's `struct local_labels`.
struct Labels {
    print_phase: bool,
    len: u64,
    pcs: Vec<u64>,
    names: Vec<CString>,
}

extern "C" fn lookup(data: *mut c_void, value: u64, ref_type: *mut u64, _pc: u64, ref_name: *mut *const c_char) -> *const c_char {
    // SAFETY: LLVM passes back the `Labels` given at creation and valid
    // out-pointers.
    let (labels, ty) = unsafe {
        let ty = *ref_type;
        *ref_type = REF_NONE;
        *ref_name = std::ptr::null();
        (&mut *(data as *mut Labels), ty)
    };
    if ty != REF_IN_BRANCH {
        return std::ptr::null();
    }
    if labels.print_phase {
        match labels.pcs.iter().position(|&p| p == value) {
            Some(k) => labels.names[k].as_ptr(),
            None => std::ptr::null(),
        }
    } else {
        if labels.pcs.len() < MAX_LABELS && value < labels.len {
            labels.pcs.push(value);
        }
        std::ptr::null()
    }
}

/// glibc's `bsearch`: halves `[l, u)` at `(l + u) / 2` until it hits.
fn glibc_bsearch(sorted: &[u64], key: u64) -> Option<usize> {
    let (mut l, mut u) = (0, sorted.len());
    while l < u {
        let mid = (l + u) / 2;
        match key.cmp(&sorted[mid]) {
            std::cmp::Ordering::Less => u = mid,
            std::cmp::Ordering::Greater => l = mid + 1,
            std::cmp::Ordering::Equal => return Some(mid),
        }
    }
    None
}

/// test_loader's text of one function, or where LLVM could not decode.
fn function(llvm: &Llvm, arch: Arch, image: &[u8]) -> Result<Vec<String>, String> {
    let (triple, features) = match arch {
        Arch::X86_64 => (c"x86_64-pc-linux-gnu", c""),
        Arch::Arm64 => (c"aarch64-linux-gnu", c"+all"),
        other => return Err(format!("no LLVM disassembly for {other}")),
    };
    // owned by the guard below; LLVM and this function reach it through the
    // one raw pointer only
    let labels: *mut Labels = Box::into_raw(Box::new(Labels { print_phase: false, len: image.len() as u64, pcs: Vec::new(), names: Vec::new() }));
    struct Guard<'a>(&'a Llvm, Ctx, *mut Labels);
    impl Drop for Guard<'_> {
        fn drop(&mut self) {
            // SAFETY: a context made by LLVMCreateDisasmCPUFeatures (or
            // null), disposed once, then the labels it pointed at, freed once.
            unsafe {
                if !self.1.is_null() {
                    (self.0.dispose)(self.1);
                }
                drop(Box::from_raw(self.2));
            }
        }
    }
    // SAFETY: NUL-terminated strings; the labels outlive the context.
    let ctx = unsafe { (llvm.create)(triple.as_ptr(), c"".as_ptr(), features.as_ptr(), labels as *mut c_void, 0, std::ptr::null(), lookup) };
    let _guard = Guard(llvm, ctx, labels);
    if ctx.is_null() {
        return Err(format!("LLVMCreateDisasmCPUFeatures failed for {arch}"));
    }
    // SAFETY: a live context.
    if unsafe { (llvm.set_options)(ctx, PRINT_IMM_HEX) } != 1 {
        return Err("LLVMSetDisasmOptions(PrintImmHex) failed".into());
    }
    let mut buf = [0 as c_char; 64];
    let step = |pc: usize, size: usize, buf: &mut [c_char]| -> Result<usize, String> {
        let rest = &image[pc..];
        // SAFETY: `rest` and `buf` are valid for the lengths given.
        let n = unsafe { (llvm.disasm)(ctx, rest.as_ptr(), rest.len() as u64, pc as u64, buf.as_mut_ptr(), size) };
        if n == 0 {
            let bytes: Vec<String> = rest.iter().take(16).map(|b| format!("{b:02x}")).collect();
            return Err(format!("Can't disasm instruction at offset {pc}: {}", bytes.join(" ")));
        }
        Ok(n)
    };
    let mut pc = 0;
    while pc < image.len() {
        pc += step(pc, 1, &mut buf)?;
    }
    {
        // SAFETY: no LLVM call is running; nothing else holds a reference.
        let l = unsafe { &mut *labels };
        l.pcs.sort_unstable();
        l.names = (0..l.pcs.len()).map(|k| CString::new(format!("L{k}")).unwrap_or_default()).collect();
        l.print_phase = true;
    }
    let mut lines = Vec::new();
    let mut pc = 0;
    while pc < image.len() {
        let n = step(pc, 64, &mut buf)?;
        // SAFETY: LLVM NUL-terminates what it writes into `buf`.
        let text = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned();
        let mut line = format!("{pc:x}:\t");
        for b in &image[pc..pc + n] {
            line.push_str(&format!("{b:02x} "));
        }
        for _ in n * 3..36 {
            line.push(' ');
        }
        // SAFETY: as above, between two LLVM calls
        if let Some(k) = glibc_bsearch(unsafe { &(*labels).pcs }, pc as u64) {
            line.push_str(&format!("L{k}:"));
        }
        line.push_str(&text);
        lines.push(line);
        pc += n;
    }
    Ok(lines)
}

/// test_loader's text of the JIT images of one program (`func #i:`, the
/// lines, an empty line per function), as [`crate::jit_disasm::test_loader_text`]
/// lays it out.
pub fn test_loader_text(arch: Arch, funcs: &[Vec<u8>]) -> Result<Vec<String>, String> {
    let llvm = llvm()?;
    let mut out = Vec::new();
    for (i, f) in funcs.iter().enumerate() {
        out.push(format!("func #{i}:"));
        out.extend(function(llvm, arch, f).map_err(|e| format!("func #{i}: {e}"))?);
        out.push(String::new());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bsearch_lands_where_glibc_does() {
        // three references to 0x75 among seven: the middle one is hit first
        let pcs = [0x55, 0x66, 0x75, 0x75, 0x75, 0x8d, 0x97];
        assert_eq!(glibc_bsearch(&pcs, 0x75), Some(3));
        assert_eq!(glibc_bsearch(&pcs, 0x55), Some(0));
        assert_eq!(glibc_bsearch(&pcs, 0x97), Some(6));
        assert_eq!(glibc_bsearch(&pcs, 0x56), None);
        assert_eq!(glibc_bsearch(&[], 1), None);
    }
}
