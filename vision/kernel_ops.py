"""Scalar operations the numba kernels share: a float32 fused multiply-add (one rounding, as OpenCV's
SIMD code computes ``cv2.transform``), which numba does not offer as a function."""

from __future__ import annotations

from llvmlite import ir
from numba.core import types
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
