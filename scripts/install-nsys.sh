#!/usr/bin/env bash
# Installs the Nsight Systems CLI (2022.4, Debian bookworm non-free: nsight-systems and
# nsight-systems-target, plus libssh-4 from main) into a project folder, default
# .tools/nsys, without touching the system's apt sources or dpkg database:
#   scripts/install-nsys.sh [DIR]      ->  DIR/bin/nsys
# Why not apt-get install: the -target package depends on the NVIDIA driver library, which
# a CPU machine (this one, CI) does not have and nsys does not need for NVTX/OS-runtime
# traces. Idempotent (a complete install is kept; a partial one is redone); needs apt-get,
# dpkg-deb and the Debian mirror (NSYS_DEBIAN_MIRROR). ~170 MB download, ~600 MB on disk.
set -euo pipefail
cd "$(dirname "$0")/.."

target=${1:-.tools/nsys}
mirror=${NSYS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
version=2022.4.2.1~11.8.0-5~deb12u1   # pinned: the tests read this version's report formats
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

mkdir -p "$target"
target=$(cd "$target" && pwd)
root=$target/root
marker=$target/.installed
target_dir=$root/usr/lib/x86_64-linux-gnu/nsight-systems/target-linux-x64
host_dir=$root/usr/lib/nsight-systems/host-linux-x64

installed() {
  [[ -f $marker ]] && "$target/bin/nsys" --version >/dev/null 2>&1 && "$host_dir/QdstrmImporter" --version >/dev/null 2>&1
}
if installed; then
  echo "setup: $("$target/bin/nsys" --version) in $target" >&2
  exit 0
fi
for tool in apt-get dpkg-deb; do
  command -v "$tool" >/dev/null || { echo "install-nsys: $tool not found (Debian's apt and dpkg are needed)" >&2; exit 2; }
done
[[ -r $keyring ]] || { echo "install-nsys: no Debian keyring at $keyring (install debian-archive-keyring)" >&2; exit 2; }

rm -rf "$root" "$marker" "$target/bin"
work=$(mktemp -d "$target/.work.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
echo "deb [signed-by=$keyring] $mirror bookworm main non-free" >"$work/sources.list"
# Private apt state: only this sources.list, lists and cache (the system's are read-only here).
apt_options=(-o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
  -o "Dir::Etc::PreferencesParts=/dev/null" -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
  -o "APT::Sandbox::User=$(id -un)" -qq)
echo "setup: downloading Nsight Systems $version from $mirror (non-free)" >&2
apt-get "${apt_options[@]}" update
(cd "$work/debs" && apt-get "${apt_options[@]}" download "nsight-systems=$version" "nsight-systems-target=$version" libssh-4)
mkdir -p "$root"
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$root"; done

# nsys looks for its importer in <its own dir>/../host-linux-x64, under x86_64-linux-gnu/;
# Debian puts the host tools one level up. Without this every profile ends with "importer
# binary ... not found" and only a .qdstrm.
ln -sfn ../../nsight-systems/host-linux-x64 "$target_dir/../host-linux-x64"
# host-linux-x64/libssh.so -> ../../x86_64-linux-gnu/libssh.so.4 resolves into the extracted
# libssh-4 (the system may only have libssh-gcrypt).
mkdir -p "$target/bin"
ln -sfn ../root/usr/lib/x86_64-linux-gnu/nsight-systems/target-linux-x64/nsys "$target/bin/nsys"
missing=$(for f in "$target_dir/nsys" "$target_dir/libToolsInjection64.so" "$host_dir/QdstrmImporter"; do
  LD_LIBRARY_PATH=$(dirname "$f") ldd "$f" | grep 'not found' || true
done)
[[ -z $missing ]] || { echo "install-nsys: unresolved libraries:" >&2; echo "$missing" >&2; exit 1; }
touch "$marker"
installed || { echo "install-nsys: $target/bin/nsys does not run after the install" >&2; exit 1; }
echo "setup: $("$target/bin/nsys" --version) in $target" >&2
