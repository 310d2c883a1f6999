#!/usr/bin/env bash
# Packs the eleven packages into OUT, each checked by package validation against the last release, the one
# eng/package-baseline.txt names: the release's library packages are first rebuilt from its commit (a clone with
# history is needed; only their net10.0 assemblies: the other frameworks are held by the PublicAPI files and by
# validation across frameworks), in a worktree that is removed after. A member of the release removed or changed fails
# the pack. The package tests pack through this script, so a release is packed exactly as CI checks it.
#
#   eng/pack.sh OUT                    a release: the version the build gives (VersionPrefix, KafkaProtobufRelease=true: no suffix)
#   eng/pack.sh OUT VERSION --no-build what is built, as VERSION (the package tests)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:?usage: eng/pack.sh OUT [VERSION --no-build]}")
version=${2:-}
build=${3:-}
libraries=(KafkaProtobuf KafkaProtobuf.Testing KafkaProtobuf.SchemaRegistry KafkaProtobuf.Hosting KafkaProtobuf.Streamiz
    KafkaProtobuf.Aspire KafkaProtobuf.Aspire.Hosting KafkaProtobuf.AspNetCore KafkaProtobuf.Wolverine)
projects=("${libraries[@]}" KafkaProtobuf.Tool KafkaProtobuf.Build)

read -r baseline_version baseline_commit < <(grep -v '^[[:space:]]*#' "$root/eng/package-baseline.txt" | grep -v '^[[:space:]]*$' | head -n 1)
work=$(mktemp -d)
cleanup() {
    git -C "$root" worktree remove --force "$work/source" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

git -C "$root" worktree add --detach "$work/source" "$baseline_commit" >/dev/null
for library in "${libraries[@]}"; do
    # A library first released after the baseline is not there: nothing to compare it with.
    [ -f "$work/source/src/$library/$library.csproj" ] || continue
    (cd "$work/source" && dotnet pack "src/$library/$library.csproj" -c Release -o "$work/baseline" \
        -p:Version="$baseline_version" -p:TargetFrameworks=net10.0 -p:EnablePackageValidation=false -nologo -v q)
done

arguments=(-c Release -o "$out" -p:PackageBaselineFeed="$work/baseline" -p:PackageBaselineVersion="$baseline_version" -nologo -v q)
if [ -n "$version" ]; then
    arguments+=(-p:Version="$version")
else
    arguments+=(-p:KafkaProtobufRelease=true)
fi

if [ "$build" = "--no-build" ]; then
    # Without a build, pack restores nothing and writes only its own project's files: the eleven run side by side.
    pids=()
    for project in "${projects[@]}"; do
        (cd "$root" && dotnet pack "src/$project/$project.csproj" --no-build "${arguments[@]}") &
        pids+=($!)
    done
    status=0
    for pid in "${pids[@]}"; do
        wait "$pid" || status=1
    done
    exit "$status"
fi

for project in "${projects[@]}"; do
    (cd "$root" && dotnet pack "src/$project/$project.csproj" "${arguments[@]}")
done
