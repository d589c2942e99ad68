"""Fixtures: a fresh `karrow registry serve` per test, and Confluent's client pointed at it.

The binary is $KARROW_BIN, else target/release/karrow, else target/debug/karrow (relative to
the repository root).
"""

import os
import subprocess
from pathlib import Path

import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient

ROOT = Path(__file__).resolve().parents[2]


def karrow_binary() -> str:
    configured = os.environ.get("KARROW_BIN")
    if configured:
        return configured
    for candidate in (ROOT / "target/release/karrow", ROOT / "target/debug/karrow"):
        if candidate.exists():
            return str(candidate)
    pytest.fail("the karrow binary is not built: cargo build --release -p karrow, or set KARROW_BIN")


@pytest.fixture
def registry_url():
    process = subprocess.Popen(
        [karrow_binary(), "registry", "serve", "--host", "127.0.0.1", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        line = process.stdout.readline().strip()
        prefix = "karrow dev registry listening on "
        assert line.startswith(prefix), f"unexpected first line {line!r}"
        yield line[len(prefix):]
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def client(registry_url):
    return SchemaRegistryClient({"url": registry_url})
