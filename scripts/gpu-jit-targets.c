/*
 * gpu-jit-targets.c - libjit-targets.so, preloaded by a GPU bundle built with
 * GPU_JIT=1 (docs/gpu.md): registers LLVM's NVPTX target in libLLVM before
 * main.  Debian's libomptarget 19 was built without its JIT's NVPTX target
 * ("Unable to find target for this triple (no targets are registered)"),
 * and a program whose device code travels as LLVM IR needs that JIT: LLVM
 * 19's CUDA plugin cannot read the SM of a cubin from CUDA 12.8+'s ptxas.
 * The registry is libLLVM's, shared with libomptarget.
 */
void LLVMInitializeNVPTXTargetInfo(void);
void LLVMInitializeNVPTXTarget(void);
void LLVMInitializeNVPTXTargetMC(void);
void LLVMInitializeNVPTXAsmPrinter(void);
__attribute__((constructor)) static void register_targets(void)
{
	LLVMInitializeNVPTXTargetInfo();
	LLVMInitializeNVPTXTarget();
	LLVMInitializeNVPTXTargetMC();
	LLVMInitializeNVPTXAsmPrinter();
}
