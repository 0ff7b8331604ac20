// What Swift's Glibc module does not import: GNU extensions of glibc that Herald needs to start a
// job's program in its own session and folder, without a shell and without leaking descriptors, and
// to cap the number of malloc arenas, give their free memory back and say how much they hold.
// Only declarations of functions glibc already exports, and one constant; no C library beyond glibc.
#ifndef HERALD_SYSTEM_EXTRAS_H
#define HERALD_SYSTEM_EXTRAS_H

#include <malloc.h>
#include <spawn.h>

// glibc 2.29+: posix_spawn changes to this folder in the child. Declared here because <spawn.h>
// declares it only under _GNU_SOURCE, which the Glibc module is not built with.
int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *__restrict actions, const char *__restrict path);

// glibc 2.34+: the child closes every descriptor from `from` up, so no socket of the server's leaks
// into a job's program (a leaked listening socket would outlive the server). GNU-only, as above.
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

// pipe2 with O_CLOEXEC: a pipe no other thread's spawn can inherit between creation and fcntl.
// <unistd.h> declares it only under _GNU_SOURCE.
int pipe2(int pipefd[2], int flags);

// glibc 2.26+: POSIX_SPAWN_SETSID (0x80 in <spawn.h>, also GNU-only): the child calls setsid(), so
// it leads a new session and process group, and a cancel can signal the whole group.
static inline short herald_posix_spawn_setsid(void) { return 0x80; }

// glibc: at most `count` malloc arenas for the whole process (what MALLOC_ARENA_MAX sets). glibc gives
// a thread that finds the arenas busy an arena of its own, up to 8 per core, and each arena keeps
// what it freed; every job runs on a thread of its own, so the server's RSS moves in steps of
// megabytes with no growth of what it holds. Returns mallopt's result: 1 on success.
static inline int herald_limit_malloc_arenas(int count) { return mallopt(M_ARENA_MAX, count); }

// glibc: allocations of `bytes` or more get pages of their own (mmap), given back to the kernel when
// freed. glibc starts at 128 KiB but raises the threshold to the size of each such block freed (up
// to 32 MiB), after which blocks that large come from an arena and stay resident once freed: a sort's
// 8 MB of numbers kept RSS 8 MB high after each sort. Setting it fixes it (what
// MALLOC_MMAP_THRESHOLD_ sets). Returns mallopt's result: 1 on success.
static inline int herald_fix_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

// glibc: hands the free memory of every malloc arena back to the kernel (madvise on the free pages
// inside each heap, not only its top). An arena other than the main one gives back only the top of
// its heap on its own, so what freed chunks below live ones hold stays resident. Returns 1 if any
// memory went back.
static inline int herald_trim_heap(void) { return malloc_trim(0); }

// glibc 2.33+: what malloc holds for the program, summed over every arena: `in_use`, the bytes of
// live blocks (arena chunks and blocks mapped on their own); `free_bytes`, the free chunks the arenas
// keep (resident or, after a trim, not). Takes each arena's lock in turn, as a trim does.
static inline void herald_heap_figures(size_t *in_use, size_t *free_bytes) {
    struct mallinfo2 info = mallinfo2();
    *in_use = info.uordblks + info.hblkhd;
    *free_bytes = info.fordblks;
}

#endif
