/* The functions vector.print lowers to, for the integration tests on a GPU
 * machine. Debian's libmlir_c_runner_utils defines them but needs libMLIR
 * (over 100 MB), which a GPU machine without LLVM does not have; these print
 * the same text (printf's %g for floats, as the tests' CHECK lines expect).
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

void printF32(float f) { printf("%g", (double)f); }
void printF64(double f) { printf("%g", f); }
void printI64(int64_t i) { printf("%" PRId64, i); }
void printU64(uint64_t u) { printf("%" PRIu64, u); }
void printString(const char *s) { fputs(s, stdout); }
void printComma(void) { fputs(", ", stdout); }
void printOpen(void) { fputs("( ", stdout); }
void printClose(void) { fputs(" )", stdout); }
void printNewline(void) { fputc('\n', stdout); }
