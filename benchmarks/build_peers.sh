#!/usr/bin/env bash
# Build the peer solvers that benchmarks/peers.py runs gsolve against, from their public
# sources, into a folder outside the project.
#
#   bash benchmarks/build_peers.sh DIR
#
# DIR must hold two checkouts:
#   DIR/GamesmanOne      github.com/GamesCrafters/GamesmanOne with its submodules
#                        (git clone --recursive; lib/json-c, lib/xz, lib/lz4)
#   DIR/GamesmanClassic  github.com/GamesCrafters/GamesmanClassic
# Needs cmake, gcc, make, autoconf, zlib1g-dev and libgmp-dev. Afterwards:
#   DIR/GamesmanOne/bin/gamesman            (Release: -O3)
#   DIR/GamesmanClassic/bin/mwin4_WxH       (Connect-4 WxH, -O2) for 4x4, 5x4, 5x5
set -euo pipefail
DIR=$(cd "${1:?usage: build_peers.sh DIR}" && pwd)
JOBS=${JOBS:-$(nproc)}

one=$DIR/GamesmanOne
if [ -d "$one" ]; then
  (
    cd "$one"
    flags="-DBUILD_SHARED_LIBS=OFF -DCMAKE_INSTALL_PREFIX=$one/res -DCMAKE_BUILD_TYPE=Release"
    for lib in json-c xz lz4; do
      src=../../lib/$lib
      [ "$lib" = lz4 ] && src=../../lib/lz4/build/cmake
      mkdir -p "lib-build/$lib"
      (cd "lib-build/$lib" && cmake "$src" $flags >/dev/null && make -j"$JOBS" install >/dev/null)
    done
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build build -- -j"$JOBS" >/dev/null
  )
  echo "built $one/bin/gamesman"
fi

classic=$DIR/GamesmanClassic
if [ -d "$classic" ]; then
  (
    cd "$classic"
    [ -f configure ] || autoconf
    [ -f src/Makefile ] || ./configure --disable-graphics >/dev/null
    opt="-O2 -Wall -DNDEBUG -DLINUX_ELF -DNO_GRAPHICS -std=gnu99"
    if [ ! -f src/.gsolve-O2 ]; then  # objects from a build without -O2 would be kept
      make -C src clean >/dev/null 2>&1 || true
      touch src/.gsolve-O2
    fi
    make -C src -j"$JOBS" CFLAGS="$opt" >/dev/null 2>&1
    # mwin4's board size is a compile-time default (its menu changes it interactively):
    # build one binary per size from a patched copy of the source.
    cp src/mwin4.c src/mwin4.c.orig
    trap 'mv -f src/mwin4.c.orig src/mwin4.c' EXIT
    for size in 4x4 5x4 5x5; do
      w=${size%x*}; h=${size#*x}
      sed -e "s/^int WIN4_WIDTH = [0-9]*;/int WIN4_WIDTH = $w;/" \
          -e "s/^int WIN4_HEIGHT = [0-9]*;/int WIN4_HEIGHT = $h;/" src/mwin4.c.orig > src/mwin4.c
      rm -f src/mwin4.o
      make -C src ../bin/mwin4 CFLAGS="$opt" >/dev/null 2>&1
      cp bin/mwin4 "bin/mwin4_$size"
      echo "built $classic/bin/mwin4_$size"
    done
  )
fi
