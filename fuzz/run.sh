#!/usr/bin/env bash
# Coverage-guided fuzzing of KafkaProtobuf with AFL++ and SharpFuzz.
#
#   fuzz/run.sh TARGET SECONDS [EXECUTIONS]     TARGET: reader | typed | multi | tool | registry
#
# With EXECUTIONS, AFL stops after that many executions (SECONDS is then only a cap).
# Installs what is missing (afl++ from Debian's packages, the sharpfuzz tool from NuGet via the repository's tool
# manifest), publishes the harness, instruments the target's assemblies (KafkaProtobuf.dll, and Google.Protobuf.dll for
# the deserializer targets; kafka-protobuf.dll for the tool's decoder; KafkaProtobuf.SchemaRegistry.dll and
# Google.Protobuf.dll for the registry's answers), writes the seed corpus (the Confluent test vectors; registry answers
# for registry), runs afl-fuzz for SECONDS, and prints one line:
#   fuzz TARGET: N executions, N execs/s, N edges, N corpus entries, N crashes, N hangs
# Exits non-zero if AFL found a crash or a hang; the inputs are then in fuzz/out/TARGET/findings/default/{crashes,hangs}.
# Every finding becomes a file in tests/KafkaProtobuf.Tests/FuzzRegressions (see the README there).
set -euo pipefail

target=${1:?usage: fuzz/run.sh reader|typed|multi|tool|registry SECONDS [EXECUTIONS]}
seconds=${2:?usage: fuzz/run.sh reader|typed|multi|tool|registry SECONDS [EXECUTIONS]}
executions=${3:-}
root=$(cd "$(dirname "$0")/.." && pwd)
work=${FUZZ_WORK:-$root/fuzz/out/$target}
cd "$root"

if ! command -v afl-fuzz >/dev/null 2>&1; then
    echo "installing afl++ (Debian package afl++)" >&2
    sudo_if_needed=""
    [ "$(id -u)" -ne 0 ] && sudo_if_needed="sudo"
    $sudo_if_needed apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo_if_needed apt-get install -y -qq afl++ >&2
fi
dotnet tool restore >/dev/null

rm -rf "$work"
mkdir -p "$work"
dotnet publish fuzz/KafkaProtobuf.Fuzz/KafkaProtobuf.Fuzz.csproj -c Release -o "$work/bin" -nologo -v quiet >&2
# The seeds first: writing them runs code that is not to be instrumented yet (outside AFL, instrumented code crashes).
dotnet "$work/bin/KafkaProtobuf.Fuzz.dll" seeds "$work/seeds" "$target"
case "$target" in
    reader) instrumented=(KafkaProtobuf.dll) ;;
    typed|multi) instrumented=(KafkaProtobuf.dll Google.Protobuf.dll) ;;
    tool) instrumented=(kafka-protobuf.dll KafkaProtobuf.dll) ;;
    registry) instrumented=(KafkaProtobuf.SchemaRegistry.dll Google.Protobuf.dll) ;;
    *) echo "unknown target $target" >&2; exit 2 ;;
esac
for assembly in "${instrumented[@]}"; do
    dotnet sharpfuzz "$work/bin/$assembly" >&2
done

# The target is `dotnet`, not an instrumented binary; crashes are exceptions, not core dumps; containers may not let
# AFL pin a core or read the CPU governor.
export AFL_SKIP_BIN_CHECK=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1
export AFL_QUIET=1
afl-fuzz -V "$seconds" ${executions:+-E "$executions"} -i "$work/seeds" -o "$work/findings" -t 10000 -m none \
    -- dotnet "$work/bin/KafkaProtobuf.Fuzz.dll" "$target" > "$work/afl.log" 2>&1 || {
    echo "afl-fuzz failed; its log:" >&2
    tail -40 "$work/afl.log" >&2
    exit 2
}

stats="$work/findings/default/fuzzer_stats"
value() { sed -n "s/^$1 *: *//p" "$stats"; }
crashes=$(value saved_crashes)
hangs=$(value saved_hangs)
echo "fuzz $target: $(value execs_done) executions, $(value execs_per_sec) execs/s, $(value edges_found) edges, $(value corpus_count) corpus entries, $crashes crashes, $hangs hangs"
[ "$crashes" = 0 ] && [ "$hangs" = 0 ]
