#!/usr/bin/env bash
# maude-bundle.sh DIR: copies this machine's Maude (the Debian package)
# into DIR with every shared library it loads, the dynamic loader and its
# prelude, and writes DIR/maude, a wrapper that runs it from there. The
# GPU machine has no Maude and no package manager; with the bundle,
# scripts/bench-rec.sh runs Maude there, in the same run as gpuc's GPU
# programs and CPU rewriter. Prints nothing and makes nothing where Maude
# is not installed.
set -euo pipefail
dir=${1:?usage: maude-bundle.sh DIR}
bin=$(command -v maude) || exit 0
bin=$(readlink -f "$bin")
prelude=$(dirname "$(readlink -f "$(dirname "$bin")")")/share/maude
[ -f "$prelude/prelude.maude" ] || { echo "maude-bundle: no prelude.maude in $prelude" >&2; exit 1; }
mkdir -p "$dir/lib"
cp "$bin" "$dir/maude.bin"
cp "$prelude"/*.maude "$dir/"
# Every library ldd resolves, and the loader, so that the bundle does not
# depend on the other machine's libraries.
ldd "$bin" | awk '/=> \// { print $3 } /^[ \t]*\/.*ld-linux/ { print $1 }' | while read -r lib; do
  cp -L "$lib" "$dir/lib/"
done
loader=$(basename "$(ldd "$bin" | awk '/ld-linux/ { print ($3 ~ /^\// ? $3 : $1) }' | head -1)")
cat > "$dir/maude" <<WRAP
#!/bin/sh
# Maude from this bundle (scripts/maude-bundle.sh).
d=\$(dirname "\$(readlink -f "\$0")")
MAUDE_LIB=\$d exec "\$d/lib/$loader" --library-path "\$d/lib" "\$d/maude.bin" "\$@"
WRAP
chmod +x "$dir/maude"
