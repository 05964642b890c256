#!/usr/bin/env bash
# The wheels a release of nbgym publishes: one per supported Python on x86-64 Linux, each holding the kernels of every
# environment id prebuilt for the three x86-64 processor levels (setup.py, NBGYM_PREBUILD_KERNELS), so that
# `pip install nbgym` steps an environment for the first time in about a second instead of compiling it (a Box2D id
# ~50-90 s).
#
#   scripts/build_release_wheels.sh [OUT_DIR]          (default: dist/)
#   PYTHONS="3.12" IDS="CartPole-v1,LunarLander-v3" LEVELS="generic" scripts/build_release_wheels.sh /tmp/wheels
#
# PYTHONS: the Pythons to build for (default 3.10 3.11 3.12 3.13, found under pyenv's versions as .ci/run finds them);
# IDS: NBGYM_PREBUILD_KERNELS (default 1: every id); LEVELS: NBGYM_PREBUILD_LEVELS (default: every level this machine
# runs; the x86-64-v4 level needs a machine with AVX-512, which runs the code it builds).
#
# Each wheel is built in a fresh venv of its Python with the newest numpy, numba, MuJoCo and pygame-ce the registry
# has: the kernels are numba's code for that Python, numba and numpy minor release, and the MuJoCo ids' for that MuJoCo
# version (the wheel's nbgym/_prebuilt_kernels/manifest.json says which; a process with others compiles what does not
# fit, and says why). Publish the wheels when those are the releases users will get. Prints, and writes to
# OUT_DIR/build-times.md, each wheel's size and build time.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mkdir -p "${1:-dist}" && cd "${1:-dist}" && pwd)
pythons=${PYTHONS:-3.10 3.11 3.12 3.13}
ids=${IDS:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python_of() {
  local found
  found=$(ls -d /root/.pyenv/versions/"$1".*/bin/python"$1" 2>/dev/null | sort -V | tail -n 1)
  [ -n "$found" ] || found=$(command -v "python$1" || true)
  if [ -z "$found" ]; then
    echo "build_release_wheels: no Python $1 found (pyenv install $1, or put python$1 on PATH)" >&2
    exit 1
  fi
  echo "$found"
}

report="$out/build-times.md"
{
  echo "| Python | wheel | size | build time | numba | numpy | mujoco | levels |"
  echo "|---|---|---|---|---|---|---|---|"
} > "$report"
for version in $pythons; do
  venv="$work/venv-$version"
  "$(python_of "$version")" -m venv "$venv"
  # The build's dependencies (--no-build-isolation: the kernels are compiled by this venv's numba) and every extra
  # whose environments compile kernels: MuJoCo's ids import mujoco, CarRacing draws its frames with pygame-ce.
  "$venv/bin/python" -m pip install --quiet --upgrade pip setuptools wheel
  "$venv/bin/python" -m pip install --quiet numpy numba cloudpickle typing-extensions pygame-ce mujoco imageio
  rm -rf build
  start=$SECONDS
  NBGYM_PREBUILD_KERNELS=$ids NBGYM_PREBUILD_LEVELS=${LEVELS:-} SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy \
    "$venv/bin/python" -m pip wheel --no-build-isolation --no-deps -w "$work/wheels-$version" .
  seconds=$((SECONDS - start))
  rm -rf build
  wheel=$(ls "$work/wheels-$version"/nbgym-*.whl)
  mv "$wheel" "$out/"
  wheel="$out/$(basename "$wheel")"
  manifest=$("$venv/bin/python" -c "
import json, sys, zipfile
manifest = json.loads(zipfile.ZipFile(sys.argv[1]).read('nbgym/_prebuilt_kernels/manifest.json'))
print(manifest['numba'], manifest['numpy'], manifest['mujoco'], ','.join(manifest['levels']))" "$wheel")
  read -r numba numpy mujoco levels <<< "$manifest"
  size=$(du -m "$wheel" | cut -f1)
  line="| $version | $(basename "$wheel") | ${size} MB | $((seconds / 60)) min $((seconds % 60)) s | $numba | $numpy | $mujoco | $levels |"
  echo "$line" >> "$report"
  echo "$line"
done
echo "Wheels and $report in $out"
