#!/usr/bin/env bash
# Builds the library crates' docs as a user and as docs.rs would, then fails
# on any intra-doc link that rendered as text.
#
# `RUSTDOCFLAGS=-D warnings` misses two kinds of dead link:
# - a link that resolves to an item whose crate has no docs in the output
#   folder and no `html_root_url`: rustdoc drops the link and prints the
#   brackets (`cargo doc --no-deps -p bloomlab` documents no variant crate);
# - a link in docs that another crate inlines (the facade's re-exports):
#   rustdoc resolves it again there, without the first crate's imports, and
#   never warns about it.
# - a link in a private item's docs, which a public build never resolves.
# The first two leave "[`Foo::bar`]" or "[Foo::bar]" in the HTML, which is
# what this script looks for, outside code blocks and signatures; the third
# is a build of the private items with warnings denied.
#
# Usage: scripts/check-docs.sh [--check-only DIR]
# (about 50 s once the dependencies are compiled for stable and nightly)
set -euo pipefail
cd "$(dirname "$0")/.."

# Prints every bracketed path left in the rendered prose of the HTML under $1.
dead_links() {
  find "$1" -name '*.html' -not -path '*/src/*' -print0 |
    xargs -0 perl -0777 -ne '
      s{<pre\b.*?</pre>}{}gs;           # code blocks and item declarations
      s{<h[1-6][^>]*code-header.*?</h[1-6]>}{}gs;  # signatures
      while (m{\[(<code>[^<]{1,120}</code>|[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z0-9_]+)+)\](?![(\[])}g) {
        print "$ARGV: $1\n";
      }'
}

check() {
  local found
  found=$(dead_links "$1")
  if [ -n "$found" ]; then
    echo "intra-doc links rendered as text (fix the link's path):" >&2
    echo "$found" | sed 's/<\/\?code>/`/g' | sort | uniq -c >&2
    return 1
  fi
  echo "no dead intra-doc link under $1"
}

# The search itself, on a page with one dead link in prose and lookalikes
# in a code block and a signature, which are not links.
sample=$(mktemp -d)
trap 'rm -rf "$sample"' EXIT
cat >"$sample/page.html" <<'HTML'
<h4 class="code-header">fn f(x: &amp;[F::Item])</h4><div class="docblock"><p>As
[<code>Builder::build</code>] and [<code>live</code>](x.html).</p>
<pre class="rust"><code>let v = s[word]; #[test] let w = &amp;[T::A];</code></pre></div>
HTML
[ "$(dead_links "$sample")" = "$sample/page.html: <code>Builder::build</code>" ] || {
  echo "check-docs.sh: the dead-link search no longer finds the sample's one dead link" >&2
  exit 1
}

if [ "${1:-}" = --check-only ]; then
  check "$2"
  exit
fi

libs=(bloomlab bloomlab-core bloomlab-classic bloomlab-counting bloomlab-scalable
  bloomlab-cuckoo bloomlab-fuse bloomlab-quotient bloomlab-redis bloomlab-guava)

# Each library crate's html_root_url names its own version, so that a link
# to a crate not documented locally reaches that crate's docs.rs page.
version=$(cargo metadata --no-deps --format-version 1 --offline |
  perl -MJSON::PP -0777 -ne 'print((grep { $_->{name} eq "bloomlab" } @{decode_json($_)->{packages}})[0]->{version})')
for name in "${libs[@]}"; do
  dir=crates/${name#bloomlab-}
  [ "$name" = bloomlab ] && dir=crates/bloomlab
  want="#![doc(html_root_url = \"https://docs.rs/$name/$version\")]"
  grep -qxF "$want" "$dir/src/lib.rs" || { echo "$dir/src/lib.rs lacks $want" >&2; exit 1; }
done

packages=()
for name in "${libs[@]}"; do packages+=(-p "$name"); done

# As the issue's user read them: the facade and the two bridges alone, in an
# output folder of their own, so nothing else is there to link to.
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
out=$CARGO_TARGET_DIR/doc
rm -rf "$out"
RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps --all-features \
  -p bloomlab -p bloomlab-redis -p bloomlab-guava
check "$out"

# As docs.rs builds each crate: every feature, with the docs.rs cfg, which
# needs a nightly rustdoc (doc_cfg); without a nightly, the stable build.
rm -rf "$out"
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  RUSTDOCFLAGS="-D warnings --cfg docsrs" cargo +nightly doc --quiet --no-deps --all-features "${packages[@]}"
else
  echo "no nightly toolchain: the docs.rs build (--cfg docsrs) is left to docs.rs" >&2
  RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps --all-features "${packages[@]}"
fi
check "$out"

# Links in private items' docs, which a public build never resolves: the
# maintainers' docs. Private items may link to each other, and a link
# written out in full for the facade's inlined copy is not an error here.
RUSTDOCFLAGS="-D warnings -A rustdoc::private_intra_doc_links -A rustdoc::redundant_explicit_links" \
  cargo doc --quiet --no-deps --document-private-items --all-features "${packages[@]}"
echo "no broken intra-doc link in private items"
