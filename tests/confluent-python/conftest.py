"""Fixtures: a fresh `karrow registry serve` per test, and Confluent's client pointed at it.

The binary is $KARROW_BIN, else target/release/karrow, else target/debug/karrow (relative to
the repository root); the session bridge $KARROW_BRIDGE, else target/*/examples/session_bridge.
"""

import json
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


def bridge_binary() -> str:
    """The example that drives karrow's format sessions (connector-java/native/examples)."""
    configured = os.environ.get("KARROW_BRIDGE")
    if configured:
        return configured
    for candidate in (ROOT / "target/release/examples/session_bridge", ROOT / "target/debug/examples/session_bridge"):
        if candidate.exists():
            return str(candidate)
    pytest.fail("the session bridge is not built: cargo build --release -p karrow-native --example session_bridge")


class Bridge:
    """karrow's decode or encode session of one format, the JNI calls' Rust side, over pipes."""

    def __init__(self, mode, kind, config):
        self.process = subprocess.Popen(
            [bridge_binary(), mode, str(kind), json.dumps(config)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        self.mode = mode

    def ask(self, line):
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            pass
        answer = self.process.stdout.readline()
        if not answer:
            self.process.wait(timeout=10)
            raise RuntimeError(self.process.stderr.read().strip())
        answer = answer.rstrip("\n")
        if answer.startswith("error: "):
            raise RuntimeError(answer[len("error: "):])
        return answer

    def decode(self, value: bytes):
        """The rows karrow decodes from one Kafka value, as flink-json renders them."""
        rows = []
        line = self.ask(value.hex())
        while line != ".":
            rows.append(json.loads(line))
            line = self.process.stdout.readline().rstrip("\n")
        return rows

    def encode(self, row: dict) -> bytes:
        """The Kafka value karrow writes for one row (given as flink-json reads it)."""
        return bytes.fromhex(self.ask(json.dumps(row)))

    def close(self):
        try:
            self.process.stdin.close()
        except BrokenPipeError:
            pass
        self.process.wait(timeout=10)


@pytest.fixture
def bridge():
    opened = []

    def open_bridge(mode, kind, config):
        b = Bridge(mode, kind, config)
        opened.append(b)
        return b

    yield open_bridge
    for b in opened:
        b.close()


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
