#!/bin/sh
# Fails when a file under lib/ includes a project header from a layer above
# its own, names a header without its layer, or is not listed in its
# folder's automake.mk.  The
# layers, lowest first, are the folders listed in LAYERS; a layer may
# include its own headers and those of the layers before it.
#
# Usage: tests/check-layering.sh [SRCDIR]   (run by make check)
LAYERS="base packet classifier netdev ofproto config dp control"
srcdir=${1:-${srcdir:-.}}
cd "$srcdir" || exit 1

rank() {
    n=0
    for l in $LAYERS; do
        [ "$l" = "$1" ] && { echo $n; return; }
        n=$((n + 1))
    done
    echo -1
}

bad=0
checked=0
for layer in $LAYERS; do
    own=$(rank "$layer")
    for f in lib/"$layer"/*.[ch]; do
        [ -e "$f" ] || continue
        checked=$((checked + 1))
        # Unlisted, it builds here but is missing from the tarball.
        if ! grep -q "^[[:space:]]*$f\b\|[[:space:]]$f\b" \
                "lib/$layer/automake.mk" 2>/dev/null; then
            echo "$f: not listed in lib/$layer/automake.mk"
            bad=$((bad + 1))
        fi
        # Project headers are the quoted includes; <...> are the system's
        # and include/'s compatibility headers.
        for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
            dir=${inc%%/*}
            if [ "$dir" = "$inc" ]; then
                echo "$f: #include \"$inc\" does not name its layer"
                bad=$((bad + 1))
                continue
            fi
            r=$(rank "$dir")
            if [ "$r" -lt 0 ]; then
                echo "$f: #include \"$inc\": $dir/ is not a layer of lib/"
                bad=$((bad + 1))
            elif [ "$r" -gt "$own" ]; then
                echo "$f: #include \"$inc\" goes up from $layer/ to $dir/"
                bad=$((bad + 1))
            fi
        done
    done
done
# A file directly in lib/ or in an unlisted folder has no layer.
for f in $(find lib -name '*.[ch]'); do
    d=${f#lib/}
    d=${d%%/*}
    if [ "$(rank "$d")" -lt 0 ]; then
        echo "$f: not in a layer folder ($LAYERS)"
        bad=$((bad + 1))
    fi
done
if [ "$checked" -eq 0 ]; then
    echo "check-layering: no files found under $srcdir/lib"
    exit 1
fi
echo "check-layering: $checked files, $bad violations"
[ "$bad" -eq 0 ]
