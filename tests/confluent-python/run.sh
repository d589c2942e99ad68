#!/usr/bin/env bash
# Confluent's own Python client (confluent-kafka, pinned in requirements.txt) against
# `karrow registry serve` over real HTTP. Needs the karrow binary: $KARROW_BIN, else
# target/release/karrow, else target/debug/karrow; and karrow's format sessions through
# connector-java/native/examples/session_bridge.rs ($KARROW_BRIDGE, else
# target/release/examples/session_bridge: `cargo build --release -p karrow-native --example
# session_bridge`, which `make test-python` runs). Takes a few seconds.
set -euo pipefail
cd "$(dirname "$0")"
python3 -m pip install -q --disable-pip-version-check -r requirements.txt
exec python3 -m pytest -q -p no:cacheprovider .
