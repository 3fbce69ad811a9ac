# Cross-compiling pesbench for riscv64 Linux on a Debian 12 host: the gcc-riscv64-linux-gnu
# toolchain, and pesbench's libraries cross-built from Debian's sources into a sysroot by
# scripts/riscv64-deps.sh (Debian 12 has no riscv64 architecture, so no multiarch -dev
# packages). cmake -S . -B build-riscv64 -DCMAKE_TOOLCHAIN_FILE=cmake/riscv64-linux-gnu.cmake
#   -DPB_RISCV64_SYSROOT=/var/cache/pesbench/riscv64-sysroot-... -DPB_STATIC=ON
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR riscv64)
set(PB_CROSS_TRIPLE riscv64-linux-gnu)

set(CMAKE_C_COMPILER ${PB_CROSS_TRIPLE}-gcc)
set(CMAKE_ASM_COMPILER ${PB_CROSS_TRIPLE}-gcc)

# try_compile reads this file again in a project of its own: the path travels with it.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES PB_RISCV64_SYSROOT)
if(NOT PB_RISCV64_SYSROOT)
  message(FATAL_ERROR "riscv64: set PB_RISCV64_SYSROOT to the sysroot of scripts/riscv64-deps.sh")
endif()
set(CMAKE_FIND_ROOT_PATH ${PB_RISCV64_SYSROOT} /usr/${PB_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config answers from the sysroot only, never the host's x86 .pc files.
set(ENV{PKG_CONFIG_LIBDIR} ${PB_RISCV64_SYSROOT}/lib/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")

find_program(PB_QEMU_RISCV64 NAMES qemu-riscv64-static qemu-riscv64)
if(PB_QEMU_RISCV64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${PB_QEMU_RISCV64})
endif()
