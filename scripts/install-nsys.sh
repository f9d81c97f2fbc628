#!/usr/bin/env bash
# Installs the Nsight Systems CLI (2022.4, Debian bookworm non-free: nsight-systems and
# nsight-systems-target, plus libssh-4 from main) into a project folder, default
# .tools/nsys, without touching the system's apt sources or dpkg database:
#   scripts/install-nsys.sh [DIR]      ->  DIR/bin/nsys
# Why not apt-get install: the -target package depends on the NVIDIA driver library, which
# a CPU machine (this one, CI) does not have and nsys does not need for NVTX/OS-runtime
# traces. The packages come from the Debian sources the machine's apt already has (its
# sources.list and sources.list.d, whatever mirror they name), with the non-free component
# added in a private apt configuration for this one download. Idempotent (a complete
# install is kept; a partial one is redone); needs apt-get, dpkg-deb and a Debian release
# in the machine's apt sources. ~170 MB download, ~600 MB on disk.
set -euo pipefail
cd "$(dirname "$0")/.."

target=${1:-.tools/nsys}
version=2022.4.2.1~11.8.0-5~deb12u1   # pinned: the tests read this version's report formats

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
for tool in apt-get apt-config dpkg-deb awk; do
  command -v "$tool" >/dev/null || { echo "install-nsys: $tool not found (Debian's apt and dpkg are needed)" >&2; exit 2; }
done
codename=$(. /etc/os-release 2>/dev/null && printf '%s' "${VERSION_CODENAME:-}")
[[ -n $codename ]] || { echo "install-nsys: /etc/os-release names no release (VERSION_CODENAME): expected Debian" >&2; exit 2; }
# Where this machine's apt reads its sources (apt-config: an apt.conf may move them).
eval "$(apt-config shell sources_list Dir::Etc::sourcelist/f source_parts Dir::Etc::sourceparts/d)"

rm -rf "$root" "$marker" "$target/bin"
work=$(mktemp -d "$target/.work.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs" "$work/sources.list.d"

# The machine's deb sources of its Debian release ($codename, $codename-updates, ...), as
# they are, non-free added to their components: one-line entries ("deb [opts] URI SUITE
# COMPONENTS...") and deb822 stanzas (*.sources). Other sources (a vendor's repository) and
# disabled ones are left out: this download needs none of them.
one_line_sources() {
  awk -v codename="$codename" '
    { sub(/#.*/, "") }
    $1 == "deb" {
      options = ""; i = 2
      if ($2 ~ /^\[/) { while (i < NF && $i !~ /\]$/) options = options " " $(i++); options = options " " $(i++) }
      suite = $(i + 1)
      if (suite != codename && index(suite, codename "-") != 1) next
      components = ""; nonfree = 0
      for (k = i + 2; k <= NF; k++) { components = components " " $k; if ($k == "non-free") nonfree = 1 }
      print "deb" options " " $i " " suite components (nonfree ? "" : " non-free")
    }' "$@"
}
deb822_sources() {
  awk -v codename="$codename" '
    function flush(   j) {
      if (n && types ~ /(^|[ \t])deb([ \t]|$)/ && enabled != "no" && ours) { for (j = 1; j <= n; j++) print kept[j]; print "" }
      n = 0; types = ""; enabled = ""; ours = 0
    }
    /^[ \t]*$/ { flush(); next }
    /^#/ { next }
    {
      line = $0
      if (line ~ /^[A-Za-z-]+:/) {
        key = tolower(substr(line, 1, index(line, ":") - 1)); value = substr(line, index(line, ":") + 1)
        if (key == "types") types = value
        if (key == "enabled") { enabled = tolower(value); gsub(/[ \t]/, "", enabled) }
        if (key == "suites") { count = split(value, suites, " ")
          for (s = 1; s <= count; s++) if (suites[s] == codename || index(suites[s], codename "-") == 1) ours = 1 }
        if (key == "components" && value !~ /(^|[ \t])non-free([ \t]|$)/) line = line " non-free"
      }
      kept[++n] = line
    }
    END { flush() }' "$@"
}
shopt -s nullglob
lists=() stanzas=()
[[ -f $sources_list ]] && lists+=("$sources_list")
lists+=("$source_parts"*.list)
stanzas+=("$source_parts"*.sources)
((${#lists[@]})) && one_line_sources "${lists[@]}" >"$work/sources.list"
touch "$work/sources.list"
((${#stanzas[@]})) && deb822_sources "${stanzas[@]}" >"$work/sources.list.d/debian.sources"
shopt -u nullglob
if ! grep -q . "$work/sources.list" "$work"/sources.list.d/*.sources 2>/dev/null; then
  echo "install-nsys: the machine's apt sources ($sources_list, $source_parts*.list, *.sources) have no deb source of" \
    "Debian $codename: expected one (its mirror is used, with the non-free component added)" >&2
  exit 2
fi
# Private apt state: these sources, lists and cache (the system's are left as they are);
# the keys the machine trusts are its own.
apt_options=(-o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=$work/sources.list.d"
  -o "Dir::Etc::PreferencesParts=/dev/null" -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
  -o "APT::Sandbox::User=$(id -un)" -qq)
echo "setup: downloading Nsight Systems $version from the machine's Debian $codename sources (non-free)" >&2
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
