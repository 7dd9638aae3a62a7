#!/usr/bin/env python3
"""Ground truth for tests/jit_disasm.rs: what LLVM-19's disassembler C API
prints, called the way the kernel's jit_disasm_helpers.c calls it
(LLVMCreateDisasmCPUFeatures + PrintImmHex + a symbol callback that names
nothing). llvm-objdump differs from it in a few places (comments, SoftFail
encodings, pc-relative operands), and test_loader sees the C API.

usage: llvm_capi.py x86_64|arm64 < lines   (each line: "<addr hex>\t<bytes hex>",
contiguous: one instruction stream as llvm-objdump split it)
prints "<addr>\t<bytes>\t<text without the leading tab>", "...\t<fail>" when
LLVM refuses, or "...\t<len N>" when it decodes another length. Like the
kernel helper, each call sees the rest of the stream, not just the line.
CPU: generic x86-64 (the decoder is feature-independent for JIT code);
arm64 with "+all", as for a cross-arch host.
"""
import ctypes
import sys

LIB = "libLLVM.so.19.1"
PRINT_IMM_HEX = 2  # LLVMDisassembler_Option_PrintImmHex

SymbolLookup = ctypes.CFUNCTYPE(
    ctypes.c_char_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.POINTER(ctypes.c_uint64),
    ctypes.c_uint64, ctypes.POINTER(ctypes.c_char_p))


@SymbolLookup
def no_symbols(_info, _value, ref_type, _pc, ref_name):
    ref_type[0] = 0  # LLVMDisassembler_ReferenceType_InOut_None
    ref_name[0] = None
    return None


def main():
    arch = sys.argv[1]
    llvm = ctypes.CDLL(LIB)
    target = {"x86_64": "X86", "arm64": "AArch64"}[arch]
    for part in ("TargetInfo", "TargetMC", "Disassembler"):
        getattr(llvm, f"LLVMInitialize{target}{part}")()
    create = llvm.LLVMCreateDisasmCPUFeatures
    create.restype = ctypes.c_void_p
    create.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, SymbolLookup]
    disasm = llvm.LLVMDisasmInstruction
    disasm.restype = ctypes.c_size_t
    disasm.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_char_p, ctypes.c_size_t]
    llvm.LLVMSetDisasmOptions.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
    if arch == "x86_64":
        ctx = create(b"x86_64-pc-linux-gnu", b"", b"", None, 0, None, no_symbols)
    else:
        ctx = create(b"aarch64-linux-gnu", b"", b"+all", None, 0, None, no_symbols)
    if not ctx or llvm.LLVMSetDisasmOptions(ctx, PRINT_IMM_HEX) != 1:
        sys.exit("cannot create the LLVM disassembler")
    buf = ctypes.create_string_buffer(256)
    lines = [line.split() for line in sys.stdin]
    stream = b"".join(bytes.fromhex(h) for _, h in lines)
    out = []
    off = 0
    for addr, hexbytes in lines:
        size = len(hexbytes) // 2
        code = stream[off:off + 32]
        off += size
        n = disasm(ctx, code, len(code), int(addr, 16), buf, len(buf))
        text = buf.value.decode() if n == size else "<fail>" if n == 0 else f"<len {n}>"
        out.append(f"{addr}\t{hexbytes}\t{text[1:] if text.startswith(chr(9)) else text}\n")
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
