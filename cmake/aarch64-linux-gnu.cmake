# Cross-compiling pesbench for aarch64 Linux on a Debian host: the gcc-aarch64-linux-gnu
# toolchain and the multiarch arm64 -dev packages (/usr/lib/aarch64-linux-gnu).
# cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake [-DPB_STATIC=ON]
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(PB_CROSS_TRIPLE aarch64-linux-gnu)

set(CMAKE_C_COMPILER ${PB_CROSS_TRIPLE}-gcc)
set(CMAKE_ASM_COMPILER ${PB_CROSS_TRIPLE}-gcc)

# Programs come from the host, headers and libraries from the target's multiarch directories
# (the Debian cross gcc already searches /usr/include/aarch64-linux-gnu and
# /usr/lib/aarch64-linux-gnu; the root path keeps find_library off the host's x86 libraries).
set(CMAKE_FIND_ROOT_PATH /usr/${PB_CROSS_TRIPLE} /usr)
set(CMAKE_LIBRARY_ARCHITECTURE ${PB_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config must answer for arm64: only the target's .pc files, never the host's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${PB_CROSS_TRIPLE}/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# Run the cross-built programs (try_run, tests) through qemu-user when it is installed.
find_program(PB_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(PB_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${PB_QEMU_AARCH64})
endif()
