#pragma once
// Asks for the cache line holding p ahead of its use. GCC 12 drops a __builtin_prefetch as dead
// code where a loop does nothing else (a send's pass over its receivers' mailboxes); an asm
// statement it keeps.
namespace nnlb {

inline void prefetch(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

}  // namespace nnlb
