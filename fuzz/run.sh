#!/usr/bin/env bash
# Coverage-guided fuzzing of KafkaProtobuf with AFL++ and SharpFuzz.
#
#   fuzz/run.sh TARGET SECONDS [EXECUTIONS]     TARGET: reader | typed | multi | tool | registry
#   fuzz/run.sh prepare DIR                     publish, seed and instrument once into DIR, for runs with FUZZ_BUILD=DIR
#
# With EXECUTIONS, AFL stops after that many executions (SECONDS is then only a cap).
# Installs what is missing (afl++ from Debian's packages, the sharpfuzz tool from NuGet via the repository's tool
# manifest), publishes the harness, writes every target's seed corpus (the Confluent test vectors; registry answers for
# registry), instruments the assemblies the targets fuzz (KafkaProtobuf.dll, Google.Protobuf.dll, kafka-protobuf.dll,
# KafkaProtobuf.SchemaRegistry.dll: all of them for every target, so one build serves all; an instrumented assembly a
# target never calls adds nothing to its coverage), runs afl-fuzz for SECONDS, and prints one line:
#   fuzz TARGET: N executions, N execs/s, N edges, N corpus entries, N crashes, N hangs
# Exits non-zero if AFL found a crash or a hang; the inputs are then in fuzz/out/TARGET/findings/default/{crashes,hangs}.
# Every finding becomes a file in tests/KafkaProtobuf.Tests/FuzzRegressions (see the README there).
set -euo pipefail

target=${1:?usage: fuzz/run.sh reader|typed|multi|tool|registry SECONDS [EXECUTIONS] | prepare DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if ! command -v afl-fuzz >/dev/null 2>&1; then
    echo "installing afl++ (Debian package afl++)" >&2
    sudo_if_needed=""
    [ "$(id -u)" -ne 0 ] && sudo_if_needed="sudo"
    $sudo_if_needed apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo_if_needed apt-get install -y -qq afl++ >&2
fi

targets=(reader typed multi tool registry)

# Publishes the harness into $1/bin, writes each target's seeds into $1/seeds/TARGET, then instruments.
prepare() {
    local build=$1
    dotnet tool restore >/dev/null
    rm -rf "$build"
    mkdir -p "$build"
    dotnet publish fuzz/KafkaProtobuf.Fuzz/KafkaProtobuf.Fuzz.csproj -c Release -o "$build/bin" -nologo -v quiet >&2
    # The seeds first: writing them runs code that is not to be instrumented yet (outside AFL, instrumented code crashes).
    for t in "${targets[@]}"; do
        dotnet "$build/bin/KafkaProtobuf.Fuzz.dll" seeds "$build/seeds/$t" "$t"
    done
    for assembly in KafkaProtobuf.dll Google.Protobuf.dll kafka-protobuf.dll KafkaProtobuf.SchemaRegistry.dll; do
        dotnet sharpfuzz "$build/bin/$assembly" >&2
    done
    touch "$build/ready"
}

if [ "$target" = prepare ]; then
    prepare "${2:?usage: fuzz/run.sh prepare DIR}"
    exit 0
fi
case " ${targets[*]} " in
    *" $target "*) ;;
    *) echo "unknown target $target" >&2; exit 2 ;;
esac
seconds=${2:?usage: fuzz/run.sh reader|typed|multi|tool|registry SECONDS [EXECUTIONS]}
executions=${3:-}
work=${FUZZ_WORK:-$root/fuzz/out/$target}
rm -rf "$work"
mkdir -p "$work"
build=${FUZZ_BUILD:-$work/build}
if [ ! -f "$build/ready" ]; then
    prepare "$build"
fi

# The target is `dotnet`, not an instrumented binary; crashes are exceptions, not core dumps; containers may not let
# AFL pin a core or read the CPU governor.
export AFL_SKIP_BIN_CHECK=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1
export AFL_QUIET=1
afl-fuzz -V "$seconds" ${executions:+-E "$executions"} -i "$build/seeds/$target" -o "$work/findings" -t 10000 -m none \
    -- dotnet "$build/bin/KafkaProtobuf.Fuzz.dll" "$target" > "$work/afl.log" 2>&1 || {
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
