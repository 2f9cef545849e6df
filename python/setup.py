"""Builds the package `scout` (pyproject.toml holds its metadata): the extension scout._scout is
compiled by CMake from the scout checkout this folder belongs to, and the package gets the data
the library looks for beside its binary (scout/share/scout: the static model, the BPE rank files).

Environment:
  SCOUT_SOURCE_DIR       the checkout (default: the parent of this folder)
  SCOUT_CMAKE_BUILD_DIR  an existing, configured scout build tree to take the extension from
                         (built there with `cmake --build DIR --target scout_python`), instead of
                         configuring a fresh one in setuptools' build_temp
  SCOUT_CMAKE_ARGS       extra arguments for the fresh configure (e.g. -DSCOUT_TOKENIZER_DIR=...)
  CMAKE_BUILD_PARALLEL_LEVEL  compile jobs (default: the CPU count)
"""

import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = pathlib.Path(os.environ.get("SCOUT_SOURCE_DIR") or HERE.parent).resolve()


def scout_version():
    cmake_lists = SOURCE / "CMakeLists.txt"
    if not cmake_lists.is_file():
        sys.exit(f"setup.py: {SOURCE} is not a scout checkout (no CMakeLists.txt); "
                 "set SCOUT_SOURCE_DIR")
    match = re.search(r"project\(scout VERSION ([0-9.]+)", cmake_lists.read_text())
    if not match:
        sys.exit(f"setup.py: no version in {cmake_lists}")
    return match.group(1)


class CMakeBuild(build_ext):
    """Builds scout._scout with CMake and copies it, with share/scout, into the package."""

    def build_extension(self, ext):
        build_dir = os.environ.get("SCOUT_CMAKE_BUILD_DIR")
        if build_dir:
            build_dir = pathlib.Path(build_dir).resolve()
        else:
            build_dir = pathlib.Path(self.build_temp).resolve() / "cmake"
            configure = [
                "cmake", "-S", str(SOURCE), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                f"-DPython3_EXECUTABLE={sys.executable}", "-DSCOUT_BUILD_PYTHON=ON",
                "-DSCOUT_BUILD_TESTS=OFF", "-DSCOUT_BUILD_TOOLS=OFF",
                "-DSCOUT_BUILD_EXAMPLES=OFF", "-DSCOUT_BUILD_BENCHMARKS=OFF",
                "-DSCOUT_INSTALL=OFF", "-DSCOUT_SHARED=OFF",
            ]
            if shutil.which("ccache"):
                configure += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache",
                              "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
            configure += shlex.split(os.environ.get("SCOUT_CMAKE_ARGS", ""))
            subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "scout_python",
                        "-j", jobs], check=True)

        built = build_dir / "python" / "scout"
        modules = sorted(built.glob("_scout*.so"))
        if not modules:
            sys.exit(f"setup.py: CMake built no scout._scout in {built} (are pybind11-dev and "
                     "python3-dev installed?)")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(modules[-1], target)
        data = built / "share"
        if not (data / "scout" / "scout-static-256d.swm").is_file():
            sys.exit(f"setup.py: the static model was not staged in {data}/scout")
        shutil.rmtree(target.parent / "share", ignore_errors=True)
        shutil.copytree(data, target.parent / "share")


setup(
    version=scout_version(),
    packages=["scout"],
    package_data={"scout": ["py.typed", "*.pyi"]},
    ext_modules=[Extension("scout._scout", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
)
