"""Scalar operations the numba kernels share, which numba does not offer as functions: a float32 fused
multiply-add (one rounding, as OpenCV's SIMD code computes ``cv2.transform``), a memory prefetch hint and
an unaligned 8-byte load."""

from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic


@intrinsic
def fma32(typingctx, a, b, c):
    """float32 a * b + c with one rounding (LLVM's ``llvm.fma``; a vector FMA where the loop vectorises)."""
    sig = types.float32(types.float32, types.float32, types.float32)

    def codegen(context, builder, signature, args):
        f32 = ir.FloatType()
        fn = builder.module.declare_intrinsic("llvm.fma", [f32], ir.FunctionType(f32, [f32, f32, f32]))
        return builder.call(fn, args)

    return sig, codegen


@intrinsic
def prefetch(typingctx, arr, index):
    """Ask the CPU to start loading ``arr[index]`` (a 1-D array) into its caches (LLVM's ``llvm.prefetch``: a
    read, kept close). It changes no value; it lets a loop that reads scattered pixels of a frame not yet in
    the cache keep many loads in flight instead of waiting for each. The index must lie inside the array."""
    sig = types.void(arr, types.intp)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), i8p)
        builder.call(fn, [ptr, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def load_u64(typingctx, arr, index):
    """The 8 bytes ``arr[index:index + 8]`` of a 1-D uint8 array as one little-endian uint64 (an unaligned
    load: byte ``index + k`` in bits 8k..8k+7 on the little-endian CPUs numba targets). One load in place of
    eight; the caller must keep ``index + 8`` within the array."""
    sig = types.uint64(arr, types.intp)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), ir.IntType(64).as_pointer())
        return builder.load(ptr, align=1)

    return sig, codegen
